# Import takes a file with a UTF-8 byte-order mark in every format; a
# metric of one value has null spread in JSON, as "-" in the text; make
# demo keeps to its own database, whatever $NOISEFLOOR_DB names.
. "$(dirname "$0")/lib.sh"

t_case "import: a byte-order mark is not part of the text"
printf '\357\273\2771\n2\n3\n' >"$T/bom.values"
expect_rc 0 "$NF" import "$T/bom.values" --format values --metric x -L bom
expect_rc 0 "$NF" export -L bom
json_check 'd["runs"][0]["metrics"][0]["values"] == [1.0, 2.0, 3.0]'
cp "$T/out" "$T/bom.json"
printf '\357\273\277' | cat - "$T/bom.json" >"$T/bom2.json"
expect_rc 0 "$NF" --db "$T/other.db" import "$T/bom2.json" --format json
printf '\357\273\2770.32,msec,task-clock,320000,100.00,0.310,CPUs utilized\n' >"$T/bom.csv"
expect_rc 0 "$NF" import "$T/bom.csv" --format perf-stat-csv -L bomcsv
expect_rc 0 "$NF" export -L bomcsv
json_check 'next(m for m in d["runs"][0]["metrics"] if m["name"] == "task-clock")["values"] == [0.32]'
# Only at the start: elsewhere it is still a malformed line.
printf '1\n\357\273\2772\n' >"$T/mid.values"
expect_rc 2 "$NF" import "$T/mid.values" --format values --metric x -L mid
expect_one_line_err

t_case "one value: no spread in JSON (null), as in the text"
expect_rc 0 "$NF" run -r 1 --warmup 0 -L one --json -- true
json_check 'all(m["n"] == 1 and m["stddev"] is None and m["cv_pct"] is None and m["sem_pct"] is None for m in d["metrics"] if m["supported"])'
json_check 'all(m["mean"] is not None for m in d["metrics"] if m["supported"])'
expect_rc 0 "$NF" run -r 2 --warmup 0 -L two --json -- true
json_check 'all(m["stddev"] is not None for m in d["metrics"] if m["supported"] and m["name"] == "wall")'

t_case "make demo never uses \$NOISEFLOOR_DB"
# doc/demo.sh with a stand-in for build/noisefloor that records what it
# was given.
mkdir -p "$T/demo/build"
cat >"$T/demo/build/noisefloor" <<'SH'
#!/bin/sh
printf '%s\n' "$*" >>"$(dirname "$0")/args"
SH
chmod +x "$T/demo/build/noisefloor"
: >"$T/precious.db"
echo kept >"$T/precious.db-wal"
(cd "$T/demo" && NOISEFLOOR_DB="$T/precious.db" sh "$ROOT/doc/demo.sh" >/dev/null) || fail "doc/demo.sh failed"
[ "$(cat "$T/precious.db-wal" 2>/dev/null)" = kept ] || fail "doc/demo.sh removed \$NOISEFLOOR_DB's files"
grep -q -- "--db build/demo.db ab " "$T/demo/build/args" || fail "the demo did not use build/demo.db: $(cat "$T/demo/build/args")"
pass
