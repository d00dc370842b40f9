# What the machine did during each repetition (run --no-sysstat, doc/
# noisefloor-run.1): a pinned pipe run of 20 repetitions with a CPU hog on
# the same CPU during 3 of them, chosen at random here, and a loopback UDP
# flood during one other.  The command that is each repetition counts
# itself in a file and resumes the hog (stopped otherwise) for the chosen
# ones, so the disturbance is exactly where the test put it.  The stored
# values are checked first, then what the diagnosis names.  Plus the
# readings on both backends through export, import, export, and
# <not supported> where /proc cannot be read.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

command -v perf >/dev/null 2>&1 && perf bench sched pipe -l 10 >/dev/null 2>&1 ||
    skip "no perf bench sched pipe here"
command -v taskset >/dev/null 2>&1 || skip "no taskset"
[ "$(nproc)" -ge 2 ] || skip "one CPU: the hog would share it with the store too"
CPU=$(($(nproc) - 1))

# Three repetitions for the hog among 3..20, one other for the flood.
set -- $(python3 -c 'import random; r = random.sample(range(3, 21), 4); print(*r)')
HOG="$1 $2 $3" FLOOD=$4
echo "hog during repetitions $HOG, UDP flood during $FLOOD" >&2
echo 0 >count
echo "$HOG" >hog
echo "$FLOOD" >flood
cat >flood.py <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.bind(("127.0.0.1", 0))
r.setblocking(False)
addr = r.getsockname()
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    for _ in range(200):
        s.sendto(b"x" * 64, addr)
        try:
            r.recv(64)
        except BlockingIOError:
            pass
EOF
cat >rep.sh <<'EOF'
n=$(($(cat count) + 1))
echo $n >count
case " $(cat hog) " in *" $n "*) kill -CONT $(cat hogpid) ;; esac
case " $(cat flood) " in *" $n "*) python3 flood.py 0.3 ;; esac
perf bench sched pipe -l 5000 >/dev/null
kill -STOP $(cat hogpid)
EOF
# Four spinning tasks, so that they hold the CPU against whatever else
# this machine runs there.
: >hogpid
for i in 1 2 3 4; do
    taskset -c "$CPU" sh -c 'while :; do :; done' &
    echo $! >>hogpid
done
kill -STOP $(cat hogpid)
trap 'kill -KILL $(cat "$T/hogpid") 2>/dev/null; _nf_exit' EXIT

t_case "a pinned pipe run, disturbed at known repetitions"
expect_rc 0 "$NF" run -r 20 --warmup 0 --pin "$CPU" -L hog --json -- sh rep.sh
cp "$T/out" run.json
[ "$(cat count)" = 20 ] || fail "the command ran $(cat count) times, not 20"

t_case "the stored readings: the hog's time and the flood's NET_RX where they were"
python3 - run.json "$HOG" "$FLOOD" >check.out 2>&1 <<'EOF' || fail "$(cat check.out)"
import json, statistics, sys
d = json.load(open(sys.argv[1]))
hog = [int(x) for x in sys.argv[2].split()]
flood = int(sys.argv[3])
m = {x["name"]: x for x in d["metrics"]}
for name in ["cpu.irq", "cpu.other-busy", "cpu.softirq.NET_RX", "sched.run-delay",
             "sched.migrations", "cpu.steal"]:
    assert m[name]["supported"] and len(m[name]["values"]) == 20, name
    assert m[name]["unit"] == ("count" if name in ("cpu.irq", "cpu.softirq.NET_RX", "sched.migrations") else "ms"), name
busy = m["cpu.other-busy"]["values"]
clean = [busy[i] for i in range(20) if i + 1 not in hog and i + 1 != flood]
# the hog had the CPU for a share of each of its repetitions, beside
# whatever else this machine runs there
print("other-busy", busy, file=sys.stderr)
for r in hog:
    assert busy[r - 1] > statistics.median(clean) + 100 and busy[r - 1] > 1.5 * statistics.median(clean), ("other-busy", r, busy[r - 1], statistics.median(clean))
