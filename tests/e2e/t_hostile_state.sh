# The tuning state file against other users: root runs doctor --restore and
# --sysctl, and the state file lives where anyone may write (/var/tmp).  A
# state file is trusted only if it is ours, not writable by others, in
# directories only we or root can change (sticky ones like /tmp count), and
# names only files under <root>/proc/sys or <root>/sys/devices/system/cpu;
# otherwise doctor --restore refuses with one line, exit 1, nothing written.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (to plant files as another user)"
id nobody >/dev/null 2>&1 || skip "no user nobody"
command -v setpriv >/dev/null || skip "no setpriv"
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }

chmod 711 "$T" # nobody may reach $T/pub, and nothing else
mkdir -m 1777 "$T/pub" # like /tmp and /var/tmp: sticky, world-writable, root's
R="$T/fk"
mkdir -p "$R/proc/sys/kernel"
A="$R/proc/sys/kernel/sched_a"
B="$R/proc/sys/kernel/sched_b"
V="$T/victim"
value() { tr -d '\n' <"$1"; }
reset() {
    echo 1 >"$A"
    echo 2 >"$B"
    echo secret >"$V"
}
# state ROOT PATH=ORIGINAL...: a state file as a killed run leaves it (the
# value it set: what the file holds now).
state() {
    root=$1
    shift
    {
        printf '{"version": 1, "pid": 1, "root": "%s", "entries": [' "$root"
        sep=
        for e in "$@"; do
            printf '%s{"key": "k", "path": "%s", "original": "%s", "value": "%s"}' \
                "$sep" "${e%%=*}" "${e#*=}" "$(value "${e%%=*}" 2>/dev/null)"
            sep=,
        done
        printf ']}\n'
    }
}
# nothing_written: no tunable and no victim changed.
nothing_written() {
    [ "$(value "$A")" = 1 ] || fail "sched_a was written: $(value "$A")"
    [ "$(value "$B")" = 2 ] || fail "sched_b was written: $(value "$B")"
    [ "$(value "$V")" = secret ] || fail "the victim file was overwritten: $(value "$V")"
}
restore() { # restore STATEFILE RC: doctor --restore of that file
    expect_rc "$2" env NOISEFLOOR_STATE="$1" "$NF" doctor --restore
}
refused() { # refused STATEFILE WHY-REGEX
    restore "$1" 1
    expect_one_line_err
    expect_in err "$2"
    nothing_written
    [ -e "$1" ] || [ -L "$1" ] || fail "the refused state file was removed"
}

t_case "a state file planted by nobody is refused"
reset
state "" "$V=pwned" | as_nobody sh -c "cat >'$T/pub/state'"
[ "$(stat -c %U "$T/pub/state")" = nobody ] || fail "could not plant as nobody"
refused "$T/pub/state" "refusing the tuning state file .*belongs to uid [0-9]+, not to uid 0"
t_case "planted by nobody, naming only tunable files: still refused"
state "$R" "$A=7" | as_nobody sh -c "cat >'$T/pub/s2'"
refused "$T/pub/s2" "belongs to uid"
t_case "a state file of ours that others may write"
reset
state "$R" "$A=7" >"$T/pub/s3"
chmod 666 "$T/pub/s3"
refused "$T/pub/s3" "writable by everyone"
chmod 620 "$T/pub/s3"
refused "$T/pub/s3" "writable by its group"
t_case "in a world-writable directory that is not sticky"
mkdir -m 777 "$T/open"
state "$R" "$A=7" >"$T/open/state"
chmod 600 "$T/open/state"
refused "$T/open/state" "directory .*/open is writable by everyone and not sticky"
t_case "in a directory another user owns"
mkdir -m 755 "$T/theirs"
state "$R" "$A=7" >"$T/theirs/state"
chown nobody "$T/theirs"
refused "$T/theirs/state" "directory .*/theirs belongs to uid"
t_case "a symlink planted at the state path"
state "$R" "$A=7" >"$T/ours"
chmod 600 "$T/ours"
as_nobody ln -s "$T/ours" "$T/pub/link"
refused "$T/pub/link" "symbolic link"
t_case "an entry outside /proc/sys"
for p in "$V" "/proc/sys/../..$V"; do
    state "" "$p=pwned" >"$T/s4"
    refused "$T/s4" "names $V, which is not under /proc/sys"
done
t_case "an entry escaping the root it was written with"
ln -s "$V" "$R/proc/sys/kernel/link"
touch "$R/proc/sysx"
for p in "$R/proc/sys/../../../victim" "$R/proc/sys/kernel/link" "$R/proc/sysx"; do
    state "$R" "$p=pwned" >"$T/s5"
    refused "$T/s5" "which is not under $R/proc/sys"
done
t_case "one bad entry: nothing is written"
state "$R" "$A=7" "$V=pwned" "$B=8" >"$T/s6"
refused "$T/s6" "entry 2"
t_case "a bad --tune state file stops the restore of both"
state "$R" "$A=7" >"$T/s7"
state "" "$V=pwned" | as_nobody sh -c "cat >'$T/pub/s7.tune'"
cp "$T/s7" "$T/pub/s7"
refused "$T/pub/s7" "s7.tune.*belongs to uid"
[ -e "$T/pub/s7" ] || fail "the good state file went with nothing restored"

t_case "our own state file in a sticky directory is restored"
rm -f "$T/pub/s7.tune"
restore "$T/pub/s7" 0
expect_in out "restored k to '7'"
[ "$(value "$A")" = 7 ] || fail "not restored"
[ ! -e "$T/pub/s7" ] || fail "state file left"

t_case "--sysctl keeps its state only where others cannot change it"
reset
expect_rc 1 env NOISEFLOOR_STATE="$T/open/new" "$NF" run -r 1 --warmup 0 --root "$R" \
    --sysctl kernel.sched_a=5 -- true
expect_one_line_err
expect_in err "will not keep the tuning state file .* writable by everyone and not sticky"
nothing_written
[ ! -e "$T/open/new" ] || fail "state file written"
t_case "--sysctl with a state file planted by nobody"
state "" "$V=pwned" | as_nobody sh -c "cat >'$T/pub/s8'"
expect_rc 1 env NOISEFLOOR_STATE="$T/pub/s8" "$NF" run -r 1 --warmup 0 --root "$R" \
    --sysctl kernel.sched_a=5 -- true
expect_one_line_err
expect_in err "refusing the tuning state file .*belongs to uid"
nothing_written
t_case "--sysctl in a sticky directory works"
expect_rc 0 env NOISEFLOOR_STATE="$T/pub/s9" "$NF" run -r 1 --warmup 0 --root "$R" \
    --sysctl kernel.sched_a=5 -- true
nothing_written
[ ! -e "$T/pub/s9" ] || fail "state file left"
pass
