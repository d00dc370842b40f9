# Sourced by the fleet tests (t_jobs_*.sh) after lib.sh: a command that
# waits at a handshake under a job's first attempt, and waits of the test's
# own for what agents do meanwhile (bounds on a hang, not timing tests).

# blk.sh DIR K: under attempt 1 of a job (NOISEFLOOR_JOB=ID.1, which the
# agent gives its command and the command gives the measured one), the
# K-th invocation (from 0) touches DIR/blocked and waits for DIR/go; every
# other invocation returns at once.
cat >"$T/blk.sh" <<'EOF'
d=$1
case ${NOISEFLOOR_JOB:-} in
*.1)
    mkdir -p "$d"
    i=0
    while [ -e "$d/i$i" ]; do i=$((i + 1)); done
    : >"$d/i$i"
    if [ "$i" -eq "$2" ]; then
        : >"$d/blocked"
        while [ ! -e "$d/go" ]; do sleep 0.02; done
    fi ;;
esac
EOF
# Whatever a case leaves waiting is let go at the end.
trap '_rc=$?; for d in "$T"/h*; do [ -d "$d" ] && : >"$d/go"; done; (exit $_rc); _nf_exit' EXIT

# wait_file PATH: until it exists (a bound on a hang, not a timing test).
wait_file() {
    case_failed && return 0
    i=0
    while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
    [ -e "$1" ] || fail "waited 30s for $1"
}
# wait_json SECONDS PYTHON-EXPRESSION CMD...: until CMD's JSON d satisfies it.
wait_json() {
    case_failed && return 0
    limit=$1 expr=$2; shift 2
    i=0
    while [ $i -lt $((limit * 10)) ]; do
        if "$@" >"$T/poll" 2>/dev/null && /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2], {"d": d}) else 1)' "$T/poll" "$expr" 2>/dev/null; then
            return 0
        fi
        sleep 0.1; i=$((i + 1))
    done
    fail "waited ${limit}s for: $expr"
}
# expire JOB: its lease has run out (what a day would do).
expire() {
    case_failed && return 0
    if [ "$BACKEND" = postgresql ]; then
        pg_sql "UPDATE jobs SET lease_until = now() - interval '1 hour' WHERE id = $1" ||
            fail "cannot expire job $1"
    else
        /usr/bin/python3 -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=30)
c.execute("UPDATE jobs SET lease_until = 0 WHERE id = ?", (int(sys.argv[2]),))
c.commit()' "$NOISEFLOOR_DB" "$1" || fail "cannot expire job $1"
    fi
}
