# Two labelled runs → list → show → export json → import into a fresh
# database → export again: identical.  Plus CSV export, filters, rm.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

t_case "three labelled runs"
expect_rc 0 "$NF" run -r 3 --warmup 0 -L base pipe -l 2000
expect_rc 0 "$NF" run -r 2 --warmup 0 -L patched --pin 0 pipe -l 1000
expect_rc 0 "$NF" run -r 2 --warmup 0 -L patched --json pipe -l 1000 -T
json_check 'd["id"] == 3 and d["status"] == "complete" and d["label"] == "patched"'
json_check 'd["env"]["kernel"] and d["env"]["nr_cpus"] >= 1 and "governor" in d["env"]'

t_case "list and its filters"
expect_rc 0 "$NF" list
expect_in out '^ +ID +LABEL +WORKLOAD +STARTED +N +PRIMARY'
expect_in out '^ +1 +base +pipe -l 2000 .* 3 +[0-9.]+ usecs/op \+- [0-9.]+% +complete$'
expect_in out '^ +2 +patched +pipe -l 1000 '
[ "$(grep -c complete "$T/out")" -eq 3 ] || fail "list: expected 3 runs"
expect_rc 0 "$NF" list --label patched
[ "$(grep -c complete "$T/out")" -eq 2 ] || fail "list --label: expected 2 runs"
expect_not_in out ' base '
expect_rc 0 "$NF" list -w pipe -L base -L patched
[ "$(grep -c complete "$T/out")" -eq 3 ] || fail "list -L -L: expected 3 runs"

t_case "show"
expect_rc 0 "$NF" show 2
expect_in out '^run 2$'
expect_in out 'label +patched'
expect_in out '^environment:'
expect_in out 'pin +0$'
expect_in out 'kernel +[0-9]'
expect_in out '^repetitions \(2\):'
expect_in out '^ +2 +[0-9.]+ +[0-9.]+'
expect_rc 0 "$NF" show --json 1
json_check 'd["id"] == 1 and len(d["metrics"][0]["values"]) == 3'

t_case "export, import, export: identical, ids kept"
# A gap in the ids (run 5 removed) must survive the round trip: import keeps
# the ids of a run when they are free.  fresh.db is SQLite on both passes:
# on PostgreSQL this is export from the server -> import into SQLite ->
# export, byte for byte the same.
expect_rc 0 "$NF" run -r 2 --warmup 0 -L gone pipe -l 1000
expect_rc 0 "$NF" run -r 2 --warmup 0 -L gone pipe -l 1000
expect_rc 0 "$NF" rm 4
expect_rc 0 "$NF" export --format json
cp "$T/out" "$T/export1.json"
json_check '[r["id"] for r in d["runs"]] == [1, 2, 3, 5] and all(r["status"] == "complete" for r in d["runs"])'
expect_rc 0 "$NF" --db "$T/fresh.db" import "$T/export1.json" --format json
expect_in out '^imported run 1 \(label base, pipe, 3 repetitions\)$'
expect_rc 0 "$NF" --db "$T/fresh.db" export --format json
cmp -s "$T/out" "$T/export1.json" || fail "export → import → export differs: $(diff "$T/out" "$T/export1.json" | head -5)"

t_case "import into taken ids"
# Importing into a database whose ids are taken: refused, nothing stored;
# with --renumber new ids, same runs otherwise, and a warning says so.
expect_rc 2 "$NF" import "$T/export1.json" --format json
expect_one_line_err
expect_in err "4 of its 4 run ids are already in the store \(the first: run 1 in "
expect_rc 0 "$NF" export --label base
json_check '[r["id"] for r in d["runs"]] == [1]'
expect_rc 0 "$NF" import "$T/export1.json" --format json --renumber
expect_in err "^noisefloor: warning: import: 4 of 4 run ids were already in the store: renumbered$"
expect_in out '^imported run 6 \(label base'
expect_rc 0 "$NF" export --label base
json_check '[r["id"] for r in d["runs"]] == [1, 6] and d["runs"][0]["metrics"] == d["runs"][1]["metrics"]'

t_case "CSV export"
expect_rc 0 "$NF" export --format csv --label base
head -1 "$T/out" | grep -qx 'run,label,workload,metric,unit,better,rep,value,running_pct' || fail "csv header"
# 2 runs x 3 reps x supported metrics (usecs/op, ops/sec + counters).
rows=$(grep -c '^1,base,pipe,usecs/op,usecs/op,lower,[123],[0-9.]*,$' "$T/out")
[ "$rows" -eq 3 ] || fail "csv: expected 3 usecs/op rows of run 1, got $rows"

t_case "rm"
expect_rc 0 "$NF" rm 6 2
expect_in out '^removed run 6 \(label base, pipe, 3 repetitions, started '
expect_in out '^removed run 2 \(label patched'
expect_rc 0 "$NF" list
expect_not_in out '^ +2 '
expect_not_in out '^ +6 '
expect_rc 2 "$NF" show 6
expect_one_line_err
pass
