/* noisefloor report: the comparison of a selection of labels (or of one ab
 * session) as one self-contained HTML page, written atomically; exit 2,
 * as compare, when not one row could be compared. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/comparison.h"
#include "bisect/bisect.h"
#include "bisect/git.h"
#include "cmd/cmd.h"
#include "cmd/cmp_opts.h"
#include "cmd/db.h"
#include "cmd/hist_opts.h"
#include "core/safefile.h"
#include "core/util.h"
#include "report/bisect_html.h"
#include "report/compare.h"
#include "report/history.h"
#include "report/html.h"
#include "store/store.h"
#include "workload/workload.h"

struct report_args {
    struct nf_cmp_opts co;
    const char *baseline, *workload, *metric, *session, *html;
    int history; /* --history: report_history's table parses the words */
    int first;   /* argv index of the first label */
};

const struct nf_opts nf_cmd_report_opts = {
    .usage = "noisefloor report [OPTIONS] --html FILE LABEL LABEL...\n"
             "noisefloor report [OPTIONS] --html FILE --session ID",
    .about = "Write one self-contained HTML page (inline CSS and SVG, no script, nothing\n"
             "fetched) for a mail thread or CI artifacts: the comparison `compare` prints,\n"
             "with verdicts in colour and its notes; every sample per label as a strip/box\n"
             "plot and as a time series per run (drift shows); the environment of each\n"
             "label's runs with the differences that matter flagged.",
    .options =
        (const struct nf_option[]){
            NF_OPT_STRING('b', "baseline", struct report_args, baseline, "LABEL", "the baseline",
                          NF_DEF_TEXT("the first label, or the session's first variant")),
            NF_OPT_STRING('w', "workload", struct report_args, workload, "NAME",
                          "only this workload"),
            NF_OPT_STRING('m', "metric", struct report_args, metric, "NAME",
                          "only this metric (plotted even if not primary)"),
            NF_OPT_INCLUDE(&nf_cmd_cmp_options, offsetof(struct report_args, co)),
            NF_OPT_INCLUDE(&nf_cmd_cmp_seed_options, offsetof(struct report_args, co)),
            NF_OPT_STRING(0, "session", struct report_args, session, "ID",
                          "the labels of one `ab` session (its runs only)"),
            NF_OPT_STRING(0, "html", struct report_args, html, "FILE",
                          "where to write the page ('-': standard output)"),
            NF_OPT_FLAG(0, "history", struct report_args, history,
                        "the page of `history` instead: each series plotted\n"
                        "(report --history --help lists its options)"),
            NF_OPT_END,
        },
};

/* report --history: the words parsed with this table instead. */
struct report_hist_args {
    struct nf_cmd_hist h;
    const char *workload, *html;
    int history;
};

static const struct nf_opts report_history_opts = {
    .usage = "noisefloor report --history [OPTIONS] --html FILE [LABEL...]",
    .about = "One self-contained HTML page of the series `noisefloor history` builds from\n"
             "the runs of the labels given (all runs when none): per series a plot of each\n"
             "run's mean with its CI, the segments' means, the change points and drifts\n"
             "marked and outliers hollow (hover: run id, commit, date), and its table.",
    .options =
        (const struct nf_option[]){
            NF_OPT_FLAG(0, "history", struct report_hist_args, history, "this page"),
            NF_OPT_STRING(0, "html", struct report_hist_args, html, "FILE",
                          "where to write the page ('-': standard output)"),
            NF_OPT_STRING('w', "workload", struct report_hist_args, workload, "NAME",
                          "only this workload"),
            NF_OPT_INCLUDE(&nf_cmd_hist_options, offsetof(struct report_hist_args, h)),
            NF_OPT_END,
        },
};

/* 0; -1 after --help; or the exit code of a usage error. */
static int parse(int argc, char **argv, struct report_args *a)
{
    int rc;
    if (nf_cmd_parse("report", &nf_cmd_report_opts, a, argc, argv, &a->first, &rc))
        return rc == NF_EXIT_OK ? -1 : rc;
    if (!a->html || !a->html[0]) {
        nf_err("report: say where to write the page: --html FILE");
        return NF_EXIT_USAGE;
    }
    if (a->session && a->first < argc) {
        nf_err("report: give labels or --session ID, not both");
        return NF_EXIT_USAGE;
    }
    return 0;
}

