# A built-in workload's repetition runs in a fresh image of the program
# (re-executed from /proc/self/exe), not in a copy of the process that
# holds the store: its forks and faults must not depend on the store's
# libraries or our heap.  Its rusage counts from go, not from the exec.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

# image_of PID: the pid of PID's child that is a workload's image, once
# there is one (up to 60 s: the child exists for the whole repetition).
image_of() {
    for _ in $(seq 600); do
        for c in $(pgrep -P "$1"); do
            tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | grep -q -- '--nf-image=' && {
                echo "$c"
                return 0
            }
        done
        sleep 0.1
    done
    return 1
}

t_case "the repetition runs in an image that holds nothing of the store"
# Long enough to look at; stopped with SIGTERM once seen.
"$NF" run -r 1 --warmup 0 -L image pipe -l 100000000 >/dev/null 2>"$T/run.err" &
pid=$!
child=$(image_of $pid) || fail "no image among the children of $pid: $(pgrep -a -P $pid)"
if ! case_failed; then
    [ "$(cat "/proc/$child/comm")" = noisefloor ] ||
        fail "the image is named '$(cat "/proc/$child/comm")', not noisefloor"
    # Nothing of the store: no file of the test's directory open (the
    # database, its journal), and for a PostgreSQL store no libpq mapped,
    # which the process that writes the run does have.
    held=$(ls -l "/proc/$child/fd" 2>/dev/null | grep -F -- "$T/test.db" || true)
    [ -z "$held" ] || fail "the image holds the store's files: $held"
    if [ "$BACKEND" = postgresql ]; then
        grep -q libpq "/proc/$pid/maps" || fail "the writer has no libpq mapped: the check below means nothing"
        if grep -q libpq "/proc/$child/maps"; then
            fail "the image has libpq mapped: $(grep libpq "/proc/$child/maps" | head -1)"
        fi
    fi
fi
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 143 ] || fail "SIGTERM: expected exit 143, got $rc: $(head -c 400 "$T/run.err")"

t_case "rusage counts from go, not the image's start"
# Starting the image (the exec, loading its libraries) takes some 600 minor
# page faults and milliseconds of CPU; one round trip over a pipe takes a
# few dozen faults.
expect_rc 0 "$NF" run -r 3 --warmup 0 --json pipe -l 1
json_check 'next(m for m in d["metrics"] if m["name"] == "minor-page-faults")["max"] < 300'
json_check 'next(m for m in d["metrics"] if m["name"] == "sys")["max"] < 0.002'

t_case "workload metrics come back from the image"
expect_rc 0 "$NF" run -r 2 --warmup 0 --json messaging -g 1 -l 5
json_check '[m["name"] for m in d["metrics"]][:2] == ["seconds", "transfer-seconds"]'
json_check 'all(0 < t < s for s, t in zip(d["metrics"][0]["values"], d["metrics"][1]["values"]))'
json_check 'next(m for m in d["metrics"] if m["name"] == "max-rss")["min"] > 0'

t_case "the image's argument is not an option"
expect_rc 2 "$NF" --nf-image=x
expect_one_line_err
expect_in err 'nf-image.*not an option'
expect_rc 2 "$NF" --nf-image=0,1
expect_one_line_err
expect_in err 'no result page'

t_case "an image that cannot be exec'd: the repetition runs in the fork, one warning"
# A copy of the program loses its execute permission mid-run: its next
# images cannot start (EACCES, root included), and the run goes on.
cp "$NF" "$T/nfcopy"
"$T/nfcopy" run --db "$T/fb.db" -r 40 --warmup 0 pipe -l 20000 >/dev/null 2>"$T/fb.err" &
pid=$!
n=0
until "$NF" show --db "$T/fb.db" --json 1 >"$T/poll" 2>/dev/null &&
    /usr/bin/python3 -c 'import json,sys; sys.exit(len(json.load(open(sys.argv[1]))["metrics"][0]["values"]) < 2)' "$T/poll"; do
    n=$((n + 1))
    [ $n -lt 600 ] || { fail "the run never reached 2 repetitions"; break; }
    sleep 0.1
done
chmod a-x "$T/nfcopy"
wait $pid
rc=$?
[ $rc -eq 0 ] || fail "expected exit 0, got $rc: $(head -c 400 "$T/fb.err")"
[ "$(grep -c 'cannot re-execute noisefloor' "$T/fb.err")" -eq 1 ] ||
    fail "expected one warning: $(head -c 400 "$T/fb.err")"
expect_rc 0 "$NF" show --db "$T/fb.db" --json 1
json_check 'd["status"] == "complete" and d["metrics"][0]["n"] == 40'

t_case "run through the dynamic loader: /proc/self/exe is the loader, so the fork"
ld=$(ls /lib64/ld-linux-*.so.2 /lib/ld-linux-*.so.* 2>/dev/null | head -n 1)
if [ -n "$ld" ]; then
    expect_rc 0 "$ld" "$NF" run -r 2 --warmup 0 pipe -l 1000
    expect_not_in err 'cannot|unrecognized'
else
    fail "no dynamic loader found under /lib64 or /lib"
fi

t_case "--timeout covers the image's start"
# An image that never gets ready (its loader runs a constructor that
# never returns): the timeout kills it and fails the repetition.
if "${CC:-cc}" -shared -fPIC -O2 -o "$T/image_hang.so" "$ROOT/tests/helpers/image_hang.c" 2>"$T/cc.err"; then
    # (timeout 60: without the deadline this would wait for ever)
    expect_rc 1 timeout 60 env LD_PRELOAD="$T/image_hang.so" "$NF" run -r 1 --warmup 0 --timeout 1 pipe -l 1
    expect_in err 'not ready within --timeout 1s; killed'
    left=$(grep -l -- "$T/image_hang.so" /proc/[0-9]*/environ 2>/dev/null || true)
    [ -z "$left" ] || fail "a process is left: $left"
else
    fail "cannot build the test library: $(head -c 300 "$T/cc.err")"
fi

pass
