# Bad input on the command line is refused in one line with exit 2 before
# anything runs or is stored: an empty --db.
. "$(dirname "$0")/lib.sh"

printf '1\n2\n3\n' >v.txt

t_case "--db '' is refused, not ./noisefloor.db"
for args in "--db= list" "list --db=" "--db= run -r 1 --warmup 0 -- true" "--db= import v.txt --format values"; do
    # shellcheck disable=SC2086
    expect_rc 2 env -u NOISEFLOOR_DB "$NF" $args
    expect_one_line_err
    expect_in err "^noisefloor: --db '': give a database path or a PostgreSQL URI$"
done
expect_rc 2 "$NF" --db '' list
expect_rc 2 "$NF" list --db ''
[ ! -e noisefloor.db ] || fail "an empty --db made ./noisefloor.db"
t_case "an empty NOISEFLOOR_DB is as unset: ./noisefloor.db"
expect_rc 0 env NOISEFLOOR_DB= "$NF" import v.txt --format values -L v
[ -e noisefloor.db ] || fail "no ./noisefloor.db"
expect_rc 0 env NOISEFLOOR_DB= "$NF" list
expect_in out '^ +1 +v +values '

pass
