/* What every kind of repetition shares: its outcome, the stop signal, how
 * a repetition's counter values join the run, the machine's readings, and
 * how its child is started and waited for. */
#include "measure/repetition.h"

#include <string.h>
#include <time.h>

#include "measure/progress.h"
#include "measure/runner.h"
#include "measure/spawn.h"

volatile sig_atomic_t nf_stop_signal;

/* The flag, and the running child killed: a wait that began just before
 * the flag was set still ends now. */
static void on_stop(int sig)
{
    nf_stop_signal = sig;
    nf_spawn_interrupt();
}

void nf_runner_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop; /* no SA_RESTART: a blocking wait returns EINTR */
    sigemptyset(&sa.sa_mask);
    /* Every signal whose default action ends the process, short of the
     * faults of our own code (SIGSEGV, SIGBUS, ...) and SIGKILL: it stops
     * the run and restores --sysctl like SIGINT.  SIGHUP: the terminal went
     * (an ssh disconnect); SIGQUIT: ^\; SIGPIPE: a reader of ours went. */
    static const int sigs[] = {SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2,
                               SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGIO,   SIGPWR,  SIGSTKFLT};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
}

void nf_runner_record_counters(struct nf_counters *cs, struct nf_run *run)
{
    for (size_t i = 0; i < cs->n; i++) {
        struct nf_counter *c = &cs->c[i];
        struct nf_metric *m = nf_run_find(run, c->name);
        if (!m)
            continue;
        if (c->state == NF_CTR_OK && m->supported)
            nf_metric_push(m, c->value, c->running_pct);
        else if (m->n == 0)
            m->supported = 0; /* "<not supported>": stored as such, never 0 */
    }
}

int nf_runner_interleaved(const struct nf_runspec *spec)
{
    return spec->interleave && spec->counters.n > 0;
}

/* Repetitions begun in this process: a reading taken at the end of one
 * is the reading at the start of the next only when no other began
 * between them (another variant's, a warm-up). */
static unsigned long rep_begun;

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void nf_rep_sys_begin(const struct nf_runspec *spec, int record, struct nf_rep_sys *r)
{
    memset(r, 0, sizeof(*r));
    unsigned long prev = rep_begun++;
    if (!record || spec->no_sysstat || !spec->keep)
        return;
    struct nf_rep_keep *k = spec->keep;
    if (!k->sys)
        k->sys = nf_sys_new(spec->sysfs_root, spec->pin ? &spec->cpus : NULL);
    r->sys = k->sys;
    r->root = spec->sysfs_root;
    r->keep = k;
    /* Once per boundary: the last repetition's end, when this one starts
     * right after it (the harness's bookkeeping between them is all that
     * the reading then also counts).  Not with --interleave, whose counted
     * half ran after that reading. */
    if (k->sys_end_ns && k->sys_end_seq == prev && !nf_runner_interleaved(spec) &&
        mono_ns() - k->sys_end_ns < NF_REP_SYS_AGAIN_NS)
        nf_sys_again(r->sys);
    else
        nf_sys_read(r->sys, 0);
    r->seq = prev + 1;
}

void nf_rep_sys_task(void *ctx, pid_t pid)
{
    struct nf_rep_sys *r = ctx;
    nf_sys_task_read(r->root, pid, &r->task);
}

void nf_rep_sys_end(struct nf_rep_sys *r)
{
    if (!r->sys)
        return;
    nf_sys_read(r->sys, 1);
    nf_sys_delta(r->sys, &r->d);
    r->keep->sys_end_seq = r->seq;
    r->keep->sys_end_ns = mono_ns();
}

void nf_rep_sys_record(const struct nf_rep_sys *r, struct nf_run *run, const struct rusage *ru)
{
    if (!r->sys)
        return;
    double own = (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e3 +
                 (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e3;
    nf_sys_record(r->sys, run, &r->d, &r->task, own);
}

int nf_rep_spawn(struct nf_spawn *c, const struct nf_runspec *spec, struct nf_counters *cs,
                 const struct nf_rep_hook *hook, struct nf_rep_sys *sys, char *err, size_t errlen)
{
    c->cpus = spec->pin ? &spec->cpus : NULL;
    c->pin = spec->pin;
    c->counters = cs;
    c->hook = hook;
    c->timeout = spec->timeout;
    c->tick = nf_progress_tick_interval();
    c->stop = &nf_stop_signal;
    c->before_reap = sys && sys->sys ? nf_rep_sys_task : NULL;
    c->reap_ctx = sys;
    int w = -1;
    if (nf_spawn_start(c, err, errlen) == 0)
        /* The progress line's clock moves while a long one runs (the
         * parent redraws it between waits; the child is not touched). */
        while ((w = nf_spawn_wait(c, NULL, 0, NULL, NULL, err, errlen)) == NF_SPAWN_TICK)
            nf_progress_tick();
    return w;
}
