/* pipe: two tasks ping-pong one int over two pipes, as `perf bench sched
 * pipe`.  Task 0 writes then reads, task 1 reads then writes, LOOPS times
 * each; so every loop is two context switches when both share a CPU.  The
 * clock runs, as perf's, from before the second task is created (fork or
 * thread) to the moment both are done and it is reaped (joined). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
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
    pid_t pid = -1;
    pthread_t th;

    uint64_t t0 = nf_now_ns();
    if (cfg->threads) {
        if (pthread_create(&th, NULL, worker_loop, &w1) != 0) {
            snprintf(err, errlen, "pipe: cannot create thread");
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
        pthread_join(th, NULL);
        peer_failed = w1.failed;
    } else {
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        peer_failed = !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    uint64_t t1 = nf_now_ns();
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
