# doctor --tune --json and --restore --json: one JSON object on stdout
# saying what was set or put back, nothing else; errors stay one line on
# stderr.  --restore takes its files from the state file, so --root is
# refused with it.
. "$(dirname "$0")/lib.sh"
export NOISEFLOOR_STATE="$T/state"
R="$T/fk"
put() { mkdir -p "$(dirname "$R$1")"; printf '%s\n' "$2" >"$R$1"; }
put /sys/devices/system/cpu/online 0-1
put /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor powersave
put /sys/devices/system/cpu/cpu1/cpufreq/scaling_governor performance
put /proc/sys/kernel/nmi_watchdog 1
put /proc/loadavg "0.00 0.00 0.00 1/1 1"
val() { tr -d '\n' <"$R$1"; }
G0=/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
G1=/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor
# The entry of "changes" (or another list) for the file KEY, as Python.
entry() { echo "next(c for c in d[\"$1\"] if c[\"key\"] == \"$2\")"; }
empty_out() { case_failed || [ ! -s "$T/out" ] || fail "stdout not empty: $(head -c 200 "$T/out")"; }
empty_err() { case_failed || [ ! -s "$T/err" ] || fail "stderr not empty: $(head -c 200 "$T/err")"; }

t_case "--tune --json: what was set, as JSON only"
expect_rc 0 "$NF" doctor --tune --json --root "$R"
empty_err
json_check 'd["action"] == "tune" and sorted(d) == ["action", "changes", "state_file", "unchanged"]'
json_check "d['state_file'] == '$NOISEFLOOR_STATE.tune'"
json_check "$(entry changes $G0) == {'key': '$G0', 'path': '$R$G0', 'from': 'powersave', 'to': 'performance'}"
json_check "$(entry changes /proc/sys/kernel/nmi_watchdog)['to'] == '0'"
json_check "len(d['changes']) == 2"
json_check "$(entry unchanged $G1) == {'key': '$G1', 'path': '$R$G1', 'value': 'performance'}"
[ "$(val $G0)" = performance ] || fail "governor not tuned"

t_case "--tune --json with nothing to tune"
expect_rc 0 "$NF" doctor --tune --json --root "$R"
empty_err
json_check 'd["action"] == "tune" and d["changes"] == [] and d["state_file"] is None'

t_case "--tune --json refused: one line, nothing on stdout"
put /proc/sys/kernel/nmi_watchdog 1
expect_rc 1 "$NF" doctor --tune --json --root "$R"
expect_one_line_err
expect_in err "doctor --restore"
empty_out

t_case "--restore --root is refused"
expect_rc 2 "$NF" doctor --restore --root "$R"
expect_one_line_err
expect_in err "state file"
empty_out
[ "$(val $G0)" = performance ] || fail "--restore --root changed a setting"

t_case "--restore --json: what was put back, as JSON only"
expect_rc 0 "$NF" doctor --restore --json
empty_err
json_check 'd["action"] == "restore" and sorted(d) == ["action", "changes", "left", "state_files"] and d["left"] == []'
json_check "d['state_files'] == ['$NOISEFLOOR_STATE.tune']"
json_check "$(entry changes $G0)['from'] == 'performance' and $(entry changes $G0)['to'] == 'powersave'"
json_check "$(entry changes $G0)['path'].endswith('$G0')"
json_check "$(entry changes /proc/sys/kernel/nmi_watchdog)['to'] == '1'"
json_check "len(d['changes']) == 2"
[ "$(val $G0)" = powersave ] || fail "governor not restored"
[ ! -e "$NOISEFLOOR_STATE.tune" ] || fail "state file left after --restore"

t_case "--restore --json with nothing to restore"
expect_rc 0 "$NF" doctor --restore --json
empty_err
json_check 'd["action"] == "restore" and d["changes"] == [] and d["state_files"] == []'

t_case "--restore --json that fails part-way lists what it put back"
put $G0 powersave
put /proc/sys/kernel/nmi_watchdog 1
expect_rc 0 "$NF" doctor --tune --json --root "$R"
# A setting that can no longer be written: the other is still put back.
rm "$R/proc/sys/kernel/nmi_watchdog" && mkdir "$R/proc/sys/kernel/nmi_watchdog"
expect_rc 1 "$NF" doctor --restore --json
expect_one_line_err
expect_in err "nmi_watchdog"
json_check "[c['key'] for c in d['changes']] == ['$G0']"
[ "$(val $G0)" = powersave ] || fail "governor not restored"
[ -e "$NOISEFLOOR_STATE.tune" ] || fail "state file gone after a failed restore"
rm -f "$NOISEFLOOR_STATE.tune"

t_case "--restore --json of a bad state file: one line, nothing on stdout"
echo '{"entries": 1}' >"$NOISEFLOOR_STATE"
chmod 600 "$NOISEFLOOR_STATE"
expect_rc 1 "$NF" doctor --restore --json
expect_one_line_err
empty_out
pass
