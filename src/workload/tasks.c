/* A workload's own tasks' counts (workload/tasks.h). */
#include "workload/tasks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"

struct nf_wl_tasks *nf_wl_tasks;

int nf_wl_tasks_on(void)
{
    return nf_wl_tasks && nf_wl_tasks->want;
}

pid_t nf_wl_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* Up to cap - 1 bytes of a file into buf (NUL-terminated), in one read:
 * the kernel writes these /proc files whole in the first read that has
 * room for them (and sched's count is near its top), and a second read,
 * only to see the end of the file, costs as much again.  Its length or
 * -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got;
    while ((got = read(fd, buf, cap - 1)) < 0 && errno == EINTR)
        ;
    close(fd);
    buf[got > 0 ? got : 0] = 0;
    return got;
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
    if (pid == tid) /* a process (a zombie), or a main thread: the same files, a shorter walk */
        snprintf(dir, sizeof(dir), "%s/proc/%d", t->root, (int)pid);
    else
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

/* ---- threads held once finished ----------------------------------------- */

void nf_wl_hold_init(struct nf_wl_hold *h)
{
    memset(h, 0, sizeof(*h));
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->done_cond, NULL);
    pthread_cond_init(&h->gate, NULL);
    h->on = nf_wl_tasks_on();
}

void nf_wl_hold_park(struct nf_wl_hold *h)
{
    pthread_mutex_lock(&h->lock);
    h->done++;
    pthread_cond_broadcast(&h->done_cond);
    while (h->on && !h->released)
        pthread_cond_wait(&h->gate, &h->lock);
    pthread_mutex_unlock(&h->lock);
}

void nf_wl_hold_wait(struct nf_wl_hold *h, long n)
{
    pthread_mutex_lock(&h->lock);
    while (h->done < n)
        pthread_cond_wait(&h->done_cond, &h->lock);
    pthread_mutex_unlock(&h->lock);
}

void nf_wl_hold_release(struct nf_wl_hold *h)
{
    pthread_mutex_lock(&h->lock);
    h->released = 1;
    pthread_cond_broadcast(&h->gate);
    pthread_mutex_unlock(&h->lock);
}

void nf_wl_hold_destroy(struct nf_wl_hold *h)
{
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->done_cond);
    pthread_cond_destroy(&h->gate);
}

/* ---- child processes waited for, not reaped ----------------------------- */

int nf_wl_exits_open(struct nf_wl_exits *e, long n)
{
    memset(e, 0, sizeof(*e));
    e->epfd = -1;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < (rlim_t)n + 64) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t)n + 64 ? (rlim_t)n + 64
                                                                                   : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl); /* short of it, a pidfd fails: EMFILE */
    }
    e->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (e->epfd < 0)
        return -1;
    e->n = n;
    e->fds = nf_xmalloc((size_t)(n > 0 ? n : 1) * sizeof(*e->fds));
    e->pids = nf_xcalloc((size_t)(n > 0 ? n : 1), sizeof(*e->pids));
    for (long i = 0; i < n; i++)
        e->fds[i] = -1;
    return 0;
}

int nf_wl_exits_watch(struct nf_wl_exits *e, long i, pid_t pid)
{
    int fd = (int)syscall(SYS_pidfd_open, pid, 0); /* close-on-exec already */
    if (fd < 0)
        return -1;
    /* One event per child: it exits once. */
    struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.u64 = (uint64_t)i};
    if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev)) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    e->fds[i] = fd;
    e->pids[i] = pid;
    e->left++;
    return 0;
}

long nf_wl_exits_next(struct nf_wl_exits *e, siginfo_t *si)
{
    if (e->left <= 0) {
        errno = ECHILD;
        return -1;
    }
    if (e->iev == e->nev) {
        int got;
        while ((got = epoll_wait(e->epfd, e->ev, (int)(sizeof(e->ev) / sizeof(e->ev[0])), -1)) <
                   0 &&
               errno == EINTR)
            ;
        if (got < 0)
            return -1;
        e->nev = got;
        e->iev = 0;
    }
    long i = (long)e->ev[e->iev++].data.u64;
    /* Readable once it has exited: a zombie, whose status waitid reads
     * without reaping it. */
    memset(si, 0, sizeof(*si));
    while (waitid(P_PID, (id_t)e->pids[i], si, WEXITED | WNOWAIT) < 0)
        if (errno != EINTR)
            return -1;
    e->left--;
    return i;
}

void nf_wl_exits_close(struct nf_wl_exits *e)
{
    for (long i = 0; e->fds && i < e->n; i++)
        if (e->fds[i] >= 0)
            close(e->fds[i]);
    if (e->epfd >= 0)
        close(e->epfd);
    free(e->fds);
    free(e->pids);
    memset(e, 0, sizeof(*e));
    e->epfd = -1;
}
