/* Which functions `insns` shows: with --func, every function of those
 * names (each of several static functions of one name too); else the
 * --top largest across the files, aliases left out.  A policy of the
 * command over disasm's function lists, which say for each function its
 * size, which one of its name it is (dup) and whether it is an alias. */
#ifndef NF_CMD_INSNS_SELECT_H
#define NF_CMD_INSNS_SELECT_H

#include <stddef.h>

#include "disasm/disasm.h"

/* A function across files: its name and which one of that name. */
struct nf_insns_key {
    const char *name;
    int dup;
};

/* The functions to show for files[0..n): with names (nnames > 0) every
 * function of those names in any file, in the order given, then by dup
 * (a C++ name may be given demangled, as insns shows it);
 * else the top largest (0: all), ranked by their largest size in any file,
 * aliases and functions without a size left out.  Returns 0 and sets
 * *keys (allocated: free it; the names point into the files), or
 * NF_EINPUT with a line in err when a name is missing from a file or
 * there is no function to show. */
int nf_insns_select(struct nf_delf *const *files, size_t n, const char *const *names, size_t nnames,
                    size_t top, struct nf_insns_key **keys, size_t *nkeys, char *err,
                    size_t errlen);

#endif
