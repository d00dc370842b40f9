/* Loading a shared library when first needed (see dl.h). */
#include "core/dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *nf_dl_open(const char *env, const char *dflt, const char **name, char *why, size_t whylen)
{
    const char *n = getenv(env);
    *name = n && *n ? n : dflt;
    void *h = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, whylen, "%s", e ? e : "cannot be loaded");
    }
    return h;
}

void nf_dl_sym(void *h, const char *sym, void *slot, const char **missing)
{
    void *p = dlsym(h, sym);
    if (!p && !*missing)
        *missing = sym;
    memcpy(slot, &p, sizeof(p)); /* a function pointer's storage (POSIX: the same size) */
}
