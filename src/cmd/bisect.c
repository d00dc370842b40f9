/* noisefloor bisect: which commit of a range changed a metric, when every
 * measurement is noisy (doc/bisect.md; the driver is src/bisect/). */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bisect/bisect.h"
#include "bisect/print.h"
#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/defaults.h"
#include "core/util.h"

struct bisect_cmd {
    const char *good, *bad, *repo, *build, *metric, *next_hook, *release;
    double alpha, threshold;
    int boot, json, remeasure;
};

const struct nf_opts nf_cmd_bisect_opts = {
    .usage =
        "noisefloor bisect start --good REV --bad REV [--repo DIR] [--build CMD] [-m METRIC]\n"
        "                 [--threshold PCT] [--alpha A] [--boot [--next-hook CMD]] -- SPEC...\n"
        "noisefloor bisect run [--json] | step [--json] | status | log | reset\n"
        "                 | replay [--remeasure] FILE",
    .about = "Find the first commit between GOOD and BAD that changed a metric beyond the noise.\n"
             "SPEC is the words of a run, as ab's ('pipe -l 20000', '-m v --metric v=RE -- ./b');\n"
             "{tree} in it stands for the revision's own worktree, e.g. -- {tree}/bench.\n"
             "  start   check the repository, the revisions and the SPEC; keep the state in\n"
             "          the repository's git directory, in kernel mode in the store (--db;\n"
             "          give step, status, log and reset the same); one at a time\n"
             "  run     userspace mode: build each revision once in a worktree of ours and\n"
             "          measure it interleaved with GOOD and BAD, step by step, until the\n"
             "          first bad commit is confirmed against its parent; an interrupted run\n"
             "          keeps every round, and run resumes it\n"
             "  step    kernel mode (--boot): measure one run of the booted revision, then\n"
             "          say which revision to boot next\n"
             "  status  the steps so far and what comes next;  log  them as a replayable log\n"
             "  reset   remove the worktrees and the state\n"
             "  replay FILE  start a log's bisection again with its decisions, measuring\n"
             "          only from where they end (--remeasure: every step again)\n"
             "The user's work tree, index and branches are never touched.",
    .options =
        (const struct nf_option[]){
            NF_OPT_STRING_NOEMPTY(0, "good", struct bisect_cmd, good, "REV",
                                  "start: a revision without the change"),
            NF_OPT_STRING_NOEMPTY(0, "bad", struct bisect_cmd, bad, "REV",
                                  "start: a later revision with it (GOOD its ancestor)"),
            NF_OPT_STRING_NOEMPTY(0, "repo", struct bisect_cmd, repo, "DIR", "the git repository",
                                  NF_DEF(".")),
            NF_OPT_STRING_NOEMPTY(0, "build", struct bisect_cmd, build, "CMD",
                                  "start: build a revision: a shell command, run by\n"
                                  "/bin/sh -c in the revision's worktree (a revision\n"
                                  "whose build fails is skipped)",
                                  NF_DEF_TEXT("none: the tree as checked out")),
            NF_OPT_STRING_NOEMPTY('m', "metric", struct bisect_cmd, metric, "METRIC",
                                  "start: the metric to bisect",
                                  NF_DEF_TEXT("the SPEC's primary metric")),
            NF_OPT_DOUBLE(0, "threshold", struct bisect_cmd, threshold, 0, 100, NF_OPTF_LO_OPEN,
                          "a percentage", "PCT",
                          "start: GOOD and BAD within +-PCT are equivalent:\n"
                          "nothing to bisect",
                          NF_DEF(NF_STR(NF_DEFAULT_THRESHOLD_PCT))),
            NF_OPT_DOUBLE(0, "alpha", struct bisect_cmd, alpha, 0, 0.5, NF_OPTF_LO_OPEN,
                          "a significance level", "A",
                          "start: the chance that any decision printed is\n"
                          "wrong, for the whole bisection",
                          NF_DEF(NF_STR(NF_DEFAULT_ALPHA))),
            NF_OPT_FLAG(0, "boot", struct bisect_cmd, boot,
                        "start: kernel mode: one revision per boot; bisect\n"
                        "step after each boot"),
            NF_OPT_STRING_NOEMPTY(0, "next-hook", struct bisect_cmd, next_hook, "CMD",
                                  "start --boot: a shell command run with the revision\n"
                                  "to boot next as $1 (build, install, kexec)"),
            NF_OPT_STRING_NOEMPTY(0, "kernel-release", struct bisect_cmd, release, "NAME",
                                  "step: what the running kernel is (it must hold 7\n"
                                  "or more leading digits of the revision's sha)",
                                  NF_DEF_TEXT("$NOISEFLOOR_UNAME_R, else uname -r")),
            NF_OPT_FLAG(0, "json", struct bisect_cmd, json, "run, step: the result as JSON"),
            NF_OPT_FLAG(0, "remeasure", struct bisect_cmd, remeasure,
                        "replay: measure every step again rather than take\n"
                        "the log's good, bad and skip lines as decided"),
            NF_OPT_END,
        },
    .footer = "Each step decides \"like GOOD\", \"like BAD\" or \"between\" by a sequential\n"
              "rule that stops as soon as the rounds are enough; alpha is shared by all the\n"
              "decisions.  Every round is stored as runs (labels: the revisions' first 12\n"
              "sha digits), so compare and history see them.  Derivation: doc/bisect.md.",
};

