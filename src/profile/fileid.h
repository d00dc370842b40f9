/* Which file a mapping was of.  Symbols are read after the workload ran,
 * by path; by then the path may name another file (a rebuild: the linker
 * writes a new file and renames it over the old one, or deletes the old
 * one first; cp rewrites it in place).  The kernel says which file it
 * mapped, in PERF_RECORD_MMAP2 (and /proc/PID/maps): the build-id of the
 * ELF file when it could read it (Linux 5.12 and later, with
 * attr.build_id), else the device, inode and inode generation.  A file is
 * read for symbols only when it still is that file. */
#ifndef NF_PROFILE_FILEID_H
#define NF_PROFILE_FILEID_H

#include <stddef.h>
#include <stdint.h>

#include "elf/elfsym.h"

#define NF_BUILD_ID_MAX 20 /* the kernel's BUILD_ID_SIZE_MAX */

enum nf_fileid_kind {
    NF_FILEID_NONE,   /* not said (an MMAP record; anonymous memory, [vdso]) */
    NF_FILEID_INODE,  /* maj, min, ino, gen */
    NF_FILEID_BUILDID /* bid[nbid] */
};

struct nf_fileid {
    enum nf_fileid_kind kind;
    uint32_t maj, min; /* the device, as the kernel's MAJOR() and MINOR() */
    uint64_t ino;
    uint64_t gen; /* i_generation; 0: not known */
    uint32_t nbid;
    unsigned char bid[NF_BUILD_ID_MAX];
};

/* The same identity (NONE is the same as nothing, not even NONE). */
int nf_fileid_equal(const struct nf_fileid *a, const struct nf_fileid *b);

/* Is the open ELF file e (opened from a file, not memory) the one id
 * names?  1 yes (or id says nothing), 0 no.  A build-id is compared with
 * the file's NT_GNU_BUILD_ID note; an inode with the file's device and
 * inode as the kernel reports them for a mapping of it (fstat, and where
 * that differs, as on overlayfs, the file mapped here and looked up in
 * /proc/self/maps), and with its generation where the filesystem tells it
 * (FS_IOC_GETVERSION). */
int nf_fileid_matches(const struct nf_fileid *id, const struct nf_elf *e);

#endif
