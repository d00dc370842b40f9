#include "measure/runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "measure/runner_cmd.h"
#include "measure/rusage.h"
#include "measure/spawn.h"

void nf_runner_declare(const struct nf_runspec *spec, struct nf_run *run)
{
    if (spec->wl) {
        struct nf_metric_decl decl[NF_MAX_METRICS];
        size_t n = spec->wl->metrics(spec->cfg, decl);
        for (size_t i = 0; i < n; i++)
            nf_run_metric(run, decl[i].name, decl[i].unit, decl[i].better, decl[i].primary);
    } else {
        nf_runner_cmd_declare(spec, run);
    }
    nf_rusage_declare(run);
    for (size_t i = 0; i < spec->counters.n; i++)
        nf_run_metric(run, spec->counters.c[i].name, spec->counters.c[i].unit, NF_BETTER_LOWER, 0);
    if (!spec->wl)
        nf_runner_cmd_declare_captures(spec, run);
}

/* What a workload child leaves in the page it shares with us: written
 * before it exits, read once it has been reaped. */
struct child_result {
    int done; /* set last: the rest is whole */
    int status;
    int nvalues;
    double values[NF_MAX_METRICS];
    char msg[NF_ERR_LEN];
};

struct nf_rep_keep *nf_rep_keep_new(void)
{
    struct nf_rep_keep *k = nf_xcalloc(1, sizeof(*k));
    k->out.null = k->out.out = k->out.err = -1;
    return k;
}

void nf_rep_keep_free(struct nf_rep_keep *k)
{
    if (!k)
        return;
    if (k->out_open)
        nf_output_close(&k->out);
    if (k->result)
        munmap(k->result, sizeof(struct child_result));
    free(k);
}

/* In the child, once spawn has pinned it and told it to go. */
static int wl_child_main(void *p)
{
    const struct nf_runspec *spec = p;
    struct child_result *res = spec->keep->result;
    struct nf_metric_decl decl[NF_MAX_METRICS];
    res->nvalues = (int)spec->wl->metrics(spec->cfg, decl);
    res->status = spec->wl->run_once(spec->cfg, res->values, res->msg, sizeof(res->msg));
    __atomic_store_n(&res->done, 1, __ATOMIC_RELEASE);
    return res->status == 0 ? 0 : 1;
}

static enum nf_rep_status builtin_rep(const struct nf_runspec *spec, struct nf_run *run, int record,
                                      char *err, size_t errlen)
{
    struct child_result *res = spec->keep->result;
    if (!res) {
        res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (res == MAP_FAILED) {
            snprintf(err, errlen, "cannot map a page: %s", strerror(errno));
            return NF_REP_FAILED;
        }
        spec->keep->result = res;
    }
    res->done = 0;
    struct nf_counters cs = spec->counters;
    struct nf_spawn c = {.fn = wl_child_main,
                         .arg = (void *)spec,
                         .name = spec->wl->name,
                         .cpus = spec->pin ? &spec->cpus : NULL,
                         .pin = spec->pin,
                         .counters = &cs,
                         .hook = record ? spec->hook : NULL,
                         .timeout = spec->timeout,
                         .stop = &nf_stop_signal};
    int w = -1;
    if (nf_spawn_start(&c, err, errlen) == 0)
        w = nf_spawn_wait(&c, NULL, 0, NULL, NULL, err, errlen);
    nf_spawn_end(&c, w != NF_SPAWN_EXITED);
    enum nf_rep_status rc = NF_REP_FAILED;
    int done = __atomic_load_n(&res->done, __ATOMIC_ACQUIRE);
    if (w == NF_SPAWN_STOPPED) {
        rc = NF_REP_STOPPED;
    } else if (w == NF_SPAWN_TIMEOUT) {
        snprintf(err, errlen, "repetition exceeded --timeout %gs; killed", spec->timeout);
    } else if (w == NF_SPAWN_EXITED && done && res->status != 0) {
        res->msg[sizeof(res->msg) - 1] = 0;
        snprintf(err, errlen, "%s", res->msg[0] ? res->msg : "the workload failed");
    } else if (w == NF_SPAWN_EXITED && done) {
        rc = NF_REP_OK;
    } else if (w == NF_SPAWN_EXITED && WIFSIGNALED(c.status)) {
        snprintf(err, errlen, "%s: the workload was killed by signal %d (%s)", spec->wl->name,
                 WTERMSIG(c.status), strsignal(WTERMSIG(c.status)));
    } else if (w == NF_SPAWN_EXITED) {
        snprintf(err, errlen, "%s: the workload died without a result (exit status %d)",
                 spec->wl->name, WEXITSTATUS(c.status));
    }
    nf_spawn_release(&c, rc == NF_REP_OK);
    nf_counters_disable(&cs);
    nf_counters_read_close(&cs);
    if (rc == NF_REP_OK && record) {
        for (int i = 0; i < res->nvalues && i < (int)run->nmetrics; i++)
            nf_metric_push(&run->metrics[i], res->values[i], 100.0);
        nf_rusage_record(run, &c.ru);
        nf_runner_record_counters(&cs, run);
    }
    return rc;
}

enum nf_rep_status nf_runner_rep(const struct nf_runspec *spec, struct nf_run *run, int record,
                                 char *err, size_t errlen)
{
    if (nf_stop_signal)
        return NF_REP_STOPPED;
    if (spec->keep) {
        if (spec->wl)
            return builtin_rep(spec, run, record, err, errlen);
        return nf_runner_cmd_rep(spec, run, record, err, errlen);
    }
    /* A spec made by hand, without nf_runspec_parse: a keep of its own. */
    struct nf_runspec own = *spec;
    own.keep = nf_rep_keep_new();
    enum nf_rep_status rc = nf_runner_rep(&own, run, record, err, errlen);
    nf_rep_keep_free(own.keep);
    return rc;
}

void nf_runner_report_counters(const struct nf_runspec *spec, const struct nf_run *run)
{
    struct nf_counters cs = spec->counters;
    /* Probe once on ourselves to learn why a counter is missing. */
    nf_counters_open(&cs, 0, 0);
    int denied = 0;
    for (size_t i = 0; i < cs.n; i++)
        if (cs.c[i].state == NF_CTR_DENIED)
            denied = 1;
    nf_counters_close(&cs);
    if (denied)
        nf_warn("some counters were not permitted (EACCES): lower "
                "/proc/sys/kernel/perf_event_paranoid (e.g. sysctl kernel.perf_event_paranoid=1) "
                "or run as root");
    for (size_t i = 0; i < run->nmetrics; i++) {
        const struct nf_metric *m = &run->metrics[i];
        double lo = nf_metric_min_running(m);
        if (lo < 100.0)
            nf_warn("%s was multiplexed (counted %.2f%% of the time at worst) and scaled; "
                    "count fewer events for exact numbers",
                    m->name, lo);
    }
}
