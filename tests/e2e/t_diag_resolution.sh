# A sample that is noisy because of the clock's step, not the machine: 1.3 ms
# of work timed in whole milliseconds is a string of 1s and 2s.  The noisy
# note names the resolution as the cause and a longer repetition as the fix
# (pinning or doctor would not help); the same spread on a fine grid is the
# machine's.
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
pass
