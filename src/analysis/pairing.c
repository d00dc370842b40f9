/* Paired comparisons by rounds and by hosts, and an ab session's
 * sequential verdict (see pairing.h). */
#include "analysis/pairing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/percentile.h"
#include "core/util.h"
#include "stats/autocorr.h"
#include "stats/paired.h"

const char *nf_pairing_name(enum nf_pairing p)
{
    switch (p) {
    case NF_PAIR_ROUNDS: return "rounds";
    case NF_PAIR_HOSTS: return "hosts";
    default: return "none";
    }
}

/* ---- The stored design ---------------------------------------------------- */

json_t *nf_ab_design_json(const struct nf_ab_design *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "order", json_string(d->order));
    json_object_set_new(o, "min_rounds", json_integer(d->min_rounds));
    json_object_set_new(o, "max_rounds", json_integer(d->max_rounds));
    json_object_set_new(o, "comparisons", json_integer(d->comparisons));
    json_object_set_new(o, "alpha", json_real(d->alpha));
    json_object_set_new(o, "threshold_pct", json_real(d->threshold_pct));
    json_object_set_new(o, "test", json_string(d->test));
    json_object_set_new(o, "metric", d->metric[0] ? json_string(d->metric) : json_null());
    return o;
}

static int get_str(const json_t *o, const char *key, char *buf, size_t len, int null_ok)
{
    const json_t *v = json_object_get(o, key);
    if (null_ok && (!v || json_is_null(v))) {
        buf[0] = 0;
        return 0;
    }
    if (!json_is_string(v) || strlen(json_string_value(v)) >= len)
        return -1;
    snprintf(buf, len, "%s", json_string_value(v));
    return 0;
}

int nf_ab_design_of(const struct nf_run *run, struct nf_ab_design *d)
{
    memset(d, 0, sizeof(*d));
    const json_t *o = run->env ? json_object_get(run->env, NF_AB_DESIGN_KEY) : NULL;
    if (!json_is_object(o))
        return -1;
    const json_t *mn = json_object_get(o, "min_rounds"), *mx = json_object_get(o, "max_rounds"),
                 *k = json_object_get(o, "comparisons"), *a = json_object_get(o, "alpha"),
                 *t = json_object_get(o, "threshold_pct");
    if (!json_is_integer(mn) || !json_is_integer(mx) || !json_is_integer(k) || !json_is_number(a) ||
        !json_is_number(t) || get_str(o, "order", d->order, sizeof(d->order), 0) ||
        get_str(o, "test", d->test, sizeof(d->test), 0) ||
        get_str(o, "metric", d->metric, sizeof(d->metric), 1))
        return -1;
    d->min_rounds = (long)json_integer_value(mn);
    d->max_rounds = (long)json_integer_value(mx);
    d->comparisons = (long)json_integer_value(k);
    d->alpha = json_number_value(a);
    d->threshold_pct = json_number_value(t);
    if (d->min_rounds < 2 || d->max_rounds < d->min_rounds || d->comparisons < 1 ||
        !(d->alpha > 0 && d->alpha < 1) || !(d->threshold_pct >= 0))
        return -1;
    return 0;
}

/* ---- One label's runs of a block ------------------------------------------ */

struct side {
    const char *label;
    struct nf_run **runs;
    const struct nf_metric **ms;
    size_t k;
};

static void side_of(const struct nf_label_runs *lr, const struct nf_cmp_block *b, struct side *s)
{
    s->label = lr->label;
    s->runs = nf_xcalloc(lr->nruns ? lr->nruns : 1, sizeof(*s->runs));
    s->ms = nf_xcalloc(lr->nruns ? lr->nruns : 1, sizeof(*s->ms));
    s->k = 0;
    for (size_t r = 0; r < lr->nruns; r++) {
        struct nf_run *run = lr->runs[r];
        if (strcmp(run->workload, b->workload) != 0)
            continue;
        const struct nf_metric *m = nf_run_find(run, b->metric);
        if (!m || !m->supported || !m->n)
            continue;
        s->runs[s->k] = run;
        s->ms[s->k++] = m;
    }
}

static void side_free(struct side *s)
{
    free(s->runs);
    free(s->ms);
}

