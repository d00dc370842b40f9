/* messaging: hackbench, as `perf bench sched messaging`.
 *
 * GROUPS groups of FDS receivers and FDS senders.  Every receiver owns one
 * socketpair (or pipe); every sender of its group writes BYTES-sized
 * messages to each of the group's receivers, LOOPS times round, so each
 * receiver reads FDS * LOOPS messages.  As in perf, every task is created
 * first and reports on a ready pipe, then blocks in poll() on a wake pipe;
 * one byte on the wake pipe releases them all at once.  Two intervals end
 * when the last task is reaped (threads whose counts are read, joined
 * after the clock once all have said they are done: workload/tasks.h):
 * `seconds` (primary) starts at that start
 * barrier, when every task is ready, just before the wake-up, as perf's
 * "Total time" and hackbench's "Time:" do; `total-seconds` starts before
 * the first group is created, so the creation of every socket and task
 * counts too.  perf's tasks are copies of perf, whose page faults and exits
 * cost far more than ours: doc/noisefloor-run.1 says more.
 *
 * Where we differ from perf, on purpose: a failing task (short read, EPIPE,
 * a crash) fails the repetition with a message saying which task and why,
 * and the others are killed (processes) or cancelled (threads) instead of
 * hanging; every task process dies with its parent (PR_SET_PDEATHSIG), so a
 * dying repetition cannot leave one behind. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "workload/tasks.h"
#include "workload/workload.h"

struct msg_cfg {
    long groups, fds, loops, bytes;
    int pipes, threads;
};

static const struct nf_opts msg_opts = {
    .usage = "noisefloor run [OPTIONS] messaging",
    .about = "hackbench (perf bench sched messaging): per group FDS senders and FDS receivers;\n"
             "each sender writes LOOPS messages of BYTES to every receiver of its group.",
    .flags = NF_OPTS_STOP | NF_OPTS_LETTERS | NF_OPTS_SYNOPSIS,
    .options =
        (const struct nf_option[]){
            NF_OPT_INT('g', "group", struct msg_cfg, groups, 1, 10000, "a group count", "GROUPS",
                       "groups", NF_DEF("10")),
            NF_OPT_INT('f', "fds", struct msg_cfg, fds, 1, 1000, "an fd count", "FDS",
                       "senders and receivers per group", NF_DEF("20")),
            NF_OPT_INT('l', "nr_loops", struct msg_cfg, loops, 1, 1000000000L, "a loop count",
                       "LOOPS", "messages per sender and receiver pair", NF_DEF("100")),
            NF_OPT_INT('s', "datasize", struct msg_cfg, bytes, 1, 1 << 20,
                       "a message size in bytes", "BYTES", "message size", NF_DEF("100")),
            NF_OPT_FLAG('p', "pipe", struct msg_cfg, pipes,
                        "pipes instead of socketpair(AF_UNIX, SOCK_STREAM)"),
            NF_OPT_FLAG('t', "thread", struct msg_cfg, threads,
                        "threads of one process instead of processes"),
            NF_OPT_END,
        },
    .footer = "Metrics (lower is better): seconds, from the start barrier (all tasks\n"
              "ready) to the last task reaped, as hackbench's Time: and perf's Total time\n"
              "(primary); total-seconds, from before the groups are created (setup included).",
};

extern const struct nf_workload nf_workload_messaging;

static int msg_parse(int argc, char **argv, void **cfgp, char *err, size_t errlen)
{
    static const struct msg_cfg defaults = {0}; /* the table's */
    if (nf_workload_parse_opts(&nf_workload_messaging, &defaults, sizeof(defaults), argc, argv,
                               cfgp, err, errlen))
        return -1;
    struct msg_cfg *cfg = *cfgp;
    if (cfg->groups * cfg->fds > 100000) {
        snprintf(err, errlen, "messaging: %ld groups of %ld fds is more than 200000 tasks",
                 cfg->groups, cfg->fds);
        free(cfg);
        *cfgp = NULL;
        return -1;
    }
    return 0;
}

static size_t msg_metrics(const void *cfg, struct nf_metric_decl *out)
{
    (void)cfg;
    out[0] = (struct nf_metric_decl){"seconds", "seconds", NF_BETTER_LOWER, 1};
    out[1] = (struct nf_metric_decl){"total-seconds", "seconds", NF_BETTER_LOWER, 0};
    return 2;
}

