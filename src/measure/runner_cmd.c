/* Running a command: one child per repetition (two with --interleave, see
 * measure/runner.h), never through a shell (measure/spawn.h starts, waits
 * and stops it, and everything it started; measure/capture.h keeps its
 * output and takes the --metric numbers).  The counters, if any, are
 * opened on it with enable_on_exec, so they count from the exec on; not
 * when its exec would stop them (a set-user-ID command, measure/counters.h),
 * and after each counted repetition the counters are checked against its
 * CPU time for an exec that stopped them all the same: then they are
 * <not counted> for the whole run, never a value.  Its output is read once
 * nothing of it is left, so no process that outlived it can still be
 * writing. */
#include "measure/runner_cmd.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "core/util.h"
#include "measure/runner.h"
#include "measure/rusage.h"
#include "measure/spawn.h"
#include "measure/spawn_path.h"

void nf_runner_cmd_declare(const struct nf_runspec *spec, struct nf_run *run)
{
    (void)spec;
    nf_run_metric(run, "wall", "seconds", NF_BETTER_LOWER, 1);
}

void nf_runner_cmd_declare_captures(const struct nf_runspec *spec, struct nf_run *run)
{
    /* The first --metric is what the command reports of itself, and so
     * its primary metric unless --primary names another (wall, or another
     * --metric; doc/noisefloor-run.1). */
    const char *primary = spec->primary     ? spec->primary
                          : spec->ncaptures ? spec->captures[0].name
                                            : "wall";
    for (int i = 0; i < spec->ncaptures; i++)
        nf_run_metric(run, spec->captures[i].name, spec->unit ? spec->unit : "", spec->better,
                      strcmp(spec->captures[i].name, primary) == 0);
    struct nf_metric *wall = nf_run_find(run, "wall");
    if (wall)
        wall->primary = strcmp(primary, "wall") == 0;
}

/* Why a command that ran did not give a repetition: its end, or a --metric
 * that found nothing.  0 when it did. */
static int judge(const struct nf_runspec *spec, const struct nf_spawn *c, int w,
                 struct nf_output *o, double *captured, char *err, size_t errlen)
{
    const char *name = spec->cmd[0];
    if (w == NF_SPAWN_TIMEOUT) {
        snprintf(err, errlen, "'%s' exceeded --timeout %gs; it and all it started were killed",
                 name, spec->timeout);
    } else if (WIFSIGNALED(c->status)) {
        snprintf(err, errlen, "'%s' was killed by signal %d (%s)", name, WTERMSIG(c->status),
                 strsignal(WTERMSIG(c->status)));
    } else if (WEXITSTATUS(c->status) != 0) {
        snprintf(err, errlen, "'%s' exited with status %d", name, WEXITSTATUS(c->status));
    } else {
        return nf_output_captures(o, spec->captures, spec->ncaptures, name, captured, err, errlen);
    }
    nf_output_tail(o, 0, err, errlen);
    return -1;
}

/* One run of the command: its wall time in *wall, rusage in *ru, the
 * --metric numbers in captured, the counters of cs (NULL: none) read and
 * closed, the hook (or NULL) attached. */
static enum nf_rep_status cmd_once(const struct nf_runspec *spec, struct nf_output *o,
                                   struct nf_counters *cs, const struct nf_rep_hook *hook,
                                   double *wall, struct rusage *ru, double *captured,
                                   struct nf_rep_sys *sys, char *err, size_t errlen)
{
    struct nf_spawn c = {
        .argv = spec->cmd, .out = o->out >= 0 ? o->out : o->null, .err = o->err, .null = &o->null};
    int w = nf_rep_spawn(&c, spec, cs, hook, sys, err, errlen);
    nf_spawn_end(&c, w != NF_SPAWN_EXITED);
    if (sys)
        nf_rep_sys_end(sys);
    nf_output_collect(o);
    enum nf_rep_status rc = NF_REP_FAILED;
    if (w == NF_SPAWN_STOPPED)
        rc = NF_REP_STOPPED;
    else if ((w == NF_SPAWN_EXITED || w == NF_SPAWN_TIMEOUT) &&
             judge(spec, &c, w, o, captured, err, errlen) == 0)
        rc = NF_REP_OK;
    nf_spawn_release(&c, rc == NF_REP_OK);
    if (cs) {
        nf_counters_disable(cs);
        nf_counters_read_close(cs);
    }
    *wall = (double)(c.t_end - c.t_start) / 1e9;
    *ru = c.ru;
    return rc;
}

