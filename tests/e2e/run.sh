#!/bin/sh
# Run every tests/e2e/t_*.sh (on SQLite, and the store's again on
# PostgreSQL); print a closing tally; non-zero on failure.
# A test that cannot run here exits 77 (lib.sh's skip) and is counted as
# skipped, never as passed.
cd "$(dirname "$0")/../.." || exit 1
pass=0; fail=0; skip=0; failed=""
one() {   # BACKEND TEST
    NF_TEST_BACKEND=$1 sh "$2"
    rc=$?
    case $rc in
        0) pass=$((pass + 1)) ;;
        77) skip=$((skip + 1)) ;;
        *) fail=$((fail + 1)); failed="$failed $(basename "$2")($1)" ;;
    esac
}
for t in tests/e2e/t_*.sh; do
    one sqlite "$t"
done
# Again on PostgreSQL, the tests of what the store does (marked in the file
# by a line "# backends: sqlite postgresql").  They need the test server
# (tests/pg/with-server.sh; `make e2e-tests` starts one); without it they fail.
for t in $(grep -l '^# backends:.*postgresql' tests/e2e/t_*.sh); do
    one postgresql "$t"
done
echo "e2e: $pass passed, $fail failed, $skip skipped${failed:+ (failed:$failed)}"
[ "$fail" -eq 0 ]
