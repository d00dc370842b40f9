/* Whether the variants of a session can be measured and compared, known
 * from their specs before anything runs (nf_variants_check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/util.h"
#include "measure/runner.h"
#include "measure/variant.h"

/* The run options a variant does not keep, because ab decides them for
 * every variant alike: a user who wrote one into a SPEC expects it to
 * matter, so it is refused rather than dropped.  (--pin, -e, --interleave,
 * --timeout, --sysctl, --metric, --better, --unit, --source and --root hold
 * for the variant's own repetitions.)  The first such option given, with
 * what to use instead; NULL when there is none. */
static const char *decided_by_session(const struct nf_runspec *spec, const char **instead)
{
    if (spec->repeat_given) {
        *instead = "ab decides repetitions: --rounds";
        return "-r/--repeat";
    }
    if (spec->warmup_given) {
        *instead = "ab runs one warm-up round";
        return "--warmup";
    }
    if (spec->label) {
        *instead = "the label is the NAME of NAME=SPEC";
        return "-L/--label";
    }
    if (spec->json) {
        *instead = "ab --json prints the session";
        return "--json";
    }
    *instead = NULL;
    return NULL;
}

/* "usecs/op, ops/sec, ..." : the metrics a declared run has. */
static void metric_list(const struct nf_run *run, char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    for (size_t k = 0; k < run->nmetrics && n + 64 < len; k++)
        n += (size_t)snprintf(out + n, len - n, "%s%s", k ? ", " : "", run->metrics[k].name);
}

/* Whether x's primary metric is one y measures; 0 with one line in err
 * when not.  Without -m, a session is decided on the primary metric (the one
 * the baseline declares); a variant lacking it, or whose own primary the
 * baseline lacks, leaves the deciding row with no data on one side, never
 * decided. */
static int primary_shared(struct nf_run *x, struct nf_run *y, char *err, size_t errlen)
{
    const struct nf_metric *p = nf_run_primary(x);
    if (!p || nf_run_find(y, p->name))
        return 1;
    snprintf(err, errlen,
             "nothing to compare: the primary metric of '%s' (%s) is not measured by '%s'; "
             "give -m METRIC",
             x->label, p->name, y->label);
    return 0;
}

/* Whether the metrics of one name are declared alike (--better, --unit)
 * by every variant: a comparison's row takes its direction and unit from
 * the first run it meets, so the same data would get opposite verdicts
 * depending on the order of the variants.  0, or 1 with one line in err. */
static int declared_alike(struct nf_run **runs, size_t n, char *err, size_t errlen)
{
    for (size_t i = 1; i < n; i++)
        for (size_t k = 0; k < runs[i]->nmetrics; k++) {
            const struct nf_metric *m = &runs[i]->metrics[k];
            for (size_t j = 0; j < i; j++) {
                const struct nf_metric *o = nf_run_find(runs[j], m->name);
                if (!o)
                    continue;
                if (o->better != m->better) {
                    snprintf(err, errlen,
                             "variants '%s' and '%s' declare metric '%s' with different "
                             "--better (%s, %s)",
                             runs[j]->label, runs[i]->label, m->name, nf_better_name(o->better),
                             nf_better_name(m->better));
                    return 1;
                }
                if (strcmp(o->unit, m->unit) != 0) {
                    snprintf(err, errlen,
                             "variants '%s' and '%s' declare metric '%s' with different "
                             "--unit ('%s', '%s')",
                             runs[j]->label, runs[i]->label, m->name, o->unit, m->unit);
                    return 1;
                }
            }
        }
    return 0;
}

/* Whether every variant can be compared with the baseline at all, known
 * before anything runs from what each variant's run will declare (the
 * measured metrics are those declared; some may come out <not supported>,
 * which only the rounds show): a variant is compared on the rows of a
 * workload both run, so it needs the baseline's workload and, with -m,
 * the metric on both sides.  A variant that could not be compared could
 * not be decided either (the stop rule would wait for it until MAX), so
 * the session is refused: 0, or -1 with one line in err. */
static int check_comparable(const struct nf_variant *var, size_t nv, const char *metric, char *err,
                            size_t errlen)
{
    struct nf_run **runs = nf_xcalloc(nv, sizeof(*runs));
    int found = 0;
    for (size_t i = 0; i < nv; i++) {
        const struct nf_runspec *spec = &var[i].spec;
        runs[i] = nf_run_new(var[i].name, spec->wl ? spec->wl->name : "command");
        nf_runner_declare(spec, runs[i]);
        found = found || (metric && nf_run_find(runs[i], metric) != NULL);
    }
    char have[512];
    int rc = -1;
    struct nf_run *base = runs[0];
    if (metric && !found) {
        metric_list(base, have, sizeof(have));
        snprintf(err, errlen,
                 "nothing to compare: -m: no metric '%s' in these variants (%s has: %s)", metric,
                 var[0].name, have);
        goto out;
    }
    if (metric && !nf_run_find(base, metric)) {
        metric_list(base, have, sizeof(have));
        snprintf(err, errlen,
                 "nothing to compare: -m: the baseline '%s' has no metric '%s' (it has: %s)",
                 base->label, metric, have);
        goto out;
    }
    for (size_t i = 1; i < nv; i++) {
        struct nf_run *v = runs[i];
        if (strcmp(v->workload, base->workload) != 0) {
            snprintf(err, errlen,
                     "nothing to compare: variant '%s' runs workload '%s' and the baseline "
                     "'%s' runs '%s': they have no workload and metric in common",
                     v->label, v->workload, base->label, base->workload);
            goto out;
        }
        if (metric && !nf_run_find(v, metric)) {
            metric_list(v, have, sizeof(have));
            snprintf(err, errlen,
                     "nothing to compare: -m: variant '%s' has no metric '%s' (it has: %s)",
                     v->label, metric, have);
            goto out;
        }
        if (!metric &&
            (!primary_shared(v, base, err, errlen) || !primary_shared(base, v, err, errlen)))
            goto out;
    }
    if (declared_alike(runs, nv, err, errlen))
        goto out;
    rc = 0;
out:
    for (size_t i = 0; i < nv; i++)
        nf_run_free(runs[i]);
    free(runs);
    return rc;
}

int nf_variants_check(const struct nf_variant *v, size_t n, const char *metric, char *err,
                      size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        const char *instead, *opt = decided_by_session(&v[i].spec, &instead);
        if (opt) {
            snprintf(err, errlen, "variant '%s': %s does not apply inside a SPEC (%s)", v[i].name,
                     opt, instead);
            return -1;
        }
    }
    return check_comparable(v, n, metric, err, errlen);
}
