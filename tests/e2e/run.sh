#!/bin/sh
# Run every tests/e2e/t_*.sh; print a closing tally; non-zero on failure.
cd "$(dirname "$0")/../.." || exit 1
pass=0; fail=0
for t in tests/e2e/t_*.sh; do
    if sh "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
