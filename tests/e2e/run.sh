#!/bin/sh
# Run every tests/e2e/t_*.sh; print a closing tally; non-zero on failure.
# A test that cannot run here exits 77 (lib.sh's skip) and is counted as
# skipped, never as passed.
cd "$(dirname "$0")/../.." || exit 1
pass=0; fail=0; skip=0; failed=""
for t in tests/e2e/t_*.sh; do
    sh "$t"
    rc=$?
    case $rc in
        0) pass=$((pass + 1)) ;;
        77) skip=$((skip + 1)) ;;
        *) fail=$((fail + 1)); failed="$failed $(basename "$t")" ;;
    esac
done
echo "e2e: $pass passed, $fail failed, $skip skipped${failed:+ (failed:$failed)}"
[ "$fail" -eq 0 ]
