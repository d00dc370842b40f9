/* The SQLite backend's repetition journal (src/store/sqlite_journal.c,
 * its recovery in src/store/sqlite_journal_recover.c): what a writer
 * killed by SIGKILL had stored is in the database after the next open,
 * and nothing else is: not a record after a broken one, not a live
 * writer's, not a journal owned by someone else or reached through a
 * symlink.  An open that cannot write reads the same rows from the
 * journal, and changes nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "store/store.h"

#include "store_target.h"

/* A run with a command's eight metrics (a record of 96 bytes). */
static struct nf_run *command_run(const char *label)
{
    struct nf_run *r = nf_run_new(label, "command");
    for (int i = 0; i < 8; i++) {
        char name[16];
        snprintf(name, sizeof(name), "m%d", i);
        nf_run_metric(r, name, "", NF_BETTER_LOWER, i == 0);
    }
    return r;
}

static double value(int rep, size_t metric)
{
    return 0.5 + rep * 1e-3 + (double)metric;
}

/* In a child: begin a run, add reps repetitions, then (keep_at >= 0) copy
 * the journal aside as it was after keep_at repetitions, finish the run
 * and exit; or (keep_at < 0) die by SIGKILL.  The run's id. */
static int64_t writer(int reps, int keep_at)
{
    int64_t *id = &(int64_t){0};
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        struct nf_store *s = tgt_open(NF_STORE_CREATE);
        struct nf_run *r = command_run("w");
        if (nf_store_begin_run(s, r) != 0)
            _exit(2);
        if (write(p[1], &r->id, sizeof(r->id)) != (ssize_t)sizeof(r->id))
            _exit(2);
        for (int k = 0; k < reps; k++) {
            for (size_t i = 0; i < r->nmetrics; i++)
                nf_metric_push(&r->metrics[i], value(k, i), 100.0);
            if (nf_store_add_rep(s, r, (size_t)k) != 0)
                _exit(2);
            if (k + 1 == keep_at) {
                char *cmd =
                    nf_xasprintf("cp %s-nfj.%lld %s/kept", tgt.db, (long long)r->id, tgt.dir);
                if (system(cmd) != 0)
                    _exit(2);
                free(cmd);
            }
        }
        if (keep_at < 0)
            raise(SIGKILL);
        r->state = NF_RUN_COMPLETE;
        nf_store_finish_run(s, r);
        nf_store_close(s);
        _exit(0);
    }
    close(p[1]);
    assert_int_equal(read(p[0], id, sizeof(*id)), (ssize_t)sizeof(*id));
    close(p[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    if (keep_at < 0)
        assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    else
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return *id;
}

static char *journal_of(int64_t id)
{
    return nf_xasprintf("%s-nfj.%lld", tgt.db, (long long)id);
}

static int exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

/* The run as a new handle loads it: its repetitions, each checked. */
static size_t loaded_reps(int64_t id)
{
    struct nf_store *s = tgt_open(0);
    struct nf_run *r;
    assert_int_equal(nf_store_load_run(s, id, &r), 0);
    size_t n = r->metrics[0].n;
    for (size_t i = 0; i < r->nmetrics; i++) {
        assert_int_equal(r->metrics[i].n, n);
        for (size_t k = 0; k < n; k++)
            assert_true(r->metrics[i].values[k] == value((int)k, i));
    }
    nf_run_free(r);
    nf_store_close(s);
    return n;
}

/* Make tgt.dir and what is in it read-only (on = 1) or writable again (on
 * = 0): as root, who may write anything else, by a read-only bind mount
 * (in a mount namespace of this process's own); otherwise by taking away
 * write permission.  -1 when it cannot be done here. */
static int read_only(int on)
{
    static int unshared;
    if (geteuid() == 0) {
        if (!on)
            return umount(tgt.dir);
        if (!unshared &&
            (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0))
            return -1;
        unshared = 1;
        if (mount(tgt.dir, tgt.dir, NULL, MS_BIND, NULL) != 0)
            return -1;
        if (mount(NULL, tgt.dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0) {
            umount(tgt.dir);
            return -1;
        }
        return 0;
    }
    DIR *d = opendir(tgt.dir);
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char *path = nf_xasprintf("%s/%s", tgt.dir, e->d_name);
        struct stat sb;
        if (e->d_name[0] != '.' && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            chmod(path, on ? sb.st_mode & ~0222u : sb.st_mode | 0200u);
        free(path);
    }
    closedir(d);
    return chmod(tgt.dir, on ? 0500 : 0700);
}

/* The run as a handle that cannot write loads it (checked as loaded_reps
 * does); the journal stays, and the database's rows of the run too. */
static size_t loaded_reps_ro(int64_t id)
{
    long long rows = tgt_int("SELECT count(*) FROM samples WHERE run_id = %lld", (long long)id);
    char *j = journal_of(id);
    if (read_only(1) != 0)
        skip(); /* neither a read-only mount nor permissions: cannot test here */
    char err[NF_ERR_LEN];
    struct nf_store *s;
    int rc = nf_store_open(&s, tgt.db, NF_STORE_READONLY, err, sizeof(err));
    struct nf_run *r = NULL;
    if (rc == 0)
        rc = nf_store_load_run(s, id, &r);
    if (rc == 0)
        nf_store_close(s);
    assert_int_equal(read_only(0), 0);
    if (rc != 0)
        fail_msg("read-only: %s", err);
    assert_int_equal(r->state, NF_RUN_INCOMPLETE);
    size_t n = r->metrics[0].n;
    for (size_t i = 0; i < r->nmetrics; i++) {
        assert_int_equal(r->metrics[i].n, n);
        for (size_t k = 0; k < n; k++)
            assert_true(r->metrics[i].values[k] == value((int)k, i));
    }
    nf_run_free(r);
    assert_true(exists(j));
    assert_int_equal(tgt_int("SELECT count(*) FROM samples WHERE run_id = %lld", (long long)id),
                     rows);
    free(j);
    return n;
}

/* SIGKILL after 300 repetitions: all 300 are there after the next open,
 * and the journal is gone; the fold wrote the run's summaries. */
static void test_killed_writer(void **state)
{
    (void)state;
    int64_t id = writer(300, -1);
    char *j = journal_of(id);
    assert_true(exists(j));
    assert_int_equal(loaded_reps(id), 300);
    assert_false(exists(j));
    /* The fold wrote the run's summaries (history's): of all 300. */
    assert_int_equal(tgt_int("SELECT min(n) FROM summaries WHERE run_id = %lld", (long long)id),
                     300);
    free(j);
}

/* The killed writer's pid has since gone to another noisefloor process:
 * the journal is taken in all the same, instead of waiting for that
 * process (the lock the writer held on it went with the writer). */
static void test_recycled_pid(void **state)
{
    (void)state;
    int64_t id = writer(300, -1);
    pid_t twin = tgt_twin();
    tgt_exec("UPDATE runs SET pid = %d WHERE id = %lld", (int)twin, (long long)id);
    char *j = journal_of(id);
    /* The header's writer pid and start (sqlite_journal.c): the twin's pid,
     * and the dead writer's start, set a tick before the twin's (two
     * processes started within one tick share a start time). */
    int fd = open(j, O_WRONLY);
    int64_t pid = twin, born = tgt_start_ticks(twin) - 1;
    assert_int_equal(pwrite(fd, &pid, sizeof(pid), 24), (ssize_t)sizeof(pid));
    assert_int_equal(pwrite(fd, &born, sizeof(born), 40), (ssize_t)sizeof(born));
    close(fd);
    assert_int_equal(loaded_reps(id), 300);
    assert_false(exists(j));
    tgt_twin_end(twin);
    free(j);
}

/* The killed writer recorded another host name (a container's that
 * changes at every start, another machine's on shared storage): its
 * journal's lock, gone with it, says it is dead all the same. */
static void test_killed_writer_other_host(void **state)
{
    (void)state;
    int64_t id = writer(300, -1);
    tgt_exec("UPDATE runs SET host = 'another-host' WHERE id = %lld", (long long)id);
    char *j = journal_of(id);
    assert_int_equal(loaded_reps_ro(id), 300); /* read from the journal, left */
    assert_int_equal(loaded_reps(id), 300);
    assert_false(exists(j));
    free(j);
}

/* A live writer in another process that recorded another host name: its
 * journal is left, and its run loads as running, being written. */
static void test_live_writer_other_host(void **state)
{
    (void)state;
    int go[2], ready[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(go[1]);
        close(ready[0]);
        struct nf_store *s = tgt_open(NF_STORE_CREATE);
        struct nf_run *r = command_run("live");
        if (nf_store_begin_run(s, r) != 0)
            _exit(2);
        for (int k = 0; k < 5; k++) {
            for (size_t i = 0; i < r->nmetrics; i++)
                nf_metric_push(&r->metrics[i], value(k, i), 100.0);
            if (nf_store_add_rep(s, r, (size_t)k) != 0)
                _exit(2);
        }
        char c;
        if (write(ready[1], &r->id, sizeof(r->id)) != (ssize_t)sizeof(r->id) ||
            read(go[0], &c, 1) != 1)
            _exit(2);
        r->state = NF_RUN_COMPLETE;
        int rc = nf_store_finish_run(s, r);
        nf_store_close(s);
        _exit(rc == 0 ? 0 : 3);
    }
    close(go[0]);
    close(ready[1]);
    int64_t id = 0;
    assert_int_equal(read(ready[0], &id, sizeof(id)), (ssize_t)sizeof(id));
    tgt_exec("UPDATE runs SET host = 'another-host' WHERE id = %lld", (long long)id);
    char *j = journal_of(id);
    struct nf_store *s = tgt_open(0);
    struct nf_run *r;
    assert_int_equal(nf_store_load_run(s, id, &r), 0);
    assert_int_equal(r->state, NF_RUN_RUNNING);
    assert_true(r->writing);
    nf_run_free(r);
    nf_store_close(s);
    assert_true(exists(j));
    assert_int_equal(write(go[1], "g", 1), 1);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_false(exists(j));
    assert_int_equal(loaded_reps(id), 5);
    close(go[1]);
    close(ready[0]);
    free(j);
}

/* Read-only, a killed writer's 300 repetitions are read from the journal
 * and the database together: here the database has the first 150 (as
 * when the writer died 150 repetitions after a flush), the journal all.
 * A writable open then folds them into the database. */
static void test_readonly_killed_writer(void **state)
{
    (void)state;
    int64_t id = writer(300, -1);
    char *j = journal_of(id), *aside = nf_xasprintf("%s/aside", tgt.dir);
    char *cmd = nf_xasprintf("cp %s %s", j, aside);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(loaded_reps(id), 300); /* folded: the database has all */
    tgt_exec("DELETE FROM samples WHERE rep >= 150");
    /* The fold cleared the row's writer (known gone): the writer's pid
     * back, as the journal's header (at 24) names it. */
    int fd = open(aside, O_RDONLY);
    int64_t pid = 0;
    assert_int_equal(pread(fd, &pid, sizeof(pid), 24), (ssize_t)sizeof(pid));
    close(fd);
    tgt_exec("UPDATE runs SET pid = %lld WHERE id = %lld", (long long)pid, (long long)id);
    assert_int_equal(rename(aside, j), 0);
    assert_int_equal(loaded_reps_ro(id), 300);
    assert_int_equal(loaded_reps(id), 300);
    assert_false(exists(j));
    free(cmd);
    free(aside);
    free(j);
}

/* Read-only after the journal started again under a new generation: the
 * database's rows and the new generation's, none of the old one's. */
static void test_readonly_generation_wraps(void **state)
{
    (void)state;
    int64_t id = writer(12000, -1);
    assert_int_equal(loaded_reps_ro(id), 12000);
}

/* Read-only, a record spoilt in the file ends the reading there, as it
 * ends the fold. */
static void test_readonly_broken_record(void **state)
{
    (void)state;
    int64_t id = writer(10, -1);
    tgt_exec("DELETE FROM samples");
    char *j = journal_of(id);
    int fd = open(j, O_RDWR);
    assert_true(fd >= 0);
    off_t at = 64 + 4 * 96 + 32 + 3; /* a byte of record 4's values */
    unsigned char b;
    assert_int_equal(pread(fd, &b, 1, at), 1);
    b ^= 0x40;
    assert_int_equal(pwrite(fd, &b, 1, at), 1);
    close(fd);
    assert_int_equal(loaded_reps_ro(id), 4);
    assert_int_equal(loaded_reps(id), 4);
    free(j);
}

/* 12,000 repetitions fill the 1 MiB journal: its rows go to the database
 * and it starts again at the top under the next generation; what was
 * written after that is recovered, and nothing of the old generation is
 * taken for new. */
static void test_generation_wraps(void **state)
{
    (void)state;
    int64_t id = writer(12000, -1);
    assert_int_equal(loaded_reps(id), 12000);
}

/* A record spoilt in the file ends the reading there: of 10 journaled
 * repetitions, those before it are recovered (and whatever a flush had
 * already put in the database). */
static void test_broken_record(void **state)
{
    (void)state;
    int64_t id = writer(10, -1);
    long long flushed = tgt_int("SELECT count(*) FROM samples");
    char *j = journal_of(id);
    int fd = open(j, O_RDWR);
    assert_true(fd >= 0);
    /* Records from byte 64, 32 bytes of fields and 64 of values each; a
     * byte of record 4's values, flipped. */
    off_t at = 64 + 4 * 96 + 32 + 3;
    unsigned char b;
    assert_int_equal(pread(fd, &b, 1, at), 1);
    b ^= 0x40;
    assert_int_equal(pwrite(fd, &b, 1, at), 1);
    close(fd);
    size_t n = loaded_reps(id);
    assert_int_equal(n, flushed > 4 ? (size_t)flushed : 4);
    free(j);
}

/* A journal that is not ours to trust is neither read nor removed: owned
 * by another user, or a symlink. */
static void test_foreign_journal(void **state)
{
    (void)state;
    int64_t id = writer(10, -1);
    long long flushed = tgt_int("SELECT count(*) FROM samples");
    char *j = journal_of(id);
    char *aside = nf_xasprintf("%s/aside", tgt.dir);
    assert_int_equal(rename(j, aside), 0);
    assert_int_equal(symlink(aside, j), 0);
    assert_int_equal(loaded_reps(id), (size_t)flushed);
    assert_true(exists(j));
    assert_int_equal(unlink(j), 0);
    assert_int_equal(rename(aside, j), 0);
    if (geteuid() == 0) {
        assert_int_equal(chown(j, 65534, 65534), 0);
        assert_int_equal(loaded_reps(id), (size_t)flushed);
        assert_true(exists(j));
        assert_int_equal(chown(j, 0, 0), 0);
    }
    assert_int_equal(loaded_reps(id), 10); /* ours again: recovered */
    free(aside);
    free(j);
}

/* A live writer's journal is its own: another handle (in the writer's
 * own process here) leaves it, and reads what was flushed; the writer
 * reads its whole run, and its end flushes and removes the journal. */
static void test_live_writer(void **state)
{
    (void)state;
    struct nf_store *s = tgt_open(NF_STORE_CREATE);
    struct nf_run *r = command_run("live");
    assert_int_equal(nf_store_begin_run(s, r), 0);
    for (int k = 0; k < 5; k++) {
        for (size_t i = 0; i < r->nmetrics; i++)
            nf_metric_push(&r->metrics[i], value(k, i), 100.0);
        assert_int_equal(nf_store_add_rep(s, r, (size_t)k), 0);
    }
    long long flushed = tgt_int("SELECT count(*) FROM samples");
    char *j = journal_of(r->id);
    assert_int_equal(loaded_reps(r->id), (size_t)flushed);
    assert_true(exists(j));
    struct nf_run *back;
    assert_int_equal(nf_store_load_run(s, r->id, &back), 0);
    assert_int_equal(back->metrics[0].n, 5);
    nf_run_free(back);
    r->state = NF_RUN_COMPLETE;
    assert_int_equal(nf_store_finish_run(s, r), 0);
    assert_false(exists(j));
    assert_int_equal(loaded_reps(r->id), 5);
    nf_store_close(s);
    nf_run_free(r);
    free(j);
}

/* The journal of a run that ended (left behind by a death between the
 * end's flush and the removal) adds nothing and is removed; so is one of
 * a run that is no longer there. */
static void test_ended_run_journal(void **state)
{
    (void)state;
    int64_t id = writer(8, 3);
    char *j = journal_of(id), *kept = nf_xasprintf("%s/kept", tgt.dir);
    assert_false(exists(j));
    assert_int_equal(rename(kept, j), 0);
    assert_int_equal(loaded_reps(id), 8);
    assert_false(exists(j));
    int64_t other = writer(4, -1);
    char *oj = journal_of(other);
    char *sql = nf_xasprintf("DELETE FROM runs WHERE id = %lld", (long long)other);
    tgt_exec(sql);
    struct nf_store *s = tgt_open(0);
    nf_store_close(s);
    assert_false(exists(oj));
    free(sql);
    free(oj);
    free(kept);
    free(j);
}

/* A journal left under its temporary name (a death between making it and
 * renaming it) is removed once it is a minute old; a fresh one may be a
 * live writer's and stays, as does one that is not a regular file. */
static void test_stale_temporary(void **state)
{
    (void)state;
    nf_store_close(tgt_open(NF_STORE_CREATE));
    char *old = nf_xasprintf("%s-nfj.7.tmp.AAAAAA", tgt.db);
    char *fresh = nf_xasprintf("%s-nfj.7.tmp.BBBBBB", tgt.db);
    char *dir = nf_xasprintf("%s-nfj.7.tmp.CCCCCC", tgt.db);
    for (int i = 0; i < 2; i++) {
        int fd = open(i ? fresh : old, O_CREAT | O_WRONLY | O_EXCL, 0600);
        assert_true(fd >= 0);
        close(fd);
    }
    assert_int_equal(mkdir(dir, 0700), 0);
    struct timeval aged[2] = {{.tv_sec = time(NULL) - 120}, {.tv_sec = time(NULL) - 120}};
    assert_int_equal(utimes(old, aged), 0);
    assert_int_equal(utimes(dir, aged), 0);
    nf_store_close(tgt_open(0));
    assert_false(exists(old));
    assert_true(exists(fresh));
    assert_true(exists(dir));
    assert_int_equal(rmdir(dir), 0);
    free(old);
    free(fresh);
    free(dir);
}

#define SQ(f) cmocka_unit_test_setup_teardown(f, tgt_setup, tgt_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        SQ(test_killed_writer),
        SQ(test_generation_wraps),
        SQ(test_broken_record),
        SQ(test_foreign_journal),
        SQ(test_live_writer),
        SQ(test_ended_run_journal),
        SQ(test_stale_temporary),
        SQ(test_recycled_pid),
        SQ(test_killed_writer_other_host),
        SQ(test_live_writer_other_host),
        SQ(test_readonly_killed_writer),
        SQ(test_readonly_generation_wraps),
        SQ(test_readonly_broken_record),
    };
    return cmocka_run_group_tests_name("store journal/sqlite", tests, tgt_group_sqlite, NULL);
}