static int usage(const char *fmt, const char *arg)
{
    char line[NF_ERR_LEN];
    snprintf(line, sizeof(line), fmt, arg);
    nf_err("bisect: %s", line);
    return NF_EXIT_USAGE;
}

/* Open nf_g.db without creating it: the store, or NULL with *missing set
 * when it does not exist (or one line and *rc). */
static struct nf_store *open_existing(int *missing, int *rc)
{
    char err[NF_ERR_LEN];
    struct nf_store *st;
    *missing = 0;
    int r = nf_store_open(&st, nf_g.db, 0, err, sizeof(err));
    if (r == NF_STORE_NOTFOUND) {
        *missing = 1;
        return NULL;
    }
    if (r) {
        nf_err("bisect: %s", err);
        *rc = NF_EXIT_FAIL;
    }
    return st;
}

/* The bisection in progress: a userspace one's state file, else a
 * kernel-mode one's row of the store (--db, as start was given), which
 * stays open in *st. */
static int open_state(const struct bisect_cmd *c, struct nf_bstate *s, struct nf_store **st)
{
    char err[NF_ERR_LEN];
    *st = NULL;
    int f = nf_bisect_in_file(c->repo, err, sizeof(err));
    if (f < 0 || f == NF_EINPUT) {
        nf_err("bisect: %s", err);
        return nf_exit_code(f);
    }
    if (!f) {
        int missing, rc = 0;
        *st = open_existing(&missing, &rc);
        if (missing) {
            nf_err("bisect: no bisection in progress (no state in the repository, and no store "
                   "%s; a kernel-mode one is in the store start was given: --db)",
                   nf_g.db);
            return NF_EXIT_USAGE;
        }
        if (!*st)
            return rc;
    }
    int r = nf_bisect_open(c->repo, *st, s, err, sizeof(err));
    if (r) {
        nf_err("bisect: %s", err);
        if (*st)
            nf_store_close(*st);
        *st = NULL;
        return nf_exit_code(r);
    }
    /* the store the bisection began in, unless --db or $NOISEFLOOR_DB says */
    if (f && s->db && !getenv("NOISEFLOOR_DB") && strcmp(nf_g.db, "noisefloor.db") == 0)
        nf_g.db = s->db;
    return 0;
}

