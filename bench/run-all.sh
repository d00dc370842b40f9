#!/bin/sh
# make bench: every side-by-side benchmark, then their ratio lines together.
# Not part of make check; needs the bench deps (make bench-deps) and time
# (a few minutes).  ROUNDS=N sets the interleaved rounds of each.
cd "$(dirname "$0")" || exit 1
out=$(mktemp "${TMPDIR:-/tmp}/nf-bench-all.XXXXXX")
trap 'rm -f "$out"' EXIT
rc=0
for b in pipe-vs-perf messaging-vs-perf messaging-vs-hackbench timer-vs-cyclictest netsend-vs-iperf3 \
    exec-overhead sysstat-cost compare-speed history-speed ab-efficiency store-throughput store-independence; do
    echo "== $b"
    bash "./$b" | tee -a "$out" || rc=1
done
echo
echo "== summary"
grep -E '^[a-z0-9-]+( \(.*\))?: .*ratio' "$out"
exit $rc
