/* driver.c — userspace mode: the endpoint check, the steps and the
 * confirmation, each a session of interleaved rounds (bisect/bisect.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/bisect.h"
#include "bisect/git.h"
#include "bisect/out.h"
#include "bisect/tree.h"
#include "core/run.h"
#include "core/util.h"
#include "measure/repetition.h"
#include "measure/session.h"
#include "measure/variant.h"
#include "stats/bisect_rule.h"

/* One test being decided: its rule's state, fed round by round. */
struct test {
    struct nf_bstate *s;
    struct nf_btest *t;
    const struct nf_bisect_plan *p;
    enum nf_btest_kind kind;
    size_t max_rounds;
    /* endpoint */
    double *g, *b;
    struct nf_bep ep;
    /* step */
    struct nf_bstep st;
    /* confirmation */
    struct nf_bcf cf;
    int decided;
    char err[NF_ERR_LEN];
};

/* Feed round t->n (already appended): 1 decided, 0 not yet, -1 bad values. */
static int feed(struct test *x)
{
    const double *v = x->t->v[x->t->n - 1];
    size_t n = x->t->n;
    if (x->kind == NF_BTEST_ENDPOINT) {
        x->g[n - 1] = v[0];
        x->b[n - 1] = v[1];
        if (n < x->p->o.ep_min && n < x->p->o.ep_max)
            return 0;
        if (nf_bisect_endpoint_eval(x->p, x->g, x->b, n, x->s->rate == 1, n >= x->p->o.ep_max,
                                    &x->ep) < 0)
            goto bad;
        return x->decided = x->ep.result != NF_BEP_CONTINUE;
    }
    if (x->kind == NF_BTEST_STEP) {
        int r = nf_bstep_add(&x->st, v[0], v[1], v[2], 0);
        if (r < 0)
            goto bad;
        return x->decided = r != NF_BSTEP_CONTINUE;
    }
    int r = nf_bcf_add(&x->cf, v[0], v[1], 0);
    if (r < 0)
        goto bad;
    return x->decided = r != NF_BCF_CONTINUE;
bad:
    snprintf(x->err, sizeof(x->err), "round %zu: the metric's values must be finite and > 0", n);
    return -1;
}

/* The stop rule of a test's session: the round's values into the state
 * (saved) and the rule. */
struct live {
    struct test *x;
    size_t nv;
    char metric[128];
};

static int live_stop(void *ctx, const char *const *names, struct nf_run **runs, size_t n,
                     const char **why, char *note, size_t notelen, char *err, size_t errlen)
{
    struct live *l = ctx;
    struct nf_bstate *s = l->x->s;
    (void)names;
    if (!s->metric) {
        struct nf_metric *m = nf_run_primary(runs[0]);
        if (!m) {
            snprintf(err, errlen, "the SPEC measures no metric");
            return NF_EINPUT;
        }
        s->metric = nf_xstrdup(m->name);
    }
    double v[3] = {NAN, NAN, NAN};
    for (size_t i = 0; i < n && i < 3; i++) {
        struct nf_metric *m = nf_run_find(runs[i], s->metric);
        if (!m || !m->supported || m->n == 0) {
            snprintf(err, errlen, "metric '%s' was not measured (-m names one the SPEC gives)",
                     s->metric);
            return NF_EINPUT;
        }
        if (s->rate < 0)
            s->rate = nf_metric_is_rate(m);
        if (s->higher < 0)
            s->higher = m->better == NF_BETTER_HIGHER;
        v[i] = m->values[m->n - 1];
    }
    nf_btest_add_round(l->x->t, v[0], v[1], v[2]);
    if (nf_bstate_save(s, err, errlen))
        return -1;
    int d = feed(l->x);
    if (d < 0) {
        snprintf(err, errlen, "%s", l->x->err);
        return NF_EINPUT;
    }
    note[0] = 0;
    if (l->x->kind == NF_BTEST_STEP && l->x->st.rounds >= 2) {
        struct nf_bstep_look k;
        nf_bstep_look(&l->x->st, &k);
        snprintf(note, notelen, "  %.12s %+.2f%% [%+.2f%%, %+.2f%%] vs good, %.0f%% of the way",
                 l->x->t->rev, k.change_pct, k.ci_low_pct, k.ci_high_pct, 100 * k.position);
    } else if (l->x->kind == NF_BTEST_ENDPOINT && d) {
        snprintf(note, notelen, "  bad vs good %+.2f%%", l->x->ep.change_pct);
    }
    *why = "decided";
    return d;
}

