/* bisect_sim.c — simulated bisections over a linear range (doc/bisect.md,
 * "Simulation"). */
#include "stats/bisect_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "stats/tests.h"

void nf_bsim_round(struct nf_bsim_env *e)
{
    e->rounds++;
    e->round_factor = e->noise.round_cv > 0 ? 1 + gsl_ran_gaussian(e->rng, e->noise.round_cv) : 1;
}

double nf_bsim_measure(struct nf_bsim_env *e, size_t rev)
{
    const struct nf_bsim_truth *t = &e->truth;
    double mu = 100 * (t->first_bad && rev >= t->first_bad ? 1 + t->change : 1);
    double z = gsl_ran_gaussian(e->rng, 1);
    double x = e->noise.dist == NF_BSIM_LOGNORMAL ? exp(e->noise.cv * z) : 1 + e->noise.cv * z;
    e->measurements++;
    x *= mu * e->round_factor;
    return x > 1e-9 ? x : 1e-9; /* a normal draw below 0 at a huge CV */
}

int nf_bsim_bisect(const struct nf_bsim_rule *rule, const struct nf_bsim_truth *t,
                   const struct nf_bsim_noise *noise, gsl_rng *rng, struct nf_bsim_outcome *out)
{
    if (!rule || !t || !noise || !rng || !out || t->candidates == 0)
        return -1;
    memset(out, 0, sizeof *out);
    struct nf_bsim_env e = {*t, *noise, rng, 1, 0, 0};
    int dir = 0, rc = rule->endpoint(rule->ctx, &e, &dir);
    if (rc < 0)
        return -1;
    out->result = NF_BSIM_NOTHING;
    if (rc == 1) {
        size_t good = 0, bad = t->candidates, j = 0;
        out->result = NF_BSIM_FOUND;
        while (bad - good > 1) {
            size_t mid = good + (bad - good) / 2;
            int d = rule->step(rule->ctx, &e, j++, mid, dir);
            if (d < 0)
                return -1;
            if (d == NF_BSTEP_GOOD) {
                good = mid;
            } else if (d == NF_BSTEP_BAD) {
                bad = mid;
            } else {
                out->result = NF_BSIM_BETWEEN;
                out->named = mid;
                break;
            }
        }
        out->steps = j;
        if (out->result == NF_BSIM_FOUND) {
            out->named = bad;
            if (rule->confirm) {
                int c = rule->confirm(rule->ctx, &e, bad, dir);
                if (c < 0)
                    return -1;
                if (!c)
                    out->result = NF_BSIM_UNCONFIRMED;
            }
        }
    }
    out->rounds = e.rounds;
    out->measurements = e.measurements;
    return 0;
}

int nf_bsim_many(const struct nf_bsim_rule *rule, const struct nf_bsim_truth *t, int at_random,
                 const struct nf_bsim_noise *noise, size_t count, unsigned long seed,
                 struct nf_bsim_tally *out)
{
    if (!out || !t || count == 0)
        return -1;
    memset(out, 0, sizeof *out);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    if (!g)
        return -1;
    gsl_rng_set(g, seed);
    double rounds = 0, meas = 0, steps = 0;
    for (size_t i = 0; i < count; i++) {
        struct nf_bsim_truth ti = *t;
        if (at_random && ti.first_bad)
            ti.first_bad = 1 + gsl_rng_uniform_int(g, ti.candidates);
        struct nf_bsim_outcome o;
        if (nf_bsim_bisect(rule, &ti, noise, g, &o) < 0) {
            gsl_rng_free(g);
            return -1;
        }
        out->count++;
        switch (o.result) {
        case NF_BSIM_FOUND:
            if (ti.first_bad && o.named == ti.first_bad)
                out->right++;
            else
                out->wrong++;
            break;
        case NF_BSIM_NOTHING: out->nothing++; break;
        case NF_BSIM_BETWEEN: out->between++; break;
        case NF_BSIM_UNCONFIRMED:
            out->unconfirmed++;
            out->unconfirmed_right += ti.first_bad && o.named == ti.first_bad;
            break;
        }
        rounds += (double)o.rounds;
        meas += (double)o.measurements;
        steps += (double)o.steps;
        if (o.rounds > out->max_rounds)
            out->max_rounds = o.rounds;
    }
    gsl_rng_free(g);
    out->mean_rounds = rounds / (double)count;
    out->mean_measurements = meas / (double)count;
    out->mean_steps = steps / (double)count;
    return 0;
}

/* ---- The sequential rule ------------------------------------------------- */

struct seq_ctx {
    const struct nf_bisect_plan *p;
    int head_start;
    int boots; /* kernel mode: each value its own boot (its own round) */
    size_t cap, n_head;
    double *g, *b, *c;
    struct nf_bdelta delta;
    struct nf_bstep_design extra; /* the design of a step beyond the plan */
};