/* ---- the tasks ---------------------------------------------------------- */

struct ctx { /* what every task shares */
    const struct msg_cfg *cfg;
    int ready_out, wake_in;
    int err_out;          /* processes: failure messages, one write each */
    pthread_mutex_t lock; /* threads: the first failure and the finish count */
    pthread_cond_t cond;
    int finished, failed;
    long total;       /* threads: how many the parent waits for */
    atomic_int abort; /* threads: leave at once (set before a wake-up) */
    char msg[300];
    /* threads, when their counts are read (workload/tasks.h): each waits
     * on gate, once finished, until released, so that it is still there
     * to read after the clock has stopped */
    int hold, released;
    pthread_cond_t gate;
};

struct task {
    struct ctx *x;
    int sender;
    long group, index;
    const int *fds; /* sender: the group's write ends (never changed while
                       tasks run); receiver: its [read, write] pair */
    int rfd;        /* receiver: its read end, copied before the start */
    char *buf;      /* BYTES, allocated before the start */
    pid_t pid;      /* 0 once reaped */
    pthread_t th;
    pid_t tid; /* a thread whose counts are read: its id */
};

static int task_fail(struct task *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int task_fail(struct task *t, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    char line[300];
    int n = snprintf(line, sizeof(line), "messaging: %s %ld of group %ld: %s",
                     t->sender ? "sender" : "receiver", t->index, t->group, what);
    if (n >= (int)sizeof(line))
        n = sizeof(line) - 1;
    struct ctx *x = t->x;
    if (x->cfg->threads) {
        pthread_mutex_lock(&x->lock);
        if (!x->failed) {
            x->failed = 1;
            memcpy(x->msg, line, (size_t)n + 1);
        }
        pthread_mutex_unlock(&x->lock);
    } else if (write(x->err_out, line, (size_t)n) < 0) {
        /* nothing more to say: the exit status still fails the repetition */
    }
    return -1;
}

/* Tell the parent we are ready, then wait for the start (perf's ready()). */
static int ready(struct task *t)
{
    char dummy = 0;
    struct pollfd p = {t->x->wake_in, POLLIN, 0};
    if (write(t->x->ready_out, &dummy, 1) != 1)
        return task_fail(t, "ready write: %s", strerror(errno));
    while (poll(&p, 1, -1) != 1)
        if (errno != EINTR)
            return task_fail(t, "poll: %s", strerror(errno));
    return atomic_load(&t->x->abort) ? -1 : 0; /* threads: setup failed */
}

static int sender(struct task *t, char *data)
{
    const struct msg_cfg *cfg = t->x->cfg;
    size_t size = (size_t)cfg->bytes;
    if (ready(t))
        return -1;
    for (long i = 0; i < cfg->loops; i++)
        for (long j = 0; j < cfg->fds; j++) {
            size_t done = 0;
            while (done < size) {
                ssize_t r = write(t->fds[j], data + done, size - done);
                if (r < 0 && errno == EINTR)
                    continue;
                if (r <= 0)
                    return task_fail(t, "write to receiver %ld: %s", j,
                                     r < 0 ? strerror(errno) : "wrote nothing");
                done += (size_t)r;
            }
        }
    return 0;
}

static int receiver(struct task *t, char *data)
{
    const struct msg_cfg *cfg = t->x->cfg;
    size_t size = (size_t)cfg->bytes;
    long packets = cfg->fds * cfg->loops;
    if (ready(t))
        return -1;
    for (long i = 0; i < packets; i++) {
        size_t done = 0;
        while (done < size) {
            ssize_t r = read(t->rfd, data + done, size - done);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                return task_fail(t, "read: %s", strerror(errno));
            if (r == 0)
                return task_fail(t, "short read: end of file after %ld of %ld messages", i,
                                 packets);
            done += (size_t)r;
        }
    }
    return 0;
}

static int task_work(struct task *t)
{
    return t->sender ? sender(t, t->buf) : receiver(t, t->buf);
}

static void *thread_main(void *arg)
{
    struct task *t = arg;
    struct ctx *x = t->x;
    if (x->hold)
        t->tid = nf_wl_gettid();
    task_work(t);
    pthread_mutex_lock(&x->lock);
    /* Wake the parent once, when it has something to do: perf's parent
     * sleeps in pthread_join, not woken by every thread that ends. */
    if (++x->finished == x->total || x->failed)
        pthread_cond_signal(&x->cond);
    while (x->hold && !x->released)
        pthread_cond_wait(&x->gate, &x->lock);
    pthread_mutex_unlock(&x->lock);
    return NULL;
}

static int start_task(struct task *t, pid_t parent)
{
    if (t->x->cfg->threads) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 64 * 1024); /* perf: PTHREAD_STACK_MIN */
        int e = pthread_create(&t->th, &attr, thread_main, t);
        pthread_attr_destroy(&attr);
        errno = e;
        return e ? -1 : 0;
    }
    t->pid = fork();
    if (t->pid < 0)
        return -1;
    if (t->pid == 0) {
        /* Die with the repetition: a task must never outlive it, nor keep
         * the runner's result pipe (inherited through fork) open. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        if (!t->sender)
            close(t->fds[1]); /* perf's receiver drops its write end too */
        _exit(task_work(t) ? 1 : 0);
    }
    return 0;
}

