#!/bin/sh
# Fuzz the importers with libFuzzer (clang; libclang-rt-*-dev).
#
#   tests/fuzz/run.sh [SECONDS]      (default 60; `make fuzz` runs this)
#   tests/fuzz/run.sh --build-only   (build the target, do not fuzz; `make check`)
#
# Builds build/fuzz/import_fuzz from the library sources with
# -fsanitize=fuzzer,address,undefined, seeds a corpus from tests/data/import
# (each file once per format it could be, byte 0 = format selector, with and
# without the store round trip), and runs for SECONDS.  The corpus grows in
# build/fuzz/corpus; crashes are written to build/fuzz/crash-*.  To replay
# one: build/fuzz/import_fuzz build/fuzz/crash-XXXX; once fixed, keep it in
# tests/fuzz/regress/ (replayed as a seed by every run).
set -eu
cd "$(dirname "$0")/../.."
BUILD_ONLY=0
if [ "${1:-}" = --build-only ]; then BUILD_ONLY=1; shift; fi
SECS=${1:-60}
CLANG=${CLANG:-clang}
OUT=build/fuzz
mkdir -p "$OUT/obj" "$OUT/corpus" "$OUT/seeds"
PKG_CFLAGS=$(pkg-config --cflags sqlite3 jansson gsl libpq)
PKG_LIBS=$(pkg-config --libs sqlite3 jansson gsl libpq)
FLAGS="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
objs=""
for src in $(find src -name '*.c' ! -name noisefloor.c ! -name '*_fuzz.c' | sort); do
    case $src in src/formats/*|src/store/*|src/core/*|src/stats/*) ;; *) continue ;; esac
    o="$OUT/obj/$(echo "$src" | tr / _).o"
    if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ -n "$(find src -name '*.h' -newer "$o")" ]; then
        $CLANG -std=c11 -D_GNU_SOURCE -DNF_VERSION='"fuzz"' -Isrc $PKG_CFLAGS $FLAGS -c "$src" -o "$o"
    fi
    objs="$objs $o"
done
$CLANG -std=c11 -D_GNU_SOURCE -DNF_VERSION='"fuzz"' -Isrc $PKG_CFLAGS -g -O1 \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    tests/fuzz/import_fuzz.c $objs $PKG_LIBS -lm -o "$OUT/import_fuzz"
if [ "$BUILD_ONLY" = 1 ]; then
    echo "fuzz: built $OUT/import_fuzz (not run; 'make fuzz' fuzzes)"
    exit 0
fi

# Seeds: byte 0 selects the format (0 values, 1 perf-stat-csv,
# 2 perf-stat-json, 3 hyperfine-json, 4 json, 5 perf-stat; +128: store
# round trip).
for f in tests/data/import/*; do
    case $f in */README) continue ;; esac
    b=$(basename "$f")
    for sel in 0 1 2 3 4 5; do
        for hi in 0 128; do
            printf "\\$(printf %o $((sel + hi)))" >"$OUT/seeds/$sel-$hi-$b"
            cat "$f" >>"$OUT/seeds/$sel-$hi-$b"
        done
    done
done
# Inputs that once crashed (already prefixed with the selector byte).
cp tests/fuzz/regress/* "$OUT/seeds/" 2>/dev/null || true
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$OUT/import_fuzz" -max_total_time="$SECS" -max_len=65536 -timeout=10 \
    -artifact_prefix="$OUT/" -print_final_stats=1 "$OUT/corpus" "$OUT/seeds"
