/* report --bisect: the bisection in progress drawn as one page
 * (doc/noisefloor-report.1), its rows replayed from its state as bisect
 * status does and laid over its range, for report/bisect_html.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/bisect.h"
#include "bisect/git.h"
#include "cmd/cmd.h"
#include "cmd/db.h"
#include "cmd/report_page.h"
#include "core/util.h"
#include "report/bisect_html.h"
#include "store/store.h"

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
int nf_report_bisect(int argc, char **argv)
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
    if ((rc = nf_report_check_destination(a.html)) != 0)
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
    rc = nf_report_write_html(a.html, emit_bisect_page, &(struct bisect_page){&v, &meta});
    free(rev);
done:
    free(buf);
    nf_bisect_out_free(&out);
    nf_bstate_free(&s);
    if (st)
        nf_store_close(st);
    return rc;
}
