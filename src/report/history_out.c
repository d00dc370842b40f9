/* `history` as text and JSON (report/history.h). */
#include "report/history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "report/fmt.h"

/* ---- words ---------------------------------------------------------------- */

/* A word for a shell: quoted when it holds anything a shell would read. */
static void put_word(FILE *f, const char *w)
{
    if (*w && !strpbrk(w, " \t\n'\"\\$`;&|<>()*?[]{}~#!")) {
        fputs(w, f);
        return;
    }
    fputc('\'', f);
    for (; *w; w++)
        if (*w == '\'')
            fputs("'\\''", f);
        else
            fputc(*w, f);
    fputc('\'', f);
}

char *nf_hist_bisect_line(const struct nf_hist_series *s, size_t i, const struct nf_hist_render *r)
{
    const struct nf_cp_change *c = &s->cp.cp[i];
    const char *good = s->pts[c->prev].commit, *bad = s->pts[c->index].commit;
    if (!good || !bad || strcmp(good, bad) == 0)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fputs("noisefloor bisect start --good ", f);
    put_word(f, good);
    fputs(" --bad ", f);
    put_word(f, bad);
    if (r && r->repo) {
        fputs(" --repo ", f);
        put_word(f, r->repo);
    }
    fputs(" -m ", f);
    put_word(f, s->metric);
    /* SPEC: the words of a run, as ab's (a command after its own "--"). */
    fputs(" --", f);
    if (strcmp(s->workload, "command") == 0)
        fputs(" --", f);
    else
        fprintf(f, " "), put_word(f, s->workload);
    for (size_t a = 0; a < s->nargs; a++) {
        fputc(' ', f);
        put_word(f, s->args[a]);
    }
    fclose(f);
    return buf;
}

/* "pipe '-l 1000' usecs/op on host1" */
static void series_name(FILE *out, const struct nf_hist_series *s)
{
    char *wl = nf_xprintable(s->workload), *m = nf_xprintable(s->metric);
    fputs(wl, out);
    if (*s->argtext) {
        char *a = nf_xprintable(s->argtext);
        fprintf(out, " '%s'", a);
        free(a);
    }
    fprintf(out, " %s", m);
    if (*s->host) {
        char *h = nf_xprintable(s->host);
        fprintf(out, " on %s", h);
        free(h);
    }
    free(wl);
    free(m);
}

static void fmt_pct(char *buf, size_t len, double v)
{
    if (isfinite(v))
        snprintf(buf, len, "%+.2f%%", v == 0 ? 0.0 : v);
    else
        snprintf(buf, len, "-");
}

static void fmt_ci(char *buf, size_t len, double lo, double hi)
{
    if (isfinite(lo) && isfinite(hi))
        snprintf(buf, len, "[%+.2f, %+.2f]", lo == 0 ? 0.0 : lo, hi == 0 ? 0.0 : hi);
    else
        snprintf(buf, len, "[unbounded]");
}

static void fmt_p(char *buf, size_t len, double p)
{
    if (!isfinite(p))
        snprintf(buf, len, "-");
    else if (p < 1e-4)
        snprintf(buf, len, "%.1e", p);
    else
        snprintf(buf, len, "%.4f", p);
}

/* "run 31", with its commit (short) or label when the order is by them. */
static void fmt_run(char *buf, size_t len, const struct nf_history *h,
                    const struct nf_hist_point *p)
{
    if (h->q.by == NF_HIST_BY_COMMIT && p->commit)
        snprintf(buf, len, "run %lld (%.10s)", (long long)p->run, p->commit);
    else if (h->q.by == NF_HIST_BY_LABEL)
        snprintf(buf, len, "run %lld (%.14s)", (long long)p->run, p->label);
    else
        snprintf(buf, len, "run %lld", (long long)p->run);
    nf_printable(buf);
}

