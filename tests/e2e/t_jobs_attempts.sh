# A job's attempts that did not finish it: their runs keep the job's label,
# but once a later attempt has taken the job they are superseded: list and
# show mark them, compare and report leave them out (with a note), rm
# removes them, and nothing the old attempt stores later counts again.
#
# An attempt is lost here without racing a lease: the first agent holds a
# lease of a day, and the test ends it in the store itself (as time would)
# while the agent's command waits at a handshake (blk.sh), so the next
# agent claims the job at once.  The agent SIGTERMed or SIGKILLed is
# signalled while its command waits at the handshake too.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

. "$ROOT/tests/e2e/lib_jobs.sh"
# row LABEL: compare -m wall base LABEL --json, the variant's row in $T/out.
row() {
    expect_rc 0 "$NF" compare --json -m wall base "$1"
}

expect_rc 0 "$NF" run -r 3 --warmup 0 -L base -- true

t_case "a lost attempt's run is superseded; it stays so as it stores more"
expect_rc 0 "$NF" submit -- run -r 3 --warmup 0 -L st1 -- sh "$T/blk.sh" "$T/h1" 1
expect_in out '^queued job 1:'
NOISEFLOOR_HOSTNAME=h1 "$NF" agent --allow-commands --once --lease 86400 >"$T/a1.out" 2>"$T/a1.err" &
a1=$!
wait_file "$T/h1/blocked"            # attempt 1: run 2 has repetition 1 and waits in 2
expire 1
NOISEFLOOR_HOSTNAME=h2 expect_rc 0 "$NF" agent --allow-commands --once --lease 86400
expect_in out '^job 1: done \(run 3\)$'
# Attempt 1 is still at work, and already set apart.
expect_rc 0 "$NF" list -L st1
expect_in out '^ +2 +st1 .* superseded$'
expect_in out '^ +3 +st1 .* 3 .* complete$'
row st1
json_check 'd["rows"][0]["n"] == 3 and d["rows"][0]["baseline_n"] == 3'
json_check 'any("1 run of a superseded job attempt left out (run 2)" in n for n in d["rows"][0]["notes"])'
# Let it go: it stores repetitions 2 and 3 and ends; its agent finds the
# job taken, and the run stays superseded.
: >"$T/h1/go"
wait $a1
rc=$?
[ $rc -eq 1 ] || fail "the lost agent: exit $rc, not 1"
grep -q '^job 1: lost (its lease ran out and another agent took it before attempt 1 ended)$' \
    "$T/a1.out" || fail "the lost agent: $(cat "$T/a1.out")"
expect_rc 0 "$NF" show --json 2
json_check 'd["status"] == "superseded" and len(d["metrics"][0]["values"]) == 3 and d["env"]["job"] == "1.1" and d["env"]["hostname"] == "h1"'
expect_rc 0 "$NF" show --json 3
json_check 'd["status"] == "complete" and d["env"]["job"] == "1.2"'
expect_rc 0 "$NF" show 2
expect_in out '^  status +superseded$'
row st1
json_check 'd["rows"][0]["n"] == 3'
json_check 'not any("differ" in n for n in d["rows"][0]["notes"])'
expect_rc 0 "$NF" compare -m wall base st1
expect_in out 'st1: 1 run of a superseded job attempt left out \(run 2\)'
expect_rc 0 "$NF" jobs --json
json_check 'd["jobs"][0]["state"] == "done" and d["jobs"][0]["attempts"] == 2 and d["jobs"][0]["runs"] == [3]'

t_case "a run the lost attempt begins after the job is done is superseded too"
NOISEFLOOR_JOB=1.1 expect_rc 0 "$NF" run -r 2 --warmup 0 -L st1 -- true
expect_rc 0 "$NF" list -L st1
expect_in out '^ +4 +st1 .* superseded$'
row st1
json_check 'd["rows"][0]["n"] == 3'
json_check 'any("2 runs of superseded job attempts left out (runs 2, 4)" in n for n in d["rows"][0]["notes"])'
expect_rc 0 "$NF" export -L st1
json_check '[r["status"] for r in d["runs"]] == ["superseded", "complete", "superseded"]'
# The status travels: import, then export, gives the same runs.
cp "$T/out" "$T/st1.json"
expect_rc 0 "$NF" --db "$T/copy.db" import "$T/st1.json" --format json
expect_rc 0 "$NF" --db "$T/copy.db" export
cmp -s "$T/out" "$T/st1.json" || fail "export after import differs"
expect_rc 0 "$NF" --db "$T/copy.db" list
[ "$(grep -c ' superseded$' "$T/out")" -eq 2 ] || fail "copy: $(cat "$T/out")"

t_case "report leaves them out; rm removes them"
expect_rc 0 "$NF" report --html - base st1
expect_in out '1 run of a superseded job attempt|2 runs of superseded job attempts'
/usr/bin/python3 - "$T/out" <<'PY' || fail "report: a superseded run in the runs table"
import re, sys
page = open(sys.argv[1]).read()
runs = re.findall(r'<tr><td class="l">st1</td><td>(\d+)</td>', page)
sys.exit(0 if runs == ["3"] else 1)
PY
expect_rc 0 "$NF" rm 2 4
expect_in out '^removed run 2 \(label st1'
expect_rc 0 "$NF" list -L st1
expect_not_in out 'superseded'
row st1
json_check 'd["rows"][0]["n"] == 3 and not any("superseded" in n for n in d["rows"][0]["notes"])'

