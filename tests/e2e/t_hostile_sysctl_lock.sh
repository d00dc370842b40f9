# Two runs tuning the same sysctl under different state files
# (NOISEFLOOR_STATE) : the second is refused while the first holds it, in
# either order, and the setting ends at its original value.  Once the
# first has finished, the second may tune it.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] && [ -w /proc/sys/fs/lease-break-time ] || skip "needs root and a writable /proc/sys"
L=/proc/sys/fs/lease-break-time
value() { tr -d '\n' <$L; }
orig=$(value)

for order in "A B" "B A"; do
    first=${order% *} second=${order#* }
    t_case "$first then $second: the second is refused, the original restored"
    v1=$((orig + 11)) v2=$((orig + 22))
    NOISEFLOOR_STATE="$T/s$first" "$NF" run -r 100000 --warmup 0 -L one \
        --sysctl fs.lease-break-time=$v1 -- sleep 0.01 >/dev/null 2>"$T/one.err" &
    pid=$!
    for _ in $(seq 200); do
        [ "$(value)" = "$v1" ] && break
        sleep 0.05
    done
    [ "$(value)" = "$v1" ] || fail "the first run never set the value"
    NOISEFLOOR_STATE="$T/s$second" expect_rc 1 "$NF" run -r 2 --warmup 0 -L two \
        --sysctl fs.lease-break-time=$v2 -- true
    expect_one_line_err
    expect_in err "fs.lease-break-time is being tuned by another noisefloor"
    [ "$(value)" = "$v1" ] || fail "the second run changed the value to $(value)"
    kill -INT $pid
    wait $pid
    [ "$(value)" = "$orig" ] || { echo "$orig" >$L; fail "left at $(value), not $orig"; }
    [ ! -e "$T/s$first" ] && [ ! -e "$T/s$second" ] || fail "a state file was left"
    NOISEFLOOR_STATE="$T/s$second" expect_rc 0 "$NF" run -r 2 --warmup 0 -L three \
        --sysctl fs.lease-break-time=$v2 -- true
    [ "$(value)" = "$orig" ] || { echo "$orig" >$L; fail "left at $(value) after the third"; }
done
pass
