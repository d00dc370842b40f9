# run -- COMMAND: fork/exec without a shell; wall/user/sys and counters;
# --metric captures from stdout; failures (exit status, signal, missing
# binary, timeout, regex miss) fail the run with the stderr tail; the
# command's stdout never mixes with ours; nothing is left behind.
. "$(dirname "$0")/lib.sh"

gone() {
    for _ in $(seq 50); do
        pgrep -f -- "$1" >/dev/null || return 0
        sleep 0.1
    done
    fail "processes left behind: $(pgrep -af -- "$1" | head -3)"
}

t_case "wall, user, sys and the rusage of a command"
expect_rc 0 "$NF" run -r 3 --warmup 1 --json -- /bin/true
json_check 'd["workload"] == "command" and d["args"] == ["/bin/true"]'
json_check '[m["name"] for m in d["metrics"] if not m["name"].startswith(("cpu.", "sched."))] == ["wall", "user", "sys", "voluntary-context-switches", "involuntary-context-switches", "minor-page-faults", "major-page-faults", "max-rss"]'
json_check '[m["primary"] for m in d["metrics"][:3]] == [True, False, False]'
json_check 'all(m["unit"] == "seconds" and m["better"] == "lower" for m in d["metrics"][:3])'
json_check 'all(m["better"] == "lower" and m["supported"] for m in d["metrics"])'
json_check '[m["unit"] for m in [x for x in d["metrics"] if not x["name"].startswith(("cpu.", "sched."))][3:]] == ["", "", "", "", "KiB"]'
json_check 'all(m["n"] == 3 for m in d["metrics"])'
json_check 'd["metrics"][0]["min"] > 0'
json_check 'next(m for m in d["metrics"] if m["name"] == "minor-page-faults")["min"] > 0'

t_case "counters with -e: enabled on exec"
expect_rc 0 "$NF" run -r 2 --warmup 0 -e default --json -- /bin/true
json_check '[m["name"] for m in d["metrics"] if not m["name"].startswith(("cpu.", "sched."))][8:] == ["task-clock", "context-switches", "cpu-migrations", "page-faults"]'
# Counters are enabled on exec: true faults in its pages.
json_check 'next(m for m in d["metrics"] if m["name"] == "page-faults")["min"] > 0'

t_case "rusage of a command that sleeps 50 ms and burns 100 ms of CPU"
# The command measures itself: it sleeps, then spins until its own CPU
# time has grown by 0.1 s, so the ranges hold on a busy machine too.
expect_rc 0 "$NF" run -r 2 --warmup 0 --json -- /usr/bin/python3 -c '
import time
time.sleep(0.05)
t = time.process_time()
while time.process_time() - t < 0.1:
    pass'
json_check 'all(0.1 <= u + s < 2 for u, s in zip(d["metrics"][1]["values"], d["metrics"][2]["values"]))'
json_check 'all(w >= 0.15 for w in d["metrics"][0]["values"])'
json_check 'all(u + s <= w + 0.01 for w, u, s in zip(*[d["metrics"][i]["values"] for i in range(3)]))'
# The sleep blocks (voluntary); python faults in hundreds of pages and
# needs megabytes.
json_check 'all(v >= 1 for v in d["metrics"][3]["values"])'
json_check 'all(100 < v < 1e6 for v in d["metrics"][5]["values"])'
json_check 'all(v == 0 or v > 0 for v in d["metrics"][6]["values"])'
json_check 'all(4096 < v < 4194304 for v in d["metrics"][7]["values"])'

t_case "PATH lookup, arguments as given, no shell"
# PATH lookup, arguments passed as they are (no shell: $HOME stays literal).
expect_rc 0 "$NF" run -r 2 --warmup 0 --metric 'n=^n=([0-9]+)$' --json -- sh -c 'printf "n=%s\n" "$#"' sh 'a b' '$HOME' '*'
json_check 'd["args"] == ["sh", "-c", "printf \"n=%s\\n\" \"$#\"", "sh", "a b", "$HOME", "*"]'
json_check 'next(m for m in d["metrics"] if m["name"] == "n")["values"] == [3, 3]'

t_case "--metric with --unit and --better"
# --metric: captured after the counters, with --unit and --better.
expect_rc 0 "$NF" run -r 2 --warmup 0 --metric 'rate=rate: ([0-9.]+)' --metric 'lat=lat about (.*)us' \
    --unit ops/s --better higher --json -- sh -c 'echo noise; echo "rate: 42.5 ops"; echo "lat about 7 us"'
