/* What elf.c and mix.c share behind struct nf_delf. */
#ifndef NF_DISASM_PRIV_H
#define NF_DISASM_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "disasm/cs.h"
#include "elf/elfsym.h"

/* An ARM or AArch64 mapping symbol: from addr on, the section holds ARM
 * code ('a'), Thumb code ('t'), A64 code ('x') or data ('d'). */
struct nf_mapsym {
    size_t shndx;
    uint64_t addr;
    char kind;
};

struct nf_delf_priv {
    struct nf_elf elf;
    int rel; /* ET_REL: symbol values are section offsets */
    cs_arch cs_arch;
    cs_mode cs_mode;        /* ARM: the mode of non-Thumb code */
    unsigned align;         /* bytes to step over an invalid encoding */
    struct nf_mapsym *maps; /* sorted by section, then address */
    size_t nmaps;
};

#endif
