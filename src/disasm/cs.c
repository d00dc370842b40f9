/* Loading capstone (see cs.h). */
#define NF_CS_NO_REDIRECT
#include "disasm/cs.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nf_cs_api nf_cs;

static int loaded;

int nf_cs_load(char *err, size_t errlen)
{
    if (loaded)
        return 0;
    const char *name = getenv("NOISEFLOOR_LIBCAPSTONE");
    if (!name || !*name)
        name = "libcapstone.so.4";
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "cannot load capstone (%s) to disassemble: %s", name, dlerror());
        return -1;
    }
    const char *missing = NULL;
#define NF_CS_SYM(f)                                                                               \
    {                                                                                              \
        void *p = dlsym(h, #f);                                                                    \
        if (!p && !missing)                                                                        \
            missing = #f;                                                                          \
        memcpy(&nf_cs.f, &p, sizeof(p));                                                           \
    }
    NF_CS_FUNCS(NF_CS_SYM)
#undef NF_CS_SYM
    int major = 0, minor = 0;
    if (!missing)
        nf_cs.cs_version(&major, &minor);
    if (missing || major != CS_API_MAJOR) {
        if (missing)
            snprintf(err, errlen, "cannot load capstone (%s): it has no %s", name, missing);
        else
            snprintf(err, errlen,
                     "cannot load capstone (%s): it is capstone %d.%d, noisefloor was built "
                     "for %d.x",
                     name, major, minor, CS_API_MAJOR);
        dlclose(h);
        memset(&nf_cs, 0, sizeof(nf_cs));
        return -1;
    }
    loaded = 1; /* kept open for the life of the process */
    return 0;
}
