#!/bin/sh
# make fresh-check [PKG...]: the README's quick start on a fresh machine.
#
# Builds a minimal Debian 12 (bookworm) root with mmdebstrap from Debian's
# package registry (--variant=apt: the essential packages and apt, plus git,
# make and ca-certificates, which is all the README asks a machine to have;
# nothing of this machine's packages), clones HEAD into it, and runs as root
# inside exactly the README's two commands: `make demo`, then `make check`.
# Prints the suites' tally lines, what was skipped or failed, and the time
# of each step; the whole output goes to build/fresh-check.log
# ($NF_FRESH_LOG).  Exit 0 when both commands pass.
#
# The PKG arguments (the Makefile passes the packages `make deps` installs)
# are checked absent from the root before the two commands run: the check
# proves that `make deps` installs them.
#
# Isolation and cleanup.  The root is a new directory under /var/tmp.  The
# two commands run in a new mount namespace and a new PID namespace
# (unshare): the root is bound onto itself (a mount point, as / is), /sys
# and /dev are bind-mounted (recursively: cgroups,
# /sys/kernel/tracing, /dev/pts), /proc is a new procfs of the new PID
# namespace (so that the tests' "nothing left running" checks see only the
# check's processes, not this machine's), /dev/shm a new tmpfs, and this
# machine's /etc/resolv.conf is bound over the root's for apt.  Those mounts
# exist only in that namespace: they are gone when its last process is,
# even if this script is killed with SIGKILL, and every process of the check
# is killed when the namespace's first one ends (unshare --kill-child).  On
# exit (also after a failure, SIGINT, SIGTERM or SIGHUP) this script stops
# the check, waits for its processes to be gone, makes sure nothing is
# mounted under the root here (findmnt; umount -R, then lazily), and
# removes the root only then, with rm --one-file-system.
#
# The cache.  mmdebstrap takes a minute or more, so the bare root is kept as
# the tarball mmdebstrap writes, under /var/cache/noisefloor-fresh/KEY
# ($NF_FRESH_CACHE; "none": no cache), KEY a hash of the suite, the
# architecture, the variant and the package list: another list is another
# tarball.  The cache can never carry the project's packages into a check:
# the tarball is written by mmdebstrap alone (to a temporary name, renamed
# when complete), each check extracts it into a new directory and runs
# there, nothing is ever written back, and the extracted root is checked
# to hold none of the PKG arguments before the commands run (a root that
# does is refused and the tarball deleted).  A tarball older than 7 days
# ($NF_FRESH_MAX_AGE) is built anew, as a fresh machine would have today's
# packages.
set -u
SUITE=bookworm
BASE=git,make,ca-certificates
say() {
    echo "fresh-check: $*"
    [ -z "${LOG:-}" ] || echo "fresh-check: $*" >>"$LOG"
}
cannot() { echo "fresh-check: cannot run: $*" >&2; exit 1; }
now() { date +%s; }

# --- inside the new namespaces: mount, run the two commands, unmount -------
if [ "${1:-}" = --inside ]; then
    R=$2
    # The root a mount point of its own, as / is on a machine (mount
    # --make-private / inside, as test_store_journal does, needs that).
    mount --bind "$R" "$R" &&
        mount --rbind /sys "$R/sys" && mount --make-rslave "$R/sys" &&
        mount --rbind /dev "$R/dev" && mount --make-rslave "$R/dev" &&
        mount -t proc proc "$R/proc" &&
        mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$R/dev/shm" &&
        mount --bind "$(readlink -f /etc/resolv.conf)" "$R/etc/resolv.conf" ||
        { echo "fresh-check: cannot mount /proc, /sys, /dev or resolv.conf in the root" >&2; exit 1; }
    # The environment of a root login on a fresh machine; no stdin, as in CI.
    chroot "$R" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/sh TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/sh -c '
cd /root/noisefloor || exit 1
t0=$(date +%s)
make demo; rc=$?
t1=$(date +%s)
echo "fresh-check: make demo: exit $rc, $((t1 - t0)) s"
[ "$rc" -eq 0 ] || exit "$rc"
make check; rc=$?
echo "fresh-check: make check: exit $rc, $(($(date +%s) - t1)) s"
exit "$rc"' </dev/null
    rc=$?
    umount -R "$R" 2>/dev/null || umount -R -l "$R" 2>/dev/null
    exit "$rc"
fi

# --- outside ----------------------------------------------------------------
[ "$(id -u)" -eq 0 ] ||
    cannot "needs root (it builds a Debian root and mounts /proc, /sys and /dev in it); run it as root or with sudo"
