/* noisefloor ab: variants in interleaved, randomised rounds on the same
 * boot, stopping when every primary verdict is clear (doc/ab.md), then the
 * compare verdict of the session. */
#include <getopt.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmp_opts.h"
#include "core/util.h"
#include "measure/env.h"
#include "measure/runner.h"
#include "measure/runspec.h"
#include "measure/tune.h"
#include "report/compare.h"
#include "report/run_text.h"
#include "stats/stopping.h"
#include "store/store.h"

enum order { ORDER_RANDOM, ORDER_ABBA, ORDER_SEQUENTIAL };

struct variant {
    char *name;
    char **words; /* "ab" + the SPEC's words; the spec points into it */
    struct nf_runspec spec;
    struct nf_run *run;
};

struct session {
    struct variant *v;
    size_t nv;
    long min_rounds, max_rounds;
    double max_time;
    enum order order;
    unsigned long seed;
    struct nf_cmp_opts co;
    const char *metric; /* -m: the metric that decides; NULL: the primary ones */
    int json;
    int brief;
    struct nf_store *st;
    char id[64];
};

static void usage(FILE *out)
{
    fputs("usage: noisefloor ab [OPTIONS] NAME=SPEC NAME=SPEC...\n"
          "\n"
          "Run variants in interleaved rounds (each round runs every variant once) until\n"
          "every primary metric's verdict is clear, then print the comparison against the\n"
          "first variant.  SPEC is the words of a run, e.g.\n"
          "  base='pipe -l 20000'  pinned='--pin 0 pipe -l 20000'  new='-- ./bench-new'\n"
          "Each variant is stored as a run labelled NAME, with a shared session id.\n"
          "\n"
          "  --rounds MIN[:MAX]   rounds before stopping is considered, and at most\n"
          "                       (default 5:50)\n"
          "  --max-time SEC       stop after this long (0: no limit)\n"
          "  --order ORDER        random (a fresh order each round, default), abba, or\n"
          "                       sequential (MIN rounds of each variant in turn, no\n"
          "                       adaptive stopping: to show what drift does)\n"
          "  --seed N             seed of the random order (default: from the clock)\n"
          "  -m, --metric NAME    compare only this metric, and let it decide when to\n"
          "                       stop (default: all metrics; the primary ones decide)\n"
          "  --alpha A, --threshold PCT, --test welch|utest|bootstrap   as compare\n"
          "  --brief              one line per metric (compare --brief)\n"
          "  --json               the compare JSON of the finished session\n"
          "  -h, --help           this help\n"
          "The stopping rule is described in doc/ab.md.\n",
          out);
}

static void free_session(struct session *s)
{
    for (size_t i = 0; i < s->nv; i++) {
        nf_runspec_free(&s->v[i].spec);
        nf_free_words(s->v[i].words);
        free(s->v[i].name);
        nf_run_free(s->v[i].run);
    }
    free(s->v);
    if (s->st)
        nf_store_close(s->st);
}

static int parse_rounds(const char *arg, long *min, long *max)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%s", arg);
    char *colon = strchr(buf, ':');
    if (colon)
        *colon = 0;
    if (nf_parse_long(buf, 2, 100000, min))
        return -1;
    *max = *min > 50 ? *min : 50;
    if (colon && nf_parse_long(colon + 1, 2, 100000, max))
        return -1;
    return *max >= *min ? 0 : -1;
}

/* NAME=SPEC into a variant; one line in err on failure. */
static int parse_variant(struct variant *v, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        snprintf(err, errlen, "variant '%s' is not NAME=SPEC", arg);
        return -1;
    }
    v->name = nf_xstrdup(arg);
    v->name[eq - arg] = 0;
    int n;
    char **w = nf_split_words(eq + 1, &n, err, errlen);
    if (!w)
        return -1;
    if (n == 0) {
        nf_free_words(w);
        snprintf(err, errlen, "variant '%s' has an empty SPEC", v->name);
        return -1;
    }
    /* Put "ab" in front, as argv[0] of the spec's own option parsing. */
    v->words = nf_xcalloc((size_t)n + 2, sizeof(char *));
    v->words[0] = nf_xstrdup("ab");
    memcpy(v->words + 1, w, ((size_t)n + 1) * sizeof(char *));
    free(w);
    int help;
    char e2[400];
    if (nf_runspec_parse(&v->spec, n + 1, v->words, &help, e2, sizeof(e2)) || help) {
        snprintf(err, errlen, "variant '%s': %s", v->name, help ? "--help is not a SPEC" : e2);
        return -1;
    }
    if (v->spec.label)
        nf_warn("ab: variant '%s': -L is ignored; the label is the NAME", v->name);
    return 0;
}

