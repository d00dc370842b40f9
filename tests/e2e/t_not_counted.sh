# A counter that was opened but did not count is <not counted>, perf
# stat's word, not <not supported> (the machine cannot count it): stored,
# both are a metric without values (unsupported), told apart by the
# metric's own flag, not_counted (schema 11; "not_counted" in the JSON).
# run sets it, with the note "counters <not counted>, stored without
# values: WHY", for a command whose exec stopped its counters (a
# set-user-ID file: doc/noisefloor-run.1, -e); import of perf stat output
# with "'EVENT' was <not counted> in K of N invocations"
# (doc/noisefloor-import.1).  Runs stored or exported before the flag
# take it from those notes' words: the runs below are such an export.
# show's summary, compare's tables and its line when nothing was
# compared, and report --html's page say which it was; a counter the
# machine lacks stays <not supported>.  A store of schema 10 migrates to
# the same output; a note edited since changes nothing.
# (tests/e2e/t_hostile_counters.sh makes such runs for real, as root.)
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

t_case "setup: runs with counters not counted, not supported, counted"
/usr/bin/python3 - >"$T/runs.json" <<'PY'
import json
def met(name, unit, values, supported=True, primary=False):
    return {"name": name, "unit": unit, "better": "lower", "primary": primary,
            "supported": supported, "values": values if supported else []}
def run(label, note, counters):
    w = [1.0, 1.1, 0.9, 1.05, 0.95]
    mets = [met("wall", "seconds", w, primary=True),
            met("minor-page-faults", "", [49.0] * 5)]
    for name, sup in counters:
        mets.append(met(name, "msec" if name == "task-clock" else "", [3.0 + x for x in w], sup))
    return {"label": label, "workload": "command", "args": ["/usr/bin/true"], "repeat": 5,
            "warmup": 1, "started": "2026-01-01T12:00:00Z", "status": "complete",
            "note": note, "env": {"hostname": "h"}, "metrics": mets}
stopped = ("counters <not counted>, stored without values: '/tmp/suid' is set-user-ID "
           "(owner uid 65534; we run as uid 0): the kernel stops a counter at its exec")
print(json.dumps({"runs": [
    run("suid", stopped, [("task-clock", False), ("page-faults", False), ("cycles", False)]),
    run("nopmu", None, [("task-clock", True), ("page-faults", True), ("cycles", False)]),
    run("perf", "'cycles' was <not counted> in 3 of 5 invocations: stored without values",
        [("task-clock", True), ("page-faults", True), ("cycles", False), ("branches", False)]),
    run("base", None, [("task-clock", True), ("page-faults", True), ("cycles", True)]),
]}))
PY
expect_rc 0 "$NF" import "$T/runs.json" --format json
ids=$("$NF" export | /usr/bin/python3 -c 'import json,sys; print(" ".join(str(r["id"]) for r in json.load(sys.stdin)["runs"]))')
set -- $ids
SUID=$1 NOPMU=$2 PERF=$3

t_case "show: a set-user-ID command's stopped counters are <not counted>"
expect_rc 0 "$NF" show "$SUID"
expect_in out "^ +<not counted> +msec task-clock *$"
expect_in out "^ +<not counted> +page-faults *$"
expect_in out "^ +<not counted> +cycles *$"
expect_not_in out "not supported"

t_case "show: a counter the machine lacks stays <not supported>"
expect_rc 0 "$NF" show "$NOPMU"
expect_in out "^ +<not supported> +cycles *$"
expect_not_in out "not counted"

t_case "show: perf stat's <not counted> event, named in the note"
expect_rc 0 "$NF" show "$PERF"
expect_in out "^ +<not counted> +cycles *$"
expect_in out "^ +<not supported> +branches *$"

t_case "compare: the label's cell says <not counted>"
expect_rc 0 "$NF" compare --all base suid nopmu
expect_in out "<not counted>"
# each table's Amean row: base's mean, suid's and nopmu's words
expect_in out "^Amean +msec +4\.0000 \(  0\.00%\) +<not counted> +4\.0000 "
expect_in out "^Amean +cycles +4\.0000 \(  0\.00%\) +<not counted> +<not supported>$"

t_case "compare --json: the note says not counted"
expect_rc 0 "$NF" compare --json base suid nopmu
json_check '[n for r in d["rows"] if r["label"] == "suid" and r["metric"] == "cycles" for n in r["notes"] if "<not counted>" in n]'
json_check '[n for r in d["rows"] if r["label"] == "nopmu" and r["metric"] == "cycles" for n in r["notes"] if "<not supported>" in n]'
json_check 'not [n for r in d["rows"] if r["label"] == "suid" for n in r["notes"] if "<not supported>" in n]'

t_case "compare: no samples of a <not counted> metric says so"
expect_rc 2 "$NF" compare -m cycles base suid
expect_in err "'suid' has no samples of cycles, only <not counted> \(the event was opened but did not count, as the runs' note says\)"
expect_rc 2 "$NF" compare -m cycles base nopmu
expect_in err "'nopmu' has no samples of cycles, only <not supported> \(the event could not be counted\)"