t_case "an agent stopped by SIGTERM: its interrupted run is superseded as it is given back"
expect_rc 0 "$NF" submit -- run -r 3 --warmup 0 -L st2 -- sh "$T/blk.sh" "$T/h2" 1
expect_in out '^queued job 2:'
NOISEFLOOR_HOSTNAME=h3 "$NF" agent --allow-commands --once --lease 86400 >"$T/a3.out" 2>"$T/a3.err" &
a3=$!
wait_file "$T/h2/blocked"
kill -TERM $a3
wait $a3
rc=$?
[ $rc -eq 143 ] || fail "agent stopped by SIGTERM: exit $rc, not 143"
grep -q '^job 2: given back' "$T/a3.out" || fail "agent: $(cat "$T/a3.out")"
expect_rc 0 "$NF" show --json 5
json_check 'd["status"] == "superseded" and len(d["metrics"][0]["values"]) == 1'
NOISEFLOOR_HOSTNAME=h4 expect_rc 0 "$NF" agent --allow-commands --once --lease 86400
expect_in out '^job 2: done \(run 6\)$'
expect_rc 0 "$NF" show --json 5
json_check 'd["status"] == "superseded"'
row st2
json_check 'd["rows"][0]["n"] == 3'
json_check 'any("1 run of a superseded job attempt left out (run 5)" in n for n in d["rows"][0]["notes"])'

t_case "an agent killed: its incomplete run is superseded, no runs that differ"
expect_rc 0 "$NF" submit -- run -r 3 --warmup 0 -L st3 -- sh "$T/blk.sh" "$T/h3" 1
expect_in out '^queued job 3:'
NOISEFLOOR_HOSTNAME=h5 "$NF" agent --allow-commands --once --lease 1 >"$T/a5.out" 2>"$T/a5.err" &
a5=$!
wait_file "$T/h3/blocked"
kill -KILL $a5
wait $a5 2>/dev/null
: >"$T/h3/go"                        # the measured command outlived its run
wait_json 10 'd["status"] == "incomplete"' env NOISEFLOOR_HOSTNAME=h5 "$NF" show --json 7
# Its agent is gone: the lease runs out by itself.
wait_json 30 'd["jobs"][2]["lease_expired"]' "$NF" jobs --json
NOISEFLOOR_HOSTNAME=h6 expect_rc 0 "$NF" agent --allow-commands --once --lease 86400
expect_in out '^job 3: done \(run 8\)$'
expect_rc 0 "$NF" list -L st3
expect_in out '^ +7 +st3 .* superseded$'
row st3
json_check 'd["rows"][0]["n"] == 3'
json_check 'not any("differ" in n for n in d["rows"][0]["notes"])'

t_case "a lost ab session: compare pairs the rounds of the session that did the job"
expect_rc 0 "$NF" submit -- ab --rounds 2:2 --seed 7 "x=-- sh $T/blk.sh $T/h4 2" "y=-- true"
expect_in out '^queued job 4:'
NOISEFLOOR_HOSTNAME=h7 "$NF" agent --allow-commands --once --lease 86400 >"$T/a7.out" 2>"$T/a7.err" &
a7=$!
wait_file "$T/h4/blocked"
expire 4
NOISEFLOOR_HOSTNAME=h8 expect_rc 0 "$NF" agent --allow-commands --once --lease 86400
expect_in out '^job 4: done \(runs 11 12\)$'
expect_not_in err 'already has'      # ab's warning counts no superseded run
: >"$T/h4/go"
wait $a7
rc=$?
[ $rc -eq 1 ] || fail "the lost agent: exit $rc, not 1: $(cat "$T/a7.out")"
expect_rc 0 "$NF" list -L x -L y
expect_in out '^ +9 +x .* superseded$'
expect_in out '^ +10 +y .* superseded$'
expect_rc 0 "$NF" compare --json x y
json_check 'all(r["pairing"] == "rounds" and r["n"] == 2 for r in d["rows"] if r["metric"] == "wall")'
json_check 'any("1 run of a superseded job attempt left out (run 9)" in n for r in d["rows"] for n in r["notes"])'
expect_rc 0 "$NF" show --json 9
lost=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"])' "$T/out")
expect_rc 2 "$NF" report --session "$lost" --html "$T/r.html"
expect_one_line_err
expect_in err "session '$lost' is of a job attempt that a later one took over"
expect_rc 0 "$NF" show --json 11
done_session=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"])' "$T/out")
expect_rc 0 "$NF" report --session "$done_session" --html "$T/r.html"

t_case "a label with only superseded runs: compare has nothing to count"
NOISEFLOOR_JOB=1.1 expect_rc 0 "$NF" run -r 2 --warmup 0 -L only -- true
expect_rc 2 "$NF" compare base only
expect_one_line_err
expect_in err "label 'only' has only runs of superseded job attempts \(1, as list shows\)"
expect_rc 0 "$NF" rm 13
expect_in out '^removed run 13 \(label only'
pass
