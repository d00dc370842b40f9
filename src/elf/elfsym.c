/* ELF objects and their symbol tables through libelf (see elfsym.h). */
#include "elf/elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

/* Is a file that starts with head (hlen bytes of it) and is size bytes
 * long an ELF file cut inside its header (a copy that stopped, `head
 * -c`)?  libelf sees no ELF there at all. */
static int cut_header(const unsigned char *head, size_t hlen, uint64_t size)
{
    if (hlen < SELFMAG || memcmp(head, ELFMAG, SELFMAG) != 0)
        return 0;
    size_t header =
        hlen > EI_CLASS && head[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr);
    return size < header;
}

/* The header of an image elf_begin or elf_memory gave: ELF, and readable?
 * head and size, the image's first bytes and length, name a file cut
 * short. */
static int check(struct nf_elf *e, const char *name, const unsigned char *head, size_t hlen,
                 uint64_t size, char *err, size_t errlen)
{
    if (!e->elf || elf_kind(e->elf) != ELF_K_ELF) {
        if (e->elf && elf_kind(e->elf) == ELF_K_AR)
            snprintf(err, errlen, "%s: an ar archive; give its members (.o files)", name);
        else if (cut_header(head, hlen, size))
            snprintf(err, errlen, "%s: truncated ELF file: header cut at %llu bytes", name,
                     (unsigned long long)size);
        else
            snprintf(err, errlen, "%s: not an ELF file", name);
        return NF_EINPUT;
    }
    if (!gelf_getehdr(e->elf, &e->eh)) {
        snprintf(err, errlen, "%s: unreadable ELF header: %s", name, elf_errmsg(-1));
        return NF_EINPUT;
    }
    return 0;
}

static int usable(char *err, size_t errlen)
{
    if (elf_version(EV_CURRENT) != EV_NONE)
        return 1;
    snprintf(err, errlen, "libelf is out of date: %s", elf_errmsg(-1));
    return 0;
}

/* Open e on fd (taken over: closed on failure).  name is for err. */
static int open_on(struct nf_elf *e, int fd, const char *name, char *err, size_t errlen)
{
    e->fd = fd;
    struct stat st;
    if (fstat(e->fd, &st) || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", name);
        nf_elf_close(e);
        return NF_EINPUT;
    }
    /* Read, not mapped: a file rewritten in place while we read it (a
     * rebuild during a profile) gives a read error, not a SIGBUS. */
    e->elf = elf_begin(e->fd, ELF_C_READ, NULL);
    unsigned char head[EI_NIDENT];
    ssize_t hlen = pread(e->fd, head, sizeof(head), 0);
    int rc = check(e, name, head, hlen > 0 ? (size_t)hlen : 0, (uint64_t)st.st_size, err, errlen);
    if (rc)
        nf_elf_close(e);
    return rc;
}

int nf_elf_open(struct nf_elf *e, const char *path, char *err, size_t errlen)
{
    memset(e, 0, sizeof(*e));
    e->fd = -1;
    if (!usable(err, errlen))
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NF_EINPUT;
    }
    return open_on(e, fd, path, err, errlen);
}

int nf_elf_open_fd(struct nf_elf *e, int fd, const char *name, char *err, size_t errlen)
{
    memset(e, 0, sizeof(*e));
    e->fd = -1;
    if (!usable(err, errlen))
        return -1;
    int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dup < 0) {
        snprintf(err, errlen, "%s: %s", name, strerror(errno));
        return -1;
    }
    return open_on(e, dup, name, err, errlen);
}

int nf_elf_open_memory(struct nf_elf *e, const char *name, char *image, size_t size, char *err,
                       size_t errlen)
{
    memset(e, 0, sizeof(*e));
    e->fd = -1;
    if (!usable(err, errlen))
        return -1;
    e->elf = elf_memory(image, size);
    int rc = check(e, name, (const unsigned char *)image, size, size, err, errlen);
    if (rc)
        nf_elf_close(e);
    return rc;
}

void nf_elf_close(struct nf_elf *e)
{
    if (e->elf)
        elf_end(e->elf);
    if (e->fd >= 0)
        close(e->fd);
    e->elf = NULL;
    e->fd = -1;
}

size_t nf_elf_build_id(const struct nf_elf *e, unsigned char *out, size_t max)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
            continue;
        GElf_Nhdr nh;
        size_t off = 0, name_off, desc_off, next;
        while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0 && nh.n_descsz &&
                nh.n_descsz <= max) {
                memcpy(out, (const char *)d->d_buf + desc_off, nh.n_descsz);
                return nh.n_descsz;
            }
            off = next;
        }
    }
    return 0;
}

int nf_elf_syms_begin(const struct nf_elf *e, enum nf_elf_table which, struct nf_elf_syms *it)
{
    GElf_Word want = which == NF_ELF_SYMTAB ? SHT_SYMTAB : SHT_DYNSYM;
    Elf_Scn *scn = NULL, *tab = NULL;
    GElf_Shdr sh, tsh;
    memset(it, 0, sizeof(*it));
    while (!tab && (scn = elf_nextscn(e->elf, scn)) != NULL)
        if (gelf_getshdr(scn, &sh) && sh.sh_type == want)
            tab = scn;
    if (!tab || !gelf_getshdr(tab, &tsh) || !(it->data = elf_getdata(tab, NULL)))
        return -1;
    /* The extended section indexes of this table, if it has any. */
    size_t idx = elf_ndxscn(tab);
    for (scn = NULL; (scn = elf_nextscn(e->elf, scn)) != NULL;)
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX && sh.sh_link == idx)
            it->xdata = elf_getdata(scn, NULL);
    it->elf = e->elf;
    it->strndx = tsh.sh_link;
    it->n = tsh.sh_entsize ? tsh.sh_size / tsh.sh_entsize : 0;
    it->i = 1; /* entry 0 is the reserved undefined symbol */
    return 0;
}

int nf_elf_syms_next(struct nf_elf_syms *it, struct nf_elf_sym *s)
{
    while (it->i < it->n) {
        GElf_Sym sym;
        Elf32_Word x = 0;
        int i = (int)it->i++;
        if (!gelf_getsymshndx(it->data, it->xdata, i, &sym, &x))
            continue;
        const char *name = elf_strptr(it->elf, it->strndx, sym.st_name);
        if (!name || !*name)
            continue;
        int xindex = sym.st_shndx == SHN_XINDEX;
        s->name = name;
        s->value = sym.st_value;
        s->size = sym.st_size;
        s->shndx = xindex ? x : sym.st_shndx;
        s->in_section = s->shndx != SHN_UNDEF && (xindex || s->shndx < SHN_LORESERVE);
        s->type = GELF_ST_TYPE(sym.st_info);
        s->bind = GELF_ST_BIND(sym.st_info);
        return 1;
    }
    return 0;
}

int nf_elf_sym_is_func(const struct nf_elf_sym *s)
{
    return s->type == STT_FUNC || s->type == STT_GNU_IFUNC;
}

int nf_elf_bind_rank(int bind)
{
    return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}
