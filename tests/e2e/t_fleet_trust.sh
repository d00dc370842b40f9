# The fleet's trust model: whoever can write the jobs table can make an
# agent run what the agent allows, and no more.  Job rows are written here
# straight into the table (as anyone with access to it could), bypassing
# submit's check: the agent checks every job again, runs built-in workloads
# only unless it is given --allow-command, and a refused job fails with
# the reason and does nothing.  The store's string (with its password)
# reaches the job's command in its environment, never its argv, which
# anyone on the machine can read.  Jobs can be stopped (jobs cancel, an
# attempt limit, a maximum run time), and on PostgreSQL an agent outlives
# a restart of the server.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

. "$ROOT/tests/e2e/lib_jobs.sh"

# insert_job JSON-WORDS: a queued job row written straight into the table.
insert_job() {
    case_failed && return 0
    if [ "$BACKEND" = postgresql ]; then
        w=$(printf '%s' "$1" | sed "s/'/''/g")
        pg_sql "INSERT INTO jobs (words, state) VALUES ('$w', 'queued')" ||
            fail "cannot insert a job"
    else
        /usr/bin/python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=30)
c.execute("INSERT INTO jobs (words, state, submitted) VALUES (?, ?, ?)",
          (sys.argv[2], "queued", "2026-01-01T00:00:00Z"))
c.commit()' "$NOISEFLOOR_DB" "$1" || fail "cannot insert a job"
    fi
}
# job_json ID EXPR: job ID's object of `jobs --json` is j, and EXPR holds.
job_json() {
    expect_rc 0 "$NF" jobs --json
    json_check "[j for j in d['jobs'] if j['id'] == $1] and (lambda j: $2)([j for j in d['jobs'] if j['id'] == $1][0])"
}
SH=$(command -v sh)
SLEEP=$(command -v sleep)

expect_rc 0 "$NF" run -r 2 --warmup 0 -L base pipe -l 1000
printf 'TOPSECRET-first-line\n1\n2\n' >"$T/secret.txt"

t_case "hostile job rows are refused with a reason, and nothing happens"
insert_job '["rm", "1"]'                                                              # job 1
insert_job '["run", "--db", "'"$T"'/other.db", "-r", "2", "--warmup", "0", "pipe"]'   # job 2
insert_job '["import", "'"$T"'/secret.txt", "--format", "values", "-L", "x"]'        # job 3
insert_job '["run", "-r", "1", "--warmup", "0", "--", "/bin/sh", "-c", "id > pwned"]' # job 4
insert_job '["ab", "a=pipe -l 1000", "b=-- /bin/sh -c '"'id > pwned2'"'"]'            # job 5
insert_job '["run", "--help"]'                                                        # job 6
expect_rc 1 "$NF" agent --drain --poll 0.2
expect_in out '^job 1: failed: refused: a job is a .run. or an .ab. command, not .rm.$'
expect_in out '^job 2: failed: refused: a job cannot choose its store \(--db\)'
expect_in out '^job 3: failed: refused: a job is a .run. or an .ab. command, not .import.$'
expect_in out "^job 4: failed: refused: the job runs a command \('/bin/sh'\) and this agent runs built-in workloads only"
expect_in out "^job 5: failed: refused: the job runs a command \('/bin/sh'\)"
expect_in out "^job 6: failed: refused: '--help' is not a job"
[ -e "$T/other.db" ] && fail "job 2 wrote another store"
[ -e "$T/pwned" ] || [ -e "$T/pwned2" ] && fail "a refused command ran"
expect_rc 0 "$NF" list
expect_in out '^ +1 +base '
expect_not_in out ' x '
expect_rc 0 "$NF" jobs
expect_not_in out 'TOPSECRET'
job_json 3 'j["state"] == "failed" and "TOPSECRET" not in j["error"] and j["runs"] == []'
job_json 4 'j["state"] == "failed" and j["error"].startswith("refused: ")'

t_case "an allowed command runs; others, in run and in ab SPECs, are refused"
expect_rc 0 "$NF" submit -- run -r 1 --warmup 0 -L allowed -- "$SH" -c ': >ran'   # job 7
expect_rc 0 "$NF" submit -- run -r 1 --warmup 0 -L other -- "$SLEEP" 0            # job 8
expect_rc 0 "$NF" submit -- ab --rounds 2 'a=-- sh -c :' "b=-- $SLEEP 0"          # job 9
expect_rc 1 "$NF" agent --drain --poll 0.2 --allow-command /bin/sh
expect_in out '^job 7: done \(run [0-9]+\)$'
expect_in out "^job 8: failed: refused: command '$SLEEP' is not one this agent allows"
expect_in out "^job 9: failed: refused: command '$SLEEP' is not one this agent allows"
[ -e "$T/ran" ] || fail "the allowed command did not run"
expect_rc 2 "$NF" agent --once --allow-command "$T/no-such-program"
expect_one_line_err
expect_in err 'allow-command'
expect_rc 0 "$NF" agent --help
expect_in out 'allow-commands +let jobs run ANY program.  WARNING'

