/* The one reader of ELF symbols, under both users: profile (which function
 * a sampled address lies in) and disasm (the functions insns counts).
 *
 * It opens a file, or an image in memory, with libelf, checks that it is an
 * ELF object, and walks one symbol table with every section index resolved
 * (SHN_XINDEX, for files with more than 65279 sections, such as a vmlinux
 * built with -ffunction-sections).  Which symbols to keep, and which of
 * several names of one address to show, is the caller's: the symbol's
 * type, binding and section come along. */
#ifndef NF_ELF_ELFSYM_H
#define NF_ELF_ELFSYM_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* An open ELF object: libelf's handle and its header, for the caller's
 * own look at sections and program headers. */
struct nf_elf {
    Elf *elf;
    GElf_Ehdr eh;
    int fd; /* -1: an image in memory */
};

/* Open path read-only.  Returns 0, or with one line in err ("PATH: why")
 * NF_EINPUT when the file is missing, not a regular file, an ar archive,
 * not ELF or has an unreadable header, -1 when libelf cannot be used.  On
 * a failure nothing stays open. */
int nf_elf_open(struct nf_elf *e, const char *path, char *err, size_t errlen);
/* The same for a file open as fd (which stays the caller's: e works on a
 * duplicate), named name in err. */
int nf_elf_open_fd(struct nf_elf *e, int fd, const char *name, char *err, size_t errlen);
/* The same for size bytes of an ELF image at image, named name in err.
 * The image is not copied: it must outlive e, and libelf may write to it
 * (converting byte order), so pass a private copy of memory that is not
 * ours. */
int nf_elf_open_memory(struct nf_elf *e, const char *name, char *image, size_t size, char *err,
                       size_t errlen);
void nf_elf_close(struct nf_elf *e);

/* The build-id of e (its NT_GNU_BUILD_ID note, as the linker's --build-id
 * writes it) in out, at most max bytes: its length, or 0 when e has none. */
size_t nf_elf_build_id(const struct nf_elf *e, unsigned char *out, size_t max);

enum nf_elf_table {
    NF_ELF_SYMTAB, /* .symtab: every symbol, gone from a stripped file */
    NF_ELF_DYNSYM  /* .dynsym: the exported ones, kept by strip */
};

struct nf_elf_sym {
    const char *name; /* never empty; in libelf's copy of the string table,
                       * valid until nf_elf_close */
    uint64_t value;   /* st_value as stored */
    uint64_t size;
    size_t shndx;   /* section index, SHN_XINDEX resolved; SHN_UNDEF,
                     * SHN_ABS, SHN_COMMON as they are */
    int in_section; /* defined in a section of the file: neither
                     * undefined nor absolute nor common */
    int type;       /* STT_FUNC, STT_OBJECT, STT_NOTYPE, ... */
    int bind;       /* STB_GLOBAL, STB_WEAK, STB_LOCAL, ... */
};

/* Where a walk over a symbol table stands. */
struct nf_elf_syms {
    Elf *elf;
    Elf_Data *data, *xdata; /* the table; its extended section indexes */
    size_t strndx;          /* section of the names */
    size_t i, n;
};

/* Start walking the first table of that kind.  0, or -1 when the file has
 * none (or it cannot be read). */
int nf_elf_syms_begin(const struct nf_elf *e, enum nf_elf_table which, struct nf_elf_syms *it);
/* The next symbol with a name, in table order: 1, or 0 at the end. */
int nf_elf_syms_next(struct nf_elf_syms *it, struct nf_elf_sym *s);

/* A function: STT_FUNC, or STT_GNU_IFUNC (a resolver, as glibc's memcpy). */
int nf_elf_sym_is_func(const struct nf_elf_sym *s);
/* Which of several names of the same code to show: the lower rank, so
 * global (0) before weak (1) before local (2). */
int nf_elf_bind_rank(int bind);

#endif