t_case "report --html: the cell, the verdict line and the note say <not counted>"
expect_rc 0 "$NF" report --html "$T/r.html" base suid nopmu
# the cycles table's rows (in table order: base, suid, nopmu)
/usr/bin/python3 - "$T/r.html" <<'PY' || fail "report's page: see above"
import re, sys
page = open(sys.argv[1]).read()
cells = re.findall(r'<td colspan="\d+" class="l ns">([^<]*)</td>', page)
assert "&lt;not counted&gt;" in cells, cells
assert "&lt;not supported&gt;" in cells, cells
# suid's cells are all <not counted>, nopmu's only cycles is <not supported>
rows = re.findall(r'<tr class="[^"]*"><td class="l">(\w+)</td><td colspan="\d+" class="l ns">([^<]*)</td>', page)
assert rows and all(w == "&lt;not counted&gt;" for l, w in rows if l == "suid"), rows
assert [w for l, w in rows if l == "nopmu"] == ["&lt;not supported&gt;"], rows
assert "suid: &lt;not counted&gt; (the event was opened but did not count, as the runs' note says)" in page
assert "nopmu: &lt;not supported&gt; (the event could not be counted)" in page
assert "suid: &lt;not supported&gt;" not in page
PY
# -m cycles: its verdict lines, each side's word (no row compared: exit 2,
# the page written)
expect_rc 2 "$NF" report -m cycles --html "$T/m.html" base suid nopmu
/usr/bin/python3 - "$T/m.html" <<'PY' || fail "report -m cycles's page: see above"
import re, sys
page = open(sys.argv[1]).read()
said = dict(re.findall(r'<b>(\w+)</b> vs <b>base</b> on command cycles: not compared \(([^)]*)\)', page))
assert said == {"suid": "&lt;not counted&gt;", "nopmu": "&lt;not supported&gt;"}, said
PY

# outputs: what show and compare print of the runs, into $T/$1.
outputs() {
    for i in $SUID $NOPMU $PERF; do "$NF" show "$i"; done >"$T/$1" 2>&1
    "$NF" compare --all base suid nopmu perf >>"$T/$1" 2>&1
    "$NF" compare --json base suid nopmu perf >>"$T/$1" 2>&1
    "$NF" compare -m cycles base suid >>"$T/$1" 2>&1
}
# flags: each metric stored without values, "id name not_counted", a line each.
flags() {
    store_sql "SELECT run_id || ' ' || name || ' ' || CASE WHEN not_counted THEN 1 ELSE 0 END
         FROM metrics WHERE NOT supported ORDER BY run_id, idx"
}

t_case "export: the flag as its own field; export, import, export the same"
expect_rc 0 "$NF" export
json_check '[(m["name"], m["not_counted"]) for r in d["runs"] if r["label"] == "suid" for m in r["metrics"] if not m["supported"]] == [("task-clock", True), ("page-faults", True), ("cycles", True)]'
json_check '[(m["name"], m["not_counted"]) for r in d["runs"] if r["label"] == "perf" for m in r["metrics"] if not m["supported"]] == [("cycles", True), ("branches", False)]'
json_check 'not [m for r in d["runs"] for m in r["metrics"] if m["supported"] and "not_counted" in m]'
cp "$T/out" "$T/e1.json"
expect_rc 0 "$NF" --db "$T/rt.db" import "$T/e1.json" --format json
expect_rc 0 "$NF" --db "$T/rt.db" export
cmp -s "$T/out" "$T/e1.json" || fail "export, import, export differs: $(diff "$T/out" "$T/e1.json" | head -5)"

t_case "a store of schema 10 (no flag; the notes told) migrates to the same output"
outputs want
flags >"$T/flags"
[ "$(cat "$T/flags")" = "$SUID task-clock 1
$SUID page-faults 1
$SUID cycles 1
$NOPMU cycles 0
$PERF cycles 1
$PERF branches 0" ] || fail "flags stored: $(cat "$T/flags")"
expect_rc 0 "$NF" history # writes the points cache
[ -n "$(store_sql "SELECT upto FROM points_cache")" ] || fail "no points cache written"
store_sql "ALTER TABLE metrics DROP COLUMN not_counted" >/dev/null
store_sql "UPDATE schema_version SET version = 10" >/dev/null
expect_rc 0 "$NF" list
[ "$(store_sql "SELECT max(version) FROM schema_version")" = 11 ] || fail "not migrated to 11"
[ -z "$(store_sql "SELECT upto FROM points_cache")" ] || fail "the points cache of schema 10 is still there"
flags >"$T/flags2"
cmp -s "$T/flags" "$T/flags2" || fail "flags after the migration: $(cat "$T/flags2")"
outputs got
cmp -s "$T/want" "$T/got" || fail "output differs after the migration: $(diff "$T/want" "$T/got" | head -5)"

t_case "a note edited changes neither <not counted> nor <not supported>"
store_sql "UPDATE runs SET note = 'edited' WHERE id = $SUID" >/dev/null
store_sql "UPDATE runs SET note = 'counters <not counted>, stored without values: x' WHERE id = $NOPMU" >/dev/null
expect_rc 0 "$NF" show "$SUID"
expect_in out "^ +<not counted> +cycles *$"
expect_not_in out "not supported"
expect_rc 0 "$NF" show "$NOPMU"
expect_in out "^ +<not supported> +cycles *$"
expect_rc 0 "$NF" compare --all base suid nopmu
expect_in out "^Amean +cycles +4\.0000 \(  0\.00%\) +<not counted> +<not supported>$"
pass