t_case "the store's string and password are on no command line and in no output"
STORE=$NOISEFLOOR_DB
[ "$BACKEND" = postgresql ] && STORE="$NOISEFLOOR_DB password=hunter2secret"
# The job's command (noisefloor run) is the parent of the measured sh: its
# argv, as ps would show it, is read while the job runs.
NOISEFLOOR_DB=$STORE expect_rc 0 "$NF" submit -- run -r 1 --warmup 0 -L argv -- \
    "$SH" -c 'tr "\0" " " </proc/$PPID/cmdline >"$1"' sh "$T/cmdline"
NOISEFLOOR_DB=$STORE PGPASSWORD=hunter2secret expect_rc 0 "$NF" agent --once --allow-command /bin/sh
cp "$T/err" "$T/agent.err"
expect_in out '^job [0-9]+: done \(run [0-9]+\)$'
if ! case_failed; then
    [ -s "$T/cmdline" ] || fail "the job did not record its command line"
    grep -q 'noisefloor' "$T/cmdline" || fail "not the job's command line: $(cat "$T/cmdline")"
    grep -q -- '--db' "$T/cmdline" && fail "the store is on the job's command line: $(cat "$T/cmdline")"
    grep -q 'hunter2secret' "$T/cmdline" && fail "the password is on the job's command line"
    grep -q 'hunter2secret' "$T/agent.err" && fail "the password is in the agent's output"
fi
NOISEFLOOR_DB=$STORE expect_rc 0 "$NF" jobs --json
expect_not_in out 'hunter2secret'
run=$("$NF" list -L argv 2>/dev/null | awk '$2 == "argv" {print $1}')
NOISEFLOOR_DB=$STORE expect_rc 0 "$NF" show --json "$run"
expect_not_in out 'hunter2secret'
if [ "$BACKEND" = postgresql ]; then
    # An agent given the password in --db blanks it in its own command line
    # (the job's command reads its agent's, two parents up) and says so.
    expect_rc 0 "$NF" submit -- run -r 1 --warmup 0 -L argv2 -- "$SH" -c \
        'read -r _ _ _ agent _ </proc/$PPID/stat; tr "\0" " " </proc/$agent/cmdline >"$1"' sh "$T/agentcmd"
    expect_rc 0 "$NF" --db "$STORE" agent --once --allow-command /bin/sh
    expect_in out '^job [0-9]+: done'
    expect_in err 'warning: agent: --db holds a password'
    expect_not_in err 'hunter2secret'
    grep -q 'agent' "$T/agentcmd" || fail "not the agent's command line: $(cat "$T/agentcmd")"
    grep -q 'hunter2secret' "$T/agentcmd" && fail "the password stays on the agent's command line"
    # A store that cannot be opened names it without the password.
    expect_rc 1 "$NF" --db "$NF_TEST_PG dbname=nf_no_such_db password=hunter2secret" list
    expect_one_line_err
    expect_not_in err 'hunter2secret'
fi

t_case "jobs cancel: a queued job is never claimed"
expect_rc 0 "$NF" submit -- run -r 1 --warmup 0 -L cancelled pipe -l 1000
id=$(sed -n 's/^queued job \([0-9]*\):.*/\1/p' "$T/out")
expect_rc 0 "$NF" jobs cancel "$id"
expect_in out "^job $id: cancelled \(it was queued\)$"
expect_rc 0 "$NF" agent --drain --poll 0.2
expect_not_in out "^job $id:"
job_json "$id" 'j["state"] == "failed" and j["error"].startswith("cancelled") and j["attempts"] == 0'
expect_rc 1 "$NF" jobs cancel "$id"
expect_one_line_err
expect_in err 'has ended already'
expect_rc 1 "$NF" jobs cancel 999999
expect_in err 'no job 999999'
expect_rc 2 "$NF" jobs cancel
expect_rc 2 "$NF" list -L cancelled
expect_in err "no runs with label 'cancelled'"

t_case "jobs cancel: a running job is stopped at its agent's next renewal, its run interrupted"
expect_rc 0 "$NF" submit -- run -r 1 --warmup 0 -L running -- \
    "$SH" -c ': >"$1"; exec sleep 3600' sh "$T/started"
id=$(sed -n 's/^queued job \([0-9]*\):.*/\1/p' "$T/out")
"$NF" agent --once --lease 1 --allow-command /bin/sh >"$T/c.out" 2>"$T/c.err" &
ag=$!
wait_file "$T/started"
expect_rc 0 "$NF" jobs cancel "$id"
expect_in out "^job $id: its agent stops it at its next lease renewal$"
wait "$ag"
[ $? -eq 1 ] || fail "the agent did not exit 1: $(cat "$T/c.err")"
grep -Eq "^job $id: failed: cancelled" "$T/c.out" || fail "agent: $(cat "$T/c.out")"
job_json "$id" 'j["state"] == "failed" and j["error"].startswith("cancelled") and len(j["runs"]) == 1'
expect_rc 0 "$NF" list -L running
expect_in out ' interrupted$'

