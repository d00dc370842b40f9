/* noisefloor ab: variants in interleaved, randomised rounds on the same
 * boot, stopping when every primary verdict is clear (doc/ab.md), then the
 * compare verdict of the session. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/ab_stop.h"
#include "cmd/cmd.h"
#include "cmd/cmp_opts.h"
#include "cmd/db.h"
#include "cmd/measured.h"
#include "core/numfmt.h"
#include "core/util.h"
#include "core/run.h"
#include "measure/runspec.h"
#include "measure/session.h"
#include "measure/variant.h"
#include "report/compare.h"
#include "store/store.h"

/* What the command line asks for. */
struct session {
    struct nf_variant *v; /* NAME=SPEC... */
    size_t nv;
    long min_rounds, max_rounds;
    double max_time;
    enum nf_order order;
    unsigned long seed;
    struct nf_cmp_opts co;
    const char *metric; /* -m: the metric that decides; NULL: the primary ones */
    int json;
    int brief;
    int all;
    int format; /* enum nf_cmd_format */
};

#define ROUNDS_MAX 100000 /* the most --rounds takes */

static int parse_rounds(const char *arg, long *min, long *max)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%s", arg);
    char *colon = strchr(buf, ':');
    if (colon)
        *colon = 0;
    if (nf_parse_long(buf, 2, ROUNDS_MAX, min))
        return -1;
    *max = *min > 50 ? *min : 50;
    if (colon && nf_parse_long(colon + 1, 2, ROUNDS_MAX, max))
        return -1;
    return *max >= *min ? 0 : -1;
}

static int take_rounds(const struct nf_option *o, void *base, const char *arg, char *err,
                       size_t errlen)
{
    struct session *s = base;
    (void)o;
    if (parse_rounds(arg, &s->min_rounds, &s->max_rounds)) {
        snprintf(err, errlen, "--rounds wants MIN or MIN:MAX with 2 <= MIN <= MAX <= %d, not '%s'",
                 ROUNDS_MAX, arg);
        return -1;
    }
    return 0;
}

/* One seed for the whole session: the order of the rounds and the
 * bootstrap's resampling. */
static int take_seed(const struct nf_option *o, void *base, const char *arg, char *err,
                     size_t errlen)
{
    struct session *s = base;
    long seed;
    (void)o;
    if (nf_parse_long(arg, 0, 0x7fffffffL, &seed)) {
        snprintf(err, errlen, "--seed wants a non-negative integer, not '%s'", arg);
        return -1;
    }
    s->seed = (unsigned long)seed;
    s->co.seed = s->seed;
    return 0;
}

static const struct nf_opt_choice orders[] = {{"random", NF_ORDER_RANDOM},
                                              {"abba", NF_ORDER_ABBA},
                                              {"sequential", NF_ORDER_SEQUENTIAL},
                                              {NULL, 0}};

