# profile and profdiff: a helper compiled here spends its time in burn_cpu
# and other_work; the profile says so, is stored with a normal run, and a
# variant that burns twice as long shows burn_cpu's overhead grown, outside
# the noise of the repetitions (a CI per row, a star).  Kernel
# symbols of the pipe workload when kallsyms is readable.  Bad input: one
# line, exit 2, nothing stored.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

# burn A B (tests/helpers/burn.c): A ms of CPU time in burn_cpu, then B in
# other_work.  Sized by CPU time, which the sampling clock counts too: the
# shares are A : B on any machine, loaded or throttled.  `burn 60 60` is
# about 480 samples a repetition at 4000 Hz, with which the shares come
# within a point or two of 1/2 and 2/3, far inside the bounds below.
cp "$ROOT/build/tests/burn" burn || fail "no build/tests/burn: make build/tests/burn"

t_case "sampling is permitted here"
# A perf_event_paranoid that forbids sampling: say so plainly and skip.
if ! "$NF" profile -r 1 --warmup 0 -L probe -- true >"$T/out" 2>"$T/err"; then
    if grep -q "perf_event" "$T/err"; then
        skip "$(head -1 "$T/err")"
    fi
    fail "profile of 'true' failed: $(head -c 400 "$T/err")"
fi

t_case "1:1: burn_cpu about half, stored as a run"
# 1:1 → burn_cpu about half; stored as a run of its own.
expect_rc 0 "$NF" profile -r 2 --warmup 0 -L base --json -- ./burn 60 60
json_check 'd["label"] == "base" and d["repetitions"] == 2 and d["event"] in ("cpu-clock", "cycles")'
json_check 'd["samples"] > 100 and d["lost"] == 0'
json_check 'd["run"]["id"] == d["run_id"] and d["run"]["repeat"] == 2'
json_check 'len(next(m for m in d["run"]["metrics"] if m["name"] == "wall")["values"]) == 2'
json_check '35 < next(s for s in d["symbols"] if s["symbol"] == "burn_cpu")["overhead_pct"] < 65'
json_check 'next(s for s in d["symbols"] if s["symbol"] == "burn_cpu")["dso"].endswith("/burn")'
json_check 'd["symbols"][0]["symbol"] in ("burn_cpu", "other_work")'
json_check 'abs(sum(s["overhead_pct"] for s in d["symbols"]) - 100) < 0.01 or len(d["symbols"]) == 20'

t_case "2:1: text output as perf report"
# 2:1 → burn_cpu about two thirds; text output as perf report prints it.
expect_rc 0 "$NF" profile -r 2 --warmup 0 -L more --top 3 -- ./burn 120 60
expect_in out "^# run [0-9]+, label 'more', command \./burn 120 60: 2 repetitions profiled"
expect_in out "^# event (cpu-clock|cycles) at 4000 Hz: [0-9]+ samples, 0 lost"
expect_in out "^ +[0-9.]+% +[0-9]+  burn_cpu  \[burn\]$"
[ "$(grep -vc '^#' "$T/out")" -eq 3 ] || fail "--top 3 printed $(grep -vc '^#' "$T/out") rows"

