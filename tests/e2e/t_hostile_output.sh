# Output that cannot be written: every command whose standard output is
# /dev/full (or a full disk) exits 1 with one line saying so, and what it
# stored is stored all the same.
. "$(dirname "$0")/lib.sh"

[ -w /dev/full ] || skip "no /dev/full"
printf '%s\n' 100 101 99 100.5 >base.txt
printf '%s\n' 110 111 109 110.5 >slow.txt
t_case "setup: two labels"
expect_rc 0 "$NF" import base.txt --format values --label base --metric t --unit s --better lower
expect_rc 0 "$NF" import slow.txt --format values --label slow --metric t --unit s --better lower

# full CMD...: CMD with its standard output on /dev/full fails with one line.
full() {
    case_failed && return 0
    "$@" >/dev/full 2>"$T/err"
    got=$?
    [ "$got" -eq 1 ] || fail "expected exit 1 with output to /dev/full, got $got: $*"
    expect_one_line_err
    expect_in err "cannot write.*(No space left on device|output)"
}
t_case "help and version"
full "$NF" --version
full "$NF" --help
full "$NF" list --help
t_case "list, show, export"
full "$NF" list
full "$NF" show 1
full "$NF" export
full "$NF" export --format csv
t_case "compare"
full "$NF" compare base slow
full "$NF" compare --json base slow
# A regression found (exit 3) but not reported is a failure too.
full "$NF" compare --fail-on-regression base slow
t_case "report --html -"
full "$NF" report base slow --html -
t_case "doctor"
full "$NF" doctor
full "$NF" doctor --json
t_case "run: stored, but its report lost: exit 1"
full "$NF" run -r 2 --warmup 0 -L lost --json -- true
expect_rc 0 "$NF" list
expect_in out "lost"
t_case "import: stored, but its line lost: exit 1"
full "$NF" import base.txt --format values --label imp --metric t
expect_rc 0 "$NF" list
expect_in out "imp"
t_case "insns"
full "$NF" insns --func main "$NF"
full "$NF" insns --json "$NF"
t_case "export says why it cannot write, also when a write fails midway"
seq 1 3000 >many.txt # some 100 KiB of output: the writes fail before the end
expect_rc 0 "$NF" import many.txt --format values --label many --metric t
for fmt in json csv; do
    expect_rc 1 sh -c '"$1" export --format "$2" >/dev/full' sh "$NF" "$fmt"
    expect_one_line_err
    expect_in err "^noisefloor: export: cannot write the output: No space left on device$"
    # A file that may grow to 16 KiB only (ulimit -f; SIGXFSZ ignored, so
    # the write fails with EFBIG instead of killing the process).
    expect_rc 1 sh -c 'trap "" XFSZ; ulimit -f 16; exec "$1" export --format "$2" >"$3"' \
        sh "$NF" "$fmt" "$T/cut.$fmt"
    expect_one_line_err
    expect_in err "^noisefloor: export: cannot write the output: File too large$"
done

t_case "a usage error stays a usage error"
expect_rc 2 "$NF" list --bogus
pass
