# Bad input: unknown run or label → exit 2, one line; a database that is not
# ours, corrupt, or newer → a clear line and the file unchanged; on
# PostgreSQL, an unreachable server or a bad URI → exit 1 with libpq's
# reason, a database of a newer noisefloor → refused, nothing written.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

t_case "no database: list refuses and creates none"
expect_rc 2 "$NF" list
expect_one_line_err
if [ "$BACKEND" = sqlite ]; then
    expect_in err 'no database at'
    [ ! -e "$NOISEFLOOR_DB" ] || fail "list created a database"
else
    expect_in err '^noisefloor: list: no noisefloor store in host=.* dbname=nf_e2e_'
    [ "$(pg_sql "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")" = 0 ] ||
        fail "list created tables"
fi

t_case "a run to refer to"
expect_rc 0 "$NF" run -r 2 --warmup 0 -L one pipe -l 1000
for args in "show 99" "show x" "show 0" "rm 1 99" "rm -- -3" "list --label nope" \
            "export --label one --label nope" "list -w nope" "export --format xml" "show" "rm" \
            "list extra" "export --bogus"; do
    t_case "refused: $args"
    # shellcheck disable=SC2086
    expect_rc 2 "$NF" $args
    expect_one_line_err
done
t_case "the messages name the run and the label"
expect_rc 2 "$NF" show 99
expect_in err '^noisefloor: show: no run 99 in '
expect_rc 2 "$NF" list --label nope
expect_in err "no runs with label 'nope'"
t_case "rm of an unknown id removed nothing"
# rm with one unknown id removed nothing.
expect_rc 0 "$NF" show 1