/* Rounds of GOOD and BAD until the endpoint check stops; in kernel mode
 * (s->boots) a boot of each, kept for every step to reuse (doc/bisect.md,
 * "Kernel mode"). */
static int seq_endpoint(void *ctx, struct nf_bsim_env *e, int *direction)
{
    struct seq_ctx *s = ctx;
    size_t bad = e->truth.candidates;
    memset(&s->delta, 0, sizeof s->delta);
    s->n_head = 0;
    for (size_t n = 1; n <= s->p->o.ep_max; n++) {
        nf_bsim_round(e);
        s->g[n - 1] = nf_bsim_measure(e, 0);
        if (s->boots)
            nf_bsim_round(e);
        s->b[n - 1] = nf_bsim_measure(e, bad);
        if (s->head_start)
            s->c[n - 1] = nf_bsim_measure(e, bad / 2);
        if (n < s->p->o.ep_min && n < s->p->o.ep_max)
            continue;
        struct nf_bep r;
        if (nf_bisect_endpoint_eval(s->p, s->g, s->b, n, 0, 0, &r) < 0)
            return -1;
        if (r.result == NF_BEP_CONTINUE)
            continue;
        *direction = r.direction;
        if (s->head_start || s->boots)
            s->n_head = n; /* the head start's pairs, or the boots kept */
        if (!s->head_start)
            for (size_t i = 0; i < n; i++)
                nf_bdelta_add(&s->delta, s->g[i], s->b[i]);
        return r.result == NF_BEP_CHANGE;
    }
    return -1; /* the last look always stops */
}

/* The design of step j at budget level: the plan's, or beyond the plan's
 * steps one made now (NULL: none). */
static const struct nf_bstep_design *step_design(struct seq_ctx *s, size_t j, int level)
{
    if (j < s->p->alloc.planned_steps)
        return &s->p->step[level];
    return nf_bisect_step_design(s->p, j, level, &s->extra) < 0 ? NULL : &s->extra;
}

static int seq_step(void *ctx, struct nf_bsim_env *e, size_t j, size_t rev, int direction)
{
    struct seq_ctx *s = ctx;
    /* the first step's budget from the endpoint check's pairs, with or
     * without the head start */
    struct nf_bdelta w = s->delta;
    if (j == 0 && s->n_head)
        for (size_t i = 0; i < s->n_head; i++)
            nf_bdelta_add(&w, s->g[i], s->b[i]);
    const struct nf_bstep_design *d = step_design(s, j, nf_bisect_budget(s->p, &w));
    struct nf_bstep st;
    if (!d || nf_bstep_begin(&st, d, direction, &s->delta) < 0)
        return -1;
    int r = NF_BSTEP_CONTINUE;
    if (j == 0 && s->n_head) /* the endpoint check's rounds measured it already */
        for (size_t i = 0; i < s->n_head && r == NF_BSTEP_CONTINUE; i++)
            r = nf_bstep_add(&st, s->g[i], s->b[i], s->c[i], 0);
    size_t bad = e->truth.candidates;
    while (r == NF_BSTEP_CONTINUE) {
        nf_bsim_round(e);
        double g = nf_bsim_measure(e, 0), b = nf_bsim_measure(e, bad);
        r = nf_bstep_add(&st, g, b, nf_bsim_measure(e, rev), 0);
    }
    s->delta = st.w;
    return r;
}

static int seq_confirm(void *ctx, struct nf_bsim_env *e, size_t rev, int direction)
{
    struct seq_ctx *s = ctx;
    struct nf_bcf c;
    if (nf_bcf_begin(&c, s->p, direction, &s->delta) < 0)
        return -1;
    int r = NF_BCF_CONTINUE;
    while (r == NF_BCF_CONTINUE) {
        nf_bsim_round(e);
        double parent = nf_bsim_measure(e, rev - 1);
        if (s->boots)
            nf_bsim_round(e);
        r = nf_bcf_add(&c, parent, nf_bsim_measure(e, rev), 0);
    }
    return r < 0 ? -1 : r == NF_BCF_CONFIRMED;
}

/* Kernel mode's step: GOOD's and BAD's boots kept and reused pair by pair,
 * only the candidate booted while they last (doc/bisect.md, "Kernel
 * mode"). */