/* Does test t pair rows (its row's paired form, stats/testrow.h)? */
static int pairs_test(enum nf_test t)
{
    const struct nf_test_row *row = nf_test_row(t);
    return row && row->paired_form != NF_PAIRED_NONE;
}

/* What runs on a paired row: the test's paired form, or for a test that
 * has none (yuen, bootstrap), the paired t (doc/statistics.md). */
static const char *paired_test_name(enum nf_test t)
{
    const struct nf_test_row *row = nf_test_row(t);
    return row && row->paired_words ? row->paired_words : "paired t";
}

/* What a note adds after it for a test that has no paired form
 * ("; --test yuen has no paired form"), in buf. */
static const char *no_paired_form(enum nf_test t, char *buf, size_t len)
{
    const struct nf_test_row *row = nf_test_row(t);
    buf[0] = 0;
    if (row && row->paired_form != NF_PAIRED_NONE && !row->own_paired)
        snprintf(buf, len, "; --test %s has no paired form", nf_test_name(t));
    return buf;
}

/* Did the session's design, whose test is named name, rank its pairs
 * (the signed-rank form) rather than run the paired t?  An unknown name:
 * no. */
static int session_ranked(const char *name)
{
    enum nf_test t;
    return nf_test_parse(name, &t) == 0 && nf_test_pairs_by_rank(t);
}

/* Pairs (rounds or hosts) for a CI half-width of threshold/2 at the spread
 * of the log-ratios: nf_runs_needed's two-sample formula, whose difference
 * has the variance 2 cv^2, with cv = sd(d) / sqrt 2. */
static size_t pairs_needed(const double *base, const double *var, size_t n, int rate,
                           const struct nf_cmp_opts *o)
{
    double *d = nf_xcalloc(n, sizeof(double));
    struct nf_paired_t t;
    size_t need = 0;
    if (nf_log_ratios(base, var, n, rate, d) == 0 && nf_paired_t(d, n, &t) == 0)
        need = nf_runs_needed(t.sd * 100 / sqrt(2.0), o->threshold_pct, o->alpha);
    free(d);
    return need;
}

/* ---- By rounds ------------------------------------------------------------ */

/* Serial correlation of the rounds' log-ratios (doc/statistics.md, "Serial
 * correlation"): say when the paired t was widened for it, or when utest,
 * which is not widened, sees it at alpha. */
static void serial_note(struct nf_cmp_cell *cell, const char *label, double alpha)
{
    const struct nf_serial *s = &cell->serial;
    if (!s->ac.n)
        return;
    if (s->widened)
        nf_cmp_note(cell,
                    "%s: the rounds' log-ratios are serially correlated (lag-1 r %.2f, p %.3g): "
                    "CI widened for it (variance of the mean x%.2f)",
                    label, s->ac.r, s->ac.p_pos, s->f);
    else if (s->ac.p_pos < alpha)
        nf_cmp_note(cell,
                    "%s: the rounds' log-ratios are serially correlated (lag-1 r %.2f, p %.3g); "
                    "the signed-rank test is not widened for it: its p and CI are too small",
                    label, s->ac.r, s->ac.p_pos);
}

/* A log-ratio needs values > 0 on both sides (counts of 0, a command's
 * sys time of 0 are compared unpaired). */
static int positive(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(x[i] > 0) || !isfinite(x[i]))
            return 0;
    return 1;
}

static int all_zero(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (x[i] != 0)
            return 0;
    return 1;
}

/* One run each, of one interleaved session, value counts within one: the
 * rounds to pair, or 0. */
static size_t rounds_of(const struct side *a, const struct side *v, struct nf_ab_design *d,
                        int *has_design, struct nf_cmp_cell *cell)
{
    *has_design = 0;
    if (a->k != 1 || v->k != 1)
        return 0;
    const struct nf_run *ra = a->runs[0], *rv = v->runs[0];
    if (!ra->session || !rv->session || strcmp(ra->session, rv->session) != 0)
        return 0;
    *has_design = nf_ab_design_of(ra, d) == 0;
    if (*has_design && strcmp(d->order, "sequential") == 0) {
        nf_cmp_note(cell, "%s: not paired by round: ab session %s ran in sequential order",
                    v->label, ra->session);
        return 0;
    }
    size_t na = a->ms[0]->n, nv = v->ms[0]->n, n = na < nv ? na : nv;
    if (n < 2 || (na > nv ? na - nv : nv - na) > 1)
        return 0;
    if (!positive(a->ms[0]->values, n) || !positive(v->ms[0]->values, n)) {
        /* a count that stayed 0 on both sides has nothing to pair */
        if (!all_zero(a->ms[0]->values, n) || !all_zero(v->ms[0]->values, n))
            nf_cmp_note(cell, "%s: not paired by round: a value <= 0 has no log-ratio", v->label);
        return 0;
    }
    return n;
}

