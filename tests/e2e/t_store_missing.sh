# A store named that does not exist (no such SQLite file; a server
# database without noisefloor's tables) is the user's input to fix: every
# command that reads or changes a store says so in one line and exits 2,
# and none creates it.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

nothing_created() {
    if [ "$BACKEND" = sqlite ]; then
        [ ! -e "$NOISEFLOOR_DB" ] || fail "a database was created"
    else
        [ "$(pg_sql "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")" = 0 ] ||
            fail "tables were created"
    fi
}

for args in "list" "show 1" "rm 1" "export" "export --format csv" "jobs" "jobs --json" \
            "profdiff a b" "compare a b" "report a b --html r.html"; do
    t_case "no store: $args is exit 2"
    # shellcheck disable=SC2086
    expect_rc 2 "$NF" $args
    expect_one_line_err
    cmd=${args%% *}
    if [ "$BACKEND" = sqlite ]; then
        expect_in err "^noisefloor: $cmd: no database at '.*test\\.db' \\(run something first, or give --db PATH\\)$"
    else
        expect_in err "^noisefloor: $cmd: no noisefloor store in host=.* dbname=nf_e2e_"
    fi
    nothing_created
    [ ! -e r.html ] || fail "report wrote r.html"
done

pass