/* The order of variant indices in round r (0-based). */
static void round_order(const struct session *s, gsl_rng *rng, long r, size_t *idx)
{
    for (size_t i = 0; i < s->nv; i++)
        idx[i] = i;
    if (s->order == ORDER_RANDOM)
        gsl_ran_shuffle(rng, idx, s->nv, sizeof(size_t));
    else if (s->order == ORDER_ABBA && (r % 2) == 1)
        for (size_t i = 0; i < s->nv; i++)
            idx[i] = s->nv - 1 - i;
}

/* Build the comparison of the session so far. */
static int session_compare(struct session *s, struct nf_comparison *cmp, char *err, size_t errlen)
{
    struct nf_label_runs *in = nf_xcalloc(s->nv, sizeof(*in));
    for (size_t i = 0; i < s->nv; i++) {
        in[i].label = s->v[i].name;
        in[i].runs = &s->v[i].run;
        in[i].nruns = 1;
    }
    int rc = nf_compare_build(cmp, in, s->nv, NULL, s->metric, &s->co, err, errlen);
    free(in);
    return rc;
}

/* Does this block decide when to stop (and make the closing verdict)? */
static int deciding(const struct session *s, const struct nf_cmp_block *b)
{
    return s->metric ? strcmp(b->metric, s->metric) == 0 : b->primary;
}

/* May the session stop?  Every deciding row must say so. */
static enum nf_stop should_stop(const struct session *s, const struct nf_comparison *cmp)
{
    struct nf_stop_opts so = {s->co.alpha, s->co.threshold_pct,
                              (size_t)(s->max_rounds - s->min_rounds + 1), 0};
    enum nf_stop worst = NF_STOP_EFFECT;
    int any = 0;
    for (size_t b = 0; b < cmp->nblocks; b++) {
        if (!deciding(s, &cmp->blocks[b]))
            continue;
        for (size_t l = 1; l < cmp->nlabels; l++) {
            const struct nf_cmp_cell *c = &cmp->blocks[b].cells[l];
            enum nf_stop st = c->compared ? nf_stop_check(&c->r, &so) : NF_STOP_CONTINUE;
            if (st == NF_STOP_CONTINUE)
                return NF_STOP_CONTINUE;
            any = 1;
            if (st > worst)
                worst = st;
        }
    }
    return any ? worst : NF_STOP_CONTINUE;
}

static void progress(struct nf_progress *p, const struct session *s, long round,
                     const struct nf_comparison *cmp)
{
    if (!p->enabled)
        return;
    char line[512];
    double el = (double)(nf_now_ns() - p->t0_ns) / 1e9;
    int len = snprintf(line, sizeof(line), "round %ld/%ld  %.1fs", round, s->max_rounds, el);
    for (size_t b = 0; cmp && b < cmp->nblocks; b++) {
        if (!deciding(s, &cmp->blocks[b]))
            continue;
        for (size_t l = 1; l < cmp->nlabels && len < (int)sizeof(line) - 64; l++) {
            const struct nf_cmp_cell *c = &cmp->blocks[b].cells[l];
            if (c->compared && isfinite(c->r.ci_low_pct))
                len +=
                    snprintf(line + len, sizeof(line) - (size_t)len, "  %s %+.2f%% [%+.2f, %+.2f]",
                             cmp->labels[l], c->r.change_pct, c->r.ci_low_pct, c->r.ci_high_pct);
        }
        break;
    }
    nf_progress_line(p, line);
}

/* One repetition of variant i, stored as it finishes. */
static enum nf_rep_status one_rep(struct session *s, size_t i, int record, char *err, size_t errlen)
{
    struct variant *v = &s->v[i];
    char e[400];
    /* A variant's --sysctl holds for its own repetitions only: set before,
     * restored right after, so the other variants run untouched. */
    struct nf_tune tune;
    if (nf_tune_apply_spec(&tune, &v->spec, e, sizeof(e))) {
        snprintf(err, errlen, "variant '%s': %s", v->name, e);
        return NF_REP_FAILED;
    }
    enum nf_rep_status st = nf_runner_rep(&v->spec, v->run, record, e, sizeof(e));
    char te[400];
    if (nf_tune_restore(&tune, te, sizeof(te))) {
        nf_tune_finish(&tune);
        snprintf(err, errlen, "variant '%s': %s; run 'noisefloor doctor --restore'", v->name, te);
        return NF_REP_FAILED;
    }
    nf_tune_free(&tune);
    if (st == NF_REP_FAILED) {
        snprintf(err, errlen, "variant '%s': %s", v->name, e);
        return st;
    }
    if (st == NF_REP_OK && record) {
        struct nf_metric *m = nf_run_primary(v->run);
        if (m && nf_store_add_rep(s->st, v->run, m->n - 1) != 0) {
            snprintf(err, errlen, "cannot store: %s", nf_store_error(s->st));
            return NF_REP_FAILED;
        }
    }
    return st;
}