t_case "a job that kills its agent is given up after its attempts"
# The measured sh's parent is the job's command, whose parent is the agent.
expect_rc 0 "$NF" submit -- run -r 1 --warmup 0 -L killer -- \
    "$SH" -c 'read -r _ _ _ agent _ </proc/$PPID/stat; kill -9 "$agent"; sleep 5'
id=$(sed -n 's/^queued job \([0-9]*\):.*/\1/p' "$T/out")
for n in 1 2 3; do
    NOISEFLOOR_HOSTNAME=k$n expect_rc 137 "$NF" agent --once --lease 86400 --allow-command /bin/sh
    expire "$id"
done
job_json "$id" 'j["state"] == "running" and j["attempts"] == 3'
NOISEFLOOR_HOSTNAME=k4 expect_rc 0 "$NF" agent --drain --poll 0.2 --allow-command /bin/sh
expect_not_in out "^job $id:"
cp "$T/out" "$T/k4.out"
job_json "$id" 'j["state"] == "failed" and j["attempts"] == 3 and j["error"].startswith("gave up after 3 attempts")'
expect_rc 2 "$NF" submit --attempts 0 -- run pipe
expect_one_line_err

t_case "an attempt that runs past the job's --max-time is stopped and fails"
expect_rc 0 "$NF" submit --max-time 0.5 -- run -r 1 --warmup 0 -L slow -- \
    "$SH" -c 'exec sleep 3600'
id=$(sed -n 's/^queued job \([0-9]*\):.*/\1/p' "$T/out")
expect_rc 1 "$NF" agent --once --allow-command /bin/sh
expect_in out "^job $id: failed: stopped: it ran longer than its limit of 0.5 s"
job_json "$id" 'j["state"] == "failed" and j["attempts"] == 1 and "limit of 0.5 s" in j["error"]'
expect_rc 0 "$NF" list -L slow
expect_in out ' interrupted$'
expect_rc 2 "$NF" submit --max-time -1 -- run pipe

# On a server of the case's own: the test server serves other tests too.
if [ "$BACKEND" = postgresql ]; then
t_case "an agent takes jobs again after the PostgreSQL server restarts"
PGBIN=${NF_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
pd=$(mktemp -d /tmp/nf-pgr.XXXXXX)
if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$pd"
    as_server() { runuser -u postgres -- "$@"; }
else
    as_server() { "$@"; }
fi
ag=""
stop_pg() {
    [ -n "$ag" ] && kill -TERM "$ag" 2>/dev/null && wait "$ag" 2>/dev/null
    [ -f "$pd/data/postmaster.pid" ] &&
        as_server "$PGBIN/pg_ctl" -D "$pd/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$pd"
}
trap '_rc=$?; stop_pg; for d in "$T"/h*; do [ -d "$d" ] && : >"$d/go"; done; (exit $_rc); _nf_exit' EXIT
start_pg() {
    as_server "$PGBIN/pg_ctl" -D "$pd/data" -l "$pd/server.log" -w -t 60 \
        -o "-c listen_addresses='' -c unix_socket_directories='$pd' -c fsync=off" \
        start >/dev/null 2>&1 || fail "cannot start the case's server: $(tail -n 3 "$pd/server.log")"
}
as_server "$PGBIN/initdb" -D "$pd/data" -U nf --auth=trust -E UTF8 --locale=C -N \
    >/dev/null 2>&1 || fail "initdb failed"
start_pg
DB="host=$pd user=nf dbname=postgres"
NOISEFLOOR_DB=$DB expect_rc 0 "$NF" submit -- run -r 1 --warmup 0 -L r1 pipe -l 1000
NOISEFLOOR_DB=$DB "$NF" agent --poll 0.2 --lease 5 >"$T/r.out" 2>"$T/r.err" &
ag=$!
wait_json 60 'd["jobs"][0]["state"] == "done"' env NOISEFLOOR_DB="$DB" "$NF" jobs --json
case_failed || as_server "$PGBIN/pg_ctl" -D "$pd/data" -m immediate -w stop >/dev/null 2>&1
i=0
while ! grep -q 'will retry' "$T/r.err" && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
grep -q 'will retry' "$T/r.err" || fail "the agent did not notice the server stopped: $(cat "$T/r.err")"
case_failed || start_pg
NOISEFLOOR_DB=$DB expect_rc 0 "$NF" submit -- run -r 1 --warmup 0 -L r2 pipe -l 1000
wait_json 60 'd["jobs"][1]["state"] == "done"' env NOISEFLOOR_DB="$DB" "$NF" jobs --json
kill -TERM "$ag" 2>/dev/null
wait "$ag"
ag=""
[ "$(grep -c 'will retry' "$T/r.err")" -eq 1 ] || fail "not one line as the store failed: $(cat "$T/r.err")"
[ "$(grep -c 'works again' "$T/r.err")" -eq 1 ] || fail "not one line as it worked again: $(cat "$T/r.err")"
# libpq's own WARNING line of a server that shuts down is not printed.
grep -v '^noisefloor: ' "$T/r.err" >"$T/r.other" && fail "lines not ours: $(cat "$T/r.other")"
stop_pg
fi

pass
