# Labels are one line of printable text: a control character (a newline
# would break list's table and compare's columns) or bytes that are not
# UTF-8 are refused wherever a label comes in (run -L, profile -L, submit's
# run -L, ab's variant NAME, import -L), exit 2, one line showing the label
# escaped, and nothing is stored.
. "$(dirname "$0")/lib.sh"

t_case "setup: a stored run"
printf '%s\n' 100 101 99 >v.txt
expect_rc 0 "$NF" import v.txt --format values -L base --metric t --unit s --better lower
"$NF" export >"$T/before.json" || fail "export"
unchanged() {
    "$NF" export >"$T/now.json" || fail "export"
    cmp -s "$T/before.json" "$T/now.json" || fail "the stored runs changed"
}
# refused REGEX CMD...: exit 2, one line matching REGEX, nothing stored.
refused() {
    re=$1; shift
    expect_rc 2 "$@"
    expect_one_line_err
    expect_in err "$re"
    unchanged
}

t_case "run -L: a newline, shown escaped"
refused "^noisefloor: run: --label 'x\\\\ny' contains a control character: a label is one line of printable text$" \
    "$NF" run -r 1 --warmup 0 -L "$(printf 'x\ny')" -- true
t_case "run -L: tab, escape, DEL, a C1 control; bytes that are not UTF-8"
refused "--label 'a\\\\tb\\\\\\\\c\\\\x1b\\[1m' contains a control character" \
    "$NF" run -r 1 --warmup 0 -L "$(printf 'a\tb\\c\033[1m')" -- true
refused "--label 'p\\\\x7f' contains a control character" \
    "$NF" run -r 1 --warmup 0 -L "$(printf 'p\177')" -- true
refused "--label 'caf.*\\\\u009b' contains a control character" \
    "$NF" run -r 1 --warmup 0 -L "$(printf 'caf\303\251\302\233')" -- true
refused "--label 'caf\\\\xe9' is not UTF-8" \
    "$NF" run -r 1 --warmup 0 -L "$(printf 'caf\351')" -- true
t_case "profile -L and submit's run -L"
refused "^noisefloor: profile: --label 'x\\\\ny' contains a control character" \
    "$NF" profile -L "$(printf 'x\ny')" -- true
refused "--label 'x\\\\ny' contains a control character" \
    "$NF" submit -- run -L "$(printf 'x\ny')" -- true
t_case "ab: a variant's NAME is its runs' label"
refused "^noisefloor: ab: variant name 'a\\\\nb' contains a control character" \
    "$NF" ab "$(printf 'a\nb')=-- true" "c=-- true"
t_case "import -L"
refused "^noisefloor: import: --label 'x\\\\ry' contains a control character" \
    "$NF" import v.txt --format values -L "$(printf 'x\ry')" --metric t
t_case "printable labels, UTF-8 included, are fine"
expect_rc 0 "$NF" run -r 1 --warmup 0 -L "café 6.1-rc1 (patched)" -- true
expect_rc 0 "$NF" list
expect_in out "café 6.1-rc1 \\(patched\\)"
t_case "a command's argument with a newline: one row in list, one line in show and compare"
expect_rc 0 "$NF" run -r 1 --warmup 0 -L nl -- true "$(printf 'a\nb\033[31m')"
expect_rc 0 "$NF" list -L nl
[ "$(wc -l <"$T/out")" -eq 2 ] || fail "list printed $(wc -l <"$T/out") lines for one run: $(cat "$T/out")"
expect_in out 'true a\?b\?\[31m'
id=$(awk 'NR == 2 {print $1}' "$T/out")
expect_rc 0 "$NF" show "$id"
expect_in out '^  workload   command true a\?b\?\[31m$'
if LC_ALL=C grep -q "$(printf '\033')" "$T/out"; then fail "show printed the escape"; fi
# compare names the split rows and quotes the other argument lists in notes
expect_rc 0 "$NF" run -r 2 --warmup 0 -L nl -- true z
expect_rc 0 "$NF" run -r 2 --warmup 0 -L nl2 -- true z
expect_rc 0 "$NF" compare nl nl2
expect_in out "^command 'true a\\?b\\?\\[31m' wall"
if LC_ALL=C grep -q "$(printf '\033')" "$T/out"; then fail "compare printed the escape"; fi

pass
