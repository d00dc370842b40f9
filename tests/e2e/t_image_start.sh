# How a workload's image starts, and what happens when it cannot: the
# image's argument is not an option, an exec that fails falls back to the
# fork with one warning, a program run through the dynamic loader uses the
# fork, and --timeout covers the start.  (The store plays no part: SQLite
# only; t_image.sh runs on both backends.)
. "$(dirname "$0")/lib.sh"

t_case "the image's argument is not an option"
expect_rc 2 "$NF" --nf-image=x
expect_one_line_err
expect_in err 'nf-image.*not an option'
expect_rc 2 "$NF" --nf-image=0,1
expect_one_line_err
expect_in err 'no result page'
# A file handed in as the result page is refused, and left as it was.
printf 'kept\n' >"$T/victim"
expect_rc 2 "$NF" --nf-image=0,1 3 pipe -l 10 3<>"$T/victim"
expect_one_line_err
expect_in err 'no result page'
[ "$(cat "$T/victim")" = kept ] || fail "the image wrote into a file passed as its result page"

t_case "an image that cannot be exec'd: the repetition runs in the fork, one warning"
# A copy of the program loses its execute permission mid-run: its next
# images cannot start (EACCES, root included), and the run goes on.
cp "$NF" "$T/nfcopy"
"$T/nfcopy" run --db "$T/fb.db" -r 12 --warmup 0 pipe -l 20000 >/dev/null 2>"$T/fb.err" &
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
json_check 'd["status"] == "complete" and d["metrics"][0]["n"] == 12'

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
