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
#include "cmd/cmd.h"
#include "cmd/cmp_opts.h"
#include "cmd/db.h"
#include "cmd/hist_opts.h"
#include "cmd/report_page.h"
#include "core/safefile.h"
#include "core/util.h"
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
int nf_report_check_destination(const char *path)
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
int nf_report_write_html(const char *path, void (*emit)(FILE *out, const void *ctx),
                         const void *ctx)
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
    if ((rc = nf_report_check_destination(a.html)) != 0)
        return rc;
    const char **labels = (const char **)argv + first;
    size_t nlabels = (size_t)(argc - first);
    struct nf_points pts;
    struct nf_history h;
    rc = nf_cmd_history("report", &a.h, labels, nlabels, a.workload, &pts, &h);
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
    rc = nf_report_write_html(a.html, emit_history_page, &(struct history_page){&h, &meta, &r});
    free(sel);
    nf_history_free(&h);
    nf_points_free(&pts);
    return rc;
}

/* report --bisect: the words parsed with this table instead. */
int cmd_report(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--history") == 0)
            return report_history(argc, argv);
        if (strcmp(argv[i], "--bisect") == 0)
            return nf_report_bisect(argc, argv);
    }
    struct report_args a = {.co = nf_cmp_defaults()};
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? NF_EXIT_OK : rc;
    if ((rc = nf_report_check_destination(a.html)) != 0)
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
    rc = nf_report_write_html(a.html, emit_page, &(struct page){&cmp, in, &meta});
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
