# The SQLite store's files against faults and planted files: a FIFO at a
# journal's name (ours, <db>-nfj.N, or SQLite's own -journal, -wal, -shm)
# never hangs a command; a full disk or a file-size limit during run ends
# it with one line and the system restored; a journal's writer is known
# by the lock it holds, not by a host name; a database reached through a
# link finds its journals.
if [ -z "${NF_E2E_MOUNTNS:-}" ] && [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    # A private mount namespace: the tmpfs mounted below vanishes with us.
    NF_E2E_MOUNTNS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

# within CODE CMD...: expect_rc CODE, with CMD stopped after 20 s (a hang
# shows as exit 124).
within() {
    want=$1; shift
    expect_rc "$want" timeout 20 "$@"
}

t_case "setup: one run"
expect_rc 0 "$NF" run -r 2 --warmup 0 -L a -- true

t_case "a FIFO at <db>-nfj.N hangs no command"
# Run 1's journal name, and one of a run yet to come.
mkfifo "$NOISEFLOOR_DB-nfj.1" "$NOISEFLOOR_DB-nfj.2"
within 0 "$NF" list
expect_in out '^ +1 +a '
within 0 "$NF" show 1
within 0 "$NF" export
within 0 "$NF" run -r 2 --warmup 0 -L b -- true
within 0 "$NF" compare a b
within 0 "$NF" show 2
expect_in out 'status +complete'
rm -f "$NOISEFLOOR_DB-nfj.1" "$NOISEFLOOR_DB-nfj.2"

t_case "a FIFO at SQLite's -journal, -wal or -shm is refused, not waited on"
for tail in -journal -wal -shm; do
    mkfifo "$NOISEFLOOR_DB$tail.fifo"
    if [ -e "$NOISEFLOOR_DB$tail" ]; then mv "$NOISEFLOOR_DB$tail" "$T/saved$tail"; fi
    mv "$NOISEFLOOR_DB$tail.fifo" "$NOISEFLOOR_DB$tail"
    within 1 "$NF" list
    expect_one_line_err
    expect_in err "$tail' is not a regular file"
    within 1 "$NF" run -r 1 --warmup 0 -L c -- true
    expect_one_line_err
    rm -f "$NOISEFLOOR_DB$tail"
    if [ -e "$T/saved$tail" ]; then mv "$T/saved$tail" "$NOISEFLOOR_DB$tail"; fi
done
within 0 "$NF" list
expect_in out '^ +2 +b '

pass
