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
pass() { echo "ok: $(basename "$0")"; exit 0; }
# The test cannot run on this machine: say why; run.sh counts it as skipped.
skip() { echo "skip: $(basename "$0"): $*"; exit 77; }
