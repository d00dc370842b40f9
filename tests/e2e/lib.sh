# Sourced by every end-to-end test.  Each test runs in its own scratch
# directory with its own database, as named cases:
#
#   t_case "bad input is refused"
#   expect_rc 2 "$NF" run --bogus pipe
#   expect_one_line_err
#   ...
#   pass                      # at the end: exit 0, or 1 if a case failed
#
# A failed check prints one line naming the file and the case, the case's
# remaining checks are skipped, and the file goes on with the next case;
# `pass` then exits non-zero.  Checks before the first t_case belong to a
# case named "setup".  A test that cannot run here calls `skip "why"`
# (exit 77, counted as skipped).  With $NF_E2E_RESULTS set (run.sh sets
# it), each case appends "pass|fail|skip FILE CASE" to that file.
#
# The store under test is a SQLite file, or with NF_TEST_BACKEND=postgresql
# (run.sh's second pass over the files marked "# backends: sqlite
# postgresql") a database of the test's own on the test server (NF_TEST_PG,
# set by tests/pg/with-server.sh), dropped when the test exits.  On that
# pass the file is named "t_x.sh (postgresql)" in its messages and tally.
set -u
NF=${NF:-$(cd "$(dirname "$0")/../.." && pwd)/build/noisefloor}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/nf-e2e.XXXXXX")
export NOISEFLOOR_DB="$T/test.db"
BACKEND=${NF_TEST_BACKEND:-sqlite}
PGDB=""
_NF_FILE=$(basename "$0")
[ "$BACKEND" = sqlite ] || _NF_FILE="$_NF_FILE ($BACKEND)"
_NF_CASE=setup
_NF_FAILS="$T.fails"  # one line per failed check, also from subshells
_NF_CASE_FAILS=0      # lines in $_NF_FAILS when the case began
_NF_NCASES=0
_NF_FAILED=""         # names of the failed cases
_NF_DONE=""
: >"$_NF_FAILS"
trap '_nf_exit' EXIT
cd "$T" || exit 1

_nf_record() { # pass|fail|skip CASE
    [ -z "${NF_E2E_RESULTS:-}" ] || printf '%s\t%s\t%s\n' "$1" "$_NF_FILE" "$2" >>"$NF_E2E_RESULTS"
}
_nf_nfails() { wc -l <"$_NF_FAILS"; }
# Has a check of the current case failed?
case_failed() { [ "$(_nf_nfails)" -gt "$_NF_CASE_FAILS" ]; }
_nf_end_case() {
    if case_failed; then
        _nf_record fail "$_NF_CASE"
        _NF_FAILED="$_NF_FAILED${_NF_FAILED:+, }'$_NF_CASE'"
    elif [ "$_NF_CASE" != setup ]; then
        _nf_record pass "$_NF_CASE"
    fi
}
_nf_exit() {
    rc=$?
    if [ -z "$_NF_DONE" ]; then # died in mid-case (set -u, a stray exit)
        echo "FAIL: $_NF_FILE [$_NF_CASE]: exited with status $rc" >&2
        _nf_record fail "$_NF_CASE"
        [ "$rc" -ne 0 ] || rc=1
    fi
    rm -rf "$T" "$_NF_FAILS"
    [ -z "$PGDB" ] ||
        psql -X -q "$NF_TEST_PG dbname=postgres" \
            -c "DROP DATABASE IF EXISTS $PGDB WITH (FORCE)" >/dev/null 2>&1
    exit "$rc"
}

# t_case NAME: the checks that follow are case NAME.
t_case() {
    _nf_end_case
    _NF_CASE=$1
    _NF_NCASES=$((_NF_NCASES + 1))
    _NF_CASE_FAILS=$(_nf_nfails)
}

# A failed check: one line, and the rest of the case is skipped.
fail() {
    case_failed && return 0
    echo "FAIL: $_NF_FILE [$_NF_CASE]: $*" >&2
    echo "$_NF_CASE" >>"$_NF_FAILS"
}

if [ "$BACKEND" = postgresql ]; then
    if [ -z "${NF_TEST_PG:-}" ]; then
        echo "FAIL: $_NF_FILE: no test server (NF_TEST_PG; run under tests/pg/with-server.sh)" >&2
        exit 1
    fi
    psql -X -q "$NF_TEST_PG dbname=postgres" -c "CREATE DATABASE nf_e2e_$$" >/dev/null ||
        { echo "FAIL: $_NF_FILE: cannot create database nf_e2e_$$" >&2; exit 1; }
    PGDB="nf_e2e_$$"
    export NOISEFLOOR_DB="$NF_TEST_PG dbname=$PGDB"
fi
# pg_sql SQL: run SQL on the test's PostgreSQL database; rows on stdout.
pg_sql() { psql -X -q -t -A -v ON_ERROR_STOP=1 "$NOISEFLOOR_DB" -c "$1"; }

# expect_rc CODE CMD...: run CMD, stdout to $T/out, stderr to $T/err.
expect_rc() {
    case_failed && return 0
    want=$1; shift
    "$@" >"$T/out" 2>"$T/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "expected exit $want, got $got: $* (stderr: $(head -c 400 "$T/err"))"
}
# The file (out or err) contains the extended regex.
expect_in() {
    case_failed && return 0
    grep -Eq -- "$2" "$T/$1" || fail "$1 lacks /$2/: $(head -c 400 "$T/$1")"
}
expect_not_in() {
    case_failed && return 0
    ! grep -Eq -- "$2" "$T/$1" || fail "$1 has /$2/"
}
# One line on stderr.
expect_one_line_err() {
    case_failed && return 0
    n=$(wc -l <"$T/err")
    [ "$n" -eq 1 ] || fail "expected one stderr line, got $n: $(head -c 400 "$T/err")"
}
# A JSON expression over $T/out, evaluated with jq-free python3 (stdlib only).
json_check() {
    case_failed && return 0
    /usr/bin/python3 - "$T/out" "$1" <<'PY' || fail "json check failed: $1"
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2], {"d": d})
sys.exit(0 if ok else 1)
PY
}
# The end of the file: exit 0 when every case passed.
pass() {
    _nf_end_case
    _NF_DONE=1
    if [ -n "$_NF_FAILED" ]; then
        echo "FAIL: $_NF_FILE: failed case(s) $_NF_FAILED of $_NF_NCASES" >&2
        exit 1
    fi
    echo "ok: $_NF_FILE ($_NF_NCASES cases)"
    exit 0
}
# The test cannot run on this machine: say why; run.sh counts it as skipped
# (the cases that ran before it still count).
skip() {
    _NF_DONE=1
    if case_failed || [ -n "$_NF_FAILED" ]; then
        _nf_end_case
        echo "FAIL: $_NF_FILE: failed case(s) $_NF_FAILED before skipping: $*" >&2
        exit 1
    fi
    _nf_record skip "$_NF_CASE"
    echo "skip: $_NF_FILE [$_NF_CASE]: $*"
    exit 77
}
