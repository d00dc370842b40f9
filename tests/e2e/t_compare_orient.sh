# Every output of a comparison says its direction the same way: from a
# baseline below 0 on a lower-is-better metric (the relative change's sign
# is then the opposite of mean - baseline_mean), compare --brief, compare's
# table, its JSON, the explanations and report --html agree with + as
# better.  A run's CV is |CV|.  The "run N more" advice counts from the
# side with fewer units, and in runs when run means are the units; the
# expected counts are tests/data/ref_compare_orient.txt (made by
# tests/ref/gen_compare_orient.py from the formulas of doc/statistics.md).
. "$(dirname "$0")/lib.sh"
REF="$ROOT/tests/data/ref_compare_orient.txt"

imp() { # imp LABEL VALUES...: one run of metric t (ms, lower is better)
    l=$1; shift
    printf -- '%s\n' "$@" >"$T/v.txt"
    "$NF" import "$T/v.txt" --format values --metric t --unit ms --better lower -L "$l" \
        >/dev/null || fail "import $l"
}
ref() { awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$REF"; } # ref NAME FIELD

t_case "a negative baseline: improved, + as better, in every output"
imp A -10.0 -10.1 -9.9 -10.05 -9.95 -10.02
imp B -12.0 -12.1 -11.9 -12.05 -11.95 -12.02
expect_rc 0 "$NF" compare -m t A B
expect_in out '^Amean +ms +-10\.0033 \(  0\.00%\) +-12\.0033 \* 19\.99%\*$'
expect_in out '^CI +change +\[\+19\.0%, \+21\.0%\]$'
expect_in out '^Verdict +improved$'
expect_rc 0 "$NF" compare --brief -m t A B
expect_in out '^Amean +t +-10\.0033 \(  0\.00%\) +-12\.0033 \* 19\.99%\* improved$'
expect_rc 0 "$NF" compare --json -m t A B
json_check 'd["rows"][0]["verdict"] == "improved" and d["rows"][0]["mean"] < d["rows"][0]["baseline_mean"]'
expect_rc 0 "$NF" report --html - -m t A B
expect_in out 'B</b> vs <b>A</b> on values t \(ms\): 19\.99% better \(CI \[\+19\.0%, \+21\.0%\], \+ is better\)'
expect_in out '<td class="num sig">\*19\.99%\*</td><td class="num">\[\+19\.0%, \+21\.0%\]</td>'
expect_not_in out 'worse'

t_case "a negative baseline: regressed the other way round, in every output"
expect_rc 0 "$NF" compare -m t B A
expect_in out '^CI +change +\[-17\.4%, -16\.0%\]$'
expect_in out '^Verdict +regressed$'
expect_rc 0 "$NF" compare --brief -m t B A
expect_in out '^Amean +t +-12\.0033 \(  0\.00%\) +-10\.0033 \*-16\.66%\* regressed$'
expect_rc 0 "$NF" compare --json -m t B A
json_check 'd["rows"][0]["verdict"] == "regressed" and d["rows"][0]["mean"] > d["rows"][0]["baseline_mean"]'
expect_rc 0 "$NF" report --html - -m t B A
expect_in out 'A</b> vs <b>B</b> on values t \(ms\): 16\.66% worse \(CI \[-17\.4%, -16\.0%\], \+ is better\)'
expect_in out '<td class="num sig">\*-16\.66%\*</td><td class="num">\[-17\.4%, -16\.0%\]</td>'

t_case "a negative baseline's clusters compare with + as better"
# two states each, the variant 0.5 ms lower in both: better by 5% of
# |-10| and 2.5% of |-20|
imp CA -10.0 -10.1 -9.9 -10.05 -9.95 -20.0 -20.1 -19.9 -20.05 -19.95 \
    -10.02 -9.98 -20.02 -19.98 -10.03 -9.97 -20.03 -19.97 -10.01 -20.01
imp CB -10.5 -10.6 -10.4 -10.55 -10.45 -20.5 -20.6 -20.4 -20.55 -20.45 \
    -10.52 -10.48 -20.52 -20.48 -10.53 -10.47 -20.53 -20.47 -10.51 -20.51
expect_rc 0 "$NF" compare -m t CA CB
expect_in out 'cluster by cluster'
expect_in out ' \+5\.[0-9]+% \[\+'
expect_in out ' \+2\.[0-9]+% \[\+'
expect_not_in out ' -[25]\.[0-9]+% \['
expect_rc 0 "$NF" report --html - -m t CA CB
expect_in out '>\+5\.[0-9]+% \[\+'
expect_not_in out '>-[25]\.[0-9]+% \['

t_case "a run's CV of negative values is |CV|"
expect_rc 0 "$NF" show --json 1
json_check '0.7 < d["metrics"][0]["cv_pct"] < 0.72 and d["metrics"][0]["sem_pct"] > 0'
expect_rc 0 "$NF" show 1
expect_not_in out ' -0\.7[01]%'

t_case "a negative mean's plain CV still gives advice"
# trimmed means of 0: no robust CV, the plain |CV|s (233% and 236%) stand in
imp Z1 -30 0 0 0 1
imp Z2 -31 0 0 0 1
expect_rc 0 "$NF" compare --json -m t Z1 Z2
json_check "d['rows'][0]['verdict'] == 'inconclusive' and d['rows'][0]['runs_needed'] > 500"
expect_rc 0 "$NF" compare -m t Z1 Z2
expect_in out 'Z2: inconclusive; settling it at this noise would take more than 100 times the 5 repetitions per side so far'

# 200 repetitions at CV 0.2% (a triangular spread, deterministic)
awk 'BEGIN { for (i = 0; i < 200; i++) {
    u = ((i * 77) % 200 + 0.5) / 200; v = ((i * 133) % 200 + 0.5) / 200
    printf "%.4f\n", 100.3 + 0.2 * sqrt(6) * (u + v - 1) } }' >"$T/m200.txt"