static int start_session(struct session *s, char *err, size_t errlen)
{
    char oerr[NF_ERR_LEN];
    if (nf_store_open(&s->st, nf_g.db, NF_STORE_CREATE, oerr) != 0) {
        snprintf(err, errlen, "%s", oerr);
        return -1;
    }
    char stamp[32];
    nf_iso_time(stamp, sizeof(stamp));
    snprintf(s->id, sizeof(s->id), "ab-%s-%d", stamp, (int)getpid());
    for (size_t i = 0; i < s->nv; i++) {
        struct variant *v = &s->v[i];
        /* Earlier runs under the same label would be pooled by compare. */
        const char *lab[1] = {v->name};
        struct nf_store_filter f = {lab, 1, NULL, NULL, 0};
        int64_t *ids = NULL;
        size_t n = 0;
        if (nf_store_find_runs(s->st, &f, &ids, &n) == 0 && n)
            nf_warn("ab: label '%s' already has %zu run(s) in %s; `compare` will pool them "
                    "with this session's",
                    v->name, n, nf_store_name(s->st));
        free(ids);
        v->run = nf_run_new(v->name, v->spec.wl ? v->spec.wl->name : "command");
        nf_run_set_args(v->run, v->spec.wl_argc, v->spec.wl_argv);
        v->run->warmup = 1;
        v->run->session = nf_xstrdup(s->id);
        v->run->env = nf_env_snapshot(v->spec.sysfs_root, v->spec.pin, v->spec.source);
        nf_runner_declare(&v->spec, v->run);
        if (nf_store_begin_run(s->st, v->run) != 0) {
            snprintf(err, errlen, "cannot store: %s", nf_store_error(s->st));
            return -1;
        }
    }
    return 0;
}

static int finish(struct session *s, const char *status, long rounds)
{
    int rc = 0;
    for (size_t i = 0; i < s->nv; i++) {
        nf_run_set_status(s->v[i].run, status);
        s->v[i].run->repeat = (int)rounds;
        if (nf_store_finish_run(s->st, s->v[i].run) != 0) {
            nf_err("ab: cannot store: %s", nf_store_error(s->st));
            rc = -1;
        }
    }
    return rc;
}

enum { OPT_ROUNDS = 256, OPT_MAXTIME, OPT_ORDER, OPT_ORDER_SEED, OPT_JSON, OPT_BRIEF };

/* Is there a block for -m?  Checked once the first comparison exists. */
static int metric_known(const struct session *s, const struct nf_comparison *cmp)
{
    for (size_t b = 0; b < cmp->nblocks; b++)
        if (deciding(s, &cmp->blocks[b]))
            return 1;
    return 0;
}

