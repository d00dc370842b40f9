/* The stubs of an ELF file's procedure linkage table: each call of a
 * function of another object goes through one, and the symbol tables name
 * none of them (a sizeless symbol just before, such as _init, would
 * otherwise seem to cover them all).
 *
 * On x86-64 each stub is an indirect jump through a slot of the GOT
 * (`jmp *slot(%rip)`, after an endbr64 and a bnd or a mov where the linker
 * puts them: GNU ld's .plt, .plt.sec and .plt.got, lld's and mold's
 * layouts); the dynamic relocation that fills that slot (JUMP_SLOT or
 * GLOB_DAT) names the function, so the stub is named by what it does, not by
 * its position, as `perf report` names it ("read@plt").  The header of a
 * lazy .plt, stubs without a named slot (IRELATIVE) and the PLT sections of
 * other architectures are returned unnamed. */
#ifndef NF_ELF_PLT_H
#define NF_ELF_PLT_H

#include <stddef.h>
#include <stdint.h>

#include "elf/elfsym.h"

struct nf_elf_plt {
    uint64_t addr, size; /* [addr, addr + size), ELF virtual addresses */
    const char *name;    /* the function ("read"), or NULL: not a named stub */
    const char *section; /* ".plt", ".plt.sec", ".plt.got", ... */
    /* name and section point into libelf's copy of the file: valid until
     * nf_elf_close. */
};

/* The stubs of every executable section whose name starts with ".plt", in
 * file order, adjacent unnamed ones of a section joined into one entry (so
 * the entries cover each section whole).  Returns how many, with the array
 * in *out (malloc'd; NULL when none). */
size_t nf_elf_plt(const struct nf_elf *e, struct nf_elf_plt **out);

#endif
