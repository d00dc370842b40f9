# run --sysctl restores the setting after every signal whose default
# action ends the process (SIGKILL aside): each stops the run like
# SIGINT, restores, removes the state file and exits 128 + the signal.
# fs.lease-break-time is harmless (t_sysctl_root.sh).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] && [ -w /proc/sys/fs/lease-break-time ] || skip "needs root and a writable /proc/sys"
export NOISEFLOOR_STATE="$T/tune.state"
L=/proc/sys/fs/lease-break-time
value() { tr -d '\n' <$L; }
orig=$(value)
new=$((orig + 7))

# NAME:NUMBER (Linux's numbers; dash's kill -l gives no number for a name).
for pair in PIPE:13 USR1:10 USR2:12 ALRM:14 VTALRM:26 PROF:27 XCPU:24 IO:29 PWR:30 HUP:1 TERM:15; do
    sig=${pair%:*} num=${pair#*:}
    t_case "SIG$sig during run --sysctl: restored"
    "$NF" run -r 100000 --warmup 0 -L "sig$sig" --sysctl fs.lease-break-time=$new \
        -- sleep 0.01 >/dev/null 2>"$T/run.err" &
    pid=$!
    for _ in $(seq 200); do
        [ "$(value)" = "$new" ] && [ -e "$NOISEFLOOR_STATE" ] && break
        sleep 0.05
    done
    [ "$(value)" = "$new" ] || fail "the run never set the value"
    sleep 0.2
    kill -s "$sig" "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" -eq $((128 + num)) ] || fail "exit $rc, not $((128 + num)): $(head -c 300 "$T/run.err")"
    [ "$(value)" = "$orig" ] || { echo "$orig" >$L; fail "fs.lease-break-time left at $new"; }
    [ ! -e "$NOISEFLOOR_STATE" ] || { rm -f "$NOISEFLOOR_STATE"; fail "state file left"; }
    grep -q "interrupted by signal $num" "$T/run.err" || fail "no message: $(head -c 300 "$T/run.err")"
done
pass