/* The first and last point of a segment that is not an outlier. */
static size_t seg_first(const struct nf_hist_series *s, size_t j)
{
    return s->cp.seg[j].from;
}
static size_t seg_last(const struct nf_hist_series *s, size_t j)
{
    return s->cp.seg[j].to ? s->cp.seg[j].to - 1 : 0;
}

static const char *order_words(enum nf_hist_order by)
{
    return by == NF_HIST_BY_COMMIT ? "by commit" : by == NF_HIST_BY_LABEL ? "by label" : "by time";
}

static void too_short_words(FILE *out, const struct nf_history *h, const struct nf_hist_series *s)
{
    fprintf(out,
            "too short for one segment: %zu run%s, a change point needs %zu (two segments of "
            "--min-segment %zu); no change point claimed",
            s->n, s->n == 1 ? "" : "s", 2 * h->q.cp.min_seg, h->q.cp.min_seg);
}

/* ---- text ------------------------------------------------------------------------ */

static void change_lines(FILE *out, const struct nf_history *h, const struct nf_hist_series *s,
                         const struct nf_hist_render *r)
{
    for (size_t i = 0; i < s->cp.ncp; i++) {
        const struct nf_hist_change *c = &s->chg[i];
        const struct nf_hist_point *a = &s->pts[c->cp->prev], *b = &s->pts[c->cp->index];
        char ra[96], rb[96], pct[32], ci[64], p[24], q[24];
        fmt_run(ra, sizeof(ra), h, a);
        fmt_run(rb, sizeof(rb), h, b);
        fmt_pct(pct, sizeof(pct), c->change_pct);
        fmt_ci(ci, sizeof(ci), c->ci_low_pct, c->ci_high_pct);
        fmt_p(p, sizeof(p), c->cp->p);
        fmt_p(q, sizeof(q), c->cp->q);
        char *started = nf_xprintable(b->started);
        fprintf(out, "  change at %s started %s, after %s: %s %s p %s q %s, %s +-%g%%\n", rb,
                started, ra, pct, ci, p, q,
                c->cp->beyond_threshold   ? "beyond"
                : c->cp->within_threshold ? "within"
                                          : "not shown beyond",
                h->q.cp.threshold_pct);
        free(started);
        char *line = nf_hist_bisect_line(s, i, r);
        if (line) {
            char *pl = nf_xprintable(line);
            fprintf(out, "    %s\n", pl);
            free(pl);
        }
        free(line);
    }
}

static void series_text(FILE *out, const struct nf_history *h, const struct nf_hist_series *s,
                        const struct nf_hist_render *r)
{
    char *unit = nf_xprintable(s->unit);
    series_name(out, s);
    fprintf(out, " (%s%s%s is better): %zu runs %s\n", unit, *unit ? ", " : "",
            nf_better_name(s->better), s->n, order_words(h->q.by));
    free(unit);
    if (s->n && s->cp.too_short) {
        fputs("  ", out);
        too_short_words(out, h, s);
        fputc('\n', out);
    }
    if (s->n && !s->cp.too_short) {
        fprintf(out, "  %3s  %-22s  %-22s  %5s  %12s  %8s  %-18s  %s\n", "SEG", "FROM", "TO",
                "RUNS", "MEAN", "CHANGE", "CI", "VERDICT");
        for (size_t j = 0; j < s->cp.nseg; j++) {
            char from[96], to[96], mean[32], pct[32] = "-", ci[64] = "-";
            fmt_run(from, sizeof(from), h, &s->pts[seg_first(s, j)]);
            fmt_run(to, sizeof(to), h, &s->pts[seg_last(s, j)]);
            nf_diag_fmt_num(mean, sizeof(mean), s->seg_mean[j]);
            if (j) {
                fmt_pct(pct, sizeof(pct), s->chg[j - 1].change_pct);
                fmt_ci(ci, sizeof(ci), s->chg[j - 1].ci_low_pct, s->chg[j - 1].ci_high_pct);
            }
            fprintf(out, "  %3zu  %-22s  %-22s  %5zu  %12s  %8s  %-18s  %s\n", j + 1, from, to,
                    s->cp.seg[j].runs, mean, pct, ci, nf_hist_verdict(s, j));
        }
        change_lines(out, h, s, r);
    }
    for (size_t k = 0; k < s->cp.noutlier; k++) {
        const struct nf_hist_point *p = &s->pts[s->cp.outlier[k]];
        char v[32], rn[96];
        nf_diag_fmt_num(v, sizeof(v), p->mean);
        fmt_run(rn, sizeof(rn), h, p);
        fprintf(out, "  outlier: %s (%s), far from its neighbours on both sides: not a change\n",
                rn, v);
    }
    for (size_t k = 0; k < s->cp.ndrift; k++) {
        const struct nf_cp_drift *d = &s->cp.drift[k];
        char a[96], b[96], pct[32], ci[64], p[24];
        fmt_run(a, sizeof(a), h, &s->pts[d->from]);
        fmt_run(b, sizeof(b), h, &s->pts[d->to - 1]);
        fmt_pct(pct, sizeof(pct), s->drift_pct[k]);
        fmt_ci(ci, sizeof(ci), s->drift_lo[k], s->drift_hi[k]);
        fmt_p(p, sizeof(p), d->p);
        fprintf(out, "  drift: from %s to %s (%zu runs): %s %s p %s, a slow slope, not steps\n", a,
                b, d->runs, pct, ci, p);
    }
    for (size_t k = 0; k < s->nnotes; k++) {
        char *t = nf_xprintable(s->notes[k]);
        fprintf(out, "  note: %s\n", t);
        free(t);
    }
}