const struct nf_opts nf_cmd_ab_opts = {
    .usage = "noisefloor ab [OPTIONS] NAME=SPEC NAME=SPEC...",
    .about = "Run variants in interleaved rounds (each round runs every variant once) until\n"
             "every primary metric's verdict is clear, then print the comparison against the\n"
             "first variant.  SPEC is the words of a run, e.g.\n"
             "  base='pipe -l 20000'  pinned='--pin 0 pipe -l 20000'  new='-- ./bench-new'\n"
             "Each variant is stored as a run labelled NAME, with a shared session id.\n"
             "A SPEC keeps its run options (--pin, -e, --timeout, --sysctl, --metric, ...)\n"
             "but may not hold those ab decides for all: -r (--rounds), --warmup (one\n"
             "warm-up round), -L (the NAME), --json (ab --json).",
    .options =
        (const struct nf_option[]){
            NF_OPT_CALLBACK(0, "rounds", take_rounds, "MIN[:MAX]",
                            "rounds before stopping is considered, and at most\n"
                            "(MAX at most 100000)",
                            NF_DEF("5:50")),
            NF_OPT_DOUBLE(0, "max-time", struct session, max_time, 0, INFINITY, 0, "seconds", "SEC",
                          "stop after this long, deciding at the last complete\n"
                          "round (0: no limit)",
                          NF_DEF("0")),
            NF_OPT_CHOICE(0, "order", struct session, order, orders, "ORDER",
                          "random (a fresh order each round), abba (ab ba\n"
                          "ab ...; a Williams design for 3+ variants), or\n"
                          "sequential (MIN rounds of each variant in turn, no\n"
                          "adaptive stopping: to show what drift does)",
                          NF_DEF("random")),
            NF_OPT_CALLBACK(0, "seed", take_seed, "N",
                            "seed of the random order and of the bootstrap",
                            NF_DEF_TEXT("from the clock")),
            NF_OPT_STRING('m', "metric", struct session, metric, "NAME",
                          "compare only this metric, and let it decide when to\n"
                          "stop",
                          NF_DEF_TEXT("all metrics; the primary ones decide")),
            NF_OPT_INCLUDE(&nf_cmd_cmp_options, offsetof(struct session, co)),
            NF_OPT_FLAG(0, "brief", struct session, brief, "one line per metric (compare --brief)"),
            NF_OPT_CHOICE(0, "format", struct session, format, nf_cmd_formats, NULL,
                          "text, or mail: the mmtests table in at most 80\ncolumns, a "
                          "verdict line per label, how it was\nmeasured",
                          NF_DEF("text")),
            NF_OPT_FLAG(
                0, "all", struct session, all,
                "every metric's block in full (without it: the\nprimary metric's, the others "
                "one line each); mail: every\nmetric's rows"),
            NF_OPT_FLAG(0, "json", struct session, json,
                        "the compare JSON of the finished session"),
            NF_OPT_END,
        },
    .footer = "A group-sequential design on the paired rounds decides each variant against\n"
              "the first (alpha split evenly over the variants); --max-time or an interrupt\n"
              "makes the last complete round the last look.  Derivation: doc/ab.md.",
};

/* --json always prints JSON: where there is no comparison (the session
 * stopped before its first round, or nothing could be compared), an
 * object saying so, with what the session did, beside the line on
 * stderr. */
static void json_no_result(const struct session *s, const struct nf_session *ses,
                           const struct nf_ab_design *design, const char *error)
{
    /* No session (ses NULL, and no design) when its words were refused. */
    json_t *j = json_object();
    json_object_set_new(j, "session", ses && *ses->id ? json_string(ses->id) : json_null());
    json_object_set_new(j, "rounds", json_integer(ses ? ses->rounds : 0));
    json_object_set_new(j, "stopped", nf_cmd_json_text(ses && ses->why ? ses->why : error));
    json_object_set_new(j, "error", nf_cmd_json_text(error));
    json_object_set_new(j, "order", json_string(nf_order_name(s->order)));
    json_object_set_new(j, "seed", json_integer((json_int_t)s->seed));
    json_object_set_new(j, "design", design ? nf_ab_design_json(design) : json_null());
    json_object_set_new(j, "rows", json_array());
    nf_json_dumpf(j, stdout, NF_JSON_FLAGS);
    fputc('\n', stdout);
    json_decref(j);
}

/* Nothing compared at all (a metric that only came out <not supported>):
 * one line, as compare says it, and exit 2; the runs stay stored. */
static int nothing_compared(const struct nf_session *ses, const char *why)
{
    nf_err("ab: nothing compared: %s; the %ld round%s of session %s are stored", why, ses->rounds,
           ses->rounds == 1 ? "" : "s", ses->id);
    return NF_EXIT_USAGE;
}

/* The comparison of the finished (or interrupted) session, its last round
 * the last look, as JSON or text; the exit code.  A deciding row that a
 * side has no samples of ends the session like nothing compared (exit 2,
 * one line): as doc/ab.md says, what holds for all variants holds for
 * each; a rate with a value of 0 is measured, and its row inconclusive. */
