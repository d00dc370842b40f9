/* What the machine did beside each outlier and each cluster of a label's
 * metric (analysis/diagnosis.h): the machine metrics of the same
 * repetitions (measure's readings, core/metric.h) that stand out there,
 * by robust z-score against the label's other repetitions, with the rank
 * correlation over all repetitions when there are enough.  Stated as a
 * coincidence with its strength; the finding's fix becomes the one that
 * follows from the strongest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnosis.h"
#include "core/util.h"
#include "stats/activity.h"

/* A reading stands out at a robust z of this much, and by at least the
 * least step its unit counts (1 ms, 10 events). */
#define Z_NAMED 3.5
#define MIN_MS 1.0
#define MIN_TICKS_MS 20.0 /* of readings counted in ticks of /proc/stat: two of 10 ms */
#define MIN_COUNT 10.0
#define Z_CAP 1000.0      /* an infinite z (the others all equal) ranks as this */
#define CLASS 1e9         /* strength() of one class above the next */
#define MIN_ABSENT 1000.0 /* events absent from the others that rank first */
#define MAX_READINGS 24
#define TOP_NAMED 3 /* readings named per repetition */

struct reading {
    const char *name;
    int ms;     /* unit ms, else a count */
    int source; /* one interrupt source's count (cpu.irq.NAME): named within cpu.irq */
    double *a;  /* aligned with the diagnosed values */
};

/* The metrics of single interrupt sources (measure/sysstat.h). */
#define MAX_SRC_TEXT 48

/* The machine metrics every diagnosed run has, aligned with x as
 * nf_label_diagnose built it (run after run, every stride-th value). */
static size_t readings(struct nf_run *const *runs, size_t n, const char *workload,
                       const char *metric, const struct nf_label_diag *ld, size_t nx,
                       struct reading *out)
{
    size_t k = 0;
    const struct nf_run *first = NULL;
    for (size_t r = 0; r < n && !first; r++) {
        const struct nf_metric *m = nf_run_find(runs[r], metric);
        if (strcmp(runs[r]->workload, workload) == 0 && m && m->supported && m->n)
            first = runs[r];
    }
    for (size_t i = 0; first && i < first->nmetrics && k < MAX_READINGS; i++) {
        const struct nf_metric *mm = &first->metrics[i];
        if (!nf_metric_is_machine(mm->name))
            continue;
        double *a = nf_xcalloc(nx ? nx : 1, sizeof(double));
        size_t j = 0, run = 0;
        int ok = 1;
        for (size_t r = 0; r < n && ok; r++) {
            struct nf_metric *pm = nf_run_find(runs[r], metric);
            if (strcmp(runs[r]->workload, workload) != 0 || !pm || !pm->supported || !pm->n)
                continue;
            struct nf_metric *m = nf_run_find(runs[r], mm->name);
            ok = m && m->supported && m->n == pm->n && run < ld->nruns;
            for (size_t v = 0; ok && v < m->n; v += ld->stride)
                a[j++] = m->values[v];
            run++;
        }
        if (!ok || j != nx) {
            free(a);
            continue;
        }
        out[k++] = (struct reading){
            mm->name, strcmp(mm->unit, "ms") == 0,
            strncmp(mm->name, NF_METRIC_IRQ_SOURCE, strlen(NF_METRIC_IRQ_SOURCE)) == 0, a};
    }
    return k;
}

static const char *cpus_of(struct nf_run *const *runs, size_t n)
{
    const json_t *p = n && runs[0]->env ? json_object_get(runs[0]->env, "pin") : NULL;
    return json_is_string(p) && json_string_value(p)[0] ? json_string_value(p) : NULL;
}

/* A time in ms as a reader says it: "4080", "38.2", "0.11". */
static const char *ms(char *buf, size_t len, double v)
{
    snprintf(buf, len, fabs(v) >= 100 ? "%.0f" : "%.3g", v);
    return buf;
}

/* Of the interrupt sources, the one whose count here exceeds its usual
 * most (excess[i]: value minus median, for the source readings), or NULL
 * when none exceeds it by MIN_COUNT. */
