/* The options `history` and `report --history` share, and loading a
 * history: the runs from the store, the commits' order from git. */
#include "cmd/hist_opts.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/defaults.h"
#include "core/util.h"
#include "measure/spawn.h"
#include "store/store.h"
#include "workload/workload.h"

static const struct nf_opt_choice orders[] = {
    {"time", NF_HIST_BY_TIME},
    {"commit", NF_HIST_BY_COMMIT},
    {"label", NF_HIST_BY_LABEL},
    {NULL, 0},
};

const struct nf_opts nf_cmd_hist_options = {
    .options =
        (const struct nf_option[]){
            NF_OPT_STRING_NOEMPTY('m', "metric", struct nf_cmd_hist, metric, "NAME",
                                  "only this metric", NF_DEF_TEXT("each run's primary metric")),
            NF_OPT_FLAG(0, "all", struct nf_cmd_hist, all, "every metric the runs hold"),
            NF_OPT_CHOICE(0, "by", struct nf_cmd_hist, by, orders, NULL,
                          "the order of the points: start time; the commit\n"
                          "each run records (git order with --repo, else\n"
                          "each commit's first run); the labels (-L order)",
                          NF_DEF("time")),
            NF_OPT_STRING_NOEMPTY(0, "repo", struct nf_cmd_hist, repo, "DIR",
                                  "--by commit: the git repository whose order\n"
                                  "(git rev-list, oldest first) the commits take"),
            NF_OPT_DOUBLE(0, "alpha", struct nf_cmd_hist, alpha, 0, 0.5,
                          NF_OPTF_LO_OPEN | NF_OPTF_HI_OPEN, "a significance level", "A",
                          "level of each split test and of the CIs", NF_DEF("0.01")),
            NF_OPT_DOUBLE(0, "threshold", struct nf_cmd_hist, threshold_pct, 0, 100,
                          NF_OPTF_HI_OPEN, "a percentage", "PCT",
                          "margin in percent: a change whose CI lies\n"
                          "beyond it is beyond_threshold (--tip's gate)",
                          NF_DEF(NF_STR(NF_DEFAULT_THRESHOLD_PCT))),
            NF_OPT_INT(0, "min-segment", struct nf_cmd_hist, min_seg, 2, 1000000, "a count", "N",
                       "fewest runs in a segment", NF_DEF("4")),
            NF_OPT_END,
        },
};

/* ---- the commits' order in a repository ------------------------------------- */

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct pos {
    const char *sha;
    size_t at;
};

static int pos_cmp(const void *a, const void *b)
{
    return strcmp(((const struct pos *)a)->sha, ((const struct pos *)b)->sha);
}

/* git -C repo WORDS... with words[0..n): its stdout in a buffer of cap
 * bytes (malloc'd), or NULL after one line. */
static char *git_out(const char *cmd, const char *repo, const char *const *pre, size_t npre,
                     char *const *words, size_t n, const char *suffix, size_t cap)
{
    char **argv = nf_xcalloc(n + npre + 4, sizeof(char *));
    size_t k = 0;
    argv[k++] = "git";
    argv[k++] = "-C";
    argv[k++] = (char *)repo;
    for (size_t i = 0; i < npre; i++)
        argv[k++] = (char *)pre[i];
    char **tmp = nf_xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        argv[k++] = tmp[i] = nf_xasprintf("%s%s", words[i], suffix);
    char *out = nf_xmalloc(cap), why[NF_ERR_LEN];
    int st = 0;
    int rc = nf_run_capture(argv, NULL, 120, out, cap, &st, why, sizeof(why));
    for (size_t i = 0; i < n; i++)
        free(tmp[i]);
    free(tmp);
    free(argv);
    if (rc != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        nf_err("%s: --repo %s: git %s: %s", cmd, repo, pre[0], why);
        free(out);
        return NULL;
    }
    if (strlen(out) >= cap - 1) {
        nf_err("%s: --repo %s: git %s printed more than %zu bytes", cmd, repo, pre[0], cap);
        free(out);
        return NULL;
    }
    return out;
}

