# doctor: the noise report on a fake tree, --tune applies and records,
# --restore puts back; the real machine's report works.
. "$(dirname "$0")/lib.sh"
export NOISEFLOOR_STATE="$T/state"
R="$T/fk"
put() { mkdir -p "$(dirname "$R$1")"; printf '%s\n' "$2" >"$R$1"; }
put /sys/devices/system/cpu/online 0-1
put /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor powersave
put /sys/devices/system/cpu/cpu1/cpufreq/scaling_governor schedutil
put /sys/devices/system/cpu/intel_pstate/no_turbo 0
put /proc/sys/kernel/nmi_watchdog 1
put /proc/sys/kernel/randomize_va_space 2
put /proc/loadavg "0.00 0.00 0.00 1/1 1"
val() { tr -d '\n' <"$R$1"; }

t_case "the report on a fake tree"
expect_rc 0 "$NF" doctor --root "$R"
expect_in out "warn +governor +schedutil on 2 of 2 CPUs|warn +governor +powersave on 2 of 2 CPUs"
expect_in out "warn +turbo +intel_pstate turbo enabled"
expect_in out "warn +nmi_watchdog +kernel.nmi_watchdog = 1"
expect_in out "warn +aslr"
expect_in out "doctor --tune"
expect_rc 0 "$NF" doctor --root "$R" --json
json_check 'next(f for f in d["findings"] if f["name"] == "aslr")["tunable"] is False'
json_check 'next(f for f in d["findings"] if f["name"] == "governor")["level"] == "warn"'

t_case "--tune applies and records"
expect_rc 0 "$NF" doctor --tune --root "$R"
expect_in out "set /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor to 'performance' \(was 'powersave'\)"
[ "$(val /sys/devices/system/cpu/cpu1/cpufreq/scaling_governor)" = performance ] || fail "governor not tuned"
[ "$(val /sys/devices/system/cpu/intel_pstate/no_turbo)" = 1 ] || fail "turbo not tuned"
[ "$(val /proc/sys/kernel/nmi_watchdog)" = 0 ] || fail "watchdog not tuned"
[ "$(val /proc/sys/kernel/randomize_va_space)" = 2 ] || fail "--tune must not touch ASLR"
[ -e "$NOISEFLOOR_STATE.tune" ] || fail "no state file after --tune"
expect_rc 0 "$NF" doctor --root "$R"
expect_in out "ok +governor +performance on all 2 CPUs"
t_case "tuning twice is refused"
# Tuning twice would lose the originals: refused.
put /proc/sys/kernel/nmi_watchdog 1
expect_rc 1 "$NF" doctor --tune --root "$R"
expect_one_line_err
t_case "--restore puts back"
expect_rc 0 "$NF" doctor --restore
expect_in out "cpu0/cpufreq/scaling_governor"
[ "$(val /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor)" = powersave ] || fail "governor not restored"
[ "$(val /sys/devices/system/cpu/cpu1/cpufreq/scaling_governor)" = schedutil ] || fail "governor not restored"
[ "$(val /sys/devices/system/cpu/intel_pstate/no_turbo)" = 0 ] || fail "turbo not restored"
[ ! -e "$NOISEFLOOR_STATE.tune" ] || fail "state file left after --restore"
expect_rc 0 "$NF" doctor --restore
expect_in out "nothing to restore"

t_case "a FIFO or a device in the tree is not waited on or read whole"
# Read as files that are not there: a FIFO (no writer: an open that waits
# never returns) and /dev/zero (endless).  Bounded here, so that a doctor
# that reads them fails the case instead of the machine.
R2="$T/fk2"
mkdir -p "$R2/proc/sys/kernel" "$R2/sys/devices/system/cpu"
echo 0-1 >"$R2/sys/devices/system/cpu/online"
mkfifo "$R2/proc/sys/kernel/randomize_va_space"
ln -s /dev/zero "$R2/proc/sys/kernel/nmi_watchdog"
expect_rc 0 sh -c 'ulimit -v 2000000; exec timeout 60 "$0" doctor --root "$1"' "$NF" "$R2"
expect_in out "checks need attention"
expect_not_in out "aslr|nmi_watchdog"

t_case "bad options"
expect_rc 2 "$NF" doctor --tune --restore
expect_one_line_err
expect_rc 2 "$NF" doctor --bogus
expect_one_line_err
t_case "the real machine's report"
expect_rc 0 "$NF" doctor
expect_in out "checks need attention"
pass
