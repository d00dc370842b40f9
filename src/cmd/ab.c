/* noisefloor ab: variants in interleaved, randomised rounds on the same
 * boot, stopping when every primary verdict is clear (doc/ab.md), then the
 * compare verdict of the session. */
#include <getopt.h>
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
#include "core/util.h"
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

enum { OPT_ROUNDS = 256, OPT_MAXTIME, OPT_ORDER, OPT_ORDER_SEED, OPT_JSON, OPT_BRIEF };

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
            if (nf_order_parse(optarg, &s->order)) {
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

/* The comparison of the finished session, as JSON or text; the exit code. */
static int print_result(const struct session *s, const struct nf_ab_stop *rule,
                        const struct nf_session *ses)
{
    struct nf_comparison cmp;
    char err[NF_ERR_LEN];
    if (nf_ab_compare(rule, ses->names, ses->runs, ses->nv, &cmp, err, sizeof(err))) {
        nf_err("ab: %s", err);
        nf_compare_free(&cmp);
        return NF_EXIT_FAIL;
    }
    if (s->json) {
        json_t *j = nf_compare_json(&cmp);
        json_object_set_new(j, "session", json_string(ses->id));
        json_object_set_new(j, "rounds", json_integer(ses->rounds));
        json_object_set_new(j, "stopped", json_string(ses->why));
        json_object_set_new(j, "order", json_string(nf_order_name(s->order)));
        json_object_set_new(j, "seed", json_integer((json_int_t)s->seed));
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', stdout);
        json_decref(j);
    } else {
        printf("ab session %s: %ld round%s (+1 warm-up) in %.1f s, %s order (seed %lu); "
               "stopped: %s\n\n",
               ses->id, ses->rounds, ses->rounds == 1 ? "" : "s", ses->seconds,
               nf_order_name(s->order), s->seed, ses->why);
        if (s->brief)
            nf_compare_text_brief(stdout, &cmp);
        else
            nf_compare_text(stdout, &cmp);
        nf_compare_text_verdicts(stdout, &cmp, s->metric);
    }
    nf_compare_free(&cmp);
    return NF_EXIT_OK;
}

/* Parse NAME=SPEC...; 0, or the exit code after one line. */
static int parse_variants(struct session *s, int argc, char **argv)
{
    char err[NF_ERR_LEN];
    if (argc - optind < 2) {
        nf_err("ab: give at least two variants, NAME=SPEC NAME=SPEC");
        return NF_EXIT_USAGE;
    }
    s->nv = (size_t)(argc - optind);
    if (nf_variants_parse(argv + optind, s->nv, &s->v, err, sizeof(err))) {
        nf_err("ab: %s", err);
        return NF_EXIT_USAGE;
    }
    for (size_t i = 0; i < s->nv; i++)
        if (s->v[i].spec.label)
            nf_warn("ab: variant '%s': -L is ignored; the label is the NAME", s->v[i].name);
    return 0;
}

/* Earlier runs under a variant's label would be pooled by compare. */
static void warn_pooled(const struct session *s, struct nf_store *st)
{
    for (size_t i = 0; i < s->nv; i++) {
        const char *lab[1] = {s->v[i].name};
        struct nf_store_filter f = {lab, 1, NULL, NULL, 0};
        int64_t *ids = NULL;
        size_t n = 0;
        if (nf_store_find_runs(st, &f, &ids, &n) == 0 && n)
            nf_warn("ab: label '%s' already has %zu run(s) in %s; `compare` will pool them "
                    "with this session's",
                    s->v[i].name, n, nf_g.db);
        free(ids);
    }
}

/* The session: interleaved rounds until the stop rule says so; returns the
 * exit code, the result printed when it completed. */
static int measure(struct session *s, struct nf_store *st)
{
    char err[NF_ERR_LEN];
    struct nf_session_variant *v = nf_xcalloc(s->nv, sizeof(*v));
    for (size_t i = 0; i < s->nv; i++)
        v[i] = (struct nf_session_variant){s->v[i].name, &s->v[i].spec};
    struct nf_ab_stop rule = {s->metric, s->co, (size_t)(s->max_rounds - s->min_rounds + 1)};
    int seq = s->order == NF_ORDER_SEQUENTIAL;
    struct nf_session_opts o = {.warmup = 1,
                                .min_rounds = s->min_rounds,
                                .max_rounds = seq ? s->min_rounds : s->max_rounds,
                                .max_time = s->max_time,
                                .order = s->order,
                                .seed = s->seed,
                                .id_prefix = "ab",
                                .stop = seq ? NULL : nf_ab_stop_check,
                                .stop_ctx = &rule,
                                .progress = nf_g.progress};
    struct nf_session ses;
    int rc = nf_session_begin(&ses, st, v, s->nv, &o, err, sizeof(err));
    if (rc) {
        nf_err("ab: %s", err);
        rc = nf_exit_code(rc);
    } else {
        rc = nf_cmd_session_run("ab", &ses);
    }
    if (ses.status == NF_RUN_COMPLETE) {
        int prc = print_result(s, &rule, &ses);
        rc = rc ? rc : prc;
    }
    nf_session_free(&ses);
    free(v);
    return rc;
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
    int rc = parse_options(&s, argc, argv);
    if (rc) {
        if (rc == 1)
            usage(stdout);
        return rc == 1 ? NF_EXIT_OK : NF_EXIT_USAGE;
    }
    rc = parse_variants(&s, argc, argv);
    struct nf_store *st = rc ? NULL : nf_cmd_open_store("ab", 1, &rc);
    if (st) {
        warn_pooled(&s, st);
        rc = measure(&s, st);
        nf_store_close(st);
    }
    nf_variants_free(s.v, s.nv);
    return rc;
}
