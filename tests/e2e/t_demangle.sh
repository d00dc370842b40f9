# C++ symbols are shown demangled, as perf report shows them, by profile,
# profdiff and insns; stored and paired by their names in the file; JSON
# gives both; insns --func takes either.  A C++ program compiled here
# spends its time in ns::Hot<unsigned long>::run(unsigned long).
. "$(dirname "$0")/lib.sh"

command -v g++ >/dev/null || skip "no g++ to build a C++ program"
cat >hot.cc <<'CC'
#include <cstdlib>
#include <ctime>
static double cpu_ms()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
namespace ns {
template <typename T> struct Hot {
    // n ms of CPU time, not n rounds: as many samples on any machine.
    __attribute__((noinline)) static T run(T n)
    {
        volatile T x = 1;
        double t0 = cpu_ms();
        while (cpu_ms() - t0 < n)
            for (T i = 0; i < (1u << 21); i++)
                x = x * 2654435761u + i;
        return x;
    }
};
}
volatile unsigned long sink;
int main(int argc, char **argv)
{
    (void)argc;
    sink = ns::Hot<unsigned long>::run(strtoul(argv[1], 0, 10));
    return 0;
}
CC
g++ -O2 -o hot hot.cc || fail "cannot compile hot.cc"
MANGLED=_ZN2ns3HotImE3runEm
SHOWN='ns::Hot<unsigned long>::run(unsigned long)'
SHOWN_RE='ns::Hot<unsigned long>::run\(unsigned long\)'

t_case "insns: demangled, --func by either name"
expect_rc 0 "$NF" insns --func "$MANGLED" hot
expect_in out "^$SHOWN_RE"
expect_not_in out "$MANGLED"
expect_rc 0 "$NF" insns --func "$SHOWN" --json hot
json_check 'd["files"][0]["functions"][0]["name"] == "'"$MANGLED"'"'
json_check 'd["files"][0]["functions"][0]["demangled"] == "'"$SHOWN"'"'
expect_rc 0 "$NF" insns --func main --json hot
json_check '"demangled" not in d["files"][0]["functions"][0]'

t_case "profile and profdiff: demangled"
if ! "$NF" profile -r 1 --warmup 0 -L probe -- true >"$T/out" 2>"$T/err"; then
    grep -q "perf_event" "$T/err" && skip "$(head -1 "$T/err")"
    fail "profile of 'true' failed: $(head -c 400 "$T/err")"
fi
# 200 ms of CPU time: some 800 samples in run() at 4000 Hz.
expect_rc 0 "$NF" profile -r 2 --warmup 0 -L a --top 0 -- ./hot 200
expect_in out "^ +[0-9.]+% +[0-9]+  $SHOWN_RE  \[hot\]$"
expect_not_in out "$MANGLED"
expect_rc 0 "$NF" profile -r 2 --warmup 0 -L b --top 0 --json -- ./hot 200
json_check '[s["demangled"] for s in d["symbols"] if s["symbol"] == "'"$MANGLED"'"] == ["'"$SHOWN"'"]'
json_check 'all("demangled" not in s for s in d["symbols"] if not s["symbol"].startswith("_Z"))'
expect_rc 0 "$NF" profdiff a b
expect_in out "  $SHOWN_RE  \[hot\]$"
expect_not_in out "$MANGLED"
expect_rc 0 "$NF" profdiff --json a b
json_check '[r["demangled"] for r in d["rows"] if r["symbol"] == "'"$MANGLED"'"] == ["'"$SHOWN"'"]'
pass
