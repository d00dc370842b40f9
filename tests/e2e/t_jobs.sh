# The job queue: submit checks the command (a bad one: exit 2, nothing
# queued), agents run what they may (tags, one copy per host) and record
# done (with the runs) or failed (with why); jobs shows it all; the host
# of each run is the agent's (NOISEFLOOR_HOSTNAME plays a fleet here).
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

t_case "submit refuses a bad command: exit 2, one line, nothing queued"
expect_rc 2 "$NF" submit -- run -r 2 pipe --bogus
expect_one_line_err
expect_in err "^noisefloor: run: pipe: unknown option '--bogus'"
expect_rc 2 "$NF" submit -- list
expect_in err "a job is a 'run' or an 'ab' command, not 'list'"
expect_rc 2 "$NF" submit
expect_rc 2 "$NF" submit --copies 0 -- run pipe
expect_rc 2 "$NF" submit -- run -r 3 --help
expect_in err "'--help' is not a job"
expect_rc 2 "$NF" submit -- ab 'x=pipe -l 100'
expect_rc 2 "$NF" submit -- ab 'x=pipe --nope' 'y=pipe'
expect_in err "^noisefloor: ab: variant 'x'"
expect_rc 2 "$NF" submit -- run -r 0 pipe
expect_rc 2 "$NF" jobs      # no store was created
expect_one_line_err

# One queue worked start to end: each step's job and run ids follow from
# the ones before, so it is one case.
t_case "a fleet works the queue: tags, one copy per host, done or failed"
expect_rc 0 "$NF" submit -- run -r 2 --warmup 0 -L j1 pipe -l 1000
expect_in out '^queued job 1: run -r 2 --warmup 0 -L j1 pipe -l 1000$'
expect_rc 0 "$NF" submit --copies 2 -- ab --rounds 2:2 'a=pipe -l 1000' 'b=pipe -l 1000'
expect_in out "^queued job 2: ab --rounds 2:2 'a=pipe -l 1000' 'b=pipe -l 1000'$"
expect_in out '^queued job 3: '
expect_rc 0 "$NF" submit --tag big -- run -r 1 --warmup 0 -L j4 pipe -l 1000
expect_rc 0 "$NF" submit -- run -r 1 --warmup 0 -L bad -- /bin/false
expect_rc 0 "$NF" jobs
expect_in out '^ +ID +STATE +HOST +SINCE +TAG +COMMAND +RESULT$'
[ "$(grep -c ' queued ' "$T/out")" -eq 5 ] || fail "expected 5 queued jobs"
expect_in out '^ +4 +queued +- +[0-9T:-]+Z +big +run -r 1'
expect_rc 0 "$NF" jobs --json
json_check 'len(d["jobs"]) == 5 and all(j["state"] == "queued" and j["attempts"] == 0 for j in d["jobs"])'
json_check 'd["jobs"][0]["words"] == ["run", "-r", "2", "--warmup", "0", "-L", "j1", "pipe", "-l", "1000"]'
json_check 'd["jobs"][2]["group"] == 2 and d["jobs"][3]["tag"] == "big" and d["jobs"][0]["tag"] is None'

# hA: everything untagged it may run; one copy of job 2's group; job 5 fails.
NOISEFLOOR_HOSTNAME=hA expect_rc 1 "$NF" agent --allow-commands --drain --lease 5 --poll 0.2
expect_in out '^job 1: done \(run 1\)$'
expect_in out '^job 2: done \(runs 2 3\)$'
expect_in out "^job 5: failed: run: repetition failed: '/bin/false' exited with status 1$"
expect_not_in out '^job [34]:'
expect_in err "noisefloor: run: repetition failed"      # the command's stderr, passed on
NOISEFLOOR_HOSTNAME=hB expect_rc 0 "$NF" agent --allow-commands --once
expect_in out '^job 3: done \(runs 5 6\)$'
NOISEFLOOR_HOSTNAME=hB expect_rc 0 "$NF" agent --allow-commands --drain --tag big
expect_in out '^job 4: done \(run 7\)$'
NOISEFLOOR_HOSTNAME=hC expect_rc 0 "$NF" agent --allow-commands --drain --tag big --tag other
[ ! -s "$T/out" ] || fail "nothing was left to run: $(cat "$T/out")"

expect_rc 0 "$NF" jobs --json
json_check '[j["state"] for j in d["jobs"]] == ["done", "done", "done", "done", "failed"]'
json_check '[j["host"] for j in d["jobs"]] == ["hA", "hA", "hB", "hB", "hA"]'
json_check '[j["runs"] for j in d["jobs"]] == [[1], [2, 3], [5, 6], [7], [4]]'
json_check 'all(j["attempts"] == 1 and j["finished"] for j in d["jobs"])'
json_check 'd["jobs"][4]["error"] == "run: repetition failed: '"'"'/bin/false'"'"' exited with status 1" and d["jobs"][0]["error"] is None'
expect_rc 0 "$NF" jobs
expect_in out '^ +2 +done +hA +[0-9T:-]+Z +- +ab --rounds 2:2 .* runs 2 3$'
expect_in out "^ +5 +failed +hA .* run 4; run: repetition failed: '/bin/false' exited with status 1$"

# The runs name their host: in the environment and in the run row.
expect_rc 0 "$NF" show --json 5
json_check 'd["env"]["hostname"] == "hB" and d["label"] == "a" and d["status"] == "complete"'
expect_rc 0 "$NF" show --json 1
json_check 'd["env"]["hostname"] == "hA"'
if [ "$BACKEND" = postgresql ]; then
    hosts=$(pg_sql "SELECT string_agg(host, ',' ORDER BY id) FROM runs")
else
    hosts=$(/usr/bin/python3 -c 'import sqlite3,sys; print(",".join(r[0] for r in sqlite3.connect(sys.argv[1]).execute("select host from runs order by id")))' "$NOISEFLOOR_DB")
fi
[ "$hosts" = "hA,hA,hA,hA,hB,hB,hB" ] || fail "run rows' hosts: $hosts"
expect_rc 0 "$NF" compare a b
expect_in out 'Verdict'

t_case "agent and jobs refuse bad options: exit 2"
expect_rc 2 "$NF" agent --once --drain
expect_one_line_err
expect_rc 2 "$NF" agent --lease 0
expect_one_line_err
expect_rc 2 "$NF" agent now
expect_rc 2 "$NF" jobs --bogus
pass