/* Measure x's remaining rounds as one session of the variants shas[0..nv). */
static int measure(struct test *x, const char *const *shas, size_t nv, struct nf_store *st,
                   int progress, int *signal, char *err, size_t errlen)
{
    struct nf_bstate *s = x->s;
    struct nf_variant *v[3] = {NULL, NULL, NULL};
    struct nf_session_variant sv[3];
    int rc = 0;
    for (size_t i = 0; i < nv && rc == 0; i++) {
        char tree[4200];
        nf_bisect_tree(s, shas[i], tree, sizeof(tree));
        rc = nf_btree_variant(s, shas[i], tree, &v[i], err, errlen);
        sv[i] = (struct nf_session_variant){v[i]->name, &v[i]->spec};
    }
    if (rc) {
        for (size_t i = 0; i < nv; i++)
            nf_variants_free(v[i], v[i] ? 1 : 0);
        if (nf_stop_signal) {
            *signal = (int)nf_stop_signal;
            return NF_BISECT_INTERRUPTED;
        }
        return rc;
    }
    struct live l = {x, nv, ""};
    json_t *extra = json_pack("{s:{s:s,s:s,s:s}}", "bisect", "test",
                              x->kind == NF_BTEST_ENDPOINT ? "endpoint"
                              : x->kind == NF_BTEST_STEP   ? "step"
                                                           : "confirm",
                              "good", s->good, "bad", s->bad);
    struct nf_session_opts o = {.warmup = 1,
                                .min_rounds = 1,
                                .max_rounds = (long)(x->max_rounds - x->t->n),
                                .order = NF_ORDER_RANDOM,
                                .seed = (s->seed + 7919 * s->nt + x->t->n) & 0x7fffffffUL,
                                .id_prefix = "bisect",
                                .stop = live_stop,
                                .stop_ctx = &l,
                                .progress = progress,
                                .env_extra = extra};
    struct nf_session ses;
    rc = nf_session_begin(&ses, st, sv, nv, &o, err, errlen);
    if (rc == 0) {
        snprintf(x->t->session, sizeof(x->t->session), "%s", ses.id);
        int r = nf_session_run(&ses, err, errlen);
        char e2[NF_ERR_LEN];
        int f = nf_session_finish(&ses, e2, sizeof(e2));
        if (r == NF_SESSION_INTERRUPTED) {
            *signal = ses.signal;
            rc = NF_BISECT_INTERRUPTED;
        } else if (r < 0) {
            rc = r;
        } else if (f) {
            snprintf(err, errlen, "%s", e2);
            rc = -1;
        }
    }
    nf_session_free(&ses);
    json_decref(extra);
    for (size_t i = 0; i < nv; i++)
        nf_variants_free(v[i], 1);
    if (rc && rc != NF_BISECT_INTERRUPTED && nf_stop_signal) { /* what failed was stopped */
        *signal = (int)nf_stop_signal;
        rc = NF_BISECT_INTERRUPTED;
    }
    char e3[NF_ERR_LEN];
    if (nf_bstate_save(s, e3, sizeof(e3)) && rc == 0) {
        snprintf(err, errlen, "%s", e3);
        rc = -1;
    }
    return rc;
}

/* Decide x: its stored rounds first, then (not dry) new ones. */
static int decide(struct test *x, const char *const *shas, size_t nv, struct nf_store *st,
                  const struct nf_bisect_io *io, int *live, int *signal, char *err, size_t errlen)
{
    struct nf_btest *t = x->t;
    size_t have = t->n;
    t->n = 0;
    for (size_t i = 0; i < have && !x->decided; i++) {
        t->n = i + 1;
        if (feed(x) < 0) {
            snprintf(err, errlen, "%s", x->err);
            return -1;
        }
    }
    t->n = have; /* rounds past a decision stay stored; they decide nothing */
    *live = 0;
    if (x->decided)
        return 0;
    if (io->dry)
        return NF_BISECT_PENDING;
    *live = 1;
    int rc = measure(x, shas, nv, st, io->progress, signal, err, errlen);
    if (rc == 0 && !x->decided) {
        snprintf(err, errlen, "the test of %.12s ended undecided after %zu rounds", t->rev, t->n);
        rc = -1;
    }
    return rc;
}