rx = m["cpu.softirq.NET_RX"]["values"]
cl = [rx[i] for i in range(20) if i + 1 != flood]
assert rx[flood - 1] > 1000 and rx[flood - 1] > 10 * (statistics.median(cl) + 10), ("NET_RX", rx[flood - 1], statistics.median(cl))
# a pinned command moves at most once, to its CPU, before its exec, in
# the typical repetition: its task's counts, not another's.  Not in every
# one: before it is pinned a busy machine's balancer may move the new
# child once more (2 in one repetition of 20, seen beside other builds)
mig = m["sched.migrations"]["values"]
assert statistics.median(mig) <= 1 and sum(v > 1 for v in mig) <= 3, mig
# the busiest sources of the CPU, each a metric: their counts are part of
# the CPU's interrupts, repetition by repetition
src = [n for n in m if n.startswith("cpu.irq.")]
assert 1 <= len(src) <= 3, src
irq = m["cpu.irq"]["values"]
for i in range(20):
    parts = [m[n]["values"][i] for n in src]
    assert all(p >= 0 for p in parts) and sum(parts) <= irq[i], (i, parts, irq[i])
assert sum(sum(m[n]["values"]) for n in src) > 0, "no interrupt from the busiest sources"
EOF

t_case "the diagnosis names the hog and the flood, and nothing for a clean repetition"
expect_rc 0 "$NF" show 1
expect_in out 'cpu\.other-busy'
expect_in out 'note +interrupts on CPU '
# run --json carries the diagnosis of the primary metric
python3 - run.json "$HOG" "$FLOOD" >diag.out 2>&1 <<'EOF' || fail "$(cat diag.out)"
import json, re, sys
d = json.load(open(sys.argv[1]))
hog = [int(x) for x in sys.argv[2].split()]
flood = int(sys.argv[3])
acts = [f["activity"] for f in d.get("diagnosis", []) if "activity" in f]
lines = [l for a in acts for l in a.split("\n")]
named = {}
for l in lines:
    g = re.match(r"repetition (\d+) \(", l)
    if g:
        named[int(g.group(1))] = l
print("\n".join(lines))
hits = [r for r in hog if r in named and ("other tasks ran" in named[r] or "run delay" in named[r])]
assert len(hits) >= 2, ("hog repetitions named", hits, "of", hog)
assert flood in named and "NET_RX softirqs" in named[flood], ("flood", flood, named.get(flood))
# A repetition the test left alone may still have been disturbed by the
# rest of this machine: what is named for it must then be what its stored
# readings say, well above the others' median, never an invention.
m = {x["name"]: x["values"] for x in d["metrics"]}
pats = [(r"other tasks ran ([0-9.e+]+) ms", lambda g: "cpu.other-busy"),
        (r"run delay ([0-9.e+]+) ms", lambda g: "sched.run-delay"),
        (r"([0-9]+) interrupts", lambda g: "cpu.irq"),
        (r"([0-9]+) ([A-Z_]+) softirqs", lambda g: "cpu.softirq." + g.group(2)),
        (r"([0-9.e+]+) ms in softirqs", lambda g: "cpu.softirq-time"),
        (r"([0-9.e+]+) ms in interrupts", lambda g: "cpu.irq-time")]
