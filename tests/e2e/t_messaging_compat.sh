# Messaging runs of the three kinds read as one: stored before the
# setup-inclusive interval (only `seconds`, from the start barrier), by the
# version that stored it as `seconds` and the barrier as
# `transfer-seconds`, and now (`seconds` from the barrier, `total-seconds`
# with the setup).  The middle kind is read with its names mapped, on
# every command and on both stores; nothing stored is rewritten.
# tests/data/compat/two-interval.json is the export of
#   noisefloor run -r 3 --warmup 1 -L two-interval messaging -g 1 -l 10
# made by noisefloor 7431541; before-rusage.json (t_metrics_compat.sh)
# holds a messaging run of the first kind.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

OLD=$ROOT/tests/data/compat/two-interval.json
# The fixture's own numbers: its seconds (setup included) and transfer-seconds.
want=$(/usr/bin/python3 -I -S -c '
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
m = {x["name"]: x["values"] for x in r["metrics"]}
print(json.dumps(m["transfer-seconds"], separators=(",", ":")), json.dumps(m["seconds"], separators=(",", ":")))' "$OLD")
barrier=${want%% *}
setup=${want#* }

t_case "a two-interval run reads with seconds from the barrier"
expect_rc 0 "$NF" import "$OLD" --format json
expect_rc 0 "$NF" export --format json
json_check 'len(d["runs"]) == 1'
json_check '[m["name"] for m in d["runs"][0]["metrics"]][:2] == ["seconds", "total-seconds"]'
json_check 'not any(m["name"] == "transfer-seconds" for m in d["runs"][0]["metrics"])'
json_check "d['runs'][0]['metrics'][0]['values'] == $barrier and d['runs'][0]['metrics'][0]['primary']"
json_check "d['runs'][0]['metrics'][1]['values'] == $setup and not d['runs'][0]['metrics'][1]['primary']"
cp "$T/out" "$T/mapped.json"
expect_rc 0 "$NF" show 1
expect_in out "total-seconds"
expect_not_in out "transfer-seconds"

t_case "the mapped export imports as the same run"
expect_rc 0 "$NF" --db "$T/second.db" import "$T/mapped.json" --format json
expect_rc 0 "$NF" --db "$T/second.db" export --format json
json_check "d['runs'][0]['metrics'][0]['name'] == 'seconds' and d['runs'][0]['metrics'][0]['values'] == $barrier"

t_case "the three kinds compare on seconds"
expect_rc 0 "$NF" import "$ROOT/tests/data/compat/before-rusage.json" --format json --renumber
expect_rc 0 "$NF" run -r 3 --warmup 1 -L now messaging -g 1 -l 10
expect_rc 0 "$NF" compare -w messaging --json -b before two-interval now
json_check 'all(r["p_value"] is not None for r in d["rows"] if r["metric"] == "seconds")'
json_check 'len([r for r in d["rows"] if r["metric"] == "seconds"]) == 2'
json_check 'not any(r["metric"] == "transfer-seconds" for r in d["rows"])'
# total-seconds: the old kind has none, the other two both.
json_check 'any(r["metric"] == "total-seconds" and r["label"] == "now" and r["p_value"] is None for r in d["rows"])'
expect_rc 0 "$NF" compare -w messaging --json -b two-interval now
json_check 'any(r["metric"] == "total-seconds" and r["p_value"] is not None for r in d["rows"])'

pass
