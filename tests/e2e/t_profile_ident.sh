# profile names samples only from the binary that ran, when the file at its
# path changes during the profile (a rebuild): between repetitions, in
# place after it ran, renamed over or deleted while it runs.  A program
# compiled here spins in hot_a and hot_b; the same code built with other
# names (other_a, other_b) is the rebuild, so a name from the wrong file
# shows.  Where the replacement happens inside the program, it happens at
# a known point, and the program waits (inotify) until the profiler has
# opened the file it runs from before it exits: nothing rests on timing.
. "$(dirname "$0")/lib.sh"

cat >spin.c <<'EOF'
/* spin MS [rename:FILE | relink:FILE]: MS ms of CPU time in hot_a, then
 * MS in hot_b (sized by CPU time, tests/helpers/burn.h).  With rename,
 * FILE is first renamed over our own path; with relink our path is
 * deleted and FILE linked there.  Then we exit only once someone (the
 * profiler pinning it) has opened the file we run from: an open after the
 * watch is an event, one before it an fd of our parent's (the profiler)
 * that is our own file. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>
#include "burn.h"
__attribute__((noinline)) void FA(double ms)
{
    nf_burn_ms(ms);
}
__attribute__((noinline)) void FB(double ms)
{
    nf_burn_ms(ms);
}
static int parent_has_us_open(void)
{
    struct stat me, st;
    char dir[64], path[600];
    if (stat("/proc/self/exe", &me) != 0)
        return 0;
    snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)getppid());
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));) {
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        found = stat(path, &st) == 0 && st.st_dev == me.st_dev && st.st_ino == me.st_ino;
    }
    closedir(d);
    return found;
}
int main(int argc, char **argv)
{
    const char *how = argc > 2 ? argv[2] : "";
    int in = -1;
    if (*how) {
        in = inotify_init1(IN_CLOEXEC);
        if (in < 0 || inotify_add_watch(in, argv[0], IN_OPEN) < 0)
            return 2;
        if (strncmp(how, "rename:", 7) == 0 ? rename(how + 7, argv[0]) != 0
                                             : unlink(argv[0]) != 0 || link(how + 7, argv[0]) != 0)
            return 2;
    }
    FA(atof(argv[1]));
    FB(atof(argv[1]));
    if (in >= 0 && !parent_has_us_open()) {
        struct pollfd p = {in, POLLIN, 0};
        if (poll(&p, 1, 30000) != 1) {
            fprintf(stderr, "spin: nobody opened %s\n", argv[0]);
            return 3;
        }
    }
    return 0;
}
EOF
cc -O1 -fPIE -pie -I"$ROOT/tests/helpers" -DFA=hot_a -DFB=hot_b -o hot spin.c &&
    cc -O1 -fPIE -pie -I"$ROOT/tests/helpers" -DFA=other_a -DFB=other_b -o other spin.c ||
    fail "cannot compile the helper"
# Milliseconds of CPU time in each function: some 200 samples each at the
# default 4000 Hz on any machine, against a few dozen for the shell and cp
# around them.
N=50
# The samples in the program's file (bin, shown "(deleted)" or "(replaced)"
# when it is), and of those in DSO.  Measured against these, not against
# all the samples: the shell and cp around the program are work whose CPU
# time depends on the machine, the program's is N ms of CPU time.
BIN='sum(s["samples"] for s in d["symbols"] if s["dso"].endswith(("/bin", "/bin (deleted)", "/bin (replaced)")))'
# The program's samples are all named from the binary that ran: nearly all
# of the binary's in hot_a and hot_b, each with a good part of its 4 * N
# samples (the sampling clock counts CPU time, as the program does).
expect_hot() {
    case_failed && return 0
    json_check 'all(not s["symbol"].startswith("other_") for s in d["symbols"])'
    json_check "sum(s['samples'] for s in d['symbols'] if s['symbol'] in ('hot_a', 'hot_b') and s['dso'].endswith('/bin')) > 0.9 * $BIN"
    json_check "all(sum(s['samples'] for s in d['symbols'] if s['symbol'] == f) > $N for f in ('hot_a', 'hot_b'))"
    expect_not_in err "changed on disk"
}

t_case "sampling is permitted here"
if ! "$NF" profile -r 1 --warmup 0 -L probe -- true >"$T/out" 2>"$T/err"; then
    grep -q "perf_event" "$T/err" && skip "$(head -1 "$T/err")"
    fail "profile of 'true' failed: $(head -c 400 "$T/err")"
fi

t_case "rebuilt between repetitions: each named from its own binary"
# The first repetition runs hot, the second the rebuild at the same path:
# neither may be read with the other's symbols (a table cached by path
# named the second repetition's samples hot_a).
expect_rc 0 "$NF" profile -r 2 --warmup 0 -L between --json -- sh -c \
    "if [ -e ran ]; then cp other bin; else cp hot bin; : >ran; fi; exec ./bin $N"
for f in hot_a hot_b other_a other_b; do
    json_check "15 < 100 * sum(s['samples'] for s in d['symbols'] if s['symbol'] == '$f' and s['dso'].endswith('/bin')) / $BIN < 35"
done
expect_not_in err "changed on disk"
rm -f ran

t_case "rewritten in place after it ran: not named, one warning"
# cp over the binary once it exited keeps the inode: only the build-id the
# kernel reports with the mapping (Linux 5.12 and later) tells the files
# apart.  Two repetitions, one file: one warning.
kernel=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
if [ "$kernel" -ge 5012 ]; then
    expect_rc 0 "$NF" profile -r 2 --warmup 0 -L inplace --json -- sh -c \
        "cp hot bin && ./bin $N && cp other bin"
    json_check 'all(not s["symbol"].startswith(("hot_", "other_")) for s in d["symbols"])'
    json_check 'next(s for s in d["symbols"] if s["dso"].endswith("/bin (replaced)"))["symbol"] == "[unknown]"'
    json_check "sum(s['samples'] for s in d['symbols'] if s['dso'].endswith('/bin (replaced)')) == $BIN > 2 * $N"
    [ "$(grep -c "changed on disk" "$T/err")" -eq 1 ] ||
        fail "not one warning: $(cat "$T/err")"
    expect_in err "^noisefloor: warning: $T/bin changed on disk during the profile: its samples are not named"
    # The text shows the dso as perf would show it, with the reason.
    expect_rc 0 "$NF" profile -r 1 --warmup 0 -L inplace --top 3 -- sh -c \
        "cp hot bin && ./bin $N && cp other bin"
    expect_in out "^ +[0-9.]+% +[0-9]+  \[unknown\]  \[bin \(replaced\)\]$"
    # -q: no warning.
    expect_rc 0 "$NF" profile -q -r 1 --warmup 0 -L inplace -- sh -c \
        "cp hot bin && ./bin $N && cp other bin"
    expect_not_in err "changed on disk"
else
    echo "note: kernel $(uname -r) reports no build-ids: in-place rewrite not tested"
fi

t_case "deleted after it ran: named, or shown deleted"
# Deleted once it exited: named when the file was pinned before (the
# usual case), else [unknown] in [bin (deleted)] with a warning; never a
# name from elsewhere.
expect_rc 0 "$NF" profile -r 1 --warmup 0 -L deleted --json -- sh -c "cp hot bin && ./bin $N && rm bin"
json_check 'all(not s["symbol"].startswith("other_") for s in d["symbols"])'
if grep -q "changed on disk" "$T/err"; then
    json_check "sum(s['samples'] for s in d['symbols'] if s['dso'].endswith('/bin (deleted)')) == $BIN > 2 * $N"
else
    expect_hot
fi

# Replaced while it runs: the program renames the rebuild over its own
# path (or deletes its path and links the rebuild there) before it spins,
# and exits once the profiler opened its file, which it can through
# /proc/PID/map_files only with CAP_SYS_ADMIN.
if head -c1 "/proc/$$/map_files/$(ls /proc/$$/map_files | head -n1)" >/dev/null 2>&1; then
    t_case "renamed over while it runs: named from the binary that ran"
    expect_rc 0 "$NF" profile -r 2 --warmup 0 -L renamed --json -- sh -c \
        "cp hot bin && cp other bin.new && exec ./bin $N rename:bin.new"
    expect_hot
    expect_rc 0 "$NF" profile -r 1 --warmup 0 -L renamed --top 2 -- sh -c \
        "cp hot bin && cp other bin.new && exec ./bin $N rename:bin.new"
    expect_in out "^ +[0-9.]+% +[0-9]+  hot_[ab]  \[bin\]$"

    t_case "deleted and another put at its path while it runs: named from the binary that ran"
    expect_rc 0 "$NF" profile -r 1 --warmup 0 -L relinked --json -- sh -c \
        "rm -f bin && cp hot bin && cp other bin.new && exec ./bin $N relink:bin.new"
    expect_hot
else
    t_case "replaced while it runs"
    skip "/proc/PID/map_files cannot be opened here (no CAP_SYS_ADMIN): replacement while running not tested"
fi
pass