/* Split s into lines in place; the count, the lines in *lines (malloc'd). */
static size_t lines_of(char *s, char ***lines)
{
    size_t n = 0, cap = 16;
    *lines = nf_xcalloc(cap, sizeof(char *));
    for (char *save = NULL, *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (n == cap)
            *lines = nf_xrealloc(*lines, (cap *= 2) * sizeof(char *));
        (*lines)[n++] = l;
    }
    return n;
}

/* The commits the runs record (names: malloc'd strings), each with its
 * place in the repository's order (older first): `git rev-parse` names
 * the full SHA of each, `git merge-base --octopus` the oldest common one,
 * and `git rev-list --topo-order --reverse` the order from there. */
static int git_order(const char *cmd, const char *repo, const struct nf_prun *runs, size_t n,
                     char ***names, size_t **ranks, size_t *nnames)
{
    char **c = nf_xcalloc(n + 1, sizeof(char *));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char buf[256];
        const char *s = nf_hist_prun_commit(&runs[i], buf, sizeof(buf));
        if (s && *s == '-') {
            char *p = nf_xprintable(s);
            nf_err("%s: run %lld records commit '%s', which git would take for an option", cmd,
                   (long long)runs[i].id, p);
            free(p);
            for (size_t j = 0; j < k; j++)
                free(c[j]);
            free(c);
            return NF_EXIT_USAGE;
        }
        if (s)
            c[k++] = nf_xstrdup(s);
    }
    qsort(c, k, sizeof(char *), str_cmp);
    size_t u = 0;
    for (size_t i = 0; i < k; i++) {
        if (u && strcmp(c[u - 1], c[i]) == 0)
            free(c[i]);
        else
            c[u++] = c[i];
    }
    *names = c;
    *nnames = u;
    *ranks = nf_xcalloc(u + 1, sizeof(size_t));
    if (!u)
        return 0;
    static const char *const parse[] = {"rev-parse"};
    char *full = git_out(cmd, repo, parse, 1, c, u, "^{commit}", 64 * u + 64);
    if (!full)
        return NF_EXIT_USAGE;
    char **sha;
    size_t ns = lines_of(full, &sha);
    int rc = 0;
    if (ns != u) {
        nf_err("%s: --repo %s: git rev-parse gave %zu names for %zu commits", cmd, repo, ns, u);
        rc = NF_EXIT_FAIL;
    }
    static const char *const base_words[] = {"merge-base", "--octopus"};
    char *base = rc ? NULL : git_out(cmd, repo, base_words, 2, sha, ns, "", 256);
    if (!rc && !base)
        rc = NF_EXIT_FAIL;
    char *order = NULL, **list = NULL;
    size_t nl = 0;
    if (!rc) {
        base[strcspn(base, "\n")] = 0;
        char **w = nf_xcalloc(ns + 2, sizeof(char *));
        memcpy(w, sha, ns * sizeof(char *));
        char *not = nf_xasprintf("^%s", base);
        w[ns] = not ;
        static const char *const rl[] = {"rev-list", "--topo-order", "--reverse"};
        order = git_out(cmd, repo, rl, 3, w, ns + 1, "", (size_t)64 << 20);
        free(not );
        free(w);
        if (!order)
            rc = NF_EXIT_FAIL;
        else
            nl = lines_of(order, &list);
    }
    if (!rc) {
        /* the base first (rev-list leaves it out), then rev-list's order */
        struct pos *p = nf_xcalloc(nl + 2, sizeof(*p));
        p[0] = (struct pos){base, 0};
        for (size_t i = 0; i < nl; i++)
            p[i + 1] = (struct pos){list[i], i + 1};
        qsort(p, nl + 1, sizeof(*p), pos_cmp);
        for (size_t i = 0; i < u; i++) {
            struct pos key = {sha[i], 0};
            struct pos *f = bsearch(&key, p, nl + 1, sizeof(*p), pos_cmp);
            (*ranks)[i] = f ? f->at : SIZE_MAX;
        }
        free(p);
    }
    free(list);
    free(order);
    free(base);
    free(sha);
    free(full);
    return rc;
}