/* The labels named on the command line, each loaded with every run it
 * counts (and in apart, its superseded runs). */
static int load_labels(struct nf_store *st, const struct report_args *a, int argc, char **argv,
                       struct nf_label_runs **in, struct nf_label_runs **apart, size_t *nin)
{
    return nf_cmd_load_labels("report", st, a->baseline, a->workload, argc, argv, a->first,
                              ", or --session ID", in, apart, nin);
}

/* The runs of one ab session, one label per variant in the order the
 * session began them (ascending id), -b moved to the front; superseded
 * runs (a job's attempt that a later one took over) in apart, by label.
 * The session's run array is kept in *all; the labels' arrays point into
 * it. */
static int load_session(struct nf_store *st, const struct report_args *a, struct nf_run ***all,
                        size_t *nall, struct nf_label_runs **in, struct nf_label_runs **apart,
                        size_t *nin)
{
    struct nf_store_filter f = {.workload = a->workload, .session = a->session};
    if (nf_store_load_runs(st, &f, all, nall)) {
        nf_err("report: %s", nf_store_error(st));
        return NF_EXIT_FAIL;
    }
    if (*nall == 0) {
        nf_err("report: no runs%s%s in session '%s'", a->workload ? " of workload " : "",
               a->workload ? a->workload : "", a->session);
        return NF_EXIT_USAGE;
    }
    size_t counted = 0;
    for (size_t r = 0; r < *nall; r++)
        counted += (*all)[r]->state != NF_RUN_SUPERSEDED;
    if (!counted) {
        nf_err("report: session '%s' is of a job attempt that a later one took over: its runs "
               "are superseded (as list shows), not counted",
               a->session);
        return NF_EXIT_USAGE;
    }
    nf_workload_key_runs(*all, *nall);
    *in = nf_xcalloc(*nall, sizeof(**in));
    *apart = nf_xcalloc(*nall, sizeof(**apart));
    size_t n = 0;
    for (size_t r = 0; r < *nall; r++) {
        if ((*all)[r]->state == NF_RUN_SUPERSEDED)
            continue;
        size_t l = 0;
        while (l < n && strcmp((*in)[l].label, (*all)[r]->label) != 0)
            l++;
        if (l == n) {
            (*in)[n].label = (*all)[r]->label;
            (*in)[n++].runs = nf_xcalloc(*nall, sizeof(struct nf_run *));
        }
        (*in)[l].runs[(*in)[l].nruns++] = (*all)[r];
    }
    *nin = n;
    for (size_t l = 0; l < n; l++) {
        (*apart)[l].label = (*in)[l].label;
        (*apart)[l].runs = nf_xcalloc(*nall, sizeof(struct nf_run *));
    }
    for (size_t r = 0; r < *nall; r++)
        for (size_t l = 0; l < n && (*all)[r]->state == NF_RUN_SUPERSEDED; l++)
            if (strcmp((*apart)[l].label, (*all)[r]->label) == 0) {
                (*apart)[l].runs[(*apart)[l].nruns++] = (*all)[r];
                break;
            }
    if (a->baseline) {
        size_t b = 0;
        while (b < n && strcmp((*in)[b].label, a->baseline) != 0)
            b++;
        if (b == n) {
            nf_err("report: session '%s' has no label '%s'", a->session, a->baseline);
            return NF_EXIT_USAGE;
        }
        struct nf_label_runs t = (*in)[b], u = (*apart)[b];
        memmove(*in + 1, *in, b * sizeof(**in));
        memmove(*apart + 1, *apart, b * sizeof(**apart));
        (*in)[0] = t;
        (*apart)[0] = u;
    }
    if (n < 2) {
        nf_err("report: session '%s' has only one label", a->session);
        return NF_EXIT_USAGE;
    }
    return 0;
}

