# import against hostile files: each bad one gets one line and exit 2, and
# nothing already stored is lost or changed (the export before and after
# is the same).
. "$(dirname "$0")/lib.sh"

t_case "setup: a stored run"
printf '%s\n' 100 101 99 100.5 >base.txt
expect_rc 0 "$NF" import base.txt --format values -L base --metric t --unit s --better lower
"$NF" export >"$T/before.json" || fail "export"
# unchanged: the database holds what it held before the case.
unchanged() {
    "$NF" export >"$T/now.json" || fail "export"
    cmp -s "$T/before.json" "$T/now.json" || fail "the stored runs changed"
}

t_case "a file larger than 1 GiB is refused unread"
truncate -s $((1024 * 1024 * 1024 + 1)) huge.txt
expect_rc 2 "$NF" import huge.txt --format values -L huge
expect_one_line_err
expect_in err "huge.txt' is larger than 1 GiB, the most import reads"
unchanged
pass
