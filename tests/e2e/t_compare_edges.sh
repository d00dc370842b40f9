# compare at its edges: a baseline mean of 0 (the test on the values, no
# percentage); one repetition a side (a change, but no test and no
# runs_needed); a real change inside a wide margin (its note signed as the
# table); --brief saying how many more runs would settle a row; a counter
# stored <not supported> shown as such; a rate with a value of 0.
. "$(dirname "$0")/lib.sh"

imp() { # imp LABEL VALUES...: one run of metric x (a count, lower is better)
    l=$1; shift
    printf '%s\n' "$@" >"$l.txt"
    "$NF" import "$l.txt" --format values --label "$l" --metric x --unit "" --better lower \
        >/dev/null || fail "import $l"
}

t_case "a baseline of 0: Welch on the values, regressed"
# major page faults 0,0,0 against 5,5,6 (Welch p 0.00388, SciPy; see
# tests/data/ref_zero_base.txt)
imp zero 0 0 0
imp five 5 5 6
expect_rc 0 "$NF" compare --json zero five
json_check 'd["rows"][0]["verdict"] == "regressed" and d["rows"][0]["significant"] is True'
json_check 'abs(d["rows"][0]["p_value"] - 0.003883509816495471) < 1e-9'
json_check 'all(d["rows"][0][k] is None for k in ("change_pct", "ci_low_pct", "ci_high_pct", "runs_needed"))'
json_check 'd["rows"][0]["baseline_mean"] == 0 and "advice" not in d["rows"][0]'
json_check 'any(n.startswith("five: the baseline mean is 0, so the change has no percentage; the test is on the values: difference +5.333, 95% CI [+3.899, +6.768]") for n in d["rows"][0]["notes"])'
expect_rc 3 "$NF" compare --fail-on-regression zero five
expect_rc 0 "$NF" compare zero five
# + is better: from 0 up is -inf%, between stars; the CI has no bounds
expect_in out '^Amean +x +0\.0000 \(  0\.00%\) +5\.3333 \*  -inf%\*$'
expect_in out '^CI +change +unbounded$'
expect_in out '^Verdict +regressed$'
expect_not_in out 'repetitions per side'

t_case "a baseline of 0: constant data decide, whatever the test"
imp c5 5 5 5
for t in welch utest bootstrap yuen; do
    expect_rc 3 "$NF" compare --fail-on-regression --test $t zero c5
done
expect_rc 0 "$NF" compare --json zero c5
json_check 'd["rows"][0]["verdict"] == "regressed" and d["rows"][0]["p_value"] == 0'
json_check 'any("difference +5, both sides constant" in n for n in d["rows"][0]["notes"])'

t_case "a baseline of 0: a significant fall is an improvement, +inf%"
# values around 0 against lower ones (Welch p 0.00464, SciPy)
imp around0 -1 1 -2 2 0
imp lower -3 -4 -3.5 -5 -2
expect_rc 0 "$NF" compare around0 lower
expect_in out '\*  \+inf%\*$'
expect_in out '^Verdict +improved$'
expect_in out 'difference -3\.5, 95% CI \[-5\.536, -1\.464\]'

t_case "a baseline of 0: not enough to tell, and no runs_needed"
imp z7 0 0 7
expect_rc 0 "$NF" compare --json zero z7
json_check 'd["rows"][0]["verdict"] == "inconclusive" and d["rows"][0]["runs_needed"] is None'
json_check 'abs(d["rows"][0]["p_value"] - 0.42264973081037416) < 1e-9'
expect_rc 0 "$NF" compare zero z7
expect_in out '\(  -inf%\)$'
expect_not_in out 'would settle it|repetitions per side'

