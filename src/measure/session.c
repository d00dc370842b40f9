/* The measured session (see session.h): the loop that `run`, `profile` and
 * `ab` share. */
#include "measure/session.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/env.h"
#include "measure/repetition.h"
#include "measure/runner.h"
#include "measure/spawn.h"

static const char *const order_names[] = {"random", "abba", "sequential"};

const char *nf_order_name(enum nf_order o)
{
    return (size_t)o < sizeof(order_names) / sizeof(order_names[0]) ? order_names[o] : "?";
}

int nf_order_parse(const char *s, enum nf_order *out)
{
    for (size_t i = 0; i < sizeof(order_names) / sizeof(order_names[0]); i++)
        if (strcmp(s, order_names[i]) == 0) {
            *out = (enum nf_order)i;
            return 0;
        }
    return -1;
}

int nf_session_begin(struct nf_session *s, struct nf_store *st, const struct nf_session_variant *v,
                     size_t nv, const struct nf_session_opts *o, char *err, size_t errlen)
{
    memset(s, 0, sizeof(*s));
    s->store = st;
    s->o = *o;
    s->nv = nv;
    s->names = nf_xcalloc(nv, sizeof(*s->names));
    s->specs = nf_xcalloc(nv, sizeof(*s->specs));
    s->runs = nf_xcalloc(nv, sizeof(*s->runs));
    s->reps = nf_xcalloc(nv, sizeof(*s->reps));
    s->status = NF_RUN_RUNNING;
    if (o->id_prefix) {
        char stamp[32];
        nf_iso_time(stamp, sizeof(stamp));
        snprintf(s->id, sizeof(s->id), "%s-%s-%d", o->id_prefix, stamp, (int)getpid());
    }
    long planned = o->order == NF_ORDER_SEQUENTIAL ? o->min_rounds : o->max_rounds;
    for (size_t i = 0; i < nv; i++) {
        const struct nf_runspec *spec = v[i].spec;
        s->names[i] = v[i].name;
        s->specs[i] = spec;
        struct nf_run *run = nf_run_new(v[i].name, spec->wl ? spec->wl->name : "command");
        nf_run_set_args(run, spec->wl_argc, spec->wl_argv);
        run->warmup = o->warmup;
        run->repeat = o->stop ? 0 : (int)planned;
        if (s->id[0])
            run->session = nf_xstrdup(s->id);
        s->runs[i] = run;
    }
    nf_runner_signals();
    /* Without a guardian, a SIGKILL of ours would leave the running
     * child's group behind; measuring works all the same. */
    char gerr[NF_ERR_LEN];
    nf_spawn_guard(gerr, sizeof(gerr));
    if (nv == 1) {
        int rc = nf_tune_apply_spec(&s->tune, s->specs[0], err, errlen);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < nv; i++) {
        const struct nf_runspec *spec = s->specs[i];
        s->runs[i]->env = nf_env_snapshot(spec->sysfs_root, spec->pin, spec->source);
        if (o->env_extra && s->runs[i]->env)
            json_object_update(s->runs[i]->env, (json_t *)o->env_extra);
        /* --sysctl is recorded with the run, as --pin is, so that runs
         * measured under different settings (ab's variants among them)
         * are told apart. */
        json_t *sysctls = nf_env_sysctls(spec->sysctls, spec->nsysctls);
        if (sysctls && s->runs[i]->env)
            json_object_set_new(s->runs[i]->env, "sysctl", sysctls);
        else
            json_decref(sysctls);
        if (nf_runner_interleaved(spec) && s->runs[i]->env)
            json_object_set_new(s->runs[i]->env, NF_ENV_COUNTERS, json_string("interleaved"));
        if (spec->wl && s->runs[i]->env)
            json_object_set_new(s->runs[i]->env, NF_ENV_RUSAGE, json_string("from-go"));
        if (spec->wl && spec->wl->env && s->runs[i]->env)
            spec->wl->env(spec->cfg, s->runs[i]->env);
        nf_runner_declare(spec, s->runs[i]);
        if (nf_store_begin_run(st, s->runs[i])) {
            snprintf(err, errlen, "cannot store: %s", nf_store_error(st));
            nf_tune_finish(&s->tune);
            return -1;
        }
    }
    return 0;
}

