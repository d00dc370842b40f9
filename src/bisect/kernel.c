/* kernel.c — kernel mode: one revision per boot, one run per boot
 * (bisect/bisect.h; doc/bisect.md, "Kernel mode").
 *
 * The state is the boots, in order, each the mean of one run.  The plan is
 * a replay of them through the rule: the endpoint check boots GOOD and BAD
 * alternately; every step reuses those boots pair by pair
 * (nf_bstep_begin_reuse) and boots only the candidate, GOOD and BAD again
 * when a step outlasts the pairs kept; the confirmation boots the commit's
 * parent and the commit alternately.  Where the boots run out, the next
 * one needed is the revision to boot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bisect/bisect.h"
#include "bisect/git.h"
#include "bisect/out.h"
#include "bisect/tree.h"
#include "core/run.h"
#include "core/util.h"
#include "measure/session.h"
#include "measure/spawn.h"
#include "measure/variant.h"
#include "stats/bisect_rule.h"

struct replay {
    struct nf_bstate *s;
    size_t i;                  /* boots consumed */
    char want[NF_SHA_LEN + 1]; /* the boot needed when they ran out */
    char err[NF_ERR_LEN];
};

/* The next boot's value, which must be of sha: 0; 1 none left (want); -1
 * the boots do not follow the plan. */
static int boot(struct replay *r, const char *sha, double *v)
{
    if (r->i >= r->s->nboots) {
        snprintf(r->want, sizeof(r->want), "%s", sha);
        return 1;
    }
    const struct nf_bboot *b = &r->s->boots[r->i];
    if (strcmp(b->sha, sha) != 0) {
        snprintf(r->err, sizeof(r->err),
                 "boot %zu of the state is %.12s where the plan has %.12s (bisect reset)", r->i + 1,
                 b->sha, sha);
        return -1;
    }
    r->i++;
    *v = b->value;
    return 0;
}

