#!/bin/sh
# Run every tests/e2e/t_*.sh; print a closing tally; non-zero on failure.
#
# The tally counts cases (lib.sh's t_case), not files: a file with one
# failed case out of twelve shows eleven passes and one failure, by name.
# A file that skips (lib.sh's skip, exit 77) counts its cases that ran
# before the skip and one skipped case, never a pass; a file that dies
# outside a case, or exits non-zero with no failed case recorded, counts
# one failed case.
cd "$(dirname "$0")/../.." || exit 1
results=$(mktemp)
trap 'rm -f "$results"' EXIT
export NF_E2E_RESULTS="$results"
files=0; failed=""
for t in tests/e2e/t_*.sh; do
    name=$(basename "$t")
    before=$(wc -l <"$results")
    sh "$t"
    rc=$?
    files=$((files + 1))
    recorded=$(($(wc -l <"$results") - before))
    nfail=$(tail -n "+$((before + 1))" "$results" | grep -c '^fail')
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ "$nfail" -eq 0 ]; then
        printf 'fail\t%s\t(exit %s)\n' "$name" "$rc" >>"$results"
    elif [ "$rc" -eq 0 ] && [ "$recorded" -eq 0 ]; then
        printf 'pass\t%s\t(file)\n' "$name" >>"$results"
    fi
    [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || failed="$failed $name"
done
pass=$(grep -c '^pass' "$results")
fail=$(grep -c '^fail' "$results")
skip=$(grep -c '^skip' "$results")
grep '^fail' "$results" | while IFS="$(printf '\t')" read -r _ file case; do
    echo "e2e: failed: $file [$case]"
done
echo "e2e: $pass passed, $fail failed, $skip skipped (cases, in $files files)${failed:+ (failed:$failed)}"
[ "$fail" -eq 0 ] && [ -z "$failed" ]
