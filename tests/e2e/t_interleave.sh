# run --interleave: each repetition is an uncounted run and then a counted
# one; the counters come from the counted runs, every other metric from the
# uncounted ones, one value each per repetition.  The commands below count
# their own invocations in a file, so which half gave which value is
# checked deterministically, never by timing.
. "$(dirname "$0")/lib.sh"

# Invocation N (from 0) prints n=N; the odd ones (the counted halves) also
# burn CPU time: 300 ms, and at least 20 times what the shell had used
# until then (tests/helpers/burn.c), so that on any machine a counted half
# takes 20 times the CPU time of an uncounted one.
cp "$ROOT/build/tests/burn" burn || fail "no build/tests/burn: make build/tests/burn"
cat >count.sh <<'EOF'
n=$(cat F)
echo $((n + 1)) >F
[ $((n % 2)) -eq 0 ] || ./burn -x 20 300
echo "n=$n"
EOF

t_case "a built-in workload: one value of every metric per repetition"
expect_rc 0 "$NF" run -r 3 --warmup 0 -e task-clock,context-switches --interleave --json pipe -l 2000
json_check 'd["env"]["counters"] == "interleaved" and d["repeat"] == 3'
json_check 'len(next(m for m in d["metrics"] if m["name"] == "usecs/op")["values"]) == 3'
json_check 'all(m["n"] == 3 and len(m["values"]) == 3 for m in d["metrics"] if m["supported"])'
json_check 'all(m["supported"] and m["min"] > 0 for m in [x for x in d["metrics"] if not x["name"].startswith(("cpu.", "sched."))][-2:])'
json_check '[m["name"] for m in d["metrics"] if not m["name"].startswith(("cpu.", "sched."))][-2:] == ["task-clock", "context-switches"]'
# The pipe ping-pongs 2000 times: two context switches a loop, counted.
json_check 'all(v >= 1.9 * 2000 for v in [x for x in d["metrics"] if not x["name"].startswith(("cpu.", "sched."))][-1]["values"])'
# And a stored run that is what export and compare see.
expect_rc 0 "$NF" export --format json
json_check 'all(m["n"] == 3 for m in d["runs"][0]["metrics"] if m["supported"])'

t_case "the summary says where the metrics came from"
expect_rc 0 "$NF" run -r 2 --warmup 0 -L il -e task-clock --interleave pipe -l 1000
expect_in out "Counted with -e task-clock on interleaved runs:"
expect_in out "the counted runs and every other metric from the uncounted ones, so the"
expect_in out "timings are not perturbed by counting"
expect_not_in out "counting perturbs the workload"
id=$(sed -n 's/.*, run \([0-9]*\)).*/\1/p' "$T/out")
expect_rc 0 "$NF" show "$id"
expect_in out "counters +interleaved"
expect_in out "Counted on interleaved runs:"
# Without --interleave: today's note, no mode in the environment.
expect_rc 0 "$NF" run -r 2 --warmup 0 -e task-clock pipe -l 1000
expect_in out "counting perturbs the workload"
expect_not_in out "interleaved"
expect_rc 0 "$NF" run -r 1 --warmup 0 -e task-clock --json pipe -l 1000
json_check '"counters" not in d["env"]'

t_case "a command runs twice per repetition, warm-up included"
expect_rc 0 "$NF" run -r 3 --warmup 1 -e task-clock --interleave -- sh -c 'echo x >>runs'
[ "$(wc -l <runs)" -eq 8 ] || fail "--interleave ran it $(wc -l <runs) times, not 2 x (3 + 1)"
rm -f runs
expect_rc 0 "$NF" run -r 3 --warmup 1 -e task-clock -- sh -c 'echo x >>runs'
[ "$(wc -l <runs)" -eq 4 ] || fail "without --interleave it ran $(wc -l <runs) times, not 3 + 1"

