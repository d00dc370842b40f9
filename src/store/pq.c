/* Loading libpq (see pq.h). */
#define NF_PQ_NO_REDIRECT
#include "store/pq.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/dl.h"

struct nf_pq_api nf_pq;

static int loaded;

int nf_pq_load(char *err, size_t errlen)
{
    if (loaded)
        return 0;
    const char *name, *missing = NULL;
    char why[256];
    void *h = nf_dl_open("NOISEFLOOR_LIBPQ", "libpq.so.5", &name, why, sizeof(why));
    if (!h) {
        snprintf(err, errlen, "cannot load libpq (%s), which a PostgreSQL store needs: %s", name,
                 why);
        return -1;
    }
#define NF_PQ_SYM(f) nf_dl_sym(h, #f, &nf_pq.f, &missing);
    NF_PQ_FUNCS(NF_PQ_SYM)
#undef NF_PQ_SYM
    if (missing) {
        snprintf(err, errlen, "cannot load libpq (%s): it has no %s", name, missing);
        dlclose(h);
        memset(&nf_pq, 0, sizeof(nf_pq));
        return -1;
    }
    loaded = 1; /* kept open for the life of the process */
    return 0;
}