/* The design for so: the last one computed when so is the same.  An ab
 * session rebuilds its comparison after every round (analysis/ab_stop.c),
 * each time with the same design, whose boundaries take milliseconds of
 * numerical integration; nf_seq_design_init is a function of so alone, so
 * the copy is what it would compute again.  Per thread, so that nothing
 * is shared. */
static int design_of(const struct nf_seq_opts *so, struct nf_seq_design *sd)
{
    static _Thread_local struct nf_seq_opts last_o;
    static _Thread_local struct nf_seq_design last;
    static _Thread_local int have;
    /* compared bit for bit (0 and -0 differ): the struct has no padding */
    _Static_assert(sizeof(struct nf_seq_opts) == 2 * sizeof(size_t) + 2 * sizeof(double),
                   "struct nf_seq_opts has padding");
    if (have && memcmp(&last_o, so, sizeof(*so)) == 0) {
        *sd = last;
        return 0;
    }
    if (nf_seq_design_init(sd, so))
        return -1;
    last_o = *so;
    last = *sd;
    have = 1;
    return 0;
}

/* A deciding row of a session with a design: replay the design. */
static void sequential(const struct nf_comparison *c, const struct nf_cmp_block *b,
                       struct nf_cmp_cell *cell, const struct side *a, const struct side *v,
                       const struct nf_ab_design *d, size_t n, int live)
{
    const struct nf_cmp_opts *o = &c->opts;
    struct nf_seq_design *sd = nf_xcalloc(1, sizeof(*sd));
    struct nf_seq_opts so = {(size_t)d->min_rounds, (size_t)d->max_rounds,
                             o->alpha / (double)d->comparisons, o->threshold_pct};
    struct nf_seq_look *l = &cell->look;
    size_t held = 0; /* a percentile's crossing held back (analysis/percentile.h) */
    if (design_of(&so, sd) ||
        (b->family ? nf_pct_seq_replay(sd, a->ms[0]->values, v->ms[0]->values, n, b->rate, o->test,
                                       b->better, !live, l, &held)
                   : nf_seq_replay(sd, a->ms[0]->values, v->ms[0]->values, n, b->rate, o->test,
                                   b->better, !live, l))) {
        free(sd);
        return; /* the fixed-sample paired result stands */
    }
    cell->sequential = 1;
    cell->verdict = l->verdict;
    cell->significant = l->action != NF_SEQ_CONTINUE && l->significant;
    cell->p_adjusted = 1;
    /* An equivalence stop shows the interval that decided it, the repeated
     * CI at the equivalence level (inside the margin); otherwise the one
     * at the effect level (excluding 0 exactly when that boundary was
     * crossed). */
    int eq = l->action == NF_SEQ_STOP_EQUIVALENT;
    double level = eq ? 2 * l->level_equiv : l->level_effect;
    if (l->look >= 0 && isfinite(l->change_pct)) {
        cell->r.change_pct = l->change_pct;
        cell->r.ci_low_pct = eq ? l->eq_low_pct : l->ci_low_pct;
        cell->r.ci_high_pct = eq ? l->eq_high_pct : l->ci_high_pct;
        cell->r.p_value = l->p_value;
        /* scaled so that it is below alpha exactly when the boundary was
         * crossed (doc/ab.md, "compare after ab") */
        if (l->level_effect > 0 && isfinite(l->p_value))
            cell->p_adjusted = fmin(1, l->p_value * o->alpha / l->level_effect);
    }
    if (live) {
        free(sd);
        return;
    }
    char split[64] = "";
    if (d->comparisons > 1)
        snprintf(split, sizeof(split), ", alpha %g over %ld comparisons", o->alpha, d->comparisons);
    char head[256];
    snprintf(head, sizeof(head), "%s: the session's sequential design (rounds %ld:%ld%s)", v->label,
             d->min_rounds, d->max_rounds, split);
    if (l->look < 0)
        nf_cmp_note(cell,
                    "%s: the session ended after %zu rounds, before its first look (round %zu): "
                    "no verdict",
                    head, n, sd->rounds[0]);
    else if (l->action == NF_SEQ_STOP_EFFECT || eq)
        nf_cmp_note(
            cell, "%s: %s at round %zu%s (%s z %.2f, boundary %.2f); CI: the repeated %.2f%% CI",
            head, nf_seq_action_name(l->action), l->rounds, l->rounds < n ? " (settled there)" : "",
            eq ? "equivalence" : "effect", eq ? l->z_equiv : l->z_effect,
            eq ? l->bound_equiv : l->bound_effect, 100 * (1 - level));
    else
        nf_cmp_note(cell, "%s: no boundary crossed by round %zu, %s; CI: the repeated %.2f%% CI",
                    head, l->rounds,
                    l->rounds >= (size_t)d->max_rounds ? "the last look (futility)"
                                                       : "where the session ended (its last look)",
                    100 * (1 - level));
    if (held) {
        size_t first = nf_pct_first_look(sd);
        char when[160];
        if (first)
            snprintf(when, sizeof(when), "this design's first such look is round %zu", first);
        else
            snprintf(when, sizeof(when),
                     "no look of this design is (its last, round %zu, has level %.2g: %zu rounds "
                     "reach it)",
                     sd->rounds[sd->nlooks - 1], sd->level_effect[sd->nlooks - 1],
                     nf_pct_sign_rounds(sd->level_effect[sd->nlooks - 1]));
        nf_cmp_note(cell,
                    "%s: the effect boundary was crossed at round %zu, too few rounds for a "
                    "percentile's verdict: a percentile decides only where its rounds' signs alone "
                    "could reach the look's level (2^(1-n) <= level; doc/ab.md); %s",
                    v->label, held, when);
    }
    /* the deciding look's rounds, as its CI */
    memset(&cell->serial, 0, sizeof cell->serial);
    cell->serial.ac.n = isfinite(l->serial_r) ? l->rounds : 0;
    cell->serial.ac.r = l->serial_r;
    cell->serial.ac.p_pos = l->serial_p;
    cell->serial.widened = l->serial_f > 1;
    cell->serial.f = l->serial_f;
    serial_note(cell, v->label, o->alpha);
    if (fabs(d->alpha - o->alpha) > 1e-12 || fabs(d->threshold_pct - o->threshold_pct) > 1e-12 ||
        session_ranked(d->test) != nf_test_pairs_by_rank(o->test))
        nf_cmp_note(
            cell,
            "%s: the session decided with --alpha %g --threshold %g --test %s; give those to "
            "reproduce its verdict",
            v->label, d->alpha, d->threshold_pct, d->test);
    free(sd);
}

