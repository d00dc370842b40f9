#!/bin/sh
# make demo: is pinning both ping-pong tasks to one CPU faster than letting
# the scheduler place them?  An interleaved A/B session on this machine.
set -e
NF=build/noisefloor
# Its own file, always: never $NOISEFLOOR_DB, which may hold a user's runs
# (or name a fleet's shared PostgreSQL store).
DB=build/demo.db
rm -f "$DB" "$DB-wal" "$DB-shm"
echo "noisefloor demo: pipe ping-pong (perf bench sched pipe), unpinned vs both tasks on CPU 0,"
echo "interleaved in random rounds until the verdict is clear."
echo
$NF --db "$DB" ab --rounds 5:30 unpinned='pipe -l 20000' pinned='--pin 0 pipe -l 20000'
echo
echo "Stored in $DB; try: $NF --db $DB list; $NF --db $DB compare unpinned pinned --json"