static int do_run(const struct bisect_cmd *c, int dry)
{
    struct nf_bstate s;
    struct nf_store *st;
    int rc = open_state(c, &s, &st);
    if (rc)
        return rc;
    if (s.boot && !dry) {
        nf_bstate_free(&s);
        if (st)
            nf_store_close(st);
        return usage("%s",
                     "this bisection is in kernel mode (--boot): bisect step after each boot");
    }
    if (!dry && !st)
        st = nf_cmd_open_store("bisect", NF_CMD_CREATE, &rc);
    if (!dry && !st) {
        nf_bstate_free(&s);
        return rc;
    }
    size_t step = 0;
    struct nf_bisect_io io = {.row = c->json ? NULL : nf_bisect_text_row,
                              .ctx = &step,
                              .progress = nf_g.progress && !nf_g.quiet,
                              .dry = dry};
    struct nf_bisect_out out;
    char err[NF_ERR_LEN];
    int sig = 0;
    int r = s.boot ? nf_bisect_kplan(&s, &out, (char[NF_SHA_LEN + 1]){0}, err, sizeof(err))
                   : nf_bisect_run(&s, st, &io, &out, &sig, err, sizeof(err));
    if (r == 0) {
        nf_bisect_print_end(&out, c->json);
    } else if (r == NF_BISECT_PENDING) {
        printf("\nin progress: next %s (%zu rounds so far)\n", out.why, out.rounds);
    } else if (r == NF_BISECT_INTERRUPTED) {
        nf_err("bisect: interrupted by signal %d; the state keeps %zu rounds: bisect run resumes",
               sig, out.rounds);
        rc = 128 + sig;
    } else {
        nf_err("bisect: %s", err);
        rc = nf_exit_code(r);
    }
    nf_bisect_out_free(&out);
    nf_bstate_free(&s);
    if (st)
        nf_store_close(st);
    return rc;
}

/* The words of start that make this bisection again. */
static char *start_words(const struct nf_bstate *s)
{
    char th[32], al[32];
    snprintf(th, sizeof(th), "%.15g", s->threshold_pct);
    snprintf(al, sizeof(al), "%.15g", s->alpha);
    char *w[64 + 512];
    size_t n = 0;
    w[n++] = "noisefloor";
    w[n++] = "bisect";
    w[n++] = "start";
    w[n++] = "--good";
    w[n++] = (char *)s->good;
    w[n++] = "--bad";
    w[n++] = (char *)s->bad;
    if (s->build) {
        w[n++] = "--build";
        w[n++] = s->build;
    }
    if (s->metric) {
        w[n++] = "-m";
        w[n++] = s->metric;
    }
    w[n++] = "--threshold";
    w[n++] = th;
    w[n++] = "--alpha";
    w[n++] = al;
    if (s->boot)
        w[n++] = "--boot";
    if (s->next_hook) {
        w[n++] = "--next-hook";
        w[n++] = s->next_hook;
    }
    w[n++] = "--";
    for (size_t i = 0; i < s->nspec && n < sizeof(w) / sizeof(w[0]); i++)
        w[n++] = s->spec[i];
    return nf_cmd_words(w, n);
}

static int do_log(const struct bisect_cmd *c)
{
    struct nf_bstate s;
    struct nf_store *st;
    int rc = open_state(c, &s, &st);
    if (rc)
        return rc;
    char *w = start_words(&s);
    printf("# noisefloor bisect log (noisefloor bisect replay FILE re-runs it)\n%s\n", w);
    free(w);
    struct nf_bisect_io io = {.row = nf_bisect_log_row, .dry = 1};
    struct nf_bisect_out out;
    char err[NF_ERR_LEN], next[NF_SHA_LEN + 1];
    int sig = 0;
    int r = s.boot ? nf_bisect_kplan(&s, &out, next, err, sizeof(err))
                   : nf_bisect_run(&s, NULL, &io, &out, &sig, err, sizeof(err));
    if (s.boot)
        for (size_t i = 0; i < out.nrows; i++)
            nf_bisect_log_row(NULL, &out.rows[i]);
    if (r == 0 && out.result == NF_BRES_FOUND)
        printf("# first bad commit: [%s] %s\n", out.first_bad, out.subject);
    else if (r == 0)
        printf("# %s: %s\n", nf_bresult_name(out.result), out.why);
    else if (r == NF_BISECT_PENDING)
        printf("# in progress: next %s\n", out.why);
    else {
        nf_err("bisect: %s", err);
        rc = nf_exit_code(r);
    }
    nf_bisect_out_free(&out);
    nf_bstate_free(&s);
    if (st)
        nf_store_close(st);
    return rc;
}

