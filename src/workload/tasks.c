/* A workload's own tasks' counts (workload/tasks.h). */
#include "workload/tasks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct nf_wl_tasks *nf_wl_tasks;

int nf_wl_tasks_on(void)
{
    return nf_wl_tasks && nf_wl_tasks->want;
}

pid_t nf_wl_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

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

int nf_task_counts(const char *dir, uint64_t *run_delay_ns, uint64_t *migrations)
{
    char path[4096], buf[4096];
    int got = 0;
    unsigned long long run, delay, m;
    snprintf(path, sizeof(path), "%s/schedstat", dir);
    if (read_small(path, buf, 128) > 0 && sscanf(buf, "%llu %llu", &run, &delay) == 2) {
        *run_delay_ns = delay;
        got |= 1;
    }
    /* "se.nr_migrations    :    3" */
    snprintf(path, sizeof(path), "%s/sched", dir);
    static const char key[] = "\nse.nr_migrations";
    char *q;
    if (read_small(path, buf, sizeof(buf)) > 0 && (q = strstr(buf, key)) != NULL &&
        sscanf(q + sizeof(key) - 1, " : %llu", &m) == 1) {
        *migrations = m;
        got |= 2;
    }
    return got;
}

void nf_wl_tasks_add(pid_t pid, pid_t tid)
{
    if (!nf_wl_tasks_on())
        return;
    struct nf_wl_tasks *t = nf_wl_tasks;
    char dir[700];
    t->root[sizeof(t->root) - 1] = 0;
    snprintf(dir, sizeof(dir), "%s/proc/%d/task/%d", t->root, (int)pid, (int)tid);
    uint64_t delay = 0, m = 0;
    int got = nf_task_counts(dir, &delay, &m);
    if (got & 1) {
        t->n++;
        t->run_delay_ns += delay;
    }
    if (got & 2) {
        t->nmigr++;
        t->migrations += m;
    }
}