"$NF" import "$T/m200.txt" --format values --metric t --unit ms --better lower -L m200 \
    >/dev/null || fail "import m200"

t_case "3 repetitions against 200: the 3 need the most more"
imp m3 100 102 98
N=$(ref m3 3) CV=$(ref m3 2) # 179, the 3 repetitions' robust CV
expect_rc 0 "$NF" compare --json -m t m3 m200
json_check "d['rows'][0]['verdict'] == 'inconclusive' and d['rows'][0]['runs_needed'] == $N"
json_check "abs(d['rows'][0]['advice']['robust_cv_pct'] - $CV) < 1e-6"
expect_in out "m200: inconclusive; about $N repetitions per side \\($((N - 3)) more\\)"
expect_rc 0 "$NF" compare -m t m3 m200
expect_in out "about $N repetitions per side \\($((N - 3)) more\\) would settle it"
expect_rc 0 "$NF" compare --brief -m t m3 m200
expect_in out "inconclusive \\(run $((N - 3)) more\\)$"
expect_rc 0 "$NF" report --html - -m t m3 m200
expect_in out "\\(run $((N - 3)) more\\)"

t_case "200 repetitions against 3: the same advice"
expect_rc 0 "$NF" compare --json -m t m200 m3
json_check "d['rows'][0]['verdict'] == 'inconclusive' and d['rows'][0]['runs_needed'] == $N"
expect_rc 0 "$NF" compare -m t m200 m3
expect_in out "about $N repetitions per side \\($((N - 3)) more\\) would settle it"
expect_rc 0 "$NF" compare --brief -m t m200 m3
expect_in out "inconclusive \\(run $((N - 3)) more\\)$"

t_case "3 noisy repetitions against 200: beyond 100 times the 3"
imp m3wide 100 110 90
N=$(ref m3wide 3) # 4435: more than 100 x 3
expect_rc 0 "$NF" compare --json -m t m3wide m200
json_check "d['rows'][0]['runs_needed'] == $N"
expect_rc 0 "$NF" compare -m t m3wide m200
expect_in out 'more than 100 times the 3 repetitions per side so far'
expect_rc 0 "$NF" compare --brief -m t m3wide m200
expect_in out 'inconclusive \(run >100x more\)$'

t_case "run means as the units: runs per side"
# two runs a label that differ far more than their repetitions
imp R1 99.95 100.05 99.97 100.03 100.00
imp R1 101.45 101.55 101.47 101.53 101.50
imp R2 100.15 100.25 100.17 100.23 100.20
imp R2 101.65 101.75 101.67 101.73 101.70
N=$(ref runs 3) # 77, from the run means' robust CV
expect_rc 0 "$NF" compare --json -m t R1 R2
json_check "d['rows'][0]['verdict'] == 'inconclusive' and d['rows'][0]['runs_needed'] == $N"
expect_rc 0 "$NF" compare -m t R1 R2
expect_in out '^N +2 runs +2 runs$'
expect_in out "R2: inconclusive; about $N runs per side \\($((N - 2)) more\\) would settle it"
expect_not_in out 'repetitions per side'
expect_rc 0 "$NF" report --html - -m t R1 R2
expect_in out "about $N runs per side \\($((N - 2)) more\\)"

pass