static int by_rounds(const struct nf_comparison *c, const struct nf_cmp_block *b,
                     struct nf_cmp_cell *cell, const struct side *a, const struct side *v, int live)
{
    struct nf_ab_design d;
    int has_design;
    size_t n = rounds_of(a, v, &d, &has_design, cell);
    if (!n)
        return 0;
    const struct nf_metric *ma = a->ms[0], *mv = v->ms[0];
    cell->pairing = NF_PAIR_ROUNDS;
    cell->npairs = n;
    nf_compare_paired_serial(ma->values, mv->values, n, b->rate, &c->opts, &cell->r, &cell->serial);
    cell->runs_needed = pairs_needed(ma->values, mv->values, n, b->rate, &c->opts);
    if (!live) {
        char nopair[64];
        nf_cmp_note(
            cell,
            "%s: paired by round with %s (%zu rounds of ab session %s; %s on the log-ratios%s)",
            v->label, a->label, n, a->runs[0]->session, paired_test_name(c->opts.test),
            no_paired_form(c->opts.test, nopair, sizeof(nopair)));
        if (ma->n != mv->n)
            nf_cmp_note(cell,
                        "%s: the last value of %s has no partner (an interrupted round); left out",
                        v->label, ma->n > mv->n ? a->label : v->label);
    }
    int decides = d.metric[0] ? strcmp(b->metric, d.metric) == 0 : b->primary;
    if (has_design && decides)
        sequential(c, b, cell, a, v, &d, n, live);
    else if (!live)
        serial_note(cell, v->label, c->opts.alpha);
    return 1;
}

