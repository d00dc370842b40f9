# Agents together on one queue: two, then three, started at once on twelve
# jobs: each job done exactly once.  An agent killed (SIGKILL) mid-job:
# its command dies with it, its run reads "incomplete", and once the lease
# has run out another agent claims the job and does it (the first run
# then reads "superseded": t_jobs_attempts.sh).
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

. "$ROOT/tests/e2e/lib_jobs.sh"

# together N FIRST: N agents at once on jobs FIRST..FIRST+11.
together() {
    case_failed && return 0
    n=$1 first=$2
    for j in $(seq 12); do
        "$NF" submit -- run -r 1 --warmup 0 -L "q$n" pipe -l 1000 >/dev/null || fail "submit"
    done
    pids=""
    for a in $(seq "$n"); do
        NOISEFLOOR_HOSTNAME="h$n-$a" "$NF" agent --allow-commands --drain --poll 0.1 >"$T/agent$a.out" 2>"$T/agent$a.err" &
        pids="$pids $!"
    done
    for p in $pids; do
        wait "$p" || fail "an agent of $n failed: $(cat "$T"/agent*.err | head -5)"
    done
    cat "$T"/agent*.out >"$T/all.out"
    for j in $(seq "$first" $((first + 11))); do
        c=$(grep -c "^job $j: done (run [0-9]*)$" "$T/all.out")
        [ "$c" -eq 1 ] || fail "$n agents: job $j reported done $c times: $(cat "$T/all.out")"
    done
    [ "$(wc -l <"$T/all.out")" -eq 12 ] || fail "$n agents: $(cat "$T/all.out")"
    rm -f "$T"/agent*.out "$T"/agent*.err
    expect_rc 0 "$NF" jobs --json
    json_check "[j for j in d['jobs'] if $first <= j['id'] < $((first + 12)) and not (j['state'] == 'done' and j['attempts'] == 1 and len(j['runs']) == 1)] == []"
    json_check "len({j['runs'][0] for j in d['jobs'] if $first <= j['id'] < $((first + 12))}) == 12"
    expect_rc 0 "$NF" export -L "q$n"
    json_check 'len(d["runs"]) == 12 and all(r["status"] == "complete" for r in d["runs"])'
}
# settled JOBS RUNS: the cases before left JOBS jobs, all done, and RUNS
# runs, so the job and run ids a case expects are the next ones; else one
# line, and the case's checks are skipped.
settled() {
    "$NF" jobs --json >"$T/q.json" 2>/dev/null
    "$NF" export >"$T/r.json" 2>/dev/null
    got=$(/usr/bin/python3 -c '
import json, sys
try:
    jobs = json.load(open(sys.argv[1]))["jobs"]
    runs = json.load(open(sys.argv[2]))["runs"]
    print(sum(j["state"] == "done" for j in jobs), len(jobs), len(runs))
except Exception as e:
    print("unreadable:", e)' "$T/q.json" "$T/r.json")
    [ "$got" = "$1 $1 $2" ] ||
        fail "needs the $1 done jobs and $2 runs of the cases before; done, jobs, runs: $got"
}

# The second batch's ids follow the first's: one case.
t_case "two agents at once, then three: each of twelve jobs done exactly once"
together 2 1
together 3 13

t_case "an agent killed mid-job: run incomplete, job taken over after its lease"
settled 24 24
fast="$T/fast"
expect_rc 0 "$NF" submit -- run -r 20 --warmup 0 -L slow -- /bin/sh -c "[ -e $fast ] || sleep 0.3"
expect_in out '^queued job 25:'
NOISEFLOOR_HOSTNAME=hK "$NF" agent --allow-commands --once --lease 2 >"$T/k.out" 2>"$T/k.err" &
agent=$!
# As its own host sees it: alive, then gone with its agent.
wait_json 30 'd["status"] == "running" and len(d["metrics"][0]["values"]) >= 1' \
    env NOISEFLOOR_HOSTNAME=hK "$NF" show --json 25
kill -KILL $agent
wait $agent 2>/dev/null
wait_json 10 'd["status"] == "incomplete"' env NOISEFLOOR_HOSTNAME=hK "$NF" show --json 25
expect_rc 0 "$NF" jobs --json
json_check 'd["jobs"][24]["state"] == "running" and d["jobs"][24]["host"] == "hK"'
touch "$fast"
# Once the lease has run out, the next agent takes it.
wait_json 30 'd["jobs"][24]["lease_expired"]' "$NF" jobs --json
NOISEFLOOR_HOSTNAME=hL expect_rc 0 "$NF" agent --allow-commands --drain --lease 2
expect_in out '^job 25: done \(run 26\)$'
expect_rc 0 "$NF" jobs --json
json_check 'd["jobs"][24]["state"] == "done" and d["jobs"][24]["attempts"] == 2 and d["jobs"][24]["host"] == "hL" and d["jobs"][24]["runs"] == [26]'
# The killed attempt's run is not the job's: superseded by the second.
expect_rc 0 "$NF" show --json 25
json_check 'd["status"] == "superseded" and d["env"]["hostname"] == "hK" and d["env"]["job"] == "25.1"'
expect_rc 0 "$NF" show --json 26
json_check 'd["status"] == "complete" and len(d["metrics"][0]["values"]) == 20 and d["env"]["hostname"] == "hL" and d["env"]["job"] == "25.2"'
expect_rc 0 "$NF" list -L slow
expect_in out '^ +25 +slow .* superseded$'
expect_in out '^ +26 +slow .* complete$'

t_case "an agent stopped by SIGTERM: its command stops, the job goes back"
settled 25 26
expect_rc 0 "$NF" submit -- run -r 20 --warmup 0 -L stopped -- /bin/sh -c "sleep 0.3"
expect_in out '^queued job 26:'
NOISEFLOOR_HOSTNAME=hS "$NF" agent --allow-commands --lease 5 >"$T/s.out" 2>"$T/s.err" &
agent=$!
wait_json 30 'd["status"] == "running" and len(d["metrics"][0]["values"]) >= 1' \
    env NOISEFLOOR_HOSTNAME=hS "$NF" show --json 27
kill -TERM $agent
wait $agent
rc=$?
[ $rc -eq 143 ] || fail "agent stopped by SIGTERM: exit $rc, not 143"
grep -q '^job 26: given back to the queue (agent stopped by signal 15)$' "$T/s.out" ||
    fail "agent: $(cat "$T/s.out")"
expect_rc 0 "$NF" jobs --json
json_check 'd["jobs"][25]["state"] == "queued" and d["jobs"][25]["host"] is None and d["jobs"][25]["attempts"] == 1'
# Its run is no longer the job's: an attempt given back cannot finish it.
expect_rc 0 "$NF" show --json 27
json_check 'd["status"] == "superseded" and d["env"]["job"] == "26.1"'
pass
