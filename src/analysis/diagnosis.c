/* The noise diagnosis of a label's samples, the robust advice of an
 * inconclusive row, and the shift function and cluster comparison a
 * rendered comparison shows (analysis/diagnosis.h). */
#include "analysis/diagnosis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/pairing.h"
#include "core/util.h"

/* ------------------------------------------------------------ the hints */

enum nf_diag_workload nf_diag_workload_of(const char *workload)
{
    if (strcmp(workload, "pipe") == 0)
        return NF_DIAG_PINGPONG;
    if (strcmp(workload, "messaging") == 0 || strcmp(workload, "wakeup") == 0)
        return NF_DIAG_SPREAD;
    return strcmp(workload, "command") == 0 ? NF_DIAG_COMMAND : NF_DIAG_GENERIC;
}

int nf_diag_matters(const char *metric, enum nf_diag_kind kind)
{
    size_t n = strlen(metric), k = strlen("page-faults");
    if (kind == NF_DIAG_WARMUP && strcmp(metric, "max-rss") == 0)
        return 0;
    if (kind == NF_DIAG_CLUSTERS && n >= k && strcmp(metric + n - k, "page-faults") == 0)
        return 0;
    return 1;
}

/* Was the run pinned (--pin, kept in its environment)?  0: no; 1: yes;
 * NF_DIAG_PINNED_ONE: to one CPU ("3", not "0,1" or "0-3"). */
static int pinned(const struct nf_run *run)
{
    const json_t *p = run->env ? json_object_get(run->env, "pin") : NULL;
    const char *s = json_is_string(p) ? json_string_value(p) : "";
    if (!*s)
        return 0;
    return strspn(s, "0123456789") == strlen(s) ? NF_DIAG_PINNED_ONE : 1;
}

/* Is the run a variant of an ab session (its design stored with it)? */
static int of_ab(const struct nf_run *run)
{
    struct nf_ab_design d;
    return run->session && nf_ab_design_of(run, &d) == 0;
}

/* Is the run a variant of an ab session that ran in interleaved rounds
 * (its design stored with it, order not sequential)? */
static int interleaved(const struct nf_run *run)
{
    struct nf_ab_design d;
    return run->session && nf_ab_design_of(run, &d) == 0 && strcmp(d.order, "sequential") != 0;
}

int nf_metric_runs_differ(const struct nf_metric *const *ms, size_t k, int rate, double alpha,
                          double *p)
{
    if (k < 2)
        return -1;
    size_t total = 0;
    for (size_t i = 0; i < k; i++)
        total += ms[i]->n;
    const double **groups = nf_xcalloc(k, sizeof(*groups));
    size_t *ns = nf_xcalloc(k, sizeof(*ns));
    double *tmp = rate ? nf_xcalloc(total ? total : 1, sizeof(double)) : NULL;
    for (size_t i = 0, off = 0; i < k; i++) {
        groups[i] = ms[i]->values;
        ns[i] = ms[i]->n;
        if (tmp) {
            for (size_t j = 0; j < ns[i]; j++)
                tmp[off + j] = 1.0 / ms[i]->values[j];
            groups[i] = tmp + off;
            off += ns[i];
        }
    }
    int rc = nf_runs_differ(groups, ns, k, alpha, p);
    free(tmp);
    free(groups);
    free(ns);
    return rc;
}

/* ------------------------------------------------------- naming the reps */

void nf_label_diag_rep(const struct nf_label_diag *ld, size_t idx, int64_t *run_id, size_t *rep)
{
    size_t off = 0, r = 0;
    while (r + 1 < ld->nruns && idx >= off + ld->run_len[r])
        off += ld->run_len[r++];
    *run_id = ld->nruns ? ld->run_id[r] : 0;
    *rep = (idx - off) * ld->stride + 1;
}

static void rep_name(char *buf, size_t len, const struct nf_label_diag *ld, size_t idx)
{
    int64_t id;
    size_t rep;
    nf_label_diag_rep(ld, idx, &id, &rep);
    if (ld->nruns > 1)
        snprintf(buf, len, "run %lld repetition %zu", (long long)id, rep);
    else
        snprintf(buf, len, "repetition %zu", rep);
}

/* The stats name repetitions by their index among the values diagnosed;
 * say which run and which repetition of it, counted from 1. */
