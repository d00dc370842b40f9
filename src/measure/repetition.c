/* What every kind of repetition shares: its outcome, the stop signal, and
 * how a repetition's counter values join the run. */
#include "measure/repetition.h"

#include <string.h>

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