static int print_result(const struct session *s, const struct nf_ab_stop *rule,
                        const struct nf_session *ses, const struct nf_ab_design *design)
{
    struct nf_comparison cmp;
    char err[NF_ERR_LEN], never[NF_ERR_LEN], stopped[NF_ERR_LEN + 64];
    if (nf_ab_compare(rule, ses->names, ses->runs, ses->nv, 0, &cmp, err, sizeof(err))) {
        nf_compare_free(&cmp);
        if (s->json)
            json_no_result(s, ses, design, err);
        return nothing_compared(ses, err);
    }
    nf_compare_explain(&cmp);
    enum nf_ab_never nev = nf_ab_never_decided(rule, &cmp, never, sizeof(never));
    const char *why = ses->why;
    if (nev != NF_AB_DECIDABLE && why && strcmp(why, NF_AB_NEVER_DECIDED) == 0) {
        snprintf(stopped, sizeof(stopped), "%s; more rounds would not change that", never);
        why = stopped;
    }
    if (s->json) {
        json_t *j = nf_compare_json(&cmp);
        json_object_set_new(j, "session", json_string(ses->id));
        json_object_set_new(j, "rounds", json_integer(ses->rounds));
        json_object_set_new(j, "stopped", json_string(why));
        json_object_set_new(j, "order", json_string(nf_order_name(s->order)));
        json_object_set_new(j, "seed", json_integer((json_int_t)s->seed));
        json_object_set_new(j, "design", nf_ab_design_json(design));
        nf_json_dumpf(j, stdout, NF_JSON_FLAGS);
        fputc('\n', stdout);
        json_decref(j);
    } else if (s->format == NF_CMD_FORMAT_MAIL) {
        /* the table to paste, and its Measured line says the rounds */
        nf_compare_mail(stdout, &cmp, s->all);
    } else {
        printf("ab session %s: %ld round%s (+1 warm-up) in %.1f s, %s order (seed %lu); "
               "stopped: %s\n\n",
               ses->id, ses->rounds, ses->rounds == 1 ? "" : "s", ses->seconds,
               nf_order_name(s->order), s->seed, why);
        if (s->brief)
            nf_compare_text_brief(stdout, &cmp);
        else
            nf_compare_text_all(stdout, &cmp, s->all);
        nf_compare_text_verdicts(stdout, &cmp, s->metric);
    }
    int rc = NF_EXIT_OK;
    if (!nf_compare_any(&cmp, err, sizeof(err))) {
        rc = nothing_compared(ses, err);
    } else if (nev == NF_AB_NO_SAMPLES) {
        nf_err("ab: not compared: %s; the %ld round%s of session %s are stored", never, ses->rounds,
               ses->rounds == 1 ? "" : "s", ses->id);
        rc = NF_EXIT_USAGE;
    }
    nf_compare_free(&cmp);
    return rc;
}

/* Parse NAME=SPEC...; 0, or the exit code after one line, which err
 * (of NF_ERR_LEN bytes) holds too. */
static int parse_variants(struct session *s, int argc, char **argv, int first, char *err)
{
    int bad = 0;
    if (argc - first < 2) {
        snprintf(err, NF_ERR_LEN, "give at least two variants, NAME=SPEC NAME=SPEC");
        bad = 1;
    } else {
        s->nv = (size_t)(argc - first);
        bad = nf_variants_parse(argv + first, s->nv, &s->v, err, NF_ERR_LEN) ||
              nf_variants_check(s->v, s->nv, s->metric, err, NF_ERR_LEN);
    }
    if (!bad)
        return 0;
    nf_err("ab: %s", err);
    return NF_EXIT_USAGE;
}

/* The session: interleaved rounds until the stop rule says so; returns the
 * exit code, the result printed when it completed. */