static void name_outliers(const struct nf_label_diag *ld, struct nf_diag_finding *f,
                          const double *x)
{
    char *s = f->summary, item[96], tail[96];
    const double c = f->u.outliers.center;
    snprintf(tail, sizeof(tail), ", more than %.3g robust SDs from the median %.4g",
             f->u.outliers.critical, c);
    int len = snprintf(s, NF_DIAG_TEXT, "%zu outlier%s:", f->nreps, f->nreps == 1 ? "" : "s");
    for (size_t i = 0; i < f->nreps; i++) {
        char name[64];
        rep_name(name, sizeof(name), ld, f->reps[i]);
        double v = x[f->reps[i]];
        int k = snprintf(item, sizeof(item), "%s %s (%.4g, %+.1f%%)", i ? "," : "", name, v,
                         c != 0 ? (v / c - 1) * 100 : NAN);
        /* room for this one, ", and N more" and the tail */
        if (len + k + 16 + (int)strlen(tail) >= NF_DIAG_TEXT) {
            len += snprintf(s + len, NF_DIAG_TEXT - (size_t)len, ", and %zu more", f->nreps - i);
            break;
        }
        memcpy(s + len, item, (size_t)k + 1);
        len += k;
    }
    snprintf(s + len, NF_DIAG_TEXT - (size_t)len, "%s", tail);
}

static void name_drift(const struct nf_label_diag *ld, struct nf_diag_finding *f)
{
    if (ld->nruns > 1)
        snprintf(f->summary, NF_DIAG_TEXT,
                 "drift: values trend with repetition order in run %lld (Spearman rho %.2f, "
                 "p %.3g)",
                 (long long)ld->run_id[f->u.drift.run], f->u.drift.rho, f->u.drift.p);
    else
        snprintf(f->summary, NF_DIAG_TEXT,
                 "drift: values trend with repetition order (Spearman rho %.2f, p %.3g)",
                 f->u.drift.rho, f->u.drift.p);
}

static void name_serial(const struct nf_label_diag *ld, struct nf_diag_finding *f)
{
    if (ld->nruns > 1)
        snprintf(f->summary, NF_DIAG_TEXT,
                 "serial correlation: neighbouring repetitions are correlated in run %lld "
                 "(lag-1 r %.2f, p %.3g)",
                 (long long)ld->run_id[f->u.serial.run], f->u.serial.r, f->u.serial.p);
    else
        snprintf(f->summary, NF_DIAG_TEXT,
                 "serial correlation: neighbouring repetitions are correlated (lag-1 r %.2f, "
                 "p %.3g)",
                 f->u.serial.r, f->u.serial.p);
}

/* ---------------------------------------------------------- diagnosing */

