# Runs that differ: compare's note and the noise diagnosis give one test
# and one p, the ANOVA over every repetition that decides the units (as
# scipy.stats.f_oneway: tests/ref/gen_runs_anova.py), also when the first
# repetitions of each run are a warm-up the diagnosis finds.
. "$(dirname "$0")/lib.sh"

REF="$ROOT/tests/data/ref_runs_anova.json"

t_case "import runs of two labels"
expect_rc 0 "$NF" import -f json "$ROOT/tests/data/runs_anova_runs.json"

t_case "the note and the finding say the same p, SciPy's"
expect_rc 0 "$NF" compare a b --json
/usr/bin/python3 - "$T/out" "$REF" <<'PY' || fail "the ANOVA p differs"
import json, math, re, sys
d = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))
row = d["rows"][0]
finding = [x for x in row["diagnosis"] if x["kind"] == "runs-differ"]
note = [n for n in row["notes"] if n.startswith("a: runs differ more than their repetitions")]
ok = (len(finding) == 1 and finding[0]["label"] == "a" and len(note) == 1
      and math.isclose(finding[0]["p"], ref["p_all"], rel_tol=1e-9)
      and re.search(r"ANOVA p %.3g\)" % ref["p_all"], note[0]) is not None
      and "using 3 run means" in note[0]
      and any(x["kind"] == "warm-up" and x["label"] == "a" for x in row["diagnosis"]))
print(finding, note) if not ok else None
sys.exit(0 if ok else 1)
PY
# without the warm-up the same test would say another p: the case tells them apart
/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["p_without_warmup"] < r["p_all"] / 5 < 0.05 else 1)' "$REF" ||
    fail "the reference case does not tell the two tests apart"

t_case "the text shows one p"
expect_rc 0 "$NF" compare a b
p=$(/usr/bin/python3 -c 'import json, sys; print("%.3g" % json.load(open(sys.argv[1]))["p_all"])' "$REF")
# said once, by the diagnosis with its cause and fix (the cell's own note
# said it again); the N row says the run means are the units
expect_in out "note: a: the 3 runs differ more than their repetitions \(ANOVA p $p\)"
expect_in out "^N +3 runs +"
[ "$(grep -c 'ANOVA p' "$T/out")" -eq 1 ] || fail "the ANOVA p not once in the notes"
# the JSON keeps the cell's note
expect_rc 0 "$NF" compare --json a b
json_check 'any(n.startswith("a: runs differ more than their repetitions") and n.endswith("; using 3 run means") for n in d["rows"][0]["notes"])'

pass