/* What was asked for, for the page's header. */
static char *selection(const struct report_args *a, const struct nf_label_runs *in, size_t n)
{
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    if (!f)
        return nf_xstrdup("");
    if (a->session)
        fprintf(f, "session %s", a->session);
    else
        for (size_t l = 0; l < n; l++)
            fprintf(f, "%s%s", l ? ", " : "labels ", in[l].label);
    if (a->workload)
        fprintf(f, "; workload %s only", a->workload);
    if (a->metric)
        fprintf(f, "; metric %s only", a->metric);
    fclose(f);
    return s ? s : nf_xstrdup("");
}

/* Render to a fresh temporary next to FILE and rename it over FILE
 * (core/safefile.h): a reader never sees half a page, and a symlink planted
 * at FILE or at a temporary name is never followed. */
/* FILE may be replaced only if it is not there, is a symlink (replaced,
 * never followed: the file it names is untouched), or is a page this
 * command wrote: a slip such as "--html noisefloor.db" must not destroy
 * a database or any other file.  0, or NF_EXIT_USAGE with the line said. */
static int check_destination(const char *path)
{
    struct stat sb;
    if (!path || strcmp(path, "-") == 0 || lstat(path, &sb) != 0 || S_ISLNK(sb.st_mode))
        return 0; /* (a path that cannot be written fails when it is) */
    if (!S_ISREG(sb.st_mode)) {
        nf_err("report: '%s' exists and is not a regular file; choose another name", path);
        return NF_EXIT_USAGE;
    }
    char head[1024] = "";
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, head, sizeof(head) - 1) : -1;
    if (fd >= 0)
        close(fd);
    head[n > 0 ? n : 0] = 0;
    if (sb.st_size == 0 || (strncmp(head, "<!DOCTYPE html>", 15) == 0 &&
                            strstr(head, "<meta name=\"generator\" content=\"noisefloor ")))
        return 0;
    nf_err("report: '%s' exists and is not a noisefloor page; remove it or choose another name",
           path);
    return NF_EXIT_USAGE;
}

/* The page into path, or to standard output for "-": emit writes it.  A
 * file is written under a fresh name and renamed into place. */
static int write_html(const char *path, void (*emit)(FILE *out, const void *ctx), const void *ctx)
{
    if (strcmp(path, "-") == 0) {
        emit(stdout, ctx);
        if (fflush(stdout) || ferror(stdout)) {
            nf_err("report: cannot write to standard output: %s", strerror(errno));
            return NF_EXIT_FAIL;
        }
        return 0;
    }
    char err[NF_ERR_LEN];
    struct nf_newfile nf;
    if (nf_newfile_open(&nf, path, 0666, err, sizeof(err))) {
        nf_err("report: %s", err);
        return NF_EXIT_FAIL;
    }
    emit(nf.f, ctx);
    if (nf_newfile_commit(&nf, NF_NEWFILE_REPLACE, err, sizeof(err))) {
        nf_err("report: %s", err);
        return NF_EXIT_FAIL;
    }
    return 0;
}

struct page {
    const struct nf_comparison *cmp;
    const struct nf_label_runs *in;
    const struct nf_html_meta *meta;
};

static void emit_page(FILE *out, const void *ctx)
{
    const struct page *p = ctx;
    nf_html_report(out, p->cmp, p->in, p->meta);
}

struct history_page {
    const struct nf_history *h;
    const struct nf_hist_html_meta *meta;
    const struct nf_hist_render *r;
};

static void emit_history_page(FILE *out, const void *ctx)
{
    const struct history_page *p = ctx;
    nf_history_html(out, p->h, p->meta, p->r);
}