static int do_start(struct bisect_cmd *c, int argc, char **argv, int first,
                    const struct nf_bmark *marks, size_t nmarks)
{
    if (!c->good || !c->bad)
        return usage("%s", "start needs --good REV and --bad REV");
    if (c->next_hook && !c->boot)
        return usage("%s", "--next-hook goes with --boot");
    if (first >= argc)
        return usage("%s", "start needs a SPEC after '--' (the words of a run)");
    char err[NF_ERR_LEN];
    if (nf_cmd_check_db(nf_g.db, err, sizeof(err)))
        return usage("%s", err);
    char dbabs[PATH_MAX];
    const char *db = nf_g.db;
    if (!strchr(db, '=') && !strstr(db, "://") && realpath(".", dbabs) && db[0] != '/') {
        size_t l = strlen(dbabs);
        snprintf(dbabs + l, sizeof(dbabs) - l, "/%s", db);
        db = dbabs;
    }
    unsigned long seed =
        ((unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16)) & 0x7fffffffUL;
    struct nf_bisect_start_opts o = {
        c->repo,  c->good,      c->bad,  c->build, c->metric,    c->next_hook,           db,
        c->alpha, c->threshold, c->boot, seed,     argv + first, (size_t)(argc - first), NULL,
        marks,    nmarks};
    /* kernel mode keeps its state in the store (made here); userspace mode
     * looks there only for a kernel-mode bisection in progress */
    int rc = 0, missing;
    o.store =
        c->boot ? nf_cmd_open_store("bisect", NF_CMD_CREATE, &rc) : open_existing(&missing, &rc);
    if (rc)
        return rc;
    struct nf_bstate s;
    int r = nf_bisect_start(&o, &s, err, sizeof(err));
    if (r) {
        nf_err("bisect: %s", err);
        if (o.store)
            nf_store_close(o.store);
        return nf_exit_code(r);
    }
    FILE *say = c->json ? stderr : stdout; /* replay --json: stdout is the JSON's */
    fprintf(say, "bisect: GOOD %.12s, BAD %.12s in %s\n", s.good, s.bad, s.repo);
    if (s.boot) {
        fprintf(say, "bisect: kernel mode, its state in the store %s (give step the same --db)\n",
                nf_store_name(o.store));
        struct nf_bisect_out out;
        char next[NF_SHA_LEN + 1];
        r = nf_bisect_kplan(&s, &out, next, err, sizeof(err));
        if (r == NF_BISECT_PENDING)
            rc = nf_bisect_knext(&s, next, err, sizeof(err)) ? NF_EXIT_FAIL : 0;
        else if (r < 0)
            rc = nf_exit_code(r);
        if (rc)
            nf_err("bisect: %s", err);
        nf_bisect_out_free(&out);
    } else {
        fprintf(say, "next: noisefloor bisect run\n");
    }
    nf_bstate_free(&s);
    if (o.store)
        nf_store_close(o.store);
    return rc;
}

static int do_step(const struct bisect_cmd *c)
{
    struct nf_bstate s;
    struct nf_store *st;
    int rc = open_state(c, &s, &st);
    if (rc)
        return rc;
    if (!s.boot) {
        nf_bstate_free(&s);
        return usage("%s", "step is for kernel mode (start --boot); this bisection runs with "
                           "bisect run");
    }
    struct utsname u;
    const char *rel = c->release ? c->release : getenv("NOISEFLOOR_UNAME_R");
    if (!rel && uname(&u) == 0)
        rel = u.release;
    if (!st && !(st = nf_cmd_open_store("bisect", NF_CMD_CREATE, &rc))) {
        nf_bstate_free(&s);
        return rc;
    }
    struct nf_bisect_out out;
    char err[NF_ERR_LEN], next[NF_SHA_LEN + 1];
    int r = nf_bisect_kstep(&s, st, rel ? rel : "", nf_g.progress && !nf_g.quiet, &out, next, err,
                            sizeof(err));
    if ((r == 0 || r == NF_BISECT_PENDING) && out.measured[0]) /* JSON: stdout is the JSON's */
        fprintf(c->json ? stderr : stdout, "bisect: %.12s measured (%g)%s\n", out.measured,
                out.measured_value, out.again ? "; one boot cannot decide: boot it again" : "");
    if (r == 0) {
        size_t k = 0;
        for (size_t i = 0; !c->json && i < out.nrows; i++)
            nf_bisect_text_row(&k, &out.rows[i]);
        nf_bisect_print_end(&out, c->json);
    } else if (r == NF_BISECT_PENDING) {
        if (nf_bisect_knext(&s, next, err, sizeof(err))) {
            nf_err("bisect: %s", err);
            rc = NF_EXIT_FAIL;
        }
    } else {
        nf_err("bisect: %s", err);
        rc = nf_exit_code(r);
    }
    nf_bisect_out_free(&out);
    nf_bstate_free(&s);
    nf_store_close(st);
    return rc;
}

