# compare where a review found wrong verdicts: a lower-is-better metric
# with negative values (the direction is that of mean - baseline_mean, the
# changes shown with + as better), and constant counts whose ratio lands
# exactly on the equivalence margin (1% of 1000000, rounded in doubles to
# 1.0000000000000009%: still inside, the margin is inclusive); an
# inconclusive row's advice when the robust spread is 0; the bootstrap's
# minimum n; what a row's change_pct is the change of.
. "$(dirname "$0")/lib.sh"

imp() { # imp LABEL METRIC VALUES...: one run (lower is better)
    l=$1 m=$2; shift 2
    printf -- '%s\n' "$@" >"$l.txt"
    "$NF" import "$l.txt" --format values --label "$l" --metric "$m" --unit ms --better lower \
        >/dev/null || fail "import $l"
}

t_case "negative values: lower is better, and lower won"
imp A t -10.0 -10.1 -9.9 -10.05 -9.95 -10.02
imp B t -12.0 -12.1 -11.9 -12.05 -11.95 -12.02
expect_rc 0 "$NF" compare --fail-on-regression -m t A B
expect_in out '^Verdict +improved$'
# from -10 to -12 is a fall of 20% of |-10|: + as better
expect_in out '^Amean +ms +-10\.0033 \(  0\.00%\) +-12\.0033 \* 19\.99%\*$'
expect_in out '^CI +change +\[\+19\.0%, \+21\.0%\]$'
# the CV of a negative mean is shown as its magnitude
expect_in out '^CoeffVar +ms +0\.71% +0\.59%$'
expect_rc 0 "$NF" compare --json -m t A B
# change_pct keeps its definition, (mean/baseline_mean - 1) * 100
json_check 'd["rows"][0]["verdict"] == "improved" and 19.9 < d["rows"][0]["change_pct"] < 20.1'

t_case "negative values: the other way round regressed"
expect_rc 3 "$NF" compare --fail-on-regression -m t B A
expect_in out '^Verdict +regressed$'
expect_in out '^CI +change +\[-17\.4%, -16\.0%\]$'

t_case "constant counts exactly on the margin are equivalent"
imp I1 insns 1000000 1000000 1000000
imp I2 insns 1010000 1010000 1010000
expect_rc 0 "$NF" compare --fail-on-regression -m insns I1 I2
expect_in out '^Verdict +equivalent$'
imp I3 insns 990000 990000 990000
expect_rc 0 "$NF" compare --fail-on-regression -m insns I1 I3
expect_in out '^Verdict +equivalent$'

t_case "constant counts just past the margin are a change"
imp I4 insns 1010001 1010001 1010001
expect_rc 3 "$NF" compare --fail-on-regression -m insns I1 I4
expect_in out '^Verdict +regressed$'

t_case "a robust spread of 0 does not shrink the advice"
# counts mostly 12 with a few blips: the winsorized middle is constant,
# Welch's CVs are 4.49% and 4.29%; nf_runs_needed(4.49, 1, 0.05) = 621
imp C1 x 12 12 12 12 12 12 12 12 12 12 12 12 12 12 12 12 13 13 14 13
imp C2 x 12 12 12 12 12 12 12 12 12 12 12 12 12 12 12 12 12 13 14 13
expect_rc 0 "$NF" compare --json -m x C1 C2
json_check 'd["rows"][0]["verdict"] == "inconclusive" and d["rows"][0]["runs_needed"] == 621'
expect_rc 0 "$NF" compare -m x C1 C2
expect_in out 'C2: inconclusive; about 621 repetitions per side \(601 more\) would settle it'

t_case "the bootstrap refuses fewer than 5 values a side, with a note"
# 10, 10.2 against 11, 11.3: the resampled ratios all lie above 1, so the
# interval excluded 1 while the bootstrap's p was 0.13
imp N2a t 10 10.2
imp N2b t 11 11.3
expect_rc 0 "$NF" compare --test bootstrap -m t N2a N2b
expect_in out '^CI +change +-$'
expect_in out 'N2b: the bootstrap needs at least 5 values a side \(2 and 2\): no test'
expect_rc 0 "$NF" compare --json --test bootstrap -m t N2a N2b
json_check 'd["rows"][0]["verdict"] == "inconclusive" and d["rows"][0]["p_value"] is None and abs(d["rows"][0]["change_pct"] - 10.396039603960405) < 1e-9'
# Welch tests them
expect_rc 0 "$NF" compare --json -m t N2a N2b
json_check 'd["rows"][0]["p_value"] is not None'

t_case "compare --json says what change_pct is the change of"
# one slow repetition: the means differ by 10%, the trimmed means by 0.1%
imp Y1 y 6.20 6.17 6.23 6.21 6.19 6.22
imp Y2 y 6.21 6.18 6.24 9.93 6.20 6.23
expect_rc 0 "$NF" compare --json --test yuen -m y Y1 Y2
json_check 'd["rows"][0]["change_of"] == "location" and d["rows"][0]["location"]["name"] == "TrMean"'
json_check 'abs(d["rows"][0]["test_change_pct"] - (d["rows"][0]["location"]["value"] / d["rows"][0]["location"]["baseline"] - 1) * 100) < 1e-9'
# baseline_mean and mean stay the means, and change_pct is theirs (10%)
json_check 'abs(d["rows"][0]["mean"] - 6.831666666666667) < 1e-9 and abs(d["rows"][0]["test_change_pct"]) < 1'
json_check 'abs(d["rows"][0]["change_pct"] - (d["rows"][0]["mean"] / d["rows"][0]["baseline_mean"] - 1) * 100) < 1e-9 and d["rows"][0]["change_pct"] > 9'
expect_rc 0 "$NF" compare --json -m y Y1 Y2
json_check 'd["rows"][0]["change_of"] == "means" and abs(d["rows"][0]["change_pct"] - (d["rows"][0]["mean"] / d["rows"][0]["baseline_mean"] - 1) * 100) < 1e-9'

pass
