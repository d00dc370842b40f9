# The store against hostile use: a run still being written is not removed
# from under its writer.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

# status_of ID: the run's status as list shows it.
status_of() { "$NF" export | /usr/bin/python3 -c "
import json, sys
print(next((r['status'] for r in json.load(sys.stdin)['runs'] if r['id'] == $1), 'gone'))"; }

t_case "rm of a run that is still being written is refused"
expect_rc 0 "$NF" run -r 1 --warmup 0 -L first -- true
"$NF" run -r 100000 --warmup 0 -L long -- sleep 0.01 >/dev/null 2>&1 &
writer=$!
# Until the writer has begun its run (it stores it before the first
# repetition); 20 s at most.
for _ in $(seq 200); do
    [ "$(status_of 2 2>/dev/null)" = running ] && break
    sleep 0.1
done
[ "$(status_of 2)" = running ] || fail "the writer never began its run"
expect_rc 1 "$NF" rm 2
expect_one_line_err
expect_in err "run 2 is still being written"
# All or nothing: with another id, nothing is removed either.
expect_rc 1 "$NF" rm 1 2
[ "$(status_of 1)" = complete ] || fail "run 1 was removed with a refused rm"
[ "$(status_of 2)" = running ] || fail "the running run was removed"
t_case "once its writer is gone, it can be removed"
kill -KILL "$writer"
wait "$writer" 2>/dev/null
[ "$(status_of 2)" = incomplete ] || fail "a killed writer's run is not incomplete: $(status_of 2)"
expect_rc 0 "$NF" rm 2
expect_in out "removed run 2"
[ "$(status_of 1)" = complete ] || fail "run 1 went too"
pass
