# compare when one label's runs differ more than their repetitions: the run
# is then a level of variance for every label of the row, so a label whose
# runs agree (or that has one run) is compared by its run means too.  Its
# repetitions alone say nothing of how far a run can move: a single run's
# 5 samples held against 3 run means made an A/A comparison wrong in about
# 16% of trials (a simulation with runs offset by N(0, 1) and repetitions
# by N(0, 0.2)), where alpha is 5%.
. "$(dirname "$0")/lib.sh"

imp() { # imp LABEL VALUES...: one run of metric t (lower is better)
    l=$1; shift
    printf -- '%s\n' "$@" >run.txt
    "$NF" import run.txt --format values --label "$l" --metric t --unit ms --better lower \
        >/dev/null || fail "import $l"
}

# A: three runs at 10.0, 10.2 and 10.4 that differ far more than their
# repetitions (+-0.01); B: one run at 11.0.  Before, B's 5 samples were the
# units against A's 3 run means: "regressed", CI about [+6%, +10%].
imp A 10.00 10.01 9.99 10.00 10.01
imp A 10.20 10.21 10.19 10.20 10.21
imp A 10.40 10.41 10.39 10.40 10.41
imp B 11.00 11.01 10.99 11.00 11.01

t_case "one run against runs that differ: no test on its repetitions"
expect_rc 0 "$NF" compare --fail-on-regression A B
expect_in out '^Verdict +inconclusive$'
expect_in out '^N +3 runs +1 run$'
# (said once, by the diagnosis's finding)
expect_in out "note: A: the 3 runs differ more than their repetitions \\(ANOVA p"
[ "$(grep -c 'ANOVA p' "$T/out")" -eq 1 ] || fail "the ANOVA p not once"
expect_in out "note: B: runs are the units, since A's runs differ more than their repetitions: using its 1 run mean$"
expect_in out 'note: B: only 1 run mean; at least 3 are needed'
expect_rc 0 "$NF" compare --json A B
json_check 'd["rows"][0]["verdict"] == "inconclusive" and d["rows"][0]["n"] == 1'

t_case "the other way round: the baseline has the one run"
expect_rc 0 "$NF" compare B A
expect_in out '^N +1 run +3 runs$'
expect_in out '^Verdict +inconclusive$'

t_case "three runs that agree against runs that differ: run means both sides"
imp C 10.90 11.00 11.10 10.95 11.05
imp C 11.00 10.90 11.10 11.05 10.95
imp C 10.95 11.05 11.00 10.90 11.10
expect_rc 3 "$NF" compare --fail-on-regression A C
expect_in out '^N +3 runs +3 runs$'
expect_in out "note: C: runs are the units, since A's runs differ more than their repetitions: using its 3 run means$"
# C's run means are all 11.0: Welch on {10.0, 10.2, 10.4} against them
expect_in out '^Verdict +regressed$'

t_case "runs that agree on both sides: the repetitions are the units"
imp D 10.90 11.00 11.10 10.95 11.05
expect_rc 0 "$NF" compare D C
expect_in out '^N +5 +15$'
expect_not_in out 'runs are the units'

pass