static void summary_line(FILE *out, const struct nf_history *h, const struct nf_hist_series *s)
{
    series_name(out, s);
    fprintf(out, ": %zu runs", s->n);
    if (s->cp.too_short) {
        fputs(", too short for one segment\n", out);
        return;
    }
    size_t shown = 0;
    fprintf(out, ", %zu segment%s", s->cp.nseg, s->cp.nseg == 1 ? "" : "s");
    for (size_t i = 0; i < s->cp.ncp; i++) {
        char pct[32], rn[96];
        fmt_pct(pct, sizeof(pct), s->chg[i].change_pct);
        fmt_run(rn, sizeof(rn), h, &s->pts[s->cp.cp[i].index]);
        fprintf(out, "%s %s at %s (%s)", shown++ ? ";" : ":", pct, rn, nf_hist_verdict(s, i + 1));
    }
    if (s->cp.ndrift)
        fprintf(out, "; %zu drift%s", s->cp.ndrift, s->cp.ndrift == 1 ? "" : "s");
    if (s->cp.noutlier)
        fprintf(out, "; %zu outlier%s", s->cp.noutlier, s->cp.noutlier == 1 ? "" : "s");
    fputc('\n', out);
}

void nf_history_text(FILE *out, const struct nf_history *h, const struct nf_hist_render *r)
{
    for (size_t i = 0; i < h->n; i++) {
        series_text(out, h, &h->s[i], r);
        fputc('\n', out);
    }
    for (size_t i = 0; i < h->n; i++) {
        fputs("summary: ", out);
        summary_line(out, h, &h->s[i]);
    }
}

void nf_history_tip_text(FILE *out, const struct nf_history *h)
{
    for (size_t i = 0; i < h->n; i++) {
        const struct nf_hist_series *s = &h->s[i];
        const struct nf_cp_tip *t = &s->tip;
        series_name(out, s);
        fputs(": ", out);
        if (s->cp.too_short) {
            too_short_words(out, h, s);
            fputc('\n', out);
            continue;
        }
        char pct[32], ci[64], p[24], q[24], since[96];
        if (!t->has_change) {
            fprintf(out, "the last %zu runs are one segment: no change point%s\n", t->runs,
                    t->drifting ? " (they drift)" : "");
            continue;
        }
        fmt_pct(pct, sizeof(pct), s->tip_pct);
        fmt_ci(ci, sizeof(ci), s->tip_lo, s->tip_hi);
        fmt_p(p, sizeof(p), t->p);
        fmt_p(q, sizeof(q), t->q);
        fmt_run(since, sizeof(since), h, &s->pts[t->since]);
        fprintf(out, "the last %zu runs moved %s %s since %s (p %s q %s): %s\n", t->runs, pct, ci,
                since, p, q,
                t->moved ? "beyond the margin, the gate fails"
                         : "not beyond the margin, it passes");
    }
}

