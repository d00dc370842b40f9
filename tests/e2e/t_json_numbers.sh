# Numbers in JSON and CSV output are the shortest text that reads back as
# the same double (0.05, not 0.050000000000000003), and still exact:
# export, import and export again gives the same bytes and the same bits.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

printf '%s\n' 1.1 0.1 1e-9 123.456 0.30000000000000004 2.5 >"$T/a.values"
printf '%s\n' 1.2 0.2 2e-9 123.5 0.7 3 >"$T/b.values"

t_case "export: shortest numbers that read back exactly"
expect_rc 0 "$NF" import "$T/a.values" --format values --metric x --unit s --better lower -L A
expect_rc 0 "$NF" import "$T/b.values" --format values --metric x --unit s --better lower -L B
expect_rc 0 "$NF" export --format json -L A
cp "$T/out" "$T/a.json"
json_check '[m["values"] for m in d["runs"][0]["metrics"] if m["name"] == "x"][0] == [1.1, 0.1, 1e-9, 123.456, 0.30000000000000004, 2.5]'
expect_in out '^ +1\.1,$'
expect_in out '^ +0\.30000000000000004,$'
expect_in out '^ +1e-9,$'
expect_in out '^ +2\.5$'
expect_not_in out '1\.1000000000000001|0\.10000000000000001|123\.45600000000000'
expect_rc 0 "$NF" export --format csv -L A
expect_in out '^[0-9]+,A,values,x,s,lower,1,1\.1,$'
expect_in out '^[0-9]+,A,values,x,s,lower,5,0\.30000000000000004,$'
expect_in out '^[0-9]+,A,values,x,s,lower,3,1e-09,$'

t_case "export, import, export: the same bytes"
expect_rc 0 "$NF" --db "$T/again.db" import "$T/a.json" --format json
expect_rc 0 "$NF" --db "$T/again.db" export --format json
# The ids may differ between stores; everything else is the same text.
sed 's/"id": [0-9]*/"id": N/' "$T/a.json" >"$T/a.norm"
sed 's/"id": [0-9]*/"id": N/' "$T/out" >"$T/b.norm"
cmp -s "$T/a.norm" "$T/b.norm" || fail "the second export differs: $(diff "$T/a.norm" "$T/b.norm" | head -5)"

t_case "compare --json: alpha and the numbers as typed"
expect_rc 0 "$NF" compare --json --alpha 0.05 --threshold 1.5 A B
expect_in out '^  "alpha": 0\.05,$'
expect_in out '^  "threshold_pct": 1\.5,$'
json_check 'd["rows"][0]["baseline_mean"] == (1.1 + 0.1 + 1e-9 + 123.456 + 0.30000000000000004 + 2.5) / 6'

t_case "ab --json: alpha as typed"
expect_rc 0 "$NF" ab --json --rounds 3 --alpha 0.05 -m wall x='-- true' y='-- true'
expect_in out '^  "alpha": 0\.05,$'
pass
