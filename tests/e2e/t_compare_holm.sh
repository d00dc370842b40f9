# Holm's families: the primary metric's rows are corrected among
# themselves, the other metrics' rows apart, constant identical rows in
# neither, a rate beside its reciprocal takes its twin's p; so the primary
# metric's verdict does not flip with -m.  p and Holm p against SciPy and a
# hand-made Holm (tests/ref/gen_holm_families.py); the advice of a row
# significant only before the correction; the footers and the HTML header.
. "$(dirname "$0")/lib.sh"

REF="$ROOT/tests/data/ref_holm_families.json"

t_case "import the pipe-like runs"
expect_rc 0 "$NF" import -f json "$ROOT/tests/data/holm_families_runs.json"

t_case "p, Holm p and family of every row, as SciPy and Holm by hand"
expect_rc 0 "$NF" compare v0 v1 v2 --json
/usr/bin/python3 - "$T/out" "$REF" <<'PY' || fail "rows differ from $REF"
import json, math, sys
d = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))["rows"]
got = {(r["metric"], r["label"]): r for r in d["rows"]}
bad = []
close = lambda a, b: math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
for e in ref:
    r = got[(e["metric"], e["label"])]
    if not close(r["p_value"], e["p_value"]) or not close(r["p_adjusted"], e["p_adjusted"]):
        bad.append((e["metric"], e["label"], r["p_value"], r["p_adjusted"], e["p_value"], e["p_adjusted"]))
    if r["family"] != e["family"]:
        bad.append((e["metric"], e["label"], "family", r["family"], e["family"]))
    if e["runs_needed_before_holm"] is not None and r["runs_needed"] != e["runs_needed_before_holm"]:
        bad.append((e["metric"], e["label"], "runs_needed", r["runs_needed"], e["runs_needed_before_holm"]))
if d["families"] != {"primary": 2, "secondary": 6, "constant": 4, "sequential": 0}:
    bad.append(("families", d["families"]))
print(bad) if bad else None
sys.exit(1 if bad else 0)
PY

t_case "the primary metric's verdict is the same with and without -m"
expect_rc 0 "$NF" compare v0 v1 v2 --json
json_check 'next(r for r in d["rows"] if r["metric"] == "usecs/op" and r["label"] == "v1")["verdict"] == "improved"'
json_check 'next(r for r in d["rows"] if r["metric"] == "ops/sec" and r["label"] == "v1")["verdict"] == "improved"'
cp "$T/out" all.json
expect_rc 0 "$NF" compare -m usecs/op v0 v1 v2 --json
/usr/bin/python3 - all.json "$T/out" <<'PY' || fail "-m usecs/op changed a usecs/op row"
import json, sys
a = [r for r in json.load(open(sys.argv[1]))["rows"] if r["metric"] == "usecs/op"]
m = json.load(open(sys.argv[2]))["rows"]
key = lambda r: (r["label"], r["p_adjusted"], r["verdict"], r["family"])
sys.exit(0 if [key(r) for r in a] == [key(r) for r in m] else 1)
PY
# over all 14 rows, as before, v1 would be inconclusive (SciPy: Holm 0.26)
/usr/bin/python3 -c '
import json, sys
r = next(r for r in json.load(open(sys.argv[1]))["rows"] if r["metric"] == "usecs/op" and r["label"] == "v1")
sys.exit(0 if r["p_adjusted_one_family"] > 0.05 > r["p_adjusted"] else 1)' "$REF" ||
    fail "the reference case does not tell the families from one family"

t_case "a row significant only before the correction: its advice says so"
expect_rc 0 "$NF" compare v0 v1 v2 --json
json_check 'any("v1: inconclusive; significant before Holm" in n and "over the 6 rows of its family" in n and "about 12 repetitions per side (2 more)" in n for n in next(r for r in d["rows"] if r["metric"] == "user" and r["label"] == "v1")["notes"])'
json_check 'any("ops/sec is the reciprocal of usecs/op" in n for n in next(r for r in d["rows"] if r["metric"] == "ops/sec" and r["label"] == "v1")["notes"])'
expect_rc 0 "$NF" compare --brief v0 v1 v2
expect_in out "Amean  user .* inconclusive \(run 2 more\)"

t_case "the footers say which family a row's Holm p is of"
expect_rc 0 "$NF" compare v0 v1 v2
# (in plain words: which rows are corrected together, which have none)
expect_in out "^Holm p: corrected together within the 2 rows of the primary metric \(usecs/op\), ops/sec takes the p of usecs/op, its reciprocal; and apart, within the other metrics' 6 rows; no Holm p \(\"-\"\) for 4 rows of constant identical values \(nothing to test\)\.$"
expect_rc 0 "$NF" compare --brief v0 v1 v2
expect_in out "^Holm p: corrected together within the 2 rows of the primary metric"
expect_rc 0 "$NF" compare -m user v0 v1 v2
expect_in out "^Holm p: corrected together within the 2 rows of the metric asked for \(user\)\.$"
expect_rc 0 "$NF" report v0 v1 v2 --html r.html
grep -q "Holm p: corrected together within the 2 rows of the primary metric (usecs/op)" r.html ||
    fail "the report's header does not name the families"
grep -q "over all 14 rows" r.html && fail "the report still says Holm is over all rows"

pass
