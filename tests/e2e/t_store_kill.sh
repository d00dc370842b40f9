# Nothing lost: SIGKILL mid-run keeps the finished repetitions and reads as
# incomplete; SIGINT/SIGTERM finish the write, mark interrupted, exit 130/143.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

# Wait until run $1 has at least $2 stored repetitions (as another process
# sees it, while the writer holds the database).
wait_reps() {
    i=0
    while [ $i -lt 300 ]; do
        if "$NF" show --json "$1" >"$T/poll" 2>/dev/null &&
           /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if len(d["metrics"][0]["values"]) >= int(sys.argv[2]) else 1)' "$T/poll" "$2"; then
            return 0
        fi
        sleep 0.1; i=$((i + 1))
    done
    fail "run $1 never reached $2 repetitions"
}

t_case "SIGKILL keeps what finished, reads as incomplete"
# --- SIGKILL ---
"$NF" run -r 100000 --warmup 0 -L killed pipe -l 20000 >/dev/null 2>"$T/kill.err" &
pid=$!
wait_reps 1 3
expect_rc 0 "$NF" show --json 1
json_check 'd["status"] == "running"'          # the writer is alive
kill -KILL $pid
wait $pid 2>/dev/null
expect_rc 0 "$NF" show --json 1
json_check 'd["status"] == "incomplete"'
json_check 'len(d["metrics"][0]["values"]) >= 3'
# Every supported metric has the same finished repetitions, none half-written.
json_check 'len({len(m["values"]) for m in d["metrics"] if m["supported"]}) == 1'
expect_rc 0 "$NF" show 1
expect_in out 'status +incomplete'
expect_in out '^ +3 +[0-9.]+'
expect_rc 0 "$NF" list
expect_in out '^ +1 +killed .* incomplete$'
# The database is still good for writing.
expect_rc 0 "$NF" run -r 1 --warmup 0 -L after pipe -l 1000

t_case "SIGINT: interrupted, exit 130"
# --- SIGINT ---
"$NF" run -r 100000 --warmup 0 -L stopped pipe -l 20000 >/dev/null 2>"$T/int.err" &
pid=$!
wait_reps 3 2
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "SIGINT: expected exit 130, got $rc"
grep -q 'interrupted by signal 2' "$T/int.err" || fail "SIGINT: no message: $(cat "$T/int.err")"
expect_rc 0 "$NF" show --json 3
json_check 'd["status"] == "interrupted" and len(d["metrics"][0]["values"]) >= 2'
json_check 'len({len(m["values"]) for m in d["metrics"] if m["supported"]}) == 1'

t_case "SIGTERM: interrupted, exit 143"
# --- SIGTERM ---
"$NF" run -r 100000 --warmup 0 -L termed pipe -l 20000 >/dev/null 2>"$T/term.err" &
pid=$!
wait_reps 4 1
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 143 ] || fail "SIGTERM: expected exit 143, got $rc: $(head -c 400 "$T/term.err")"
expect_rc 0 "$NF" show --json 4
json_check 'd["status"] == "interrupted"'
t_case "SIGKILL between commits: every finished repetition is stored"
# The command counts its own runs and, on its 201st, kills noisefloor (its
# parent) with SIGKILL: 200 repetitions had finished.  Short repetitions
# wait in the store's journal for their transaction (sqlite: up to 100
# ms, some tens of them here); the next open puts them in.
printf '%s\n' 'n=$(cat "$1"); echo $((n + 1)) >"$1"' '[ "$n" -lt 200 ] || kill -KILL $PPID' >"$T/count.sh"
echo 0 >"$T/count"
expect_rc 137 "$NF" run -r 100000 --warmup 0 -L selfkilled -- sh "$T/count.sh" "$T/count"
[ "$(cat "$T/count")" = 201 ] || fail "the command ran $(cat "$T/count") times"
expect_rc 0 "$NF" show --json 5
json_check 'd["status"] == "incomplete"'
json_check 'all(len(m["values"]) == 200 for m in d["metrics"] if m["supported"])'
if [ "$BACKEND" = sqlite ] && ls "$NOISEFLOOR_DB"-nfj.* 2>/dev/null; then
    fail "a journal was left after recovery"
fi
t_case "a live writer installed under another name stays running"
# noisefloor copied to a name without "noisefloor" in it writes a run whose
# one repetition waits on a FIFO: other commands see it running, rm
# refuses it, and its journal is left alone until it ends.
cp "$NF" "$T/nfcopy"
mkfifo "$T/gate"
"$T/nfcopy" run -r 1 --warmup 0 -L renamed -- cat "$T/gate" >/dev/null 2>&1 &
pid=$!
i=0
until "$NF" list -L renamed >"$T/l" 2>/dev/null && grep -q renamed "$T/l"; do
    i=$((i + 1)); [ $i -lt 300 ] || { kill $pid; fail "the run was never stored"; }
    sleep 0.1
done
id=$(awk '/renamed/ {print $1; exit}' "$T/l")
expect_rc 0 "$NF" show --json "$id"
json_check 'd["status"] == "running"'
expect_rc 1 "$NF" rm "$id"
expect_in err "still being written"
if [ "$BACKEND" = sqlite ]; then
    ls "$NOISEFLOOR_DB"-nfj."$id" >/dev/null 2>&1 || fail "the live writer's journal was taken"
fi
: >"$T/gate" # the repetition ends
wait $pid || fail "the renamed writer failed"
expect_rc 0 "$NF" show --json "$id"
json_check 'd["status"] == "complete" and len(d["metrics"][0]["values"]) == 1'
pass
