/* What run is told to measure with (measure/runspec.c): --pin's CPU
 * list, run's words, and -e's counters (measure/counters.c), counting
 * this process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "measure/counters.h"
#include "measure/runspec.h"
#include "workload/workload.h"

#include "burn.h"

/* A fake sysfs with CPUs 0-3 and 6 online. */
static char *fake_root(void)
{
    char *root = strdup("/tmp/nf-unit-root.XXXXXX");
    assert_non_null(mkdtemp(root));
    char path[512];
    const char *dirs[] = {"/sys", "/sys/devices", "/sys/devices/system", "/sys/devices/system/cpu"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
        mkdir(path, 0755);
    }
    snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root);
    FILE *f = fopen(path, "w");
    fputs("0-3,6\n", f);
    fclose(f);
    return root;
}

static void test_parse_cpus(void **state)
{
    (void)state;
    char *root = fake_root();
    cpu_set_t set;
    char err[256];
    assert_int_equal(nf_parse_cpus("0", root, &set, err, sizeof(err)), 0);
    assert_int_equal(CPU_COUNT(&set), 1);
    assert_int_equal(nf_parse_cpus("0,2", root, &set, err, sizeof(err)), 0);
    assert_true(CPU_ISSET(2, &set) && !CPU_ISSET(1, &set));
    assert_int_equal(nf_parse_cpus("1-3,6", root, &set, err, sizeof(err)), 0);
    assert_int_equal(CPU_COUNT(&set), 4);
    assert_int_equal(nf_parse_cpus("4", root, &set, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "CPU 4 is not online"));
    assert_int_equal(nf_parse_cpus("3-1", root, &set, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not a CPU list"));
    assert_int_equal(nf_parse_cpus("a", root, &set, err, sizeof(err)), -1);
    assert_int_equal(nf_parse_cpus("", root, &set, err, sizeof(err)), -1);
    /* Single commas between numbers and ranges, the numbers as the kernel
     * writes them: nothing is folded away. */
    const char *bad[] = {",",  ",0", "0,", "0,,1", " 0",    "0 ",   "+1",  "-1",  "00",
                         "01", "0-", "-0", "0--1", "0-1-2", "1-+2", "0;1", "0x1", "1.0"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        if (nf_parse_cpus(bad[i], root, &set, err, sizeof(err)) != -1)
            fail_msg("'%s' was taken as a CPU list", bad[i]);
        char want[64];
        snprintf(want, sizeof(want), "--pin: '%s' is not a CPU list", bad[i]);
        if (!strstr(err, want))
            fail_msg("'%s': %s", bad[i], err);
    }
    assert_int_equal(nf_parse_cpus("99999999999", root, &set, err, sizeof(err)), -1);
    assert_string_equal(err,
                        "--pin: CPU 99999999999 is past 1023, the largest CPU number accepted");
    assert_int_equal(nf_parse_cpus("7-1000000", root, &set, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "CPU 7 is not online"));
    /* One set, one form: the kernel's list, ascending, runs as ranges. */
    const char *same[][2] = {{"0", "0"},         {"0-0", "0"},      {"0,0", "0"},
                             {"2,0,1", "0-2"},   {"0,1", "0-1"},    {"6,3,1-2", "1-3,6"},
                             {"0-3,1-2", "0-3"}, {"0,2,6", "0,2,6"}};
    for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
        assert_int_equal(nf_parse_cpus(same[i][0], root, &set, err, sizeof(err)), 0);
        char *list = nf_cpus_list(&set);
        assert_string_equal(list, same[i][1]);
        free(list);
    }
    CPU_ZERO(&set);
    char *none = nf_cpus_list(&set);
    assert_string_equal(none, "");
    free(none);
    for (int c = 0; c < CPU_SETSIZE; c += 2)
        CPU_SET(c, &set);
    char *every_other = nf_cpus_list(&set);
    assert_int_equal(strncmp(every_other, "0,2,4,", 6), 0);
    char last[32];
    snprintf(last, sizeof(last), ",%d,%d", CPU_SETSIZE - 4, CPU_SETSIZE - 2);
    assert_int_equal(strcmp(every_other + strlen(every_other) - strlen(last), last), 0);
    free(every_other);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
    free(root);
}

static void test_runspec(void **state)
{
    (void)state;
    struct nf_runspec s;
    char err[256];
    int help;
    char *a1[] = {"run", "-r",         "3",    "--warmup", "0", "-L", "x",
                  "-e",  "task-clock", "pipe", "-l",       "7", "-T", NULL};
    assert_int_equal(nf_runspec_parse(&s, 13, a1, &help, err, sizeof(err)), 0);
    assert_int_equal(help, 0);
    assert_int_equal(s.repeat, 3);
    assert_int_equal(s.warmup, 0);
    assert_string_equal(s.label, "x");
    assert_ptr_equal(s.wl, &nf_workload_pipe);
    assert_int_equal(s.wl_argc, 3);
    assert_string_equal(s.wl_argv[0], "-l");
    assert_int_equal(s.counters.n, 1);
    nf_runspec_free(&s);

    char *a2[] = {"run", "--timeout", "2.5", "--", "/bin/echo", "-r", "hi", NULL};
    assert_int_equal(nf_runspec_parse(&s, 7, a2, &help, err, sizeof(err)), 0);
    assert_null(s.wl);
    assert_int_equal(s.ncmd, 3);
    assert_string_equal(s.cmd[1], "-r");
    assert_true(s.timeout == 2.5);
    assert_int_equal(s.counters.n, 0); /* none unless asked */
    nf_runspec_free(&s);

    char *a3[] = {"run", "--sysctl", "kernel.x=1", "--sysctl", "novalue", "pipe", NULL};
    assert_int_equal(nf_runspec_parse(&s, 6, a3, &help, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "--sysctl wants KEY=VALUE"));
    nf_runspec_free(&s);

    char *a4[] = {"run", "--metric", "t=([0-9.]+)", "pipe", NULL};
    assert_int_equal(nf_runspec_parse(&s, 4, a4, &help, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "built-in workload"));
    nf_runspec_free(&s);

    char *a5[] = {"run", "pipe", "--help", NULL};
    assert_int_equal(nf_runspec_parse(&s, 3, a5, &help, err, sizeof(err)), 0);
    assert_int_equal(help, 2);
    nf_runspec_free(&s);
}

static void test_counters(void **state)
{
    (void)state;
    struct nf_counters cs;
    char err[512];
    assert_int_equal(
        nf_counters_parse(&cs, "task-clock,context-switches,task-clock", err, sizeof(err)), 0);
    assert_int_equal(cs.n, 2);
    assert_int_equal(nf_counters_parse(&cs, "task-clock,bogus", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "unknown event 'bogus'"));
    /* "default" is the four software events, once however often named. */
    assert_int_equal(nf_counters_parse(&cs, "cycles,default,task-clock,default", err, sizeof(err)),
                     0);
    assert_int_equal(cs.n, 5);
    assert_string_equal(cs.c[0].name, "cycles");
    assert_string_equal(cs.c[1].name, "task-clock");
    assert_string_equal(cs.c[4].name, "page-faults");
    assert_int_equal(nf_counters_parse(&cs, "", err, sizeof(err)), 0);
    assert_int_equal(cs.n, 0);
    /* an empty name between commas is a typo, not "nothing" */
    const char *bad[] = {",", ",task-clock", "task-clock,", "task-clock,,page-faults"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        assert_int_equal(nf_counters_parse(&cs, bad[i], err, sizeof(err)), -1);
        assert_non_null(strstr(err, "empty event name"));
    }
    /* a list longer than any fixed buffer is read whole */
    char longlist[3000];
    size_t len = 0;
    for (int i = 0; i < 200; i++)
        len += (size_t)snprintf(longlist + len, sizeof(longlist) - len, "task-clock,");
    snprintf(longlist + len, sizeof(longlist) - len, "page-faults");
    assert_int_equal(nf_counters_parse(&cs, longlist, err, sizeof(err)), 0);
    assert_int_equal(cs.n, 2);

    /* Count ourselves: task-clock must advance by the 5 ms of CPU time we
     * spin (measured by the thread's CPU clock: on any machine). */
    assert_int_equal(nf_counters_parse(&cs, "task-clock,page-faults", err, sizeof(err)), 0);
    assert_int_equal(nf_counters_open(&cs, 0, 0), 2);
    nf_counters_enable(&cs);
    burn_cpu_ms(5);
    volatile char *p =
        mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    for (size_t off = 0; off < (1 << 20); off += 4096)
        p[off] = 1; /* a fresh page each: a page fault each */
    munmap((void *)p, 1 << 20);
    nf_counters_disable(&cs);
    nf_counters_read_close(&cs);
    assert_int_equal(cs.c[0].state, NF_CTR_OK);
    assert_true(cs.c[0].value > 4.0); /* msec */
    assert_true(cs.c[0].running_pct == 100.0);
    assert_true(cs.c[1].value >= 256);
    assert_int_equal(cs.c[0].fd, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_cpus),
        cmocka_unit_test(test_runspec),
        cmocka_unit_test(test_counters),
    };
    return cmocka_run_group_tests_name("runspec", tests, NULL, NULL);
}
