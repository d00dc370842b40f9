/* Symbol tables for resolving sampled addresses: one per ELF file (elf/elfsym.h:
 * function symbols of its debug file's .symtab when it has one
 * (elf/debuginfo.h: a stripped file's symbols), else of its .symtab, else
 * .dynsym, and the PT_LOAD segments that
 * turn a file offset into the address the symbols speak; elf/plt.h: the PLT
 * stubs, "read@plt", or "[.plt]" where no function is named), and the
 * kernel's from /proc/kallsyms.  A symbol of size 0 reaches to the next
 * one, but not past the end of its section.  Files are read once and
 * kept in a cache for the life of a profile (all its repetitions). */
#ifndef NF_PROFILE_SYMBOLS_H
#define NF_PROFILE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "profile/fileid.h"

struct nf_sym {
    uint64_t start, end; /* [start, end) */
    const char *name;    /* points into the table's string pool */
    const char *dso;     /* kallsyms: "[kernel.kallsyms]" or "[module]" */
};

struct nf_symtab {
    char *path;
    struct nf_fileid id; /* of the mapped file the table is for */
    int ok;              /* 0: unreadable or not ELF; every lookup fails */
    int changed;         /* the file at path is not the mapped one (ok = 0) */
    char *shown;         /* changed: the dso to show, "PATH (replaced)" or
                            "PATH (deleted)" */
    int warned;          /* the user was told about changed (the caller's) */
    char *debug;         /* the debug file the symbols came from, or NULL */
    struct nf_sym *syms; /* sorted by start, non-overlapping lookups */
    size_t n;
    struct nf_seg {
        uint64_t offset, filesz, vaddr;
    } * segs; /* PT_LOAD */
    size_t nsegs;
    char *pool; /* the names */
    size_t npool, cappool;
};

/* Load path's symbols; never fails (ok = 0 when the file gave nothing).
 * The debug file is looked for under NF_DEBUG_DIR (elf/debuginfo.h). */
struct nf_symtab *nf_symtab_elf(const char *path);
/* Load the symbols of the file a mapping of path was of, id (NULL: not
 * known, path's file is taken as it is): from fd, a file pinned while it
 * was mapped (pin.h; -1: none), else from path, whichever is that file
 * (fileid.h).  When neither is, nothing is read from them: changed is set,
 * with shown "PATH (replaced)" when another file is there or "PATH
 * (deleted)" when none is.  Never fails.  The debug file is looked for
 * under NF_DEBUG_DIR. */
struct nf_symtab *nf_symtab_elf_id(const char *path, const struct nf_fileid *id, int fd);
/* The same, looking for the debug file of the file read (by build-id, then
 * by .gnu_debuglink) in the debug directories dirs (NULL-terminated; NULL:
 * NF_DEBUG_DIR alone; {NULL}: none, only next to the file). */
struct nf_symtab *nf_symtab_elf_debug(const char *path, const struct nf_fileid *id, int fd,
                                      const char *const *dirs);
/* Parse the text of /proc/kallsyms (text symbols only).  ok = 0 when every
 * address is 0: kptr_restrict hides them from this user. */
struct nf_symtab *nf_symtab_kallsyms(const char *text);
void nf_symtab_free(struct nf_symtab *t);

/* The ELF virtual address of a file offset (through the PT_LOAD segment
 * holding it) in *vaddr: 0, or -1 when no segment holds it. */
int nf_symtab_vaddr(const struct nf_symtab *t, uint64_t offset, uint64_t *vaddr);
/* The symbol covering addr, or NULL. */
const struct nf_sym *nf_symtab_lookup(const struct nf_symtab *t, uint64_t addr);

/* A cache of symbol tables by path and file identity, plus the kernel's
 * (loaded on first use from kallsyms_path, default /proc/kallsyms). */
struct nf_symcache {
    struct nf_symtab **t;
    size_t n, cap;
    struct nf_symtab *kernel;
    int kernel_loaded;
    const char *kallsyms_path;
    const char *const *debug_dirs; /* nf_symtab_elf_debug's dirs (NULL: default) */
};

void nf_symcache_init(struct nf_symcache *c);
void nf_symcache_free(struct nf_symcache *c);
/* The table of (path, id) as nf_symtab_elf_debug loads it with the
 * cache's debug_dirs, from the cache
 * when it is there; a cached table of a changed file is loaded again when
 * fd (a pinned file; -1: none) may be the one. */
struct nf_symtab *nf_symcache_file(struct nf_symcache *c, const char *path,
                                   const struct nf_fileid *id, int fd);
/* The kernel's table, or NULL when kallsyms is unreadable or hidden. */
struct nf_symtab *nf_symcache_kernel(struct nf_symcache *c);

#endif