/* ---- By hosts ------------------------------------------------------------- */

static const char *host_of(const struct nf_run *run)
{
    const json_t *h = run->env ? json_object_get(run->env, "hostname") : NULL;
    return json_is_string(h) && json_string_value(h)[0] ? json_string_value(h) : NULL;
}

static int has_host(const struct side *s, const char *host)
{
    for (size_t i = 0; i < s->k; i++)
        if (strcmp(host_of(s->runs[i]), host) == 0)
            return 1;
    return 0;
}

/* One label's mean on one host, as the tables summarise a label
 * (nf_summary_mean): harmonic for rates, 0 when a value is 0 (its limit),
 * NAN when one is below 0. */
static double host_mean(const struct side *s, const char *host, int rate)
{
    size_t total = 0;
    for (size_t i = 0; i < s->k; i++)
        if (strcmp(host_of(s->runs[i]), host) == 0)
            total += s->ms[i]->n;
    double *x = nf_xcalloc(total, sizeof(double));
    size_t off = 0;
    for (size_t i = 0; i < s->k; i++)
        if (strcmp(host_of(s->runs[i]), host) == 0) {
            memcpy(x + off, s->ms[i]->values, s->ms[i]->n * sizeof(double));
            off += s->ms[i]->n;
        }
    struct nf_summary sum;
    double m = nf_summarize(x, total, &sum) == 0 ? nf_summary_mean(&sum, rate) : NAN;
    free(x);
    return m;
}

/* The first host of hosts[0..n) on which side s's mean is not above 0
 * (no log-ratio), its mean in *m; NULL when there is none. */
static const char *host_not_positive(const struct side *s, const char *const *hosts, size_t n,
                                     int rate, double *m)
{
    for (size_t j = 0; j < n; j++) {
        if (!has_host(s, hosts[j]))
            continue;
        *m = host_mean(s, hosts[j], rate);
        if (!(*m > 0))
            return hosts[j];
    }
    return NULL;
}

/* "B: not paired by host: the mean of B on h2 is 0 (a rate with a value
 * of 0)" + tail, for the first host of hosts[0..n) on which v, or else a,
 * has a mean not above 0 (none: no note). */
static void note_not_positive(struct nf_cmp_cell *cell, const struct side *a, const struct side *v,
                              const char *const *hosts, size_t n, int rate, const char *tail)
{
    double m = NAN;
    const struct side *who = v;
    const char *h = host_not_positive(v, hosts, n, rate, &m);
    if (!h) {
        who = a;
        h = host_not_positive(a, hosts, n, rate, &m);
    }
    if (!h)
        return;
    char mean[64];
    if (rate && m == 0)
        snprintf(mean, sizeof(mean), "is 0 (a rate with a value of 0)");
    else if (rate)
        snprintf(mean, sizeof(mean), "is none (a rate with a value below 0)");
    else
        snprintf(mean, sizeof(mean), "is %.4g", m);
    nf_cmp_note(cell, "%s: not paired by host: the mean of %s on %s %s%s", v->label, who->label, h,
                mean, tail);
}

/* "h1, h2, h3" into buf */
static void join(char *buf, size_t len, const char *const *names, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && k + 1 < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "", names[i]);
}

