# report --html over imported data: a well-formed self-contained page with
# the comparison's verdicts, one point per sample, escaped labels, flagged
# environment differences; --session; bad input leaves no file behind.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

gen() {  # gen FILE FACTOR: ten values with CV ~1% (as t_compare.sh)
    for v in 100.3 99.1 101.2 98.7 100.9 99.6 100.4 99.8 101.5 98.9; do
        echo "$v $2" | awk '{ printf "%.6f\n", $1 * $2 }'
    done >"$1"
}
gen base.txt 1.0
gen slow.txt 1.10
gen fast.txt 0.90
WEIRD='fast <b>&"x"'
t_case "import the samples"
for l in base slow; do
    expect_rc 0 "$NF" import "$l.txt" --format values --label "$l" --metric latency --unit ms --better lower
done
expect_rc 0 "$NF" import fast.txt --format values --label "$WEIRD" --metric latency --unit ms --better lower

# page_check FILE NPOINTS: well-formed (as XML, and tags balanced for the
# HTML parser), self-contained, NPOINTS sample points.
page_check() {
    /usr/bin/python3 - "$1" "$2" <<'PY' || fail "page check failed: $1"
import sys, xml.dom.minidom
from html.parser import HTMLParser
src = open(sys.argv[1], encoding="utf-8").read()
xml.dom.minidom.parseString(src)           # raises when not well-formed
VOID = {"meta", "br", "img", "link", "input", "hr"}
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.pts = 0; self.bad = []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "circle" and a.get("class") == "pt": self.pts += 1
        if tag in ("script", "link", "img", "iframe") or "src" in a or "href" in a:
            self.bad.append(tag)
        if tag not in VOID: self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID: self.stack.pop()
    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag: self.bad.append("/" + tag)
p = P(); p.feed(src); p.close()
ok = not p.bad and not p.stack and p.pts == int(sys.argv[2]) and "url(" not in src
if not ok: print(p.bad, p.stack, p.pts, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

t_case "a self-contained page with compare's verdicts"
expect_rc 0 "$NF" report base slow "$WEIRD" --html r.html
[ -s r.html ] || fail "no report written"
! ls r.html.tmp* >/dev/null 2>&1 || fail "a temporary r.html.tmp* left behind"
page_check r.html 30
cp r.html "$T/out"
expect_in out '<tr class="v-regressed"><td class="l">slow</td>'
expect_in out '<tr class="v-improved"><td class="l">fast &lt;b&gt;&amp;&quot;x&quot;</td>'
expect_in out '<span class="badge regressed">regressed</span>'
expect_not_in out '<b>&"x"'
expect_in out '\*-10\.00%\*'                         # compare's numbers
expect_in out 'no environment recorded'             # imported values carry none
expect_in out '; welch test, alpha 0\.05'           # no rows paired
t_case "compare's CI is in the page"
# The same numbers compare prints: its change and CI appear in the page.
expect_rc 0 "$NF" compare base slow "$WEIRD"
ci=$(grep -Eo '\[[-+][0-9.]+%, [-+][0-9.]+%\]' "$T/out" | head -1)
[ -n "$ci" ] && grep -qF -- "$ci" r.html || fail "compare's CI '$ci' not in the page"

t_case "-b, -m, --test, --html -"
# -b, -m, --test; standard output with --html -.
expect_rc 0 "$NF" report -b slow --test utest -m latency --html - base slow
page_check "$T/out" 20
expect_in out 'baseline <b>slow</b>; utest test'

t_case "environment differences flagged"
# Environments: another CPU model is a red flag, another kernel expected.
/usr/bin/python3 - <<'PY'
import json
def run(i, label, kernel, cpu, session=None):
    return {"id": i, "label": label, "workload": "pipe", "args": ["-l", "1000"],
            "started": "2026-01-01T00:00:%02dZ" % (i - 100), "repeat": 5, "warmup": 1,
            "status": "complete", "session": session, "note": None,
            "env": {"kernel": kernel, "cpu_model": cpu, "governor": {"0": "performance"},
                    "pin": "0", "virtualized": False},
            "metrics": [{"name": "usecs/op", "unit": "usecs/op", "better": "lower",
                         "primary": True, "supported": True,
                         "values": [5 + 0.01 * k + (i % 2) * 0.5 for k in range(5)]}]}
runs = [run(101, "k-old", "6.8", "EPYC"), run(102, "k-new", "6.9", "Xeon"),
        run(103, "v1", "6.8", "EPYC", "ab-s1"), run(104, "v2", "6.8", "EPYC", "ab-s1"),
        run(105, "v1", "6.8", "EPYC")]
json.dump({"runs": runs}, open("env.json", "w"))
PY
expect_rc 0 "$NF" import env.json --format json
expect_rc 0 "$NF" report k-old k-new --html env.html
page_check env.html 10
cp env.html "$T/out"
expect_in out '<li class="red"><b>cpu_model</b> differs between labels'
expect_in out '<li class="exp"><b>kernel</b> differs between labels'
expect_not_in out '<b>governor</b> differs'

t_case "--session"
# --session: the session's runs only (not run 105, also labelled v1).
expect_rc 0 "$NF" report --session ab-s1 --html s.html
page_check s.html 10
cp s.html "$T/out"
expect_in out 'session ab-s1'
expect_not_in out '<td>105</td>'
expect_rc 0 "$NF" report --session ab-s1 -b v2 --html s.html
cp s.html "$T/out"
expect_in out 'baseline <b>v2</b>'

t_case "bad input: exit 2, the old page kept"
# Bad input: one line; exit 2 for usage, 1 for a file that cannot be
# written; an existing page is never replaced by half of one.
expect_rc 0 "$NF" report base slow --html old.html
cp old.html kept.html
expect_rc 2 "$NF" report base slow
expect_one_line_err; expect_in err "--html"
expect_rc 2 "$NF" report base nosuchlabel --html old.html
expect_one_line_err; expect_in err "nosuchlabel"
expect_rc 2 "$NF" report base --html old.html
expect_one_line_err
expect_rc 2 "$NF" report -m nosuchmetric base slow --html old.html
expect_one_line_err
expect_rc 2 "$NF" report --session nosuch --html old.html
expect_one_line_err; expect_in err "nosuch"
expect_rc 2 "$NF" report --session ab-s1 base --html old.html
expect_one_line_err
expect_rc 2 "$NF" report --session ab-s1 -b nosuch --html old.html
expect_one_line_err
expect_rc 2 "$NF" report --alpha 2 base slow --html old.html
expect_one_line_err
cmp -s old.html kept.html || fail "a failed report touched the existing page"
! ls old.html.tmp* >/dev/null 2>&1 || fail "a temporary old.html.tmp* left behind"
t_case "a file that is not a page of ours is never replaced"
# "--html noisefloor.db" by a slip of the hand: the database, or any file
# that is not a page report wrote, stays as it was (exit 2, one line).
if [ -f "$NOISEFLOOR_DB" ]; then # (SQLite: the store is a file)
    cp "$NOISEFLOOR_DB" db-before
    expect_rc 2 "$NF" report base slow --html "$NOISEFLOOR_DB"
    expect_one_line_err; expect_in err "exists and is not a noisefloor page"
    cmp -s "$NOISEFLOOR_DB" db-before || fail "the database was changed"
    expect_rc 0 "$NF" list
fi
echo keep >notes.txt
expect_rc 2 "$NF" report base slow --html notes.txt
expect_one_line_err
[ "$(cat notes.txt)" = keep ] || fail "notes.txt was replaced"
mkfifo fifo.html
expect_rc 2 "$NF" report base slow --html fifo.html
expect_one_line_err; expect_in err "not a regular file"
[ -p fifo.html ] || fail "the fifo was replaced"
# a page of ours, and an empty file, are replaced
expect_rc 0 "$NF" report base slow --html old.html
: >empty.html
expect_rc 0 "$NF" report base slow --html empty.html
grep -q '<html' empty.html || fail "the empty file was not replaced by the page"
t_case "unwritable destinations: exit 1"
expect_rc 1 "$NF" report base slow --html "$T/no/such/dir/r.html"
expect_one_line_err; expect_in err "cannot write"
mkdir ro && chmod 555 ro
if [ ! -w ro ]; then   # (root may write anyway)
    expect_rc 1 "$NF" report base slow --html ro/r.html
    expect_one_line_err
    [ ! -e ro/r.html ] || fail "report written into a read-only directory"
fi
t_case "no database"
expect_rc 2 "$NF" --db "$T/missing.db" report base slow --html x.html
expect_one_line_err
[ ! -e x.html ] || fail "x.html written without a database"
t_case "a counter <not supported> is not compared, not inconclusive"
expect_rc 0 "$NF" run -r 2 --warmup 0 -L ca -e cycles,task-clock -- true
if ! grep -q "not supported" "$T/out" "$T/err"; then
    echo "  (this machine counts cycles: not checked)"
else
    expect_rc 0 "$NF" run -r 2 --warmup 0 -L cb -e cycles,task-clock -- true
    expect_rc 2 "$NF" report ca cb -m cycles --html -
    expect_in out '<span class="badge none">not compared</span>'
    expect_in out 'All 1 rows: 0 improved, 0 regressed, 0 equivalent, 0 inconclusive, 1 not compared\.'
    expect_not_in out 'badge inconclusive'
fi
t_case "--help"
expect_rc 0 "$NF" report --help
expect_in out "usage: noisefloor report"
pass
