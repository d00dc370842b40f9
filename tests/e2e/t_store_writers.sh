# Sixteen writers at once, each committing 1,000 repetitions of 5 metrics
# (a transaction each): no error, no lost row, every value back as written
# (tests/helpers/store_writers.c checks them; its speed is bench/'s).
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

# The CLI's view checks the helper's runs: one case.
t_case "sixteen writers at once: no error, no row lost"
W="$ROOT/build/tests/store_writers"
[ -x "$W" ] || fail "build $W first (make e2e-tests does)"
expect_rc 0 "$W" "$NOISEFLOOR_DB" 16 1000 5
expect_in out "^store_writers: $BACKEND: 16 writers x 1000 repetitions x 5 metrics: 16000 repetitions in"
# And as the CLI sees them.
expect_rc 0 "$NF" list -L store-writers
[ "$(grep -c ' 1000 .* complete$' "$T/out")" -eq 16 ] || fail "list: expected 16 complete runs of 1000"
expect_rc 0 "$NF" export --format csv -L store-writers
[ "$(($(wc -l <"$T/out") - 1))" -eq 80000 ] || fail "export: expected 80000 samples, got $(($(wc -l <"$T/out") - 1))"
pass
