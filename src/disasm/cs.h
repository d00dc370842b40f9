/* capstone, loaded when insns first disassembles, not at start-up.
 *
 * Linked like the other libraries, libcapstone.so.4 made the dynamic
 * loader apply its 77,375 relative relocations at every start of every
 * noisefloor process (some 95% of the loader's relocation work), and the
 * pages they write were copied and counted in its resident memory: a
 * built-in workload's repetition, run in a fresh image of noisefloor,
 * paid both in its time and its max-rss.  Only insns disassembles, so the
 * disassembler calls capstone through this table, filled by nf_cs_load
 * from $NOISEFLOOR_LIBCAPSTONE, else libcapstone.so.5, else .so.4: 5 is
 * preferred, as 4.0.2 cannot decode many AVX-512 instructions.
 *
 * The types and constants still come from capstone's header (libcapstone-
 * dev).  What is used of them is the same in capstone 4 and 5: the values
 * of the architectures and modes used, CS_OPT_MODE, the functions below;
 * but cs_insn grew, so its mnemonic is read with nf_cs_mnemonic, which
 * knows where the loaded version keeps it.  Other versions are refused.
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
 * (libcapstone.so.5 or .so.4) to disassemble: ..."). */
int nf_cs_load(char *err, size_t errlen);

/* The mnemonic of an instruction that cs_disasm_iter filled, in the layout
 * of the capstone loaded. */
const char *nf_cs_mnemonic(const cs_insn *insn);

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
