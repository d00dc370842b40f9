/* timer holds /dev/cpu_dma_latency at 0 while it measures, as cyclictest
 * does, and leaves it alone with --default-system.
 *
 * Observed from inside the repetition, without racing it: this program
 * defines clock_nanosleep, which the timer's loop calls (the static
 * library's reference binds to this definition), and at the first call,
 * in the middle of the repetition, it looks at its own open files and
 * reads the device: the kernel's CPU latency limit is the smallest of the
 * open requests, so while the timer holds 0 it reads 0 whatever any other
 * process asks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/run.h"
#include "core/util.h"
#include "workload/workload.h"

#define DMA "/dev/cpu_dma_latency"

static int watching, seen;
static int fds_during;       /* our files open on the device at the first sleep */
static int64_t value_during; /* what it read then; -1: could not be read */

/* Files of this process open on the device. */
static int dma_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char path[300], link[256];
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(path, link, sizeof(link) - 1);
        if (k > 0) {
            link[k] = 0;
            n += strcmp(link, DMA) == 0;
        }
    }
    closedir(d);
    return n;
}

static int64_t dma_value(void)
{
    int fd = open(DMA, O_RDONLY | O_CLOEXEC);
    int32_t v;
    int64_t r = -1;
    if (fd >= 0 && read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
        r = v;
    if (fd >= 0)
        close(fd);
    return r;
}

int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
    if (watching && !seen) {
        seen = 1;
        fds_during = dma_fds();
        value_during = dma_value();
    }
    return syscall(SYS_clock_nanosleep, clk, flags, req, rem) == 0 ? 0 : errno;
}

static const struct nf_workload *timer(void)
{
    const struct nf_workload *w = nf_workload_find("timer");
    assert_non_null(w);
    return w;
}

/* One repetition of `timer -i 100 -l 3 [extra]`, watched. */
static void run_watched(const char *extra)
{
    char *argv[] = {"timer", "-i", "100", "-l", "3", (char *)extra, NULL};
    char err[NF_ERR_LEN] = "";
    void *cfg = NULL;
    assert_int_equal(timer()->parse(extra ? 6 : 5, argv, &cfg, err, sizeof(err)), 0);
    double v[NF_MAX_METRICS];
    seen = 0;
    fds_during = -1;
    watching = 1;
    int rc = timer()->run_once(cfg, v, err, sizeof(err));
    watching = 0;
    if (rc)
        fail_msg("run_once: %s", err);
    assert_true(seen);
    assert_true(v[5] == 3); /* it measured, held or not */
    timer()->free_cfg(cfg);
}

static int writable(void)
{
    int fd = open(DMA, O_WRONLY | O_CLOEXEC);
    if (fd >= 0)
        close(fd);
    return fd >= 0;
}

static void test_held_while_measuring(void **state)
{
    (void)state;
    run_watched(NULL);
    if (writable()) {
        assert_int_equal(fds_during, 1);
        if (value_during < 0)
            skip(); /* held, but the device cannot be read back here */
        assert_int_equal(value_during, 0);
    } else {
        assert_int_equal(fds_during, 0); /* best effort: measured without */
    }
    assert_int_equal(dma_fds(), 0); /* released with the measurement */
}

static void test_default_system_leaves_it(void **state)
{
    (void)state;
    run_watched("--default-system");
    assert_int_equal(fds_during, 0);
    assert_int_equal(dma_fds(), 0);
}

/* What the run's environment says, from the workload's env hook. */
static void test_env(void **state)
{
    (void)state;
    const char *cases[][2] = {
        {NULL, writable() ? "held at 0 us during each repetition" : "not held: " DMA ": "},
        {"--default-system", "not held: --default-system"},
    };
    for (size_t i = 0; i < 2; i++) {
        char *argv[] = {"timer", (char *)cases[i][0], NULL};
        char err[NF_ERR_LEN] = "";
        void *cfg = NULL;
        assert_int_equal(timer()->parse(cases[i][0] ? 2 : 1, argv, &cfg, err, sizeof(err)), 0);
        json_t *env = json_object();
        assert_non_null(timer()->env);
        timer()->env(cfg, env);
        const char *got = json_string_value(json_object_get(env, NF_ENV_DMA_LATENCY));
        assert_non_null(got);
        if (strncmp(got, cases[i][1], strlen(cases[i][1])) != 0)
            fail_msg("env: '%s', want '%s...'", got, cases[i][1]);
        json_decref(env);
        timer()->free_cfg(cfg);
    }
    assert_int_equal(dma_fds(), 0); /* the check holds nothing */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_held_while_measuring),
        cmocka_unit_test(test_default_system_leaves_it),
        cmocka_unit_test(test_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
