/* Separate debug information: the symbols a stripped file (a distribution's
 * libc, most packaged binaries) no longer has, kept in a debug file of its
 * own (objcopy --only-keep-debug; Debian's -dbg and -dbgsym packages), found
 * as gdb and perf find it:
 *
 *   1. by build-id, in each debug directory (default /usr/lib/debug):
 *      DIR/.build-id/xx/yyyy....debug, xx the build-id's first byte in
 *      hex, the rest after it;
 *   2. by the file's .gnu_debuglink (a file name and the CRC-32 of the
 *      debug file): in the file's own directory, in its .debug/
 *      subdirectory, and in each debug directory followed by the file's
 *      directory (DIR/usr/lib/x86_64-linux-gnu/NAME).
 *
 * A candidate is used only when it is that file's debug file: the same
 * build-id when both have one (one found by build-id must have it), the
 * CRC-32 of .gnu_debuglink when found through it, an ELF object of the same
 * class and machine, and with a .symtab.  Anything else is passed over: a
 * wrong debug file would give wrong names.  The debug file's addresses are
 * the stripped file's (one link made both). */
#ifndef NF_ELF_DEBUGINFO_H
#define NF_ELF_DEBUGINFO_H

#include <stddef.h>
#include <stdint.h>

#include "elf/elfsym.h"

#define NF_DEBUG_DIR "/usr/lib/debug" /* gdb's and perf's default */

/* The CRC-32 .gnu_debuglink keeps (the zlib one, as gdb computes it):
 * crc of the bytes so far (0 to start), continued over buf[0..n). */
uint32_t nf_elf_debug_crc32(uint32_t crc, const void *buf, size_t n);

/* e's .gnu_debuglink: the debug file's name in name (at most max bytes,
 * NUL included) and its CRC in *crc: 1, or 0 when e has none (or a
 * malformed one). */
int nf_elf_debuglink(const struct nf_elf *e, char *name, size_t max, uint32_t *crc);

/* One place to look, in the order of the list. */
struct nf_elf_debug_path {
    char *path;
    int by_link; /* 0: by build-id; 1: by .gnu_debuglink (its CRC must match) */
};

/* The places to look for the debug file of the file at file (an absolute
 * path; a relative one gets no candidate under the debug directories),
 * whose build-id is bid[nbid] (nbid 0: none) and whose .gnu_debuglink names
 * link (NULL: none), with the debug directories dirs (NULL-terminated; NULL
 * for NF_DEBUG_DIR alone): the order above.  Returns how many, the array in
 * *out (malloc'd, NULL when none; free with nf_elf_debug_paths_free).  No
 * file is touched. */
size_t nf_elf_debug_paths(const char *file, const unsigned char *bid, size_t nbid, const char *link,
                          const char *const *dirs, struct nf_elf_debug_path **out);
void nf_elf_debug_paths_free(struct nf_elf_debug_path *p, size_t n);

/* Find and open the debug file of e, the ELF file at file, looking in dirs
 * as nf_elf_debug_paths does: 1 with *dbg open (close it with nf_elf_close)
 * and its path in *found (malloc'd; found may be NULL), or 0 when there is
 * none that matches (*dbg closed, *found untouched). */
int nf_elf_debug_open(const struct nf_elf *e, const char *file, const char *const *dirs,
                      struct nf_elf *dbg, char **found);

#endif
