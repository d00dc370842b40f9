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
_NF_CASE_SKIP=""      # why the current case was skipped (case_skip)
_NF_DONE=""
: >"$_NF_FAILS"
trap '_nf_exit' EXIT
cd "$T" || exit 1

_nf_record() { # pass|fail|skip CASE
    [ -z "${NF_E2E_RESULTS:-}" ] || printf '%s\t%s\t%s\n' "$1" "$_NF_FILE" "$2" >>"$NF_E2E_RESULTS"
}
# The number of lines in $_NF_FAILS, in _NF_N: counted by the shell (it is
# asked before every check, and a fork for wc each time adds up).
_nf_nfails() {
    _NF_N=0
    while IFS= read -r _nf_l; do _NF_N=$((_NF_N + 1)); done <"$_NF_FAILS"
}
# Has a check of the current case failed?  The json_checks queued so far
# are evaluated first.
case_failed() {
    _nf_json_flush
    _nf_case_failed
}
# The same without evaluating the queue: for the checks that run no
# command (a queued json_check that fails is still reported first).  A
# skipped case (case_skip) counts as failed here, so that its checks stop.
_nf_case_failed() {
    [ -z "$_NF_CASE_SKIP" ] || return 0 # skipped: its checks do nothing
    _nf_nfails
    [ "$_NF_N" -gt "$_NF_CASE_FAILS" ]
}
_nf_end_case() {
    _nf_json_flush
    if [ -n "$_NF_CASE_SKIP" ]; then
        _nf_record skip "$_NF_CASE"
    elif case_failed; then
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
    _NF_CASE_SKIP=""
    _NF_NCASES=$((_NF_NCASES + 1))
    _nf_nfails
    _NF_CASE_FAILS=$_NF_N
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
# store_sql SQL: run SQL on the store under test, either backend; rows on
# stdout, "|" between columns, NULL as empty.
store_sql() {
    if [ "$BACKEND" = postgresql ]; then
        pg_sql "$1"
    else
        /usr/bin/python3 -I -S -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for row in c.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))