static int report_history(int argc, char **argv)
{
    struct report_hist_args a = {.html = NULL};
    int first, rc;
    if (nf_cmd_parse("report", &report_history_opts, &a, argc, argv, &first, &rc))
        return rc;
    if (!a.html || !a.html[0]) {
        nf_err("report: say where to write the page: --html FILE");
        return NF_EXIT_USAGE;
    }
    if ((rc = check_destination(a.html)) != 0)
        return rc;
    const char **labels = (const char **)argv + first;
    size_t nlabels = (size_t)(argc - first);
    struct nf_run **runs;
    size_t n;
    struct nf_history h;
    rc = nf_cmd_history("report", &a.h, labels, nlabels, a.workload, &runs, &n, &h);
    if (rc)
        return rc;
    char when[32], *sel = NULL;
    nf_iso_time(when, sizeof(when));
    size_t len = 0;
    FILE *f = open_memstream(&sel, &len);
    if (f) {
        fputs("history of ", f);
        for (size_t l = 0; l < nlabels; l++)
            fprintf(f, "%s%s", l ? ", " : "labels ", labels[l]);
        if (!nlabels)
            fputs("every run", f);
        if (a.workload)
            fprintf(f, "; workload %s only", a.workload);
        fclose(f);
    }
    struct nf_hist_html_meta meta = {sel, NULL, when}; /* (a URI may hold a password) */
    struct nf_hist_render r = {.repo = a.h.repo};
    rc = write_html(a.html, emit_history_page, &(struct history_page){&h, &meta, &r});
    free(sel);
    nf_history_free(&h);
    nf_runs_free(runs, n);
    return rc;
}

/* report --bisect: the words parsed with this table instead. */
struct report_bisect_args {
    const char *repo, *html;
    int bisect;
};

static const struct nf_opts report_bisect_opts = {
    .usage = "noisefloor report --bisect [--repo DIR] --html FILE",
    .about = "One self-contained HTML page of the bisection in progress (or ended, until\n"
             "`bisect reset`) in the repository: every revision of the range in range\n"
             "order, each step's change vs GOOD with its CI and its decision (good, bad,\n"
             "between, skipped), the first bad commit highlighted (hover: revision,\n"
             "subject, rounds), and the table of the steps.  Nothing is measured.",
    .options =
        (const struct nf_option[]){
            NF_OPT_FLAG(0, "bisect", struct report_bisect_args, bisect, "this page"),
            NF_OPT_STRING(0, "html", struct report_bisect_args, html, "FILE",
                          "where to write the page ('-': standard output)"),
            NF_OPT_STRING_NOEMPTY(0, "repo", struct report_bisect_args, repo, "DIR",
                                  "the repository being bisected", NF_DEF(".")),
            NF_OPT_END,
        },
};

struct bisect_page {
    const struct nf_bisect_view *v;
    const struct nf_bisect_html_meta *meta;
};

static void emit_bisect_page(FILE *out, const void *ctx)
{
    const struct bisect_page *p = ctx;
    nf_bisect_html(out, p->v, p->meta);
}

/* The range in range order into *shas (GOOD first, then git rev-list
 * --topo-order --reverse BAD ^GOOD), *n of them: 0, or -1 with err. */
static int bisect_range(const struct nf_bstate *s, char **buf, size_t *n, char *err, size_t errlen)
{
    char cnt[32];
    if (nf_git(s->repo, (const char *[]){"rev-list", "--count", s->bad, "--not", s->good, NULL},
               cnt, sizeof(cnt), NULL, err, errlen))
        return -1;
    size_t c = strtoul(cnt, NULL, 10), len = (c + 2) * (NF_SHA_LEN + 1) + 1;
    *buf = nf_xcalloc(len, 1);
    memcpy(*buf, s->good, NF_SHA_LEN);
    (*buf)[NF_SHA_LEN] = '\n';
    if (nf_git(s->repo,
               (const char *[]){"rev-list", "--topo-order", "--reverse", s->bad, "--not", s->good,
                                NULL},
               *buf + NF_SHA_LEN + 1, len - NF_SHA_LEN - 1, NULL, err, errlen))
        return -1;
    *n = 0;
    for (char *p = *buf; *p;) {
        char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l != NF_SHA_LEN) {
            snprintf(err, errlen, "git rev-list: a line that is not a sha");
            return -1;
        }
        p[l] = 0;
        (*n)++;
        p += l + (e ? 1 : 0);
    }
    return 0;
}