int nf_bisect_kplan(struct nf_bstate *s, struct nf_bisect_out *out, char next[NF_SHA_LEN + 1],
                    char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    next[0] = 0;
    struct nf_bisect_opts o;
    nf_bisect_opts_default(&o);
    o.alpha = s->alpha;
    o.threshold_pct = s->threshold_pct;
    size_t count = 0;
    char cand[NF_SHA_LEN + 1], bad[NF_SHA_LEN + 1];
    const char *g0 = s->good;
    if (nf_git_next(s->repo, s->bad, &g0, 1, NULL, 0, &count, cand, err, errlen))
        return -1;
    o.candidates = count;
    struct nf_bisect_plan *p = nf_xcalloc(1, sizeof(*p));
    struct nf_bstep_design *sd = nf_xcalloc(1, sizeof(*sd));
    size_t cap = s->nboots + 8;
    double *g = nf_xcalloc(cap, sizeof(double)), *b = nf_xcalloc(cap, sizeof(double));
    size_t room = count + 2 + s->nmarks;
    struct nf_brevs goods, skips;
    nf_brevs_init(&goods, room);
    nf_brevs_init(&skips, room);
    size_t kept = 0, j = 0;
    struct replay r = {s, 0, "", ""};
    struct nf_bdelta w = {0};
    int rc = nf_bisect_plan_init(p, &o, err, errlen) ? NF_EINPUT : 0, k = 0;
    if (rc)
        goto end;
    nf_brevs_add(&goods, s->good);
    snprintf(bad, sizeof(bad), "%s", s->bad);

    /* 1. GOOD and BAD booted alternately */
    struct nf_bep ep = {0};
    for (size_t n = 1; n <= o.ep_max; n++) {
        if ((k = boot(&r, s->good, &g[n - 1])) || (k = boot(&r, s->bad, &b[n - 1])))
            goto pending;
        kept = n;
        if (n < o.ep_min)
            continue;
        if (nf_bisect_endpoint_eval(p, g, b, n, s->rate == 1, n >= o.ep_max, &ep) < 0) {
            snprintf(err, errlen, "the runs' means must be finite and > 0");
            rc = -1;
            goto end;
        }
        if (ep.result != NF_BEP_CONTINUE)
            break;
    }
    struct nf_brow *er = nf_bisect_row(out, NULL, NF_BTEST_ENDPOINT, s->bad);
    nf_brow_endpoint(er, &ep, kept);
    {
        struct nf_bmeans m = {0};
        for (size_t i = 0; i < kept; i++)
            nf_bmeans_add(&m, g[i], b[i], s->rate == 1);
        nf_bmeans_set(&m, s, er);
    }
    for (size_t i = 0; i < kept; i++)
        nf_bdelta_add(&w, g[i], b[i]);
    if (ep.result != NF_BEP_CHANGE) {
        out->result = NF_BRES_NOTHING;
        if (ep.result == NF_BEP_EQUIVALENT)
            snprintf(out->why, sizeof(out->why),
                     "nothing to bisect: GOOD and BAD are equivalent (%+.1f%% [%+.1f%%, %+.1f%%], "
                     "%zu boots of each)",
                     ep.change_pct, ep.ci_low_pct, ep.ci_high_pct, kept);
        else
            snprintf(out->why, sizeof(out->why),
                     "nothing to bisect: inconclusive — %zu more boots of each would settle it",
                     ep.more_rounds);
        goto end;
    }

    /* 2. the steps, from where a replayed log's decisions end: only the
     * candidate booted while GOOD's and BAD's kept */
    nf_bisect_marks(s, out, NULL, &goods, &skips, bad);
    for (;;) {
        if (nf_git_next(s->repo, bad, goods.v, goods.n, skips.v, skips.n, &count, cand, err,
                        errlen)) {
            rc = -1;
            goto end;
        }
        if (!cand[0])
            break;
        int level = nf_bisect_budget(p, &w);
        struct nf_bstep st;
        if (nf_bisect_step_design(p, j, level, sd) < 0 ||
            nf_bstep_begin_reuse(&st, sd, ep.direction, &w, kept) < 0) {
            snprintf(err, errlen, "step %zu: no design", j + 1);
            rc = -1;
            goto end;
        }
        int d = NF_BSTEP_CONTINUE;
        struct nf_bmeans sm = {0};
        for (size_t i = 0; d == NF_BSTEP_CONTINUE; i++) {
            if (i >= kept) {
                if (kept + 1 >= cap) {
                    cap *= 2;
                    g = nf_xrealloc(g, cap * sizeof(double));
                    b = nf_xrealloc(b, cap * sizeof(double));
                }
                if ((k = boot(&r, s->good, &g[kept])) || (k = boot(&r, s->bad, &b[kept])))
                    goto pending;
                kept++;
            }
            double c;
            if ((k = boot(&r, cand, &c)))
                goto pending;
            d = nf_bstep_add(&st, g[i], b[i], c, 0);
            nf_bmeans_add(&sm, g[i], c, s->rate == 1);
            if (d < 0) {
                snprintf(err, errlen, "the runs' means must be finite and > 0");
                rc = -1;
                goto end;
            }
        }
        w = st.w;
        j++;
        struct nf_bstep_look lk;
        nf_bstep_look(&st, &lk);
        struct nf_brow *sr = nf_bisect_row(out, NULL, NF_BTEST_STEP, cand);
        nf_brow_step(sr, &lk);
        nf_bmeans_set(&sm, s, sr);
        if (d == NF_BSTEP_GOOD) {
            nf_brevs_add(&goods, cand);
        } else if (d == NF_BSTEP_BAD) {
            snprintf(bad, sizeof(bad), "%s", cand);
        } else {
            out->result = NF_BRES_BETWEEN;
            snprintf(out->why, sizeof(out->why),
                     "%.12s is between GOOD and BAD: the range may hold two changes, or the "
                     "change is partial",
                     cand);
            goto end;
        }
    }
    out->steps = j;

    /* 3. the confirmation: parent and commit booted alternately */
    char parent[NF_SHA_LEN + 1];
    snprintf(out->first_bad, sizeof(out->first_bad), "%s", bad);
    nf_git_subject(s->repo, bad, out->subject, sizeof(out->subject));
    if (nf_git_parent(s->repo, bad, parent, err, errlen)) {
        rc = -1;
        goto end;
    }
    struct nf_bcf cf;
    if (nf_bcf_begin(&cf, p, ep.direction, &w) < 0) {
        snprintf(err, errlen, "the confirmation: no design");
        rc = -1;
        goto end;
    }
    int cr = NF_BCF_CONTINUE;
    struct nf_bmeans cm = {0};
    while (cr == NF_BCF_CONTINUE) {
        double pv, xv;
        if ((k = boot(&r, parent, &pv)) || (k = boot(&r, bad, &xv)))
            goto pending;
        cr = nf_bcf_add(&cf, pv, xv, 0);
        nf_bmeans_add(&cm, pv, xv, s->rate == 1);
        if (cr < 0) {
            snprintf(err, errlen, "the runs' means must be finite and > 0");
            rc = -1;
            goto end;
        }
    }
    struct nf_bcf_look cl;
    nf_bcf_look(&cf, &cl);
    struct nf_brow *cfr = nf_bisect_row(out, NULL, NF_BTEST_CONFIRM, bad);
    nf_brow_confirm(cfr, &cl, out);
    nf_bmeans_set(&cm, s, cfr);
    if (cl.result == NF_BCF_CONFIRMED || cl.result == NF_BCF_PARTIAL) {
        out->result = NF_BRES_FOUND;
    } else {
        out->result = NF_BRES_INCONCLUSIVE;
        snprintf(out->why, sizeof(out->why),
                 "%.12s is the first bad commit of the steps, but not confirmed against its "
                 "parent (%s, %zu boots of each)",
                 bad, nf_bcf_result_name(cl.result), cl.rounds);
    }
    goto end;
pending:
    if (k < 0) {
        snprintf(err, errlen, "%s", r.err);
        rc = -1;
    } else {
        snprintf(next, NF_SHA_LEN + 1, "%s", r.want);
        snprintf(out->why, sizeof(out->why), "boot %.12s", r.want);
        rc = NF_BISECT_PENDING;
    }
end:
    if (rc != NF_BISECT_PENDING) /* a git call each, and a step plans twice */
        nf_bisect_subjects(out, s->repo);
    if (!out->steps)
        out->steps = j;
    out->rounds = s->nboots;
    snprintf(out->metric, sizeof(out->metric), "%s", s->metric ? s->metric : "");
    nf_brevs_free(&goods);
    nf_brevs_free(&skips);
    free(g);
    free(b);
    free(sd);
    free(p);
    return rc;
}

