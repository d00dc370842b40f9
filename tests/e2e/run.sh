#!/bin/sh
# Run every tests/e2e/t_*.sh on SQLite, then again on PostgreSQL the tests
# of what the store does (marked in the file by a line "# backends: sqlite
# postgresql"); print a closing tally; non-zero on failure.  The second pass
# needs the test server (tests/pg/with-server.sh; `make e2e-tests` starts
# one); without it those files fail.
#
# The tally counts cases (lib.sh's t_case), not files: a file with one
# failed case out of twelve shows eleven passes and one failure, by name;
# a file run on both backends counts its cases twice, and a case of the
# second pass is named "t_x.sh (postgresql) [CASE]".
# A file that skips (lib.sh's skip, exit 77) counts its cases that ran
# before the skip and one skipped case, never a pass; a file that dies
# outside a case, or exits non-zero with no failed case recorded, counts
# one failed case.
cd "$(dirname "$0")/../.." || exit 1
results=$(mktemp)
trap 'rm -f "$results"' EXIT
export NF_E2E_RESULTS="$results"
files=0; both=0; failed=""
one() { # BACKEND TEST
    name=$(basename "$2")
    [ "$1" = sqlite ] || name="$name ($1)"
    before=$(wc -l <"$results")
    NF_TEST_BACKEND=$1 sh "$2"
    rc=$?
    recorded=$(($(wc -l <"$results") - before))
    nfail=$(tail -n "+$((before + 1))" "$results" | grep -c '^fail')
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ "$nfail" -eq 0 ]; then
        printf 'fail\t%s\t(exit %s)\n' "$name" "$rc" >>"$results"
    elif [ "$rc" -eq 0 ] && [ "$recorded" -eq 0 ]; then
        printf 'pass\t%s\t(file)\n' "$name" >>"$results"
    fi
    [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || failed="$failed $(echo "$name" | tr -d ' ')"
}
for t in tests/e2e/t_*.sh; do
    files=$((files + 1))
    one sqlite "$t"
done
for t in $(grep -l '^# backends:.*postgresql' tests/e2e/t_*.sh); do
    both=$((both + 1))
    one postgresql "$t"
done
pass=$(grep -c '^pass' "$results")
fail=$(grep -c '^fail' "$results")
skip=$(grep -c '^skip' "$results")
grep '^fail' "$results" | while IFS="$(printf '\t')" read -r _ file case; do
    echo "e2e: failed: $file [$case]"
done
echo "e2e: $pass passed, $fail failed, $skip skipped (cases, in $files files," \
    "$both of them on both backends)${failed:+ (failed:$failed)}"
[ "$fail" -eq 0 ] && [ -z "$failed" ]
