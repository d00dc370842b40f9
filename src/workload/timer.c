/* timer: cyclictest's measurement (one thread, clock_nanosleep mode).
 *
 * The thread sleeps with clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)
 * until an absolute wakeup time, reads the clock as soon as it runs, and
 * records actual - intended; the next wakeup is INTERVAL later than the
 * last intended one, never re-based on the late actual one, so a late
 * wakeup does not shift the schedule; and wakeups whose time has already
 * passed are skipped, not taken at once one after another, so one stall
 * is one late wakeup and not a run of them (cyclictest's loop: its
 * "while (now > next) next += interval").  The first wakeup is one
 * INTERVAL after the start; LOOPS counts the wakeups measured, as
 * cyclictest's -l counts its cycles.
 *
 * It runs in the repetition's child, on the CPU the run is pinned to
 * (run --pin).  With --policy fifo it first makes itself SCHED_FIFO at
 * --prio; if the kernel refuses, the repetition fails with the reason
 * rather than measuring something else under the same name.
 *
 * While it measures, it holds /dev/cpu_dma_latency at 0, as cyclictest
 * does unless given --default-system: the kernel's CPU latency request
 * (PM QoS), which keeps idle CPUs out of C-states deeper than that exit
 * latency.  Without it a CPU woken from a deep C-state adds its exit
 * latency to ours and not to cyclictest's.  The request lives as long as
 * the file is open: closing it (or the process's end, SIGKILL too) drops
 * it, so nothing needs restoring.  Best effort: without the device or the
 * right to write it, the repetition measures all the same, and the run's
 * environment says so (timer_env).
 *
 * Memory: one histogram (stats/hist.h), whatever LOOPS. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "stats/hist.h"
#include "workload/latency.h"
#include "workload/workload.h"

struct timer_cfg {
    long interval_us;
    long loops;
    int fifo;
    long prio;
    int default_system; /* leave /dev/cpu_dma_latency alone */
};

#define DMA_LATENCY "/dev/cpu_dma_latency"

/* Open /dev/cpu_dma_latency and ask for a CPU latency of 0 us (a 32-bit
 * value, as cyclictest writes it): the request holds until fd is closed.
 * The fd, or -1 with errno. */
