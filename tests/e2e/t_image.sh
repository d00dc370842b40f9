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
# page faults; one round trip over a pipe takes a few dozen.  A count of
# faults, not a CPU time: how long the start takes depends on the machine
# (and user and sys are split by the timer tick), the faults do not.
expect_rc 0 "$NF" run -r 3 --warmup 0 --json pipe -l 1
json_check 'next(m for m in d["metrics"] if m["name"] == "minor-page-faults")["max"] < 300'

t_case "workload metrics come back from the image"
expect_rc 0 "$NF" run -r 2 --warmup 0 --json messaging -g 1 -l 5
json_check '[m["name"] for m in d["metrics"]][:2] == ["seconds", "total-seconds"]'
json_check 'all(0 < s < t for s, t in zip(d["metrics"][0]["values"], d["metrics"][1]["values"]))'
json_check 'next(m for m in d["metrics"] if m["name"] == "max-rss")["min"] > 0'

pass
