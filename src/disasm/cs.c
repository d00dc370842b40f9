/* Loading capstone (see cs.h). */
#define NF_CS_NO_REDIRECT
#include "disasm/cs.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/dl.h"

struct nf_cs_api nf_cs;

static int loaded;

int nf_cs_load(char *err, size_t errlen)
{
    if (loaded)
        return 0;
    const char *name, *missing = NULL;
    char why[256];
    void *h = nf_dl_open("NOISEFLOOR_LIBCAPSTONE", "libcapstone.so.4", &name, why, sizeof(why));
    if (!h) {
        snprintf(err, errlen, "cannot load capstone (%s) to disassemble: %s", name, why);
        return -1;
    }
#define NF_CS_SYM(f) nf_dl_sym(h, #f, &nf_cs.f, &missing);
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
