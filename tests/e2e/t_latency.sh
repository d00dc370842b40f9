# run wakeup and timer: stored percentile metrics in order in every
# repetition, requests/s, --pin, the error bound in --help, bad input (exit
# 2, one line), and a SCHED_FIFO the kernel refuses (exit 1, said, nothing
# measured under another policy).
. "$(dirname "$0")/lib.sh"

LAT='["wakeup-p50", "wakeup-p90", "wakeup-p99", "wakeup-p99.9", "wakeup-max", "wakeups"]'
# Every repetition: p50 <= p90 <= p99 <= p99.9 <= max, all >= 0.
ORDERED='all(0 <= r[0] <= r[1] <= r[2] <= r[3] <= r[4] for r in zip(*[m["values"] for m in d["metrics"][:5]]))'

t_case "timer: the metrics, in order in every repetition"
expect_rc 0 "$NF" run -r 3 --warmup 1 --json --pin 0 timer -i 500 -l 200
json_check 'd["workload"] == "timer" and d["args"] == ["-i", "500", "-l", "200"] and d["env"]["pin"] == "0"'
json_check "[m['name'] for m in d['metrics']][:6] == $LAT"
json_check 'all(m["unit"] == "usecs" and m["better"] == "lower" for m in d["metrics"][:5])'
json_check '[m["name"] for m in d["metrics"] if m["primary"]] == ["wakeup-p99"]'
json_check 'd["metrics"][0]["n"] == 3 and d["metrics"][5]["values"] == [200, 200, 200]'
json_check "$ORDERED"

t_case "wakeup: the metrics, in order in every repetition"
expect_rc 0 "$NF" run -r 3 --warmup 0 --json wakeup -t 2 -r 0.3 -s 50 -c 50
json_check 'd["workload"] == "wakeup"'
json_check "[m['name'] for m in d['metrics']][:7] == $LAT + ['requests/s']"
json_check 'd["metrics"][6]["better"] == "higher" and all(v > 0 for v in d["metrics"][6]["values"])'
json_check "$ORDERED"
# Each request in the window followed a recorded wakeup.
json_check 'all(w >= round(r * 0.3) for w, r in zip(d["metrics"][5]["values"], d["metrics"][6]["values"]))'

t_case "wakeups is a count: its mean is the arithmetic one"
# A count of events is no rate: no harmonic mean (run's "(hmean)"), in the
# text and in the JSON; requests/s stays a rate.
expect_rc 0 "$NF" run -r 3 --warmup 0 --json wakeup -t 1 -r 0.1
json_check 'next(abs(m["mean"] - sum(m["values"]) / 3) <= 1e-9 * m["mean"] for m in d["metrics"] if m["name"] == "wakeups")'
json_check 'next(abs(m["mean"] - 3 / sum(1 / v for v in m["values"])) <= 1e-9 * m["mean"] for m in d["metrics"] if m["name"] == "requests/s")'
expect_rc 0 "$NF" run -r 2 --warmup 0 wakeup -t 1 -r 0.1
expect_in out "count wakeups"
case_failed || ! grep "count wakeups" "$T/out" | grep -q hmean || fail "wakeups shown as a harmonic mean"
case_failed || grep "requests/s" "$T/out" | grep -q hmean || fail "requests/s not shown as a harmonic mean"
# Known values (arithmetic means 9000 and 8000; harmonic 8421.05 and
# 7341.10): show, its JSON, list and compare.
printf '6000\n8000\n10000\n12000\n' >cnt-a.txt
printf '5000\n7000\n9000\n11000\n' >cnt-b.txt
for l in a b; do
    "$NF" import cnt-$l.txt --format values --label cnt-$l --metric wakeups --unit count \
        --better higher >"$T/imp" || fail "import cnt-$l"
done
id=$(sed -n 's/^imported run \([0-9]*\) .*/\1/p' "$T/imp")
expect_rc 0 "$NF" show "$id"
expect_in out "^ +8000\.00 +count wakeups "
expect_not_in out "hmean"
expect_rc 0 "$NF" show --json "$id"
json_check 'd["metrics"][0]["mean"] == 8000'
expect_rc 0 "$NF" list
expect_in out " 8000 wakeups "
expect_rc 0 "$NF" compare -m wakeups cnt-a cnt-b
expect_in out "^Amean +count +9000\.00 \( +0\.00%\) +8000\.00 \(-11\.11%\)"
expect_rc 0 "$NF" compare --json -m wakeups cnt-a cnt-b
json_check '(d["rows"][0]["baseline_mean"], d["rows"][0]["mean"]) == (9000, 8000)'