/* A variant's failure, named when there are several. */
static void say(const struct nf_session *s, size_t i, const char *what, char *err, size_t errlen)
{
    if (s->nv > 1)
        snprintf(err, errlen, "variant '%s': %s", s->names[i], what);
    else
        snprintf(err, errlen, "repetition failed: %s", what);
}

int nf_session_rep(struct nf_session *s, size_t i, int record, char *err, size_t errlen)
{
    const struct nf_runspec *spec = s->specs[i];
    struct nf_run *run = s->runs[i];
    char e[NF_ERR_LEN];
    struct nf_tune tune;
    memset(&tune, 0, sizeof(tune));
    if (s->nv > 1 && nf_tune_apply_spec(&tune, spec, e, sizeof(e))) {
        snprintf(err, errlen, "variant '%s': %s", s->names[i], e);
        return NF_REP_FAILED;
    }
    int st = nf_runner_rep(spec, run, record, e, sizeof(e));
    char te[NF_ERR_LEN];
    if (nf_tune_restore(&tune, te, sizeof(te))) {
        nf_tune_finish(&tune);
        snprintf(err, errlen, "variant '%s': %s; run 'noisefloor doctor --restore'", s->names[i],
                 te);
        return NF_REP_FAILED;
    }
    nf_tune_free(&tune);
    if (st == NF_REP_OK)
        nf_progress_rep_done(&s->prog, record);
    /* A stop signal kills the repetition's child wherever it is, also
     * while it starts: what then fails is the stop's doing, not the
     * workload's, and the run ends as interrupted. */
    if (st == NF_REP_FAILED && nf_stop_signal)
        return NF_REP_STOPPED;
    if (st == NF_REP_FAILED) {
        say(s, i, e, err, errlen);
        return st;
    }
    if (st != NF_REP_OK || !record)
        return st;
    if (nf_store_add_rep(s->store, run, (size_t)s->reps[i])) {
        snprintf(err, errlen, "cannot store repetition: %s", nf_store_error(s->store));
        return NF_REP_FAILED;
    }
    s->reps[i]++;
    long rounds = s->reps[0];
    for (size_t k = 1; k < s->nv; k++)
        if (s->reps[k] < rounds)
            rounds = s->reps[k];
    s->rounds = rounds;
    return st;
}

/* Round r's row of a Williams design for k variants: the first row is
 * 0, 1, k-1, 2, k-2, ..., row j adds j to each (mod k), and for odd k the
 * next k rows are those reversed.  Over the cycle (k rows, 2k for odd k)
 * each variant is in each position equally often and each ordered pair
 * is adjacent equally often; for two variants it is ab, ba, ab, ... */
static void williams_row(size_t k, long r, size_t *idx)
{
    size_t rows = k % 2 ? 2 * k : k, j = (size_t)r % rows;
    for (size_t i = 0; i < k; i++) {
        size_t first = i % 2 ? (i + 1) / 2 : (k - i / 2) % k;
        idx[i] = (first + j) % k;
    }
    if (j >= k)
        for (size_t i = 0; i < k / 2; i++) {
            size_t t = idx[i];
            idx[i] = idx[k - 1 - i];
            idx[k - 1 - i] = t;
        }
}

/* The order of variant indices in round r (0-based). */
static void round_order(const struct nf_session *s, gsl_rng *rng, long r, size_t *idx)
{
    for (size_t i = 0; i < s->nv; i++)
        idx[i] = i;
    if (s->o.order == NF_ORDER_RANDOM)
        gsl_ran_shuffle(rng, idx, s->nv, sizeof(size_t));
    else if (s->o.order == NF_ORDER_ABBA)
        williams_row(s->nv, r, idx);
}

