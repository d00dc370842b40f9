#!/bin/sh
# with-server.sh CMD [ARG...]: run CMD with a private PostgreSQL server, for
# the tests of the PostgreSQL store.
#
# The server (Debian's postgresql package) lives in a new directory under
# /tmp: initdb as the postgres user (the server refuses to run as root), no
# TCP (listen_addresses=''), its Unix socket in that directory, trust for
# local connections, fsync off (the tests kill clients, never the machine).
# CMD sees NF_TEST_PG, a libpq connection string without a database name
# ("host=DIR user=nf"); tests append " dbname=..." for a database of their
# own (CREATE DATABASE from the "postgres" one).  The server is stopped and
# the directory removed when CMD ends, fails, or we are interrupted.
#
# NF_PG_OPTS adds server settings ("-c fsync=on": bench/store-throughput).
# When NF_TEST_PG is already set (an outer with-server.sh, as `make check`
# runs one for all its suites), CMD just runs with it.  When the server
# cannot be started, this fails: the PostgreSQL tests are never skipped.
set -u
if [ -n "${NF_TEST_PG:-}" ]; then
    exec "$@"
fi
PGBIN=${NF_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
if [ ! -x "$PGBIN/initdb" ] || [ ! -x "$PGBIN/pg_ctl" ]; then
    echo "FAIL: no PostgreSQL server found (/usr/lib/postgresql/*/bin; 'make deps' installs it)" >&2
    exit 1
fi
dir=$(mktemp -d /tmp/nf-pg.XXXXXX) || exit 1
# As the postgres user when we are root; as ourselves otherwise.
if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$dir" || { rm -rf "$dir"; exit 1; }
    as_server() { runuser -u postgres -- "$@"; }
else
    as_server() { "$@"; }
fi
stopped=0
child=""
stop() {
    [ "$stopped" = 1 ] && return
    stopped=1
    [ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child" 2>/dev/null
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_server "$PGBIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
    fi
    rm -rf "$dir"
}
trap 'stop' EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap 'stop; exit 129' HUP

fail_start() {
    echo "FAIL: cannot start the test PostgreSQL server: $1" >&2
    tail -n 5 "$2" 2>/dev/null | sed 's/^/    /' >&2
    exit 1
}
as_server "$PGBIN/initdb" -D "$dir/data" -U nf --auth=trust -E UTF8 --locale=C -N \
    >"$dir/initdb.log" 2>&1 || fail_start "initdb failed" "$dir/initdb.log"
as_server "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off \
        -c full_page_writes=off -c shared_buffers=16MB -c max_connections=100 ${NF_PG_OPTS:-}" \
    start >"$dir/pg_ctl.log" 2>&1 || fail_start "pg_ctl start failed" "$dir/server.log"
NF_TEST_PG="host=$dir user=nf"
export NF_TEST_PG
echo "with-server: PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') in $dir"
# In the background, so that a signal to this script runs the trap at once
# (a terminal's Ctrl-C reaches CMD too: same process group).
"$@" <&0 &
child=$!
wait "$child"
rc=$?
child=""
stop
exit $rc
