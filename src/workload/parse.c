/* The usual parse of a workload's words: its option table over a fresh
 * copy of its defaults. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "workload/workload.h"

int nf_workload_parse_opts(const struct nf_workload *wl, const void *defaults, size_t size,
                           int argc, char **argv, void **cfgp, char *err, size_t errlen)
{
    void *cfg = nf_xmalloc(size);
    memcpy(cfg, defaults, size);
    char e[NF_ERR_LEN];
    int first, rc = nf_opts_parse(wl->opts, cfg, argc, argv, &first, e, sizeof(e));
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
