/* wakeup: schbench's model of a request-serving workload.
 *
 * MESSAGE threads each own WORKERS worker threads.  A worker that is ready
 * for a request puts itself on its message thread's list (a lock-free
 * stack), wakes the message thread, and sleeps on its own futex.  The
 * message thread takes the whole list, reads the clock once, stamps every
 * worker on it with that time and wakes them one after the other (so a
 * waker that is preempted while waking shows in the later workers'
 * latency, as in schbench).  A woken worker reads the clock as soon as it
 * runs: now - stamp is one wakeup latency.  It then serves the request:
 * sleeps SLEEP_USEC (schbench's simulated network or disk wait) and burns
 * CPU_USEC of its own CPU time, and comes back for the next one.
 *
 * requests/s is schbench's "average rps": requests finished within the
 * SECONDS window, over SECONDS.  The window opens when every thread has
 * been created and released at once; thread creation is outside it.
 *
 * Where we differ from schbench, on purpose: the work is CPU time
 * (CLOCK_THREAD_CPUTIME_ID) rather than a matrix multiplication, so time
 * spent preempted is not work and -c means the same on every machine; there
 * is no per-CPU lock around it (schbench's -L); latencies are read with
 * CLOCK_MONOTONIC in nanoseconds, so sub-microsecond wakeups (a worker woken
 * before it slept) are kept rather than dropped as 0 us.
 *
 * Every thread's run delay and migrations are read (workload/tasks.h)
 * once the window has closed and all have stopped: they wait, held, to be
 * read before they are joined.
 *
 * Memory: one histogram (stats/hist.h) per worker, merged at the end, and a
 * fixed stack per thread; nothing grows with the number of events. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "stats/hist.h"
#include "workload/latency.h"
#include "workload/tasks.h"
#include "workload/workload.h"

#define WK_STACK_KIB 128
#define WK_STACK (WK_STACK_KIB * 1024)
#define WK_MAX_MSG 64
#define WK_MAX_WORKERS 1024 /* in all: bounds the memory (see the usage) */
/* The shortest window: -r 1e-10 was a window of 0 ns and requests/s of
 * n/0.  A millisecond still lets every worker be woken once or more. */
#define WK_MIN_SECS 0.001

struct wk_cfg {
    long msg_threads;
    long workers; /* per message thread; 0: the CPUs online, shared out */
    double secs;
    long sleep_us;
    long cpu_us;
};

/* ---- futexes, as schbench uses them -------------------------------------
 * A futex word is BLOCKED while its owner is (about to be) asleep.  post()
 * flips it to RUNNING and wakes the owner only if it was BLOCKED; wait()
 * returns at once if a post came first, else sleeps until one does. */
enum { BLOCKED = 0, RUNNING = 1 };