/* Whether release names sha: a run of 7 or more hex digits in it that
 * begins sha (CONFIG_LOCALVERSION_AUTO's -gSHA, or a label holding it). */
static int names(const char *release, const char *sha)
{
    for (const char *p = release; *p; p++) {
        size_t n = strspn(p, "0123456789abcdef");
        if (n >= 7 && n <= NF_SHA_LEN && strncmp(p, sha, n) == 0)
            return 1;
        if (n)
            p += n - 1;
    }
    return 0;
}

/* One run of the SPEC, its metric's mean into *v. */
static int one_run(struct nf_bstate *s, struct nf_store *st, const char *sha, int progress,
                   double *v, char *err, size_t errlen)
{
    struct nf_variant *var = NULL;
    int rc = nf_btree_variant(s, sha, s->repo, &var, err, errlen);
    if (rc) {
        nf_variants_free(var, 1);
        return rc;
    }
    struct nf_session_variant sv = {var->name, &var->spec};
    json_t *extra =
        json_pack("{s:{s:s,s:s,s:s}}", "bisect", "test", "boot", "good", s->good, "bad", s->bad);
    struct nf_session_opts o = {.warmup = var->spec.warmup,
                                .min_rounds = var->spec.repeat,
                                .max_rounds = var->spec.repeat,
                                .order = NF_ORDER_RANDOM,
                                .id_prefix = "bisect",
                                .progress = progress,
                                .env_extra = extra};
    struct nf_session ses;
    rc = nf_session_begin(&ses, st, &sv, 1, &o, err, errlen);
    if (rc == 0) {
        int r = nf_session_run(&ses, err, errlen);
        char e2[NF_ERR_LEN];
        int f = nf_session_finish(&ses, e2, sizeof(e2));
        if (r == NF_SESSION_INTERRUPTED) {
            snprintf(err, errlen, "interrupted by signal %d; this boot is not recorded",
                     ses.signal);
            rc = -1;
        } else if (r < 0) {
            rc = r;
        } else if (f) {
            snprintf(err, errlen, "%s", e2);
            rc = -1;
        }
    }
    if (rc == 0) {
        struct nf_metric *m =
            s->metric ? nf_run_find(ses.runs[0], s->metric) : nf_run_primary(ses.runs[0]);
        if (!m || !m->supported || m->n == 0) {
            snprintf(err, errlen, "metric '%s' was not measured",
                     s->metric ? s->metric : "(primary)");
            rc = NF_EINPUT;
        } else {
            if (!s->metric)
                s->metric = nf_xstrdup(m->name);
            s->rate = nf_metric_is_rate(m);
            s->higher = m->better == NF_BETTER_HIGHER;
            double sum = 0;
            for (size_t i = 0; i < m->n; i++)
                sum += s->rate ? 1 / m->values[i] : m->values[i];
            *v = s->rate ? (double)m->n / sum : sum / (double)m->n;
        }
    }
    nf_session_free(&ses);
    json_decref(extra);
    nf_variants_free(var, 1);
    return rc;
}