/* After a round: one variant shows its repetitions and primary metric,
 * several the round, the time and what the stop rule said. */
static void round_progress(struct nf_session *s, const char *note)
{
    if (s->nv == 1) {
        nf_progress_update(&s->prog, "repetition", (int)s->rounds, (int)s->o.max_rounds,
                           nf_run_primary(s->runs[0]));
        return;
    }
    while (*note == ' ')
        note++;
    nf_progress_step(&s->prog, "round", (int)s->rounds, (int)s->o.max_rounds, note);
}

/* Has the session run for until seconds (max_time, or a variant's share
 * of it)? */
static int time_up(struct nf_session *s, double until)
{
    return s->o.max_time > 0 && nf_progress_elapsed(&s->prog) >= until;
}

/* The time limit ended the session after s->rounds rounds: s->why says so,
 * and whether that was before the minimum. */
static void stopped_by_time(struct nf_session *s)
{
    s->time_limited = 1;
    int n = snprintf(s->why_text, sizeof(s->why_text), "the time limit (--max-time %g s)",
                     s->o.max_time);
    if (s->rounds < s->o.min_rounds && n > 0 && (size_t)n < sizeof(s->why_text))
        snprintf(s->why_text + n, sizeof(s->why_text) - (size_t)n,
                 ", after %ld round%s: fewer than the minimum of %ld, so the verdict rests on "
                 "fewer rounds than the design's minimum",
                 s->rounds, s->rounds == 1 ? "" : "s", s->o.min_rounds);
    s->why = s->why_text;
}

/* Each variant min_rounds times in turn: what drift does to a comparison.
 * A time limit gives each variant an equal share of the time left when
 * its turn comes, at least one repetition each, so that every variant has
 * values to compare. */
static int sequential(struct nf_session *s, char *err, size_t errlen)
{
    int st = NF_REP_OK, cut = 0;
    s->why = "sequential order runs MIN rounds, no adaptive stopping";
    for (size_t i = 0; i < s->nv && st == NF_REP_OK; i++) {
        double now = nf_progress_elapsed(&s->prog);
        double until = now + (s->o.max_time - now) / (double)(s->nv - i);
        for (long k = 0; k < s->o.min_rounds && st == NF_REP_OK; k++) {
            st = nf_session_rep(s, i, 1, err, errlen);
            nf_progress_step(&s->prog, s->names[i], (int)(k + 1), (int)s->o.min_rounds, NULL);
            if (st == NF_REP_OK && k + 1 < s->o.min_rounds && time_up(s, until)) {
                cut = 1;
                break;
            }
        }
    }
    if (st == NF_REP_OK && cut)
        stopped_by_time(s);
    return st;
}

/* Rounds of every variant, until the stop rule, max_rounds or max_time. */
static int interleaved(struct nf_session *s, char *err, size_t errlen)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, s->o.seed);
    size_t *idx = nf_xcalloc(s->nv, sizeof(size_t));
    int st = NF_REP_OK;
    s->why = "the maximum number of rounds";
    for (long r = 0; r < s->o.max_rounds && st == NF_REP_OK; r++) {
        round_order(s, rng, r, idx);
        for (size_t k = 0; k < s->nv && st == NF_REP_OK; k++)
            st = nf_session_rep(s, idx[k], 1, err, errlen);
        if (st != NF_REP_OK)
            break;
        if (s->rounds < s->o.min_rounds) {
            round_progress(s, "");
            /* The limit holds before the minimum too: its verdict then
             * rests on fewer rounds, and says so. */
            if (r + 1 < s->o.max_rounds && time_up(s, s->o.max_time)) {
                stopped_by_time(s);
                break;
            }
            continue;
        }
        char note[384] = "";
        const char *why = NULL;
        int stop = s->o.stop ? s->o.stop(s->o.stop_ctx, s->names, s->runs, s->nv, &why, note,
                                         sizeof(note), err, errlen)
                             : 0;
        round_progress(s, note);
        if (stop < 0) {
            st = stop; /* -1 or NF_EINPUT */
        } else if (stop > 0) {
            s->why = why;
            break;
        } else if (r + 1 < s->o.max_rounds && time_up(s, s->o.max_time)) {
            stopped_by_time(s);
            break;
        }
    }
    free(idx);
    gsl_rng_free(rng);
    return st;
}

