# run pipe: the workload really ping-pongs, counters are read, JSON follows
# the schema of noisefloor(1) (JSON).
. "$(dirname "$0")/lib.sh"

t_case "text summary"
expect_rc 0 "$NF" run -r 3 --warmup 0 -L aa pipe -l 2000
expect_in out "usecs/op"
expect_in out "voluntary-context-switches"
expect_in out "label aa, 3 repetitions"
# No counter unless asked: nothing perturbs the workload, and no note.
expect_not_in out "task-clock"
expect_not_in out "counting perturbs"

t_case "-e counts and says that counting perturbs"
expect_rc 0 "$NF" run -r 2 --warmup 0 -e task-clock,context-switches --json pipe -l 20000
json_check '[m["name"] for m in d["metrics"] if not m["name"].startswith(("cpu.", "sched."))][-2:] == ["task-clock", "context-switches"]'
json_check 'all(m["supported"] and m["n"] == 2 and m["min"] > 0 for m in [x for x in d["metrics"] if not x["name"].startswith(("cpu.", "sched."))][-2:])'
expect_rc 0 "$NF" run -r 2 --warmup 0 -e task-clock,context-switches pipe -l 20000
expect_in out "msec task-clock"
expect_in out "  context-switches"
expect_in out "Counted with -e task-clock,context-switches: counting perturbs the"
# "default" names the four software events.
expect_rc 0 "$NF" run -r 1 --warmup 0 -e default --json pipe -l 1000
json_check '[m["name"] for m in d["metrics"] if not m["name"].startswith(("cpu.", "sched."))][-4:] == ["task-clock", "context-switches", "cpu-migrations", "page-faults"]'

t_case "pinned, the documented JSON"
expect_rc 0 "$NF" run -r 4 --warmup 1 -L pinned --pin 0 -e default --json pipe -l 3000
json_check 'd["label"] == "pinned" and d["workload"] == "pipe" and d["args"] == ["-l", "3000"]'
json_check 'd["repeat"] == 4 and d["warmup"] == 1 and d["started"].endswith("Z")'
json_check '[m["name"] for m in d["metrics"] if not m["name"].startswith(("cpu.", "sched."))][:2] == ["usecs/op", "ops/sec"]'
json_check 'all(m["n"] == 4 and len(m["values"]) == 4 for m in d["metrics"] if m["supported"])'
json_check 'next(m for m in d["metrics"] if m["name"] == "usecs/op")["primary"] is True'
json_check 'next(m for m in d["metrics"] if m["name"] == "ops/sec")["better"] == "higher"'
# Each loop is two context switches when pinned to one CPU.
json_check 'all(m["mean"] >= 1.9 * 3000 for m in d["metrics"] if m["name"] == "context-switches")'
# So does the rusage of the workload's child, which reaps its peer.
json_check 'all(v + i >= 1.9 * 3000 for v, i in zip(*[m["values"] for m in d["metrics"] if m["name"].endswith("voluntary-context-switches")]))'
# usecs/op and ops/sec describe the same repetitions.
json_check 'all(abs(u * o / 1e6 - 1) < 1e-9 for u, o in zip(d["metrics"][0]["values"], d["metrics"][1]["values"]))'
# Pinned: no migrations counted.
json_check 'next(m for m in d["metrics"] if m["name"] == "cpu-migrations")["mean"] == 0'
for k in n mean stddev cv_pct sem_pct min max median unit better primary supported values; do
    json_check "all('$k' in m for m in d['metrics'])"
done

t_case "threads"
# Threads.
expect_rc 0 "$NF" run -r 2 --warmup 0 --json pipe -l 1000 -T
json_check 'd["args"] == ["-l", "1000", "-T"]'

t_case "an unsupported counter is <not supported>"
# A counter the machine may lack is <not supported>, never 0.
expect_rc 0 "$NF" run -r 2 --warmup 0 -e task-clock,cycles --json pipe -l 1000
json_check 'all((m["supported"] and m["n"] == 2) or (not m["supported"] and m["values"] == [] and m["mean"] is None) for m in d["metrics"])'
pass
