/* A task's own counts (measure/sysstat.h): its run delay from
 * /proc/PID/schedstat and its migrations from /proc/PID/sched, read while
 * it is a zombie.  Opened per task (a repetition's child is a new PID
 * each time), small enough for a buffer on the stack. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "measure/sysstat.h"

/* Up to cap bytes of a file into buf (NUL-terminated): its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    for (;;) {
        ssize_t got = read(fd, buf + n, cap - n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
        if (n == cap - 1)
            break;
    }
    close(fd);
    buf[n] = 0;
    return (ssize_t)n;
}

void nf_sys_task_read(const char *root, pid_t pid, struct nf_sys_task *t)
{
    /* The leader's own files, not /proc/PID/task/: once the leader can be
     * reaped every other thread has exited and been released, and its
     * counts with it (what its threads waited is in theirs, gone). */
    char path[4096], buf[4096];
    snprintf(path, sizeof(path), "%s/proc/%d/schedstat", root ? root : "", (int)pid);
    unsigned long long run, delay, m;
    if (read_small(path, buf, 128) > 0 && sscanf(buf, "%llu %llu", &run, &delay) == 2) {
        t->ok = 1;
        t->run_delay_ns += delay;
    }
    /* "se.nr_migrations    :    3" */
    snprintf(path, sizeof(path), "%s/proc/%d/sched", root ? root : "", (int)pid);
    static const char key[] = "\nse.nr_migrations";
    char *q;
    if (read_small(path, buf, sizeof(buf)) > 0 && (q = strstr(buf, key)) != NULL &&
        sscanf(q + sizeof(key) - 1, " : %llu", &m) == 1) {
        t->migr_ok = 1;
        t->migrations += m;
    }
}
