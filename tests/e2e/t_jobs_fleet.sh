# The fleet's edges: rm refuses a superseded run whose old attempt still
# writes it; an attempt given back (its agent stopped) no longer counts
# before the job is claimed again; an ab SPEC with -r is refused by submit
# as by ab, before anything is queued.
#
# As in t_jobs_attempts.sh, no lease is raced: an agent holds a lease of a
# day, its command waits at a handshake (blk.sh), and the test ends the
# lease in the store itself (as time would) or signals the agent there.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

. "$ROOT/tests/e2e/lib_jobs.sh"

expect_rc 0 "$NF" run -r 3 --warmup 0 -L base -- true        # run 1

t_case "rm refuses a superseded run its lost attempt still writes"
expect_rc 0 "$NF" submit -- run -r 3 --warmup 0 -L lost -- sh "$T/blk.sh" "$T/h1" 1
expect_in out '^queued job 1:'
NOISEFLOOR_HOSTNAME=h1 "$NF" agent --allow-commands --once --lease 86400 >"$T/a1.out" 2>"$T/a1.err" &
a1=$!
wait_file "$T/h1/blocked"             # run 2: repetition 1 stored, waits in 2
expire 1
NOISEFLOOR_HOSTNAME=h2 expect_rc 0 "$NF" agent --allow-commands --once --lease 86400
expect_in out '^job 1: done \(run 3\)$'
# Asked on the writer's machine (h1), where its process can be seen.
NOISEFLOOR_HOSTNAME=h1 expect_rc 0 "$NF" list -L lost
expect_in out '^ +2 +lost .* superseded$'
NOISEFLOOR_HOSTNAME=h1 expect_rc 1 "$NF" rm 2
expect_one_line_err
expect_in err '^noisefloor: rm: run 2 is still being written \(status superseded, its job attempt still at work\); stop it, or remove it when it has ended$'
[ ! -s "$T/out" ] || fail "rm printed: $(cat "$T/out")"
# All or none: with a run that could go, nothing goes.
NOISEFLOOR_HOSTNAME=h1 expect_rc 1 "$NF" rm 3 2
NOISEFLOOR_HOSTNAME=h1 expect_rc 0 "$NF" list -L lost
expect_in out '^ +2 +lost '
expect_in out '^ +3 +lost '
# Let it go: its writer ends (its agent finds the job taken), then rm may.
: >"$T/h1/go"
wait $a1
rc=$?
[ $rc -eq 1 ] || fail "the lost agent: exit $rc, not 1: $(cat "$T/a1.out")"
NOISEFLOOR_HOSTNAME=h1 expect_rc 0 "$NF" show --json 2
json_check 'd["status"] == "superseded" and len(d["metrics"][0]["values"]) == 3'
NOISEFLOOR_HOSTNAME=h1 expect_rc 0 "$NF" rm 2
expect_in out '^removed run 2 \(label lost, command, 3 repetitions'

t_case "an attempt given back no longer counts before the next claim"
expect_rc 0 "$NF" submit -- run -r 3 --warmup 0 -L back -- sh "$T/blk.sh" "$T/h2" 1
expect_in out '^queued job 2:'
NOISEFLOOR_HOSTNAME=h3 "$NF" agent --allow-commands --once --lease 86400 >"$T/a3.out" 2>"$T/a3.err" &
a3=$!
wait_file "$T/h2/blocked"             # run 4: repetition 1 stored, waits in 2
kill -TERM $a3
wait $a3
rc=$?
[ $rc -eq 143 ] || fail "agent stopped by SIGTERM: exit $rc, not 143"
grep -q '^job 2: given back' "$T/a3.out" || fail "agent: $(cat "$T/a3.out")"
# Queued again, not claimed yet: run 4 is not the job's, and compare
# counts nothing of it.
expect_rc 0 "$NF" jobs --json
json_check 'd["jobs"][1]["state"] == "queued" and d["jobs"][1]["attempts"] == 1 and d["jobs"][1]["runs"] == []'
expect_rc 0 "$NF" show --json 4
json_check 'd["status"] == "superseded" and len(d["metrics"][0]["values"]) == 1 and d["env"]["job"] == "2.1"'
expect_rc 0 "$NF" list -L back
expect_in out '^ +4 +back .* superseded$'
expect_rc 2 "$NF" compare -m wall base back
expect_one_line_err
expect_in err "label 'back' has only runs of superseded job attempts \(1, as list shows\)"
# The next claim does the job; its run alone is counted.
NOISEFLOOR_HOSTNAME=h4 expect_rc 0 "$NF" agent --allow-commands --once --lease 86400
expect_in out '^job 2: done \(run 5\)$'
expect_rc 0 "$NF" compare --json -m wall base back
json_check 'd["rows"][0]["n"] == 3'
json_check 'any("1 run of a superseded job attempt left out (run 4)" in n for n in d["rows"][0]["notes"])'
expect_rc 0 "$NF" rm 4
expect_in out '^removed run 4 \(label back'

t_case "an ab SPEC with -r: refused by submit as by ab, nothing queued"
expect_rc 2 "$NF" ab a='-r 3 pipe -l 1000' b='-r 3 pipe -l 2000'
expect_one_line_err
cp "$T/err" "$T/ab.err"
expect_in err "^noisefloor: ab: variant 'a': -r/--repeat does not apply inside a SPEC \(ab decides repetitions: --rounds\)$"
expect_rc 2 "$NF" submit -- ab a='-r 3 pipe -l 1000' b='-r 3 pipe -l 2000'
expect_one_line_err
cmp -s "$T/err" "$T/ab.err" || fail "submit and ab differ: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "submit printed: $(cat "$T/out")"
expect_rc 2 "$NF" submit --copies 2 -- ab --rounds 2:2 a='pipe -l 1000' b='--repeat=3 pipe -l 2000'
expect_one_line_err
expect_in err "variant 'b': -r/--repeat does not apply inside a SPEC"
expect_rc 0 "$NF" jobs --json
json_check '[j["id"] for j in d["jobs"]] == [1, 2]'
# What ab takes, submit queues, and an agent runs.
expect_rc 0 "$NF" submit -- ab --rounds 2:2 --order sequential a='pipe -l 1000' b='pipe -l 2000'
expect_in out '^queued job 3:'
expect_rc 0 "$NF" agent --allow-commands --once
expect_in out '^job 3: done \(runs 6 7\)$'
pass
