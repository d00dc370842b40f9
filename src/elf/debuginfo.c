/* Finding a stripped file's separate debug file (see debuginfo.h). */
#include "elf/debuginfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

uint32_t nf_elf_debug_crc32(uint32_t crc, const void *buf, size_t n)
{
    static uint32_t table[256];
    if (!table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    const unsigned char *p = buf;
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* The section of e named name, or NULL. */
static Elf_Scn *section(const struct nf_elf *e, const char *name)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(e->elf, &shstrndx) != 0)
        return NULL;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(e->elf, shstrndx, sh.sh_name) : NULL;
        if (n && strcmp(n, name) == 0)
            return scn;
    }
    return NULL;
}

int nf_elf_debuglink(const struct nf_elf *e, char *name, size_t max, uint32_t *crc)
{
    /* The name, NUL-terminated, padded to a multiple of 4 bytes, then the
     * CRC as a word of the file's byte order. */
    Elf_Scn *scn = section(e, ".gnu_debuglink");
    GElf_Shdr sh;
    Elf_Data *d;
    if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
        !(d = elf_getdata(scn, NULL)) || !d->d_buf)
        return 0;
    const unsigned char *p = d->d_buf;
    size_t len = strnlen((const char *)p, d->d_size);
    size_t at = (len + 4) & ~(size_t)3;
    if (len == 0 || len >= d->d_size || len + 1 > max || at + 4 > d->d_size)
        return 0;
    memcpy(name, p, len + 1);
    const unsigned char *c = p + at;
    *crc = e->eh.e_ident[EI_DATA] == ELFDATA2MSB
               ? (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3]
               : (uint32_t)c[3] << 24 | (uint32_t)c[2] << 16 | (uint32_t)c[1] << 8 | c[0];
    return 1;
}

static void add(struct nf_elf_debug_path **out, size_t *n, char *path, int by_link)
{
    *out = nf_xrealloc(*out, (*n + 1) * sizeof(**out));
    (*out)[(*n)++] = (struct nf_elf_debug_path){path, by_link};
}

/* dir without its trailing slashes ("/" becomes "", the root to put a path
 * after): its length. */
static int trimmed(const char *dir)
{
    size_t n = strlen(dir);
    while (n && dir[n - 1] == '/')
        n--;
    return (int)n;
}

size_t nf_elf_debug_paths(const char *file, const unsigned char *bid, size_t nbid, const char *link,
                          const char *const *dirs, struct nf_elf_debug_path **out)
{
    static const char *const defaults[] = {NF_DEBUG_DIR, NULL};
    if (!dirs)
        dirs = defaults;
    size_t n = 0;
    *out = NULL;
    if (nbid >= 2) {
        char hex[2 * 64 + 1];
        nbid = nbid > 64 ? 64 : nbid;
        for (size_t i = 0; i < nbid; i++)
            snprintf(hex + 2 * i, 3, "%02x", bid[i]);
        for (const char *const *d = dirs; *d; d++)
            add(out, &n,
                nf_xasprintf("%.*s/.build-id/%.2s/%s.debug", trimmed(*d), *d, hex, hex + 2), 0);
    }
    if (link && *link) {
        /* The file's directory: up to its last slash ("" for the root). */
        const char *slash = strrchr(file, '/');
        int dlen = slash ? (int)(slash - file) : 1;
        const char *dir = slash ? file : ".";
        add(out, &n, nf_xasprintf("%.*s/%s", dlen, dir, link), 1);
        add(out, &n, nf_xasprintf("%.*s/.debug/%s", dlen, dir, link), 1);
        for (const char *const *d = dirs; *d && file[0] == '/'; d++)
            add(out, &n, nf_xasprintf("%.*s%.*s/%s", trimmed(*d), *d, dlen, dir, link), 1);
    }
    return n;
}

void nf_elf_debug_paths_free(struct nf_elf_debug_path *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i].path);
    free(p);
}

/* The CRC-32 of the whole file open as fd: 0, or -1 when it cannot be read. */
static int file_crc(int fd, uint32_t *crc)
{
    enum { CHUNK = 1 << 16 };
    char *buf = nf_xmalloc(CHUNK);
    ssize_t got;
    off_t at = 0;
    *crc = 0;
    while ((got = pread(fd, buf, CHUNK, at)) > 0) {
        *crc = nf_elf_debug_crc32(*crc, buf, (size_t)got);
        at += got;
    }
    free(buf);
    return got < 0 ? -1 : 0;
}

static int has_symtab(const struct nf_elf *e)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL)
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_size)
            return 1;
    return 0;
}

/* Is dbg, found at c, the debug file of e (whose build-id is bid[nbid]
 * and whose .gnu_debuglink's CRC is crc)? */
static int matches(const struct nf_elf *e, const unsigned char *bid, size_t nbid, uint32_t crc,
                   const struct nf_elf_debug_path *c, const struct nf_elf *dbg)
{
    if (dbg->eh.e_ident[EI_CLASS] != e->eh.e_ident[EI_CLASS] ||
        dbg->eh.e_machine != e->eh.e_machine || !has_symtab(dbg))
        return 0;
    struct stat a, b;
    if (e->fd >= 0 && fstat(e->fd, &a) == 0 && fstat(dbg->fd, &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino)
        return 0; /* the file itself (a debuglink naming it) */
    unsigned char dbid[64];
    size_t ndbid = nf_elf_build_id(dbg, dbid, sizeof(dbid));
    if (c->by_link ? nbid && ndbid && (nbid != ndbid || memcmp(bid, dbid, nbid) != 0)
                   : nbid != ndbid || memcmp(bid, dbid, nbid) != 0)
        return 0;
    uint32_t got;
    return !c->by_link || (file_crc(dbg->fd, &got) == 0 && got == crc);
}

int nf_elf_debug_open(const struct nf_elf *e, const char *file, const char *const *dirs,
                      struct nf_elf *dbg, char **found)
{
    unsigned char bid[64];
    size_t nbid = nf_elf_build_id(e, bid, sizeof(bid));
    char link[256];
    uint32_t crc = 0;
    int has_link = nf_elf_debuglink(e, link, sizeof(link), &crc);
    struct nf_elf_debug_path *c;
    memset(dbg, 0, sizeof(*dbg));
    dbg->fd = -1;
    size_t n = nf_elf_debug_paths(file, bid, nbid, has_link ? link : NULL, dirs, &c);
    int ok = 0;
    for (size_t i = 0; i < n && !ok; i++) {
        char err[NF_ERR_LEN]; /* unused: a missing candidate is the usual case */
        if (nf_elf_open(dbg, c[i].path, err, sizeof(err)) != 0)
            continue;
        ok = matches(e, bid, nbid, crc, &c[i], dbg);
        if (ok && found)
            *found = nf_xstrdup(c[i].path);
        else if (!ok)
            nf_elf_close(dbg);
    }
    nf_elf_debug_paths_free(c, n);
    return ok;
}
