# profile and profdiff: a helper compiled here spends its time in burn_cpu
# and other_work; the profile says so, is stored with a normal run, and a
# variant that burns twice as long shows burn_cpu's overhead grown.  Kernel
# symbols of the pipe workload when kallsyms is readable.  Bad input: one
# line, exit 2, nothing stored.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

cat >burn.c <<'EOF'
/* Work, not time: the shares stay put on a loaded machine. */
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) void burn_cpu(long n)
{
    for (long j = 0; j < n; j++)
        for (int i = 0; i < 1000000; i++) sink += i;
}
__attribute__((noinline)) void other_work(long n)
{
    for (long j = 0; j < n; j++)
        for (int i = 0; i < 1000000; i++) sink ^= i;
}
int main(int argc, char **argv)
{
    burn_cpu(atol(argv[1]));
    other_work(atol(argv[2]));
    return 0;
}
EOF
cc -O1 -o burn burn.c || fail "cannot compile the helper"

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
expect_rc 0 "$NF" profile -r 2 --warmup 0 -L base --json -- ./burn 100 100
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
expect_rc 0 "$NF" profile -r 2 --warmup 0 -L more --top 3 -- ./burn 200 100
expect_in out "^# run [0-9]+, label 'more', command \./burn 200 100: 2 repetitions profiled"
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
expect_rc 0 "$NF" profdiff --min 5 base more
expect_in out "^# Baseline: 'base': 1 run, [0-9]+ samples"
expect_in out "^ +[0-9.]+% +\+[0-9.]+%  burn_cpu  \[burn\]$"
expect_in out "^ +[0-9.]+% +-[0-9.]+%  other_work  \[burn\]$"
[ "$(grep -vc '^#' "$T/out")" -eq 2 ] || fail "--min 5 left more than the two hot symbols"

t_case "a profile is a normal run"
# A profile is a normal run too: listed, compared, exported.
expect_rc 0 "$NF" list --label more
expect_in out "more"
expect_rc 0 "$NF" compare -m wall base more
expect_in out "Verdict"

t_case "labels summed"
# Labels summed: a second run of base.
expect_rc 0 "$NF" profile -r 1 --warmup 0 -L base --json -- ./burn 100 100
expect_rc 0 "$NF" profdiff --json base more
json_check 'd["baseline"]["runs"] == 2'

t_case "kernel symbols of pipe"
# Kernel symbols of the pipe workload, when this user may read kallsyms.
expect_rc 0 "$NF" profile -r 1 --warmup 0 -L pipe --top 0 pipe -l 20000
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
expect_rc 2 "$NF" profile -F 0 -- ./burn 1 1
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