static const char *top_source(const struct reading *rd, size_t nr, const double *excess)
{
    const char *best = NULL;
    double most = MIN_COUNT;
    for (size_t i = 0; i < nr; i++)
        if (rd[i].source && excess[i] >= most)
            most = excess[i], best = rd[i].name + strlen(NF_METRIC_IRQ_SOURCE);
    return best;
}

/* The reading in words: "run delay 38 ms (median 0.1 ms)"; src: the
 * interrupt source that stands out, for cpu.irq (NULL: none). */
static int describe(char *buf, size_t len, const struct reading *r, double v, double med,
                    const char *cpus, const char *median_word, const char *src)
{
    const char *on = cpus ? (strpbrk(cpus, ",-") ? " on CPUs " : " on CPU ") : " on all CPUs";
    const char *c = cpus ? cpus : "";
    const char *n = r->name;
    char a[32], m[32];
    ms(a, sizeof(a), v);
    ms(m, sizeof(m), med);
    if (strcmp(n, "sched.run-delay") == 0)
        return snprintf(buf, len, "run delay %s ms (%s %s ms)", a, median_word, m);
    if (strcmp(n, "cpu.other-busy") == 0)
        return snprintf(buf, len, "other tasks ran %s ms%s%s (%s %s ms)", a, on, c, median_word, m);
    /* unpinned, the architecture's own interrupts are one source
     * (doc/noisefloor-run.1, --no-sysstat): said what they are */
    if (strcmp(n, "cpu.irq") == 0)
        return snprintf(buf, len, "%.0f interrupts%s%s (%s %.0f%s%.*s%s)", v, on, c, median_word,
                        med, src ? "; " : "", MAX_SRC_TEXT, src ? src : "",
                        src && strcmp(src, NF_METRIC_IRQ_ARCH) == 0 ? ": the timer's and IPIs"
                                                                    : "");
    if (strncmp(n, "cpu.softirq.", 12) == 0)
        return snprintf(buf, len, "%.0f %s softirqs (%s %.0f)", v, n + 12, median_word, med);
    if (strcmp(n, "sched.migrations") == 0)
        return snprintf(buf, len, "%.0f migrations (%s %.0f)", v, median_word, med);
    if (strcmp(n, "cpu.irq-time") == 0)
        return snprintf(buf, len, "%s ms in interrupts (%s %s ms)", a, median_word, m);
    if (strcmp(n, "cpu.softirq-time") == 0)
        return snprintf(buf, len, "%s ms in softirqs (%s %s ms)", a, median_word, m);
    if (strcmp(n, "cpu.steal") == 0)
        return snprintf(buf, len, "steal %s ms (%s %s ms)", a, median_word, m);
    return snprintf(buf, len, "%s %s%s (%s %s)", n, a, r->ms ? " ms" : "", median_word, m);
}

/* What to do about the strongest reading, in a workload of this kind: no
 * --pin to one CPU for tasks spread over the CPUs (messaging, wakeup), where
 * one CPU would change the benchmark. */
static const char *fix_for(const char *name, enum nf_diag_workload kind)
{
    int spread = kind == NF_DIAG_SPREAD;
    if (strcmp(name, "sched.run-delay") == 0 || strcmp(name, "cpu.other-busy") == 0)
        return spread ? "another task ran on the workload's CPUs: find it (top, perf sched; "
                        "doctor names the busy CPUs) and stop it"
                      : "another task ran on the workload's CPU: find it (top, perf sched) and "
                        "stop it, or --pin to a quieter CPU (doctor names the busy ones)";
    if (strcmp(name, "sched.migrations") == 0)
        return spread ? "the tasks moved between CPUs more than in the other repetitions: find "
                        "what moved them (doctor, other load); one CPU would change the "
                        "benchmark"
                      : "the tasks moved between CPUs: --pin them to one CPU";
    if (strcmp(name, "cpu.steal") == 0)
        return "the hypervisor ran another guest: use a host or instance with dedicated CPUs";
    return spread ? "interrupts were served on the workload's CPUs: move them elsewhere "
                    "(/proc/irq/*/smp_affinity)"
                  : "interrupts were served on the workload's CPU: move them off it "
                    "(/proc/irq/*/smp_affinity) or --pin to a CPU that does not serve them";
}

