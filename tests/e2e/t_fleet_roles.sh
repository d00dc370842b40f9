# The PostgreSQL roles of a fleet, as noisefloor-agent(1) documents them
# (TRUST MODEL): the GRANT block is taken from the man page itself and
# applied, as the store's owner, to a store that owner created.  Then a
# submitter queues jobs, cancels one and reads the results (show, history,
# jobs); an agent claims a job and stores its run with what a run writes
# (summaries, a latency run's histograms; the points cache dropped by the
# owner's trigger); and what neither role is granted is refused: the agent
# cannot delete runs, queue jobs or alter tables, the submitter cannot
# store or delete runs, nor delete jobs.  The owner is a role of its own
# (with CREATEROLE, not a superuser), so that the block is shown to work
# with no more than an owner has.  Role names are made unique to this test
# (roles are the server's, not the database's) and dropped at exit.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

[ "$BACKEND" = postgresql ] ||
    skip "roles are PostgreSQL's: a SQLite store is a file, guarded by its permissions"

# nf_agent and nf_submit of the man page, and the owner, as unique names.
P="nfr$$_$(date +%s)"
OWN="${P}_owner" AG="${P}_agent" SUB="${P}_submit"
ROLES=""
_roles_exit() {
    [ -n "$ROLES" ] || return 0
    # The database first: the roles own it and have privileges in it.
    psql -X -q "$NF_TEST_PG dbname=postgres" \
        -c "DROP DATABASE IF EXISTS $PGDB WITH (FORCE)" >/dev/null 2>&1
    for r in $ROLES; do
        psql -X -q "$NF_TEST_PG dbname=postgres" -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1 ||
            echo "FAIL: $_NF_FILE: cannot drop role $r" >&2
    done
}
trap '_rc=$?; _roles_exit; (exit $_rc); _nf_exit' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

OWN_DB="$NOISEFLOOR_DB user=$OWN"
AG_DB="$NOISEFLOOR_DB user=$AG"
SUB_DB="$NOISEFLOOR_DB user=$SUB"
# as_sql DB SQL: SQL run on the test's database as DB's role.
as_sql() { psql -X -q -t -A -v ON_ERROR_STOP=1 "$1" -c "$2"; }
# refused DB SQL: SQL as DB's role fails for want of a privilege.
refused() {
    case_failed && return 0
    if as_sql "$1" "$2" >"$T/out" 2>"$T/err"; then
        fail "not refused: $2"
    else
        expect_in err 'permission denied|must be owner'
    fi
}

# The owner: may create roles, owns the database (so its public schema).
ROLES="$OWN"
pg_sql "CREATE ROLE $OWN LOGIN CREATEROLE" >/dev/null || { echo "FAIL: cannot create role $OWN" >&2; exit 1; }
pg_sql "ALTER DATABASE $PGDB OWNER TO $OWN" >/dev/null || { echo "FAIL: cannot give $PGDB to $OWN" >&2; exit 1; }
ROLES="$AG $SUB $OWN"
NOISEFLOOR_DB=$OWN_DB expect_rc 0 "$NF" run -r 2 --warmup 0 -L base pipe -l 1000

t_case "the man page's GRANT block applies as the store's owner"
# The lines between .nf/.RS and .RE/.fi of the block naming nf_agent, roff
# requests left out and its escapes undone, with this test's role names.
awk '
    /^\.(nf|RS)$/ { inb = 1; next }
    /^\.(RE|fi)$/ { if (inb && buf ~ /CREATE ROLE nf_agent/) printf "%s", buf; inb = 0; buf = ""; next }
    inb && !/^[.\047]/ { buf = buf $0 "\n" }
' "$ROOT/doc/noisefloor-agent.1" |
    sed -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' -e 's/\\&//g' -e 's/\\e/\\/g' \
        -e "s/\bnf_agent\b/$AG/g" -e "s/\bnf_submit\b/$SUB/g" >"$T/roles.sql"
grep -q "^CREATE ROLE $AG " "$T/roles.sql" && grep -q "^CREATE ROLE $SUB " "$T/roles.sql" ||
    fail "no block creating both roles in noisefloor-agent.1: $(head -c 300 "$T/roles.sql")"
grep -Eiq '\b(DELETE|TRUNCATE|ALL PRIVILEGES)\b' "$T/roles.sql" &&
    fail "the block grants more than a role needs (DELETE, TRUNCATE, ALL): $(grep -Ei 'DELETE|TRUNCATE|ALL PRIV' "$T/roles.sql")"
expect_rc 0 psql -X -q -v ON_ERROR_STOP=1 "$OWN_DB" -f "$T/roles.sql"
expect_not_in err 'WARNING|ERROR'

t_case "the submitter queues jobs and cancels one"
NOISEFLOOR_DB=$SUB_DB expect_rc 0 "$NF" submit -- run -r 2 --warmup 0 -L fleet pipe -l 1000
expect_in out '^queued job 1: '
NOISEFLOOR_DB=$SUB_DB expect_rc 0 "$NF" submit -- run -r 2 --warmup 0 -L gone pipe -l 1000
expect_in out '^queued job 2: '
NOISEFLOOR_DB=$SUB_DB expect_rc 0 "$NF" jobs cancel 2
NOISEFLOOR_DB=$SUB_DB expect_rc 0 "$NF" jobs --json
json_check '[(j["id"], j["state"]) for j in d["jobs"]] == [(1, "queued"), (2, "failed")]'
json_check 'd["jobs"][1]["error"].startswith("cancelled")'

