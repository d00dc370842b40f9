# ab --max-time holds in every order, before the minimum of rounds too: it
# is looked at after each complete round (in sequential order, after each
# repetition, each variant getting a share and at least one), never within
# a repetition, and the output says the time limit stopped the session.
# Each variant sleeps longer than the limit, so the rounds run are known
# whatever the machine's speed: one.
. "$(dirname "$0")/lib.sh"

t_case "a limit shorter than a round: one round, before the minimum, and said so"
expect_rc 0 "$NF" ab --json --rounds 5:10 --max-time 0.01 'a=-- sleep 0.05' 'b=-- sleep 0.05'
json_check 'd["rounds"] == 1'
json_check 'd["stopped"].startswith("the time limit (--max-time 0.01 s), after 1 round: fewer than the minimum of 5")'
json_check '"fewer rounds than the design" in d["stopped"]'
expect_rc 0 "$NF" export --format json
json_check 'sorted((r["label"], r["repeat"], len(next(m for m in r["metrics"] if m["name"] == "wall")["values"])) for r in d["runs"]) == [("a", 1, 1), ("b", 1, 1)]'

t_case "the text output says the time limit stopped it"
expect_rc 0 "$NF" ab --rounds 5:10 --max-time 0.01 'c=-- sleep 0.05' 'd=-- sleep 0.05'
expect_in out "^ab session .*: 1 round \(\+1 warm-up\) in .*; stopped: the time limit \(--max-time 0\.01 s\), after 1 round: fewer than the minimum of 5, so the verdict rests on fewer rounds than the design's minimum$"

t_case "sequential order: each variant one repetition, not MIN"
expect_rc 0 "$NF" ab --json --order sequential --rounds 5 --max-time 0.01 'e=-- sleep 0.05' 'f=-- sleep 0.05'
json_check 'd["rounds"] == 1 and d["stopped"].startswith("the time limit (--max-time 0.01 s), after 1 round")'
expect_rc 0 "$NF" export --format json -L e -L f
json_check 'sorted((r["label"], r["repeat"], len(next(m for m in r["metrics"] if m["name"] == "wall")["values"])) for r in d["runs"]) == [("e", 1, 1), ("f", 1, 1)]'

t_case "--max-time 0: no limit"
# Both rounds run; the last look may end it by the design (an A/A crosses
# a boundary at rate alpha) or at the maximum, never by the time.
expect_rc 0 "$NF" ab --json --rounds 2:2 --max-time 0 'g=-- true' 'h=-- true'
json_check 'd["rounds"] == 2 and "time limit" not in d["stopped"]'
expect_rc 0 "$NF" ab --json --order sequential --rounds 2 --max-time 0 'i=-- true' 'j=-- true'
json_check 'd["rounds"] == 2 and d["stopped"].startswith("sequential order runs MIN rounds")'

pass