static void futex_wait(int *f, int val)
{
    syscall(SYS_futex, f, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(int *f, int n)
{
    syscall(SYS_futex, f, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static void post(int *f)
{
    int want = BLOCKED;
    if (__atomic_compare_exchange_n(f, &want, RUNNING, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        futex_wake(f, 1);
}

static void wait_posted(int *f)
{
    for (;;) {
        int want = RUNNING;
        if (__atomic_compare_exchange_n(f, &want, BLOCKED, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return;
        futex_wait(f, BLOCKED); /* EAGAIN, EINTR: look again */
    }
}

/* ---- the threads --------------------------------------------------------- */

struct shared {
    int gate; /* 0 until the window opens; futex */
    int stop; /* set once the window closed */
    uint64_t deadline_ns;
    const struct wk_cfg *cfg;
    struct nf_wl_hold msgs, workers; /* each thread parks in its kind's */
};

struct msg;

struct worker {
    int futex;
    uint64_t stamp; /* the message thread's clock at our wakeup; 0: none */
    struct worker *next;
    struct msg *msg;
    struct shared *sh;
    struct nf_hist *hist;
    uint64_t requests;
    pthread_t th;
    int started;
    pid_t tid; /* when held: its id, to read its counts */
} __attribute__((aligned(64)));

struct msg {
    int futex;
    struct worker *list; /* workers waiting for a wakeup */
    struct shared *sh;
    pthread_t th;
    int started;
    pid_t tid;
} __attribute__((aligned(64)));

static int load(const int *p)
{
    return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static void wait_gate(struct shared *sh)
{
    while (!load(&sh->gate))
        futex_wait(&sh->gate, 0);
}

static void push(struct msg *m, struct worker *w)
{
    struct worker *old = __atomic_load_n(&m->list, __ATOMIC_SEQ_CST);
    do
        w->next = old;
    while (!__atomic_compare_exchange_n(&m->list, &old, w, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
}

/* Wake every worker on the list, all stamped with one reading of the
 * clock taken before the first wakeup. */
static void wake_all(struct msg *m)
{
    struct worker *w = __atomic_exchange_n(&m->list, NULL, __ATOMIC_SEQ_CST);
    if (!w)
        return;
    uint64_t now = nf_now_ns();
    while (w) {
        struct worker *next = w->next;
        __atomic_store_n(&w->stamp, now, __ATOMIC_SEQ_CST);
        post(&w->futex);
        w = next;
    }
}

static void *msg_main(void *arg)
{
    struct msg *m = arg;
    if (m->sh->msgs.on)
        m->tid = nf_wl_gettid();
    wait_gate(m->sh);
    for (;;) {
        __atomic_store_n(&m->futex, BLOCKED, __ATOMIC_SEQ_CST);
        wake_all(m);
        if (load(&m->sh->stop)) {
            wake_all(m); /* whoever queued meanwhile; later ones see stop */
            break;
        }
        wait_posted(&m->futex);
    }
    nf_wl_hold_park(&m->sh->msgs);
    return NULL;
}

static void sleep_us(long us)
{
    struct timespec t = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Burn us microseconds of this thread's CPU time. */
static void burn(long us)
{
    if (us <= 0)
        return;
    uint64_t end = thread_cpu_ns() + (uint64_t)us * 1000;
    volatile uint64_t x = 1;
    do
        for (int i = 0; i < 200; i++)
            x = x * 6364136223846793005u + 1442695040888963407u;
    while (thread_cpu_ns() < end);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct shared *sh = w->sh;
    if (sh->workers.on)
        w->tid = nf_wl_gettid();
    wait_gate(sh);
    while (!load(&sh->stop)) {
        __atomic_store_n(&w->futex, BLOCKED, __ATOMIC_SEQ_CST);
        __atomic_store_n(&w->stamp, 0, __ATOMIC_SEQ_CST);
        push(w->msg, w);
        post(&w->msg->futex);
        /* After the message thread's last list run, stop is visible here
         * (both are sequentially consistent), so nobody waits forever. */
        if (!load(&sh->stop))
            wait_posted(&w->futex);
        uint64_t now = nf_now_ns();
        uint64_t stamp = __atomic_load_n(&w->stamp, __ATOMIC_SEQ_CST);
        if (stamp)
            nf_hist_record(w->hist, now > stamp ? now - stamp : 0);
        if (load(&sh->stop))
            break;
        if (sh->cfg->sleep_us)
            sleep_us(sh->cfg->sleep_us);
        burn(sh->cfg->cpu_us);
        if (nf_now_ns() <= sh->deadline_ns)
            w->requests++;
    }
    nf_wl_hold_park(&sh->workers);
    return NULL;
}

/* ---- one repetition ------------------------------------------------------ */

/* n zeroed objects on their own cache lines (the types are aligned to 64,
 * which calloc does not promise), so no two threads' hot words share one. */
static void *calloc_lines(size_t n, size_t size)
{
    void *p = aligned_alloc(64, n * size); /* size is a multiple of 64 */
    if (p)
        memset(p, 0, n * size);
    return p;
}

long nf_wakeup_workers(long msg_threads, long workers)
{
    long per = workers;
    if (per == 0) {
        /* schbench's default: (get_nprocs() + m - 1) / m, the CPUs online
         * shared out among the message threads, whatever CPUs the
         * repetition may run on (taskset -c 0 schbench starts as many
         * workers as schbench alone). */
        long cpus = get_nprocs();
        per = ((cpus > 0 ? cpus : 1) + msg_threads - 1) / msg_threads;
    }
    if (per * msg_threads > WK_MAX_WORKERS)
        per = WK_MAX_WORKERS / msg_threads;
    return per;
}

static int wk_run_hist(const void *cfgv, double *values, struct nf_hist *all, char *err,
                       size_t errlen)
{
    const struct wk_cfg *cfg = cfgv;
    const uint64_t span = (uint64_t)(cfg->secs * 1e9);
    if (span == 0) { /* not with -r >= WK_MIN_SECS; never requests/s of n/0 */
        snprintf(err, errlen, "wakeup: a window of %g s is no time to measure", cfg->secs);
        return -1;
    }
    long per = nf_wakeup_workers(cfg->msg_threads, cfg->workers);
    long nw = cfg->msg_threads * per;
    struct shared sh = {.cfg = cfg};
    struct msg *msgs = calloc_lines((size_t)cfg->msg_threads, sizeof(*msgs));
    struct worker *ws = calloc_lines((size_t)nw, sizeof(*ws));
    if (!msgs || !ws) {
        snprintf(err, errlen, "wakeup: out of memory for %ld threads", nw + cfg->msg_threads);
        free(msgs);
        free(ws);
        return -1;
    }
    int rc = 0;
    nf_wl_hold_init(&sh.msgs);
    nf_wl_hold_init(&sh.workers);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, WK_STACK);
    for (long i = 0; i < nw && rc == 0; i++) {
        ws[i].sh = &sh;
        ws[i].msg = &msgs[i / per];
        ws[i].hist = nf_xcalloc(1, sizeof(struct nf_hist));
        int e = pthread_create(&ws[i].th, &attr, worker_main, &ws[i]);
        if (e) {
            snprintf(err, errlen, "wakeup: cannot create worker thread %ld of %ld: %s", i + 1, nw,
                     strerror(e));
            rc = -1;
        }
        ws[i].started = !e;
    }
    for (long i = 0; i < cfg->msg_threads && rc == 0; i++) {
        msgs[i].sh = &sh;
        int e = pthread_create(&msgs[i].th, &attr, msg_main, &msgs[i]);
        if (e) {
            snprintf(err, errlen, "wakeup: cannot create message thread %ld of %ld: %s", i + 1,
                     cfg->msg_threads, strerror(e));
            rc = -1;
        }
        msgs[i].started = !e;
    }
    pthread_attr_destroy(&attr);

    uint64_t t0 = nf_now_ns();
    sh.deadline_ns = t0 + span;
    if (rc != 0)
        __atomic_store_n(&sh.stop, 1, __ATOMIC_SEQ_CST); /* everyone leaves at the gate */
    __atomic_store_n(&sh.gate, 1, __ATOMIC_SEQ_CST);
    futex_wake(&sh.gate, INT_MAX);
    if (rc == 0) {
        struct timespec until = {(time_t)(sh.deadline_ns / 1000000000u),
                                 (long)(sh.deadline_ns % 1000000000u)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
            ;
        __atomic_store_n(&sh.stop, 1, __ATOMIC_SEQ_CST);
    }
    /* Each thread, once stopped, parks (held there when its counts are
     * read) until all have been read. */
    long nm_started = 0, nw_started = 0;
    for (long i = 0; i < cfg->msg_threads; i++)
        if (msgs[i].started) {
            post(&msgs[i].futex);
            nm_started++;
        }
    nf_wl_hold_wait(&sh.msgs, nm_started);
    /* A worker still serving its last request finds stop set when it comes
     * back and does not wait; one that queued before its message thread's
     * last list run was woken by it (all these accesses are sequentially
     * consistent).  The post here only makes that doubly sure. */
    for (long i = 0; i < nw; i++)
        if (ws[i].started) {
            post(&ws[i].futex);
            nw_started++;
        }
    nf_wl_hold_wait(&sh.workers, nw_started);
    for (long i = 0; sh.msgs.on && i < cfg->msg_threads; i++)
        if (msgs[i].started)
            nf_wl_tasks_add(getpid(), msgs[i].tid);
    for (long i = 0; sh.workers.on && i < nw; i++)
        if (ws[i].started)
            nf_wl_tasks_add(getpid(), ws[i].tid);
    nf_wl_hold_release(&sh.msgs);
    nf_wl_hold_release(&sh.workers);
    for (long i = 0; i < cfg->msg_threads; i++)
        if (msgs[i].started)
            pthread_join(msgs[i].th, NULL);
    for (long i = 0; i < nw; i++)
        if (ws[i].started)
            pthread_join(ws[i].th, NULL);
    nf_wl_hold_destroy(&sh.msgs);
    nf_wl_hold_destroy(&sh.workers);

    uint64_t requests = 0;
    for (long i = 0; i < nw; i++) {
        if (ws[i].hist)
            nf_hist_merge(all, ws[i].hist);
        requests += ws[i].requests;
        free(ws[i].hist);
    }
    if (rc == 0)
        rc = nf_latency_values("wakeup", all, values, err, errlen);
    if (rc == 0) {
        /* requests/s after the shared latency metrics */
        values[NF_LATENCY_NMETRICS] = (double)requests / ((double)span / 1e9);
    }
    free(ws);
    free(msgs);
    return rc;
}

static int wk_run(const void *cfg, double *values, char *err, size_t errlen)
{
    struct nf_hist *h = nf_xcalloc(1, sizeof(*h));
    int rc = wk_run_hist(cfg, values, h, err, errlen);
    free(h);
    return rc;
}

static size_t wk_metrics(const void *cfg, struct nf_metric_decl *out)
{
    (void)cfg;
    size_t n = nf_latency_metrics(out);
    out[n++] = (struct nf_metric_decl){"requests/s", "requests/s", NF_BETTER_HIGHER, 0};
    return n;
}

/* ---- options ------------------------------------------------------------ */

_Static_assert(WK_STACK_KIB == 128 && WK_MAX_WORKERS == 1024, "the footer below states them");

static const struct nf_opts wk_opts = {
    .usage = "noisefloor run [OPTIONS] wakeup",
    .about = "schbench's model: message threads wake their worker threads (futex); each\n"
             "worker records the time from its wakeup being issued to it running, sleeps\n"
             "SLEEP_USEC, burns CPU_USEC of its CPU time, and asks for the next wakeup.",
    .flags = NF_OPTS_STOP | NF_OPTS_LETTERS | NF_OPTS_SYNOPSIS,
    .options =
        (const struct nf_option[]){
            NF_OPT_INT('m', "message-threads", struct wk_cfg, msg_threads, 1, WK_MAX_MSG,
                       "a thread count", "N", "message threads (at most 64)", NF_DEF("1")),
            NF_OPT_INT('t', "threads", struct wk_cfg, workers, 1, WK_MAX_WORKERS, "a thread count",
                       "WORKERS",
                       "workers per message thread (get_nprocs(), shared\n"
                       "out, as schbench; --pin does not change it)",
                       NF_DEF_TEXT("the CPUs online")),
            NF_OPT_DOUBLE('r', "runtime", struct wk_cfg, secs, WK_MIN_SECS, 3600, 0, "seconds",
                          "SECONDS",
                          "measured seconds per repetition (fractions allowed,\n"
                          "at least 0.001)",
                          NF_DEF("2")),
            NF_OPT_INT('s', "sleep-usec", struct wk_cfg, sleep_us, 0, 1000000, "microseconds",
                       "SLEEP_USEC", "sleep per request (schbench's)", NF_DEF("100")),
            NF_OPT_INT('c', "cpu-usec", struct wk_cfg, cpu_us, 0, 1000000, "microseconds",
                       "CPU_USEC", "CPU time burnt per request", NF_DEF("100")),
            NF_OPT_END,
        },
    .footer = "Metrics: wakeup-p50, -p90, -p99 (primary), -p99.9, -max in usecs (lower is\n"
              "better), wakeups (the events they rest on), requests/s (higher is better:\n"
              "requests finished in the window over its length, schbench's average rps).\n"
              "Percentiles come from log-linear histograms, within 0.39% (2^-8) of the exact\n"
              "ones.  Memory: one histogram of 38 KiB per worker plus one, and a 128 KiB\n"
              "stack per thread, whatever the number of events; at most 1024 workers.",
};

extern const struct nf_workload nf_workload_wakeup;

static int wk_parse(int argc, char **argv, void **cfgp, char *err, size_t errlen)
{
    static const struct wk_cfg defaults = {0}; /* the table's; -t 0: the CPUs online */
    if (nf_workload_parse_opts(&nf_workload_wakeup, &defaults, sizeof(defaults), argc, argv, cfgp,
                               err, errlen))
        return -1;
    struct wk_cfg *cfg = *cfgp;
    if (cfg->msg_threads * cfg->workers > WK_MAX_WORKERS) {
        snprintf(err, errlen, "wakeup: %ld message threads of %ld workers is more than %d workers",
                 cfg->msg_threads, cfg->workers, WK_MAX_WORKERS);
        free(cfg);
        *cfgp = NULL;
        return -1;
    }
    return 0;
}

const struct nf_workload nf_workload_wakeup = {
    .name = "wakeup",
    .summary = "schbench: message threads wake workers; wakeup latency percentiles",
    .opts = &wk_opts,
    .parse = wk_parse,
    .metrics = wk_metrics,
    .run_once = wk_run,
    .free_cfg = free,
    .hist = NF_LATENCY_HIST,
    .run_hist = wk_run_hist,
};