t_case "a baseline of 0: the bootstrap cannot, and says why"
expect_rc 0 "$NF" compare --json --test bootstrap zero five
json_check 'd["rows"][0]["verdict"] == "inconclusive" and d["rows"][0]["p_value"] is None'
json_check 'any("the bootstrap test resamples a ratio of means: no test" in n for n in d["rows"][0]["notes"])'
expect_rc 0 "$NF" compare --fail-on-regression --test bootstrap zero five
t_case "a real change inside the margin: the note signed as the table"
# lower is better, about 3% worse: "* -2.96%*" in the table, and so in the note
for v in 100.3 99.1 101.2 98.7 100.9 99.6 100.4 99.8 101.5 98.9; do echo $v; done >A.txt
awk '{ printf "%.6f\n", $1 * 1.0296 }' A.txt >C.txt
"$NF" import A.txt --format values --label A --metric lat --unit ms >/dev/null
"$NF" import C.txt --format values --label C --metric lat --unit ms >/dev/null
expect_rc 0 "$NF" compare --threshold 5 A C
expect_in out '^Amean +ms +100\.04 \(  0\.00%\) +103\.00 \* -2\.96%\*$'
expect_in out '^  note: C: a real change of -2\.96% \(worse\), inside the ±5% margin$'
expect_in out '^Verdict +equivalent$'

t_case "one repetition a side: the change, no test, no runs_needed"
# each perf stat -r import is one repetition: task-clock 14.87 and 11.59
D=$ROOT/tests/data/import
expect_rc 0 "$NF" import "$D/perf-stat-r3.csv" --format perf-stat-csv --label pc
expect_rc 0 "$NF" import "$D/perf-stat-single.csv" --format perf-stat-csv --label pc2
expect_rc 0 "$NF" compare --json -m task-clock pc pc2
json_check 'abs(d["rows"][0]["change_pct"] - (11.59 / 14.87 - 1) * 100) < 1e-9'
json_check 'd["rows"][0]["baseline_mean"] == 14.87 and d["rows"][0]["mean"] == 11.59'
json_check 'all(d["rows"][0][k] is None for k in ("ci_low_pct", "ci_high_pct", "p_value", "runs_needed"))'
json_check 'd["rows"][0]["verdict"] == "inconclusive"'
json_check '"pc2: only 1 repetition; at least 3 are needed for a useful test" in d["rows"][0]["notes"]'
json_check 'not any("per side" in n or "settle" in n for n in d["rows"][0]["notes"])'
expect_rc 0 "$NF" compare -m task-clock pc pc2
expect_in out '^Amean +msec +14\.8700 \(  0\.00%\) +11\.5900 \( 22\.06%\)$'
expect_in out '^Stddev +msec +- +-$'
expect_in out '^CI +change +-$'
expect_not_in out 'would settle it|repetitions per side|only 1 repetitions'
t_case "a counter <not supported>: a row that says so, untested"
# the perf stat imports above have cycles <not supported> (no PMU)
expect_rc 2 "$NF" compare -m cycles pc pc2
expect_in out '^perf-stat cycles \(lower is better\) +pc +pc2$'
expect_in out '^Amean +cycles +<not supported> +<not supported>$'
expect_in out '^Verdict +-$'
expect_not_in out 'Stddev|CI +change'
expect_rc 2 "$NF" compare --json -m cycles pc pc2
json_check 'len(d["rows"]) == 1 and d["rows"][0]["supported"] is False and d["rows"][0]["significant"] is False'
json_check 'all(d["rows"][0][k] is None for k in ("baseline_mean", "mean", "change_pct", "p_value", "p_adjusted", "runs_needed"))'
json_check 'd["rows"][0]["baseline_n"] == 0 and d["rows"][0]["n"] == 0'
json_check '"this label has this metric <not supported> (the event could not be counted): no test" in d["rows"][0]["notes"]'
expect_rc 0 "$NF" compare --json pc pc2
json_check '[(r["metric"], r["supported"]) for r in d["rows"]] == [("task-clock", True), ("context-switches", True), ("cycles", False)]'
expect_rc 0 "$NF" compare --brief pc pc2
expect_in out '^Amean  cycles +<not supported> +<not supported> - *$'
expect_rc 0 "$NF" compare --fail-on-regression pc pc2
# measured here: without a PMU, run stores cycles <not supported> too
expect_rc 0 "$NF" run --json -r 3 -e cycles,task-clock -L ra pipe -l 2000
if /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not any(m["name"] == "cycles" and not m["supported"] for m in d["metrics"]))' "$T/out"; then
    expect_rc 0 "$NF" run -r 3 -e cycles,task-clock -L rb pipe -l 2000
    expect_rc 0 "$NF" compare ra rb
    expect_in out '^Amean +cycles +<not supported> +<not supported>$'
    expect_rc 2 "$NF" compare -m cycles ra rb
    expect_in out '^Amean +cycles +<not supported> +<not supported>$'