static int do_reset(const struct bisect_cmd *c)
{
    char err[NF_ERR_LEN];
    int f = nf_bisect_in_file(c->repo, err, sizeof(err)), rc = 0, missing;
    if (f < 0 || f == NF_EINPUT) {
        nf_err("bisect: %s", err);
        return nf_exit_code(f);
    }
    /* a kernel-mode bisection's row, when the store exists */
    struct nf_store *st = f ? NULL : open_existing(&missing, &rc);
    if (rc)
        return rc;
    int r = nf_bisect_reset(c->repo, st, err, sizeof(err));
    if (st)
        nf_store_close(st);
    if (r) {
        nf_err("bisect: %s", err);
        return nf_exit_code(r);
    }
    return 0;
}

/* replay FILE: the log's start line, started again with the log's
 * decisions (its good, bad and skip lines, as git bisect replay takes
 * them), and run from where they end; --remeasure: every step measured
 * again. */
static int do_replay(struct bisect_cmd *c, const char *file)
{
    char err[PATH_MAX + NF_ERR_LEN], *start; /* the line names the file */
    struct nf_bmark *marks;
    size_t nmarks;
    if (nf_bisect_read_log(file, c->remeasure, &start, &marks, &nmarks, err, sizeof(err))) {
        nf_err("bisect: replay: %s", err);
        return NF_EXIT_USAGE;
    }
    int n, rc = 0;
    char **w = nf_split_words(start + 18, &n, err, sizeof(err)); /* from "start" */
    if (!w) {
        nf_err("bisect: replay: %s: %s", file, err);
        free(start);
        free(marks);
        return NF_EXIT_USAGE;
    }
    struct bisect_cmd c2;
    memset(&c2, 0, sizeof(c2));
    int first;
    if (nf_cmd_parse("bisect", &nf_cmd_bisect_opts, &c2, n, w, &first, &rc) == 0) {
        c2.repo = c->repo;
        c2.json = c->json;
        rc = do_start(&c2, n, w, first, marks, nmarks);
        if (rc == 0 && !c2.boot)
            rc = do_run(&c2, 0);
    }
    nf_free_words(w);
    free(start);
    free(marks);
    return rc;
}

int cmd_bisect(int argc, char **argv)
{
    struct bisect_cmd c;
    memset(&c, 0, sizeof(c));
    int first, rc;
    if (argc < 2 || argv[1][0] == '-') {
        if (nf_cmd_parse("bisect", &nf_cmd_bisect_opts, &c, argc, argv, &first, &rc))
            return rc;
        return usage("%s", "give what to do: start, run, step, status, log, reset or replay");
    }
    const char *sub = argv[1];
    if (nf_cmd_parse("bisect", &nf_cmd_bisect_opts, &c, argc - 1, argv + 1, &first, &rc))
        return rc;
    argc--;
    argv++;
    int is_start = strcmp(sub, "start") == 0, is_replay = strcmp(sub, "replay") == 0;
    if (!is_start && (c.good || c.bad || c.build || c.metric || c.boot || c.next_hook))
        return usage("--good, --bad, --build, -m, --boot and --next-hook go with start, not %s",
                     sub);
    if (c.remeasure && !is_replay)
        return usage("--remeasure goes with replay, not %s", sub);
    if (!is_start && first < argc && !is_replay)
        return usage("unexpected word '%s'", argv[first]);
    if (is_start)
        return do_start(&c, argc, argv, first, NULL, 0);
    if (strcmp(sub, "run") == 0)
        return do_run(&c, 0);
    if (strcmp(sub, "status") == 0)
        return do_run(&c, 1);
    if (strcmp(sub, "step") == 0)
        return do_step(&c);
    if (strcmp(sub, "log") == 0)
        return do_log(&c);
    if (strcmp(sub, "reset") == 0)
        return do_reset(&c);
    if (is_replay) {
        if (argc - first != 1)
            return usage("%s", "replay takes one FILE (a bisect log)");
        return do_replay(&c, argv[first]);
    }
    return usage("unknown bisect command '%s' (start, run, step, status, log, reset, replay)", sub);
}
