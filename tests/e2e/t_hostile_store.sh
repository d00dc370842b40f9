# The store against hostile use: a run still being written is not removed
# from under its writer; a database we refuse (another application's, a
# newer noisefloor's) is left byte-identical, its -wal and -shm included;
# --db names that would keep nothing are refused; and the commands that only
# read work where nothing can be written: a read-only directory, a
# read-only mount, a full disk (on PostgreSQL: a read-only database).
# backends: sqlite postgresql
if [ -z "${NF_E2E_MOUNTNS:-}" ] && [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    # A private mount namespace: the tmpfs mounted below vanishes with us.
    NF_E2E_MOUNTNS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

# status_of ID: the run's status as export shows it ("gone": no such run).
status_of() { "$NF" export | /usr/bin/python3 -c "
import json, sys
print(next((r['status'] for r in json.load(sys.stdin)['runs'] if r['id'] == $1), 'gone'))"; }

t_case "rm of a run that is still being written is refused"
expect_rc 0 "$NF" run -r 1 --warmup 0 -L first -- true
"$NF" run -r 100000 --warmup 0 -L long -- sleep 0.01 >/dev/null 2>&1 &
writer=$!
# Until the writer has begun its run (it stores it before the first
# repetition); 20 s at most.
for _ in $(seq 200); do
    [ "$(status_of 2 2>/dev/null)" = running ] && break
    sleep 0.1
done
[ "$(status_of 2)" = running ] || fail "the writer never began its run"
expect_rc 1 "$NF" rm 2
expect_one_line_err
expect_in err "run 2 is still being written"
# All or nothing: with another id, nothing is removed either.
expect_rc 1 "$NF" rm 1 2
[ "$(status_of 1)" = complete ] || fail "run 1 was removed with a refused rm"
[ "$(status_of 2)" = running ] || fail "the running run was removed"
t_case "once its writer is gone, it can be removed"
kill -KILL "$writer"
wait "$writer" 2>/dev/null
[ "$(status_of 2)" = incomplete ] || fail "a killed writer's run is not incomplete: $(status_of 2)"
expect_rc 0 "$NF" rm 2
expect_in out "removed run 2"
[ "$(status_of 1)" = complete ] || fail "run 1 went too"

# Two labels for the read-only commands below.
printf '%s\n' 100 101 99 100.5 >a.txt
printf '%s\n' 110 111 109 110.5 >b.txt
t_case "setup: labels a and b"
expect_rc 0 "$NF" import a.txt --format values -L a --metric t
expect_rc 0 "$NF" import b.txt --format values -L b --metric t
# reads_work: every command that only reads succeeds, and says what it
# should (the same as before the database became unwritable).
reads_work() {
    expect_rc 0 "$NF" list
    expect_in out "^ +4 +b "
    expect_rc 0 "$NF" show 3
    expect_in out "label +a"
    expect_rc 0 "$NF" export
    json_check '[r["label"] for r in d["runs"]][:3] == ["first", "a", "b"]'
    expect_rc 0 "$NF" compare a b
    expect_in out "regressed"
    expect_rc 0 "$NF" report a b --html -
    expect_in out "<html"
}
# writes_refused CMD...: a command that writes fails with one line.
writes_refused() {
    expect_rc 1 "$@"
    expect_one_line_err
}

if [ "$BACKEND" = postgresql ]; then
    t_case "postgresql: a read-only database: the reads work"
    pg_sql "ALTER DATABASE $PGDB SET default_transaction_read_only = on" >/dev/null
    reads_work
    writes_refused "$NF" rm 3
    writes_refused "$NF" import a.txt --format values -L c
    pass
fi

sum() { (cd "$(dirname "$1")" && sha256sum "$(basename "$1")"*) 2>/dev/null; }
# untouched DB REGEX: every command refuses DB with one line, and DB, its
# -wal and its -shm stay byte for byte as they were (none created).
untouched() {
    before=$(sum "$1")
    for cmd in "list" "show 1" "export" "rm 1" "run -r 1 --warmup 0 -- true" "compare a b"; do
        # shellcheck disable=SC2086
        expect_rc 1 "$NF" --db "$1" $cmd
        expect_one_line_err
        expect_in err "$2"
    done
    expect_rc 1 "$NF" --db "$1" import a.txt --format values -L x
    expect_in err "$2"
    [ "$(sum "$1")" = "$before" ] || fail "$1 or its -wal/-shm changed"
}
# A writer that dies with its commits in the -wal (SQL in $2), as a crash
# leaves a WAL database.
crashed_wal() {
    /usr/bin/python3 - "$1" "$2" <<'PY' || fail "cannot make $1"
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA journal_mode = WAL")
c.execute("PRAGMA wal_autocheckpoint = 0")
c.executescript(sys.argv[2])
os._exit(0)
PY
    [ -s "$1-wal" ] && [ -e "$1-shm" ] || fail "no -wal and -shm left for $1"
}
t_case "another application's WAL database is left byte-identical, -wal and -shm too"
crashed_wal "$T/other.db" "CREATE TABLE notes (x); INSERT INTO notes VALUES ('mine');"
untouched "$T/other.db" "not a noisefloor database"
t_case "with an application id of its own, too"
crashed_wal "$T/other2.db" "PRAGMA application_id = 7; CREATE TABLE t (x);"
untouched "$T/other2.db" "not a noisefloor database"
t_case "a newer noisefloor's WAL database is left byte-identical"
cp "$NOISEFLOOR_DB" "$T/newer.db"
crashed_wal "$T/newer.db" "UPDATE schema_version SET version = 42;"
untouched "$T/newer.db" "schema version 42, newer than"

t_case "--db :memory: and SQLite URIs are refused: nothing would be kept"
for db in ":memory:" "file:x?mode=memory" "file:$T/test.db" "file::memory:"; do
    for cmd in "list" "run -r 1 --warmup 0 -- true"; do
        # shellcheck disable=SC2086
        expect_rc 2 "$NF" --db "$db" $cmd
        expect_one_line_err
        expect_in err "(would keep nothing|URIs are not taken)"
    done
    expect_rc 2 env NOISEFLOOR_DB="$db" "$NF" import a.txt --format values -L x
done
[ ! -e "x?mode=memory" ] || fail "a file was created"
t_case "a file named like a URI is a file: ./file:x"
expect_rc 0 "$NF" --db "./file:x?y" import a.txt --format values -L x
[ -s "file:x?y" ] || fail "no database file 'file:x?y'"
expect_rc 0 "$NF" --db "./file:x?y" list

t_case "--db naming a device, a FIFO or a directory: one line, nothing made"
mkfifo "$T/fifo.db"
mkdir "$T/dir.db"
for db in /dev/null "$T/fifo.db" "$T/dir.db"; do
    for cmd in "list" "run -r 1 --warmup 0 -- true"; do
        # (a FIFO opened for reading would block: the timeout says so)
        # shellcheck disable=SC2086
        expect_rc 1 timeout 20 "$NF" --db "$db" $cmd
        expect_one_line_err
        expect_in err "(is not a regular file|is a directory)"
    done
done
[ ! -e /dev/null-journal ] && [ ! -e "$T/fifo.db-journal" ] || fail "a -journal file was made"
[ -p "$T/fifo.db" ] || fail "the FIFO was replaced"

t_case "a read-only directory: the reads work"
# As nobody, in a directory nobody cannot write (root could anyway).
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    mkdir -m 755 "$T/rodir"
    cp "$NOISEFLOOR_DB" "$T/rodir/test.db"
    chmod 644 "$T/rodir/test.db"
    chmod 711 "$T"
    nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }
    for c in list "show 3" export "compare a b" "report a b --html -"; do
        # shellcheck disable=SC2086
        expect_rc 0 nobody "$NF" --db "$T/rodir/test.db" $c
    done
    expect_in out "<html"
    [ "$(ls "$T/rodir")" = test.db ] || fail "files appeared: $(ls "$T/rodir")"
fi

[ -n "${NF_E2E_MOUNTNS:-}" ] || skip "cannot mount a small file system here (needs root and unshare -m)"
DB0=$NOISEFLOOR_DB
t_case "a read-only mount: the reads work, writes fail with one line"
mkdir "$T/ro"
mount -t tmpfs -o size=1m tmpfs "$T/ro" || fail "cannot mount a tmpfs"
cp "$DB0" "$T/ro/test.db"
mount -o remount,ro "$T/ro" || fail "cannot remount read-only"
export NOISEFLOOR_DB="$T/ro/test.db"
reads_work
writes_refused "$NF" rm 3
writes_refused "$NF" import a.txt --format values -L c
umount "$T/ro"
t_case "a full disk: the reads work, writes fail with one line"
mkdir "$T/full"
mount -t tmpfs -o size=1m tmpfs "$T/full" || fail "cannot mount a tmpfs"
cp "$DB0" "$T/full/test.db"
dd if=/dev/zero of="$T/full/fill" bs=4k 2>/dev/null
export NOISEFLOOR_DB="$T/full/test.db"
reads_work
writes_refused "$NF" run -r 1 --warmup 0 -- true
expect_in err "No space left on device|full"
t_case "and once there is room again, nothing was lost"
rm "$T/full/fill"
expect_rc 0 "$NF" run -r 1 --warmup 0 -L after -- true
reads_work
umount "$T/full"
pass
