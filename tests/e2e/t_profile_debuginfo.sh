# profile names the functions of a stripped file from its separate debug
# file, found as gdb and perf find it: by build-id under a debug directory
# (--debug-dir, default /usr/lib/debug), or by .gnu_debuglink next to the
# file, in its .debug/ directory or under the debug directory.  A debug
# file that is not the file's (another build-id, another CRC) is not used.
# A program compiled here spends its time in burn_hot; its debug file is
# split off with objcopy --only-keep-debug, the program stripped and linked
# to it with --add-gnu-debuglink.  The wrong debug files are those of the
# same program built with the function named wrong_hot, or the right one
# with burn_hot renamed: a name from them shows.  With libc6-dbg installed,
# libc's own internal functions are named too.
. "$(dirname "$0")/lib.sh"

cat >burn.c <<'EOF'
/* burn MS: MS ms of CPU time in HOT (tests/helpers/burn.h), the same on
 * any machine, loaded or not. */
#include <stdlib.h>
#include "burn.h"
__attribute__((noinline)) void HOT(double ms)
{
    nf_burn_ms(ms);
}
int main(int argc, char **argv)
{
    HOT(atof(argv[1]));
    return 0;
}
EOF
# split NAME: NAME.debug, and NAME stripped with a debuglink to it.
split() {
    objcopy --only-keep-debug "$1" "$1.debug" && strip "$1" &&
        objcopy --add-gnu-debuglink="$1.debug" "$1"
}
# The build-id of ELF file $1 in hex, or nothing.
build_id() {
    readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}
command -v objcopy >/dev/null && command -v readelf >/dev/null ||
    skip "objcopy and readelf (binutils) are not installed"
# -Wl,--build-id: the compiler's default on Debian, said so everywhere.
cc -O1 -g -Wl,--build-id -I"$ROOT/tests/helpers" -DHOT=burn_hot -o burn burn.c &&
    cc -O1 -g -Wl,--build-id -I"$ROOT/tests/helpers" -DHOT=wrong_hot -o wrong burn.c &&
    split burn && split wrong || fail "cannot compile and split the helper"
# A debug file with burn's build-id whose symbols say wrong_hot: its CRC is
# not the one burn's debuglink holds.
objcopy --redefine-sym burn_hot=wrong_hot burn.debug renamed.debug ||
    fail "cannot rename a symbol of the debug file"
bid=$(build_id burn)
[ -n "$bid" ] && [ "$bid" = "$(build_id burn.debug)" ] &&
    [ "$bid" = "$(build_id renamed.debug)" ] && [ "$bid" != "$(build_id wrong)" ] ||
    fail "unexpected build-ids: burn $bid, burn.debug $(build_id burn.debug)"
readelf -S burn | grep -q '\.gnu_debuglink' && ! readelf -S burn | grep -q '\.symtab' ||
    fail "burn is not stripped with a debuglink"
bidpath=.build-id/$(printf %s "$bid" | cut -c1-2)/$(printf %s "$bid" | cut -c3-).debug
mkdir -p empty
# Milliseconds of CPU time: some 400 samples at 4000 Hz on any machine.
N=100

# A fresh directory $T/bin with burn (stripped) and nothing else.
fresh() {
    rm -rf "$T/bin" "$T/dbg" && mkdir -p "$T/bin" "$T/dbg" && cp burn "$T/bin/burn"
}
# Profile $T/bin/burn with the options given; JSON in $T/out.
prof() {
    expect_rc 0 "$NF" profile -r 1 --warmup 0 -L dbg --json "$@" -- "$T/bin/burn" "$N"
}
# The percentage of the samples in the file burn that are SYMBOL's (0:
# none, or not N of burn's some 4 * N).  Of burn's samples, not of all: the exec and the loader around
# it are work whose CPU time depends on the machine, burn's is N ms.
share() {
    /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
burn = [s for s in d["symbols"] if s["dso"].endswith("/bin/burn")]
total = sum(s["samples"] for s in burn)
print(100 * sum(s["samples"] for s in burn if s["symbol"] == sys.argv[2]) / total if total > int(sys.argv[3]) else 0)' \
        "$T/out" "$1" "$N"
}
# burn's samples are under burn_hot (named), or [unknown] (not named).
named() {
    case_failed && return 0
    s=$(share burn_hot)
    /usr/bin/python3 -c "import sys; sys.exit(not $s > 70)" ||
        fail "burn_hot has $s% of burn's samples, not most: $(head -c 600 "$T/out")"
}
not_named() {
    case_failed && return 0
    json_check 'all(s["symbol"] not in ("burn_hot", "wrong_hot") for s in d["symbols"])'
    s=$(share "[unknown]")
    /usr/bin/python3 -c "import sys; sys.exit(not $s > 70)" ||
        fail "[unknown] has $s% of burn's samples, not most: $(head -c 600 "$T/out")"
}

t_case "sampling is permitted here"
if ! "$NF" profile -r 1 --warmup 0 -L probe -- true >"$T/out" 2>"$T/err"; then
    grep -q "perf_event" "$T/err" && skip "$(head -1 "$T/err")"
    fail "profile of 'true' failed: $(head -c 400 "$T/err")"
fi

