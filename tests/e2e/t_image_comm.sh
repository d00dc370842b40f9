# A built-in workload's image is named "noisefloor" from its exec on, not
# "exe" (the last part of /proc/self/exe) until it names itself: what
# `ps` and `perf sched` show.  Every change of a task's name is a
# task:task_rename event, the exec's too; perf records them for the run's
# tasks, whatever the timing.
. "$(dirname "$0")/lib.sh"

# The kernel names a process exec'd from a descriptor after its file from
# Linux 6.14 on (src/measure/spawn_image.c); older ones by the descriptor.
release=$(uname -r)
major=${release%%.*}
rest=${release#*.}
minor=${rest%%[!0-9]*}
[ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 14 ]; } ||
    skip "kernel $release names an exec from a descriptor by its number"
command -v perf >/dev/null 2>&1 || skip "no perf"
perf record -q -o "$T/probe.data" -e task:task_rename -- true >/dev/null 2>&1 ||
    skip "perf cannot record task:task_rename here"

t_case "the image is named noisefloor from its exec"
perf record -q -o "$T/perf.data" -e task:task_rename -- \
    "$NF" run -r 2 --warmup 0 -L comm pipe -l 100 >"$T/run.out" 2>"$T/run.err" ||
    fail "run under perf failed: $(head -c 300 "$T/run.err")"
perf script -i "$T/perf.data" -F pid,trace >"$T/renames" 2>"$T/script.err" ||
    fail "perf script failed: $(head -c 300 "$T/script.err")"
# The run's own name, the guardian's, then per repetition the image's
# exec and its own prctl: both "noisefloor".
n=$(grep -c "oldcomm=noisefloor newcomm=noisefloor" "$T/renames")
[ "$n" -ge 4 ] || fail "expected the renames of two images, got: $(head -c 600 "$T/renames")"
grep -q "newcomm=exe" "$T/renames" &&
    fail "a task was named exe: $(grep -m1 "newcomm=exe" "$T/renames")"
pass
