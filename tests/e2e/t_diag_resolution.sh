# A sample that is noisy because of the clock's step, not the machine: 1.3 ms
# of work timed in whole milliseconds is a string of 1s and 2s.  The noisy
# note names the resolution as the cause and a longer repetition as the fix
# (pinning or doctor would not help); the same spread on a fine grid is the
# machine's, and so is that of percentiles that tie but lie on no grid.
. "$(dirname "$0")/lib.sh"

t_case "values rounded to a coarse step: the resolution is the cause; on a fine grid, the machine"
for i in $(seq 20); do echo $(((i * 7) % 3 == 0 ? 2 : 1)); done >coarse.txt
for v in 1.013 1.951 1.342 1.007 1.778 1.204 1.655 1.398 1.921 1.116 \
    1.487 1.062 1.833 1.271 1.569 1.149 1.702 1.433 1.886 1.321; do echo $v; done >fine.txt
for l in coarse fine; do
    "$NF" import $l.txt --format values --label $l --metric lat --unit ms >/dev/null || fail "import $l"
done
expect_rc 0 "$NF" compare fine coarse
expect_in out 'note: coarse: noisy'
expect_in out 'likely cause: the measurement.s resolution: the values are rounded to steps of 100% of the median'
expect_in out 'fix: make one repetition longer'
expect_in out 'note: fine: noisy'
expect_in out 'likely cause: a noisy machine'
expect_rc 0 "$NF" compare --json fine coarse
json_check '[(f["label"], f["step_pct"], "longer" in f["fix"], f["robust_cv_pct"] > 5) for r in d["rows"] for f in r["diagnosis"] if f["kind"] == "noisy"] == [("fine", 0, False, True), ("coarse", 100, True, True)]'

t_case "histogram percentiles that tie are on no grid: the machine, not the resolution"
# Six repetitions' wakeup-p50, read off log-linear histograms: two fell in
# one bucket, but the gaps are 1.61, 1, 2.20 and 1.22 times the smallest.
printf '6.5115\n7.2475\n8.8635\n9.7595\n5.3275\n9.7595\n' >b.txt
printf '6.2235\n7.5035\n8.4315\n9.3275\n5.8155\n6.9915\n' >a.txt
for l in a b; do
    "$NF" import $l.txt --format values --label hist-$l --metric wakeup-p50 --unit usecs \
        --better lower >/dev/null || fail "import $l"
done
expect_rc 0 "$NF" compare hist-a hist-b
expect_in out 'note: hist-b: noisy'
expect_not_in out 'resolution'
expect_rc 0 "$NF" compare --json hist-a hist-b
json_check '[(f["label"], f["step_pct"]) for r in d["rows"] for f in r["diagnosis"] if f["kind"] == "noisy"] == [("hist-a", 0), ("hist-b", 0)]'
pass
