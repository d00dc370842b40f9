#!/bin/sh
# make valgrind: the CLI and the fast unit tests under valgrind's memcheck;
# any leak or error fails.  Not part of make check (slow).
cd "$(dirname "$0")/.." || exit 1
command -v valgrind >/dev/null || { echo "valgrind: not installed (make bench-deps)"; exit 1; }
VG="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --trace-children=no"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export NOISEFLOOR_DB="$T/vg.db"
pass=0; fail=0
# check [-x CODE] CMD...: CMD under memcheck must exit CODE (default 0);
# 99 is memcheck's own verdict (errors or leaks), anything else unexpected
# (a valgrind abort among them) fails too.
check() {
    want=0
    if [ "$1" = -x ]; then want=$2; shift 2; fi
    $VG "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ $rc -eq 99 ]; then
        fail=$((fail + 1)); echo "valgrind: errors in: $*"; cat "$T/err"
    elif [ $rc -ne "$want" ]; then
        fail=$((fail + 1)); echo "valgrind: exit $rc, not $want: $*"; tail -5 "$T/err"
    else
        pass=$((pass + 1))
    fi
}
check build/noisefloor run -r 3 -L vg-a pipe -l 2000
check build/noisefloor run -r 3 -L vg-b --pin 0 --json pipe -l 2000
check build/noisefloor run -r 2 -L vg-c -- /bin/true
check build/noisefloor compare vg-a vg-b
check build/noisefloor compare --json --test utest vg-a vg-b
check build/noisefloor ab --rounds 3:4 x='pipe -l 1000' y='--pin 0 pipe -l 1000'
check build/noisefloor list
check build/noisefloor export --format json
check build/noisefloor export --format csv
check build/noisefloor doctor
check build/noisefloor report --html "$T/r.html" vg-a vg-b
check build/noisefloor insns --func main build/noisefloor
check -x 2 build/noisefloor run --bogus
# test_core's parts (run model, its JSON, run's options, pipe) and others
for t in build/tests/test_core build/tests/test_run_json build/tests/test_runspec \
    build/tests/test_workload_pipe build/tests/test_compare build/tests/test_noise \
    build/tests/test_stopping; do
    [ -x "$t" ] && check "$t"
done
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
