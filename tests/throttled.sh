#!/bin/sh
# tests/throttled.sh CMD [ARG...]: run CMD with its CPU throttled, to show
# that the tests do not depend on the machine's speed (make
# check-throttled).  CMD and everything it starts run in a fresh cgroup of
# the cgroup-v1 cpu controller whose quota is half of its period: half of
# one CPU, in slices.  The cgroup is removed afterwards, also when CMD
# fails or we are interrupted (its tasks are moved back to the parent
# first).  CMD sees NF_THROTTLED, the cgroup's directory: a test that
# measures latency reads cpu.stat there (tests/e2e/lib.sh, throttled_skip)
# and reports itself skipped when the quota stopped it.
#
# Exit status: CMD's; 1 with one line on stderr when the cgroup cannot be
# made (not root, no cpu controller); 2 without a CMD.
set -u
CPU=${NF_CPU_CGROUP:-/sys/fs/cgroup/cpu}
if [ $# -eq 0 ]; then
    echo "usage: tests/throttled.sh CMD [ARG...]" >&2
    exit 2
fi
if [ ! -f "$CPU/cpu.cfs_quota_us" ] || [ ! -f "$CPU/cgroup.procs" ]; then
    echo "throttled.sh: no cgroup-v1 cpu controller at $CPU: cannot throttle" >&2
    exit 1
fi
G="$CPU/nf-throttled.$$"
if ! mkdir "$G" 2>/dev/null; then
    echo "throttled.sh: cannot make a cgroup under $CPU ($(id -un), not root?): cannot throttle" >&2
    exit 1
fi

# Move every task of the cgroup back to the parent, then remove it.
cleanup() {
    trap - EXIT INT TERM HUP
    [ -d "$G" ] || return 0
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        while read -r p; do echo "$p" >"$CPU/cgroup.procs" 2>/dev/null; done <"$G/cgroup.procs"
        rmdir "$G" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "throttled.sh: could not remove $G" >&2
}
trap 'rc=$?; cleanup; exit $rc' EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap 'cleanup; exit 129' HUP

period=$(cat "$G/cpu.cfs_period_us")
if ! echo $((period / 2)) >"$G/cpu.cfs_quota_us" || ! echo $$ >"$G/cgroup.procs"; then
    echo "throttled.sh: cannot set the quota of $G: cannot throttle" >&2
    exit 1
fi
echo "throttled.sh: $* runs with cpu.cfs_quota_us $((period / 2)) of $period ($G)" >&2
export NF_THROTTLED="$G"
# Not exec: this shell stays to remove the cgroup.  It is in the cgroup
# too, and so is every process CMD starts.
"$@"
