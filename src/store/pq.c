/* Loading libpq (see pq.h). */
#define NF_PQ_NO_REDIRECT
#include "store/pq.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nf_pq_api nf_pq;

static int loaded;

int nf_pq_load(char *err, size_t errlen)
{
    if (loaded)
        return 0;
    const char *name = getenv("NOISEFLOOR_LIBPQ");
    if (!name || !*name)
        name = "libpq.so.5";
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "cannot load libpq (%s), which a PostgreSQL store needs: %s", name,
                 dlerror());
        return -1;
    }
    const char *missing = NULL;
#define NF_PQ_SYM(f)                                                                               \
    {                                                                                              \
        void *p = dlsym(h, #f);                                                                    \
        if (!p && !missing)                                                                        \
            missing = #f;                                                                          \
        memcpy(&nf_pq.f, &p, sizeof(p));                                                           \
    }
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