/* ---- JSON -------------------------------------------------------------------------- */

static json_t *str_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

/* A change's numbers in the JSON convention of compare and ab (JSON in
 * noisefloor(1)):
 * change_pct, the change of the means on the metric's own scale;
 * change_better_pct, the same with + as better; test_change_pct, the
 * change the test estimates (here the same: the segments' means), and its
 * CI at ci_level_pct. */
static void change_json(json_t *o, const struct nf_history *h, const struct nf_hist_series *s,
                        double base, double pct, double lo, double hi)
{
    json_object_set_new(o, "change_pct", nf_json_num(pct));
    json_object_set_new(o, "change_better_pct",
                        nf_json_num(nf_compare_oriented_at(base, pct, s->better)));
    json_object_set_new(o, "test_change_pct", nf_json_num(pct));
    json_object_set_new(o, "ci_low_pct", nf_json_num(lo));
    json_object_set_new(o, "ci_high_pct", nf_json_num(hi));
    json_object_set_new(o, "ci_level_pct", json_real(100 * (1 - h->q.cp.alpha)));
}

static json_t *series_json(const struct nf_history *h, const struct nf_hist_series *s,
                           const struct nf_hist_render *r)
{
    json_t *o = json_object(), *args = json_array(), *pts = json_array(), *cps = json_array();
    json_object_set_new(o, "workload", json_string(s->workload));
    for (size_t a = 0; a < s->nargs; a++)
        json_array_append_new(args, json_string(s->args[a]));
    json_object_set_new(o, "args", args);
    json_object_set_new(o, "metric", json_string(s->metric));
    json_object_set_new(o, "unit", json_string(s->unit));
    json_object_set_new(o, "better", json_string(nf_better_name(s->better)));
    json_object_set_new(o, "host", str_or_null(s->host));
    for (size_t i = 0; i < s->n; i++) {
        const struct nf_hist_point *p = &s->pts[i];
        json_array_append_new(pts, json_pack("{sI so so ss so sI so}", "run", (json_int_t)p->run,
                                             "label", str_or_null(p->label), "commit",
                                             str_or_null(p->commit), "started", p->started, "mean",
                                             nf_json_num(p->mean), "n", (json_int_t)p->n, "sd",
                                             nf_json_num(p->sd)));
    }
    json_object_set_new(o, "points", pts);
    for (size_t i = 0; i < s->cp.ncp; i++) {
        const struct nf_hist_change *c = &s->chg[i];
        char *line = nf_hist_bisect_line(s, i, r);
        json_t *j = json_object();
        json_object_set_new(j, "index", json_integer((json_int_t)c->cp->index));
        json_object_set_new(j, "before_run", json_integer(s->pts[c->cp->prev].run));
        json_object_set_new(j, "after_run", json_integer(s->pts[c->cp->index].run));
        json_object_set_new(j, "before_mean", nf_json_num(c->before));
        json_object_set_new(j, "after_mean", nf_json_num(c->after));
        change_json(j, h, s, c->before, c->change_pct, c->ci_low_pct, c->ci_high_pct);
        json_object_set_new(j, "p", nf_json_num(c->cp->p));
        json_object_set_new(j, "q", nf_json_num(c->cp->q));
        json_object_set_new(j, "beyond_threshold", json_boolean(c->cp->beyond_threshold));
        json_object_set_new(j, "verdict", json_string(nf_hist_verdict(s, i + 1)));
        json_object_set_new(j, "bisect", line ? json_string(line) : json_null());
        free(line);
        json_array_append_new(cps, j);
    }
    json_object_set_new(o, "change_points", cps);
    json_object_set_new(o, "too_short", json_boolean(s->cp.too_short));
    json_t *segs = json_array();
    for (size_t j = 0; j < s->cp.nseg && !s->cp.too_short; j++)
        json_array_append_new(
            segs, json_pack("{sI sI sI so ss}", "from_run", (json_int_t)s->pts[seg_first(s, j)].run,
                            "to_run", (json_int_t)s->pts[seg_last(s, j)].run, "runs",
                            (json_int_t)s->cp.seg[j].runs, "mean", nf_json_num(s->seg_mean[j]),
                            "verdict", nf_hist_verdict(s, j)));
    json_object_set_new(o, "segments", segs);
    json_t *outl = json_array();
    for (size_t k = 0; k < s->cp.noutlier; k++)
        json_array_append_new(outl, json_integer(s->pts[s->cp.outlier[k]].run));
    json_object_set_new(o, "outliers", outl);
    json_t *dr = json_array();
    for (size_t k = 0; k < s->cp.ndrift; k++) {
        const struct nf_cp_drift *d = &s->cp.drift[k];
        json_t *j = json_pack("{sI sI sI}", "from_run", (json_int_t)s->pts[d->from].run, "to_run",
                              (json_int_t)s->pts[d->to - 1].run, "runs", (json_int_t)d->runs);
        change_json(j, h, s, s->pts[d->from].mean, s->drift_pct[k], s->drift_lo[k], s->drift_hi[k]);
        json_object_set_new(j, "p", nf_json_num(d->p));
        json_object_set_new(j, "q", nf_json_num(d->q));
        json_array_append_new(dr, j);
    }
    json_object_set_new(o, "drifts", dr);
    const struct nf_cp_tip *t = &s->tip;
    json_t *tip = json_object();
    json_object_set_new(tip, "runs", json_integer((json_int_t)t->runs));
    json_object_set_new(tip, "moved", json_boolean(t->moved));
    json_object_set_new(tip, "since_run",
                        t->has_change ? json_integer(s->pts[t->since].run) : json_null());
    /* the tip's change against the segment before it (NAN, null, without one) */
    change_json(tip, h, s, t->has_change && t->since ? s->pts[t->since - 1].mean : NAN,
                t->has_change ? s->tip_pct : NAN, t->has_change ? s->tip_lo : NAN,
                t->has_change ? s->tip_hi : NAN);
    if (!t->has_change)
        json_object_set_new(tip, "ci_level_pct", json_null());
    json_object_set_new(o, "tip", tip);
    /* Step 6 of the detection (doc/statistics.md): the points' lag-1 r
     * around the first fit, its p, and the AR(1) coefficient the tests
     * allowed for (0: taken as independent); null when not tested. */
    json_t *ser = json_null();
    if (isfinite(s->cp.serial_p))
        ser = json_pack("{so so so}", "lag1_r", nf_json_num(s->cp.serial_r), "p",
                        nf_json_num(s->cp.serial_p), "rho", nf_json_num(s->cp.serial_rho));
    json_object_set_new(o, "serial", ser);
    json_t *notes = json_array();
    for (size_t k = 0; k < s->nnotes; k++)
        json_array_append_new(notes, json_string(s->notes[k]));
    json_object_set_new(o, "notes", notes);
    return o;
}

json_t *nf_history_json(const struct nf_history *h, const struct nf_hist_render *r)
{
    json_t *o = json_object(), *a = json_array();
    json_object_set_new(o, "by", json_string(order_words(h->q.by) + 3));
    json_object_set_new(o, "alpha", json_real(h->q.cp.alpha));
    json_object_set_new(o, "threshold_pct", json_real(h->q.cp.threshold_pct));
    json_object_set_new(o, "min_segment", json_integer((json_int_t)h->q.cp.min_seg));
    for (size_t i = 0; i < h->n; i++)
        json_array_append_new(a, series_json(h, &h->s[i], r));
    json_object_set_new(o, "series", a);
    return o;
}
