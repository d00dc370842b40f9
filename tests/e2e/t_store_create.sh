# Processes that find no database and start at once (parallel CI jobs
# given one --db) all create it, switch it to WAL and migrate it: every
# one of them runs and stores its run.  The race is in the switch to WAL
# (SQLite refuses it at once, without waiting, while another process has
# the new file open in rollback mode), so it is tried many times: before
# the fix, 4 processes at once lost one run in about 1 of 12 tries here, and 100 tries caught it 10 times in 10.
. "$(dirname "$0")/lib.sh"

TRIES=100
WRITERS=4

t_case "$WRITERS processes create one new database at once, $TRIES times"
n=1
while [ "$n" -le "$TRIES" ] && ! case_failed; do
    db="$T/new.$n.db"
    i=1
    pids=""
    while [ "$i" -le "$WRITERS" ]; do
        "$NF" run --db "$db" -L "w$i" -r 1 --warmup 0 -- true >/dev/null 2>"$T/err.$n.$i" &
        pids="$pids $!"
        i=$((i + 1))
    done
    i=1
    for p in $pids; do
        wait "$p" || fail "try $n, process $i: $(head -c 300 "$T/err.$n.$i")"
        i=$((i + 1))
    done
    case_failed || {
        "$NF" list --db "$db" >"$T/list" 2>&1 || fail "try $n: cannot list $db: $(head -c 300 "$T/list")"
        runs=$(grep -c ' complete$' "$T/list")
        [ "$runs" = "$WRITERS" ] || fail "try $n: $runs runs stored, not $WRITERS"
    }
    n=$((n + 1))
done

pass