t_case "the text summary and --help"
# The text summary names the metrics.
expect_rc 0 "$NF" run -r 1 --warmup 0 timer -l 50
expect_in out "wakeup-p99\.9"

# --help states the error bound and the memory.
for w in timer wakeup; do
    expect_rc 0 "$NF" run "$w" --help
    expect_in out "2\^-8"
    expect_in out "KiB"
done

t_case "bad input: exit 2, one line"
# Bad input: exit 2, one line naming the problem.
bad() {
    expect_rc 2 "$NF" run "$@"
    expect_one_line_err
}
bad timer -i 0;           expect_in err "timer: .*-i"
bad timer -i -5;          expect_in err "timer: .*-i"
bad timer -l 0;           expect_in err "timer: .*-l"
bad timer -i 1000000 -l 100000; expect_in err "timer: "
bad timer --policy rr;    expect_in err "timer: .*policy"
bad timer --prio 100 --policy fifo; expect_in err "timer: .*prio"
bad timer --prio 10;      expect_in err "timer: --prio needs --policy fifo"
bad wakeup -t 0;          expect_in err "wakeup: .*-t"
bad wakeup -m -1;         expect_in err "wakeup: .*-m"
bad wakeup -r 0;          expect_in err "wakeup: .*-r"
bad wakeup -r -3;         expect_in err "wakeup: .*-r"
bad wakeup -r 1e-10;      expect_in err "wakeup: -r wants seconds in \\[0\\.001, 3600\\]"
bad wakeup -t 100000;     expect_in err "wakeup: .*-t"
bad wakeup -m 64 -t 64;   expect_in err "wakeup: .*workers"
bad wakeup -s 10000000;   expect_in err "wakeup: .*-s"
[ "$("$NF" list | grep -c timer)" -eq 2 ] || fail "a bad command line stored a run"

t_case "timer: /dev/cpu_dma_latency held at 0, or left alone with --default-system"
# What the run records (test_timer_dma.c checks the hold itself, from
# inside a repetition).
if [ -w /dev/cpu_dma_latency ]; then dma_want="held at 0 us during each repetition"; else dma_want="not held: /dev/cpu_dma_latency: "; fi
expect_rc 0 "$NF" run -r 1 --warmup 0 --json timer -l 20
json_check "d['env']['cpu_dma_latency'].startswith('$dma_want')"
id=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' "$T/out")
expect_rc 0 "$NF" show "$id"
expect_in out "cpu_dma_latency +$dma_want"
expect_rc 0 "$NF" run -r 1 --warmup 0 --json timer -l 20 --default-system
json_check 'd["env"]["cpu_dma_latency"] == "not held: --default-system"'
json_check 'd["args"] == ["-l", "20", "--default-system"] and d["metrics"][5]["values"] == [20]'
expect_rc 0 "$NF" run -r 1 --warmup 0 --json wakeup -t 1 -r 0.05
json_check '"cpu_dma_latency" not in d["env"]'

t_case "SCHED_FIFO refused: exit 1, said, nothing measured"
# SCHED_FIFO refused: without CAP_SYS_NICE and with RLIMIT_RTPRIO 0 the
# kernel says EPERM.  As root, drop the capability from the bounding set
# (setpriv) so the exec'd noisefloor lacks it; otherwise we lack it already.
command -v prlimit >/dev/null || skip "prlimit (util-linux) is missing"
if [ "$(id -u)" -eq 0 ]; then
    command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"
    nocap="setpriv --bounding-set -sys_nice --inh-caps -sys_nice"
else
    nocap=
fi
# shellcheck disable=SC2086
expect_rc 1 $nocap prlimit --rtprio=0 "$NF" run -r 2 --warmup 0 --json timer -l 20 --policy fifo --prio 5
expect_in err "SCHED_FIFO priority 5 is not permitted"
expect_one_line_err
expect_rc 0 "$NF" export --format json
json_check '[(r["status"], [m["values"] for m in r["metrics"]][:5]) for r in d["runs"] if "fifo" in r["args"]] == [("failed", [[]] * 5)]'

t_case "SCHED_FIFO permitted: it runs"
# Permitted (root, or an RLIMIT_RTPRIO high enough): it runs.
if prlimit --rtprio=10 "$NF" run -r 1 --warmup 0 timer -l 20 --policy fifo --prio 5 >/dev/null 2>&1; then
    expect_rc 0 prlimit --rtprio=10 "$NF" run -r 2 --warmup 0 --json timer -l 50 --policy fifo --prio 5
    json_check "$ORDERED"
fi
pass
