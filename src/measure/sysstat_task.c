/* A task's own counts (measure/sysstat.h): its run delay from
 * /proc/PID/schedstat and its migrations from /proc/PID/sched, read while
 * it is a zombie (the parsing is workload/tasks.h's, which the built-in
 * workloads use for their own tasks). */
#include <stdio.h>

#include "measure/sysstat.h"
#include "workload/tasks.h"

void nf_sys_task_read(const char *root, pid_t pid, struct nf_sys_task *t)
{
    /* The leader's own files, not /proc/PID/task/: once the leader can be
     * reaped every other thread has exited and been released, and its
     * counts with it (what its threads waited is in theirs, gone: a
     * built-in workload reads those itself, workload/tasks.h). */
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s/proc/%d", root ? root : "", (int)pid);
    uint64_t delay = 0, m = 0;
    int got = nf_task_counts(dir, &delay, &m);
    if (got & 1) {
        t->ok = 1;
        t->run_delay_ns += delay;
    }
    if (got & 2) {
        t->migr_ok = 1;
        t->migrations += m;
    }
}