t_case "stripped, no debug file: not named"
fresh
prof --debug-dir "$T/empty"
not_named
# The same without --debug-dir: /usr/lib/debug has nothing of a file built here.
prof
not_named

t_case "debug file by build-id under --debug-dir: named"
fresh
mkdir -p "$(dirname "$T/dbg/$bidpath")" && cp burn.debug "$T/dbg/$bidpath"
prof --debug-dir "$T/dbg"
named
# Another directory first, then this one: each is searched.
prof --debug-dir "$T/empty" --debug-dir "$T/dbg/"
named

t_case "debug file by .gnu_debuglink next to the file: named"
fresh
cp burn.debug "$T/bin/burn.debug"
prof --debug-dir "$T/empty"
named

t_case "debug file by .gnu_debuglink in .debug/ and under --debug-dir: named"
fresh
mkdir -p "$T/bin/.debug" && cp burn.debug "$T/bin/.debug/burn.debug"
prof --debug-dir "$T/empty"
named
fresh
mkdir -p "$T/dbg$T/bin" && cp burn.debug "$T/dbg$T/bin/burn.debug"
prof --debug-dir "$T/dbg"
named

t_case "another build's debug file at the build-id path: not used"
fresh
mkdir -p "$(dirname "$T/dbg/$bidpath")" && cp wrong.debug "$T/dbg/$bidpath"
prof --debug-dir "$T/dbg"
not_named

t_case "a debuglink file with another CRC: not used"
# The same build-id, other contents (burn_hot renamed): only the CRC tells.
fresh
cp renamed.debug "$T/bin/burn.debug"
prof --debug-dir "$T/empty"
not_named

t_case "a debuglink file with the right CRC and another build-id: not used"
# A program linked to another build's debug file: the CRC is the one its
# debuglink holds, the build-ids differ.
fresh
cp burn "$T/bin/burn.nolink" && objcopy --remove-section=.gnu_debuglink "$T/bin/burn.nolink" &&
    (cd "$T/bin" && cp "$T/wrong.debug" other.debug &&
        objcopy --add-gnu-debuglink=other.debug burn.nolink burn) ||
    fail "cannot relink burn to another debug file"
prof --debug-dir "$T/empty"
not_named

t_case "--debug-dir that is not a directory: one line, exit 2, nothing stored"
before=$("$NF" list 2>/dev/null | wc -l)
expect_rc 2 "$NF" profile -r 1 --warmup 0 -L bad --debug-dir "$T/nonexistent" -- "$T/bin/burn" 1
expect_one_line_err
expect_in err "^noisefloor: profile: --debug-dir $T/nonexistent: No such file or directory$"
expect_rc 2 "$NF" profile -r 1 --warmup 0 -L bad --debug-dir "$T/burn.c" -- "$T/bin/burn" 1
expect_in err "^noisefloor: profile: --debug-dir $T/burn.c: not a directory$"
[ "$("$NF" list 2>/dev/null | wc -l)" -eq "$before" ] || fail "a run was stored"

t_case "libc's internal functions from /usr/lib/debug (libc6-dbg)"
# qsort's merge sort is a static function of libc: named only by the debug
# file, and not one of the names libc exports.
cat >qs.c <<'EOF'
#include <stdlib.h>
#include "burn.h"
static int cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}
int main(int argc, char **argv)
{
    /* Sorts until argv[1] ms of CPU time are spent: the same share of
     * samples in libc on any machine. */
    int n = 100000;
    double ms = atof(argv[1]), t0 = nf_burn_now_ms();
    int *v = malloc(n * sizeof(*v));
    while (nf_burn_now_ms() - t0 < ms) {
        for (int i = 0; i < n; i++)
            v[i] = (int)((i * 2654435761u) >> 7);
        qsort(v, n, sizeof(*v), cmp);
    }
    free(v);
    return 0;
}
EOF
cc -O1 -I"$ROOT/tests/helpers" -o qs qs.c || fail "cannot compile qs"
libc=$(ldd ./qs | awk '$1 ~ /^libc\.so/ { print $3 }')
lbid=$(build_id "$libc")
[ -n "$lbid" ] || skip "libc ($libc) has no build-id"
ldbg=/usr/lib/debug/.build-id/$(printf %s "$lbid" | cut -c1-2)/$(printf %s "$lbid" | cut -c3-).debug
[ -f "$ldbg" ] || skip "no debug file of libc in /usr/lib/debug (package libc6-dbg)"
readelf -W --dyn-syms "$libc" | awk 'NF >= 8 { sub(/@.*/, "", $8); print $8 }' | sort -u >exported
expect_rc 0 "$NF" profile -r 1 --warmup 0 -L libc --json -- ./qs 200
case_failed || /usr/bin/python3 - "$T/out" exported <<'PY' || fail "libc's internals not named: $(head -c 800 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
exported = set(open(sys.argv[2]).read().split())
libc = [s for s in d["symbols"] if "/libc.so" in s["dso"]]
total = sum(s["overhead_pct"] for s in libc)
unknown = sum(s["overhead_pct"] for s in libc if s["symbol"] == "[unknown]")
internal = sum(s["overhead_pct"] for s in libc if s["symbol"] not in exported and not s["symbol"].startswith("["))
sys.exit(not (total > 20 and unknown < total / 10 and internal > total / 2))
PY
pass
