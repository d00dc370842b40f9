# A repetition that fails part-way through a run ends it there (the rule
# of doc/noisefloor-run.1): the repetitions before it are kept, the run
# is stored as failed with them, their summary is printed, and run exits 1
# with one line naming the failure.  Here a command fails at its 4th
# invocation (the warm-up and two repetitions before it); a built-in
# workload's error takes the same path (tests/unit/test_rep_failure.c),
# and so does ab's session, whose runs are all stored as failed.
. "$(dirname "$0")/lib.sh"

# fails.sh STATE: counts its invocations in STATE; the 4th exits 3.
cat >"$T/fails.sh" <<'SH'
n=$(cat "$1" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" >"$1"
[ "$n" -ne 4 ] || { echo "boom at $n" >&2; exit 3; }
SH
# stops.sh STATE: the same, but the 4th stops noisefloor (its parent) as ^C would.
cat >"$T/stops.sh" <<'SH'
n=$(cat "$1" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" >"$1"
[ "$n" -ne 4 ] || kill -INT "$PPID"
SH

t_case "run: a command failing at its third repetition"
expect_rc 1 "$NF" run -r 5 -L c -- sh "$T/fails.sh" "$T/c"
expect_in err "^noisefloor: run: repetition failed: 'sh' exited with status 3$"
expect_in err "stderr\| boom at 4$"
[ "$(grep -c '^noisefloor:' "$T/err")" = 1 ] || fail "more than one error line"
expect_in out "^ Summary of 'command sh .*' \(label c, 2 repetitions, 1 warm-up, run 1, failed\):$"
expect_rc 0 "$NF" list -L c
expect_in out "^ +1 +c +command sh .* +2 +.* failed$"

t_case "run --json: the run as stored"
expect_rc 1 "$NF" run --json -r 5 -L j -- sh "$T/fails.sh" "$T/j"
json_check 'd["status"] == "failed" and [len(m["values"]) for m in d["metrics"] if m["name"] == "wall"] == [2]'

t_case "ab: a variant failing in its third round ends the session, no verdict"
expect_rc 1 "$NF" ab --rounds 3:5 --seed 1 x='-- true' y="-- sh $T/fails.sh $T/y"
expect_in err "^noisefloor: ab: variant 'y': 'sh' exited with status 3$"
expect_not_in out "Verdict"
expect_rc 0 "$NF" list -L x -L y
expect_in out "^ +[0-9]+ +x +command true .* failed$"
expect_in out "^ +[0-9]+ +y +command sh .* +2 +.* failed$"

t_case "compare: unfinished runs are counted, and each row says so"
expect_rc 130 "$NF" run -r 5 -L i -- sh "$T/stops.sh" "$T/i"
expect_rc 0 "$NF" run -r 2 -L ok -- sh "$T/fails.sh" "$T/ok"
expect_rc 0 "$NF" compare -m wall ok c i
expect_in out "^  note: c: run 1 failed after 2 of 5 repetitions; those are counted \(list shows its status\)$"
expect_in out "^  note: i: run [0-9]+ was interrupted after 2 of 5 repetitions; those are counted"
expect_not_in out "note: ok: run"
expect_rc 0 "$NF" compare --json -m wall ok c i
json_check 'any("c: run 1 failed after 2 of 5" in n for r in d["rows"] if r["label"] == "c" for n in r["notes"])'
pass