static int dma_latency_hold(void)
{
    int fd = open(DMA_LATENCY, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int32_t zero = 0;
    if (write(fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static size_t timer_metrics(const void *cfg, struct nf_metric_decl *out)
{
    (void)cfg;
    return nf_latency_metrics(out);
}

static int make_fifo(long prio, char *err, size_t errlen)
{
    struct sched_param sp = {.sched_priority = (int)prio};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0)
        return 0;
    if (errno == EPERM)
        snprintf(err, errlen,
                 "timer: SCHED_FIFO priority %ld is not permitted (it needs CAP_SYS_NICE, as "
                 "root has, or an RLIMIT_RTPRIO of at least %ld: ulimit -r; a cgroup without "
                 "RT runtime refuses it too)",
                 prio, prio);
    else
        snprintf(err, errlen, "timer: cannot set SCHED_FIFO priority %ld: %s", prio,
                 strerror(errno));
    return -1;
}

static uint64_t ts_ns(const struct timespec *t)
{
    return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

uint64_t nf_timer_next(uint64_t next, uint64_t now, uint64_t interval)
{
    next += interval;
    if (now > next) /* skip what has passed: the first target not before now */
        next += (now - next + interval - 1) / interval * interval;
    return next;
}

static int timer_run_hist(const void *cfgv, double *values, struct nf_hist *h, char *err,
                          size_t errlen)
{
    const struct timer_cfg *cfg = cfgv;
    if (cfg->fifo && make_fifo(cfg->prio, err, errlen))
        return -1;
    int dma = cfg->default_system ? -1 : dma_latency_hold(); /* best effort */
    const uint64_t interval_ns = (uint64_t)cfg->interval_us * 1000;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t want = ts_ns(&t) + interval_ns, got = 0;
    int rc = 0;
    for (long i = 0; i < cfg->loops; i++) {
        if (i)
            want = nf_timer_next(want, got, interval_ns);
        t.tv_sec = (time_t)(want / 1000000000u);
        t.tv_nsec = (long)(want % 1000000000u);
        int e;
        while ((e = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL)) == EINTR)
            ; /* an absolute sleep resumes without drift */
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (e) {
            snprintf(err, errlen, "timer: clock_nanosleep: %s", strerror(e));
            rc = -1;
            break;
        }
        got = ts_ns(&now);
        nf_hist_record(h, got > want ? got - want : 0);
    }
    if (dma >= 0)
        close(dma); /* the request ends with the measurement */
    if (rc == 0)
        rc = nf_latency_values("timer", h, values, err, errlen);
    return rc;
}

/* The run's environment, at its start: whether each repetition holds
 * /dev/cpu_dma_latency at 0.  Opening it for writing (as the repetition
 * will) asks nothing yet: a new request is at the default, no limit. */
static void timer_env(const void *cfgv, json_t *env)
{
    const struct timer_cfg *cfg = cfgv;
    char what[160];
    int fd = -1;
    if (cfg->default_system)
        snprintf(what, sizeof(what), "not held: --default-system");
    else if ((fd = open(DMA_LATENCY, O_WRONLY | O_CLOEXEC)) < 0)
        snprintf(what, sizeof(what), "not held: %s: %s", DMA_LATENCY, strerror(errno));
    else
        snprintf(what, sizeof(what), "held at 0 us during each repetition");
    if (fd >= 0)
        close(fd);
    json_object_set_new(env, NF_ENV_DMA_LATENCY, json_string(what));
}

static int timer_run(const void *cfg, double *values, char *err, size_t errlen)
{
    struct nf_hist *h = nf_xcalloc(1, sizeof(*h));
    int rc = timer_run_hist(cfg, values, h, err, errlen);
    free(h);
    return rc;
}

/* ---- options ------------------------------------------------------------ */

#define TIMER_MAX_SPAN_S 86400LL /* a day of sleeping per repetition */

static const struct nf_opt_choice timer_policies[] = {{"other", 0}, {"fifo", 1}, {NULL, 0}};

static const struct nf_opts timer_opts = {
    .usage = "noisefloor run [OPTIONS] timer",
    .about = "cyclictest's measurement: sleep until an absolute time with\n"
             "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) every INTERVAL_USEC and\n"
             "record actual - intended wakeup.  Runs on the CPU the run is pinned to (run --pin).",
    .flags = NF_OPTS_STOP | NF_OPTS_LETTERS | NF_OPTS_SYNOPSIS,
    .options =
        (const struct nf_option[]){
            NF_OPT_INT('i', "interval", struct timer_cfg, interval_us, 1, 1000000,
                       "an interval in microseconds", "INTERVAL_USEC",
                       "microseconds between wakeups", NF_DEF("1000")),
            NF_OPT_INT('l', "loops", struct timer_cfg, loops, 1, 100000000, "a loop count", "LOOPS",
                       "wakeups per repetition", NF_DEF("2000")),
            NF_OPT_CHOICE(0, "policy", struct timer_cfg, fifo, timer_policies, NULL,
                          "other, or fifo: SCHED_FIFO, which needs CAP_SYS_NICE\n"
                          "or RLIMIT_RTPRIO; if refused, the run fails (exit 1)",
                          NF_DEF("other")),
            NF_OPT_INT(0, "prio", struct timer_cfg, prio, 1, 99, "a priority", "N",
                       "the SCHED_FIFO priority (as cyclictest -t1)", NF_DEF_TEXT("2")),
            NF_OPT_FLAG(0, "default-system", struct timer_cfg, default_system,
                        "leave /dev/cpu_dma_latency alone (as cyclictest's option);\n"
                        "by default each repetition holds it at 0 us, as cyclictest\n"
                        "does, where it can (the run's environment says whether)"),
            NF_OPT_END,
        },
    .footer = "Metrics: wakeup-p50, -p90, -p99 (primary), -p99.9, -max in usecs (lower is\n"
              "better), and wakeups (the events they rest on).  Percentiles come from a\n"
              "log-linear histogram, within 0.39% (2^-8) of the exact ones; memory: one\n"
              "histogram of 38 KiB, whatever LOOPS.",
};

extern const struct nf_workload nf_workload_timer;

static int timer_parse(int argc, char **argv, void **cfgp, char *err, size_t errlen)
{
    static const struct timer_cfg defaults = {0}; /* the table's */
    if (nf_workload_parse_opts(&nf_workload_timer, &defaults, sizeof(defaults), argc, argv, cfgp,
                               err, errlen))
        return -1;
    struct timer_cfg *cfg = *cfgp;
    /* At most 10^6 x 10^8 us: exact in a long long. */
    long long span_us = (long long)cfg->interval_us * cfg->loops;
    if (cfg->prio && !cfg->fifo)
        snprintf(err, errlen, "timer: --prio needs --policy fifo");
    else if (span_us > TIMER_MAX_SPAN_S * 1000000) {
        /* The exact span in seconds (microseconds shown when there are
         * any), so that it never reads as the limit: 86400.001 s. */
        char secs[48];
        int k = snprintf(secs, sizeof(secs), "%lld.%06lld", span_us / 1000000, span_us % 1000000);
        while (k > 0 && secs[k - 1] == '0')
            secs[--k] = '\0';
        if (k > 0 && secs[k - 1] == '.')
            secs[--k] = '\0';
        snprintf(err, errlen,
                 "timer: -i %ld -l %ld would sleep %s s in one repetition; at most %lld s (a day)",
                 cfg->interval_us, cfg->loops, secs, TIMER_MAX_SPAN_S);
    } else {
        if (cfg->fifo && !cfg->prio)
            cfg->prio = 2;
        return 0;
    }
    free(cfg);
    *cfgp = NULL;
    return -1;
}

const struct nf_workload nf_workload_timer = {
    .name = "timer",
    .summary = "timer wakeup latency at a fixed interval (cyclictest)",
    .opts = &timer_opts,
    .parse = timer_parse,
    .metrics = timer_metrics,
    .run_once = timer_run,
    .free_cfg = free,
    .hist = NF_LATENCY_HIST,
    .run_hist = timer_run_hist,
    .env = timer_env,
};