json_check '[m["name"] for m in d["metrics"] if not m["name"].startswith(("cpu.", "sched."))][-2:] == ["rate", "lat"]'
json_check 'next(m for m in d["metrics"] if m["name"] == "rate")["values"] == [42.5, 42.5]'
json_check 'next(m for m in d["metrics"] if m["name"] == "lat")["values"] == [7, 7]'
json_check 'all(m["unit"] == "ops/s" and m["better"] == "higher" for m in [x for x in d["metrics"] if not x["name"].startswith(("cpu.", "sched."))][-2:])'
# the first --metric is the command's primary metric, not wall
json_check '[m["name"] for m in d["metrics"] if m["primary"]] == ["rate"]'

t_case "the command's output is not ours"
# The command's stdout is not ours (the words printed differ from the
# words of the command line, which the summary shows).
expect_rc 0 "$NF" run -r 1 --warmup 0 -- sh -c 'printf "OUT%sPUT\n" -; printf "ERR%sPUT\n" - >&2'
expect_not_in out "OUT-PUT"
expect_not_in err "ERR-PUT"
expect_rc 0 "$NF" run -r 1 --warmup 0 --metric 'x=val=([0-9])' -- sh -c 'printf "val=1\nOUT%sPUT\n" -'
expect_not_in out "OUT-PUT"
expect_in out " x "

t_case "a missing binary"
# A missing binary: one line naming it, exit 1.
expect_rc 1 "$NF" run -- /nonexistent/nf-cmd
expect_one_line_err
expect_in err "cannot run '/nonexistent/nf-cmd': No such file or directory"
expect_rc 1 "$NF" run -- nf-no-such-command-anywhere
expect_one_line_err

t_case "a file without #! is not run through a shell"
# execvp would hand a file it cannot exec (ENOEXEC) to /bin/sh; we exec
# what PATH finds and report the failure instead.
printf 'echo ran > "%s/ran"\n' "$T" >"$T/noshebang"
chmod +x "$T/noshebang"
expect_rc 1 "$NF" run -r 1 --warmup 0 -- "$T/noshebang"
expect_one_line_err
expect_in err "cannot run '$T/noshebang': Exec format error"
[ ! -e "$T/ran" ] || fail "the file was run by a shell"
mkdir "$T/bin"
cp "$T/noshebang" "$T/bin/nf-noshebang"
expect_rc 1 env PATH="$T/bin:$PATH" "$NF" run -r 1 --warmup 0 -- nf-noshebang
expect_in err "cannot run 'nf-noshebang': Exec format error"
[ ! -e "$T/ran" ] || fail "the file found in PATH was run by a shell"
# PATH order and entries that cannot be run, as execvp: a directory and a
# file without x come first, the runnable one after them is taken.
mkdir "$T/p1" "$T/p1/nf-which" "$T/p2" "$T/p3"
printf '#!/bin/sh\nexit 0\n' >"$T/p2/nf-which"
printf '#!/bin/sh\nexit 0\n' >"$T/p3/nf-which"
chmod +x "$T/p3/nf-which"
expect_rc 0 env PATH="$T/p1:$T/p2:$T/p3" "$NF" run -r 1 --warmup 0 -- nf-which
expect_rc 1 env PATH="$T/p1:$T/p2" "$NF" run -r 1 --warmup 0 -- nf-which
expect_in err "cannot run 'nf-which': Permission denied"

t_case "a failing command: status and stderr tail"
# A failing command: its status and the tail of its stderr.
expect_rc 1 "$NF" run -r 3 -- sh -c 'echo first >&2; echo second >&2; echo "last words" >&2; exit 3'
expect_in err "'sh' exited with status 3"
expect_in err "^    stderr\\| last words$"
expect_in err "^    stderr\\| second$"
# Its output reaches our stderr without its escapes or carriage returns.
expect_rc 1 "$NF" run -r 1 -- sh -c 'printf "\033[31mred\rX\n" >&2; exit 3'
expect_in err '^    stderr\| \?\[31mred\?X$'
t_case "a command killed by a signal"
# Killed by a signal.
expect_rc 1 "$NF" run -r 1 -- sh -c 'kill -SEGV $$'
expect_in err "'sh' was killed by signal 11"