/* Whether reading r stands out at value v against s: its z and excess. */
static int stands_out(const struct reading *r, const struct nf_activity *s, double v, double *z)
{
    *z = nf_activity_z(s, v);
    if (r->source)
        return 0; /* named within cpu.irq */
    int ticks = strncmp(r->name, "cpu.", 4) == 0 && r->ms;
    return *z >= Z_NAMED && v - s->median >= (ticks ? MIN_TICKS_MS : r->ms ? MIN_MS : MIN_COUNT);
}

/* How strongly a reading that stands out does, for the order they are
 * named in.  Counts of events grow with any longer repetition, so first
 * come events that did not happen at all in the others (z infinite: a
 * flood's NET_RX), then the time taken from the workload (run delay,
 * other tasks, steal: the direct evidence), then the other counts; each
 * class by z.  (A few events the others lacked, fewer than MIN_ABSENT,
 * are counts like any other.) */
static double strength(const struct reading *r, const struct nf_activity *s, double v, double z)
{
    int time_lost = strcmp(r->name, "sched.run-delay") == 0 ||
                    strcmp(r->name, "cpu.other-busy") == 0 || strcmp(r->name, "cpu.steal") == 0;
    if (!r->ms && !isfinite(z) && v - s->median >= MIN_ABSENT)
        return 2 * CLASS + v - s->median;
    return (time_lost ? CLASS : 0) + fmin(z, Z_CAP);
}

/* "repetition 7 (+41%): run delay 38 ms (median 0.1 ms, z 12); ..." for
 * one outlier; the strongest reading's name in *best (NULL: none). */
