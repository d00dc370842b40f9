/* A workload's own tasks' counts (workload/tasks.h). */
#include "workload/tasks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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
    uint64_t run, delay, m;
    /* "RUNTIME RUN_DELAY TIMESLICES" */
    snprintf(path, sizeof(path), "%s/schedstat", dir);
    const char *q = buf;
    if (read_small(path, buf, 128) > 0 && nf_scan_count(&q, &run) && nf_scan_count(&q, &delay)) {
        *run_delay_ns = delay;
        got |= 1;
    }
    /* "se.nr_migrations    :    3" */
    snprintf(path, sizeof(path), "%s/sched", dir);
    static const char key[] = "\nse.nr_migrations";
    if (read_small(path, buf, sizeof(buf)) > 0 && (q = strstr(buf, key)) != NULL) {
        q += sizeof(key) - 1;
        q += strspn(q, " \t");
        if (*q++ == ':' && nf_scan_count(&q, &m)) {
            *migrations = m;
            got |= 2;
        }
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
