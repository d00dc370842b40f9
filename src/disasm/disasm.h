/* Instruction mix of functions in ELF files: the `objdump -d | grep mul`
 * of doc/cases.md's third case, done properly.  An ELF file is opened once (libelf), its
 * function symbols listed; a function's bytes are then disassembled
 * (capstone) and counted per mnemonic.  No printing here: a failure comes
 * back as one line in err and NF_EINPUT for bad input (a missing file, not
 * an ELF, an unsupported architecture, a function without bytes) or -1 for
 * the machine failing us (libelf, capstone). */
#ifndef NF_DISASM_DISASM_H
#define NF_DISASM_DISASM_H

#include <stddef.h>
#include <stdint.h>

/* One function symbol (STT_FUNC or STT_GNU_IFUNC, defined in a section). */
struct nf_dfunc {
    char *name;
    uint64_t addr; /* st_value: a virtual address in executables and
                    * shared objects, section-relative in .o files;
                    * the ARM Thumb bit is cleared */
    uint64_t size; /* st_size; 0 when the assembler was not told */
    size_t shndx;  /* section holding the bytes */
    int thumb;     /* ARM: the symbol is Thumb code (bit 0 of st_value) */
    int dup;       /* 1 for the first function of this name (by
                    * address), 2 for the second... (static functions
                    * of the same name in one vmlinux) */
    int alias;     /* another symbol names the same bytes and is
                    * preferred (global before weak before local) */
};

/* An open ELF file.  funcs is sorted by size (largest first), then name,
 * then address. */
struct nf_delf {
    char *path;
    const char *arch;   /* "x86-64", "x86", "aarch64", "arm", ... */
    const char *type;   /* "relocatable", "executable", "PIE executable",
                         * "shared object", "core" */
    const char *symtab; /* "symtab", or "dynsym" for a stripped file */
    struct nf_dfunc *funcs;
    size_t nfuncs;
    struct nf_delf_priv *priv;
};

struct nf_mnem {
    char *mnemonic; /* as capstone prints it: Intel syntax on x86, with
                     * prefixes such as "lock " or "rep " */
    long count;
};

/* The instruction mix of one function. */
struct nf_mix {
    long insns;         /* instructions decoded */
    uint64_t bytes;     /* the function's size */
    uint64_t skipped;   /* bytes not decoded: data between code (ARM
                         * mapping symbols $d) and invalid encodings */
    long undecodable;   /* encodings capstone could not decode, each
                         * skipped whole (its length known: disasm/
                         * insnlen.h); their bytes are in skipped */
    int unsure;         /* an undecodable x86 encoding of unknown length
                         * was met: one byte was skipped, and the counts
                         * from unsure_at on may be wrong */
    uint64_t unsure_at; /* the address of the first such encoding */
    struct nf_mnem *mn; /* by count (highest first), then mnemonic */
    size_t nmn;
    long *matched; /* one count per pattern given */
};

/* The architectures known, for messages: "x86-64, x86, aarch64, ...". */
extern const char nf_disasm_archs[];

/* Open path and read its function symbols (.symtab, else .dynsym).
 * Returns 0 and sets *out, or NF_EINPUT or -1 with a line in err. */
int nf_delf_open(const char *path, struct nf_delf **out, char *err, size_t errlen);
void nf_delf_close(struct nf_delf *e);

/* The dup-th function named name (dup >= 1), or NULL. */
const struct nf_dfunc *nf_delf_find(const struct nf_delf *e, const char *name, int dup);

/* The bytes of f in the file: *len = f->size.  Returns 0, or NF_EINPUT
 * with a line in err (no size, section without contents, out of bounds). */
int nf_delf_bytes(const struct nf_delf *e, const struct nf_dfunc *f, const uint8_t **bytes,
                  char *err, size_t errlen);

/* Does pattern match mnemonic?  A pattern matches when the mnemonic
 * contains it, ignoring case ("mul" matches mul, imul, mulx, fmul, vpmulld,
 * smull, umulh); a leading '^' anchors it at the start of the mnemonic, a
 * trailing '$' at the end ("^mul$" matches mul only). */
int nf_mnemonic_match(const char *pattern, const char *mnemonic);

/* Disassemble f and count its instructions; matched[i] counts the
 * instructions whose mnemonic matches patterns[i].  Returns 0, or NF_EINPUT
 * (the bytes, as nf_delf_bytes) or -1 (capstone: cannot be loaded, lacks
 * the architecture, fails) with a line in err.  The first call loads
 * capstone (disasm/cs.h); nothing else here needs it. */
int nf_delf_mix(const struct nf_delf *e, const struct nf_dfunc *f, const char *const *patterns,
                size_t npatterns, struct nf_mix *out, char *err, size_t errlen);
void nf_mix_free(struct nf_mix *m);

#endif
