# run --sysctl: set for the run, restored after it, after SIGINT, and by
# doctor --restore after a kill -9; bad keys change nothing.
. "$(dirname "$0")/lib.sh"

export NOISEFLOOR_STATE="$T/tune.state"
mkdir -p "$T/fk/proc/sys/kernel" "$T/fk/proc/sys/vm"
F="$T/fk/proc/sys/kernel/sched_foo"
echo 1 >"$F"
echo 60 >"$T/fk/proc/sys/vm/swappiness"
value() { tr -d '\n' <"$1"; }

t_case "set during the run, restored after"
# Set during the run (the command reads it back), restored after.
expect_rc 0 "$NF" run -r 2 --warmup 0 --root "$T/fk" --sysctl kernel.sched_foo=0 \
    --sysctl vm.swappiness=10 --metric 'v=^([0-9]+)$' --json -- cat "$F" "$T/fk/proc/sys/vm/swappiness"
json_check 'next(m for m in d["metrics"] if m["name"] == "v")["values"] == [0, 0]'
[ "$(value "$F")" = 1 ] || fail "kernel.sched_foo not restored: $(value "$F")"
[ "$(value "$T/fk/proc/sys/vm/swappiness")" = 60 ] || fail "vm.swappiness not restored"
[ ! -e "$NOISEFLOOR_STATE" ] || fail "state file left after the run"

t_case "a workload; a failed repetition restores"
# Any workload, and a failed repetition restores too.
expect_rc 0 "$NF" run -r 1 --warmup 0 --root "$T/fk" --sysctl kernel.sched_foo=2 pipe -l 100
[ "$(value "$F")" = 1 ] || fail "not restored after a workload"
expect_rc 1 "$NF" run -r 1 --warmup 0 --root "$T/fk" --sysctl kernel.sched_foo=2 -- false
[ "$(value "$F")" = 1 ] || fail "not restored after a failed repetition"
[ ! -e "$NOISEFLOOR_STATE" ] || fail "state file left after a failed run"

t_case "bad keys change nothing"
# Bad keys: one line, exit 2, nothing changed, no state file.
expect_rc 2 "$NF" run --root "$T/fk" --sysctl kernel.sched_foo=0 --sysctl kernel.nope=1 -- true
expect_one_line_err; expect_in err "no sysctl 'kernel.nope'"
expect_rc 2 "$NF" run --root "$T/fk" --sysctl ../../etc/passwd=1 -- true
expect_one_line_err; expect_in err "not a sysctl name"
expect_rc 2 "$NF" run --sysctl kernel.sched_foo -- true
expect_one_line_err; expect_in err "KEY=VALUE"
[ "$(value "$F")" = 1 ] || fail "changed by a refused run"
[ ! -e "$NOISEFLOOR_STATE" ] || fail "state file left by a refused run"

# wait_for FILE VALUE: until the file holds VALUE (10 s at most).
wait_for() {
    for _ in $(seq 100); do
        [ "$(value "$1")" = "$2" ] && return 0
        sleep 0.1
    done
    fail "$1 never became $2"
}

t_case "SIGINT restores"
# SIGINT in mid-run: stopped, restored, state file removed, exit 130.
"$NF" run -r 1000 --warmup 0 --root "$T/fk" --sysctl kernel.sched_foo=7 -- sleep 0.05 >"$T/out" 2>"$T/err" &
pid=$!
wait_for "$F" 7
[ -e "$NOISEFLOOR_STATE" ] || fail "no state file while tuned"
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || fail "SIGINT: expected exit 130, got $rc ($(cat "$T/err"))"
[ "$(value "$F")" = 1 ] || fail "not restored after SIGINT: $(value "$F")"
[ ! -e "$NOISEFLOOR_STATE" ] || fail "state file left after SIGINT"
expect_in err "interrupted by signal 2"

t_case "SIGTERM restores"
# SIGTERM likewise.
"$NF" run -r 1000 --warmup 0 --root "$T/fk" --sysctl kernel.sched_foo=8 -- sleep 0.05 >"$T/out" 2>"$T/err" &
pid=$!
wait_for "$F" 8
kill -TERM "$pid"
wait "$pid"
[ "$(value "$F")" = 1 ] || fail "not restored after SIGTERM"

t_case "kill -9: doctor --restore puts it back"
# kill -9: the state file stays; a second run refuses; doctor --restore
# puts the value back and removes the file.
"$NF" run -r 1000 --warmup 0 --root "$T/fk" --sysctl kernel.sched_foo=9 -- sleep 0.05 >"$T/out" 2>"$T/err" &
pid=$!
wait_for "$F" 9
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
[ "$(value "$F")" = 9 ] || fail "kill -9 should leave the value set"
[ -e "$NOISEFLOOR_STATE" ] || fail "kill -9 should leave the state file"
expect_rc 1 "$NF" run --root "$T/fk" --sysctl kernel.sched_foo=3 -- true
expect_one_line_err; expect_in err "doctor --restore"
[ "$(value "$F")" = 9 ] || fail "a refused run changed the value"
expect_rc 0 "$NF" doctor --restore
expect_in out "restored kernel.sched_foo to '1'"
[ "$(value "$F")" = 1 ] || fail "doctor --restore did not restore"
[ ! -e "$NOISEFLOOR_STATE" ] || fail "doctor --restore left the state file"
expect_rc 0 "$NF" doctor --restore
expect_in out "nothing to restore"

t_case "doctor --restore leaves a setting changed by hand since"
# A killed run leaves two settings; the user changes one by hand before
# doctor --restore: that one is the user's and is left, the other put back.
echo 60 >"$T/fk/proc/sys/vm/swappiness"
"$NF" run -r 1000 --warmup 0 --root "$T/fk" --sysctl kernel.sched_foo=9 --sysctl vm.swappiness=10 \
    -- sleep 0.05 >"$T/out" 2>"$T/err" &
pid=$!
wait_for "$F" 9
wait_for "$T/fk/proc/sys/vm/swappiness" 10
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
echo 5 >"$F"
expect_rc 0 "$NF" doctor --restore --json
json_check 'd["left"] == [{"key": "kernel.sched_foo", "path": d["left"][0]["path"], "value": "5", "set": "9", "original": "1"}] and [c["key"] for c in d["changes"]] == ["vm.swappiness"]'
[ "$(value "$F")" = 5 ] || fail "the value set by hand was overwritten: $(value "$F")"
[ "$(value "$T/fk/proc/sys/vm/swappiness")" = 60 ] || fail "vm.swappiness not restored"
[ ! -e "$NOISEFLOOR_STATE" ] || fail "doctor --restore left the state file"

t_case "the text says what was left"
echo 1 >"$F"
"$NF" run -r 1000 --warmup 0 --root "$T/fk" --sysctl kernel.sched_foo=9 -- sleep 0.05 >"$T/out" 2>"$T/err" &
pid=$!
wait_for "$F" 9
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
printf '4\n' >"$F"
expect_rc 0 "$NF" doctor --restore
expect_in out "^left kernel.sched_foo at '4': changed since noisefloor set it to '9' \\(it was '1' before\\)$"
[ "$(value "$F")" = 4 ] || fail "overwritten"

pass
