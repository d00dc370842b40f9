# doctor --tune while a run's --sysctl settings are in effect, or were left
# by a run killed with -9: refused, since it would record the run's values
# as the machine's own and doctor --restore would later put them back.
. "$(dirname "$0")/lib.sh"
export NOISEFLOOR_STATE="$T/state"
R="$T/fk"
W="$R/proc/sys/kernel/nmi_watchdog"
mkdir -p "$R/proc/sys/kernel"
echo 1 >"$W"
printf '0.00 0.00 0.00 1/1 1\n' >"$R/proc/loadavg"
value() { tr -d '\n' <"$1"; }
wait_for() { # FILE VALUE: until the file holds VALUE (10 s at most)
    for _ in $(seq 100); do
        [ "$(value "$1")" = "$2" ] && return 0
        sleep 0.1
    done
    fail "$1 never became $2"
}

t_case "a run in progress: --tune waits for it"
"$NF" run -r 1000 --warmup 0 --root "$R" --sysctl kernel.nmi_watchdog=5 -- sleep 0.05 \
    >"$T/run.out" 2>"$T/run.err" &
pid=$!
wait_for "$W" 5
expect_rc 1 "$NF" doctor --tune --root "$R"
expect_one_line_err
expect_in err "^noisefloor: doctor --tune: another noisefloor \\(pid $pid\\) has tuned settings recorded in .*; wait for it to finish$"
[ ! -e "$NOISEFLOOR_STATE.tune" ] || fail "a refused --tune left its state file"
kill -INT "$pid"
{ wait "$pid"; } 2>/dev/null
[ "$(value "$W")" = 1 ] || fail "the run did not restore: $(value "$W")"

t_case "a run killed with -9: --tune refuses until doctor --restore"
"$NF" run -r 1000 --warmup 0 --root "$R" --sysctl kernel.nmi_watchdog=5 -- sleep 0.05 \
    >"$T/run.out" 2>"$T/run.err" &
pid=$!
wait_for "$W" 5
kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
expect_rc 1 "$NF" doctor --tune --root "$R"
expect_one_line_err
expect_in err "did not restore; run 'noisefloor doctor --restore' first$"
[ "$(value "$W")" = 5 ] || fail "a refused --tune changed the value"
[ ! -e "$NOISEFLOOR_STATE.tune" ] || fail "a refused --tune left its state file"
expect_rc 0 "$NF" doctor --restore
[ "$(value "$W")" = 1 ] || fail "doctor --restore did not put back 1"
# now --tune records the machine's own value, and --restore brings it back
expect_rc 0 "$NF" doctor --tune --root "$R"
expect_in out "set /proc/sys/kernel/nmi_watchdog to '0' \\(was '1'\\)"
expect_rc 0 "$NF" doctor --restore
[ "$(value "$W")" = 1 ] || fail "not 1 after --tune and --restore: $(value "$W")"
pass