t_case "a --metric that finds nothing; bad regexes"
# A regex that misses fails the repetition and shows what the command said.
expect_rc 1 "$NF" run -r 2 --metric 'rate=rate: ([0-9]+)' -- sh -c 'echo "rate: none"'
expect_in err "--metric rate: /rate: \\(\\[0-9\\]\\+\\)/ found no number"
expect_in err "stdout\\| rate: none"
expect_rc 2 "$NF" run --metric 'rate=rate: [0-9]+' -- true
expect_one_line_err; expect_in err "needs a group"
expect_rc 2 "$NF" run --metric 'wall=(1)' -- true
expect_one_line_err

t_case "--metric: a group that is not one number fails, never stores a part"
# Not 999 (the exponent strtod refused), -400, 1 (before a thousands
# separator) or 12: the repetition fails, naming the metric and the text.
for text in 1e999 1e-400 v=1,234 12abc; do
    expect_rc 1 "$NF" run -r 1 --warmup 0 --metric 'x=([-0-9e.,a-z=]+)' --json -- echo "$text"
    expect_in err "^noisefloor: run: repetition failed: --metric x: /.*/ captured '$text' in the output of 'echo': "
    json_check 'next(m for m in d["metrics"] if m["name"] == "x")["values"] == []'
done
expect_rc 1 "$NF" run -r 1 --warmup 0 --metric 'x=([-0-9e.,a-z=]+)' -- echo 1e999
expect_in err "captured '1e999' .*: a number too large for a double$"
expect_rc 1 "$NF" run -r 1 --warmup 0 --metric 'x=([-0-9e.,a-z=]+)' -- echo 1e-400
expect_in err "captured '1e-400' .*: a number too small for a double"
expect_rc 1 "$NF" run -r 1 --warmup 0 --metric 'x=([-0-9e.,a-z=]+)' -- echo v=1,234
expect_in err "captured 'v=1,234' .*: not a number \\(the group must hold one decimal number"
t_case "--metric: blanks around the number are fine"
expect_rc 0 "$NF" run -r 1 --warmup 0 --metric 'x=:(.*)$' --json -- echo 'took:  -1.5e3 '
json_check 'next(m for m in d["metrics"] if m["name"] == "x")["values"] == [-1500]'

t_case "--timeout kills the process group"
# Past --timeout: the whole process group goes, background children too.
expect_rc 1 "$NF" run -r 1 --warmup 0 --timeout 0.5 -- sh -c 'sleep 986 & sleep 987'
expect_in err "exceeded --timeout 0.5s"
gone "sleep 98[67]"
t_case "what a command leaves in its group is killed"
# Even without a timeout, what a command leaves in its group is killed.
expect_rc 0 "$NF" run -r 1 --warmup 0 -- sh -c 'sleep 985 & exit 0'
gone "sleep 985"

t_case "--primary: a command's primary metric, wall or a --metric"
expect_rc 0 "$NF" run -r 2 --warmup 0 --metric 'rps=rps: ([0-9.]+)' --better higher --json -- sh -c 'echo "rps: 9"'
json_check '[m["name"] for m in d["metrics"] if m["primary"]] == ["rps"]'
expect_rc 0 "$NF" run -r 2 --warmup 0 --metric 'rps=rps: ([0-9.]+)' --primary wall --json -- sh -c 'echo "rps: 9"'
json_check '[m["name"] for m in d["metrics"] if m["primary"]] == ["wall"]'
expect_rc 0 "$NF" run -r 2 --warmup 0 --json -- true
json_check '[m["name"] for m in d["metrics"] if m["primary"]] == ["wall"]'
expect_rc 2 "$NF" run -r 2 --warmup 0 --metric 'rps=rps: ([0-9.]+)' --primary nosuch -- sh -c 'echo "rps: 9"'
expect_one_line_err; expect_in err "^noisefloor: run: --primary nosuch: not wall or a --metric of this command$"
expect_rc 2 "$NF" run -r 2 --warmup 0 --primary wall pipe -l 10
expect_one_line_err; expect_in err "--primary chooses among a command's metrics"
# compare shows the captured metric's block in full and decides on it
expect_rc 0 "$NF" run -r 3 --warmup 0 -L p1 --metric 'rps=rps: ([0-9.]+)' --better higher -- sh -c 'echo "rps: 9"'
expect_rc 0 "$NF" run -r 3 --warmup 0 -L p2 --metric 'rps=rps: ([0-9.]+)' --better higher -- sh -c 'echo "rps: 9"'
expect_rc 0 "$NF" compare p1 p2
expect_in out "^command rps \(higher is better\)"
expect_in out "^Amean wall "

pass