static int measure(struct session *s, struct nf_store *st)
{
    char err[NF_ERR_LEN];
    struct nf_session_variant *v = nf_xcalloc(s->nv, sizeof(*v));
    for (size_t i = 0; i < s->nv; i++)
        v[i] = (struct nf_session_variant){s->v[i].name, &s->v[i].spec};
    struct nf_ab_stop rule = {s->metric, s->co};
    int seq = s->order == NF_ORDER_SEQUENTIAL;
    /* Stored with every run, so that compare replays the same design. */
    struct nf_ab_design design;
    nf_ab_design_init(&design, &rule, nf_order_name(s->order), s->min_rounds, s->max_rounds, s->nv);
    json_t *extra = json_object();
    json_object_set_new(extra, NF_AB_DESIGN_KEY, nf_ab_design_json(&design));
    struct nf_session_opts o = {.warmup = 1,
                                .min_rounds = s->min_rounds,
                                .max_rounds = seq ? s->min_rounds : s->max_rounds,
                                .max_time = s->max_time,
                                .order = s->order,
                                .seed = s->seed,
                                .id_prefix = "ab",
                                .stop = seq ? NULL : nf_ab_stop_check,
                                .stop_ctx = &rule,
                                .progress = nf_g.progress,
                                .env_extra = extra};
    struct nf_session ses;
    int rc = nf_session_begin(&ses, st, v, s->nv, &o, err, sizeof(err));
    int began = rc == 0;
    if (rc) {
        nf_err("ab: %s", err);
        rc = nf_exit_code(rc);
    } else {
        rc = nf_cmd_session_run("ab", &ses);
    }
    /* An interrupt ends the session like --max-time: its last complete
     * round is the last look, and the verdict is printed. */
    if (ses.status == NF_RUN_INTERRUPTED && ses.rounds > 0)
        ses.why = "interrupted; the last complete round was the last look";
    if (ses.status == NF_RUN_COMPLETE || (ses.status == NF_RUN_INTERRUPTED && ses.rounds > 0)) {
        int prc = print_result(s, &rule, &ses, &design);
        rc = rc ? rc : prc;
    } else if (s->json) {
        json_no_result(s, &ses, &design, began ? "stopped before its first round" : err);
    }
    nf_session_free(&ses);
    json_decref(extra);
    free(v);
    return rc;
}

int cmd_ab(int argc, char **argv)
{
    struct session s;
    memset(&s, 0, sizeof(s));
    s.co = nf_cmp_defaults();
    s.seed = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
    s.seed &= 0x7fffffffUL;
    s.co.seed = s.seed; /* the bootstrap's too: the printed seed replays all */
    int first, rc;
    char err[NF_ERR_LEN];
    if (nf_cmd_parse_msg("ab", &nf_cmd_ab_opts, &s, argc, argv, &first, &rc, err, sizeof(err))) {
        /* a usage error is told in JSON too */
        if (rc != NF_EXIT_OK && nf_cmd_wants_json(argc, argv) && !nf_g.check_only)
            json_no_result(&s, NULL, NULL, err);
        return rc;
    }
    rc = parse_variants(&s, argc, argv, first, err);
    if (rc && s.json && !nf_g.check_only) /* submit's stdout is its own */
        json_no_result(&s, NULL, NULL, err);
    if (rc == 0 && nf_g.check_only) { /* submit: the words are good; run nothing */
        nf_variants_free(s.v, s.nv);
        return NF_EXIT_OK;
    }
    int refused = rc;
    for (size_t i = 0; rc == 0 && i < s.nv; i++)
        rc = nf_cmd_check_source("ab", &s.v[i].spec);
    struct nf_store *st = rc ? NULL : nf_cmd_open_store("ab", 1, &rc);
    if (!st && !refused && s.json) /* no session: what stopped it */
        json_no_result(&s, NULL, NULL, nf_cmd_last_error("ab"));
    if (st) {
        for (size_t i = 0; i < s.nv; i++)
            nf_cmd_warn_pooled("ab", st, s.v[i].name);
        rc = measure(&s, st);
        nf_store_close(st);
    }
    nf_variants_free(s.v, s.nv);
    return rc;
}