static int parse_options(struct session *s, int argc, char **argv)
{
    static const struct option opts[] = {
        {"rounds", required_argument, 0, OPT_ROUNDS},
        {"max-time", required_argument, 0, OPT_MAXTIME},
        {"order", required_argument, 0, OPT_ORDER},
        {"seed", required_argument, 0, OPT_ORDER_SEED},
        NF_CMP_LONGOPTS,
        {"json", no_argument, 0, OPT_JSON},
        {"brief", no_argument, 0, OPT_BRIEF},
        {"metric", required_argument, 0, 'm'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    long seed;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:m:h", opts, NULL)) != -1) {
        int r = nf_cmp_option("ab", c, optarg, &s->co);
        if (r < 0)
            return -1;
        if (r > 0)
            continue;
        switch (c) {
        case 'm': s->metric = optarg; break;
        case OPT_ROUNDS:
            if (parse_rounds(optarg, &s->min_rounds, &s->max_rounds)) {
                nf_err("ab: --rounds wants MIN or MIN:MAX with 2 <= MIN <= MAX, not '%s'", optarg);
                return -1;
            }
            break;
        case OPT_MAXTIME:
            if (nf_parse_double(optarg, &s->max_time) || s->max_time < 0) {
                nf_err("ab: --max-time wants seconds >= 0, not '%s'", optarg);
                return -1;
            }
            break;
        case OPT_ORDER:
            if (strcmp(optarg, "random") == 0)
                s->order = ORDER_RANDOM;
            else if (strcmp(optarg, "abba") == 0)
                s->order = ORDER_ABBA;
            else if (strcmp(optarg, "sequential") == 0)
                s->order = ORDER_SEQUENTIAL;
            else {
                nf_err("ab: --order must be random, abba or sequential, not '%s'", optarg);
                return -1;
            }
            break;
        case OPT_ORDER_SEED:
            if (nf_parse_long(optarg, 0, 0x7fffffffL, &seed)) {
                nf_err("ab: --seed wants a non-negative integer, not '%s'", optarg);
                return -1;
            }
            s->seed = (unsigned long)seed;
            s->co.seed = s->seed; /* one seed for the whole session */
            break;
        case OPT_JSON: s->json = 1; break;
        case OPT_BRIEF: s->brief = 1; break;
        case 'h': return 1;
        case ':': nf_err("ab: option '%s' needs a value", argv[optind - 1]); return -1;
        default: nf_err("ab: unknown option '%s'", argv[optind - 1]); return -1;
        }
    }
    return 0;
}

static void print_result(struct session *s, const struct nf_comparison *cmp, long rounds,
                         const char *why, double secs)
{
    if (s->json) {
        json_t *j = nf_compare_json(cmp);
        json_object_set_new(j, "session", json_string(s->id));
        json_object_set_new(j, "rounds", json_integer(rounds));
        json_object_set_new(j, "stopped", json_string(why));
        json_object_set_new(j, "order",
                            json_string(s->order == ORDER_RANDOM ? "random"
                                        : s->order == ORDER_ABBA ? "abba"
                                                                 : "sequential"));
        json_object_set_new(j, "seed", json_integer((json_int_t)s->seed));
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', stdout);
        json_decref(j);
        return;
    }
    printf(
        "ab session %s: %ld round%s (+1 warm-up) in %.1f s, %s order (seed %lu); stopped: %s\n\n",
        s->id, rounds, rounds == 1 ? "" : "s", secs,
        s->order == ORDER_RANDOM ? "random"
        : s->order == ORDER_ABBA ? "abba"
                                 : "sequential",
        s->seed, why);
    if (s->brief)
        nf_compare_text_brief(stdout, cmp);
    else
        nf_compare_text(stdout, cmp);
    /* The answer, one line per variant: the primary metric's verdict. */
    for (size_t b = 0; b < cmp->nblocks; b++) {
        const struct nf_cmp_block *blk = &cmp->blocks[b];
        if (!deciding(s, blk))
            continue;
        for (size_t l = 1; l < cmp->nlabels; l++) {
            const struct nf_cmp_cell *c = &blk->cells[l];
            if (!c->compared)
                continue;
            printf("Verdict: %s vs %s on %s %s: %s", cmp->labels[l], cmp->labels[0], blk->workload,
                   blk->metric, nf_verdict_name(c->verdict));
            if (isfinite(c->r.ci_low_pct))
                printf(" (%+.2f%%, CI [%+.2f%%, %+.2f%%], %s is better)", c->r.change_pct,
                       c->r.ci_low_pct, c->r.ci_high_pct, nf_better_name(blk->better));
            if (c->verdict == NF_INCONCLUSIVE && c->runs_needed > c->n)
                printf("; about %zu more rounds would settle it", c->runs_needed - c->n);
            putchar('\n');
        }
    }
}

int cmd_ab(int argc, char **argv)
{
    struct session s;
    memset(&s, 0, sizeof(s));
    s.min_rounds = 5;
    s.max_rounds = 50;
    s.co = nf_cmp_defaults();
    s.seed = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
    s.seed &= 0x7fffffffUL;
    int r = parse_options(&s, argc, argv);
    if (r) {
        if (r == 1)
            usage(stdout);
        return r == 1 ? NF_EXIT_OK : NF_EXIT_USAGE;
    }
    if (argc - optind < 2) {
        nf_err("ab: give at least two variants, NAME=SPEC NAME=SPEC");
        return NF_EXIT_USAGE;
    }
    char err[512];
    s.nv = (size_t)(argc - optind);
    s.v = nf_xcalloc(s.nv, sizeof(*s.v));
    int first = optind;
    for (size_t i = 0; i < s.nv; i++) {
        if (parse_variant(&s.v[i], argv[first + (int)i], err, sizeof(err))) {
            nf_err("ab: %s", err);
            free_session(&s);
            return NF_EXIT_USAGE;
        }
        for (size_t k = 0; k < i; k++)
            if (strcmp(s.v[k].name, s.v[i].name) == 0) {
                nf_err("ab: variant name '%s' given twice", s.v[i].name);
                free_session(&s);
                return NF_EXIT_USAGE;
            }
    }
    if (nf_g.check_only) { /* submit: the words are good; run nothing */
        free_session(&s);
        return NF_EXIT_OK;
    }
    if (start_session(&s, err, sizeof(err))) {
        nf_err("ab: %s", err);
        free_session(&s);
        return NF_EXIT_FAIL;
    }
    nf_runner_signals();
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, s.seed);
    struct nf_progress prog;
    nf_progress_start(&prog, nf_g.progress);
    size_t *idx = nf_xcalloc(s.nv, sizeof(size_t));
    enum nf_rep_status st = NF_REP_OK;
    const char *why = "the maximum number of rounds";
    int bad_metric = 0;
    long rounds = 0;

    nf_progress_line(&prog, "warm-up round");
    for (size_t i = 0; i < s.nv && st == NF_REP_OK; i++)
        st = one_rep(&s, i, 0, err, sizeof(err));

    if (s.order == ORDER_SEQUENTIAL) {
        why = "sequential order runs MIN rounds, no adaptive stopping";
        for (size_t i = 0; i < s.nv && st == NF_REP_OK; i++)
            for (long k = 0; k < s.min_rounds && st == NF_REP_OK; k++) {
                st = one_rep(&s, i, 1, err, sizeof(err));
                char line[128];
                snprintf(line, sizeof(line), "%s %ld/%ld", s.v[i].name, k + 1, s.min_rounds);
                nf_progress_line(&prog, line);
            }
        rounds = s.min_rounds;
    } else {
        for (long round = 0; round < s.max_rounds && st == NF_REP_OK; round++) {
            round_order(&s, rng, round, idx);
            for (size_t k = 0; k < s.nv && st == NF_REP_OK; k++)
                st = one_rep(&s, idx[k], 1, err, sizeof(err));
            if (st != NF_REP_OK)
                break;
            rounds = round + 1;
            if (rounds < s.min_rounds) {
                progress(&prog, &s, rounds, NULL);
                continue;
            }
            struct nf_comparison cmp;
            char e[256];
            enum nf_stop stop = NF_STOP_CONTINUE;
            int known = session_compare(&s, &cmp, e, sizeof(e)) == 0;
            if (known) {
                known = metric_known(&s, &cmp);
                progress(&prog, &s, rounds, &cmp);
                stop = should_stop(&s, &cmp);
            }
            nf_compare_free(&cmp);
            if (!known && s.metric) {
                snprintf(err, sizeof(err), "no metric '%s' in these variants", s.metric);
                st = NF_REP_FAILED;
                bad_metric = 1;
                break;
            }
            if (stop != NF_STOP_CONTINUE) {
                why = nf_stop_name(stop);
                break;
            }
            if (s.max_time > 0 && (double)(nf_now_ns() - prog.t0_ns) / 1e9 >= s.max_time) {
                why = "--max-time";
                break;
            }
        }
    }
    nf_progress_done(&prog);
    double secs = (double)(nf_now_ns() - prog.t0_ns) / 1e9;
    free(idx);
    gsl_rng_free(rng);

    int rc = NF_EXIT_OK;
    if (st == NF_REP_STOPPED) {
        finish(&s, "interrupted", rounds);
        nf_err("ab: interrupted by signal %d after %ld rounds; what finished is stored",
               (int)nf_stop_signal, rounds);
        rc = 128 + nf_stop_signal;
    } else if (st == NF_REP_FAILED) {
        finish(&s, "failed", rounds);
        nf_err("ab: %s", err);
        rc = bad_metric ? NF_EXIT_USAGE : NF_EXIT_FAIL;
    } else {
        if (finish(&s, "complete", rounds))
            rc = NF_EXIT_FAIL;
        struct nf_comparison cmp;
        if (session_compare(&s, &cmp, err, sizeof(err)) == 0)
            print_result(&s, &cmp, rounds, why, secs);
        else {
            nf_err("ab: %s", err);
            rc = NF_EXIT_FAIL;
        }
        nf_compare_free(&cmp);
    }
    free_session(&s);
    return rc;
}