top=$(git rev-parse --show-toplevel 2>/dev/null) || cannot "not in a git checkout"
cd "$top" || exit 1
for t in unshare findmnt chroot tar sha256sum flock dpkg-query; do
    command -v "$t" >/dev/null 2>&1 || cannot "no $t on this machine"
done
[ -x /usr/lib/apt/apt-helper ] || cannot "no apt on this machine (mmdebstrap needs it)"
if ! command -v mmdebstrap >/dev/null 2>&1; then
    sh tests/deps.sh mmdebstrap >&2 && command -v mmdebstrap >/dev/null 2>&1 ||
        cannot "mmdebstrap is not installed and 'apt-get install mmdebstrap' failed"
fi
sha=$(git rev-parse --verify -q HEAD) || cannot "no commit to check out"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
    say "note: uncommitted changes are not checked (the root gets a clone of HEAD)"

T0=$(now)
LOG=${NF_FRESH_LOG:-$top/build/fresh-check.log}
mkdir -p "$(dirname "$LOG")" && : >"$LOG" || cannot "cannot write $LOG"
work=$(mktemp -d /var/tmp/noisefloor-fresh.XXXXXX) || cannot "cannot create a directory under /var/tmp"
R=$work/root
child=""
reader=""
seen=""
builder=""
building=""

# Under $R, mounted here (in this mount namespace)?
mounts_under() { findmnt -rn -o TARGET | awk -v r="$R" 'index($0, r "/") == 1 || $0 == r'; }
# Processes whose root is $R (the check's, should the namespace outlive it).
procs_in_root() {
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$R" ] && echo "${p#/proc/}"
    done
}
cleaned=0
cleanup() {
    [ "$cleaned" = 1 ] && return
    cleaned=1
    if [ -n "$builder" ]; then
        kill -TERM "$builder" 2>/dev/null
        wait "$builder" 2>/dev/null
    fi
    [ -z "$building" ] || rm -f "$building"
    # unshare ignores SIGTERM while it waits; SIGKILL, and --kill-child
    # kills the namespace's first process, and with it all the others.
    if [ -n "$child" ]; then
        kill -KILL "$child" 2>/dev/null
        wait "$child" 2>/dev/null
    fi
    i=0
    while [ -n "$(procs_in_root)" ] && [ $i -lt 30 ]; do
        [ $i -eq 10 ] && kill -KILL $(procs_in_root) 2>/dev/null
        sleep 1; i=$((i + 1))
    done
    [ -n "$reader" ] && wait "$reader" 2>/dev/null
    m=$(mounts_under)
    if [ -n "$m" ]; then
        echo "$m" | sort -r | while read -r d; do umount -R "$d" 2>/dev/null || umount -R -l "$d"; done
    fi
    if [ -n "$(mounts_under)" ] || [ -n "$(procs_in_root)" ]; then
        echo "fresh-check: $work still has mounts or processes; left in place" >&2
        return
    fi
    rm -rf --one-file-system "$work"
    [ ! -e "$work" ] || echo "fresh-check: could not remove all of $work" >&2
}
stopped() { # SIGNAL CODE
    # A second signal must not cut the cleanup short (and leave the root).
    trap '' INT TERM HUP
    echo "fresh-check: stopped by SIG$1; removing what it made" >&2
    cleanup
    exit "$2"
}
trap 'cleanup' EXIT
trap 'stopped INT 130' INT
trap 'stopped TERM 143' TERM
trap 'stopped HUP 129' HUP

# --- the bare root: from the cache, or built (and cached) -------------------
arch=$(dpkg --print-architecture)
key=$(printf 'mmdebstrap --variant=apt --include=%s %s %s\n' "$BASE" "$SUITE" "$arch" | sha256sum | cut -c1-16)
CACHE=${NF_FRESH_CACHE:-/var/cache/noisefloor-fresh}
build_root() { # TARBALL
    say "building a Debian $SUITE root (mmdebstrap --variant=apt --include=$BASE)"
    # In the background, so that a signal stops it at once (cleanup).
    mmdebstrap --variant=apt --include="$BASE" --format=tar "$SUITE" "$1" \
        >"$work/mmdebstrap.log" 2>&1 </dev/null &
    builder=$!
    building=$1
    wait "$builder"
    brc=$?
    builder=""
    if [ "$brc" -ne 0 ]; then
        rm -f "$1"
        cat "$work/mmdebstrap.log" >>"$LOG"
        why=$(grep -m1 -E 'Failed to fetch|Could not resolve|Temporary failure|Unable to connect|Connection (refused|timed out)|Network is unreachable' "$work/mmdebstrap.log")
        [ -n "$why" ] && cannot "Debian's package registry is not reachable: $why"
        cannot "mmdebstrap failed: $(tail -n 1 "$work/mmdebstrap.log")"
    fi
}
t=$(now)
mkdir -p "$R" || exit 1
if [ "$CACHE" = none ]; then
    build_root "$work/root.tar" && from="built"
    tarball=$work/root.tar
else
    mkdir -p "$CACHE/$key" && chmod 700 "$CACHE" || cannot "cannot create $CACHE/$key"
    tarball=$CACHE/$key/root.tar
    exec 9>"$CACHE/$key/lock"
    flock 9 # another fresh-check building the same root
    if [ -f "$tarball" ] && [ -z "$(find "$tarball" -mtime +"${NF_FRESH_MAX_AGE:-7}")" ]; then
        from="cached $(date -r "$tarball" -u '+%Y-%m-%d %H:%M UTC')"
    else
        build_root "$CACHE/$key/root.tar.new" && mv -f "$CACHE/$key/root.tar.new" "$tarball"
        building=""
        from="built"
    fi
fi
tar -C "$R" --numeric-owner -xf "$tarball" || cannot "cannot extract $tarball"
[ "$CACHE" = none ] && rm -f "$tarball"
exec 9>&-
# The root holds none of the packages `make deps` is to install, but those
# of the base list (make and git are there by design) and Debian's
# essential ones (util-linux, bsdutils: on every Debian machine).
held=""
there=""
for p in "$@"; do
    case ",$BASE," in *",$p,"*) there="$there $p"; continue ;; esac
    st=$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f='${Status} ${Essential}' "$p" 2>/dev/null)
    case "$st" in *"install ok installed yes") there="$there $p" ;; *"install ok installed"*) held="$held $p" ;; esac