static int ker_step(void *ctx, struct nf_bsim_env *e, size_t j, size_t rev, int direction)
{
    struct seq_ctx *s = ctx;
    const struct nf_bstep_design *d = step_design(s, j, nf_bisect_budget(s->p, &s->delta));
    struct nf_bstep st;
    if (!d || nf_bstep_begin_reuse(&st, d, direction, &s->delta, s->n_head) < 0)
        return -1;
    size_t bad = e->truth.candidates;
    int r = NF_BSTEP_CONTINUE;
    for (size_t i = 0; r == NF_BSTEP_CONTINUE; i++) {
        if (i >= s->n_head) { /* more rounds than kept boots: boot both again */
            if (s->n_head >= s->cap)
                return -1;
            nf_bsim_round(e);
            s->g[s->n_head] = nf_bsim_measure(e, 0);
            nf_bsim_round(e);
            s->b[s->n_head] = nf_bsim_measure(e, bad);
            s->n_head++;
        }
        nf_bsim_round(e);
        r = nf_bstep_add(&st, s->g[i], s->b[i], nf_bsim_measure(e, rev), 0);
    }
    s->delta = st.w;
    return r;
}

int nf_bsim_rule_kernel(struct nf_bsim_rule *rule, const struct nf_bisect_plan *p)
{
    if (nf_bsim_rule_sequential(rule, p, 0) < 0)
        return -1;
    struct seq_ctx *s = rule->ctx;
    s->cap = p->o.ep_max + (p->o.step_max << (NF_BISECT_LEVELS - 1));
    double *g = realloc(s->g, s->cap * sizeof *g);
    if (g)
        s->g = g;
    double *b = g ? realloc(s->b, s->cap * sizeof *b) : NULL;
    if (b)
        s->b = b;
    s->boots = 1;
    rule->name = "kernel";
    rule->step = ker_step;
    if (!g || !b) {
        nf_bsim_rule_free(rule);
        return -1;
    }
    return 0;
}

int nf_bsim_rule_sequential(struct nf_bsim_rule *rule, const struct nf_bisect_plan *p,
                            int head_start)
{
    memset(rule, 0, sizeof *rule);
    struct seq_ctx *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->p = p;
    s->head_start = head_start;
    s->cap = p->o.ep_max;
    s->g = malloc(s->cap * sizeof *s->g);
    s->b = malloc(s->cap * sizeof *s->b);
    s->c = malloc(s->cap * sizeof *s->c);
    rule->name = head_start ? "sequential, head start" : "sequential";
    rule->ctx = s;
    rule->endpoint = seq_endpoint;
    rule->step = seq_step;
    rule->confirm = seq_confirm;
    if (!s->g || !s->b || !s->c) {
        nf_bsim_rule_free(rule);
        return -1;
    }
    return 0;
}

/* ---- The fixed design ---------------------------------------------------- */

struct fixed_ctx {
    size_t reps;
    double alpha;
    double *g, *c; /* GOOD's reference values, the candidate's */
};

static int fixed_endpoint(void *ctx, struct nf_bsim_env *e, int *direction)
{
    struct fixed_ctx *f = ctx;
    for (size_t i = 0; i < f->reps; i++) {
        nf_bsim_round(e);
        f->g[i] = nf_bsim_measure(e, 0);
    }
    /* the user knows which way BAD went: that is why they bisect */
    *direction = e->truth.first_bad && e->truth.change < 0 ? -1 : 1;
    return 1;
}

static int fixed_step(void *ctx, struct nf_bsim_env *e, size_t j, size_t rev, int direction)
{
    (void)j;
    struct fixed_ctx *f = ctx;
    for (size_t i = 0; i < f->reps; i++) {
        nf_bsim_round(e);
        f->c[i] = nf_bsim_measure(e, rev);
    }
    struct nf_welch w;
    if (nf_welch(f->g, f->reps, f->c, f->reps, &w) < 0)
        return -1;
    int toward = (w.t < 0 ? 1 : -1) == direction;
    return w.p < f->alpha && toward ? NF_BSTEP_BAD : NF_BSTEP_GOOD;
}

int nf_bsim_rule_fixed(struct nf_bsim_rule *rule, size_t reps, double alpha)
{
    memset(rule, 0, sizeof *rule);
    if (reps < 2 || !(alpha > 0 && alpha < 1))
        return -1;
    struct fixed_ctx *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    f->reps = reps;
    f->alpha = alpha;
    f->g = malloc(reps * sizeof *f->g);
    f->c = malloc(reps * sizeof *f->c);
    rule->name = "fixed";
    rule->ctx = f;
    rule->endpoint = fixed_endpoint;
    rule->step = fixed_step;
    rule->confirm = NULL;
    if (!f->g || !f->c) {
        nf_bsim_rule_free(rule);
        return -1;
    }
    return 0;
}

void nf_bsim_rule_free(struct nf_bsim_rule *rule)
{
    if (!rule || !rule->ctx)
        return;
    if (rule->endpoint == seq_endpoint) {
        struct seq_ctx *s = rule->ctx;
        free(s->g);
        free(s->b);
        free(s->c);
    } else {
        struct fixed_ctx *f = rule->ctx;
        free(f->g);
        free(f->c);
    }
    free(rule->ctx);
    rule->ctx = NULL;
}
