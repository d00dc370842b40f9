# Shared by the bench/ scripts: where noisefloor is, a scratch database, and
# small statistics over the numbers the scripts collect.  Bench scripts are
# not tests: they print numbers and ratios for a human (each script states
# the bar it measures), and never fail on speed.
set -eu
BENCH=$(cd "$(dirname "$0")" && pwd)
NF=${NF:-$BENCH/../build/noisefloor}
[ -x "$NF" ] || { echo "build noisefloor first (make)" >&2; exit 1; }
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/nf-bench.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
export NOISEFLOOR_DB="$SCRATCH/bench.db"
ROUNDS=${ROUNDS:-5}

need() {
    for t in "$@"; do
        command -v "$t" >/dev/null 2>&1 || { echo "skip: $t is not installed (make bench-deps)"; exit 0; }
    done
}

# Every tool is measured alone: its output goes to a file, which is read
# after it exits.  A pipe into a parser starts the parser beside the
# workload, and that alone moves the numbers: on a machine where other
# sessions keep the CPUs busy, `taskset -c 0 hackbench -g 10 -l 100 | python3
# ...` took 0.9 s where `... | awk ...` and `... >file` took 1.5-3.5 s (a
# python3 starting at the same time changes where the scheduler puts the
# other sessions' tasks), and ours, measured through a pipe into python3,
# looked twice as fast as hackbench pinned.

# nf_json ARGS...: run noisefloor once with --json into $SCRATCH/nf.json.
nf_json() { "$NF" -q --no-progress run --json "$@" >"$SCRATCH/nf.json"; }

# nf_value METRIC ARGS...: one run (nf_json), METRIC's mean.
nf_value() {
    metric=$1; shift
    nf_json "$@"
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(next(m["mean"] for m in d["metrics"] if m["name"] == sys.argv[2]))' "$SCRATCH/nf.json" "$metric"
}

# nf_values "M1 M2" ARGS...: one run, the means of several metrics, one line.
nf_values() {
    metrics=$1; shift
    nf_json "$@"
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = {x["name"]: x["mean"] for x in d["metrics"]}
print(" ".join("%.1f" % m[k] for k in sys.argv[2].split()))' "$SCRATCH/nf.json" "$metrics"
}

# nf_means "M1 M2": the means of the last nf_json run, in full, one line.
nf_means() {
    python3 -c '
import json, sys
m = {x["name"]: x["mean"] for x in json.load(open(sys.argv[1]))["metrics"]}
print(" ".join(repr(m[k]) for k in sys.argv[2].split()))' "$SCRATCH/nf.json" "$1"
}

# ref_out CMD...: a reference tool's stdout into $SCRATCH/ref.out (its
# stderr dropped), to be parsed once it has exited.
ref_out() { "$@" >"$SCRATCH/ref.out" 2>/dev/null; }

# median < numbers (one per line)
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# quartiles < numbers: "Q1 Q3" (nearest rank), the spread of one round.
quartiles() { sort -g | awk '{a[NR] = $1} END {q1 = int((NR + 3) / 4); q3 = int((3 * NR + 3) / 4); printf "%.3f %.3f\n", a[q1], a[q3]}'; }

# spread_note Q1 Q3: a warning when one round's ratio is that uncertain
# that the median of a few rounds is too (the machine switches speed).
spread_note() {
    awk -v a="$1" -v b="$2" -v n="$ROUNDS" 'BEGIN {
        if (b / a > 1.10) printf "  (per-round ratios spread from %.3f to %.3f: a noisy machine; with %d rounds the median can move by several %%, run ROUNDS=31)\n", a, b, n }'
}

# ratio A B: A / B to three decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

# now_ns: monotonic enough for spans of seconds (GNU date).
now_ns() { date +%s%N; }

# quickexit_shim: prints the path of an LD_PRELOAD library that makes exit(3)
# flush stdio and call _exit(2), so that a perf bench task ends without
# running the exit handlers of perf's libraries (built with cc; nothing
# printed when there is no cc).  The lines it adds show how much of perf's
# number those handlers are.
quickexit_shim() {
    command -v cc >/dev/null 2>&1 || return 0
    printf '%s\n' '#include <stdio.h>' '#include <unistd.h>' \
        'void exit(int status) { fflush(NULL); _exit(status); }' >"$SCRATCH/quickexit.c"
    cc -shared -fPIC -o "$SCRATCH/quickexit.so" "$SCRATCH/quickexit.c" && echo "$SCRATCH/quickexit.so"
}
