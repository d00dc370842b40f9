# The SQLite store's files against faults and planted files: a FIFO at a
# journal's name (ours, <db>-nfj.N, or SQLite's own -journal, -wal, -shm)
# never hangs a command; a full disk or a file-size limit during run ends
# it with one line and the system restored; a journal's writer is known
# by the lock it holds, not by a host name; a database reached through a
# link finds its journals.
if [ -z "${NF_E2E_MOUNTNS:-}" ] && [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    # A private mount namespace: the tmpfs mounted below vanishes with us.
    NF_E2E_MOUNTNS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

# within CODE CMD...: expect_rc CODE, with CMD stopped after 20 s (a hang
# shows as exit 124).
within() {
    want=$1; shift
    expect_rc "$want" timeout 20 "$@"
}

t_case "setup: one run"
expect_rc 0 "$NF" run -r 2 --warmup 0 -L a -- true

t_case "a FIFO at <db>-nfj.N hangs no command"
# Run 1's journal name, and one of a run yet to come.
mkfifo "$NOISEFLOOR_DB-nfj.1" "$NOISEFLOOR_DB-nfj.2"
within 0 "$NF" list
expect_in out '^ +1 +a '
within 0 "$NF" show 1
within 0 "$NF" export
within 0 "$NF" run -r 2 --warmup 0 -L b -- true
within 0 "$NF" compare a b
within 0 "$NF" show 2
expect_in out 'status +complete'
rm -f "$NOISEFLOOR_DB-nfj.1" "$NOISEFLOOR_DB-nfj.2"

t_case "a FIFO at SQLite's -journal, -wal or -shm is refused, not waited on"
for tail in -journal -wal -shm; do
    mkfifo "$NOISEFLOOR_DB$tail.fifo"
    if [ -e "$NOISEFLOOR_DB$tail" ]; then mv "$NOISEFLOOR_DB$tail" "$T/saved$tail"; fi
    mv "$NOISEFLOOR_DB$tail.fifo" "$NOISEFLOOR_DB$tail"
    within 1 "$NF" list
    expect_one_line_err
    expect_in err "$tail' is not a regular file"
    within 1 "$NF" run -r 1 --warmup 0 -L c -- true
    expect_one_line_err
    rm -f "$NOISEFLOOR_DB$tail"
    if [ -e "$T/saved$tail" ]; then mv "$T/saved$tail" "$NOISEFLOOR_DB$tail"; fi
done
within 0 "$NF" list
expect_in out '^ +2 +b '

# restored_after CODE CMD...: CMD (a run with --sysctl when this can tune
# fs.lease-break-time) exits CODE with one line; the setting is back, no
# state file and no journal under a temporary name are left.
L=/proc/sys/fs/lease-break-time
SYSCTL=""
if [ "$(id -u)" = 0 ] && [ -w $L ]; then
    orig=$(tr -d '\n' <$L)
    SYSCTL="--sysctl fs.lease-break-time=$((orig + 3))"
fi
export NOISEFLOOR_STATE="$T/tune.state"
no_leftovers() { # DIR
    [ -z "$SYSCTL" ] || [ "$(tr -d '\n' <$L)" = "$orig" ] ||
        { echo "$orig" >$L; fail "fs.lease-break-time left set"; }
    [ ! -e "$NOISEFLOOR_STATE" ] || { rm -f "$NOISEFLOOR_STATE"; fail "the state file was left"; }
    ! ls "$1" | grep -q '\.tmp\.' || fail "a temporary file was left: $(ls "$1")"
}

t_case "a file-size limit: one line, exit 1, the system restored"
# ulimit -f in 512-byte blocks: the journal (1 MiB) cannot be made, and
# the database soon cannot grow; SIGXFSZ killed run at the journal.
mkdir "$T/lim"
( ulimit -f 100; exec timeout 60 "$NF" run --db "$T/lim/x.db" -r 20000 --warmup 0 -L big \
    $SYSCTL -- true ) >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "exit $rc, not 1: $(head -c 300 "$T/err")"
expect_one_line_err
# Named as what it is, not SQLite's "disk I/O error".
expect_in err "file size limit reached writing $T/lim/x\\.db(-wal|-journal)? \\(RLIMIT_FSIZE"
no_leftovers "$T/lim"

t_case "a disk that fills during run: one line, exit 1, the system restored"
[ -n "${NF_E2E_MOUNTNS:-}" ] || case_skip "cannot mount a small file system here (needs root and unshare -m)"
# A 2 MiB tmpfs filled but for FREE KiB: at some sizes the database's
# writes still fit and the journal's pages do not (a sparse journal's
# first write to a page there was a SIGBUS).
mkdir "$T/full"
for free in 40 44 48 52 56 60 64 68 72 80 96 128; do
    case_failed && break
    mount -t tmpfs -o size=2m tmpfs "$T/full" && mountpoint -q "$T/full" ||
        { fail "cannot mount a tmpfs"; break; }
    expect_rc 0 "$NF" run --db "$T/full/x.db" -r 1 --warmup 0 -L a -- true
    dd if=/dev/zero of="$T/full/fill" bs=4k count=600 2>/dev/null
    truncate -s -${free}k "$T/full/fill"
    timeout 60 "$NF" run --db "$T/full/x.db" -r 20000 --warmup 0 -L b $SYSCTL -- true \
        >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 1 ] || fail "with $free KiB free: exit $rc, not 1: $(head -c 300 "$T/err")"
    expect_one_line_err
    no_leftovers "$T/full"
    umount "$T/full"
