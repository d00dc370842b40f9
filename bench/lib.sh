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

# nf_value METRIC ARGS...: run noisefloor once with --json, print METRIC's mean.
nf_value() {
    metric=$1; shift
    "$NF" -q --no-progress run --json "$@" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(next(m["mean"] for m in d["metrics"] if m["name"] == sys.argv[1]))' "$metric"
}

# nf_values "M1 M2" ARGS...: one run, the means of several metrics, one line.
nf_values() {
    metrics=$1; shift
    "$NF" -q --no-progress run --json "$@" | python3 -c '
import json, sys
d = json.load(sys.stdin)
m = {x["name"]: x["mean"] for x in d["metrics"]}
print(" ".join("%.1f" % m[k] for k in sys.argv[1].split()))' "$metrics"
}

# median < numbers (one per line)
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# ratio A B: A / B to three decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

# now_ns: monotonic enough for spans of seconds (GNU date).
now_ns() { date +%s%N; }