/* Seconds a repetition is expected to take, the mean over the variants
 * (workload.h: expected_seconds), or 0 when one cannot say. */
static double expected_rep(const struct nf_session *s)
{
    double sum = 0;
    for (size_t i = 0; i < s->nv; i++) {
        const struct nf_runspec *spec = s->specs[i];
        double e =
            spec->wl && spec->wl->expected_seconds ? spec->wl->expected_seconds(spec->cfg) : 0;
        if (!(e > 0))
            return 0;
        sum += e;
    }
    return s->nv ? sum / (double)s->nv : 0;
}

int nf_session_run(struct nf_session *s, char *err, size_t errlen)
{
    nf_progress_start(&s->prog, s->o.progress);
    long rounds = s->o.order == NF_ORDER_SEQUENTIAL ? s->o.min_rounds : s->o.max_rounds;
    nf_progress_plan(&s->prog, (long)s->nv * (s->o.warmup + rounds), expected_rep(s));
    int st = NF_REP_OK;
    for (int w = 0; w < s->o.warmup && st == NF_REP_OK; w++) {
        nf_progress_update(&s->prog, s->nv == 1 ? "warm-up" : "warm-up round", w + 1, s->o.warmup,
                           NULL);
        for (size_t i = 0; i < s->nv && st == NF_REP_OK; i++)
            st = nf_session_rep(s, i, 0, err, errlen);
    }
    if (st == NF_REP_OK)
        st = s->o.order == NF_ORDER_SEQUENTIAL ? sequential(s, err, errlen)
                                               : interleaved(s, err, errlen);
    nf_progress_done(&s->prog);
    s->seconds = nf_progress_elapsed(&s->prog);
    nf_tune_finish(&s->tune);
    if (st == NF_REP_STOPPED) {
        s->status = NF_RUN_INTERRUPTED;
        s->signal = (int)nf_stop_signal;
        return NF_SESSION_INTERRUPTED;
    }
    s->status = st == NF_REP_OK ? NF_RUN_COMPLETE : NF_RUN_FAILED;
    return st; /* 0, -1 or NF_EINPUT */
}

int nf_session_finish(struct nf_session *s, char *err, size_t errlen)
{
    nf_tune_finish(&s->tune);
    int rc = 0;
    for (size_t i = 0; i < s->nv; i++) {
        struct nf_run *run = s->runs[i];
        nf_run_set_state(run, s->status);
        /* The repetitions it holds: the rounds, or one more for a variant
         * that ran its part of a round an interrupt cut short (or, in
         * sequential order, the share of the time limit it got). */
        if (s->o.stop || s->time_limited)
            run->repeat = (int)s->reps[i];
        nf_runner_notes(s->specs[i], run);
        if (nf_store_finish_run(s->store, run) != 0 && rc == 0) {
            snprintf(err, errlen, "cannot store: %s", nf_store_error(s->store));
            rc = -1;
        }
    }
    return rc;
}

void nf_session_free(struct nf_session *s)
{
    nf_tune_finish(&s->tune);
    nf_spawn_unguard();
    for (size_t i = 0; s->runs && i < s->nv; i++)
        nf_run_free(s->runs[i]);
    free(s->runs);
    free(s->names);
    free(s->specs);
    free(s->reps);
    memset(s, 0, sizeof(*s));
}