/* From now on the run's counters are <not counted>, for this reason. */
static void uncounted(struct nf_rep_keep *k, const char *why)
{
    k->uncounted = nf_xstrdup(why);
    nf_warn("counters <not counted>, stored without values: %s", why);
}

/* Before the first repetition: does the command's exec stop counters? */
static void check_exec(const struct nf_runspec *spec, struct nf_rep_keep *k)
{
    char path[PATH_MAX], why[PATH_MAX + 128];
    k->exec_checked = 1;
    if (nf_spawn_resolve(spec->cmd[0], path, sizeof(path)) == 0 &&
        nf_counters_exec_stops(path, why, sizeof(why))) {
        size_t n = strlen(why);
        snprintf(why + n, sizeof(why) - n, ": the kernel stops a counter at its exec");
        uncounted(k, why);
    }
}

/* After a counted repetition (its rusage ru): did an exec stop the
 * counters?  0, or -1 with err when they counted in the recorded
 * repetitions before, whose values are stored. */
static int check_counted(const struct nf_runspec *spec, struct nf_rep_keep *k,
                         struct nf_counters *cs, const struct rusage *ru, int record, char *err,
                         size_t errlen)
{
    double cpu_ms = (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e3 +
                    (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e3;
    double enabled = 0;
    for (size_t i = 0; i < cs->n; i++)
        if (cs->c[i].state == NF_CTR_OK)
            enabled = cs->c[i].enabled_ms;
    if (nf_counters_mark_stopped(cs, cpu_ms) == 0) {
        k->counted |= record;
        return 0;
    }
    char why[512];
    snprintf(why, sizeof(why),
             "'%s': counting stopped at an exec (enabled %.3g ms of the %.3g ms of CPU time): "
             "a set-user-ID, unreadable or otherwise privileged program it ran",
             spec->cmd[0], enabled, cpu_ms);
    if (k->counted) {
        snprintf(err, errlen, "%s, in this repetition and not in those before", why);
        return -1;
    }
    nf_counters_mark_not_counted(cs);
    uncounted(k, why);
    return 0;
}

enum nf_rep_status nf_runner_cmd_rep(const struct nf_runspec *spec, struct nf_output *out,
                                     int *out_open, struct nf_run *run, int record, char *err,
                                     size_t errlen)
{
    if (!*out_open) {
        if (nf_output_open(out, spec->ncaptures > 0, err, errlen))
            return NF_REP_FAILED;
        *out_open = 1;
    }
    struct nf_counters cs = spec->counters;
    struct nf_rep_keep *k = spec->keep;
    if (cs.n > 0 && k && !k->exec_checked)
        check_exec(spec, k);
    /* Counters to open, or none when the exec would stop them. */
    struct nf_counters *ccs = cs.n > 0 && !(k && k->uncounted) ? &cs : NULL;
    if (cs.n > 0 && !ccs)
        nf_counters_mark_not_counted(&cs);
    const struct nf_rep_hook *hook = record ? spec->hook : NULL;
    double captured[NF_MAX_CAPTURES] = {0}, wall;
    struct rusage ru, cru;
    struct nf_rep_sys sys;
    enum nf_rep_status rc;
    nf_rep_sys_begin(spec, record, &sys);
    if (!nf_runner_interleaved(spec) || !ccs) {
        rc = cmd_once(spec, out, ccs, hook, &wall, &ru, captured, &sys, err, errlen);
        cru = ru;
    } else {
        /* Uncounted, then counted (with the hook); the second gives only
         * its counters, but must succeed as the first did. */
        rc = cmd_once(spec, out, NULL, NULL, &wall, &ru, captured, &sys, err, errlen);
        double cwall, ccaptured[NF_MAX_CAPTURES];
        if (rc == NF_REP_OK && nf_stop_signal)
            rc = NF_REP_STOPPED;
        if (rc == NF_REP_OK)
            rc = cmd_once(spec, out, ccs, hook, &cwall, &cru, ccaptured, NULL, err, errlen);
    }
    if (rc == NF_REP_OK && ccs && k && check_counted(spec, k, &cs, &cru, record, err, errlen))
        rc = NF_REP_FAILED;
    if (rc == NF_REP_OK && record) {
        nf_metric_push(nf_run_find(run, "wall"), wall, 100.0);
        nf_rusage_record(run, &ru);
        nf_runner_record_counters(&cs, run);
        for (int i = 0; i < spec->ncaptures; i++)
            nf_metric_push(nf_run_find(run, spec->captures[i].name), captured[i], 100.0);
        nf_rep_sys_record(&sys, run, &ru);
    }
    return rc;
}