int nf_label_diagnose(struct nf_run *const *runs, size_t n, const char *workload,
                      const char *metric, double alpha, struct nf_label_diag *out)
{
    memset(out, 0, sizeof(*out));
    out->stride = 1;
    struct nf_metric **ms = nf_xcalloc(n ? n : 1, sizeof(*ms));
    struct nf_diag_opts o = {.alpha = alpha,
                             .pinned = NF_DIAG_PINNED_ONE,
                             .workload = nf_diag_workload_of(workload),
                             .interleaved = 1,
                             .ab_session = 1};
    size_t k = 0, total = 0;
    for (size_t r = 0; r < n; r++) {
        if (strcmp(runs[r]->workload, workload) != 0)
            continue;
        struct nf_metric *m = nf_run_find(runs[r], metric);
        if (!m || !m->supported || !m->n)
            continue;
        unsigned w = runs[r]->warmup > 0 ? (unsigned)runs[r]->warmup : 0;
        if (!k || w < o.warmup)
            o.warmup = w;
        int pin = pinned(runs[r]);
        o.pinned = pin < o.pinned ? pin : o.pinned; /* the least pinned run */
        o.higher_better = m->better == NF_BETTER_HIGHER;
        o.interleaved &= interleaved(runs[r]);
        o.ab_session &= of_ab(runs[r]);
        ms[k] = m;
        out->run_id = nf_xrealloc(out->run_id, (k + 1) * sizeof(int64_t));
        out->run_id[k++] = runs[r]->id;
        total += m->n;
    }
    if (!k) {
        free(ms);
        return 0;
    }
    /* Runs that differ: the test compare decides its units by (every
     * repetition, a rate's reciprocals), so that a note and the finding
     * give one p and never disagree; none when it cannot run (compare
     * then keeps the repetitions as units). */
    o.runs_given = k > 1;
    if (o.runs_given && nf_metric_runs_differ((const struct nf_metric *const *)ms, k,
                                              nf_metric_is_rate(ms[0]), alpha, &o.runs_p) < 0)
        o.runs_p = NAN;
    if (total > NF_DIAG_MAX_N)
        out->stride = (total + NF_DIAG_MAX_N - 1) / NF_DIAG_MAX_N;
    out->nruns = k;
    out->run_len = nf_xcalloc(k, sizeof(size_t));
    double *x = nf_xcalloc(total, sizeof(double));
    size_t nx = 0;
    for (size_t r = 0; r < k; r++)
        for (size_t i = 0; i < ms[r]->n; i += out->stride) {
            x[nx++] = ms[r]->values[i];
            out->run_len[r]++;
        }
    free(ms);
    int rc = nf_diagnose(x, nx, out->run_len, k, &o, &out->d);
    if (rc == 0) {
        out->done = 1;
        for (size_t i = 0; i < out->d.n; i++) {
            struct nf_diag_finding *f = &out->d.f[i];
            if (f->kind == NF_DIAG_OUTLIERS)
                name_outliers(out, f, x);
            else if (f->kind == NF_DIAG_DRIFT)
                name_drift(out, f);
            else if (f->kind == NF_DIAG_SERIAL)
                name_serial(out, f);
        }
        if (!nf_metric_is_machine(metric))
            nf_diag_activity(out, runs, n, workload, metric, x, nx, o.higher_better);
    }
    free(x);
    return rc;
}

void nf_label_diag_free(struct nf_label_diag *ld)
{
    for (size_t i = 0; ld->activity && i < ld->d.n; i++)
        free(ld->activity[i]);
    free(ld->activity);
    nf_diagnosis_free(&ld->d);
    free(ld->run_id);
    free(ld->run_len);
    memset(ld, 0, sizeof(*ld));
}

/* ------------------------------------------------- the comparison's hooks */

void nf_diag_cell(const struct nf_cmp_block *b, struct nf_cmp_cell *cell,
                  const struct nf_label_runs *lr, const struct nf_cmp_opts *o)
{
    nf_label_diagnose(lr->runs, lr->nruns, b->workload, b->metric, o->alpha, &cell->diag);
}

/* x, or every stride-th of its n values when there are more than
 * NF_DIAG_MAX_N (a copy in *buf, freed by the caller). */
static const double *thinned(const double *x, size_t n, size_t *m, double **buf, size_t *stride)
{
    *buf = NULL;
    *m = n;
    *stride = 1;
    if (n <= NF_DIAG_MAX_N)
        return x;
    *stride = (n + NF_DIAG_MAX_N - 1) / NF_DIAG_MAX_N;
    *buf = nf_xcalloc(n / *stride + 1, sizeof(double));
    *m = 0;
    for (size_t i = 0; i < n; i += *stride)
        (*buf)[(*m)++] = x[i];
    return *buf;
}

static const struct nf_diag_finding *clusters_of(const struct nf_label_diag *ld)
{
    for (size_t i = 0; ld->done && i < ld->d.n; i++)
        if (ld->d.f[i].kind == NF_DIAG_CLUSTERS)
            return &ld->d.f[i];
    return NULL;
}