/* The means of t's first rounds: variant base against variant x. */
static void row_means(const struct nf_bstate *s, const struct nf_btest *t, size_t rounds, int base,
                      int x, struct nf_brow *r)
{
    struct nf_bmeans m = {0};
    for (size_t i = 0; i < t->n && m.n < rounds; i++)
        nf_bmeans_add(&m, t->v[i][base], t->v[i][x], s->rate == 1);
    nf_bmeans_set(&m, s, r);
}

static void emit(const struct nf_bisect_io *io, const struct nf_bisect_out *out)
{
    if (io->row)
        io->row(io->ctx, &out->rows[out->nrows - 1]);
}

/* The test the loop is at: the stored one of that index, or a new one. */
static struct nf_btest *test_at(struct nf_bstate *s, size_t i, enum nf_btest_kind kind,
                                const char *rev)
{
    if (i < s->nt)
        return &s->t[i];
    return nf_bstate_add_test(s, kind, rev);
}

/* The built revision a test needs: 0 built; 1 the build failed (err says
 * where); NEED_STOPPED a stop signal came; -1. */
enum { NEED_STOPPED = 3 };
static int need(struct nf_bstate *s, const char *sha, const struct nf_bisect_io *io,
                struct nf_bisect_out *out, char *err, size_t errlen)
{
    if (io->dry) {
        const struct nf_bbuild *b = nf_bstate_build(s, sha);
        return b && !b->ok;
    }
    int r = nf_btree_ensure(s, sha, io->progress, NULL, err, errlen);
    out->builds = s->nb;
    if (r == NF_BTREE_STOPPED)
        return NEED_STOPPED;
    return r < 0 ? -1 : r == 0;
}