static int by_hosts(const struct nf_comparison *c, const struct nf_cmp_block *b,
                    struct nf_cmp_cell *cell, const struct side *a, const struct side *v, int live)
{
    const struct side *sides[2] = {a, v};
    char nopair[64];
    size_t nall = a->k + v->k, nh = 0;
    const char **hosts = nf_xcalloc(nall ? nall : 1, sizeof(char *));
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < sides[s]->k; i++) {
            const char *h = host_of(sides[s]->runs[i]);
            if (!h) {
                free(hosts);
                return 0;
            }
            size_t j = 0;
            while (j < nh && strcmp(hosts[j], h) != 0)
                j++;
            if (j == nh)
                hosts[nh++] = h;
        }
    if (nh < 2) {
        free(hosts);
        return 0;
    }
    const char **both = nf_xcalloc(nh, sizeof(char *)), **only_a = nf_xcalloc(nh, sizeof(char *)),
               **only_v = nf_xcalloc(nh, sizeof(char *));
    size_t nb = 0, na = 0, nv = 0;
    for (size_t j = 0; j < nh; j++) {
        int in_a = has_host(a, hosts[j]), in_v = has_host(v, hosts[j]);
        if (in_a && in_v)
            both[nb++] = hosts[j];
        else if (in_a)
            only_a[na++] = hosts[j];
        else
            only_v[nv++] = hosts[j];
    }
    char list[512];
    int paired = nb >= 2;
    double *xa = nf_xcalloc(nh, sizeof(double)), *xv = nf_xcalloc(nh, sizeof(double));
    for (size_t j = 0; j < nb; j++) {
        xa[j] = host_mean(a, both[j], b->rate);
        xv[j] = host_mean(v, both[j], b->rate);
    }
    if (paired && b->rate && (b->cells[0].nonpositive || cell->nonpositive)) {
        /* A rate with a value <= 0 gets no test (doc/statistics.md), also
         * when that value is on a host left out of the pairs. */
        paired = 0;
        if (!live)
            note_not_positive(cell, a, v, hosts, nh, b->rate, ", and such a rate gets no test");
    } else if (paired && (!positive(xa, nb) || !positive(xv, nb))) {
        paired = 0;
        if (!live)
            note_not_positive(cell, a, v, both, nb, b->rate, ", which has no log-ratio");
    }
    if (paired) {
        cell->pairing = NF_PAIR_HOSTS;
        cell->npairs = nb;
        nf_compare_paired(xa, xv, nb, b->rate, &c->opts, &cell->r);
        cell->runs_needed = pairs_needed(xa, xv, nb, b->rate, &c->opts);
        join(list, sizeof(list), both, nb);
        if (!live)
            nf_cmp_note(cell,
                        "%s: paired by host with %s: %zu hosts ran both (%s); per-host means "
                        "(over these hosts %s %.4g, %s %.4g), %s on their log-ratios%s",
                        v->label, a->label, nb, list, a->label, cell->r.base_mean, v->label,
                        cell->r.mean, paired_test_name(c->opts.test),
                        no_paired_form(c->opts.test, nopair, sizeof(nopair)));
    } else if (!live && nb < 2) {
        nf_cmp_note(cell,
                    "%s: runs from %zu hosts, but %s ran both %s and %s: not paired by host; "
                    "compared unpaired",
                    v->label, nh, nb ? "only one" : "none", a->label, v->label);
    }
    free(xa);
    free(xv);
    if (paired && !live && na) {
        join(list, sizeof(list), only_a, na);
        nf_cmp_note(cell, "%s: hosts that ran only %s, left out: %s", v->label, a->label, list);
    }
    if (paired && !live && nv) {
        join(list, sizeof(list), only_v, nv);
        nf_cmp_note(cell, "%s: hosts that ran only %s, left out: %s", v->label, v->label, list);
    }
    free(both);
    free(only_a);
    free(only_v);
    free(hosts);
    return paired;
}

void nf_pair_compare(const struct nf_comparison *c, struct nf_cmp_block *b, size_t l,
                     const struct nf_label_runs *in, int live)
{
    struct nf_cmp_cell *base = &b->cells[0], *cell = &b->cells[l];
    struct side a, v;
    side_of(&in[0], b, &a);
    side_of(&in[l], b, &v);
    int done = pairs_test(c->opts.test) &&
               (by_rounds(c, b, cell, &a, &v, live) || by_hosts(c, b, cell, &a, &v, live));
    if (!done) {
        cell->pairing = NF_PAIR_NONE;
        if ((base->summary_n || cell->summary_n) && c->opts.test == NF_TEST_WELCH)
            /* a perf stat -r block: its N and standard error (compare.c) */
            nf_compare_summary(base->s.mean, base->s.stddev,
                               base->summary_n ? base->summary_n : base->n, cell->s.mean,
                               cell->s.stddev, cell->summary_n ? cell->summary_n : cell->n,
                               &c->opts, &cell->r);
        else
            nf_compare_samples(base->units, base->n, cell->units, cell->n, b->rate, &c->opts,
                               &cell->r);
    }
    side_free(&a);
    side_free(&v);
}