/* ---- one repetition ----------------------------------------------------- */

struct rep {
    struct ctx x;
    struct task *tasks; /* groups * fds receivers then senders, per group */
    int *fds;           /* per receiver: [read, write] */
    char *bufs;         /* senders' (shared), then receivers' buffers */
    int wake_out;
    long ntasks, nstarted;
};

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* Let the threads held once finished go on to end. */
static void release_threads(struct ctx *x)
{
    pthread_mutex_lock(&x->lock);
    x->released = 1;
    pthread_cond_broadcast(&x->gate);
    pthread_mutex_unlock(&x->lock);
}

/* Stop every task started and reap it.  Processes are killed.  Threads
 * cannot be killed, and pthread_cancel may need to load libgcc_s (no good
 * when the failure was running out of fds), so they are made to return:
 * those still at the start barrier are woken with the abort flag set, and
 * those blocked in a transfer see their sockets shut down, or their pipes
 * lose the other end (end of file, EPIPE). */
static void stop_all(struct rep *r)
{
    if (!r->x.cfg->threads) {
        for (long i = 0; i < r->nstarted; i++)
            if (r->tasks[i].pid > 0)
                kill(r->tasks[i].pid, SIGKILL);
        while (wait(NULL) > 0 || errno == EINTR)
            ;
        return;
    }
    release_threads(&r->x);
    atomic_store(&r->x.abort, 1);
    if (write(r->wake_out, "x", 1) < 0) {
        /* the tasks in transfer are reached below; at the barrier, none if this fails */
    }
    long nfds = 2 * r->x.cfg->groups * r->x.cfg->fds;
    for (int pass = 0; pass < 2; pass++) /* pipes: write ends, then read ends */
        for (long i = 0; i < nfds; i++) {
            if (r->fds[i] < 0)
                continue;
            if (!r->x.cfg->pipes)
                shutdown(r->fds[i], SHUT_RDWR);
            else if ((i & 1) != pass) {
                close(r->fds[i]);
                r->fds[i] = -1;
            }
        }
    for (long i = 0; i < r->nstarted; i++)
        pthread_join(r->tasks[i].th, NULL);
}

/* Processes: reap every task; stop at the first failure.  Returns 0, 1 when
 * a task exited with a failure (it wrote why on the error pipe), -1 when one
 * was killed by a signal. */