done
if [ -n "$held" ]; then
    [ "$CACHE" = none ] || rm -f "$tarball"
    cannot "the bare root already holds$held (cache $tarball deleted; run again)"
fi
npkg=$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f='${Status}\n' | grep -c 'install ok installed')
say "bare root ($from, $(($(now) - t)) s): $npkg packages; of the $# make deps installs, only$there"

# Debian's registry reachable (apt in the root will need it)?
uri=$(awk '$1 == "deb" { print $2 "/dists/" $3 "/InRelease"; exit }' "$R/etc/apt/sources.list")
/usr/lib/apt/apt-helper download-file "$uri" "$work/InRelease" >"$work/probe.log" 2>&1 ||
    cannot "Debian's package registry is not reachable: $(grep -m1 '^E: ' "$work/probe.log" || tail -n 1 "$work/probe.log")"
rm -f "$work/InRelease"

# --- a clean clone of HEAD --------------------------------------------------
git clone -q --no-hardlinks "$top" "$R/root/noisefloor" &&
    git -C "$R/root/noisefloor" -c advice.detachedHead=false checkout -q --detach "$sha" ||
    cannot "cannot clone HEAD ($sha) into the root"
say "cloned $(git log -1 --format='%h %s' "$sha")"

# --- the two commands -------------------------------------------------------
# Their output goes whole to the log, and its summary lines to stdout.
SUMMARY='^(fresh-check: |deps: |unit: [0-9]+ passed|e2e: [0-9]+ passed|e2e: failed: |make check: |FAILED: |FAIL: |\[  FAILED  \] [A-Za-z_]|\[  SKIPPED \] [A-Za-z_]|skip: |make(\[[0-9]+\])?: \*\*\*|noisefloor: pkg-config)'
t=$(now)
off=$(($(wc -c <"$LOG") + 1))
unshare --mount --propagation private --pid --fork --kill-child -- \
    sh "$top/tests/fresh-check.sh" --inside "$R" >>"$LOG" 2>&1 </dev/null &
child=$!
# tail ends a second after the check (its process reaped by the wait below);
# a skipped or failed unit test is named once, not by each of its lines.
tail -c +"$off" -f --pid="$child" "$LOG" | grep --line-buffered -E "$SUMMARY" |
    while IFS= read -r l; do
        case "$l" in
            "[  SKIPPED ]"* | "[  FAILED  ]"*)
                case "$seen" in *"|$l|"*) continue ;; esac
                seen="$seen|$l|" ;;
        esac
        printf '%s\n' "$l"
    done &
reader=$!
wait "$child"
rc=$?
child=""
wait "$reader"
reader=""
cleanup
say "$([ "$rc" -eq 0 ] && echo passed || echo "FAILED (exit $rc)"): $(($(now) - T0)) s in all, $(($(now) - t)) s for the two commands; the log: $LOG"
exit "$rc"
