# Text stored as given reaches no terminal raw.  import --format json keeps
# labels, notes, metric names and units as the file has them (control
# characters and all); the text output of import, list, show, compare and
# rm shows each control byte as '?', one row per run, and the JSON and the
# HTML escape them by their own rules.
. "$(dirname "$0")/lib.sh"

# A control byte: C0 but tab and newline, DEL, or C1 in UTF-8.
CTRL='[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]'
# clean FILE WHAT: FILE ($T/out, the page, ...) holds no control byte.
clean() {
    case_failed && return 0
    ! LC_ALL=C grep -qaP "$CTRL" "$1" || fail "$2 wrote a control byte: $(od -c "$1" | head -5)"
}
# lines N: stdout has N lines (a newline in a name would add one).
lines() {
    case_failed && return 0
    n=$(wc -l <"$T/out")
    [ "$n" -eq "$1" ] || fail "expected $1 lines, got $n: $(cat -A "$T/out" | head -12)"
}

t_case "setup: an export edited to carry escapes, a newline and a C1 control"
printf '%s\n' 1 2 3 >v.txt
expect_rc 0 "$NF" import v.txt --format values -L base
expect_rc 0 "$NF" import v.txt --format values -L other
"$NF" export >"$T/x.json" || fail "export"
/usr/bin/python3 - "$T/x.json" "$T/evil.json" <<'PY' || fail "cannot write evil.json"
import json, sys
d = json.load(open(sys.argv[1]))
for i, r in enumerate(d["runs"]):
    del r["id"]
    r["label"] = ["evil\x1b]0;pwned\x07\nX", "ok\x1b[31mred\u009b"][i]
    r["note"] = "n\x1b[2J"
    r["session"] = "s\x1b[2J"
    r["workload"] = "w\x1b[1mk\x7f"
    r["args"] = ["a\x1b[5m", "b\rc"]
    r["env"] = {"kernel": "6.1\x1b[31m", "k\x1bz": "v\x01", "list": ["x\x1b"]}
    for m in r["metrics"]:
        m["name"] = "t\ny"
        m["unit"] = "u\x1b[0m"
json.dump(d, open(sys.argv[2], "w"))
PY
EVIL=$(printf 'evil\033]0;pwned\007\nX')
OK=$(printf 'ok\033[31mred\302\233')

t_case "import says what it stored in printable text, one line a run"
expect_rc 0 "$NF" import "$T/evil.json" --format json
clean "$T/out" import
lines 2
expect_in out '^imported run 3 \(label evil\?\]0;pwned\?\?X, w\?\[1mk\?, 3 repetitions\)$'
expect_in out '^imported run 4 \(label ok\?\[31mred\?\?, '

t_case "list: one row a run"
expect_rc 0 "$NF" list
clean "$T/out" list
lines 5
expect_in out '^    3  evil\?\]0;pwned\?\?X +w\?\[1mk\? a\?\[5m b\?c .* 2 t\?y \+- 50\.00% +complete$'

t_case "show: label, workload, note, session, environment, metrics"
expect_rc 0 "$NF" show 3
clean "$T/out" show
expect_in out '^  label      evil\?\]0;pwned\?\?X$'
expect_in out '^  note       n\?\[2J$'
expect_in out '^  session    s\?\[2J$'
expect_in out '^  kernel +6\.1\?\[31m$'
expect_in out '^  k\?z +v\?$'
expect_in out '^  list +\["x\\u001[bB]"\]$'
expect_in out '^   rep +t\?y$'

t_case "compare: the columns' labels, the rows' names, notes and footer"
expect_rc 0 "$NF" compare "$EVIL" "$OK"
clean "$T/out" compare
expect_in out '^w\?\[1mk\? t\?y \(lower is better\) +evil\?\]0;pwned\?\?X +ok\?\[31mred\?\?$'
expect_in out '^Amean +u\?\[0m '
expect_in out '^Holm.*\(t\?y\)\.$'
expect_rc 0 "$NF" compare --brief "$EVIL" "$OK"
clean "$T/out" "compare --brief"
expect_rc 0 "$NF" compare -m "$(printf 't\ny')" --test shift "$EVIL" "$OK"
clean "$T/out" "compare -m --test shift"

t_case "JSON and HTML escape them"
expect_rc 0 "$NF" compare --json "$EVIL" "$OK"
clean "$T/out" "compare --json"
json_check 'd["baseline"] == "evil\x1b]0;pwned\x07\nX"'
expect_rc 0 "$NF" export -L "$EVIL"
clean "$T/out" export
json_check 'd["runs"][0]["note"] == "n\x1b[2J"'
expect_rc 0 "$NF" report --html "$T/r.html" "$EVIL" "$OK"
clean "$T/out" report
clean "$T/r.html" "the report's page"

t_case "rm says what it removed in printable text"
expect_rc 0 "$NF" rm 3
clean "$T/out" rm
lines 1
expect_in out '^removed run 3 \(label evil\?\]0;pwned\?\?X, w\?\[1mk\?, '

t_case "submit and jobs: a queued command's words and tag in printable text"
ESC=$(printf '\033')
expect_rc 0 "$NF" submit --tag "t${ESC}]0;x" -- run -r 2 -- echo "x${ESC}[2Jy"
clean "$T/out" submit
expect_in out '^queued job 1: run -r 2 -- echo x\?\[2Jy$'
expect_rc 0 "$NF" jobs
clean "$T/out" jobs
lines 2
expect_in out ' t\?\]0;x .* echo x\?\[2Jy'

pass
