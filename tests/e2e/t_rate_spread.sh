# A rate (higher is better) is summarised by its harmonic mean, and the
# ( +- x% ) and cv beside it are relative to it: those of the reciprocals,
# in show, list and the run JSON alike (values and numbers from SciPy:
# tests/ref/gen_rate_spread.py); ops/sec beside usecs/op shows the same.
. "$(dirname "$0")/lib.sh"

REF="$ROOT/tests/data/ref_rate_spread.txt"
ref() { awk -v k="$1" '$1 == k { print $2 }' "$REF"; }
# fmt F NUMBER: the number as printf's F formats it
fmt() { awk -v f="$1" -v v="$2" 'BEGIN { printf f, v }'; }

t_case "import a rate"
sed -n 's/^values //p' "$REF" | tr ' ' '\n' >rate.txt
expect_rc 0 "$NF" import rate.txt --format values -L r --metric mbps --unit Mbit/s --better higher

t_case "show: the hmean, its +- and cv"
expect_rc 0 "$NF" show 1
sem=$(fmt "%5.2f" "$(ref sem_pct)"); cv=$(fmt "%6.2f" "$(ref cv_pct)")
expect_in out "87\.1194  Mbit/s mbps +\( \+- +$sem% \) .* cv +$cv% .*\(hmean\)"
expect_not_in out "$(fmt "%.2f" "$(ref amean_cv_pct)")%"
expect_in out "its \+- and cv are those of the reciprocals"

t_case "list: the primary's hmean +- cv"
expect_rc 0 "$NF" list
expect_in out "87\.1194 mbps \+- $(fmt "%.2f" "$(ref cv_pct)")%"

t_case "the run JSON: cv_pct and sem_pct of the reciprocals"
expect_rc 0 "$NF" export
json_check "abs(d['runs'][0]['metrics'][0]['cv_pct'] - $(ref cv_pct)) < 1e-6 and abs(d['runs'][0]['metrics'][0]['sem_pct'] - $(ref sem_pct)) < 1e-6 and abs(d['runs'][0]['metrics'][0]['mean'] - $(ref hmean)) < 1e-6"

t_case "ops/sec has the +- and cv of usecs/op"
expect_rc 0 "$NF" import -f json --renumber "$ROOT/tests/data/holm_families_runs.json"
expect_rc 0 "$NF" show 2
us=$(grep ' usecs/op ' "$T/out" | sed 's/.*( +- *\([0-9.]*%\) ).*cv *\([0-9.]*%\).*/\1 \2/')
ops=$(grep ' ops/sec ' "$T/out" | sed 's/.*( +- *\([0-9.]*%\) ).*cv *\([0-9.]*%\).*/\1 \2/')
[ -n "$us" ] && [ "$us" = "$ops" ] || fail "usecs/op '$us' but ops/sec '$ops'"
expect_rc 0 "$NF" compare v0 v1
cvs=$(grep '^CoeffVar' "$T/out" | head -2 | awk '{ print $3, $4 }' | sort -u | wc -l)
[ "$cvs" -eq 1 ] || fail "CoeffVar of usecs/op and ops/sec differ: $(grep '^CoeffVar' "$T/out" | head -2)"

pass
