/* The sampler on a real process tree: a forked child that spins in a known
 * function (sampled from its "go", mappings from /proc/PID/maps), and a
 * child that execs this test binary to spin (sampled from the exec on,
 * mappings from the kernel's mmap2 records).  Skipped where sampling is not
 * permitted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "profile/profiler.h"
#include "profile/resolve.h"
#include "profile/sampler.h"

#include "burn.h"

/* Milliseconds of CPU time the child spends in burn_cpu_ms: some 200
 * samples at 2000 Hz on any machine (a count of iterations took 100 ms on
 * one and 12 ms on another, too few samples there). */
#define SPIN_MS 100.0

static char self[4096];

/* The child's burn: SPIN_MS, or four times the CPU time the process has
 * used before it (the exec, the dynamic loader, a sanitizer's start-up,
 * which under ASan and on a busy host can pass SPIN_MS), whichever is
 * longer, so that the burn holds most of the samples at any speed. */
static void burn_most(void)
{
    struct timespec ts;
    double before = 0;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
        before = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
    burn_cpu_ms(4 * before > SPIN_MS ? 4 * before : SPIN_MS);
}

static int can_sample(void)
{
    struct nf_sample_cfg cfg;
    char err[256];
    if (nf_sampler_probe(&cfg, 1000, err, sizeof(err))) {
        print_message("sampling not permitted here (%s); skipped\n", err);
        return 0;
    }
    return 1;
}

/* Fork a child that waits for a byte on a pipe, then runs what is asked. */
static pid_t spawn(int exec_self, int *go)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[1]);
        char c;
        if (read(p[0], &c, 1) != 1)
            _exit(1);
        if (exec_self) {
            execl(self, self, "--burn", NULL);
            _exit(127);
        }
        burn_most();
        _exit(0);
    }
    close(p[0]);
    *go = p[1];
    return pid;
}

static void profile_child(int exec_self)
{
    if (!can_sample()) {
        skip();
        return;
    }
    struct nf_profiler prof;
    char err[256];
    assert_int_equal(nf_profiler_init(&prof, 2000, err, sizeof(err)), 0);
    int go;
    pid_t pid = spawn(exec_self, &go);
    if (nf_profiler_attach(&prof, pid, exec_self, err, sizeof(err)))
        fail_msg("attach: %s", err);
    assert_int_equal(write(go, "g", 1), 1);
    close(go);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    nf_profiler_detach(&prof, 1);
    assert_int_equal(prof.reps, 1);

    struct nf_profile *p = &prof.prof;
    nf_profile_sort(p);
    /* About 200 samples at 2000 Hz, nearly all in burn_cpu_ms (the rest:
     * the exec, the dynamic loader, exit).  The sampling clock is CPU time
     * (cycles or cpu-clock), the burn's length too: the count holds at any
     * speed; a fifth of it leaves room for the kernel lowering the rate. */
    assert_true(p->samples > 40);
    const struct nf_prof_entry *e = NULL;
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->e[i].symbol, "burn_cpu_ms") == 0)
            e = &p->e[i];
    if (!e) {
        for (size_t i = 0; i < p->n && i < 5; i++)
            print_message("  %s %s %llu\n", p->e[i].symbol, p->e[i].dso,
                          (unsigned long long)p->e[i].samples);
        fail_msg("burn_cpu_ms not in the profile");
    }
    assert_string_equal(e->dso, self);
    assert_true(nf_profile_pct(p, e) > 50.0);
    assert_int_equal(p->lost, 0);
    nf_profiler_free(&prof);
}

static void test_forked(void **state)
{
    (void)state;
    profile_child(0);
}

static void test_exec(void **state)
{
    (void)state;
    profile_child(1);
}

/* A failed repetition's samples are dropped. */
static void test_drop(void **state)
{
    (void)state;
    if (!can_sample()) {
        skip();
        return;
    }
    struct nf_profiler prof;
    char err[256];
    assert_int_equal(nf_profiler_init(&prof, 1000, err, sizeof(err)), 0);
    int go;
    pid_t pid = spawn(0, &go);
    assert_int_equal(nf_profiler_attach(&prof, pid, 0, err, sizeof(err)), 0);
    assert_int_equal(write(go, "g", 1), 1);
    close(go);
    waitpid(pid, NULL, 0);
    nf_profiler_detach(&prof, 0);
    assert_int_equal(prof.reps, 0);
    assert_int_equal(prof.prof.samples, 0);
    nf_profiler_free(&prof);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--burn") == 0) {
        burn_most();
        _exit(0); /* not exit: no leak check or sanitizer teardown in the profile */
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forked),
        cmocka_unit_test(test_exec),
        cmocka_unit_test(test_drop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