void nf_diag_advise(const struct nf_cmp_block *b, const struct nf_cmp_cell *base,
                    struct nf_cmp_cell *cell, const struct nf_cmp_opts *o)
{
    cell->runs_needed = 0;
    if (cell->verdict != NF_INCONCLUSIVE)
        return;
    if (cell->r.zero_base || base->n < 2 || cell->n < 2 || base->nonpositive || cell->nonpositive) {
        /* repetitions for a CI of the relative change: there is none,
         * or no spread (one value a side) to reckon them from, or a rate
         * of 0 that no number of repetitions makes testable */
        cell->advice.cv_pct = NAN;
        return;
    }
    double *ba, *bb;
    size_t na, nb, sa, sb;
    const double *a = thinned(base->units, base->n, &na, &ba, &sa);
    const double *v = thinned(cell->units, cell->n, &nb, &bb, &sb);
    int rc = nf_runs_advice(a, na, v, nb, b->rate, o->threshold_pct, o->alpha, &cell->advice);
    free(ba);
    free(bb);
    if (rc != 0) {
        /* too few units for a robust spread: the plain |CV|s */
        double cv = fmax(nf_summary_cv(&base->s, b->rate), nf_summary_cv(&cell->s, b->rate));
        cell->runs_needed = nf_runs_needed(cv, o->threshold_pct, o->alpha);
        return;
    }
    if (cell->advice.multimodal && !nf_diag_matters(b->metric, NF_DIAG_CLUSTERS))
        cell->advice.multimodal = 0; /* the counting's clusters: repetitions do help */
    if (!cell->advice.multimodal) {
        cell->runs_needed = cell->advice.runs_needed;
        return;
    }
    /* Clusters: the fix of the side that has them (the variant's when
     * both do), which names what will help instead: the baseline's fix
     * under a variant already pinned says what the baseline lacks. */
    const struct nf_diag_finding *f = NULL;
    if (cell->advice.k_var > 1 || cell->advice.k_base <= 1)
        f = clusters_of(&cell->diag);
    if (!f && cell->advice.k_base > 1)
        f = clusters_of(&base->diag);
    const char *fix = f ? f->fix
                        : "find what splits them (--pin, doctor) or compare the fast "
                          "cluster with --test shift";
    if (strstr(fix, "will not help"))
        cell->advice_fix = nf_xstrdup(fix);
    else if (asprintf(&cell->advice_fix, "%s; more repetitions will not help", fix) < 0)
        cell->advice_fix = NULL;
}

void nf_diag_cell_free(struct nf_cmp_cell *cell)
{
    nf_label_diag_free(&cell->diag);
    free(cell->advice_fix);
    free(cell->shift);
    free(cell->clusters);
    cell->advice_fix = NULL;
    cell->shift = NULL;
    cell->clusters = NULL;
}

int nf_compare_explain(struct nf_comparison *c)
{
    const struct nf_cmp_opts *o = &c->opts;
    /* a test on a decile: the explanation shows all nine (the shift
     * function) */
    const struct nf_test_row *t = nf_test_row(o->test);
    int decile = t && t->location == NF_LOC_DECILE;
    for (size_t i = 0; i < c->nblocks; i++) {
        struct nf_cmp_block *b = &c->blocks[i];
        const struct nf_cmp_cell *base = &b->cells[0];
        for (size_t l = 1; l < c->nlabels; l++) {
            struct nf_cmp_cell *x = &b->cells[l];
            if (!x->compared)
                continue;
            if (decile && !x->shift) {
                x->shift = nf_xcalloc(1, sizeof(*x->shift));
                int any = 0; /* a relative change somewhere (not all deciles 0) */
                if (nf_shift_function(base->units, base->n, x->units, x->n, b->rate, o->alpha,
                                      o->resamples, o->seed, x->shift) == 0)
                    for (size_t j = 0; j < NF_SHIFT_NQ; j++)
                        any |= isfinite(x->shift->d[j].change_pct);
                if (!any) {
                    free(x->shift);
                    x->shift = NULL;
                }
            }
            if (!x->clusters && (base->diag.d.multimodal || x->diag.d.multimodal) &&
                nf_diag_matters(b->metric, NF_DIAG_CLUSTERS)) {
                double *ba, *bb;
                size_t na, nb, sa, sb;
                const double *pa = thinned(base->units, base->n, &na, &ba, &sa);
                const double *pb = thinned(x->units, x->n, &nb, &bb, &sb);
                x->clusters = nf_xcalloc(1, sizeof(*x->clusters));
                x->clusters_stride = sa > sb ? sa : sb;
                int rc = nf_cluster_compare(pa, na, pb, nb, b->rate, o->alpha, x->clusters);
                free(ba);
                free(bb);
                if (rc != 0) {
                    free(x->clusters);
                    x->clusters = NULL;
                    if (rc < 0)
                        return -1;
                }
            }
        }
    }
    return 0;
}
