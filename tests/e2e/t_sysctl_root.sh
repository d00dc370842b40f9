# run --sysctl on the real /proc/sys, as root: fs.lease-break-time is
# harmless (how long a file lease holder gets before the lease is broken).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] && [ -w /proc/sys/fs/lease-break-time ] || skip "needs root and a writable /proc/sys"
export NOISEFLOOR_STATE="$T/tune.state"
value() { tr -d '\n' <"$1"; }

t_case "set and restored on the real /proc/sys"
L=/proc/sys/fs/lease-break-time
orig=$(value $L)
new=$((orig + 1))
expect_rc 0 "$NF" run -r 2 --warmup 0 --sysctl fs.lease-break-time=$new \
    --metric 'v=^([0-9]+)$' --json -- cat $L
json_check "next(m for m in d['metrics'] if m['name'] == 'v')['values'] == [$new, $new]"
[ "$(value $L)" = "$orig" ] || fail "fs.lease-break-time not restored"
t_case "a read-only sysctl: the first setting undone"
# A read-only sysctl (EACCES even for root): exit 1, and the first
# setting, already made, is undone.
expect_rc 1 "$NF" run --sysctl fs.lease-break-time=$new --sysctl kernel.osrelease=x -- true
expect_one_line_err; expect_in err "cannot set kernel.osrelease to 'x': Permission denied"
[ "$(value $L)" = "$orig" ] || fail "fs.lease-break-time not undone"
t_case "a value the kernel rejects"
# A value the kernel rejects: exit 2.
expect_rc 2 "$NF" run --sysctl fs.lease-break-time=abc -- true
expect_one_line_err; expect_in err "Invalid argument"
[ "$(value $L)" = "$orig" ] || fail "fs.lease-break-time changed by a rejected value"
[ ! -e "$NOISEFLOOR_STATE" ] || fail "state file left"
pass
