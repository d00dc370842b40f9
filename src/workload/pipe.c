/* pipe: two tasks ping-pong one int over two pipes, as `perf bench sched
 * pipe`.  Task 0 writes then reads, task 1 reads then writes, LOOPS times
 * each; so every loop is two context switches when both share a CPU.  The
 * clock runs, as perf's, from before the second task is created (fork or
 * thread) to the moment both are done: the second has exited (a process)
 * or said it is done (a thread).  Only then is it reaped or joined, so
 * that its run delay and migrations can be read first, outside the timed
 * interval (workload/tasks.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "workload/tasks.h"
#include "workload/workload.h"

struct pipe_cfg {
    long loops;
    int threads;
};

static const struct nf_opts pipe_opts = {
    .usage = "noisefloor run [OPTIONS] pipe",
    .about = "Two tasks ping-pong one int over two pipes (perf bench sched pipe).",
    .flags = NF_OPTS_STOP | NF_OPTS_LETTERS | NF_OPTS_SYNOPSIS,
    .options =
        (const struct nf_option[]){
            NF_OPT_INT('l', "loop", struct pipe_cfg, loops, 1, 1000000000L, "a loop count", "LOOPS",
                       "round trips per repetition", NF_DEF("1000000")),
            NF_OPT_FLAG('T', "threaded", struct pipe_cfg, threads,
                        "two threads of one process instead of two processes"),
            NF_OPT_END,
        },
    .footer = "Metrics: usecs/op (lower is better, primary), ops/sec (higher).",
};

static int pipe_parse(int argc, char **argv, void **cfgp, char *err, size_t errlen)
{
    static const struct pipe_cfg defaults = {0}; /* the table's */
    return nf_workload_parse_opts(&nf_workload_pipe, &defaults, sizeof(defaults), argc, argv, cfgp,
                                  err, errlen);
}

static size_t pipe_metrics(const void *cfg, struct nf_metric_decl *out)
{
    (void)cfg;
    out[0] = (struct nf_metric_decl){"usecs/op", "usecs/op", NF_BETTER_LOWER, 1};
    out[1] = (struct nf_metric_decl){"ops/sec", "ops/sec", NF_BETTER_HIGHER, 0};
    return 2;
}

struct worker {
    int rfd, wfd;
    long loops;
    int first; /* task 0 writes first */
    int failed;
};

/* Task 1 as a thread: done when its loops are, then held (when its counts
 * are to be read) until released, so that it is still there to read. */
struct peer {
    struct worker w;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int hold, done, released;
    pid_t tid;
};

static int xfer(int fd, int *m, int wr)
{
    for (;;) {
        ssize_t r = wr ? write(fd, m, sizeof(*m)) : read(fd, m, sizeof(*m));
        if (r == (ssize_t)sizeof(*m))
            return 0;
        if (r < 0 && errno == EINTR)
            continue;
        return -1;
    }
}

static void *worker_loop(void *arg)
{
    struct worker *w = arg;
    int m = 0;
    for (long i = 0; i < w->loops; i++) {
        int bad = w->first ? xfer(w->wfd, &m, 1) || xfer(w->rfd, &m, 0)
                           : xfer(w->rfd, &m, 0) || xfer(w->wfd, &m, 1);
        if (bad) {
            w->failed = 1;
            break;
        }
    }
    return NULL;
}

static void *peer_main(void *arg)
{
    struct peer *p = arg;
    if (p->hold)
        p->tid = nf_wl_gettid();
    worker_loop(&p->w);
    pthread_mutex_lock(&p->lock);
    p->done = 1;
    pthread_cond_signal(&p->cond);
    while (p->hold && !p->released)
        pthread_cond_wait(&p->cond, &p->lock);
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static int pipe_run(const void *cfgv, double *values, char *err, size_t errlen)
{
    const struct pipe_cfg *cfg = cfgv;
    int p1[2], p2[2];
    if (pipe(p1) || pipe(p2)) {
        snprintf(err, errlen, "pipe: cannot create pipes: %s", strerror(errno));
        return -1;
    }
    struct worker w0 = {p2[0], p1[1], cfg->loops, 1, 0};
    struct worker w1 = {p1[0], p2[1], cfg->loops, 0, 0};
    struct peer peer = {.w = w1, .hold = nf_wl_tasks_on()};
    pthread_mutex_init(&peer.lock, NULL);
    pthread_cond_init(&peer.cond, NULL);
    pid_t pid = -1;
    pthread_t th;

    uint64_t t0 = nf_now_ns();
    if (cfg->threads) {
        if (pthread_create(&th, NULL, peer_main, &peer) != 0) {
            snprintf(err, errlen, "pipe: cannot create thread");
            pthread_mutex_destroy(&peer.lock);
            pthread_cond_destroy(&peer.cond);
            return -1;
        }
    } else {
        pid = fork();
        if (pid < 0) {
            snprintf(err, errlen, "pipe: fork: %s", strerror(errno));
            return -1;
        }
        if (pid == 0) {
            close(p2[0]); /* a dead peer then shows as EOF, not a hang */
            close(p1[1]);
            worker_loop(&w1);
            _exit(w1.failed ? 1 : 0);
        }
        close(p1[0]);
        close(p2[1]);
    }
    worker_loop(&w0);
    close(p2[0]); /* so a peer still waiting sees EOF */
    close(p1[1]);
    int peer_failed = 0;
    if (cfg->threads) {
        pthread_mutex_lock(&peer.lock);
        while (!peer.done)
            pthread_cond_wait(&peer.cond, &peer.lock);
        pthread_mutex_unlock(&peer.lock);
    } else {
        siginfo_t si;
        while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
            ;
    }
    uint64_t t1 = nf_now_ns();
    if (cfg->threads) {
        if (peer.hold)
            nf_wl_tasks_add(getpid(), peer.tid);
        pthread_mutex_lock(&peer.lock);
        peer.released = 1;
        pthread_cond_signal(&peer.cond);
        pthread_mutex_unlock(&peer.lock);
        pthread_join(th, NULL);
        pthread_mutex_destroy(&peer.lock);
        pthread_cond_destroy(&peer.cond);
        peer_failed = peer.w.failed;
    } else {
        nf_wl_tasks_add(pid, pid); /* a zombie now, until reaped */
        int st = 0;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        peer_failed = !WIFEXITED(st) || WEXITSTATUS(st) != 0;
        pthread_mutex_destroy(&peer.lock);
        pthread_cond_destroy(&peer.cond);
    }
    if (cfg->threads) {
        close(p1[0]);
        close(p2[1]);
    }
    if (w0.failed || peer_failed) {
        snprintf(err, errlen, "pipe: a ping-pong task failed (short read or write)");
        return -1;
    }
    double secs = (double)(t1 - t0) / 1e9;
    values[0] = secs * 1e6 / (double)cfg->loops;
    values[1] = (double)cfg->loops / secs;
    return 0;
}

const struct nf_workload nf_workload_pipe = {
    .name = "pipe",
    .summary = "two tasks ping-pong over two pipes (perf bench sched pipe)",
    .opts = &pipe_opts,
    .parse = pipe_parse,
    .metrics = pipe_metrics,
    .run_once = pipe_run,
    .free_cfg = free,
};
