/* A built-in workload's own tasks in its repetition's run delay and
 * migrations (workload/tasks.h, measure/sysstat.h): the runner stores the
 * sum of its main task's counts and those its workload read of its other
 * tasks (over a fake /proc, so the sum is known), and pipe reads its
 * second task, thread or process, before joining or reaping it (real,
 * under a CPU hog on the same CPU); messaging's threads (its processes
 * are reaped inside the timed interval: none is read),
 * wakeup and netsend read each of their tasks once, as many as they
 * start; timer has none but its main task.  Not asked, none reads any. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "faketree.h"
#include "measure/runner.h"
#include "measure/runspec.h"
#include "workload/tasks.h"
#include "workload/workload.h"

static int setup(void **state)
{
    (void)state;
    return fake_tree_make("wltasks");
}

static int teardown(void **state)
{
    (void)state;
    return fake_tree_remove();
}

/* "sched" as the kernel writes it, with migrations m. */
static void put_task(const char *dir, unsigned long long delay, unsigned long long m)
{
    char rel[256], text[256];
    snprintf(rel, sizeof(rel), "%s/schedstat", dir);
    snprintf(text, sizeof(text), "123456 %llu 17\n", delay);
    fake_tree_put(rel, text);
    snprintf(rel, sizeof(rel), "%s/sched", dir);
    snprintf(text, sizeof(text),
             "fake (1, #threads: 2)\n---------\nse.exec_start : 1.0\n"
             "se.nr_migrations                             :                    %llu\n",
             m);
    fake_tree_put(rel, text);
}

/* In the repetition's child: its own files (which the runner reads once
 * it is a zombie) say 7 ms and 2 migrations, those of its other task 4242
 * 5 ms and 3, which it reads as a workload does.  usecs/op says whether
 * it was asked to read them. */
static int fake_run(const void *cfg, double *values, char *err, size_t errlen)
{
    (void)cfg, (void)err, (void)errlen;
    char dir[64];
    snprintf(dir, sizeof(dir), "/proc/%d", (int)getpid());
    put_task(dir, 7000000, 2);
    snprintf(dir, sizeof(dir), "/proc/%d/task/4242", (int)getpid());
    put_task(dir, 5000000, 3);
    values[0] = nf_wl_tasks_on();
    values[1] = 1;
    nf_wl_tasks_add(getpid(), 4242);
    return 0;
}

/* One repetition of fake_run, sysstat on or off; the run. */
static struct nf_run *fake_rep(int sysstat)
{
    struct nf_workload fake = nf_workload_pipe;
    fake.name = "fake";
    fake.run_once = fake_run;
    char *on[] = {"run", "--root", fake_root, "pipe", "-l", "1", NULL};
    char *off[] = {"run", "--root", fake_root, "--no-sysstat", "pipe", "-l", "1", NULL};
    struct nf_runspec spec;
    char err[NF_ERR_LEN] = "";
    int help = 0;
    if (nf_runspec_parse(&spec, sysstat ? 6 : 7, sysstat ? on : off, &help, err, sizeof(err)))
        fail_msg("parse: %s", err);
    spec.wl = &fake;
    struct nf_run *run = nf_run_new("x", "fake");
    nf_runner_declare(&spec, run);
    if (nf_runner_rep(&spec, run, 1, err, sizeof(err)) != NF_REP_OK)
        fail_msg("repetition: %s", err);
    nf_runspec_free(&spec);
    return run;
}

static void test_runner_adds_tasks(void **state)
{
    (void)state;
    struct nf_run *run = fake_rep(1);
    assert_true(nf_run_find(run, "usecs/op")->values[0] == 1);
    struct nf_metric *d = nf_run_find(run, "sched.run-delay");
    struct nf_metric *m = nf_run_find(run, "sched.migrations");
    assert_non_null(d);
    assert_non_null(m);
    assert_int_equal(d->n, 1);
    assert_int_equal(m->n, 1);
    assert_true(d->values[0] == 12.0); /* 7 ms its own, 5 its other task's */
    assert_true(m->values[0] == 5.0);
    nf_run_free(run);
}

static void test_no_sysstat_reads_nothing(void **state)
{
    (void)state;
    struct nf_run *run = fake_rep(0);
    assert_true(nf_run_find(run, "usecs/op")->values[0] == 0);
    assert_null(nf_run_find(run, "sched.run-delay"));
    nf_run_free(run);
}

/* pipe -l 2000 (-T: threads) on the CPU we are on, beside a hog pinned
 * there too: its second task is read once, and it waited. */
static void pipe_peer(int threads)
{
    if (access("/proc/self/schedstat", R_OK) != 0)
        skip(); /* no schedstat in this kernel: nothing to read */
    cpu_set_t old, one;
    assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
    pid_t hog = fork();
    assert_true(hog >= 0);
    if (hog == 0)
        for (;;) {
        }
    char *argv[] = {"pipe", "-l", "2000", threads ? "-T" : NULL, NULL};
    void *cfg = NULL;
    char err[NF_ERR_LEN] = "";
    assert_int_equal(nf_workload_pipe.parse(threads ? 4 : 3, argv, &cfg, err, sizeof(err)), 0);
    static struct nf_wl_tasks acc;
    memset(&acc, 0, sizeof(acc));
    acc.want = 1;
    nf_wl_tasks = &acc;
    double values[NF_MAX_METRICS];
    int rc = nf_workload_pipe.run_once(cfg, values, err, sizeof(err));
    nf_wl_tasks = NULL;
    /* Not asked: nothing read. */
    struct nf_wl_tasks off = {0};
    nf_wl_tasks = &off;
    int rc_off = nf_workload_pipe.run_once(cfg, values, err, sizeof(err));
    nf_wl_tasks = NULL;
    kill(hog, SIGKILL);
    waitpid(hog, NULL, 0);
    sched_setaffinity(0, sizeof(old), &old);
    free(cfg);
    assert_int_equal(rc, 0);
    assert_int_equal(rc_off, 0);
    assert_int_equal(acc.n, 1);
    assert_int_equal(acc.nmigr, 1);
    assert_true(acc.run_delay_ns > 0); /* runnable beside the hog */
    assert_int_equal(off.n, 0);
    assert_int_equal(off.nmigr, 0);
}

