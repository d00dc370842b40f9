/* Loading capstone (see cs.h). */
#define NF_CS_NO_REDIRECT
#include "disasm/cs.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dl.h"

struct nf_cs_api nf_cs;

static int loaded;

/* The head of cs_insn in capstone 4 and 5, up to the mnemonic: 5 made the
 * bytes 24 long (x86 instructions with many prefixes), and so moved the
 * mnemonic; nothing before it changed. */
struct insn4 {
    unsigned int id;
    uint64_t address;
    uint16_t size;
    uint8_t bytes[16];
    char mnemonic[32];
};
struct insn5 {
    unsigned int id;
    uint64_t address;
    uint16_t size;
    uint8_t bytes[24];
    char mnemonic[32];
};

/* The header we are built with agrees with one of them. */
#if CS_API_MAJOR == 4
_Static_assert(offsetof(cs_insn, mnemonic) == offsetof(struct insn4, mnemonic), "capstone 4");
#elif CS_API_MAJOR == 5
_Static_assert(offsetof(cs_insn, mnemonic) == offsetof(struct insn5, mnemonic), "capstone 5");
#endif

static size_t mnemonic_at;

const char *nf_cs_mnemonic(const cs_insn *insn)
{
    return (const char *)insn + mnemonic_at;
}

/* dlopen name (or $NOISEFLOOR_LIBCAPSTONE) and fill nf_cs: 0, or -1 with
 * the reason in why. */
static int try_load(const char *dflt, const char **name, char *why, size_t whylen)
{
    const char *missing = NULL;
    void *h = nf_dl_open("NOISEFLOOR_LIBCAPSTONE", dflt, name, why, whylen);
    if (!h)
        return -1;
#define NF_CS_SYM(f) nf_dl_sym(h, #f, &nf_cs.f, &missing);
    NF_CS_FUNCS(NF_CS_SYM)
#undef NF_CS_SYM
    int major = 0, minor = 0;
    if (!missing)
        nf_cs.cs_version(&major, &minor);
    if (missing || (major != 4 && major != 5)) {
        if (missing)
            snprintf(why, whylen, "it has no %s", missing);
        else
            snprintf(why, whylen, "it is capstone %d.%d; noisefloor knows capstone 4 and 5", major,
                     minor);
        dlclose(h);
        memset(&nf_cs, 0, sizeof(nf_cs));
        return -1;
    }
    mnemonic_at = major == 4 ? offsetof(struct insn4, mnemonic) : offsetof(struct insn5, mnemonic);
    return 0;
}

int nf_cs_load(char *err, size_t errlen)
{
    if (loaded)
        return 0;
    /* The newest first: capstone 5 decodes AVX-512 that 4 cannot. */
    static const char *const names[] = {"libcapstone.so.5", "libcapstone.so.4"};
    const char *env = getenv("NOISEFLOOR_LIBCAPSTONE");
    size_t n = env && *env ? 1 : sizeof(names) / sizeof(names[0]);
    const char *name = NULL;
    char why[256] = "";
    for (size_t i = 0; i < n; i++)
        if (try_load(names[i], &name, why, sizeof(why)) == 0) {
            loaded = 1; /* kept open for the life of the process */
            return 0;
        }
    snprintf(err, errlen, "cannot load capstone (%s) to disassemble: %s",
             n == 1 ? name : "libcapstone.so.5 or .so.4", why);
    return -1;
}