int nf_bisect_run(struct nf_bstate *s, struct nf_store *st, const struct nf_bisect_io *io,
                  struct nf_bisect_out *out, int *signal, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    struct nf_bisect_opts o;
    nf_bisect_opts_default(&o);
    o.alpha = s->alpha;
    o.threshold_pct = s->threshold_pct;
    size_t count = 0;
    char next[NF_SHA_LEN + 1];
    const char *g0 = s->good;
    if (nf_git_next(s->repo, s->bad, &g0, 1, NULL, 0, &count, next, err, errlen))
        return -1;
    o.candidates = count;
    struct nf_bisect_plan *p = nf_xcalloc(1, sizeof(*p));
    struct test x;
    memset(&x, 0, sizeof(x));
    int rc = nf_bisect_plan_init(p, &o, err, errlen) ? NF_EINPUT : 0;
    x.g = nf_xcalloc(o.ep_max + 1, sizeof(double));
    x.b = nf_xcalloc(o.ep_max + 1, sizeof(double));
    size_t room = count + 2 + s->nmarks;
    struct nf_brevs goods, skips;
    nf_brevs_init(&goods, room);
    nf_brevs_init(&skips, room);
    size_t ti = 0, j = 0;
    char bad[NF_SHA_LEN + 1];
    struct nf_bdelta w = {0};
    int live = 0;
    out->builds = s->nb;
    if (rc)
        goto end;
    if (!io->dry) /* a signal from here on stops at the next round, the state kept */
        nf_runner_signals();
    nf_brevs_add(&goods, s->good);
    snprintf(bad, sizeof(bad), "%s", s->bad);

    /* GOOD and BAD: built, or nothing can be measured */
    const char *ends[2] = {s->good, s->bad};
    for (int i = 0; i < 2 && rc == 0; i++) {
        int r = need(s, ends[i], io, out, err, errlen);
        if (r == NEED_STOPPED) {
            *signal = (int)nf_stop_signal;
            rc = NF_BISECT_INTERRUPTED;
        } else if (r > 0) {
            char e[NF_ERR_LEN];
            snprintf(e, sizeof(e), "%s: nothing can be measured (%s)", i ? "BAD" : "GOOD", err);
            snprintf(err, errlen, "%s", e);
            rc = -1;
        } else if (r < 0) {
            rc = -1;
        }
    }
    if (rc)
        goto end;

    /* 1. the endpoint check */
    x.s = s;
    x.t = test_at(s, ti++, NF_BTEST_ENDPOINT, "");
    x.p = p;
    x.kind = NF_BTEST_ENDPOINT;
    x.max_rounds = o.ep_max;
    rc = decide(&x, ends, 2, st, io, &live, signal, err, errlen);
    if (rc == NF_BISECT_PENDING)
        snprintf(out->why, sizeof(out->why), "the endpoint check: GOOD %.12s and BAD %.12s",
                 s->good, s->bad);
    if (rc)
        goto end;
    {
        struct nf_brow *r = nf_bisect_row(out, s->repo, NF_BTEST_ENDPOINT, s->bad);
        nf_brow_endpoint(r, &x.ep, x.t->n);
        row_means(s, x.t, x.ep.rounds ? x.ep.rounds : x.t->n, 0, 1, r);
        r->live = live;
        emit(io, out);
    }
    for (size_t i = 0; i < x.t->n; i++)
        nf_bdelta_add(&w, x.t->v[i][0], x.t->v[i][1]);
    int direction = x.ep.direction;
    if (x.ep.result == NF_BEP_EQUIVALENT) {
        out->result = NF_BRES_NOTHING;
        snprintf(out->why, sizeof(out->why),
                 "nothing to bisect: GOOD and BAD are equivalent (%+.1f%% [%+.1f%%, %+.1f%%] on "
                 "%s, %zu rounds)",
                 x.ep.change_pct, x.ep.ci_low_pct, x.ep.ci_high_pct, s->metric, x.t->n);
        goto end;
    }
    if (x.ep.result == NF_BEP_INCONCLUSIVE) {
        out->result = NF_BRES_NOTHING;
        snprintf(out->why, sizeof(out->why),
                 "nothing to bisect: inconclusive — %zu more rounds would settle it",
                 x.ep.more_rounds);
        goto end;
    }

    /* 2. the steps, from where a replayed log's decisions end */
    {
        size_t from = out->nrows;
        nf_bisect_marks(s, out, s->repo, &goods, &skips, bad);
        for (size_t i = from; i < out->nrows; i++)
            if (io->row)
                io->row(io->ctx, &out->rows[i]);
    }
    for (;;) {
        if (nf_git_next(s->repo, bad, goods.v, goods.n, skips.v, skips.n, &count, next, err,
                        errlen)) {
            rc = -1;
            goto end;
        }
        if (!next[0])
            break;
        struct nf_btest *t = test_at(s, ti++, NF_BTEST_STEP, next);
        if (strcmp(t->rev, next) != 0 || t->kind != NF_BTEST_STEP) {
            snprintf(err, errlen,
                     "the state does not follow from the repository any more (step %zu was "
                     "%.12s, git now names %.12s); bisect reset, then start again",
                     ti, t->rev, next);
            rc = -1;
            goto end;
        }
        char e[NF_ERR_LEN];
        int r = need(s, next, io, out, e, sizeof(e));
        if (r == NEED_STOPPED) {
            *signal = (int)nf_stop_signal;
            rc = NF_BISECT_INTERRUPTED;
            goto end;
        }
        if (r < 0) {
            snprintf(err, errlen, "%s", e);
            rc = -1;
            goto end;
        }
        if (r > 0) { /* git bisect skip */
            t->skipped = 1;
            nf_brevs_add(&skips, t->rev);
            struct nf_brow *row = nf_bisect_row(out, s->repo, NF_BTEST_STEP, next);
            row->decision = "skip";
            emit(io, out);
            if (io->progress)
                fprintf(stderr, "bisect: %s\n", e);
            continue;
        }
        int level = nf_bisect_budget(p, &w);
        struct nf_bstep_design *sd = nf_xcalloc(1, sizeof(*sd));
        if (nf_bisect_step_design(p, j, level, sd) < 0 ||
            nf_bstep_begin(&x.st, sd, direction, &w) < 0) {
            free(sd);
            snprintf(err, errlen, "step %zu: no design", j + 1);
            rc = -1;
            goto end;
        }
        x.s = s;
        x.t = t;
        x.kind = NF_BTEST_STEP;
        x.max_rounds = sd->max_rounds;
        x.decided = 0;
        const char *three[3] = {s->good, s->bad, t->rev};
        rc = decide(&x, three, 3, st, io, &live, signal, err, errlen);
        if (rc == NF_BISECT_PENDING)
            snprintf(out->why, sizeof(out->why), "step %zu: %.12s", j + 1, t->rev);
        if (rc) {
            free(sd);
            goto end;
        }
        struct nf_bstep_look k;
        nf_bstep_look(&x.st, &k);
        free(sd);
        w = x.st.w;
        j++;
        struct nf_brow *row = nf_bisect_row(out, s->repo, NF_BTEST_STEP, t->rev);
        nf_brow_step(row, &k);
        row_means(s, t, k.rounds, 0, 2, row);
        row->live = live;
        emit(io, out);
        if (k.decision == NF_BSTEP_GOOD) {
            nf_brevs_add(&goods, t->rev);
        } else if (k.decision == NF_BSTEP_BAD) {
            snprintf(bad, sizeof(bad), "%s", t->rev);
        } else {
            out->result = NF_BRES_BETWEEN;
            snprintf(out->first_bad, sizeof(out->first_bad), "%s", t->rev);
            snprintf(out->why, sizeof(out->why),
                     "%.12s %s is between GOOD and BAD (%s): the range may hold two changes, "
                     "or the change is partial",
                     t->rev, row->subject,
                     k.reason == NF_BSTEP_NEITHER ? "neither like GOOD nor like BAD"
                                                  : "undecided within its budget");
            goto end;
        }
    }
    out->steps = j;
    if (count > 1) { /* only skipped revisions are left before bad */
        out->result = NF_BRES_INCONCLUSIVE;
        snprintf(out->why, sizeof(out->why),
                 "only revisions that do not build are left: the first bad commit is %.12s or "
                 "one of the %zu skipped before it",
                 bad, count - 1);
        goto end;
    }

    /* 3. the confirmation against the first parent */
    char parent[NF_SHA_LEN + 1];
    snprintf(out->first_bad, sizeof(out->first_bad), "%s", bad);
    nf_git_subject(s->repo, bad, out->subject, sizeof(out->subject));
    if (nf_git_parent(s->repo, bad, parent, err, errlen)) {
        rc = -1;
        goto end;
    }
    {
        char e[NF_ERR_LEN];
        /* the commit too: a replayed log's bad one was never a candidate here */
        int r = need(s, bad, io, out, e, sizeof(e));
        if (r == 0)
            r = need(s, parent, io, out, e, sizeof(e));
        if (r == NEED_STOPPED) {
            *signal = (int)nf_stop_signal;
            rc = NF_BISECT_INTERRUPTED;
            goto end;
        }
        if (r) {
            if (r > 0) {
                out->result = NF_BRES_INCONCLUSIVE;
                snprintf(out->why, sizeof(out->why),
                         "%.12s is the first bad commit, not confirmed: it or its parent does "
                         "not build (%.300s)",
                         bad, e);
            } else {
                snprintf(err, errlen, "%s", e);
            }
            rc = r > 0 ? 0 : -1;
            goto end;
        }
    }
    struct nf_btest *t = test_at(s, ti++, NF_BTEST_CONFIRM, bad);
    if (nf_bcf_begin(&x.cf, p, direction, &w) < 0) {
        snprintf(err, errlen, "the confirmation: no design");
        rc = -1;
        goto end;
    }
    x.t = t;
    x.kind = NF_BTEST_CONFIRM;
    x.max_rounds = x.cf.d->max_rounds;
    x.decided = 0;
    const char *two[2] = {parent, bad};
    rc = decide(&x, two, 2, st, io, &live, signal, err, errlen);
    if (rc == NF_BISECT_PENDING)
        snprintf(out->why, sizeof(out->why), "the confirmation of %.12s against its parent", bad);
    if (rc)
        goto end;
    struct nf_bcf_look cl;
    nf_bcf_look(&x.cf, &cl);
    struct nf_brow *row = nf_bisect_row(out, s->repo, NF_BTEST_CONFIRM, bad);
    nf_brow_confirm(row, &cl, out);
    row_means(s, t, cl.rounds, 0, 1, row);
    row->live = live;
    emit(io, out);
    if (cl.result == NF_BCF_CONFIRMED || cl.result == NF_BCF_PARTIAL) {
        out->result = NF_BRES_FOUND;
        if (cl.result == NF_BCF_PARTIAL)
            snprintf(out->why, sizeof(out->why), "it holds %.0f%% of the change",
                     100 * cl.share_of_delta);
    } else {
        out->result = NF_BRES_INCONCLUSIVE;
        snprintf(out->why, sizeof(out->why),
                 "%.12s is the first bad commit of the steps, but not confirmed against its "
                 "parent (%s, %zu rounds)",
                 bad, nf_bcf_result_name(cl.result), cl.rounds);
    }
end:
    for (size_t i = 0; i < s->nt; i++)
        out->rounds += s->t[i].n;
    if (!out->steps)
        out->steps = j;
    out->builds = s->nb;
    snprintf(out->metric, sizeof(out->metric), "%s", s->metric ? s->metric : "");
    nf_brevs_free(&goods);
    nf_brevs_free(&skips);
    free(x.g);
    free(x.b);
    free(p);
    return rc;
}
