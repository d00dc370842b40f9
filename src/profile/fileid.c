/* Comparing a file with the identity the kernel reported for a mapping of
 * it (see fileid.h). */
#include "profile/fileid.h"

#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "core/util.h"

int nf_fileid_equal(const struct nf_fileid *a, const struct nf_fileid *b)
{
    if (a->kind != b->kind || a->kind == NF_FILEID_NONE)
        return 0;
    if (a->kind == NF_FILEID_BUILDID)
        return a->nbid == b->nbid && memcmp(a->bid, b->bid, a->nbid) == 0;
    return a->maj == b->maj && a->min == b->min && a->ino == b->ino && a->gen == b->gen;
}

/* The device and inode /proc/self/maps shows for a page of fd mapped here:
 * what the kernel's mmap records say of a mapping of that file (on
 * overlayfs, the underlying file's, where fstat tells the overlay's
 * device).  0, or -1 when it cannot be seen. */
static int mapped_id(int fd, uint32_t *maj, uint32_t *min, uint64_t *ino)
{
    void *p = mmap(NULL, 1, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
        return -1;
    char *maps = nf_read_file_max("/proc/self/maps", NF_READ_FILE_LARGE);
    int rc = -1;
    for (const char *line = maps; line && *line && rc;) {
        uint64_t a, b;
        unsigned x, y;
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %x:%x %" SCNu64, &a, &b, &x, &y, ino) ==
                5 &&
            a == (uint64_t)(uintptr_t)p) {
            *maj = x;
            *min = y;
            rc = 0;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    free(maps);
    munmap(p, 1);
    return rc;
}

static int inode_matches(const struct nf_fileid *id, int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return 0;
    if (st.st_ino != id->ino || major(st.st_dev) != id->maj || minor(st.st_dev) != id->min) {
        uint32_t maj, min;
        uint64_t ino;
        if (mapped_id(fd, &maj, &min, &ino) || ino != id->ino || maj != id->maj || min != id->min)
            return 0;
    }
    /* The same inode number on a filesystem that reuses a deleted file's
     * number for the next one: the generation tells them apart. */
    union {
        long l;
        int i; /* the filesystems write an int */
    } v = {0};
    if (id->gen && ioctl(fd, FS_IOC_GETVERSION, &v) == 0 && (uint32_t)v.i != (uint32_t)id->gen)
        return 0;
    return 1;
}

int nf_fileid_matches(const struct nf_fileid *id, const struct nf_elf *e)
{
    switch (id->kind) {
    case NF_FILEID_NONE: return 1;
    case NF_FILEID_INODE: return e->fd >= 0 && inode_matches(id, e->fd);
    case NF_FILEID_BUILDID: {
        unsigned char bid[NF_BUILD_ID_MAX];
        size_t n = nf_elf_build_id(e, bid, sizeof(bid));
        return n == id->nbid && memcmp(bid, id->bid, n) == 0;
    }
    }
    return 0;
}
