# One thing said one way wherever it is said: run --json is the run object
# of show --json and export (histograms included, repetitions numbered
# from 1 as show and the diagnosis number them); the HTML report, compare's
# text and compare's JSON give an inconclusive row's advice in the same
# words and the JSON has every note the text has; report exits as compare
# does when nothing could be compared; the messages of insns on a cut-off
# ELF and of submit with a job's --db.
. "$(dirname "$0")/lib.sh"

t_case "run --json is the run object of show --json, histograms included"
expect_rc 0 "$NF" run -q --json -r 2 --warmup 0 -L lat timer -i 200 -l 100
cp "$T/out" run.json
json_check '"histograms" in d and "diagnosis" in d'
expect_rc 0 "$NF" show --json "$(/usr/bin/python3 -c 'import json; print(json.load(open("run.json"))["id"])')"
/usr/bin/python3 - run.json "$T/out" <<'PY' || fail "run --json (less its diagnosis) is not show --json"
import json, sys
r, s = (json.load(open(p)) for p in sys.argv[1:])
r.pop("diagnosis")
sys.exit(r != s)
PY

pass
