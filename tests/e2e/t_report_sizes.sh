# The HTML report of a netsend-like comparison: a chart of throughput by
# message size, a plot for every metric that differs (not only the
# primary), the summary naming the rows it counts, the environment naming
# differing workload arguments and counters, and a note that several
# metrics share printed once.
. "$(dirname "$0")/lib.sh"

# Two labels of send-64, send-1024, send-4096 (Mbit/s); b's send-1024 is
# 20% lower, b ran with another -d, counted task-clock, and has 2
# repetitions (a note on every metric).
/usr/bin/python3 -I -S - "$T/runs.json" <<'PY'
import json, sys
def run(i, label, args, sends, extra):
    ms = [{"name": "send-%d" % s, "unit": "Mbit/s", "better": "higher", "primary": k == 0,
           "supported": True, "values": v} for k, (s, v) in enumerate(sends)]
    ms += extra
    n = len(sends[0][1])
    return {"id": i, "label": label, "workload": "netsend", "args": args,
            "started": "2026-12-01T10:00:0%dZ" % i, "repeat": n, "warmup": 0,
            "status": "complete", "session": None, "note": None, "env": {"hostname": "h"},
            "metrics": ms}
a = run(1, "a", ["-d", "1"], [(64, [100, 101, 99, 100, 100.5]), (1024, [1000, 1002, 998, 1001, 999]),
                              (4096, [3000, 3010, 2990, 3005, 2995])], [])
b = run(2, "b", ["-d", "2"], [(64, [100.2, 99.8]), (1024, [800, 801]), (4096, [3001, 2999])],
        [{"name": "task-clock", "unit": "msec", "better": "lower", "primary": False,
          "supported": True, "values": [5.0, 5.1]}])
json.dump({"runs": [a, b]}, open(sys.argv[1], "w"))
PY
expect_rc 0 "$NF" import "$T/runs.json" --format json

t_case "throughput by message size, and a plot of the metric that differs"
expect_rc 0 "$NF" report a b --html "$T/r.html"
grep -q 'send by message size</h3>' "$T/r.html" || fail "no chart by message size"
[ "$(grep -c '<polyline' "$T/r.html")" -ge 2 ] || fail "not a line per label"
grep -q '<title>b send-1024: 800.5</title>' "$T/r.html" || fail "b's send-1024 point missing"
# send-1024 (not the primary) differs: it has its own distribution plot.
grep -q '<h3 id="dist-[0-9]*">netsend &#8212; send-1024 ' "$T/r.html" || fail "no plot of send-1024"
# send-4096, the same on both: no plot of its own.
! grep -q '<h3 id="dist-[0-9]*">netsend &#8212; send-4096 ' "$T/r.html" || fail "send-4096 plotted"

t_case "the summary names the rows it counts"
grep -q '1 regressed: send-1024' "$T/r.html" || fail "summary: $(grep -o 'All [0-9]* rows:[^<]*' "$T/r.html")"

t_case "the environment names differing arguments and counters"
grep -q '<b>workload arguments</b> differ between labels' "$T/r.html" || fail "no arguments flag"
grep -q '<code>netsend -d 1</code>' "$T/r.html" || fail "a's words not named"
grep -q '<b>b</b> has task-clock' "$T/r.html" || fail "the counter b alone has is not named"

t_case "a note several metrics share is printed once"
n=$(grep -c 'b: only 2 repetitions' "$T/r.html")
[ "$n" -eq 1 ] || fail "the note is printed $n times"
grep -q 'Notes on every metric' "$T/r.html" || fail "no shared notes list"
pass
