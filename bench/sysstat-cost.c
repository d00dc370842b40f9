/* The cost of the machine readings of one repetition (measure/sysstat.h),
 * as a repetition of `run -- CMD` takes them, without the command: a child
 * that exits at once, and when it has exited (waitid WNOWAIT, the end of
 * the timed interval) its schedstat and sched files, its reaping, the one
 * reading of the repetition boundary (the last reading's end is this
 * one's start), the delta and the metrics appended.  The same loop with
 * the reaping alone is subtracted: what is left is what the readings add.
 *
 * It counts CPU time of this thread (CLOCK_THREAD_CPUTIME_ID), which other
 * tasks on the machine change little, and wall time beside it.  The task's
 * files are a fresh zombie's, as in a run: opening /proc/PID makes the
 * kernel build its entries, which the reaping then tears down, a cost that
 * reading a live process's own files again and again would not show.  Then
 * each file alone: what the kernel takes to print it (a pread from offset 0
 * of a file kept open).  Built and run by bench/sysstat-cost. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/run.h"
#include "measure/sysstat.h"

static double clock_us(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof(*t), cmp);
    return t[n / 2];
}

/* A child that has exited and is not reaped yet.  vfork, as spawn's
 * clone: a fork would leave our pages copy-on-write, and the readings'
 * first writes to them would count faults no run takes. */
static pid_t zombie(void)
{
    pid_t pid = vfork();
    if (pid == 0)
        _exit(0);
    siginfo_t si;
    if (pid < 0 || waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0) {
        perror("sysstat-cost: fork");
        exit(1);
    }
    return pid;
}

/* n repetitions' ends into cpu[] and wall[] (microseconds): with s, the
 * readings and the reaping; without, the reaping alone. */
static void reps(struct nf_sys *s, struct nf_run *run, int n, double *cpu, double *wall)
{
    for (int i = 0; i < n; i++) {
        pid_t pid = zombie();
        double c0 = clock_us(CLOCK_THREAD_CPUTIME_ID), w0 = clock_us(CLOCK_MONOTONIC);
        struct nf_sys_task task = {0};
        if (s)
            nf_sys_task_read(NULL, pid, &task);
        waitpid(pid, NULL, 0);
        if (s) {
            struct nf_sys_delta d;
            nf_sys_again(s);
            nf_sys_read(s, 1);
            nf_sys_delta(s, &d);
            nf_sys_record(s, run, &d, &task, 0);
        }
        cpu[i] = clock_us(CLOCK_THREAD_CPUTIME_ID) - c0;
        wall[i] = clock_us(CLOCK_MONOTONIC) - w0;
    }
}

/* The readings of one repetition, on all CPUs or pinned to CPU 0: the
 * median CPU time they add. */
static double repetition(const char *what, int pinned, int n, double *cpu, double *wall)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    struct nf_sys *s = nf_sys_new(NULL, pinned ? &one : NULL);
    struct nf_run *run = nf_run_new("x", "command");
    nf_sys_declare(s, run);
    nf_sys_read(s, 1);
    reps(NULL, NULL, n, cpu, wall);
    double c_base = median(cpu, n), w_base = median(wall, n);
    reps(s, run, n, cpu, wall);
    double c = median(cpu, n) - c_base, w = median(wall, n) - w_base;
    printf("sysstat-cost: %-32s %7.1f us CPU, %7.1f us wall (the reaping alone: %.1f us CPU)\n",
           what, c, w, c_base);
    nf_run_free(run);
    nf_sys_free(s);
    return c;
}

/* What the kernel takes to print one file: the median CPU time of a pread
 * of all of it from offset 0, the file kept open. */
static void one_file(const char *path, int n, double *cpu)
{
    static char buf[1 << 16];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        printf("sysstat-cost: %-32s cannot be read\n", path);
        return;
    }
    for (int i = 0; i < n; i++) {
        double c0 = clock_us(CLOCK_THREAD_CPUTIME_ID);
        for (off_t off = 0;;) {
            ssize_t got = pread(fd, buf, sizeof(buf), off);
            if (got <= 0)
                break;
            off += got;
        }
        cpu[i] = clock_us(CLOCK_THREAD_CPUTIME_ID) - c0;
    }
    close(fd);
    printf("sysstat-cost: %-32s %7.1f us CPU to print\n", path, median(cpu, n));
}

/* The task's two files of a fresh zombie, and the extra its reaping then
 * costs (the kernel's entries for /proc/PID torn down). */
static void task_files(int n, double *cpu, double *wall)
{
    reps(NULL, NULL, n, cpu, wall);
    double base = median(cpu, n);
    for (int i = 0; i < n; i++) {
        pid_t pid = zombie();
        double c0 = clock_us(CLOCK_THREAD_CPUTIME_ID);
        struct nf_sys_task task = {0};
        nf_sys_task_read(NULL, pid, &task);
        waitpid(pid, NULL, 0);
        cpu[i] = clock_us(CLOCK_THREAD_CPUTIME_ID) - c0;
    }
    printf("sysstat-cost: %-32s %7.1f us CPU, its reaping's extra included\n",
           "/proc/PID/schedstat and sched", median(cpu, n) - base);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    if (n < 1)
        n = 1;
    double *cpu = calloc((size_t)n, sizeof(*cpu)), *wall = calloc((size_t)n, sizeof(*wall));
    if (!cpu || !wall)
        return 1;
    signal(SIGCHLD, SIG_DFL);
    repetition("a repetition, pinned to CPU 0:", 1, n, cpu, wall);
    double med = repetition("a repetition, all CPUs:", 0, n, cpu, wall);
    printf("sysstat-cost (a repetition of run): median %.1f us CPU; ratio to the bar of 100 us "
           "= %.2f (target <= 1)\n",
           med, med / 100);
    one_file("/proc/interrupts", n, cpu);
    one_file("/proc/softirqs", n, cpu);
    one_file("/proc/stat", n, cpu);
    task_files(n, cpu, wall);
    free(cpu);
    free(wall);
    return 0;
}