/* Each configuration's key, as compare tells the arguments of built-in
 * workloads apart (nf_workload_key_runs does it for runs). */
static void key_cfgs(struct nf_points *p)
{
    for (size_t i = 0; i < p->ncfgs; i++) {
        struct nf_pcfg *c = &p->cfgs[i];
        const struct nf_workload *wl = nf_workload_find(c->workload);
        char **key;
        size_t nkey;
        if (!c->key && wl && nf_workload_key(wl, c->nargs, c->args, &key, &nkey) == 0) {
            c->key = key;
            c->nkey = nkey;
        }
    }
}

int nf_cmd_history(const char *cmd, const struct nf_cmd_hist *o, const char *const *labels,
                   size_t nlabels, const char *workload, struct nf_points *pts,
                   struct nf_history *h)
{
    nf_points_init(pts);
    memset(h, 0, sizeof(*h));
    if (o->repo && o->by != NF_HIST_BY_COMMIT) {
        nf_err("%s: --repo goes with --by commit", cmd);
        return NF_EXIT_USAGE;
    }
    if (o->metric && o->all) {
        nf_err("%s: give -m METRIC or --all, not both", cmd);
        return NF_EXIT_USAGE;
    }
    int rc = 0;
    struct nf_store *s = nf_cmd_open_store(cmd, NF_CMD_READ, &rc);
    if (!s)
        return rc;
    rc = nf_cmd_check_labels(cmd, s, labels, nlabels, workload);
    /* Each run's record and summaries, not its samples: all a series needs. */
    struct nf_store_filter f = {.labels = labels, .nlabels = nlabels, .workload = workload};
    if (rc == 0 && nf_store_load_points(s, &f, pts)) {
        nf_err("%s: %s", cmd, nf_store_error(s));
        rc = NF_EXIT_FAIL;
    }
    nf_store_close(s);
    if (rc) {
        nf_points_free(pts);
        return rc;
    }
    key_cfgs(pts);

    struct nf_hist_query q = {.metric = o->metric, .all_metrics = o->all, .by = o->by};
    nf_cp_opts_default(&q.cp);
    q.cp.alpha = o->alpha;
    q.cp.threshold_pct = o->threshold_pct;
    q.cp.min_seg = (size_t)o->min_seg;
    if (o->by == NF_HIST_BY_LABEL) {
        q.labels = labels;
        q.nlabels = nlabels;
    }
    char **names = NULL;
    size_t *ranks = NULL, nnames = 0;
    if (o->by == NF_HIST_BY_COMMIT) {
        size_t without = 0;
        for (size_t i = 0; i < pts->nruns; i++) {
            char buf[256];
            without += !nf_hist_prun_commit(&pts->runs[i], buf, sizeof(buf));
        }
        if (without && without < pts->nruns)
            nf_warn("%s: %zu of %zu runs record no commit: left out", cmd, without, pts->nruns);
        if (o->repo) {
            rc = git_order(cmd, o->repo, pts->runs, pts->nruns, &names, &ranks, &nnames);
            q.commits = (const char *const *)names;
            q.commit_rank = ranks;
            q.ncommits = nnames;
        }
    }
    char err[NF_ERR_LEN];
    if (rc == 0) {
        int r = nf_history_build_points(h, pts, &q, err, sizeof(err));
        if (r) {
            nf_err("%s: %s", cmd, err);
            rc = nf_exit_code(r);
        }
        h->q.commits = NULL; /* freed below */
        h->q.commit_rank = NULL;
        h->q.ncommits = 0;
    }
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    free(ranks);
    if (rc) {
        nf_history_free(h);
        nf_points_free(pts);
    }
    return rc;
}
