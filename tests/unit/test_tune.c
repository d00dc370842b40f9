/* --sysctl tuning against a fake /proc/sys tree: the state file is written
 * before anything changes, values come back after, bad keys change nothing,
 * and doctor --restore undoes what a killed run left. */
#include <errno.h>
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

#include "core/util.h"
#include "measure/tune.h"

static char root[256], state[300], foo[300], bar[300];

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void assert_file(const char *path, const char *want)
{
    char *got = nf_read_file(path);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static int setup(void **st)
{
    (void)st;
    strcpy(root, "/tmp/nf-tune-XXXXXX");
    if (!mkdtemp(root))
        return -1;
    char d[300];
    snprintf(d, sizeof(d), "%s/proc", root);
    mkdir(d, 0755);
    snprintf(d, sizeof(d), "%s/proc/sys", root);
    mkdir(d, 0755);
    snprintf(d, sizeof(d), "%s/proc/sys/kernel", root);
    mkdir(d, 0755);
    snprintf(foo, sizeof(foo), "%s/proc/sys/kernel/sched_foo", root);
    snprintf(bar, sizeof(bar), "%s/proc/sys/kernel/printk", root);
    snprintf(state, sizeof(state), "%s/state", root);
    put(foo, "1\n");
    put(bar, "4\t4\t1\t7\n");
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    unlink(foo);
    unlink(bar);
    unlink(state);
    char d[300];
    const char *sub[] = {"/proc/sys/kernel", "/proc/sys", "/proc", ""};
    for (int i = 0; i < 4; i++) {
        snprintf(d, sizeof(d), "%s%s", root, sub[i]);
        rmdir(d);
    }
    return 0;
}

static void test_sysctl_path(void **st)
{
    (void)st;
    char p[256];
    assert_int_equal(nf_sysctl_path("kernel.sched_foo", NULL, p, sizeof(p)), 0);
    assert_string_equal(p, "/proc/sys/kernel/sched_foo");
    assert_int_equal(nf_sysctl_path("kernel.sched_foo", "/r", p, sizeof(p)), 0);
    assert_string_equal(p, "/r/proc/sys/kernel/sched_foo");
    /* The slash form keeps dots that belong to a name (a VLAN interface). */
    assert_int_equal(nf_sysctl_path("net/ipv4/conf/eth0.1/rp_filter", NULL, p, sizeof(p)), 0);
    assert_string_equal(p, "/proc/sys/net/ipv4/conf/eth0.1/rp_filter");
    const char *bad[] = {"",          "../etc/passwd", "kernel..x", "/etc/passwd",
                         "kernel.x.", "kernel x",      ".kernel",   "a//b"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(nf_sysctl_path(bad[i], NULL, p, sizeof(p)), -1);
}

static void test_apply_restore(void **st)
{
    (void)st;
    struct nf_sysctl s[2] = {{"kernel.sched_foo", "0"}, {"kernel/printk", "3 4 1 7"}};
    struct nf_tune t;
    char err[512];
    assert_int_equal(nf_tune_apply(&t, s, 2, root, state, err, sizeof(err)), 0);
    assert_file(foo, "0");
    assert_file(bar, "3 4 1 7");
    /* The state file holds the originals (tabs and all) and our pid. */
    char *text = nf_read_file(state);
    assert_non_null(text);
    assert_non_null(strstr(text, "\"original\": \"4\\t4\\t1\\t7\""));
    assert_non_null(strstr(text, "\"key\": \"kernel.sched_foo\""));
    char pid[32];
    snprintf(pid, sizeof(pid), "\"pid\": %ld", (long)getpid());
    assert_non_null(strstr(text, pid));
    /* ... and the root its paths lie under, which is all doctor --restore
     * will write to. */
    char want_root[300];
    snprintf(want_root, sizeof(want_root), "\"root\": \"%s\"", root);
    assert_non_null(strstr(text, want_root));
    free(text);
    /* A second run while the first holds settings is refused: by the
     * lock the first holds on each setting, before its state file is
     * looked at (under another state file too). */
    struct nf_tune t2;
    assert_int_equal(nf_tune_apply(&t2, s, 1, root, state, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "kernel.sched_foo is being tuned by another noisefloor"));
    char other[320];
    snprintf(other, sizeof(other), "%s.other", state);
    assert_int_equal(nf_tune_apply(&t2, s, 1, root, other, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "is being tuned by another noisefloor"));
    assert_int_equal(access(other, F_OK), -1);
    assert_file(foo, "0");
    assert_int_equal(nf_tune_restore(&t, err, sizeof(err)), 0);
    nf_tune_free(&t);
    assert_file(foo, "1");
    assert_file(bar, "4\t4\t1\t7");
    assert_int_equal(access(state, F_OK), -1);
}

static void test_missing_key_changes_nothing(void **st)
{
    (void)st;
    struct nf_sysctl s[2] = {{"kernel.sched_foo", "0"}, {"kernel.sched_nope", "1"}};
    struct nf_tune t;
    char err[512];
    assert_int_equal(nf_tune_apply(&t, s, 2, root, state, err, sizeof(err)), NF_EINPUT);
    assert_non_null(strstr(err, "no sysctl 'kernel.sched_nope'"));
    assert_file(foo, "1");
    assert_int_equal(access(state, F_OK), -1);
    struct nf_sysctl dir[1] = {{"kernel", "1"}};
    assert_int_equal(nf_tune_apply(&t, dir, 1, root, state, err, sizeof(err)), NF_EINPUT);
    struct nf_sysctl twice[2] = {{"kernel.sched_foo", "0"}, {"kernel/sched_foo", "2"}};
    assert_int_equal(nf_tune_apply(&t, twice, 2, root, state, err, sizeof(err)), NF_EINPUT);
    assert_non_null(strstr(err, "twice"));
    assert_file(foo, "1");
    assert_int_equal(access(state, F_OK), -1);
}

static void test_restore_from_state(void **st)
{
    (void)st;
    char err[512];
    /* No state file: nothing to do. */
    assert_int_equal(nf_tune_restore_from_state(state, NULL, err, sizeof(err)), 0);
    /* A run killed after setting (here: the state of one never restored). */
    struct nf_sysctl s[1] = {{"kernel.sched_foo", "5"}};
    struct nf_tune t;
    assert_int_equal(nf_tune_apply(&t, s, 1, root, state, err, sizeof(err)), 0);
    nf_tune_free(&t); /* "killed": no restore */
    assert_file(foo, "5");
    assert_int_equal(nf_tune_restore_from_state(state, NULL, err, sizeof(err)), 1);
    assert_file(foo, "1");
    assert_int_equal(access(state, F_OK), -1);
    /* A file that is not ours is left alone. */
    put(state, "hello\n");
    assert_int_equal(nf_tune_restore_from_state(state, NULL, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not a noisefloor tuning state file"));
    assert_int_equal(access(state, F_OK), 0);
    unlink(state);
}

/* A state file naming a file outside <root>/proc/sys is refused whole:
 * nothing is written, not even its good entries, and it stays. */
static void test_load_refuses_foreign_paths(void **st)
{
    (void)st;
    char err[512], text[2048];
    snprintf(text, sizeof(text),
             "{\"version\": 1, \"pid\": 1, \"root\": \"%s\", \"entries\": ["
             "{\"key\": \"a\", \"path\": \"%s\", \"original\": \"9\"},"
             "{\"key\": \"b\", \"path\": \"%s\", \"original\": \"9\"}]}\n",
             root, foo, state);
    put(state, text);
    chmod(state, 0600);
    struct nf_tune t;
    assert_int_equal(nf_tune_load_state(&t, state, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "entry 2 (b)"));
    assert_non_null(strstr(err, "not under"));
    assert_int_equal(t.n, 0);
    assert_file(foo, "1");
    assert_int_equal(access(state, F_OK), 0);
    /* Without its bad entry it is restored. */
    snprintf(text, sizeof(text),
             "{\"version\": 1, \"pid\": 1, \"root\": \"%s\", \"entries\": ["
             "{\"key\": \"a\", \"path\": \"%s\", \"original\": \"9\"}]}\n",
             root, foo);
    put(state, text);
    assert_int_equal(nf_tune_restore_from_state(state, NULL, err, sizeof(err)), 1);
    assert_file(foo, "9");
    assert_int_equal(access(state, F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sysctl_path),
        cmocka_unit_test_setup_teardown(test_apply_restore, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_key_changes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restore_from_state, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load_refuses_foreign_paths, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