static void outlier_text(char **text, const struct nf_label_diag *ld, size_t idx, const double *x,
                         double center, const struct reading *rd, const struct nf_activity *st,
                         size_t nr, const char *cpus, size_t *votes)
{
    int64_t id;
    size_t rep;
    nf_label_diag_rep(ld, idx, &id, &rep);
    char head[96];
    if (ld->nruns > 1)
        snprintf(head, sizeof(head), "run %lld repetition %zu", (long long)id, rep);
    else
        snprintf(head, sizeof(head), "repetition %zu", rep);
    char *s = nf_xasprintf("%s%s%s (%+.0f%%):", *text ? *text : "", *text ? "\n" : "", head,
                           center != 0 ? (x[idx] / center - 1) * 100 : NAN);
    free(*text);
    /* the readings that stand out, strongest first, at most TOP_NAMED */
    size_t order[MAX_READINGS], no = 0;
    double zs_[MAX_READINGS], k_[MAX_READINGS];
    for (size_t i = 0; i < nr; i++) {
        double z;
        if (!stands_out(&rd[i], &st[i], rd[i].a[idx], &z))
            continue;
        zs_[i] = z;
        k_[i] = strength(&rd[i], &st[i], rd[i].a[idx], z);
        size_t j = no++;
        while (j > 0 && k_[order[j - 1]] < k_[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    double excess[MAX_READINGS];
    for (size_t i = 0; i < nr; i++)
        excess[i] = rd[i].a[idx] - st[i].median;
    const char *src = top_source(rd, nr, excess);
    int named = 0;
    for (size_t o = 0; o < no && o < TOP_NAMED; o++) {
        size_t i = order[o];
        double z = zs_[i];
        char d[200];
        describe(d, sizeof(d), &rd[i], rd[i].a[idx], st[i].median, cpus, "median", src);
        char zs[32];
        if (isinf(z))
            snprintf(zs, sizeof(zs), "the others all equal");
        else
            snprintf(zs, sizeof(zs), "robust z %.1f", z);
        char *t = nf_xasprintf("%s%s %.*s, %s)", s, named ? ";" : "", (int)strlen(d) - 1, d, zs);
        free(s);
        s = t;
        named++;
    }
    if (no && votes)
        votes[order[0]]++; /* the strongest of this repetition */
    if (no > TOP_NAMED) {
        char *t = nf_xasprintf("%s; %zu more stand out", s, no - TOP_NAMED);
        free(s);
        s = t;
    }
    if (!named) {
        char *t = nf_xasprintf("%s no reading of the machine stands out", s);
        free(s);
        s = t;
    }
    *text = s;
}

/* The slowest cluster against the rest: readings whose median there
 * stands out against the rest's spread. */
static char *group_text(const struct nf_label_diag *ld, const size_t *in, size_t nin,
                        const char *title, const double *x, size_t nx, const struct reading *rd,
                        size_t nr, const char *cpus, const char **best)
{
    unsigned char *mark = nf_xcalloc(nx ? nx : 1, 1);
    for (size_t i = 0; i < nin; i++)
        if (in[i] < nx)
            mark[in[i]] = 1;
    double *a_in = nf_xcalloc(nx ? nx : 1, sizeof(double));
    double *a_out = nf_xcalloc(nx ? nx : 1, sizeof(double));
    double *x_out = nf_xcalloc(nx ? nx : 1, sizeof(double));
    char *s = nf_xasprintf("%s (%zu repetitions):", title, nin);
    int named = 0;
    double best_z = 0;
    struct nf_activity *rest = nf_xcalloc(nr ? nr : 1, sizeof(*rest));
    int rest_ok = 1;
    double xc = NAN;
    double in_med[MAX_READINGS], excess[MAX_READINGS];
    unsigned char have[MAX_READINGS] = {0};
    for (size_t i = 0; i < nr; i++) {
        size_t ni = 0, no = 0;
        for (size_t j = 0; j < nx; j++) {
            if (mark[j])
                a_in[ni++] = rd[i].a[j];
            else {
                x_out[no] = x[j];
                a_out[no++] = rd[i].a[j];
            }
        }
        struct nf_activity sin, sout;
        if (!ni || !no || nf_activity(a_in, a_in, ni, &sin) ||
            nf_activity(a_out, x_out, no, &sout)) {
            rest_ok = 0;
            excess[i] = 0;
            continue;
        }
        rest[i] = sout;
        have[i] = 1;
        in_med[i] = sin.median;
        excess[i] = sin.median - sout.median;
        if (isnan(xc)) {
            struct nf_activity sx;
            if (nf_activity(x_out, x_out, no, &sx) == 0)
                xc = sx.median;
        }
    }
    const char *src = top_source(rd, nr, excess);
    for (size_t i = 0; i < nr; i++) {
        double z;
        if (!have[i] || !stands_out(&rd[i], &rest[i], in_med[i], &z))
            continue;
        char d[200];
        describe(d, sizeof(d), &rd[i], in_med[i], rest[i].median, cpus, "median elsewhere", src);
        char *t = nf_xasprintf("%s%s median %s", s, named ? ";" : "", d);
        free(s);
        s = t;
        named++;
        double k = strength(&rd[i], &rest[i], in_med[i], z);
        if (k > best_z) {
            best_z = k;
            *best = rd[i].name;
        }
    }
    /* a small cluster: each of its repetitions against the rest */
    if (named && rest_ok && nin <= 8) {
        for (size_t i = 0; i < nin; i++)
            if (in[i] < nx)
                outlier_text(&s, ld, in[i], x, xc, rd, rest, nr, cpus, NULL);
    }
    free(rest);
    free(mark);
    free(a_in);
    free(a_out);
    free(x_out);
    if (!named) {
        free(s);
        return NULL;
    }
    return s;
}

static char *cluster_text(const struct nf_label_diag *ld, const struct nf_diag_finding *f,
                          int higher_better, const double *x, size_t nx, const struct reading *rd,
                          size_t nr, const char *cpus, const char **best)
{
    const struct nf_clustering *cl = &f->u.clusters.cl;
    size_t slow = 0;
    for (size_t c = 1; c < cl->k; c++)
        if (higher_better ? cl->c[c].center < cl->c[slow].center
                          : cl->c[c].center > cl->c[slow].center)
            slow = c;
    return group_text(ld, f->reps + f->u.clusters.first[slow], cl->c[slow].n, "the slow cluster", x,
                      nx, rd, nr, cpus, best);
}

/* Runs that differ: the slowest run (by its median) against the others. */
static char *runs_text(const struct nf_label_diag *ld, int higher_better, const double *x,
                       size_t nx, const struct reading *rd, size_t nr, const char *cpus,
                       const char **best)
{
    size_t slow = 0, off = 0, slow_off = 0;
    double slow_med = NAN;
    for (size_t r = 0; r < ld->nruns; off += ld->run_len[r++]) {
        struct nf_activity s;
        if (!ld->run_len[r] || nf_activity(x + off, x + off, ld->run_len[r], &s))
            continue;
        if (isnan(slow_med) || (higher_better ? s.median < slow_med : s.median > slow_med))
            slow = r, slow_med = s.median, slow_off = off;
    }
    if (isnan(slow_med) || ld->nruns < 2)
        return NULL;
    size_t *in = nf_xcalloc(ld->run_len[slow], sizeof(size_t));
    for (size_t i = 0; i < ld->run_len[slow]; i++)
        in[i] = slow_off + i;
    char title[64];
    snprintf(title, sizeof(title), "run %lld, the slowest", (long long)ld->run_id[slow]);
    char *t = group_text(ld, in, ld->run_len[slow], title, x, nx, rd, nr, cpus, best);
    free(in);
    return t;
}

/* Runs that differ, over the runs' totals: each reading summed over
 * each run (scaled to the runs' median length when they differ in
 * length), the slowest run's total against the others'; the rank
 * correlation over the runs of the run's median and the total when there
 * are enough runs. */
static char *totals_text(const struct nf_label_diag *ld, int higher_better, const double *x,
                         const struct reading *rd, size_t nr, const char *cpus, const char **best)
{
    size_t R = ld->nruns;
    if (R < 2)
        return NULL;
    double *med = nf_xcalloc(R, sizeof(double)), *lens = nf_xcalloc(R, sizeof(double));
    size_t *off = nf_xcalloc(R, sizeof(size_t)), slow = R;
    for (size_t r = 0, o = 0; r < R; o += ld->run_len[r++]) {
        struct nf_activity a;
        off[r] = o;
        lens[r] = (double)ld->run_len[r];
        med[r] = NAN;
        if (ld->run_len[r] && nf_activity(x + o, x + o, ld->run_len[r], &a) == 0)
            med[r] = a.median;
        if (!isnan(med[r]) &&
            (slow == R || (higher_better ? med[r] < med[slow] : med[r] > med[slow])))
            slow = r;
    }
    struct nf_activity la;
    int ok = slow < R && nf_activity(lens, lens, R, &la) == 0;
    for (size_t r = 0; ok && r < R; r++)
        ok = !isnan(med[r]);
    double *tot = nf_xcalloc(nr * R + 1, sizeof(double));
    double *a_out = nf_xcalloc(R, sizeof(double)), *m_out = nf_xcalloc(R, sizeof(double));
    char *s = NULL;
    for (size_t i = 0; ok && i < nr; i++)
        for (size_t r = 0; r < R; r++) {
            double sum = 0;
            for (size_t j = 0; j < ld->run_len[r]; j++)
                sum += rd[i].a[off[r] + j];
            tot[i * R + r] = sum * la.median / lens[r];
        }
    struct nf_activity out[MAX_READINGS];
    double excess[MAX_READINGS] = {0};
    unsigned char have[MAX_READINGS] = {0};
    for (size_t i = 0; ok && i < nr; i++) {
        size_t k = 0;
        for (size_t r = 0; r < R; r++)
            if (r != slow) {
                a_out[k] = tot[i * R + r];
                m_out[k++] = med[r];
            }
        if (nf_activity(a_out, m_out, k, &out[i]) == 0) {
            have[i] = 1;
            excess[i] = tot[i * R + slow] - out[i].median;
        }
    }
    const char *src = ok ? top_source(rd, nr, excess) : NULL;
    double best_k = 0;
    int named = 0;
    size_t best_i = nr;
    for (size_t i = 0; ok && i < nr; i++) {
        double z, v = tot[i * R + slow];
        if (!have[i] || !stands_out(&rd[i], &out[i], v, &z))
            continue;
        char d[200];
        describe(d, sizeof(d), &rd[i], v, out[i].median, cpus, "the other runs' median", src);
        char *t = s ? nf_xasprintf("%s; %s", s, d)
                    : nf_xasprintf("over the runs' totals, run %lld (the slowest): %s",
                                   (long long)ld->run_id[slow], d);
        free(s);
        s = t;
        named++;
        double k = strength(&rd[i], &out[i], v, z);
        if (k > best_k)
            best_k = k, best_i = i;
    }
    /* the rank correlation over the runs, of the strongest */
    struct nf_activity all;
    if (best_i < nr && nf_activity(&tot[best_i * R], med, R, &all) == 0 && isfinite(all.rho)) {
        char *t = nf_xasprintf("%s\nover all %zu runs, their medians and the totals of %s: "
                               "Spearman rho %.2f (p %.2g)",
                               s, R, rd[best_i].name, all.rho, all.p);
        free(s);
        s = t;
    }
    if (best_i < nr && best)
        *best = rd[best_i].name;
    free(med);
    free(lens);
    free(off);
    free(tot);
    free(a_out);
    free(m_out);
    return s;
}

void nf_diag_activity(struct nf_label_diag *ld, struct nf_run *const *runs, size_t n,
                      const char *workload, const char *metric, const double *x, size_t nx,
                      int higher_better)
{
    if (!ld->done || !ld->d.n)
        return;
    struct reading rd[MAX_READINGS];
    size_t nr = readings(runs, n, workload, metric, ld, nx, rd);
    if (!nr)
        return;
    struct nf_activity st[MAX_READINGS];
    size_t good = 0;
    for (size_t i = 0; i < nr; i++) {
        if (nf_activity(rd[i].a, x, nx, &st[good]) == 0)
            rd[good++] = rd[i];
        else
            free(rd[i].a);
    }
    nr = good;
    const char *cpus = cpus_of(runs, n);
    ld->activity = nf_xcalloc(ld->d.n, sizeof(char *));
    for (size_t fi = 0; fi < ld->d.n; fi++) {
        struct nf_diag_finding *f = &ld->d.f[fi];
        const char *best = NULL;
        char *text = NULL;
        if (f->kind == NF_DIAG_OUTLIERS) {
            /* the reading strongest in most of its repetitions */
            size_t votes[MAX_READINGS] = {0}, top = 0;
            for (size_t i = 0; i < f->nreps && i < 8; i++)
                outlier_text(&text, ld, f->reps[i], x, f->u.outliers.center, rd, st, nr, cpus,
                             votes);
            for (size_t i = 1; i < nr; i++)
                if (votes[i] > votes[top])
                    top = i;
            if (nr && votes[top])
                best = rd[top].name;
        } else if (f->kind == NF_DIAG_CLUSTERS) {
            text = cluster_text(ld, f, higher_better, x, nx, rd, nr, cpus, &best);
        } else if (f->kind == NF_DIAG_RUNS_DIFFER) {
            text = runs_text(ld, higher_better, x, nx, rd, nr, cpus, &best);
            const char *tbest = NULL;
            char *t = totals_text(ld, higher_better, x, rd, nr, cpus, &tbest);
            if (t) {
                char *j = text ? nf_xasprintf("%s\n%s", text, t) : t;
                if (text) {
                    free(text);
                    free(t);
                }
                text = j;
                if (!best)
                    best = tbest;
            }
        } else {
            continue;
        }
        /* the rank correlation of the strongest reading, over them all */
        for (size_t i = 0; best && text && i < nr; i++)
            if (strcmp(rd[i].name, best) == 0 && isfinite(st[i].rho)) {
                char *t = nf_xasprintf("%s\nover all %zu repetitions, %s and %s: Spearman rho "
                                       "%.2f (p %.2g)",
                                       text, nx, metric, best, st[i].rho, st[i].p);
                free(text);
                text = t;
            }
        ld->activity[fi] = text;
        if (best)
            snprintf(f->fix, sizeof(f->fix), "%s", fix_for(best, nf_diag_workload_of(workload)));
    }
    for (size_t i = 0; i < nr; i++)
        free(rd[i].a);
}