static int reap_processes(struct rep *r, char *why, size_t whylen)
{
    for (long left = r->nstarted; left > 0; left--) {
        int st;
        pid_t pid;
        while ((pid = wait(&st)) < 0 && errno == EINTR)
            ;
        if (pid < 0) {
            snprintf(why, whylen, "messaging: wait: %s", strerror(errno));
            return -1;
        }
        struct task *t = NULL;
        for (long i = 0; i < r->nstarted && !t; i++)
            if (r->tasks[i].pid == pid)
                t = &r->tasks[i];
        if (t)
            t->pid = 0;
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
            continue;
        if (WIFSIGNALED(st))
            snprintf(why, whylen,
                     "messaging: %s %ld of group %ld (pid %d) was killed by signal %d (%s)",
                     t && t->sender ? "sender" : "receiver", t ? t->index : -1L, t ? t->group : -1L,
                     (int)pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
        else
            snprintf(why, whylen, "messaging: %s %ld of group %ld (pid %d) failed (exit status %d)",
                     t && t->sender ? "sender" : "receiver", t ? t->index : -1L, t ? t->group : -1L,
                     (int)pid, WEXITSTATUS(st));
        return WIFSIGNALED(st) ? -1 : 1;
    }
    return 0;
}

/* Threads: wait until all finished or one failed; join them unless they
 * are held to be read (then msg_run does, after its clock). */
static int reap_threads(struct rep *r, char *why, size_t whylen)
{
    pthread_mutex_lock(&r->x.lock);
    while (r->x.finished < r->nstarted && !r->x.failed)
        pthread_cond_wait(&r->x.cond, &r->x.lock);
    int failed = r->x.failed;
    if (failed)
        snprintf(why, whylen, "%s", r->x.msg);
    pthread_mutex_unlock(&r->x.lock);
    if (failed)
        return -1;
    for (long i = 0; !r->x.hold && i < r->nstarted; i++)
        pthread_join(r->tasks[i].th, NULL);
    return 0;
}

/* Senders share one buffer they only read; receivers share one in process
 * mode (each process has its own copy) and have their own as threads. */
static char *msg_buf(struct rep *r, long receiver)
{
    size_t slot = receiver < 0 ? 0 : r->x.cfg->threads ? 1 + (size_t)receiver : 1;
    return &r->bufs[slot * (size_t)r->x.cfg->bytes];
}

/* Create one group: FDS receivers (each with its own fd pair), then FDS
 * senders writing to all of them; the parent keeps none of the group's fds
 * in process mode, as perf. */
static int start_group(struct rep *r, long g, int *wfds, char *why, size_t whylen)
{
    const struct msg_cfg *cfg = r->x.cfg;
    pid_t self = getpid();
    for (long i = 0; i < cfg->fds; i++) {
        int *fd = &r->fds[2 * (g * cfg->fds + i)];
        int rc = cfg->pipes ? pipe(fd) : socketpair(AF_UNIX, SOCK_STREAM, 0, fd);
        if (rc) {
            snprintf(why, whylen, "messaging: %s: %s", cfg->pipes ? "pipe" : "socketpair",
                     strerror(errno));
            return -1;
        }
        wfds[i] = fd[1];
    }
    for (long k = 0; k < 2 * cfg->fds; k++) {
        struct task *t = &r->tasks[r->nstarted];
        long i = k % cfg->fds;
        *t = (struct task){.x = &r->x,
                           .sender = k >= cfg->fds,
                           .group = g,
                           .index = i,
                           .fds = k >= cfg->fds ? wfds : &r->fds[2 * (g * cfg->fds + i)],
                           .rfd = r->fds[2 * (g * cfg->fds + i)],
                           .buf = msg_buf(r, k >= cfg->fds ? -1 : g * cfg->fds + i)};
        if (start_task(t, self)) {
            snprintf(why, whylen, "messaging: cannot start task %ld of %ld: %s", r->nstarted + 1,
                     r->ntasks, strerror(errno));
            return -1;
        }
        r->nstarted++;
        if (!t->sender && !cfg->threads)
            close_fd(&r->fds[2 * (g * cfg->fds + i)]); /* read end: the receiver's */
    }
    if (!cfg->threads)
        for (long i = 0; i < cfg->fds; i++)
            close_fd(&r->fds[2 * (g * cfg->fds + i) + 1]); /* write ends: the senders' */
    return 0;
}

static int msg_run(const void *cfgv, double *values, char *err, size_t errlen)
{
    const struct msg_cfg *cfg = cfgv;
    struct rep r;
    memset(&r, 0, sizeof(r));
    r.x.cfg = cfg;
    r.x.ready_out = r.x.wake_in = r.x.err_out = r.wake_out = -1;
    pthread_mutex_init(&r.x.lock, NULL);
    pthread_cond_init(&r.x.cond, NULL);
    pthread_cond_init(&r.x.gate, NULL);
    r.x.hold = cfg->threads && nf_wl_tasks_on();
    r.ntasks = 2 * cfg->groups * cfg->fds;
    r.x.total = r.ntasks;
    long nfds = 2 * cfg->groups * cfg->fds;
    r.tasks = nf_xcalloc((size_t)r.ntasks, sizeof(*r.tasks));
    r.fds = nf_xmalloc((size_t)nfds * sizeof(int));
    size_t nbufs = 1 + (cfg->threads ? (size_t)(cfg->groups * cfg->fds) : 1);
    r.bufs = nf_xmalloc(nbufs * (size_t)cfg->bytes);
    memset(r.bufs, 'S', nbufs * (size_t)cfg->bytes);
    for (long i = 0; i < nfds; i++)
        r.fds[i] = -1;
    int *wfds = nf_xcalloc((size_t)(cfg->groups * cfg->fds), sizeof(int));
    int readyp[2] = {-1, -1}, wakep[2] = {-1, -1}, errp[2] = {-1, -1};
    int rc = -1;
    uint64_t t_setup = 0, t0 = 0, t1 = 0;

    /* A task writing to a dead peer gets EPIPE and says so, not SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    if (cfg->threads) {
        /* One process holds every fd: make room, as far as the hard limit allows. */
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)nfds + 64) {
            rl.rlim_cur = rl.rlim_max;
            setrlimit(RLIMIT_NOFILE, &rl);
        }
    }
    if (pipe(readyp) || pipe(wakep) || pipe2(errp, O_NONBLOCK)) {
        snprintf(err, errlen, "messaging: cannot create pipes: %s", strerror(errno));
        goto out;
    }
    r.x.ready_out = readyp[1];
    r.x.wake_in = wakep[0];
    r.wake_out = wakep[1];
    r.x.err_out = errp[1];
    t_setup = nf_now_ns();
    for (long g = 0; g < cfg->groups; g++)
        if (start_group(&r, g, &wfds[g * cfg->fds], err, errlen)) {
            stop_all(&r);
            goto out;
        }
    /* Wait for everyone to be ready. */
    for (long i = 0; i < r.ntasks; i++) {
        char dummy;
        ssize_t n;
        while ((n = read(readyp[0], &dummy, 1)) < 0 && errno == EINTR)
            ;
        if (n != 1) {
            snprintf(err, errlen, "messaging: reading the ready pipe: %s",
                     n < 0 ? strerror(errno) : "end of file");
            stop_all(&r);
            goto out;
        }
    }
    t0 = nf_now_ns();
    if (write(wakep[1], "g", 1) != 1) {
        snprintf(err, errlen, "messaging: cannot start the tasks: %s", strerror(errno));
        stop_all(&r);
        goto out;
    }
    int failed = cfg->threads ? reap_threads(&r, err, errlen) : reap_processes(&r, err, errlen);
    if (failed) {
        stop_all(&r);
        if (failed == 1) {
            /* A task's own words say more than its exit status. */
            char msg[300];
            ssize_t n = read(errp[0], msg, sizeof(msg) - 1);
            if (n > 0) {
                msg[n] = 0;
                snprintf(err, errlen, "%s", msg);
            }
        }
        goto out;
    }
    t1 = nf_now_ns();
    if (r.x.hold) {
        for (long i = 0; i < r.nstarted; i++)
            nf_wl_tasks_add(getpid(), r.tasks[i].tid);
        release_threads(&r.x);
        for (long i = 0; i < r.nstarted; i++)
            pthread_join(r.tasks[i].th, NULL);
    }
    values[0] = (double)(t1 - t0) / 1e9;
    values[1] = (double)(t1 - t_setup) / 1e9;
    rc = 0;
out:
    for (long i = 0; i < nfds; i++)
        close_fd(&r.fds[i]);
    int *ends[] = {&readyp[0], &readyp[1], &wakep[0], &wakep[1], &errp[0], &errp[1]};
    for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
        close_fd(ends[i]);
    pthread_mutex_destroy(&r.x.lock);
    pthread_cond_destroy(&r.x.cond);
    pthread_cond_destroy(&r.x.gate);
    free(wfds);
    free(r.fds);
    free(r.bufs);
    free(r.tasks);
    return rc;
}

const struct nf_workload nf_workload_messaging = {
    .name = "messaging",
    .summary = "hackbench: groups of senders and receivers (perf bench sched messaging)",
    .opts = &msg_opts,
    .parse = msg_parse,
    .metrics = msg_metrics,
    .run_once = msg_run,
    .free_cfg = free,
};
