/* The cost of the machine readings of one repetition (measure/sysstat.h),
 * without a workload: the readings before and after, the delta, and the
 * task's own files, as a repetition of `run` takes them.  Prints the
 * minimum and the median over the repetitions, in microseconds, and the
 * same for each file alone.  Built and run by bench/sysstat-cost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measure/sysstat.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double report(const char *what, double *t, int n)
{
    qsort(t, (size_t)n, sizeof(*t), cmp);
    printf("sysstat-cost: %-34s min %7.1f us, median %7.1f us\n", what, t[0], t[n / 2]);
    return t[n / 2];
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    double *t = calloc((size_t)n, sizeof(*t));
    struct nf_sys_delta d;
    static const char *const what[] = {
        "a repetition, all CPUs:",
        "a repetition, pinned to CPU 0:",
        "a repetition right after the last:",
    };
    for (int v = 0; v < 3; v++) {
        struct nf_sys *s = nf_sys_new(NULL, v == 1 ? &one : NULL);
        nf_sys_read(s, 1);
        for (int i = 0; i < n; i++) {
            double t0 = now_us();
            /* the third: once per boundary (measure/repetition.c) */
            if (v == 2)
                nf_sys_again(s);
            else
                nf_sys_read(s, 0);
            struct nf_sys_task task = {0};
            nf_sys_task_read(NULL, getpid(), &task);
            nf_sys_read(s, 1);
            nf_sys_delta(s, &d);
            t[i] = now_us() - t0;
        }
        double med = report(what[v], t, n);
        if (v == 2)
            printf("sysstat-cost (a repetition of run): median %.1f us; ratio to the bar of 100 us "
                   "= %.2f (target <= 1)\n",
                   med, med / 100);
        nf_sys_free(s);
    }
    for (int i = 0; i < n; i++) {
        struct nf_sys_task task = {0};
        double t0 = now_us();
        nf_sys_task_read(NULL, getpid(), &task);
        t[i] = now_us() - t0;
    }
    report("the task's schedstat and sched:", t, n);
    free(t);
    return 0;
}
