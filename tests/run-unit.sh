#!/bin/sh
# Run each cmocka test binary given; print a closing tally of test cases;
# non-zero on failure.  A case that calls cmocka's skip() is counted as
# skipped, never as passed.
pass=0; fail=0; skip=0; failed=""
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in "$@"; do
    "$t" >"$out" 2>&1
    rc=$?
    cat "$out"
    runs=$(grep -c '^\[ RUN      \]' "$out")
    ok=$(grep -c '^\[       OK \]' "$out")
    sk=$(grep '^\[  SKIPPED \] [A-Za-z_]' "$out" | sort -u | wc -l)
    bad=$((runs - ok - sk))
    # A binary that dies before or between cases still fails.
    [ "$rc" -ne 0 ] && [ "$bad" -le 0 ] && bad=1
    pass=$((pass + ok)); skip=$((skip + sk)); fail=$((fail + bad))
    if [ "$rc" -ne 0 ]; then
        failed="$failed $(basename "$t")"
        echo "FAILED: $t (exit $rc)"
    fi
done
echo "unit: $pass passed, $fail failed, $skip skipped${failed:+ (failed:$failed)}"
[ "$fail" -eq 0 ]
