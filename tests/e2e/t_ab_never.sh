# ab stops at the look that sees a deciding row no more rounds can decide
# (doc/ab.md, "A row that can never be decided"): here a rate (--better
# higher) with a value of 0 on one side, which has no harmonic mean but 0
# and no test, for good.  The session says why in its stop line, keeps its
# runs complete, and exits 0 with the row inconclusive; without the rule it
# ran to MAX.  (The other such row, a variant without samples of a counter
# the baseline counts, needs a counter this machine counts for one variant
# only: tests/unit/test_ab_stop.c.)
. "$(dirname "$0")/lib.sh"

t_case "a rate of 0 on one side: stops at the first look, says why"
expect_rc 0 "$NF" ab --rounds 3:40 --seed 1 -m v \
    x='--metric v=^([0-9]+)$ --better higher -- echo 5' \
    y='--metric v=^([0-9]+)$ --better higher -- echo 0'
expect_in out "^ab session ab-[^ ]+: 3 rounds \(\+1 warm-up\) .*stopped: 'y' has a value of 0 in the rate v, and no test runs on it; more rounds would not change that$"
expect_in out "note: y: a value of 0 in a rate \(higher is better\): the harmonic mean is 0, and no test runs on it"
expect_in out "^Verdict: y vs x on command v: inconclusive$"
expect_rc 0 "$NF" list -L x -L y
expect_in out "x +command echo 5 .* 3 .* complete$"
expect_in out "y +command echo 0 .* 3 .* complete$"

t_case "the baseline's 0, in JSON"
expect_rc 0 "$NF" ab --json --rounds 3:40 --seed 1 -m v \
    jx='--metric v=^([0-9]+)$ --better higher -- echo 0' \
    jy='--metric v=^([0-9]+)$ --better higher -- echo 5'
json_check 'd["rounds"] == 3 and d["stopped"].startswith("the baseline '"'"'jx'"'"' has a value of 0 in the rate v")'
json_check 'd["rows"][0]["verdict"] == "inconclusive" and d["rows"][0]["p_value"] is None'

t_case "a 0 after the minimum: the look of that round stops, three variants"
# seq.sh STATE OFFSET ZERO: the invocation's value from a fixed wiggle
# (CV about 2.5%, so that no look decides in these few rounds), starting at
# OFFSET, and 0 from invocation ZERO on (0: never).  lz's 7th invocation is
# its round 6 (the warm-up is its first).
cat >"$T/seq.sh" <<'SH'
n=$(cat "$1" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" >"$1"
set -- "$2" "$3" 100 103 98 101 97 102 96 104 100 99 103 97
off=$1 zero=$2
shift $((2 + (n + off) % 12))
if [ "$zero" -gt 0 ] && [ "$n" -ge "$zero" ]; then echo 0; else echo "$1"; fi
SH
m='--metric v=^([0-9]+)$ --better higher --'
expect_rc 0 "$NF" ab --rounds 3:40 --seed 2 -m v \
    la="$m sh $T/seq.sh $T/a 0 0" lb="$m sh $T/seq.sh $T/b 4 0" lz="$m sh $T/seq.sh $T/z 7 7"
expect_in out "^ab session ab-[^ ]+: 6 rounds \(\+1 warm-up\) .*stopped: 'lz' has a value of 0 in the rate v, and no test runs on it; more rounds"
pass