static void test_pipe_process(void **state)
{
    (void)state;
    pipe_peer(0);
}

static void test_pipe_thread(void **state)
{
    (void)state;
    pipe_peer(1);
}

extern const struct nf_workload nf_workload_messaging;
extern const struct nf_workload nf_workload_wakeup;
extern const struct nf_workload nf_workload_netsend;
extern const struct nf_workload nf_workload_timer;

/* One repetition of wl with argv asked to read its tasks, one not: the
 * tasks the first read (schedstat, sched) in *n, *nmigr; the second must
 * read none.  Either must succeed and leave no child behind. */
static void counted(const struct nf_workload *wl, char **argv, int *n, int *nmigr)
{
    if (access("/proc/self/schedstat", R_OK) != 0 || access("/proc/self/sched", R_OK) != 0)
        skip(); /* no schedstat or sched in this kernel: nothing to read */
    int argc = 0;
    while (argv[argc])
        argc++;
    void *cfg = NULL;
    char err[NF_ERR_LEN] = "";
    if (wl->parse(argc, argv, &cfg, err, sizeof(err)))
        fail_msg("%s: parse: %s", wl->name, err);
    struct nf_wl_tasks acc = {.want = 1}, off = {0};
    double values[NF_MAX_METRICS];
    nf_wl_tasks = &acc;
    int rc = wl->run_once(cfg, values, err, sizeof(err));
    if (rc)
        print_error("%s: %s\n", wl->name, err);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
    nf_wl_tasks = &off;
    int rc_off = wl->run_once(cfg, values, err, sizeof(err));
    if (rc_off)
        print_error("%s, not asked: %s\n", wl->name, err);
    nf_wl_tasks = NULL;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    wl->free_cfg(cfg);
    assert_int_equal(rc, 0);
    assert_int_equal(rc_off, 0);
    assert_int_equal(off.n, 0);
    assert_int_equal(off.nmigr, 0);
    assert_true(off.run_delay_ns == 0 && off.migrations == 0);
    *n = acc.n;
    *nmigr = acc.nmigr;
}

/* messaging -g 2 -f 3: 12 tasks.  Its threads (-t) are each read once when
 * asked; its processes are reaped inside the timed interval, as hackbench
 * reaps them (doc/noisefloor-run.1), so none of them is read. */
static void messaging_tasks(char *mode, int want)
{
    char *argv[] = {"messaging", "-g", "2", "-f", "3", "-l", "20", mode, NULL};
    int n, nmigr;
    counted(&nf_workload_messaging, argv, &n, &nmigr);
    assert_int_equal(n, want);
    assert_int_equal(nmigr, want);
}

static void test_messaging_threads(void **state)
{
    (void)state;
    messaging_tasks("-t", 12);
}

static void test_messaging_processes(void **state)
{
    (void)state;
    messaging_tasks(NULL, 0);
}

static void test_messaging_processes_pipes(void **state)
{
    (void)state;
    messaging_tasks("-p", 0);
}

/* wakeup -m 2 -t 3: 2 message threads and 6 workers, each read once. */
static void test_wakeup(void **state)
{
    (void)state;
    char *argv[] = {"wakeup", "-m", "2", "-t", "3", "-r", "0.01", "-s", "10", "-c", "10", NULL};
    int n, nmigr;
    counted(&nf_workload_wakeup, argv, &n, &nmigr);
    assert_int_equal(n, 8);
    assert_int_equal(nmigr, 8);
}

/* netsend: one sink process per size, each read once before it is reaped. */
static void test_netsend(void **state)
{
    (void)state;
    char *udp[] = {"netsend", "-m", "64,128,256", "-d", "0.01", NULL};
    char *tcp[] = {"netsend", "-P", "tcp", "-m", "64,1024", "-d", "0.01", NULL};
    int n, nmigr;
    counted(&nf_workload_netsend, udp, &n, &nmigr);
    assert_int_equal(n, 3);
    assert_int_equal(nmigr, 3);
    counted(&nf_workload_netsend, tcp, &n, &nmigr);
    assert_int_equal(n, 2);
    assert_int_equal(nmigr, 2);
}

/* timer: one task, the repetition's own (which the runner reads): nothing
 * else to read. */
static void test_timer(void **state)
{
    (void)state;
    char *argv[] = {"timer", "-i", "100", "-l", "20", "--default-system", NULL};
    int n, nmigr;
    counted(&nf_workload_timer, argv, &n, &nmigr);
    assert_int_equal(n, 0);
    assert_int_equal(nmigr, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_runner_adds_tasks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_sysstat_reads_nothing, setup, teardown),
        cmocka_unit_test(test_pipe_process),
        cmocka_unit_test(test_pipe_thread),
        cmocka_unit_test(test_messaging_threads),
        cmocka_unit_test(test_messaging_processes),
        cmocka_unit_test(test_messaging_processes_pipes),
        cmocka_unit_test(test_wakeup),
        cmocka_unit_test(test_netsend),
        cmocka_unit_test(test_timer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
