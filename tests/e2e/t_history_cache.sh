# history's points cache (doc/statistics.md, "Cost and appending a run"):
# with the cache and without it (NF_POINTS_CACHE=off reads the tables
# only), history's text, JSON and --tip are byte for byte the same after
# each change to the store: runs appended (a few: read past the cache; many:
# the cache written again), a run removed, relabelled, marked running, its
# summaries or metrics changed, the job that decides whether it is
# superseded changed, the cache's blob corrupted.  Each change is checked
# to have done to the cache what it must (kept, dropped, or cut).
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

# gen SEED WORKLOAD LABEL N LEVEL STEP T0: N runs of WORKLOAD under LABEL,
# a step of STEP % at the middle, started an hour apart from hour T0.
gen() {
    /usr/bin/python3 -I -S - "$@" <<'PY'
import json, random, sys, datetime
seed, wl, label, n, lvl, step, t0 = sys.argv[1:8]
r = random.Random(int(seed))
base = datetime.datetime(2026, 1, 1) + datetime.timedelta(hours=int(t0))
runs = []
for i in range(int(n)):
    m = float(lvl) * (1 + float(step) / 100 if i >= int(n) // 2 else 1)
    runs.append({"id": None, "label": label, "workload": wl, "args": ["-n", "3"],
        "started": (base + datetime.timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "repeat": 5, "warmup": 0, "status": "complete", "session": None, "note": None,
        "env": {"hostname": "h1", "commit": "%040x" % (int(t0) + i + 1)},
        "metrics": [{"name": "ms", "unit": "ms", "better": "lower", "primary": True,
                     "supported": True, "values": [m * (1 + 0.01 * r.gauss(0, 1)) for _ in range(5)]},
                    {"name": "rate", "unit": "ops/s", "better": "higher", "primary": False,
                     "supported": True, "values": [1e3 / m * (1 + 0.01 * r.gauss(0, 1)) for _ in range(5)]}]})
json.dump({"runs": runs}, sys.stdout)
PY
}

# cache: the cache's "upto|nruns", or "none".
cache() {
    c=$(store_sql "SELECT upto || '|' || nruns FROM points_cache")
    echo "${c:-none}"
}
expect_cache() {
    case_failed && return 0
    got=$(cache)
    [ "$got" = "$1" ] || fail "points cache: expected $1, got $got"
}
# same ARGS...: history ARGS with the cache and without it agree, byte for
# byte, on stdout, stderr and the exit code (text, --json and --tip).
same() {
    case_failed && return 0
    for form in "" --json --tip; do
        NF_POINTS_CACHE=off "$NF" history "$@" $form >"$T/want" 2>"$T/wanterr"
        wrc=$?
        "$NF" history "$@" $form >"$T/got" 2>"$T/goterr"
        grc=$?
        [ "$wrc" = "$grc" ] || { fail "history $* $form: exit $grc with the cache, $wrc without"; return 0; }
        cmp -s "$T/want" "$T/got" && cmp -s "$T/wanterr" "$T/goterr" ||
            { fail "history $* $form differs with the cache: $(diff "$T/want" "$T/got" | head -c 300)"; return 0; }
    done
}
# all: the selections compared after each change.
all() {
    same
    same -w stepbench
    same -L nightly -L weekly
    same -m rate --by commit
    same --all -L weekly
}

t_case "the first history writes the cache; the same output"
gen 1 stepbench nightly 80 10 5 0 >"$T/a.json" || fail "gen"
gen 2 flatbench weekly 40 20 0 0 >"$T/b.json" || fail "gen"
expect_rc 0 "$NF" import "$T/a.json" --format json
expect_rc 0 "$NF" import "$T/b.json" --format json
expect_cache none
expect_rc 0 "$NF" history -w stepbench # a selection reads no cache it has not got
expect_cache none
expect_rc 0 "$NF" history
expect_cache "120|120"
all

t_case "a few runs appended: read past the cache, which stays"
gen 3 stepbench nightly 3 10.5 0 80 >"$T/c.json" || fail "gen"
expect_rc 0 "$NF" import "$T/c.json" --format json
expect_cache "120|120"
all
expect_cache "120|120"

t_case "many runs appended: the cache written again, the same output"
gen 4 flatbench weekly 70 20 3 40 >"$T/d.json" || fail "gen"
expect_rc 0 "$NF" import "$T/d.json" --format json
expect_rc 0 "$NF" history -L weekly # a selection does not write it
expect_cache "120|120"
expect_rc 0 "$NF" history
expect_cache "193|193"
all

t_case "a run removed: the cache dropped, then written again"
expect_rc 0 "$NF" rm 50
expect_cache none
same
expect_cache "193|192"
all

t_case "a run relabelled, another's host changed: the cache dropped"
store_sql "UPDATE runs SET label = 'weekly' WHERE id = 30" >/dev/null
expect_cache none
all
if [ "$BACKEND" = postgresql ]; then
    store_sql "UPDATE runs SET env = replace(env::text, '\"h1\"', '\"h9\"')::json WHERE id = 10" >/dev/null
else
    store_sql "UPDATE runs SET env = replace(env, '\"h1\"', '\"h9\"') WHERE id = 10" >/dev/null
fi
expect_cache none
all

t_case "a summary changed, a metric's flags changed: the cache dropped"
expect_rc 0 "$NF" history
store_sql "UPDATE summaries SET mean = 2 * mean WHERE run_id = 70 AND idx = 0" >/dev/null
expect_cache none
all
store_sql "UPDATE metrics SET is_primary = (idx = 1) WHERE run_id = 71" >/dev/null
expect_cache none
all

t_case "a run's summaries removed: it is loaded whole, the cache stays whole"
store_sql "DELETE FROM summaries WHERE run_id = 90" >/dev/null
expect_cache none
same
expect_cache "89|88"
all

t_case "a run marked running: the cache ends before it"
store_sql "DELETE FROM points_cache" >/dev/null
store_sql "INSERT INTO summaries SELECT 90, idx, n, mean, sd, rmean, rsd FROM summaries WHERE run_id = 91" >/dev/null
store_sql "UPDATE runs SET status = 'running' WHERE id = 100" >/dev/null
same
expect_cache "99|98"
all
store_sql "UPDATE runs SET status = 'complete' WHERE id = 100" >/dev/null
expect_cache "99|98" # past it
all
expect_cache "193|192"

t_case "the job of a cached run retried: the run superseded, the cache dropped"
expect_rc 0 "$NF" submit -- run -r 2 pipe
job=$(store_sql "SELECT max(id) FROM jobs")
store_sql "UPDATE runs SET job = $job, job_attempt = 1 WHERE id = 20" >/dev/null
store_sql "UPDATE jobs SET attempt = 1, state = 'done' WHERE id = $job" >/dev/null
expect_rc 0 "$NF" history
expect_cache "193|192"
store_sql "UPDATE jobs SET host = 'elsewhere' WHERE id = $job" >/dev/null
expect_cache "193|192" # not what a point reads
store_sql "UPDATE jobs SET attempt = 2 WHERE id = $job" >/dev/null
expect_cache none
all

t_case "a blob that does not parse is ignored and written again"
expect_rc 0 "$NF" history
if [ "$BACKEND" = postgresql ]; then
    store_sql "UPDATE points_cache SET data = '\\x4e465043'::bytea" >/dev/null
else
    store_sql "UPDATE points_cache SET data = x'4e465043'" >/dev/null
fi
all
expect_cache "193|192"
pass