else
    echo "  (cycles is counted on this machine: the measured case is not checked)"
fi

t_case "--brief: an inconclusive row says how many more would settle it"
# about 0.9% apart at CV ~1%, ten a side: 68 per side would settle it (robust CV 1.47%)
for v in 101.9 99.5 100.9 101.8 99.9 101.6 100.3 102.4 99.8 101.1; do echo $v; done >A3.txt
"$NF" import A3.txt --format values --label A3 --metric lat --unit ms >/dev/null
printf '100\n108\n95\n104\n' >noisy1.txt
"$NF" import noisy1.txt --format values --label noisy1 --metric lat --unit ms >/dev/null
expect_rc 0 "$NF" compare --json A A3
json_check 'd["rows"][0]["verdict"] == "inconclusive" and d["rows"][0]["runs_needed"] == 68 and d["rows"][0]["n"] == 10'
expect_rc 0 "$NF" compare --brief A A3 C noisy1
expect_in out '^Amean +lat +100\.04 \(  0\.00%\) +100\.92 \( -0\.88%\) inconclusive \(run 58 more\) +103\.00 \* -2\.96%\* regressed +101\.75 \( -1\.71%\) inconclusive \(run >100x more\) *$'
# the labels stand over their columns
case_failed || /usr/bin/python3 - "$T/out" <<'PY' || fail "--brief: the labels are not over their columns"
import sys
h, r = open(sys.argv[1]).read().split("\n")[:2]
end = lambda line, s: line.index(s) + len(s)
sys.exit(0 if end(h, " A3 ") - 1 == end(r, "( -0.88%)") and end(h, " C ") - 1 == end(r, "* -2.96%*")
         and end(h, " noisy1") == end(r, "( -1.71%)") else 1)
PY
expect_not_in out 'repetitions per side'
# no trailing blanks after the last column, also when its verdict is short
expect_rc 0 "$NF" compare --brief A C
expect_in out ' regressed$'
expect_not_in out ' $'
t_case "a rate with a value of 0: harmonic mean 0, no test, no runs_needed"
# a throughput whose second repetition moved nothing: its harmonic mean is
# 0 (not the arithmetic 63.33), and no number of repetitions makes a test
# on the reciprocals possible
printf '100\n0\n90\n' >r0.txt
printf '100\n95\n90\n' >r1.txt
"$NF" import r0.txt --format values --label r0 --metric tput --unit MB/s --better higher >/dev/null
"$NF" import r1.txt --format values --label r1 --metric tput --unit MB/s --better higher >/dev/null
expect_rc 0 "$NF" compare r0 r1
expect_in out '^Hmean +MB/s +0\.0000 '
expect_in out "note: r0: a value of 0 in a rate \\(higher is better\\): the harmonic mean is 0, and no test runs on it"
expect_not_in out 'settl'
expect_rc 0 "$NF" compare --json r0 r1
json_check 'd["rows"][0]["baseline_mean"] == 0 and d["rows"][0]["runs_needed"] is None and d["rows"][0]["verdict"] == "inconclusive"'
pass