t_case "captures and rusage from the uncounted half, counters from the counted"
echo 0 >F
expect_rc 0 "$NF" run -r 3 --warmup 0 -e task-clock --interleave --metric 'n=n=([0-9]+)' --json -- sh count.sh
# Invocations 0, 2, 4 were uncounted; 1, 3, 5 counted (and burned CPU).
json_check 'next(m for m in d["metrics"] if m["name"] == "n")["values"] == [0, 2, 4]'
[ "$(cat F)" -eq 6 ] || fail "the command ran $(cat F) times, not 6"
json_check 'len(next(m for m in d["metrics"] if m["name"] == "wall")["values"]) == 3'
# task-clock (msec) counted the burning halves, at least their 300 ms;
# user+sys (s) are the idle ones', a twentieth of that or less.
json_check 'all(t > 300 and t > 5 * 1000 * (u + s) for t, u, s in zip(*[next(m for m in d["metrics"] if m["name"] == k)["values"] for k in ("task-clock", "user", "sys")]))'
# A warm-up is a pair too: the first recorded repetition is invocation 2.
echo 0 >F
expect_rc 0 "$NF" run -r 2 --warmup 1 -e task-clock --interleave --metric 'n=n=([0-9]+)' --json -- sh count.sh
json_check 'next(m for m in d["metrics"] if m["name"] == "n")["values"] == [2, 4]'
# Without --interleave every invocation is recorded, counters and all.
echo 0 >F
expect_rc 0 "$NF" run -r 3 --warmup 0 -e task-clock --metric 'n=n=([0-9]+)' --json -- sh count.sh
json_check 'next(m for m in d["metrics"] if m["name"] == "n")["values"] == [0, 1, 2]'

t_case "a failure of either half fails the repetition"
# The counted half (invocation 1) fails: nothing is recorded.
echo 0 >F
expect_rc 1 "$NF" run -r 2 --warmup 0 -L odd -e task-clock --interleave --json -- \
    sh -c 'n=$(cat F); echo $((n + 1)) >F; [ $((n % 2)) -eq 0 ]'
expect_in err "exited with status 1"
[ "$(cat F)" -eq 2 ] || fail "ran $(cat F) times before failing, not 2"
expect_rc 0 "$NF" export --format json -L odd
json_check 'd["runs"][0]["status"] == "failed" and all(m["n"] == 0 for m in d["runs"][0]["metrics"])'
# The uncounted half (invocation 0) fails: the counted one never runs.
echo 0 >F
expect_rc 1 "$NF" run -r 2 --warmup 0 -e task-clock --interleave -- \
    sh -c 'n=$(cat F); echo $((n + 1)) >F; [ $((n % 2)) -eq 1 ]'
[ "$(cat F)" -eq 1 ] || fail "ran $(cat F) times, not 1"

t_case "--interleave without -e is a usage error"
expect_rc 0 "$NF" export --format json
before=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"]))' "$T/out")
expect_rc 2 "$NF" run --interleave pipe -l 1000
expect_one_line_err
expect_in err "--interleave needs -e"
expect_rc 2 "$NF" run --interleave -- true
expect_one_line_err
expect_in err "--interleave needs -e"
expect_rc 2 "$NF" ab a='--interleave pipe -l 100' b='pipe -l 100'
expect_one_line_err
expect_in err "variant 'a': --interleave needs -e"
# Nothing was stored.
expect_rc 0 "$NF" export --format json
json_check "len(d['runs']) == $before"

t_case "an unsupported counter is still <not supported>, never 0"
expect_rc 0 "$NF" run -r 3 --warmup 0 -e cycles,task-clock --interleave --json pipe -l 1000
json_check 'all((m["supported"] and m["n"] == 3 and m["min"] > 0) or (not m["supported"] and m["values"] == [] and m["mean"] is None) for m in d["metrics"] if m["name"] in ("cycles", "task-clock"))'
if ! grep -q '"hardware_pmu": *true' "$T/out"; then
    json_check 'not next(m for m in d["metrics"] if m["name"] == "cycles")["supported"]'
fi
json_check 'next(m for m in d["metrics"] if m["name"] == "task-clock")["n"] == 3'

t_case "ab: each variant as its spec says"
expect_rc 0 "$NF" ab --rounds 2:2 --seed 1 --json i='-e task-clock --interleave pipe -l 500' \
    p='-e task-clock pipe -l 500'
expect_rc 0 "$NF" export --format json -L i -L p
json_check 'sorted(r["label"] for r in d["runs"]) == ["i", "p"]'
json_check 'all((r["env"].get("counters") == "interleaved") == (r["label"] == "i") for r in d["runs"])'
json_check 'all(m["n"] == 2 for r in d["runs"] for m in r["metrics"] if m["supported"])'

pass