left = [i for i in range(20) if i + 1 not in hog and i + 1 != flood]
for r, l in named.items():
    if r in hog or r == flood or "no reading of the machine stands out" in l:
        continue
    body = l.split(":", 1)[1].split("; ")
    for part in body:
        for pat, name in pats:
            g = re.match(r"\s*" + pat, part)
            if g:
                v = m[name(g)][r - 1]
                med = sorted(m[name(g)][i] for i in left)[len(left) // 2]
                assert abs(v - float(g.group(1))) <= 0.01 * v + 0.5, ("named value is not stored", l, v)
                assert v > 1.5 * med, ("clean repetition named beyond its readings", l, v, med)
                print("repetition %d, left alone, was disturbed by this machine: %s" % (r, l), file=sys.stderr)
EOF
cat diag.out >&2

t_case "compare leaves the readings out unless -m names one"
expect_rc 0 "$NF" run -r 3 --warmup 0 --pin "$CPU" -L quiet -- perf bench sched pipe -l 2000
expect_rc 0 "$NF" compare hog quiet
# No row of a reading (a row starts with its metric's name); the
# diagnosis may still name one as what coincides with the outliers.
expect_not_in out '^ *cpu\.irq'
expect_in out 'wall'
expect_rc 0 "$NF" compare -m cpu.irq hog quiet
expect_in out 'cpu\.irq'

t_case "the HTML report: the readings beside each repetition, the coincidences"
expect_rc 0 "$NF" report --html "$T/r.html" hog quiet
grep -q '<section id="activity">' r.html || fail "no activity section in the report"
grep -q '<th>cpu.other-busy</th>' r.html || fail "no other tasks' time in the report"
[ "$(grep -c '^<tr><td>1</td><td>[0-9]*</td>' r.html)" -eq 20 ] || fail "not 20 repetitions of run 1 in the report"
grep -q '<i>coinciding:</i> ' r.html || fail "no coinciding activity in the report"

t_case "--no-sysstat: no readings"
expect_rc 0 "$NF" run -r 2 --warmup 0 --no-sysstat --json pipe -l 1000
json_check 'not any(m["name"].startswith(("cpu.", "sched.")) for m in d["metrics"])'
json_check 'd["note"] is None'

t_case "unreadable /proc: <not supported>, never 0"
mkdir -p fake
expect_rc 0 "$NF" run -r 2 --warmup 0 --root "$T/fake" --json pipe -l 1000
json_check 'all(not m["supported"] and m["values"] == [] for m in d["metrics"] if m["name"].startswith(("cpu.", "sched.")))'
json_check 'sum(m["name"].startswith(("cpu.", "sched.")) for m in d["metrics"]) == 17'
expect_rc 0 "$NF" show 4
expect_in out 'not supported.*cpu\.irq|cpu\.irq.*not supported'

t_case "unpinned, the interrupts from /proc/stat: the architecture's as one source"
# /proc/stat's intr line has each IRQ number's count over every CPU and
# only the sum of the architecture's own (LOC, RES, ...): unpinned, those
# are the one source "arch", never by name; pinned, by name (run 1 has no
# arch).
expect_rc 0 "$NF" run -r 5 --warmup 0 --json -- sleep 0.02
python3 - "$T/out" run.json >unpinned.out 2>&1 <<'EOF' || fail "$(cat unpinned.out)"
import json, sys
d = json.load(open(sys.argv[1]))
m = {x["name"]: x for x in d["metrics"]}
irq = m["cpu.irq"]["values"]
assert m["cpu.irq"]["supported"] and len(irq) == 5 and all(v > 0 for v in irq), irq
src = [n for n in m if n.startswith("cpu.irq.")]
assert 1 <= len(src) <= 3, src
arch = {"NMI", "LOC", "SPU", "PMI", "IWI", "RTR", "RES", "CAL", "TLB", "TRM", "THR", "DFR",
        "MCE", "MCP", "HYP", "HRE", "HVS", "ERR", "MIS", "PIN", "NPI", "PIW", "IPI0", "IPI1"}
for n in src:
    assert n[len("cpu.irq."):] not in arch, ("an architecture's row by name, unpinned", n)
for i in range(5):
    parts = [m[n]["values"][i] for n in src]
    assert all(p >= 0 for p in parts) and sum(parts) <= irq[i], (i, parts, irq[i])
pinned = [x["name"] for x in json.load(open(sys.argv[2]))["metrics"]]
assert "cpu.irq.arch" not in pinned, pinned
EOF

t_case "a --metric may not take a machine metric's name"
expect_rc 2 "$NF" run -r 1 --metric cpu.irq='(\d+)' -- true
expect_one_line_err

t_case "export, import, export: the readings unchanged"
expect_rc 0 "$NF" export --format json
cp "$T/out" export1.json
expect_rc 0 "$NF" --db "$T/fresh.db" import export1.json --format json
expect_rc 0 "$NF" --db "$T/fresh.db" export --format json
cmp -s "$T/out" export1.json || fail "export → import → export differs: $(diff "$T/out" export1.json | head -5)"
json_check 'any(m["name"] == "cpu.softirq.NET_RX" and len(m["values"]) == 20 for m in d["runs"][0]["metrics"])'

pass
