# A writer killed by SIGKILL leaves repetitions in its journal (sqlite:
# DATABASE-nfj.ID) that are not in the database yet.  Where the database
# cannot be written (a read-only mount or directory, a full disk) the
# commands that only read show them all the same, and change nothing on
# disk; a live writer's journal stays its own; the next open that can
# write folds the journal into the database as before.
if [ -z "${NF_E2E_MOUNTNS:-}" ] && [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    # A private mount namespace: the mounts below vanish with us.
    NF_E2E_MOUNTNS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

mkdir "$T/db"
export NOISEFLOOR_DB="$T/db/test.db"

# The command of the killed runs counts its invocations in $T/count, with
# the shell's builtins only (a repetition takes a few ms); from the 11th
# on, invocation N (0-based) waits for the file $T/go.N.
printf '%s\n' 'read n <"$1"; echo $((n + 1)) >"$1"' \
    '[ "$n" -lt 10 ] || until [ -e "$2.$n" ]; do sleep 0.01; done' >"$T/gated.sh"
# started N: wait until the command's N-th invocation has begun (20 s at
# most); the N - 1 before it have finished and their rows are stored.
started() {
    i=0
    while :; do
        c=
        read c <"$T/count" # empty, or short, while it is being written
        [ "${c:-0}" -ge "$1" ] && return 0
        i=$((i + 1)); [ $i -lt 400 ] || return 1
        sleep 0.05
    done
}
# stored ID: how many repetitions of run ID another process reads.
stored() {
    "$NF" show --json "$1" | /usr/bin/python3 -c \
        'import json, sys; print(len(json.load(sys.stdin)["metrics"][0]["values"]))'
}
# killed_writer ID LABEL: run ID of LABEL, its writer killed by SIGKILL
# while waiting for a repetition, with at least one finished repetition
# in its journal only (not flushed into the database: a reader sees fewer
# while the writer lives).  $reps: how many finished.
killed_writer() {
    reps=0
    echo 0 >"$T/count"
    rm -f "$T"/go.*
    "$NF" run -r 100000 --warmup 0 -L "$2" -- sh "$T/gated.sh" "$T/count" "$T/go" \
        >/dev/null 2>&1 &
    writer=$!
    started 11 || fail "the command never got to its 11th invocation"
    bursts=0
    while ! case_failed; do
        reps=$(($(cat "$T/count") - 1))
        [ "$(stored "$1")" -lt "$reps" ] && break
        # The last repetition's end flushed the journal (100 ms had passed
        # since its last flush): two more, one right after the other (the
        # first flushes; the second ends within 100 ms of it unless the
        # machine is very slow: then two more).
        bursts=$((bursts + 1))
        [ $bursts -le 20 ] || { fail "the journal was flushed at every look"; break; }
        touch "$T/go.$reps" "$T/go.$((reps + 1))"
        started $((reps + 3)) || fail "the command stopped at invocation $((reps + 1))"
    done
    kill -KILL $writer
    wait $writer 2>/dev/null
    touch "$T/go.$reps" # the command waiting when noisefloor died ends
}
sums() { (cd "$T/db" && ls -la --time-style=+ . && sha256sum ./*); }
# ro CMD...: CMD with $T/db and what is in it read-only: a read-only bind
# mount as root (who may write anything else), else without write
# permission.  Output to $T/out and $T/err; its exit status.
ro() {
    if [ -n "${NF_E2E_MOUNTNS:-}" ]; then
        mount --bind "$T/db" "$T/db" && mount -o remount,ro,bind "$T/db" ||
            { fail "cannot mount $T/db read-only"; return 1; }
    else
        chmod a-w "$T/db" "$T/db"/*
    fi
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ -n "${NF_E2E_MOUNTNS:-}" ]; then
        umount "$T/db"
    else
        chmod u+w "$T/db" "$T/db"/*
    fi
    return $rc
}
if [ "$(id -u)" = 0 ] && [ -z "${NF_E2E_MOUNTNS:-}" ]; then
    skip "root ignores permissions, and cannot mount here (unshare -m)"
fi

t_case "setup: a run, and one killed with rows in its journal only"
expect_rc 0 "$NF" run -r 5 --warmup 0 -L base -- true
killed_writer 2 killed
[ -f "$T/db/test.db-nfj.2" ] || fail "the killed writer left no journal"
# As the death left it: the commits in the -wal (read through the -shm).
[ -s "$T/db/test.db-wal" ] && [ -f "$T/db/test.db-shm" ] || fail "no -wal and -shm"

t_case "read-only: the dead writer's journal is read; nothing changes"
before=$(sums)
ro "$NF" show --json 2 || fail "show: $(head -c 400 "$T/err")"
json_check 'd["status"] == "incomplete"'
json_check "all(len(m['values']) == $reps for m in d['metrics'] if m['supported'])"
cp "$T/out" "$T/ro.json"
ro "$NF" list || fail "list: $(head -c 400 "$T/err")"
expect_in out "^ +2 +killed .* $reps +[0-9.e-]+ .* incomplete\$"
ro "$NF" compare base killed --json || fail "compare: $(head -c 400 "$T/err")"
json_check "[r['n'] for r in d['rows'] if r['metric'] == 'wall'] == [$reps]"
ro "$NF" export || fail "export: $(head -c 400 "$T/err")"
json_check "len(d['runs'][1]['metrics'][0]['values']) == $reps"
[ "$(sums)" = "$before" ] || fail "the database or its files changed"

t_case "a writable open then folds the journal, rows as read"
expect_rc 0 "$NF" show --json 2
/usr/bin/python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
    "$T/ro.json" "$T/out" || fail "the run reads otherwise once folded"
[ ! -e "$T/db/test.db-nfj.2" ] || fail "the journal was left after folding"

t_case "read-only: a live writer's journal is its own"
# As before: a reader sees what the writer has put into the database, and
# leaves its journal alone.
echo 0 >"$T/count"
rm -f "$T"/go.*
"$NF" run -r 12 --warmup 0 -L live -- sh "$T/gated.sh" "$T/count" "$T/go" >/dev/null 2>&1 &
writer=$!
started 11 || fail "the command never got to its 11th invocation"
n=$(stored 3)
ro "$NF" show --json 3 || fail "show: $(head -c 400 "$T/err")"
json_check "d['status'] == 'running' and len(d['metrics'][0]['values']) == $n"
[ -f "$T/db/test.db-nfj.3" ] || fail "the live writer's journal was taken"
touch "$T/go.10" "$T/go.11"
wait $writer || fail "the writer failed"
expect_rc 0 "$NF" show --json 3
json_check 'd["status"] == "complete" and len(d["metrics"][0]["values"]) == 12'

[ -n "${NF_E2E_MOUNTNS:-}" ] || skip "cannot mount a small file system here (needs root and unshare -m)"
t_case "a full disk: the journal is read, not folded, until there is room"
mkdir "$T/full"
mount -t tmpfs -o size=4m tmpfs "$T/full" || fail "cannot mount a tmpfs"
export NOISEFLOOR_DB="$T/full/test.db"
killed_writer 1 full
dd if=/dev/zero of="$T/full/fill" bs=4k 2>/dev/null
expect_rc 0 "$NF" show --json 1
json_check "d['status'] == 'incomplete' and len(d['metrics'][0]['values']) == $reps"
cp "$T/out" "$T/full.json"
[ -e "$T/full/test.db-nfj.1" ] || fail "the journal went with nothing folded"
rm "$T/full/fill"
expect_rc 0 "$NF" show --json 1
/usr/bin/python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
    "$T/full.json" "$T/out" || fail "the run reads otherwise once folded"
[ ! -e "$T/full/test.db-nfj.1" ] || fail "the journal was left after folding"
umount "$T/full"
pass
