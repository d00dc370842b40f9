/* pipe: two tasks ping-pong one int over two pipes, as `perf bench sched
 * pipe`.  Task 0 writes then reads, task 1 reads then writes, LOOPS times
 * each; so every loop is two context switches when both share a CPU.  The
 * clock runs from the first write to the moment both tasks are done. */
#include <errno.h>
#include <getopt.h>
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

static void pipe_usage(FILE *out)
{
    fputs("usage: noisefloor run [OPTIONS] pipe [-l LOOPS] [-T]\n"
          "\n"
          "Two tasks ping-pong one int over two pipes (perf bench sched pipe).\n"
          "  -l, --loop LOOPS   round trips per repetition (default 1000000)\n"
          "  -T, --threaded     two threads of one process instead of two processes\n"
          "Metrics: usecs/op (lower is better, primary), ops/sec (higher).\n",
          out);
}

static int pipe_parse(int argc, char **argv, void **cfgp, char *err, size_t errlen)
{
    static const struct option opts[] = {
        {"loop", required_argument, 0, 'l'},
        {"threaded", no_argument, 0, 'T'},
        {0, 0, 0, 0},
    };
    struct pipe_cfg *cfg = nf_xcalloc(1, sizeof(*cfg));
    cfg->loops = 1000000;
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+:l:T", opts, NULL)) != -1) {
        switch (c) {
        case 'l':
            if (nf_parse_long(optarg, 1, 1000000000L, &cfg->loops) != 0) {
                snprintf(err, errlen, "pipe: -l wants a loop count from 1 to 1000000000, not '%s'",
                         optarg);
                goto fail;
            }
            break;
        case 'T': cfg->threads = 1; break;
        case ':':
            snprintf(err, errlen, "pipe: option '%s' needs a value", argv[optind - 1]);
            goto fail;
        default: snprintf(err, errlen, "pipe: unknown option '%s'", argv[optind - 1]); goto fail;
        }
    }
    if (optind < argc) {
        snprintf(err, errlen, "pipe: unexpected argument '%s'", argv[optind]);
        goto fail;
    }
    *cfgp = cfg;
    return 0;
fail:
    free(cfg);
    return -1;
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
    uint64_t t0 = nf_now_ns();
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
    .parse = pipe_parse,
    .usage = pipe_usage,
    .metrics = pipe_metrics,
    .run_once = pipe_run,
    .free_cfg = free,
};
