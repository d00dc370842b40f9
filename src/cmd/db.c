/* What the store commands share: opening the database with one error line,
 * and parsing run ids. */
#include "cmd/db.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/util.h"

struct nf_store *nf_cmd_open_store(const char *cmd, int use, int *rc)
{
    char err[NF_ERR_LEN];
    struct nf_store *s;
    int flags = use == NF_CMD_CREATE ? NF_STORE_CREATE : use == NF_CMD_READ ? NF_STORE_READONLY : 0;
    int orc = nf_store_open(&s, nf_g.db, flags, err, sizeof(err));
    if (orc != 0) {
        nf_err("%s: %s", cmd, err);
        /* A store named that does not exist (no such file, no tables of
         * ours in the server's database) is the user's input to fix. */
        *rc = orc == NF_STORE_NOTFOUND ? NF_EXIT_USAGE : NF_EXIT_FAIL;
    }
    return s;
}

int nf_cmd_check_db(const char *db, char *err, size_t errlen)
{
    if (!*db) {
        snprintf(err, errlen, "--db '': give a database path or a PostgreSQL URI");
        return -1;
    }
    if (strcmp(db, ":memory:") == 0) {
        snprintf(err, errlen, "--db :memory: would keep nothing; give a file path");
        return -1;
    }
    if (strncmp(db, "file:", 5) == 0) {
        snprintf(err, errlen,
                 "--db '%s': SQLite URIs are not taken (nothing may be kept); give a file "
                 "path (./%s for a file of that name)",
                 db, db);
        return -1;
    }
    return 0;
}

char *nf_cmd_words(char *const *words, size_t n)
{
    size_t cap = 1;
    for (size_t i = 0; i < n; i++)
        cap += 4 * strlen(words[i]) + 3;
    char *out = nf_xmalloc(cap), *o = out;
    for (size_t i = 0; i < n; i++) {
        const char *w = words[i];
        int quote = !*w || strpbrk(w, " \t\n'\"\\$`;&|<>()*?") != NULL;
        if (i)
            *o++ = ' ';
        if (quote)
            *o++ = '\'';
        for (; *w; w++) {
            if (quote && *w == '\'') { /* 'it'\''s' */
                memcpy(o, "'\\''", 4);
                o += 4;
            } else {
                *o++ = *w;
            }
        }
        if (quote)
            *o++ = '\'';
    }
    *o = 0;
    return out;
}

int nf_cmd_parse_id(const char *cmd, const char *s, int64_t *id)
{
    long v; /* 64 bits, as run ids are (LP64) */
    if (nf_parse_long(s, 1, LONG_MAX, &v)) {
        nf_err("%s: expected a run id (a number from 'noisefloor list'), got '%s'", cmd, s);
        return -1;
    }
    *id = v;
    return 0;
}

int nf_cmd_load_run(struct nf_store *s, int64_t id, int hists, struct nf_run **run)
{
    int r = nf_store_load_run(s, id, run);
    if (r == 0 && hists && nf_store_load_hists(s, run, 1)) {
        nf_run_free(*run);
        *run = NULL;
        r = -1;
    }
    return r;
}

/* Each label asked for must have runs: a typo is an error, not silence. */
int nf_cmd_check_labels(const char *cmd, struct nf_store *s, const char *const *labels, size_t n,
                        const char *workload)
{
    for (size_t i = 0; i < n; i++) {
        struct nf_store_filter f = {.labels = &labels[i], .nlabels = 1, .workload = workload};
        int64_t *ids;
        size_t nids;
        if (nf_store_find_runs(s, &f, &ids, &nids)) {
            nf_err("%s: %s", cmd, nf_store_error(s));
            return NF_EXIT_FAIL;
        }
        free(ids);
        if (nids == 0) {
            nf_err("%s: no runs with label '%s'%s%s in %s", cmd, labels[i],
                   workload ? " and workload " : "", workload ? workload : "", nf_store_name(s));
            return NF_EXIT_USAGE;
        }
    }
    if (n == 0 && workload) {
        struct nf_store_filter f = {.workload = workload};
        int64_t *ids;
        size_t nids;
        if (nf_store_find_runs(s, &f, &ids, &nids)) {
            nf_err("%s: %s", cmd, nf_store_error(s));
            return NF_EXIT_FAIL;
        }
        free(ids);
        if (nids == 0) {
            nf_err("%s: no runs of workload '%s' in %s", cmd, workload, nf_store_name(s));
            return NF_EXIT_USAGE;
        }
    }
    return 0;
}

int nf_cmd_selected_runs(const char *cmd, const struct nf_cmd_selection *sel, int hists, int argc,
                         char **argv, int first, struct nf_run ***runs, size_t *n)
{
    *runs = NULL;
    *n = 0;
    if (first < argc) {
        nf_err("%s: unexpected argument '%s'", cmd, argv[first]);
        return NF_EXIT_USAGE;
    }
    int rc = NF_EXIT_OK;
    struct nf_store *s = nf_cmd_open_store(cmd, NF_CMD_READ, &rc);
    if (!s)
        return rc;
    rc = nf_cmd_check_labels(cmd, s, sel->labels.v, sel->labels.n, sel->workload);
    struct nf_store_filter f = {
        .labels = sel->labels.v, .nlabels = sel->labels.n, .workload = sel->workload};
    if (rc == 0 &&
        (nf_store_load_runs(s, &f, runs, n) || (hists && nf_store_load_hists(s, *runs, *n)))) {
        nf_err("%s: %s", cmd, nf_store_error(s));
        rc = NF_EXIT_FAIL;
    }
    nf_store_close(s);
    return rc;
}

const struct nf_opts nf_cmd_selection_options = {
    .options =
        (const struct nf_option[]){
            NF_OPT_LIST('L', "label", struct nf_cmd_selection, labels, NF_SEL_MAX_LABELS, "L",
                        "only runs with this label (repeatable)"),
            NF_OPT_STRING('w', "workload", struct nf_cmd_selection, workload, "W",
                          "only runs of this workload"),
            NF_OPT_END,
        },
};

void nf_cmd_warn_pooled(const char *cmd, struct nf_store *st, const char *label)
{
    const char *lab[1] = {label};
    struct nf_store_filter f = {.labels = lab, .nlabels = 1, .counted = 1};
    int64_t *ids = NULL;
    size_t n = 0;
    if (nf_store_find_runs(st, &f, &ids, &n) == 0 && n)
        nf_warn("%s: label '%s' already has %zu run(s) in %s; `compare` will pool them with "
                "this session's",
                cmd, label, n, nf_store_name(st));
    free(ids);
}
