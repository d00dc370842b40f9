#!/bin/sh
# make demo: the same ping-pong, unpinned and pinned to one CPU.
set -e
NF=build/noisefloor
DB=${NOISEFLOOR_DB:-build/demo.db}
rm -f "$DB" "$DB-wal" "$DB-shm"
echo "== pipe ping-pong, unpinned (the scheduler may put the two tasks on two CPUs)"
$NF --db "$DB" run -r 8 -L unpinned pipe -l 20000
echo "== the same, both tasks pinned to CPU 0"
$NF --db "$DB" run -r 8 -L pinned --pin 0 pipe -l 20000
