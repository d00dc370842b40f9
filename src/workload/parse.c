/* The usual parse of a workload's words: its option table over a fresh
 * copy of its defaults (what the table's rows do not say) and the rows'
 * own defaults; and the key of a run's words, which says what
 * configuration they ask for. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/util.h"
#include "workload/workload.h"

int nf_workload_parse_opts(const struct nf_workload *wl, const void *defaults, size_t size,
                           int argc, char **argv, void **cfgp, char *err, size_t errlen)
{
    void *cfg = nf_xmalloc(size);
    memcpy(cfg, defaults, size);
    char e[NF_ERR_LEN];
    /* Over the table's defaults (NF_DEF), which defaults does not hold. */
    int first = argc, rc = nf_opts_defaults(wl->opts, cfg, e, sizeof(e));
    if (rc == 0)
        rc = nf_opts_parse(wl->opts, cfg, argc, argv, &first, e, sizeof(e));
    if (rc == NF_OPTS_HELP)
        snprintf(e, sizeof(e), "unexpected '%s'", "--help");
    else if (rc == 0 && first < argc)
        snprintf(e, sizeof(e), "unexpected argument '%s'", argv[first]);
    if (rc || first < argc) {
        snprintf(err, errlen, "%s: %s", wl->name, e);
        free(cfg);
        return -1;
    }
    *cfgp = cfg;
    return 0;
}

/* The key: the words parsed into a cfg, and the cfg written back by the
 * table against the defaults (the cfg of no words).  Defaults left out
 * make `pipe -l 1000000` the same as `pipe`.  That assumes the defaults of
 * a workload are stable across versions of noisefloor, but comparing the
 * stored words as text assumed it already: a `pipe` run stored years ago
 * is compared with a `pipe` run of today. */
int nf_workload_key(const struct nf_workload *wl, size_t nargs, char *const *args, char ***key,
                    size_t *nkey)
{
    if (!wl->opts || !wl->parse || nargs > INT_MAX - 1)
        return -1;
    /* The parser may reorder what it is given: a copy of the pointers. */
    char **argv = nf_xcalloc(nargs + 2, sizeof(char *));
    argv[0] = (char *)wl->name;
    for (size_t i = 0; i < nargs; i++)
        argv[i + 1] = args[i];
    char err[NF_ERR_LEN];
    void *cfg = NULL, *defaults = NULL;
    int rc = -1;
    if (wl->parse((int)nargs + 1, argv, &cfg, err, sizeof(err)) == 0 &&
        wl->parse(1, argv, &defaults, err, sizeof(err)) == 0)
        rc = nf_opts_render(wl->opts, cfg, defaults, key, nkey, err, sizeof(err));
    if (cfg)
        wl->free_cfg(cfg);
    if (defaults)
        wl->free_cfg(defaults);
    free(argv);
    return rc;
}

void nf_workload_key_runs(struct nf_run *const *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct nf_workload *wl = nf_workload_find(runs[i]->workload);
        char **key;
        size_t nkey;
        if (wl && nf_workload_key(wl, runs[i]->nargs, runs[i]->args, &key, &nkey) == 0)
            nf_run_set_key(runs[i], key, nkey);
    }
}
