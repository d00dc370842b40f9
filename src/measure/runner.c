#include "measure/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
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

/* What a workload child sends back: small enough for one atomic write. */
struct child_result {
    int status;
    int nvalues;
    double values[NF_MAX_METRICS];
    char msg[NF_ERR_LEN];
};

struct wl_child {
    const struct nf_runspec *spec;
    int resfd, ours; /* the result pipe's write end, and our read end */
};

/* In the child, once spawn has pinned it and told it to go. */
static int wl_child_main(void *p)
{
    struct wl_child *a = p;
    close(a->ours);
    struct child_result res;
    memset(&res, 0, sizeof(res));
    struct nf_metric_decl decl[NF_MAX_METRICS];
    res.nvalues = (int)a->spec->wl->metrics(a->spec->cfg, decl);
    res.status = a->spec->wl->run_once(a->spec->cfg, res.values, res.msg, sizeof(res.msg));
    ssize_t w = write(a->resfd, &res, sizeof(res));
    return w == (ssize_t)sizeof(res) && res.status == 0 ? 0 : 1;
}

/* The result pipe is readable: the wait is over. */
static int result_ready(void *ctx, int *fd)
{
    (void)ctx;
    (void)fd;
    return 1;
}

/* The child's result, if it wrote one.  The pipe is readable, or the child
 * exited and its result, if any, is in the pipe by now (the pipe alone is
 * not enough to wait on: a task the workload forked holds a copy of its
 * write end, so a crashed child would show no end of file for as long as
 * that task lives).  0, or -1 when there is none. */
static int read_result(int fd, int readable, struct child_result *res)
{
    struct pollfd q = {fd, POLLIN, 0};
    if (!readable && poll(&q, 1, 0) <= 0)
        return -1;
    ssize_t r;
    while ((r = read(fd, res, sizeof(*res))) < 0 && errno == EINTR)
        ;
    return r == (ssize_t)sizeof(*res) ? 0 : -1;
}

static enum nf_rep_status builtin_rep(const struct nf_runspec *spec, struct nf_run *run, int record,
                                      char *err, size_t errlen)
{
    int resp[2];
    if (pipe2(resp, O_CLOEXEC)) {
        snprintf(err, errlen, "cannot create pipes: %s", strerror(errno));
        return NF_REP_FAILED;
    }
    struct wl_child a = {spec, resp[1], resp[0]};
    struct nf_counters cs = spec->counters;
    struct nf_spawn c = {.fn = wl_child_main,
                         .arg = &a,
                         .name = spec->wl->name,
                         .cpus = spec->pin ? &spec->cpus : NULL,
                         .pin = spec->pin,
                         .counters = &cs,
                         .hook = record ? spec->hook : NULL,
                         .timeout = spec->timeout,
                         .stop = &nf_stop_signal};
    int w = -1;
    if (nf_spawn_start(&c, err, errlen) == 0)
        w = nf_spawn_wait(&c, &resp[0], 1, result_ready, NULL, err, errlen);
    close(resp[1]);
    enum nf_rep_status rc = NF_REP_FAILED;
    struct child_result res;
    int died = 0;
    if (w == NF_SPAWN_STOPPED) {
        rc = NF_REP_STOPPED;
    } else if (w == NF_SPAWN_TIMEOUT) {
        snprintf(err, errlen, "repetition exceeded --timeout %gs; killed", spec->timeout);
    } else if (w == NF_SPAWN_WOKEN || w == NF_SPAWN_EXITED) {
        if (read_result(resp[0], w == NF_SPAWN_WOKEN, &res))
            died = 1; /* said once the child is reaped, with its status */
        else if (res.status != 0)
            snprintf(err, errlen, "%s", res.msg[0] ? res.msg : "the workload failed");
        else
            rc = NF_REP_OK;
    }
    nf_spawn_end(&c, rc != NF_REP_OK);
    if (died && WIFSIGNALED(c.status))
        snprintf(err, errlen, "%s: the workload was killed by signal %d (%s)", spec->wl->name,
                 WTERMSIG(c.status), strsignal(WTERMSIG(c.status)));
    else if (died)
        snprintf(err, errlen, "%s: the workload died without a result (exit status %d)",
                 spec->wl->name, WEXITSTATUS(c.status));
    nf_spawn_release(&c, rc == NF_REP_OK);
    nf_counters_disable(&cs);
    nf_counters_read_close(&cs);
    close(resp[0]);
    if (rc == NF_REP_OK && record) {
        for (int i = 0; i < res.nvalues && i < (int)run->nmetrics; i++)
            nf_metric_push(&run->metrics[i], res.values[i], 100.0);
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
    if (spec->wl)
        return builtin_rep(spec, run, record, err, errlen);
    return nf_runner_cmd_rep(spec, run, record, err, errlen);
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