done
mountpoint -q "$T/full" && umount "$T/full"

# killed_through NAME LABEL: a run written through the database's name
# NAME whose command kills noisefloor (its parent) with SIGKILL on its 51st
# start: 50 repetitions had finished, some of them only in the journal.
killed_through() {
    printf '%s\n' 'n=$(cat "$1"); echo $((n + 1)) >"$1"' '[ "$n" -lt 50 ] || kill -KILL $PPID' \
        >"$T/count.sh"
    echo 0 >"$T/count"
    expect_rc 137 "$NF" run --db "$1" -r 100000 --warmup 0 -L "$2" -- sh "$T/count.sh" "$T/count"
}
# reps_of ID: the repetitions of run ID, read through $NOISEFLOOR_DB.
reps_of() { "$NF" show --json "$1" | /usr/bin/python3 -c '
import json, sys; d = json.load(sys.stdin); print(d["status"], len(d["metrics"][0]["values"]))'; }

t_case "a database reached through a symlink: the real path finds the journal"
mkdir "$T/sl"
expect_rc 0 "$NF" run --db "$T/sl/real.db" -r 1 --warmup 0 -L a -- true
ln -s real.db "$T/sl/link.db"
killed_through "$T/sl/link.db" viasymlink
[ "$(NOISEFLOOR_DB=$T/sl/real.db reps_of 2)" = "incomplete 50" ] ||
    fail "through the real path: $(NOISEFLOOR_DB=$T/sl/real.db reps_of 2)"
! ls "$T/sl" | grep -q nfj || fail "a journal was left: $(ls "$T/sl")"

# A writer's journal and the host name: the run records the writer's host
# name (NOISEFLOOR_HOSTNAME here; a container's that changes at every
# start, or another machine's on shared storage), but whether the writer
# lives is told by the lock it holds on its journal.
t_case "a killed writer's journal is folded in by a reader under another host name"
mkdir "$T/hn"
NOISEFLOOR_HOSTNAME=host-a killed_through "$T/hn/x.db" killed
[ "$(NOISEFLOOR_HOSTNAME=host-b NOISEFLOOR_DB=$T/hn/x.db reps_of 1)" = "incomplete 50" ] ||
    fail "under host-b: $(NOISEFLOOR_HOSTNAME=host-b NOISEFLOOR_DB=$T/hn/x.db reps_of 1)"
! ls "$T/hn" | grep -q nfj || fail "the dead writer's journal was left: $(ls "$T/hn")"

t_case "a live writer under another host name shows running and cannot be removed"
# The command stops noisefloor (its parent) with SIGSTOP on its 21st
# start, and lets it go on after that: 20 repetitions had finished.
mkdir "$T/live"
printf '%s\n' 'n=$(cat "$1"); echo $((n + 1)) >"$1"' '[ "$n" -ne 20 ] || kill -STOP $PPID' \
    >"$T/stop.sh"
echo 0 >"$T/count"
NOISEFLOOR_HOSTNAME=host-a "$NF" run --db "$T/live/x.db" -r 60 --warmup 0 -L live \
    -- sh "$T/stop.sh" "$T/count" >"$T/live.out" 2>"$T/live.err" &
writer=$!
# Stopped (state T in /proc/PID/stat, after its name's ")") within 60 s,
# or given up.
stopped() { [ "$(sed 's/.*) \(.\).*/\1/' "/proc/$writer/stat" 2>/dev/null)" = T ]; }
i=0
while [ $i -lt 600 ] && ! stopped; do
    sleep 0.1
    i=$((i + 1))
done
stopped || fail "the writer did not stop: $(cat "/proc/$writer/stat" 2>&1)"
export NOISEFLOOR_DB="$T/live/x.db"
NOISEFLOOR_HOSTNAME=host-b expect_rc 0 "$NF" list
expect_in out '^ +1 +live .* running *$'
[ "$(NOISEFLOOR_HOSTNAME=host-b "$NF" show --json 1 |
    /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["status"])')" = running ] ||
    fail "show under host-b does not say running"
NOISEFLOOR_HOSTNAME=host-b expect_rc 1 "$NF" rm 1
expect_one_line_err
expect_in err 'run 1 is still being written'
NOISEFLOOR_HOSTNAME=host-b expect_rc 0 "$NF" list
expect_in out '^ +1 +live '
ls "$T/live" | grep -q 'x\.db-nfj\.1$' || fail "the live writer's journal is gone: $(ls "$T/live")"
kill -CONT $writer
wait $writer
rc=$?
[ $rc -eq 0 ] || fail "the writer ended with exit $rc: $(head -c 300 "$T/live.err")"
[ "$(reps_of 1)" = "complete 60" ] || fail "after it went on: $(reps_of 1)"
! ls "$T/live" | grep -q nfj || fail "a journal was left: $(ls "$T/live")"
export NOISEFLOOR_DB="$T/test.db"

pass
