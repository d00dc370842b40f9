# run messaging: hackbench in each mode, stored as `seconds`; a task that
# dies fails the repetition naming it, and no task is left behind.
. "$(dirname "$0")/lib.sh"

# gone PATTERN: no process whose command line matches, within 5 s.
gone() {
    for _ in $(seq 50); do
        pgrep -f -- "$1" >/dev/null || return 0
        sleep 0.1
    done
    fail "processes left behind: $(pgrep -af -- "$1" | head -3)"
}

t_case "processes over socketpairs, stored as seconds"
expect_rc 0 "$NF" run -r 3 --warmup 1 --json messaging -g 2 -l 10
json_check 'd["workload"] == "messaging" and d["args"] == ["-g", "2", "-l", "10"]'
json_check 'd["metrics"][0]["name"] == "seconds" and d["metrics"][0]["primary"] and d["metrics"][0]["better"] == "lower"'
json_check 'd["metrics"][0]["n"] == 3 and all(v > 0 for v in d["metrics"][0]["values"])'
# 2 groups x 20 senders x 20 receivers x 10 loops of 100 bytes move through
# the kernel: at least one context switch per receiver (the workload's
# rusage includes its tasks', which it reaps).
json_check 'next(m for m in d["metrics"] if m["name"] == "voluntary-context-switches")["min"] >= 40'

t_case "total-seconds includes the setup, seconds does not"
# Both intervals end when the last task is reaped; seconds (hackbench's
# Time:) starts at the start barrier, total-seconds before the groups are
# created.
json_check 'd["metrics"][1]["name"] == "total-seconds" and d["metrics"][1]["unit"] == "seconds" and not d["metrics"][1]["primary"]'
json_check 'all(0 < s < t for s, t in zip(d["metrics"][0]["values"], d["metrics"][1]["values"]))'
json_check 'not any(m["name"] == "transfer-seconds" for m in d["metrics"])'

t_case "pipes, threads, both"
for mode in "-p" "-t" "-p -t"; do
    # shellcheck disable=SC2086
    expect_rc 0 "$NF" run -r 2 --warmup 0 --json messaging -g 2 -f 5 -l 10 $mode
    json_check 'd["metrics"][0]["name"] == "seconds" and d["metrics"][0]["n"] == 2'
done
t_case "-s 4000, text output"
expect_rc 0 "$NF" run -r 2 --warmup 0 messaging -g 1 -f 3 -l 5 -s 4000
expect_in out "seconds"

t_case "bad options"
expect_rc 2 "$NF" run messaging -g 0
expect_one_line_err; expect_in err "messaging: -g wants a group count"
expect_rc 2 "$NF" run messaging -z
expect_one_line_err

t_case "a killed task fails the repetition, named"
# A task killed in mid-run: the repetition fails and names it; the other
# tasks go too.
"$NF" run -r 1 --warmup 0 --timeout 60 messaging -g 2 -l 99999998 >"$T/out" 2>"$T/err" &
main=$!
runner=
for _ in $(seq 100); do
    runner=$(pgrep -P "$main" | head -1)
    [ -n "$runner" ] && [ "$(pgrep -P "$runner" | wc -l)" -ge 80 ] && break
    sleep 0.1
done
[ -n "$runner" ] || fail "no runner child appeared"
victim=$(pgrep -P "$runner" | tail -1)
kill -9 "$victim"
wait "$main"
rc=$?
[ "$rc" -eq 1 ] || fail "killed task: expected exit 1, got $rc"
expect_in err "(sender|receiver) [0-9]+ of group [0-9] \\(pid $victim\\) was killed by signal 9"
gone "messaging -g 2 -l 99999998"

t_case "--timeout kills every task"
# Past --timeout: the whole group of tasks is killed.
expect_rc 1 "$NF" run -r 1 --warmup 0 --timeout 0.5 messaging -g 2 -l 99999997
expect_in err "exceeded --timeout"
gone "messaging -g 2 -l 99999997"
expect_rc 1 "$NF" run -r 1 --warmup 0 --timeout 0.5 messaging -g 2 -l 99999996 -t -p
gone "messaging -g 2 -l 99999996"
pass