int nf_bisect_kstep(struct nf_bstate *s, struct nf_store *st, const char *release, int progress,
                    struct nf_bisect_out *out, char next[NF_SHA_LEN + 1], char *err, size_t errlen)
{
    int r = nf_bisect_kplan(s, out, next, err, errlen);
    if (r != NF_BISECT_PENDING)
        return r;
    nf_bisect_out_free(out);
    if (!names(release, next)) {
        snprintf(err, errlen,
                 "the running kernel '%s' is not %.12s, the revision to boot (its release or "
                 "--kernel-release must hold 7 or more leading digits of its sha)",
                 release, next);
        return NF_EINPUT;
    }
    double v;
    if ((r = one_run(s, st, next, progress, &v, err, errlen)))
        return r;
    nf_bstate_add_boot(s, next, v);
    if (nf_bstate_save(s, err, errlen))
        return -1;
    char was[NF_SHA_LEN + 1];
    snprintf(was, sizeof(was), "%s", next);
    r = nf_bisect_kplan(s, out, next, err, errlen);
    snprintf(out->measured, sizeof(out->measured), "%s", was);
    out->measured_value = v;
    out->again = r == NF_BISECT_PENDING && strcmp(was, next) == 0;
    return r;
}

int nf_bisect_knext(const struct nf_bstate *s, const char *next, char *err, size_t errlen)
{
    char subject[256];
    nf_git_subject(s->repo, next, subject, sizeof(subject));
    printf("boot next: %s %s\n", next, subject);
    printf("then: noisefloor bisect step\n");
    fflush(stdout);
    if (!s->next_hook)
        return 0;
    char *const argv[] = {"/bin/sh", "-c", s->next_hook, "sh", (char *)next, NULL};
    struct nf_spawn c = {.argv = argv,
                         .dir = s->repo,
                         .out = -1,
                         .err = -1,
                         .name = "next-hook",
                         .keep_group = 1,
                         .uncontained = 1};
    c.out = 1;
    c.err = 2;
    int w = -1;
    if (nf_spawn_start(&c, err, errlen) == 0)
        w = nf_spawn_wait(&c, NULL, 0, NULL, NULL, err, errlen);
    nf_spawn_end(&c, w != NF_SPAWN_EXITED);
    nf_spawn_release(&c, 0);
    if (w != NF_SPAWN_EXITED || !c.reaped)
        return -1;
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) {
        snprintf(err, errlen, "--next-hook failed for %.12s (%s %d)", next,
                 WIFEXITED(c.status) ? "exit status" : "signal",
                 WIFEXITED(c.status) ? WEXITSTATUS(c.status) : WTERMSIG(c.status));
        return -1;
    }
    return 0;
}