c.commit()' "$NOISEFLOOR_DB" "$1"
    fi
}

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
    _nf_case_failed && return 0
    grep -Eq -- "$2" "$T/$1" || fail "$1 lacks /$2/: $(head -c 400 "$T/$1")"
}
expect_not_in() {
    _nf_case_failed && return 0
    ! grep -Eq -- "$2" "$T/$1" || fail "$1 has /$2/"
}
# One line on stderr.
expect_one_line_err() {
    _nf_case_failed && return 0
    n=$(wc -l <"$T/err")
    [ "$n" -eq 1 ] || fail "expected one stderr line, got $n: $(head -c 400 "$T/err")"
}
# json_check EXPR: the python expression EXPR over d, the JSON in $T/out as
# it is now, is true (python3 stdlib only).  A python for each check cost
# more than all else the checks do, so checks are queued, each with a copy
# of out, and evaluated together, in order, when a check fails, the next
# command of expect_rc is to run, case_failed is asked or the case ends;
# the first false (or failing) one fails the case with its expression, the
# rest are not evaluated.  The queue is files: a subshell's checks are
# evaluated too, and numbers are claimed with noclobber, not reused.
_NF_JQ=0
_NF_JQ_BUSY=""
json_check() {
    _nf_case_failed && return 0
    case $- in *C*) _nf_c=1 ;; *) _nf_c=""; set -C ;; esac
    _nf_ok="" _nf_tries=0
    while [ -z "$_nf_ok" ] && [ "$_nf_tries" -lt 1000 ]; do
        _NF_JQ=$((_NF_JQ + 1)) _nf_tries=$((_nf_tries + 1))
        _nf_q="$T/.jq.$_NF_JQ"
        if printf '%s' "$1" 2>/dev/null >"$_nf_q.expr"; then
            _nf_ok=1
        elif [ ! -e "$_nf_q.expr" ]; then
            break # not taken by another check: nothing can be written
        fi
    done
    [ -n "$_nf_c" ] || set +C
    [ -n "$_nf_ok" ] || { fail "json check not queued (cannot write in $T): $1"; return 0; }
    cp "$T/out" "$_nf_q.json" 2>/dev/null
    printf '' >"$_nf_q.ready"
}
_nf_json_flush() {
    [ -z "$_NF_JQ_BUSY" ] || return 0
    set -- "$T"/.jq.*.ready
    [ -e "$1" ] || return 0
    _NF_JQ_BUSY=1
    /usr/bin/python3 -I -S - "$T" <<'PY' || fail "json check failed: $(cat "$T/.jq.failed")"
import glob, json, os, sys, traceback
t = sys.argv[1]
ready = glob.glob(os.path.join(t, ".jq.*.ready"))
failed = None
for r in sorted(ready, key=lambda p: int(p.split(".")[-2])):
    q = r[: -len(".ready")]
    try:  # claimed here, or by a subshell evaluating the queue at once
        os.rename(r, "%s.taken%d" % (q, os.getpid()))
    except FileNotFoundError:
        continue
    if failed is None:
        expr = open(q + ".expr", encoding="utf-8", errors="surrogateescape").read()
        try:
            d = json.load(open(q + ".json"))
            ok = eval(expr, {"d": d})
        except Exception:
            traceback.print_exc()
            ok = False
        if not ok:
            failed = expr
    for f in sorted(glob.glob(glob.escape(q) + ".*"), key=lambda f: f.endswith(".expr")):
        os.remove(f)  # .expr, which holds the number, last
if failed is not None:
    with open(os.path.join(t, ".jq.failed"), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(failed)
    sys.exit(1)
PY
    _NF_JQ_BUSY=""
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

# case_skip WHY: the current case cannot mean anything here; it is
# counted as skipped with WHY and its remaining checks do nothing.  A
# check that failed before stays a failure.
case_skip() {
    case_failed && return 0
    _NF_CASE_SKIP=$*
    echo "skip: $_NF_FILE [$_NF_CASE]: $*"
}

# nr_throttled: how often the CPU quota of the cgroups this shell runs in
# (its cpu cgroup and their parents: cgroup v1's cpu controller, or v2)
# has stopped them, from cpu.stat; 0 where there is none to read.
# tests/throttled.sh runs the tests under such a quota.
nr_throttled() {
    _nf_cg=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3; exit }' /proc/self/cgroup 2>/dev/null)
    _nf_root=""
    for _nf_d in /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct; do
        [ -n "$_nf_cg" ] && [ -f "$_nf_d/cpu.stat" ] && { _nf_root=$_nf_d; break; }
    done
    if [ -z "$_nf_root" ]; then # cgroup v2: one hierarchy, "0::PATH"
        _nf_cg=$(awk -F: '$1 == 0 { print $3; exit }' /proc/self/cgroup 2>/dev/null)
        _nf_root=/sys/fs/cgroup
    fi
    _nf_n=0
    while :; do
        _nf_v=$(awk '$1 == "nr_throttled" { print $2 }' "$_nf_root$_nf_cg/cpu.stat" 2>/dev/null)
        _nf_n=$((_nf_n + ${_nf_v:-0}))
        [ -n "$_nf_cg" ] && [ "$_nf_cg" != / ] || break
        _nf_cg=${_nf_cg%/*}
    done
    echo "$_nf_n"
}

# throttled_skip BEFORE: skip the current case (case_skip) when the CPU
# quota stopped us since nr_throttled said BEFORE: a latency measured
# then is the quota's, not what the case looks at.
throttled_skip() {
    _nf_now=$(nr_throttled)
    [ "$_nf_now" -le "$1" ] ||
        case_skip "the CPU quota of our cgroup throttled us $((_nf_now - $1)) times during the case: its latencies measure the quota"
}
