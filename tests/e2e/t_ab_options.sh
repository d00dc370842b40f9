# ab takes its options anywhere among the variants, as every command
# without a command line of its own does (compare base new --json): each
# SPEC is one word, so nothing of a SPEC can be taken for an option.
. "$(dirname "$0")/lib.sh"

t_case "options after the variants"
expect_rc 0 "$NF" ab a='-- true' b='-- true' --rounds 2:2 --json -m wall --seed 7
json_check 'd["rounds"] == 2 and [r["metric"] for r in d["rows"]] == ["wall"]'

t_case "options between the variants"
expect_rc 0 "$NF" ab c='-- true' --rounds 2:2 --brief d='-- true'
expect_in out "^command +c +d$"

t_case "a word that is not NAME=SPEC is still refused"
expect_rc 2 "$NF" ab e='-- true' f='-- true' --rounds 2:2 stray
expect_one_line_err
expect_in err "stray"

t_case "--rounds out of range names the bounds, the largest included"
for r in 1000000:1000000 100001 1 5:3; do
    expect_rc 2 "$NF" ab a='-- true' b='-- true' --rounds "$r"
    expect_one_line_err
    expect_in err "^noisefloor: ab: --rounds wants MIN or MIN:MAX with 2 <= MIN <= MAX <= 100000, not '$r'$"
done

t_case "submit checks ab's words the same way"
expect_rc 0 "$NF" submit -- ab g='-- true' h='-- true' --rounds 2:2
expect_rc 0 "$NF" jobs --json
json_check 'len(d["jobs"]) == 1'
pass