static void bisect_test(struct nf_bisect_test *t, const struct nf_brow *r)
{
    *t = (struct nf_bisect_test){r->decision, r->rounds, r->change_pct, r->ci_low_pct,
                                 r->ci_high_pct};
}

/* The bisection's rows (replayed from its state, as bisect status does)
 * laid over its range, for report/bisect_html.h. */
static int report_bisect(int argc, char **argv)
{
    struct report_bisect_args a = {.repo = "."};
    int first, rc;
    if (nf_cmd_parse("report", &report_bisect_opts, &a, argc, argv, &first, &rc))
        return rc;
    if (first < argc) {
        nf_err("report: --bisect takes no labels ('%s')", argv[first]);
        return NF_EXIT_USAGE;
    }
    if (!a.html || !a.html[0]) {
        nf_err("report: say where to write the page: --html FILE");
        return NF_EXIT_USAGE;
    }
    if ((rc = check_destination(a.html)) != 0)
        return rc;
    char err[NF_ERR_LEN], next[NF_SHA_LEN + 1];
    struct nf_bstate s;
    /* a userspace bisection's state is in the repository, a kernel-mode
     * one's in the store (--db, as bisect start was given) */
    struct nf_store *st = NULL;
    int r = nf_bisect_in_file(a.repo, err, sizeof(err));
    if (r < 0 || r == NF_EINPUT) {
        nf_err("report: %s", err);
        return nf_exit_code(r);
    }
    if (!r && !(st = nf_cmd_open_store("report", NF_CMD_READ, &rc)))
        return rc;
    r = nf_bisect_open(a.repo, st, &s, err, sizeof(err));
    if (r) {
        nf_err("report: %s", err);
        if (st)
            nf_store_close(st);
        return nf_exit_code(r);
    }
    struct nf_bisect_out out;
    struct nf_bisect_io io = {.dry = 1};
    int sig = 0;
    r = s.boot ? nf_bisect_kplan(&s, &out, next, err, sizeof(err))
               : nf_bisect_run(&s, NULL, &io, &out, &sig, err, sizeof(err));
    char *buf = NULL;
    size_t n = 0;
    if (r != 0 && r != NF_BISECT_PENDING) {
        nf_err("report: %s", err);
        rc = nf_exit_code(r);
        goto done;
    }
    if (bisect_range(&s, &buf, &n, err, sizeof(err))) {
        nf_err("report: %s", err);
        rc = NF_EXIT_FAIL;
        goto done;
    }
    struct nf_bisect_rev *rev = nf_xcalloc(n, sizeof(*rev));
    for (size_t i = 0; i < n; i++)
        rev[i] = (struct nf_bisect_rev){.sha = buf + i * (NF_SHA_LEN + 1),
                                        .change_pct = NAN,
                                        .ci_low_pct = NAN,
                                        .ci_high_pct = NAN};
    struct nf_bisect_view v = {.mode = s.boot ? "kernel" : "userspace",
                               .metric = s.metric,
                               .result = r == 0 ? nf_bresult_name(out.result) : NULL,
                               .why = out.why,
                               .alpha = s.alpha,
                               .threshold_pct = s.threshold_pct,
                               .rev = rev,
                               .nrev = n,
                               .first_bad = n,
                               .steps = out.steps,
                               .rounds = out.rounds,
                               .builds = out.builds};
    size_t step = 0;
    for (size_t k = 0; k < out.nrows; k++) {
        const struct nf_brow *w = &out.rows[k];
        size_t i = 0;
        while (i < n && strcmp(rev[i].sha, w->sha) != 0)
            i++;
        if (w->kind == NF_BTEST_ENDPOINT) {
            bisect_test(&v.endpoint, w);
        } else if (w->kind == NF_BTEST_CONFIRM) {
            bisect_test(&v.confirm, w);
        } else {
            step++;
            if (i == n)
                continue; /* (rev-list names every candidate) */
            rev[i].step = step;
            rev[i].decision = w->decision;
            rev[i].rounds = w->rounds;
            rev[i].change_pct = w->change_pct;
            rev[i].ci_low_pct = w->ci_low_pct;
            rev[i].ci_high_pct = w->ci_high_pct;
        }
        if (i < n)
            rev[i].subject = w->subject;
    }
    for (size_t i = 0; r == 0 && out.first_bad[0] && i < n; i++)
        if (strcmp(rev[i].sha, out.first_bad) == 0 &&
            (out.result == NF_BRES_FOUND || out.result == NF_BRES_INCONCLUSIVE)) {
            v.first_bad = i;
            if (!rev[i].subject)
                rev[i].subject = out.subject;
        }
    char ends[2][256]; /* the subjects of GOOD and (no row yet) BAD */
    nf_git_subject(s.repo, s.good, ends[0], sizeof(ends[0]));
    rev[0].subject = ends[0];
    if (!rev[n - 1].subject) {
        nf_git_subject(s.repo, s.bad, ends[1], sizeof(ends[1]));
        rev[n - 1].subject = ends[1];
    }
    char when[32];
    nf_iso_time(when, sizeof(when));
    struct nf_bisect_html_meta meta = {s.repo, when};
    rc = write_html(a.html, emit_bisect_page, &(struct bisect_page){&v, &meta});
    free(rev);
done:
    free(buf);
    nf_bisect_out_free(&out);
    nf_bstate_free(&s);
    if (st)
        nf_store_close(st);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--history") == 0)
            return report_history(argc, argv);
        if (strcmp(argv[i], "--bisect") == 0)
            return report_bisect(argc, argv);
    }
    struct report_args a = {.co = nf_cmp_defaults()};
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? NF_EXIT_OK : rc;
    if ((rc = check_destination(a.html)) != 0)
        return rc;

    char err[NF_ERR_LEN];
    struct nf_store *st;
    if (!(st = nf_cmd_open_store("report", NF_CMD_READ, &rc)))
        return rc;
    struct nf_label_runs *in = NULL, *apart = NULL;
    size_t nin = 0, nall = 0;
    struct nf_run **all = NULL;
    if (a.session)
        rc = load_session(st, &a, &all, &nall, &in, &apart, &nin);
    else
        rc = load_labels(st, &a, argc, argv, &in, &apart, &nin);
    /* The latency distributions are drawn from the runs' histograms,
     * which the loaders leave out (cheap where a run has none). */
    for (size_t l = 0; rc == 0 && l < nin; l++)
        if (nf_store_load_hists(st, in[l].runs, in[l].nruns)) {
            nf_err("report: %s", nf_store_error(st));
            rc = NF_EXIT_FAIL;
        }
    if (rc)
        goto out;

    struct nf_comparison cmp;
    if (nf_comparison_of_labels(&cmp, in, apart, nin, a.workload, a.metric, &a.co, err,
                                sizeof(err))) {
        nf_err("report: %s", err);
        rc = NF_EXIT_USAGE;
        goto out;
    }
    char when[32];
    nf_iso_time(when, sizeof(when));
    char *sel = selection(&a, in, nin);
    struct nf_html_meta meta = {sel, nf_store_name(st), when, a.metric};
    rc = write_html(a.html, emit_page, &(struct page){&cmp, in, &meta});
    /* A page of rows that could not be compared is still worth a look
     * (its notes say why), but the exit says it as compare's does. */
    char why[NF_ERR_LEN];
    if (rc == 0 && !nf_compare_any(&cmp, why, sizeof(why))) {
        nf_err("report: nothing compared: %s", why);
        rc = NF_EXIT_USAGE;
    }
    free(sel);
    nf_compare_free(&cmp);
out:
    if (a.session) { /* the runs themselves are in `all` */
        for (size_t l = 0; l < nin; l++) {
            free(in[l].runs);
            free(apart[l].runs);
        }
        free(in);
        free(apart);
    } else {
        nf_cmd_free_labels(in, apart, nin);
    }
    nf_runs_free(all, nall);
    nf_store_close(st);
    return rc;
}