if [ "$BACKEND" = postgresql ]; then
    # What a command must not change, as one line.
    snapshot() { pg_sql "SELECT (SELECT count(*) FROM runs) || '/' || (SELECT count(*) FROM samples) || '/' || (SELECT max(version) FROM schema_version) || '/' || (SELECT count(*) FROM pg_tables WHERE schemaname = 'public')"; }
    pg_refused() {     # DB REGEX: every command refuses DB with one line
        for cmd in "list" "show 1" "export" "rm 1" "run -r 1 --warmup 0 pipe -l 100" \
                   "compare one two" "profdiff one two"; do
            # shellcheck disable=SC2086
            expect_rc 1 "$NF" --db "$1" $cmd
            expect_one_line_err
            expect_in err "$2"
        done
        expect_rc 1 "$NF" --db "$1" import "$ROOT/tests/data/import/values.txt" --format values -L x
        expect_one_line_err
        expect_in err "$2"
    }
    t_case "postgresql: no server, a bad URI: libpq's reason, one line"
    pg_refused "host=$T/nowhere dbname=nf" 'cannot connect to host=.*nowhere dbname=nf: .*No such file or directory'
    pg_refused "postgresql://localhost/nf?bogus=1" 'invalid PostgreSQL connection string: invalid URI query parameter: "bogus"'
    pg_refused "host=$T/nowhere port=x dbname=nf" 'cannot connect to .*"x"'
    t_case "postgresql: libpq is loaded when a PostgreSQL store is named"
    # The command reads the maps of its parent, noisefloor: libpq is in
    # them on this backend (and not on SQLite: the case below).
    expect_rc 0 "$NF" run -r 1 --warmup 0 -- sh -c "cat /proc/\$PPID/maps >'$T/maps'"
    grep -q 'libpq\.so' "$T/maps" || fail "libpq is not in the maps of a PostgreSQL writer"
    # Without libpq a PostgreSQL store cannot be opened: one line naming it.
    expect_rc 1 env NOISEFLOOR_LIBPQ="$T/no-libpq.so" "$NF" list
    expect_one_line_err
    expect_in err "cannot load libpq \\($T/no-libpq.so\\), which a PostgreSQL store needs: "
    expect_rc 1 env NOISEFLOOR_LIBPQ="$T/no-libpq.so" "$NF" --db "host=$T/nowhere dbname=nf" list
    expect_in err "cannot load libpq"
    t_case "postgresql: passwords stay out of messages"
    expect_rc 2 "$NF" --db "$NOISEFLOOR_DB password=hunter2" show 99
    expect_not_in err hunter2
    expect_in err "no run 99 in .*dbname='nf_e2e_"
    t_case "postgresql: a database of a newer noisefloor: refused, nothing written"
    pg_sql "UPDATE schema_version SET version = 42"
    before=$(snapshot)
    pg_refused "$NOISEFLOOR_DB" 'has database schema version 42, newer than this noisefloor'
    [ "$(snapshot)" = "$before" ] || fail "a newer database was changed: $before -> $(snapshot)"
    t_case "postgresql: somebody else's tables: refused, nothing created"
    pg_sql "CREATE DATABASE ${PGDB}_other" >/dev/null
    other="$NF_TEST_PG dbname=${PGDB}_other"
    psql -X -q "$other" -c "CREATE TABLE t (x integer)" >/dev/null
    expect_rc 1 "$NF" --db "$other" run -r 1 --warmup 0 pipe -l 100
    expect_one_line_err
    expect_in err "holds tables that are not noisefloor's"
    n=$(psql -X -q -t -A "$other" -c "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
    pg_sql "DROP DATABASE ${PGDB}_other" >/dev/null
    [ "$n" = 1 ] || fail "tables were created next to somebody else's"
    pass
fi

sum() { sha256sum "$1" | cut -d' ' -f1; }
check_refused() {     # FILE REGEX: every command refuses it, file unchanged
    before=$(sum "$1")
    for cmd in "list" "show 1" "export" "rm 1" "run -r 1 --warmup 0 pipe -l 100"; do
        # shellcheck disable=SC2086
        expect_rc 1 "$NF" --db "$1" $cmd
        expect_one_line_err
        expect_in err "$2"
    done
    expect_rc 1 "$NF" --db "$1" import "$ROOT/tests/data/import/values.txt" --format values -L x
    expect_in err "$2"
    [ "$(sum "$1")" = "$before" ] || fail "$1 was changed"
    [ ! -e "$1-wal" ] || fail "$1-wal was created"
}

if [ "$BACKEND" = sqlite ]; then
    t_case "sqlite: libpq is not loaded"
    # Loading libpq (and the twenty libraries it brings) costs every process
    # some milliseconds and every fork of one some 100 mappings more.
    expect_rc 0 "$NF" run -r 1 --warmup 0 -- sh -c "cat /proc/\$PPID/maps >'$T/maps'"
    grep -q 'libsqlite3' "$T/maps" || fail "the maps of noisefloor were not read"
    ! grep -q 'libpq\.so' "$T/maps" || fail "a SQLite run loaded libpq"
fi

t_case "a text file as the database"
printf 'my precious notes\n' >"$T/notes.txt"
check_refused "$T/notes.txt" 'is not a SQLite database'

t_case "random bytes as the database"
head -c 4096 /dev/urandom >"$T/random.db"
check_refused "$T/random.db" 'is not a SQLite database'

t_case "a corrupt database"
# A real database with its pages overwritten behind the header.
cp "$NOISEFLOOR_DB" "$T/corrupt.db"
"$NF" --db "$T/corrupt.db" list >/dev/null || fail "copy unreadable"
rm -f "$T/corrupt.db-wal" "$T/corrupt.db-shm"
/usr/bin/python3 - "$T/corrupt.db" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
for i in range(100, len(b)):
    b[i] = (b[i] * 7 + 13) & 0xff
open(p, "wb").write(b)
PY
check_refused "$T/corrupt.db" "corrupt.db"

t_case "another program's SQLite database"
# Somebody else's SQLite database.
/usr/bin/python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("create table t(x)"); c.commit()' "$T/other.db"
check_refused "$T/other.db" 'not a noisefloor database'

t_case "a database from a newer noisefloor"
# A database from a newer noisefloor.
cp "$NOISEFLOOR_DB" "$T/newer.db"
"$NF" --db "$T/newer.db" list >/dev/null || fail "copy unreadable"
/usr/bin/python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("pragma journal_mode=delete"); c.execute("update schema_version set version = 42"); c.commit()' "$T/newer.db"
check_refused "$T/newer.db" 'schema version 42, newer than'
pass
