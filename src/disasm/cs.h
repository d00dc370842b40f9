/* capstone, loaded when insns first disassembles, not at start-up.
 *
 * Linked like the other libraries, libcapstone.so.4 made the dynamic
 * loader apply its 77,375 relative relocations at every start of every
 * noisefloor process (some 95% of the loader's relocation work), and the
 * pages they write were copied and counted in its resident memory: a
 * built-in workload's repetition, run in a fresh image of noisefloor,
 * paid both in its time and its max-rss.  Only insns disassembles, so the
 * disassembler calls capstone through this table, filled by nf_cs_load
 * from $NOISEFLOOR_LIBCAPSTONE or libcapstone.so.4.
 *
 * The types and constants still come from capstone's header (libcapstone-
 * dev) and so bind us to its ABI: nf_cs_load refuses a library whose major
 * version differs from the header's.
 *
 * Include this instead of <capstone/capstone.h>: after it, cs_open(...) and
 * the other functions used go through the table, unchanged in the source. */
#ifndef NF_DISASM_CS_H
#define NF_DISASM_CS_H

#include <capstone/capstone.h>
#include <stddef.h>

#define NF_CS_FUNCS(X)                                                                             \
    X(cs_close)                                                                                    \
    X(cs_disasm_iter)                                                                              \
    X(cs_free)                                                                                     \
    X(cs_malloc)                                                                                   \
    X(cs_open)                                                                                     \
    X(cs_option)                                                                                   \
    X(cs_strerror)                                                                                 \
    X(cs_support)                                                                                  \
    X(cs_version)

struct nf_cs_api {
#define NF_CS_FIELD(f) __typeof__(f) *f;
    NF_CS_FUNCS(NF_CS_FIELD)
#undef NF_CS_FIELD
};
extern struct nf_cs_api nf_cs;

/* Load capstone once: 0, or -1 with one line in err ("cannot load capstone
 * (libcapstone.so.4): ..."). */
int nf_cs_load(char *err, size_t errlen);

#ifndef NF_CS_NO_REDIRECT
#define cs_close (nf_cs.cs_close)
#define cs_disasm_iter (nf_cs.cs_disasm_iter)
#define cs_free (nf_cs.cs_free)
#define cs_malloc (nf_cs.cs_malloc)
#define cs_open (nf_cs.cs_open)
#define cs_option (nf_cs.cs_option)
#define cs_strerror (nf_cs.cs_strerror)
#define cs_support (nf_cs.cs_support)
#define cs_version (nf_cs.cs_version)
#endif

#endif
