# What a row paired by ab round runs under each --test, and what the
# output says of it (doc/statistics.md, "Paired rounds"): welch's paired
# form is the paired t, utest's the signed-rank test with Hodges–Lehmann;
# yuen and bootstrap have none and run the paired t, which the notes and
# the footer say, and such a row shows no trimmed mean ("location"), as
# its test is not on one.  A third label, compared unpaired, keeps its
# real trimmed means.  The values are fixed (a command prints the k-th of
# a list at its k-th call), so every number is SciPy's, from
# tests/data/ref_compare_paired.txt (tests/ref/gen_compare_paired.py).
. "$(dirname "$0")/lib.sh"

REF="$ROOT/tests/data/ref_compare_paired.txt"
ref() { awk -v k="$1" '$1 == k { print $2 }' "$REF"; }
vals() { # the six values of X (a, b, c) in order
    for i in 1 2 3 4 5 6; do ref "${1}_$i"; done | tr '\n' ' '
}

# vals.sh STATE V1 V2...: the k-th call prints "v Vk" (the first call is
# the warm-up round's, so each list starts with a value that is not counted)
cat >"$T/vals.sh" <<'SH'
#!/bin/sh
st=$1
shift
k=$(cat "$st" 2>/dev/null || echo 0)
k=$((k + 1))
echo "$k" >"$st"
eval "v=\${$k}"
echo "v $v"
SH
chmod +x "$T/vals.sh"
M='--metric v=^v\ ([0-9.eE+-]+)$'

t_case "setup: one ab session of fixed rounds, one run apart"
# shellcheck disable=SC2046
expect_rc 0 "$NF" ab --rounds 6:6 -m v "A=$M -- ./vals.sh st.a 10 $(vals a)" \
    "B=$M -- ./vals.sh st.b 11 $(vals b)"
expect_rc 0 "$NF" run -L C -r 6 --metric 'v=^v ([0-9.eE+-]+)$' -- ./vals.sh st.c 10 $(vals c)
[ "$(cat st.a st.b st.c | tr '\n' ' ')" = "7 7 7 " ] || fail "not 7 calls each: $(cat st.a st.b st.c)"

near() { # JSON expression, value: equal to 1e-9 relative
    json_check "abs(($1) - ($2)) <= 1e-9 * abs($2)"
}

for t in welch utest yuen bootstrap; do
    t_case "--test $t: a paired row says what ran; no location"
    expect_rc 0 "$NF" compare --json --test "$t" -m v A B
    json_check 'd["rows"][0]["pairing"] == "rounds" and d["rows"][0]["change_of"] == "pairs"'
    json_check '"location" not in d["rows"][0]'
    # change_pct is the change of the means shown, whatever the test
    json_check 'abs(d["rows"][0]["change_pct"] - (d["rows"][0]["mean"] / d["rows"][0]["baseline_mean"] - 1) * 100) < 1e-9'
    json_check 'd["rows"][0]["change_better_pct"] == -d["rows"][0]["change_pct"]'
    near 'd["rows"][0]["baseline_mean"]' "$(ref mean_a)"
    near 'd["rows"][0]["mean"]' "$(ref mean_b)"
    case $t in
    utest)
        near 'd["rows"][0]["p_value"]' "$(ref wilcoxon_p)"
        near 'd["rows"][0]["test_change_pct"]' "$(ref hl_change)"
        json_check 'any("rounds of ab session" in n and n.endswith("; Wilcoxon signed-rank test and Hodges–Lehmann on the log-ratios)") for n in d["rows"][0]["notes"])'
        ;;
    welch)
        near 'd["rows"][0]["p_value"]' "$(ref ttest_rel_p)"
        near 'd["rows"][0]["test_change_pct"]' "$(ref ttest_rel_change)"
        json_check 'any("rounds of ab session" in n and n.endswith("; paired t on the log-ratios)") for n in d["rows"][0]["notes"])'
        ;;
    *)
        near 'd["rows"][0]["p_value"]' "$(ref ttest_rel_p)"
        near 'd["rows"][0]["test_change_pct"]' "$(ref ttest_rel_change)"
        json_check 'any("rounds of ab session" in n and n.endswith("; paired t on the log-ratios; --test '"$t"' has no paired form)") for n in d["rows"][0]["notes"])'
        ;;
    esac
    expect_rc 0 "$NF" compare --test "$t" -m v A B
    case $t in
    welch | utest)
        expect_in out "^$t test \(its paired form where rows are paired by round or host\), alpha"
        ;;
    *)
        expect_in out "^$t test \(where rows are paired by round or host: paired t on the log-ratios; --test $t has no paired form\), alpha"
        ;;
    esac
    # the mean's row carries the change of the means (11.0 / 10.7: 2.80%
    # worse), the Paired row the paired change (HL's with utest); no
    # TrMean row
    ch='-3\.65'
    [ "$t" != utest ] || ch='-8\.96'
    expect_in out "^Amean +v +10\.7000 \(  0\.00%\) +11\.0000 \( *-2\.80%\)"
    expect_in out "^Paired +change +\( *$ch%\)$"
    expect_not_in out "^TrMean"
done

t_case "--test yuen: an unpaired label beside a paired one keeps its trimmed means"
expect_rc 0 "$NF" compare --json --test yuen -m v A B C
json_check '[r["label"] for r in d["rows"]] == ["B", "C"]'
json_check 'd["rows"][1]["pairing"] == "none" and d["rows"][1]["change_of"] == "location"'
json_check 'd["rows"][1]["location"]["name"] == "TrMean" and "location" not in d["rows"][0]'
near 'd["rows"][1]["location"]["baseline"]' "$(ref trim_a)"
near 'd["rows"][1]["location"]["value"]' "$(ref trim_c)"
near 'd["rows"][1]["p_value"]' "$(ref yuen_ca_p)"
near 'd["rows"][1]["test_change_pct"]' "$(ref yuen_ca_change)"
expect_rc 0 "$NF" compare --test yuen -m v A B C
# Amean: A and C plain, B with the change of the means; Paired: B's
# paired change; TrMean: A, C (4.96% worse), B none
expect_in out "^Amean +v +10\.7000 +11\.0000 \( *-2\.80%\) +12\.1167 *$"
expect_in out "^Paired +change +\( *-3\.65%\) +- *$"
expect_in out "^TrMean +v +10\.0750 \(  0\.00%\) +- +10\.5750 [*(] *-4\.96%[*)] *$"
expect_rc 0 "$NF" compare --brief --test yuen -m v A B C
expect_in out "^TrMean v +10\.0750 \(  0\.00%\) +- .* 10\.5750 [*(] *-4\.96%[*)]"

pass