t_case "an agent claims the job and stores its run and summaries"
NOISEFLOOR_DB=$AG_DB expect_rc 0 "$NF" agent --once --poll 0.2
expect_in out '^job 1: done \(run 2\)$'
NOISEFLOOR_DB=$SUB_DB expect_rc 0 "$NF" jobs --json
json_check 'd["jobs"][0]["state"] == "done" and d["jobs"][0]["runs"] == [2]'
NOISEFLOOR_DB=$SUB_DB expect_rc 0 "$NF" show --json 2
json_check 'd["status"] == "complete" and d["label"] == "fleet"'
json_check 'all(len(m["values"]) == 2 for m in d["metrics"] if m.get("supported", True))'
nm=$(pg_sql "SELECT count(*) FROM metrics WHERE run_id = 2")
ns=$(pg_sql "SELECT count(*) FROM summaries WHERE run_id = 2")
[ "${nm:-0}" -gt 0 ] && [ "$nm" = "$ns" ] || fail "run 2: $nm metrics, $ns summaries"
NOISEFLOOR_DB=$SUB_DB expect_rc 0 "$NF" history --json
json_check 'sum(len(s["points"]) for s in d["series"]) >= 2'
expect_not_in err '.' # no lock refused, no warning: the tables are read

t_case "a latency job's histograms, an ab job's runs, and the points cache"
NOISEFLOOR_DB=$OWN_DB expect_rc 0 "$NF" history # the owner writes the cache
[ "$(pg_sql "SELECT count(*) FROM points_cache")" = 1 ] || fail "the owner's history wrote no points cache"
NOISEFLOOR_DB=$SUB_DB expect_rc 0 "$NF" submit -- run -r 2 --warmup 0 -L lat timer -i 200 -l 100
expect_in out '^queued job 3: '
NOISEFLOOR_DB=$SUB_DB expect_rc 0 "$NF" submit -- ab --rounds 2 'a=pipe -l 200' 'b=pipe -l 200'
expect_in out '^queued job 4: '
NOISEFLOOR_DB=$AG_DB expect_rc 0 "$NF" agent --drain --poll 0.2
expect_in out '^job 3: done \(run 3\)$'
expect_in out '^job 4: done \(runs 4 5\)$'
NOISEFLOOR_DB=$SUB_DB expect_rc 0 "$NF" show --json 3
json_check 'd["status"] == "complete" and [h["name"] for h in d["histograms"]] == ["wakeup"]'
json_check '[r["rep"] for r in d["histograms"][0]["reps"]] == [1, 2]'
NOISEFLOOR_DB=$SUB_DB expect_rc 0 "$NF" export -L a -L b
json_check 'len(d["runs"]) == 2 and all(r["status"] == "complete" for r in d["runs"])'
NOISEFLOOR_DB=$SUB_DB expect_rc 0 "$NF" history --json -L lat
json_check 'sum(len(s["points"]) for s in d["series"]) == 1'
for r in 3 4 5; do
    n=$(pg_sql "SELECT (SELECT count(*) FROM metrics WHERE run_id = $r) = (SELECT count(*) FROM summaries WHERE run_id = $r)")
    [ "$n" = t ] || fail "run $r: not a summary per metric"
done
# The runs after the cache's leave it be; a change to a run it holds, by
# the agent's role (which cannot write the cache), drops it: the trigger
# runs as the owner.
[ "$(pg_sql "SELECT count(*) FROM points_cache")" = 1 ] || fail "the new runs dropped the points cache"
expect_rc 0 as_sql "$AG_DB" "UPDATE runs SET note = 'seen' WHERE id = 2"
[ "$(pg_sql "SELECT count(*) FROM points_cache")" = 0 ] || fail "the agent's change to run 2 left the points cache"

t_case "the agent cannot delete runs, queue jobs or alter tables"
NOISEFLOOR_DB=$AG_DB expect_rc 1 "$NF" rm 2
expect_in err 'permission denied'
NOISEFLOOR_DB=$AG_DB expect_rc 1 "$NF" submit -- run -r 1 --warmup 0 pipe -l 1000
expect_in err 'permission denied'
refused "$AG_DB" "DELETE FROM runs WHERE id = 2"
refused "$AG_DB" "DELETE FROM jobs"
refused "$AG_DB" "ALTER TABLE runs ADD COLUMN evil integer"
refused "$AG_DB" "DROP TABLE samples"
refused "$AG_DB" "DELETE FROM points_cache"
[ "$(pg_sql "SELECT count(*) FROM runs WHERE id = 2")" = 1 ] || fail "run 2 is gone"

t_case "the submitter cannot store or delete runs, nor delete jobs"
NOISEFLOOR_DB=$SUB_DB expect_rc 1 "$NF" run -r 1 --warmup 0 -L mine pipe -l 1000
expect_in err 'permission denied'
NOISEFLOOR_DB=$SUB_DB expect_rc 1 "$NF" rm 2
expect_in err 'permission denied'
refused "$SUB_DB" "INSERT INTO runs (label, workload, started, status) VALUES ('x', 'pipe', 'now', 'complete')"
refused "$SUB_DB" "UPDATE runs SET label = 'x' WHERE id = 2"
refused "$SUB_DB" "INSERT INTO summaries (run_id, idx, n) VALUES (2, 99, 1)"
refused "$SUB_DB" "DELETE FROM jobs"
refused "$SUB_DB" "ALTER TABLE jobs ADD COLUMN evil integer"
[ "$(pg_sql "SELECT count(*) FROM runs WHERE label = 'mine'")" = 0 ] || fail "the submitter stored a run"
[ "$(pg_sql "SELECT count(*) FROM jobs")" = 4 ] || fail "jobs were deleted"

pass
