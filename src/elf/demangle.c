/* Demangling C++ names for display (see demangle.h). */
#include "elf/demangle.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef char *cxa_demangle_fn(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn *demangler;
static int tried;

static cxa_demangle_fn *load(void)
{
    if (!tried) {
        tried = 1;
        /* Kept open for the life of the process, like capstone. */
        void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
        void *f = h ? dlsym(h, "__cxa_demangle") : NULL;
        memcpy(&demangler, &f, sizeof(f)); /* a function pointer's storage (POSIX) */
    }
    return demangler;
}

char *nf_demangle(const char *sym)
{
    if (strncmp(sym, "_Z", 2) != 0)
        return NULL;
    cxa_demangle_fn *f = load();
    if (!f)
        return NULL;
    int status = -1;
    char *d = f(sym, NULL, NULL, &status);
    if (status != 0) {
        free(d);
        return NULL;
    }
    return d;
}

const char *nf_demangle_show(const char *sym, char **tofree)
{
    *tofree = nf_demangle(sym);
    return *tofree ? *tofree : sym;
}
