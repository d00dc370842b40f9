# Files the tool creates, against symlinks planted where it writes: the
# page of report --html, the tuning state file and their temporaries are
# created under fresh names (O_EXCL|O_NOFOLLOW) and renamed into place, so a
# planted symlink is never followed; a setting is never written through a
# symlink.  A full disk leaves the old page whole and no temporary behind.
if [ -z "${NF_E2E_MOUNTNS:-}" ] && [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    # A private mount namespace: the tmpfs mounted below vanishes with us.
    NF_E2E_MOUNTNS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

V="$T/victim"
S="$T/tune.state"
mkdir -p fk/proc/sys/kernel
# fresh: each case starts from the same files (a failed one may have changed
# them).
fresh() {
    echo secret >"$V"
    echo 1 >fk/proc/sys/kernel/sched_a
    rm -f "$S" "$S".*
}
fresh
victim_intact() {
    [ "$(cat "$V")" = secret ] || fail "the symlink was followed: victim holds $(head -c 80 "$V")"
}
no_temporaries() { # no_temporaries FILE: no FILE.tmp.* left
    ! ls "$1".tmp.* >/dev/null 2>&1 || fail "temporaries left: $(ls "$1".tmp.*)"
}
printf '%s\n' 100 101 99 100.5 >base.txt
printf '%s\n' 110 111 109 110.5 >slow.txt
t_case "setup: two labels"
expect_rc 0 "$NF" import base.txt --format values --label base --metric t --unit s --better lower
expect_rc 0 "$NF" import slow.txt --format values --label slow --metric t --unit s --better lower

t_case "report --html: a symlink planted at FILE.tmp"
fresh
ln -s "$V" page.html.tmp
expect_rc 0 "$NF" report base slow --html page.html
victim_intact
[ -L page.html.tmp ] || fail "the planted symlink was replaced"
grep -q '<html' page.html || fail "no page written"
no_temporaries page.html
t_case "report --html: a dangling symlink planted at FILE.tmp"
fresh
ln -s "$T/created" dangling.html.tmp
expect_rc 0 "$NF" report base slow --html dangling.html
[ ! -e "$T/created" ] || fail "a file was created through the dangling symlink"
t_case "report --html: a symlink at FILE is replaced, not followed"
fresh
ln -s "$V" linked.html
expect_rc 0 "$NF" report base slow --html linked.html
victim_intact
[ -f linked.html ] && [ ! -L linked.html ] || fail "linked.html is not the page"
no_temporaries linked.html

# The state file's temporary was <state>.<pid>.tmp: a wrapper that plants
# the symlink and then execs noisefloor (same pid) hits it every time.
t_case "--sysctl: a symlink planted at the state file's temporary"
fresh
expect_rc 0 env NOISEFLOOR_STATE="$S" sh -c 'ln -s "$1" "$2.$$.tmp"; exec "$3" run -r 1 \
    --warmup 0 --root fk --sysctl kernel.sched_a=5 -- true' sh "$V" "$S" "$NF"
victim_intact
[ ! -e "$S" ] || fail "state file left"
no_temporaries "$S"
t_case "--sysctl: a symlink planted at the state file"
fresh
ln -s "$V" "$S"
expect_rc 1 env NOISEFLOOR_STATE="$S" "$NF" run -r 1 --warmup 0 --root fk \
    --sysctl kernel.sched_a=5 -- true
expect_one_line_err
expect_in err "refusing the tuning state file .*symbolic link"
victim_intact
[ "$(cat fk/proc/sys/kernel/sched_a)" = 1 ] || fail "tuned despite the refusal"
t_case "doctor --restore: a symlink at the state file to a state of ours"
fresh
printf '{"version":1,"pid":1,"root":"%s","entries":[{"key":"k","path":"%s","original":"9"}]}\n' \
    "$T/fk" "$T/fk/proc/sys/kernel/sched_a" >"$T/real.state"
chmod 600 "$T/real.state"
ln -s "$T/real.state" "$S"
expect_rc 1 env NOISEFLOOR_STATE="$S" "$NF" doctor --restore
expect_one_line_err
expect_in err "symbolic link"
[ "$(cat fk/proc/sys/kernel/sched_a)" = 1 ] || fail "restored through a symlink"
rm -f "$S"
t_case "--sysctl: a setting that is a symlink is not written through"
fresh
ln -s "$V" fk/proc/sys/kernel/sched_l
expect_rc 1 env NOISEFLOOR_STATE="$S" "$NF" run -r 1 --warmup 0 --root fk \
    --sysctl kernel.sched_l=5 -- true
expect_one_line_err
expect_in err "cannot set kernel.sched_l"
victim_intact
[ ! -e "$S" ] || fail "state file left"

t_case "a new database is not created through a planted symlink"
fresh
ln -s "$T/elsewhere.db" planted.db
expect_rc 1 "$NF" --db planted.db run -r 1 --warmup 0 -- true
expect_one_line_err
expect_in err "planted.db' is a symbolic link to nothing"
[ ! -e "$T/elsewhere.db" ] || fail "a database was created through the symlink"
expect_rc 1 "$NF" --db planted.db import base.txt --format values -L x
[ ! -e "$T/elsewhere.db" ] || fail "a database was created through the symlink"
# A symlink to an existing database of ours is the user's own: it works.
ln -s "$NOISEFLOOR_DB" mine.db
expect_rc 0 "$NF" --db mine.db list
expect_in out "base"

[ -n "${NF_E2E_MOUNTNS:-}" ] || skip "cannot mount a small file system here (needs root and unshare -m)"
t_case "report --html on a full disk: exit 1, the old page whole"
fresh
mkdir full
mount -t tmpfs -o size=256k tmpfs full || fail "cannot mount a tmpfs"
expect_rc 0 "$NF" report base slow --html full/page.html
cp full/page.html old.html
dd if=/dev/zero of=full/fill bs=4k 2>/dev/null
expect_rc 1 "$NF" report base slow --html full/page.html
expect_one_line_err
expect_in err "cannot write .*full/page.html: No space left on device"
cmp -s old.html full/page.html || fail "the old page was changed"
no_temporaries full/page.html
t_case "--sysctl on a full disk: refused, nothing tuned"
fresh
expect_rc 1 env NOISEFLOOR_STATE="$T/full/state" "$NF" run -r 1 --warmup 0 --root fk \
    --sysctl kernel.sched_a=5 -- true
expect_one_line_err
expect_in err "No space left on device"
[ "$(cat fk/proc/sys/kernel/sched_a)" = 1 ] || fail "tuned without a state file"
no_temporaries "$T/full/state"
umount full
pass
