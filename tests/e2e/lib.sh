# Sourced by every end-to-end test.  Each test runs in its own scratch
# directory with its own database; a failed check prints one line and the
# test exits non-zero.
set -u
NF=${NF:-$(cd "$(dirname "$0")/../.." && pwd)/build/noisefloor}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/nf-e2e.XXXXXX")
export NOISEFLOOR_DB="$T/test.db"
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

# The store under test: a SQLite file, or with NF_TEST_BACKEND=postgresql
# (run.sh's second pass over the tests marked "# backends: ... postgresql")
# a database of this test's own on the test server (NF_TEST_PG, set by
# tests/pg/with-server.sh), dropped at the end.
BACKEND=${NF_TEST_BACKEND:-sqlite}
if [ "$BACKEND" = postgresql ]; then
    if [ -z "${NF_TEST_PG:-}" ]; then
        echo "FAIL: $(basename "$0"): no test server (NF_TEST_PG; run under tests/pg/with-server.sh)" >&2
        exit 1
    fi
    PGDB="nf_e2e_$$"
    psql -X -q "$NF_TEST_PG dbname=postgres" -c "CREATE DATABASE $PGDB" >/dev/null ||
        { echo "FAIL: $(basename "$0"): cannot create database $PGDB" >&2; exit 1; }
    export NOISEFLOOR_DB="$NF_TEST_PG dbname=$PGDB"
    trap 'rm -rf "$T"; psql -X -q "$NF_TEST_PG dbname=postgres" -c "DROP DATABASE IF EXISTS $PGDB WITH (FORCE)" >/dev/null 2>&1' EXIT
fi
# pg_sql SQL: run SQL on the test's PostgreSQL database; rows on stdout.
pg_sql() { psql -X -q -t -A -v ON_ERROR_STOP=1 "$NOISEFLOOR_DB" -c "$1"; }

fail() { echo "FAIL: $(basename "$0"): $*" >&2; exit 1; }

# expect_rc CODE CMD...: run CMD, stdout to $T/out, stderr to $T/err.
expect_rc() {
    want=$1; shift
    "$@" >"$T/out" 2>"$T/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "expected exit $want, got $got: $* (stderr: $(head -c 400 "$T/err"))"
}
# The file (out or err) contains the extended regex.
expect_in() { grep -Eq -- "$2" "$T/$1" || fail "$1 lacks /$2/: $(head -c 400 "$T/$1")"; }
expect_not_in() { ! grep -Eq -- "$2" "$T/$1" || fail "$1 has /$2/"; }
# One line on stderr.
expect_one_line_err() {
    n=$(wc -l <"$T/err")
    [ "$n" -eq 1 ] || fail "expected one stderr line, got $n: $(head -c 400 "$T/err")"
}
# A JSON expression over $T/out, evaluated with jq-free python3 (stdlib only).
json_check() {
    /usr/bin/python3 - "$T/out" "$1" <<'PY' || fail "json check failed: $1"
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2], {"d": d})
sys.exit(0 if ok else 1)
PY
}
pass() { echo "ok: $(basename "$0")${NF_TEST_BACKEND:+ ($BACKEND)}"; exit 0; }
# The test cannot run on this machine: say why; run.sh counts it as skipped.
skip() { echo "skip: $(basename "$0"): $*"; exit 77; }