t_case "profdiff: burn_cpu grew"
# profdiff: burn_cpu grew by about 17 points, other_work shrank.
expect_rc 0 "$NF" profdiff --json base more
json_check 'd["baseline"]["label"] == "base" and d["other"]["runs"] == 1'
json_check 'next(r for r in d["rows"] if r["symbol"] == "burn_cpu")["delta_pct"] > 8'
json_check 'next(r for r in d["rows"] if r["symbol"] == "other_work")["delta_pct"] < -8'
json_check 'd["rows"][0]["baseline_pct"] >= d["rows"][1]["baseline_pct"]'
# --min 5 keeps the rows with 5% or more on either side (mean shares), as
# many as the JSON has: the two hot symbols, and whatever else the exec
# took 5% of on this machine (its kernel time is not sized by the burn).
cp "$T/out" "$T/all.json"
nmin=$(/usr/bin/python3 -c 'import json, sys
print(sum(max(r["mean_baseline_pct"], r["mean_other_pct"]) >= 5 for r in json.load(open(sys.argv[1]))["rows"]))' "$T/all.json")
expect_rc 0 "$NF" profdiff --min 5 base more
expect_in out "^# Baseline: 'base': 1 run, 2 repetitions, [0-9]+ samples"
# (two repetitions a side: a CI, but a wide one; the stars are the next case's)
expect_in out "^ +[0-9.]+% +[*(]\+[0-9.]+%[*)] +\[[-+][0-9.]+, \+[0-9.]+\] +[0-9.e+-]+ +burn_cpu  \[burn\]$"
expect_in out "^ +[0-9.]+% +[*(]-[0-9.]+%[*)] +\[-[0-9.]+, [-+][0-9.]+\] +[0-9.e+-]+ +other_work  \[burn\]$"
expect_in out "^# after Holm's correction over the $nmin symbols shown \([0-9]+ starred\)"
[ "$(grep -vc '^#' "$T/out")" -eq "$nmin" ] || fail "--min 5 left $(grep -vc '^#' "$T/out") rows, not the $nmin with 5% on a side"

t_case "profdiff: each delta with its CI, starred outside the noise"
# Five repetitions a side: every row has a CI; burn_cpu's growth is outside
# the noise (CPU time fixed, not wall time: the shares hold under load).
expect_rc 0 "$NF" profile -r 5 --warmup 0 -L base5 -- ./burn 40 40
expect_rc 0 "$NF" profile -r 5 --warmup 0 -L more5 -- ./burn 80 40
expect_rc 0 "$NF" profdiff --json base5 more5
json_check 'd["baseline"]["repetitions"] == 5 and d["other"]["repetitions"] == 5 and d["alpha"] == 0.05'
json_check 'all(r["ci_low_pct"] is not None and r["ci_low_pct"] <= r["mean_delta_pct"] <= r["ci_high_pct"] for r in d["rows"])'
json_check 'next(r for r in d["rows"] if r["symbol"] == "burn_cpu")["outside_noise"] and next(r for r in d["rows"] if r["symbol"] == "burn_cpu")["ci_low_pct"] > 5'
json_check 'all(r["outside_noise"] == (r["p_adjusted"] < 0.05 and (r["ci_low_pct"] > 0 or r["ci_high_pct"] < 0)) for r in d["rows"])'
json_check 'all(r["p_adjusted"] >= r["p_value"] for r in d["rows"])'
expect_rc 0 "$NF" profdiff base5 more5
expect_in out "^ +[0-9.]+% +\*\+[0-9.]+%\* +\[\+[0-9.]+, \+[0-9.]+\] +[0-9.e+-]+ +burn_cpu  \[burn\]$"
# rows inside the noise are in parentheses, never starred
! grep -v '^#' "$T/out" | grep -Ev '^ +[0-9.]*%? +(\*[-+][0-9.]+%\*|\([-+][0-9.]+%\)) +\[[-+][0-9.]+, [-+][0-9.]+\] ' >/dev/null ||
    fail "a row without a CI or a marked delta: $(grep -v '^#' "$T/out" | head -3)"

t_case "profdiff: pinned vs unpinned pipe, five repetitions each"
expect_rc 0 "$NF" profile -r 5 -L pinned --pin 0 pipe -l 20000
expect_rc 0 "$NF" profile -r 5 -L unpinned pipe -l 20000
expect_rc 0 "$NF" profdiff --json pinned unpinned
json_check 'len(d["rows"]) > 0 and all(r["ci_low_pct"] is not None and r["ci_high_pct"] is not None for r in d["rows"])'
json_check 'all(r["outside_noise"] == (r["p_adjusted"] < 0.05 and (r["ci_low_pct"] > 0 or r["ci_high_pct"] < 0)) for r in d["rows"])'
cp "$T/out" "$T/pp.json"
expect_rc 0 "$NF" profdiff pinned unpinned
# the star is the Holm p's, shown beside the raw CI, under its name
expect_in out "^# +Baseline +Delta +raw CI of delta +Holm p +Symbol"
/usr/bin/python3 - "$T/out" "$T/pp.json" <<'PY' || fail "a Holm p column that is not the JSON's p_adjusted"
import json, sys
rows = [l for l in open(sys.argv[1]) if not l.startswith("#")]
want = [r["p_adjusted"] for r in json.load(open(sys.argv[2]))["rows"]]
got = [float(l.split("]")[1].split()[0]) for l in rows]
# printed with two significant digits (%.2g): within 5% of the JSON's
sys.exit(0 if len(got) == len(want) and all(abs(g - w) <= 0.05 * w + 1e-12 for g, w in zip(got, want)) else 1)
PY
stars=$(grep -v '^#' "$T/out" | grep -c '\*[-+][0-9.]*%\*')
want=$(/usr/bin/python3 -c 'import json,sys; print(sum(r["outside_noise"] for r in json.load(open(sys.argv[1]))["rows"]))' "$T/pp.json")
[ "$stars" -eq "$want" ] || fail "$stars rows starred, $want outside the noise"
expect_in out "^# after Holm's correction over the [0-9]+ symbols shown \($want starred\)"

t_case "a profile is a normal run"
# A profile is a normal run too: listed, compared, exported.
expect_rc 0 "$NF" list --label more
expect_in out "more"
expect_rc 0 "$NF" compare -m wall base more
expect_in out "Verdict"

t_case "labels summed"
# Labels summed: a second run of base.
expect_rc 0 "$NF" profile -r 1 --warmup 0 -L base --json -- ./burn 60 60
expect_rc 0 "$NF" profdiff --json base more
json_check 'd["baseline"]["runs"] == 2'

t_case "profdiff: ordered, --min and --top by the shares shown"
# ord_a: one long repetition with burn_cpu 92% and three with 20%.  Summed,
# burn_cpu has the larger share (186 ms of 348); over the repetitions,
# the mean that the columns show, other_work has (62% to 38%).  ord_b:
# burn_cpu 25%.  The rows, --min and --top go by the mean.
expect_rc 0 "$NF" profile -r 1 --warmup 0 -L ord_a -- ./burn 150 12
expect_rc 0 "$NF" profile -r 3 --warmup 0 -L ord_a -- ./burn 12 50
expect_rc 0 "$NF" profile -r 2 --warmup 0 -L ord_b -- ./burn 25 75
expect_rc 0 "$NF" profdiff --json ord_a ord_b
json_check '[r["symbol"] for r in d["rows"][:2]] == ["other_work", "burn_cpu"]'
json_check 'd["sorted_by"] == "mean_baseline_pct" and d["baseline"]["repetitions"] == 4'
json_check 'd["rows"][1]["baseline_pct"] > d["rows"][0]["baseline_pct"]'
json_check 'd["rows"][0]["mean_baseline_pct"] > 50 > d["rows"][1]["mean_baseline_pct"]'
expect_rc 0 "$NF" profdiff --min 50 ord_a ord_b
expect_in out "  other_work  \[burn\]$"
expect_not_in out "burn_cpu"
expect_rc 0 "$NF" profdiff --top 1 ord_a ord_b
expect_in out "^ +[0-9.]+% .*  other_work  \[burn\]$"
expect_not_in out "burn_cpu"
expect_in out "over the 1 symbol shown"

t_case "kernel symbols of pipe"
# Kernel symbols of the pipe workload, when this user may read kallsyms.
# cpu-clock samples the workload's own CPU time, some 0.06 s for 20000
# round trips: at the default 4000 Hz that is 250 samples, of which
# pipe_read and pipe_write together got 2 to 14, a count that is now and
# then 0.  At 20000 Hz (less if the kernel has lowered its ceiling) they
# get 19 to 44 of some 1500, with or without a load beside, in the same
# running time.
# The round trips are at least as many as take that 0.06 s of CPU time on
# this machine (from the rusage of a run of 20000 first): a count fixed
# for one machine's speed gave a machine 8 times faster some 30 samples.
hz=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null) || hz=4000
[ "$hz" -le 20000 ] || hz=20000
expect_rc 0 "$NF" run -r 1 --warmup 0 -L pipetime --json pipe -l 20000
loops=$(case_failed || /usr/bin/python3 -c 'import json, sys
m = {m["name"]: m["values"][0] for m in json.load(open(sys.argv[1]))["metrics"] if m["values"]}
print(min(2000000, max(20000, int(0.06 / ((m["user"] + m["sys"]) / 20000)))))' "$T/out") ||
    fail "no user and sys from pipe -l 20000"
case_failed || expect_rc 0 "$NF" profile -r 1 --warmup 0 -F "$hz" -L pipe --top 0 pipe -l "$loops"
if grep -q "kernel samples are not permitted" "$T/err"; then
    :   # perf_event_paranoid allows user space only
elif awk 'NR == 1 { exit ($1 ~ /^0+$/) }' /proc/kallsyms 2>/dev/null; then
    expect_in out "pipe_(read|write)  \[kernel\.kallsyms\]"
    expect_in out "(schedule|finish_task_switch|switch_to)[^ ]*  \[kernel\.kallsyms\]"
else
    expect_in out "\[kernel\]  \[kernel\.kallsyms\]"
fi
expect_in out "  \[(noisefloor|libc[^]]*)\]$"

t_case "bad input: one line, exit 2, nothing stored"
# Bad input: one line, exit 2, nothing stored.
runs_before=$("$NF" list | wc -l)
expect_rc 2 "$NF" profile -F 0 -- ./burn 2 2
expect_one_line_err; expect_in err "-F wants a sampling frequency"
expect_rc 2 "$NF" profile --top -1 pipe
expect_one_line_err; expect_in err "--top"
expect_rc 2 "$NF" profile nosuchworkload
expect_one_line_err; expect_in err "unknown workload"
expect_rc 2 "$NF" profdiff base
expect_one_line_err; expect_in err "two labels"
expect_rc 2 "$NF" profdiff base nosuch
expect_one_line_err; expect_in err "no runs with label 'nosuch'"
expect_rc 0 "$NF" run -r 1 --warmup 0 -L plain -- true
runs_before=$((runs_before + 1))
expect_rc 2 "$NF" profdiff plain base
expect_one_line_err; expect_in err "label 'plain' has 1 run but no profile"
expect_rc 2 "$NF" profdiff --min x base more
expect_one_line_err
# A profile without a sample: `true` at 10 Hz.
expect_rc 0 "$NF" profile -r 2 --warmup 0 -F 10 -L empty -- true
runs_before=$((runs_before + 1))
expect_rc 2 "$NF" profdiff empty base
expect_one_line_err; expect_in err "^noisefloor: profdiff: label 'empty' has no samples in its profile"
expect_not_in out "."
expect_rc 2 "$NF" profdiff base empty
expect_one_line_err; expect_in err "label 'empty' has no samples"
[ "$("$NF" list | wc -l)" -eq "$runs_before" ] || fail "a refused command stored something"

t_case "a failing command is stored as failed"
# A command that fails: the run is stored as failed, exit 1, one line.
expect_rc 1 "$NF" profile -r 1 --warmup 0 -L broken -- ./no-such-program
expect_in err "cannot run './no-such-program'"

t_case "rm takes the profile"
# rm takes the profile with the run.
id=$("$NF" list --label more | awk '$1 ~ /^[0-9]+$/ { print $1; exit }')
[ -n "$id" ] || fail "no run id for label more"
expect_rc 0 "$NF" rm "$id"
expect_rc 2 "$NF" profdiff base more
expect_in err "no runs with label 'more'"
pass
