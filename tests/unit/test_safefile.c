/* core/safefile: new files under fresh names renamed into place, never
 * through a planted symlink; which files and directories are trusted. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/safefile.h"
#include "core/util.h"

static char dir[64];

static char *at(const char *name)
{
    return nf_xasprintf("%s/%s", dir, name);
}

static void put(const char *name, const char *text, mode_t mode)
{
    char *p = at(name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(p, mode);
    free(p);
}

static void assert_holds(const char *name, const char *want)
{
    char *p = at(name);
    char *got = nf_read_file(p);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
    free(p);
}

/* The number of entries in dir whose name starts with prefix. */
static int count(const char *prefix)
{
    char *cmd = nf_xasprintf("ls -A '%s' | grep -c '^%s'", dir, prefix);
    FILE *p = popen(cmd, "r");
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    free(cmd);
    return n;
}

static int setup(void **st)
{
    (void)st;
    strcpy(dir, "/tmp/nf-safefile-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    char *cmd = nf_xasprintf("chmod -R u+rwx '%s'; rm -rf '%s'", dir, dir);
    int rc = system(cmd);
    free(cmd);
    return rc;
}

static void test_replace(void **st)
{
    (void)st;
    char err[NF_ERR_LEN];
    char *page = at("page"), *victim = at("victim");
    put("victim", "secret\n", 0644);
    assert_int_equal(symlink(victim, page), 0);
    struct nf_newfile nf;
    assert_int_equal(nf_newfile_open(&nf, page, 0666, err, sizeof(err)), 0);
    assert_non_null(strstr(nf.tmp, "/page.tmp."));
    fputs("new\n", nf.f);
    assert_int_equal(nf_newfile_commit(&nf, NF_NEWFILE_REPLACE, err, sizeof(err)), 0);
    /* The symlink was replaced by the file, not followed. */
    struct stat sb;
    assert_int_equal(lstat(page, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    assert_holds("page", "new");
    assert_holds("victim", "secret");
    assert_int_equal(count("page.tmp"), 0);
    free(page);
    free(victim);
}

static void test_noreplace(void **st)
{
    (void)st;
    char err[NF_ERR_LEN];
    char *state = at("state"), *gone = at("gone");
    put("state", "old\n", 0600);
    struct nf_newfile nf;
    assert_int_equal(nf_newfile_open(&nf, state, 0600, err, sizeof(err)), 0);
    fputs("new\n", nf.f);
    assert_int_equal(nf_newfile_commit(&nf, NF_NEWFILE_NOREPLACE, err, sizeof(err)), -1);
    assert_int_equal(errno, EEXIST);
    assert_holds("state", "old");
    assert_int_equal(count("state.tmp"), 0);
    /* A dangling symlink counts as existing: nothing is created at its
     * target. */
    unlink(state);
    assert_int_equal(symlink(gone, state), 0);
    assert_int_equal(nf_newfile_open(&nf, state, 0600, err, sizeof(err)), 0);
    assert_int_equal(nf_newfile_commit(&nf, NF_NEWFILE_NOREPLACE, err, sizeof(err)), -1);
    assert_int_equal(errno, EEXIST);
    assert_int_equal(access(gone, F_OK), -1);
    unlink(state);
    /* Free: created, with the mode asked for. */
    assert_int_equal(nf_newfile_open(&nf, state, 0600, err, sizeof(err)), 0);
    fputs("mine\n", nf.f);
    assert_int_equal(nf_newfile_commit(&nf, NF_NEWFILE_NOREPLACE, err, sizeof(err)), 0);
    assert_holds("state", "mine");
    struct stat sb;
    assert_int_equal(stat(state, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(count("state.tmp"), 0);
    free(state);
    free(gone);
}

static void test_abort_and_failures(void **st)
{
    (void)st;
    char err[NF_ERR_LEN];
    char *p = at("x");
    struct nf_newfile nf;
    assert_int_equal(nf_newfile_open(&nf, p, 0644, err, sizeof(err)), 0);
    fputs("half", nf.f);
    nf_newfile_abort(&nf);
    assert_int_equal(count("x"), 0);
    /* No such directory: one line naming the file. */
    char *missing = at("no/such/x");
    assert_int_equal(nf_newfile_open(&nf, missing, 0644, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot write"));
    assert_non_null(strstr(err, "no/such/x"));
    assert_null(strchr(err, '\n'));
    /* A directory at the path: the rename fails, the temporary goes. */
    mkdir(p, 0755);
    assert_int_equal(nf_newfile_open(&nf, p, 0644, err, sizeof(err)), 0);
    assert_int_equal(nf_newfile_commit(&nf, NF_NEWFILE_REPLACE, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot replace"));
    assert_int_equal(count("x.tmp"), 0);
    rmdir(p);
    free(p);
    free(missing);
}

static void expect_refused(const char *name, const char *why)
{
    char err[NF_ERR_LEN] = "";
    char *p = at(name);
    int fd = nf_open_trusted(p, err, sizeof(err));
    if (fd >= 0)
        close(fd);
    assert_int_equal(fd, -1);
    if (!strstr(err, why))
        fail_msg("%s: '%s' lacks '%s'", name, err, why);
    free(p);
}

static void test_trusted(void **st)
{
    (void)st;
    char err[NF_ERR_LEN];
    put("ok", "{}\n", 0600);
    char *p = at("ok");
    int fd = nf_open_trusted(p, err, sizeof(err));
    assert_true(fd >= 0);
    close(fd);
    free(p);
    /* Absent: ENOENT, so "nothing to do" can be told from "refused". */
    p = at("absent");
    assert_int_equal(nf_open_trusted(p, err, sizeof(err)), -1);
    assert_int_equal(errno, ENOENT);
    free(p);
    put("open", "{}\n", 0666);
    expect_refused("open", "writable by everyone");
    put("group", "{}\n", 0620);
    expect_refused("group", "writable by its group");
    p = at("ok");
    char *l = at("link");
    assert_int_equal(symlink(p, l), 0);
    expect_refused("link", "symbolic link");
    free(p);
    free(l);
    /* A FIFO: refused without blocking on the open. */
    p = at("fifo");
    assert_int_equal(mkfifo(p, 0600), 0);
    expect_refused("fifo", "not a regular file");
    free(p);
    p = at("sub");
    mkdir(p, 0755);
    free(p);
    expect_refused("sub", "not a regular file");
    expect_refused("..", "does not name a file");
    /* The directories: world-writable only when sticky. */
    char *d = at("pub");
    mkdir(d, 0777);
    chmod(d, 0777);
    put("pub/f", "{}\n", 0600);
    expect_refused("pub/f", "writable by everyone and not sticky");
    assert_int_equal(nf_dir_trusted(d, err, sizeof(err)), -1);
    chmod(d, 01777);
    p = at("pub/f");
    fd = nf_open_trusted(p, err, sizeof(err));
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(nf_dir_trusted(d, err, sizeof(err)), 0);
    /* ... the rule holds for every directory above too. */
    char *deep = at("pub/deep");
    chmod(d, 0777);
    mkdir(deep, 0700);
    put("pub/deep/f", "{}\n", 0600);
    expect_refused("pub/deep/f", "/pub is writable by everyone");
    chmod(d, 0770);
    expect_refused("pub/deep/f", "/pub is writable by its group");
    chmod(d, 0755);
    free(p);
    p = at("pub/deep/f");
    fd = nf_open_trusted(p, err, sizeof(err));
    assert_true(fd >= 0);
    close(fd);
    free(p);
    if (geteuid() == 0) { /* owners: only root can give a file away */
        p = at("pub/deep/f");
        assert_int_equal(chown(p, 65534, 65534), 0);
        expect_refused("pub/deep/f", "belongs to uid 65534, not to uid 0");
        assert_int_equal(chown(p, 0, 0), 0);
        assert_int_equal(chown(deep, 65534, 65534), 0);
        expect_refused("pub/deep/f", "directory");
        expect_refused("pub/deep/f", "belongs to uid 65534");
        free(p);
    }
    free(deep);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_replace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_noreplace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abort_and_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trusted, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
