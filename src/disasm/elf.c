/* ELF side of the instruction mix: open a file (elf/elfsym.h), recognise
 * its architecture, list its function symbols and find their bytes.
 *
 * Symbol values mean different things by file type: a section offset in a
 * relocatable .o (every function of a kernel object file starts at 0 of its
 * own .text.* section under -ffunction-sections), a virtual address in an
 * executable, vmlinux or shared object.  Both lead to the section named by
 * st_shndx, whose bytes are read from the file. */
#include "disasm/disasm.h"
#include "disasm/priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "elf/elfsym.h"

static const struct arch {
    int machine;
    int elfclass; /* 0: any */
    const char *name;
    cs_arch cs_arch;
    cs_mode cs_mode;
    unsigned align;
} archs[] = {
    {EM_X86_64, 0, "x86-64", CS_ARCH_X86, CS_MODE_64, 1},
    {EM_386, 0, "x86", CS_ARCH_X86, CS_MODE_32, 1},
    {EM_AARCH64, 0, "aarch64", CS_ARCH_ARM64, CS_MODE_ARM, 4},
    {EM_ARM, 0, "arm", CS_ARCH_ARM, CS_MODE_ARM, 4},
    {EM_PPC64, 0, "ppc64", CS_ARCH_PPC, CS_MODE_64, 4},
    {EM_PPC, 0, "ppc", CS_ARCH_PPC, CS_MODE_32, 4},
    {EM_S390, 0, "s390x", CS_ARCH_SYSZ, CS_MODE_BIG_ENDIAN, 2},
    {EM_MIPS, ELFCLASS64, "mips64", CS_ARCH_MIPS, CS_MODE_MIPS64, 4},
    {EM_MIPS, ELFCLASS32, "mips", CS_ARCH_MIPS, CS_MODE_MIPS32, 4},
};

const char nf_disasm_archs[] = "x86-64, x86, aarch64, arm, ppc64, ppc, s390x, mips64, mips";

/* A few machines people will meet, named in the error message. */
static const char *machine_name(int m)
{
    switch (m) {
    case EM_RISCV: return "RISC-V";
    case EM_SPARCV9: return "SPARC v9";
    case EM_SPARC: return "SPARC";
    case EM_IA_64: return "IA-64";
    case EM_LOONGARCH: return "LoongArch";
    case EM_68K: return "m68k";
    case EM_PARISC: return "PA-RISC";
    case EM_SH: return "SuperH";
    case EM_BPF: return "BPF";
    case EM_NONE: return "none";
    default: return "unknown";
    }
}

static const char *type_name(int t)
{
    switch (t) {
    case ET_REL: return "relocatable";
    case ET_EXEC: return "executable";
    case ET_DYN: return "shared object";
    case ET_CORE: return "core";
    default: return "unknown";
    }
}

/* "$a", "$t", "$x", "$d", optionally followed by ".anything" (LLVM). */
static char mapping_kind(const char *name)
{
    if (name[0] != '$' || !strchr("atxd", name[1]) || !name[1])
        return 0;
    return name[2] == '\0' || name[2] == '.' ? name[1] : 0;
}

static int cmp_map(const void *a, const void *b)
{
    const struct nf_mapsym *x = a, *y = b;
    if (x->shndx != y->shndx)
        return x->shndx < y->shndx ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Location order, then the preferred name of a location first. */
struct rawsym {
    struct nf_dfunc f;
    int bind;
};

static int cmp_loc(const void *a, const void *b)
{
    const struct rawsym *x = a, *y = b;
    if (x->f.shndx != y->f.shndx)
        return x->f.shndx < y->f.shndx ? -1 : 1;
    if (x->f.addr != y->f.addr)
        return x->f.addr < y->f.addr ? -1 : 1;
    if (x->f.size != y->f.size)
        return x->f.size < y->f.size ? -1 : 1;
    if (nf_elf_bind_rank(x->bind) != nf_elf_bind_rank(y->bind))
        return nf_elf_bind_rank(x->bind) - nf_elf_bind_rank(y->bind);
    return strcmp(x->f.name, y->f.name);
}

static int cmp_name_addr(const void *a, const void *b)
{
    const struct rawsym *x = a, *y = b;
    int c = strcmp(x->f.name, y->f.name);
    if (c)
        return c;
    if (x->f.addr != y->f.addr)
        return x->f.addr < y->f.addr ? -1 : 1;
    return x->f.shndx < y->f.shndx ? -1 : x->f.shndx > y->f.shndx;
}

static int cmp_size(const void *a, const void *b)
{
    const struct nf_dfunc *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Append the function symbols of one table to raw[*nraw...] (grown as
 * needed), and on ARM and AArch64 its mapping symbols to p->maps.  -1
 * when the file has no such table. */
static int read_table(struct nf_delf *e, enum nf_elf_table which, int arm_like, struct rawsym **raw,
                      size_t *nraw)
{
    struct nf_delf_priv *p = e->priv;
    struct nf_elf_syms it;
    if (nf_elf_syms_begin(&p->elf, which, &it))
        return -1;
    *raw = nf_xrealloc(*raw, (*nraw + it.n + 1) * sizeof(**raw));
    struct nf_elf_sym s;
    while (nf_elf_syms_next(&it, &s)) {
        if (!s.in_section)
            continue;
        char kind;
        if (arm_like && s.type == STT_NOTYPE && (kind = mapping_kind(s.name))) {
            p->maps = nf_xrealloc(p->maps, (p->nmaps + 1) * sizeof(*p->maps));
            p->maps[p->nmaps++] = (struct nf_mapsym){s.shndx, s.value & ~(uint64_t)1, kind};
            continue;
        }
        if (!nf_elf_sym_is_func(&s))
            continue;
        struct rawsym *r = &(*raw)[(*nraw)++];
        memset(r, 0, sizeof(*r));
        r->f.name = nf_xstrdup(s.name);
        r->f.addr = s.value;
        r->f.size = s.size;
        r->f.shndx = s.shndx;
        r->bind = s.bind;
        if (p->cs_arch == CS_ARCH_ARM && (s.value & 1)) {
            r->f.thumb = 1;
            r->f.addr &= ~(uint64_t)1;
        }
    }
    return 0;
}

/* The function symbols of .symtab, else .dynsym: a stripped file has no
 * .symtab, and one stripped but for a few symbols kept (objcopy
 * --keep-symbol) has one without functions.  On ARM and AArch64 the
 * mapping symbols too. */
static int read_symbols(struct nf_delf *e, int arm_like, char *err, size_t errlen)
{
    struct nf_delf_priv *p = e->priv;
    struct rawsym *raw = NULL;
    size_t nraw = 0;
    int have_symtab = read_table(e, NF_ELF_SYMTAB, arm_like, &raw, &nraw) == 0;
    e->symtab = "symtab";
    if (nraw == 0) {
        if (read_table(e, NF_ELF_DYNSYM, 0, &raw, &nraw) == 0) {
            e->symtab = "dynsym";
        } else if (!have_symtab) {
            snprintf(err, errlen, "%s: no symbol table (neither .symtab nor .dynsym)", e->path);
            free(raw);
            return NF_EINPUT;
        }
    }
    if (p->nmaps)
        qsort(p->maps, p->nmaps, sizeof(*p->maps), cmp_map);

    /* Aliases: every symbol of a location but the preferred one. */
    qsort(raw, nraw, sizeof(*raw), cmp_loc);
    for (size_t i = 1; i < nraw; i++)
        if (raw[i].f.shndx == raw[i - 1].f.shndx && raw[i].f.addr == raw[i - 1].f.addr &&
            raw[i].f.size == raw[i - 1].f.size)
            raw[i].f.alias = 1;
    /* Several functions of one name: number them by address.  The same
     * name twice at one location (both tables merged by a linker script,
     * say) is one function. */
    qsort(raw, nraw, sizeof(*raw), cmp_name_addr);
    size_t out = 0;
    for (size_t i = 0; i < nraw; i++) {
        struct rawsym *prev = out ? &raw[out - 1] : NULL;
        if (prev && strcmp(prev->f.name, raw[i].f.name) == 0) {
            if (prev->f.addr == raw[i].f.addr && prev->f.shndx == raw[i].f.shndx) {
                free(raw[i].f.name);
                continue;
            }
            raw[i].f.dup = prev->f.dup + 1;
        } else {
            raw[i].f.dup = 1;
        }
        raw[out++] = raw[i];
    }
    e->funcs = nf_xcalloc(out, sizeof(*e->funcs));
    for (size_t i = 0; i < out; i++)
        e->funcs[i] = raw[i].f;
    e->nfuncs = out;
    free(raw);
    qsort(e->funcs, e->nfuncs, sizeof(*e->funcs), cmp_size);
    return 0;
}

/* Does [off, off + len) lie within a file of size bytes? */
static int within(uint64_t off, uint64_t len, size_t size)
{
    return off <= size && len <= size - off;
}

/* A file cut short (a copy or download that stopped, `head -c`) loses its
 * section headers first, which sit at its end; libelf then sees no
 * sections at all, and the only complaint would be that there is no
 * symbol table.  Say instead what lies past the end of the file: its
 * section or program headers, or the contents of a section.  1 with the
 * line in err, else 0. */
static int cut_short(const struct nf_elf *elf, const char *path, char *err, size_t errlen)
{
    size_t size = 0;
    const GElf_Ehdr *eh = &elf->eh;
    if (!elf_rawfile(elf->elf, &size))
        return 0;
    /* 0 sections with an offset: the count is in section 0 (at least 1) */
    uint64_t shnum = eh->e_shnum ? eh->e_shnum : eh->e_shoff != 0;
    uint64_t phnum = eh->e_phnum == PN_XNUM ? 1 : eh->e_phnum;
    const char *what = NULL, *name = "";
    uint64_t off = 0, len = 0;
    if (eh->e_shoff && !within(eh->e_shoff, shnum * eh->e_shentsize, size)) {
        what = "its section headers";
        off = eh->e_shoff;
        len = shnum * eh->e_shentsize;
    } else if (eh->e_phoff && !within(eh->e_phoff, phnum * eh->e_phentsize, size)) {
        what = "its program headers";
        off = eh->e_phoff;
        len = phnum * eh->e_phentsize;
    } else {
        size_t strndx = 0;
        GElf_Shdr sh;
        elf_getshdrstrndx(elf->elf, &strndx);
        for (Elf_Scn *scn = NULL; !what && (scn = elf_nextscn(elf->elf, scn)) != NULL;)
            if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
                !within(sh.sh_offset, sh.sh_size, size)) {
                const char *n = elf_strptr(elf->elf, strndx, sh.sh_name);
                what = "the contents of section ";
                name = n && *n ? n : "(unnamed)";
                off = sh.sh_offset;
                len = sh.sh_size;
            }
    }
    if (!what)
        return 0;
    snprintf(err, errlen,
             "%s: truncated or malformed ELF file: %s%s (%llu bytes at offset %llu) reach "
             "past the end of the file (%zu bytes)",
             path, what, name, (unsigned long long)len, (unsigned long long)off, size);
    return 1;
}

int nf_delf_open(const char *path, struct nf_delf **out, char *err, size_t errlen)
{
    *out = NULL;
    struct nf_elf elf;
    int rc = nf_elf_open(&elf, path, err, errlen);
    if (rc)
        return rc;
    if (cut_short(&elf, path, err, errlen)) {
        nf_elf_close(&elf);
        return NF_EINPUT;
    }
    struct nf_delf *e = nf_xcalloc(1, sizeof(*e));
    struct nf_delf_priv *p = nf_xcalloc(1, sizeof(*p));
    e->path = nf_xstrdup(path);
    e->priv = p;
    p->elf = elf;
    rc = NF_EINPUT;
    const GElf_Ehdr eh = elf.eh;
    int elfclass = gelf_getclass(p->elf.elf);
    const struct arch *a = NULL;
    for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]) && !a; i++)
        if (archs[i].machine == eh.e_machine &&
            (!archs[i].elfclass || archs[i].elfclass == elfclass))
            a = &archs[i];
    if (!a) {
        snprintf(err, errlen, "%s: unsupported architecture %s (e_machine %d); insns knows %s",
                 path, machine_name(eh.e_machine), eh.e_machine, nf_disasm_archs);
        goto fail;
    }
    e->arch = a->name;
    e->type = type_name(eh.e_type);
    if (eh.e_type == ET_DYN) {
        /* A shared object with an interpreter is a position-independent
         * executable. */
        size_t nph = 0;
        GElf_Phdr ph;
        elf_getphdrnum(p->elf.elf, &nph);
        for (size_t i = 0; i < nph; i++)
            if (gelf_getphdr(p->elf.elf, (int)i, &ph) && ph.p_type == PT_INTERP)
                e->type = "PIE executable";
    }
    p->rel = eh.e_type == ET_REL;
    p->cs_arch = a->cs_arch;
    p->cs_mode = a->cs_mode;
    p->align = a->align;
    /* Big-endian data, except ARM BE8 images, whose code stays little-endian. */
    if (eh.e_ident[EI_DATA] == ELFDATA2MSB &&
        !(eh.e_machine == EM_ARM && (eh.e_flags & EF_ARM_BE8)))
        p->cs_mode |= CS_MODE_BIG_ENDIAN;
    rc = read_symbols(e, eh.e_machine == EM_ARM || eh.e_machine == EM_AARCH64, err, errlen);
    if (rc)
        goto fail;
    *out = e;
    return 0;
fail:
    nf_delf_close(e);
    return rc;
}

void nf_delf_close(struct nf_delf *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->nfuncs; i++)
        free(e->funcs[i].name);
    free(e->funcs);
    if (e->priv) {
        nf_elf_close(&e->priv->elf);
        free(e->priv->maps);
        free(e->priv);
    }
    free(e->path);
    free(e);
}

const struct nf_dfunc *nf_delf_find(const struct nf_delf *e, const char *name, int dup)
{
    for (size_t i = 0; i < e->nfuncs; i++)
        if (e->funcs[i].dup == dup && strcmp(e->funcs[i].name, name) == 0)
            return &e->funcs[i];
    return NULL;
}

int nf_delf_bytes(const struct nf_delf *e, const struct nf_dfunc *f, const uint8_t **bytes,
                  char *err, size_t errlen)
{
    Elf *elf = e->priv->elf.elf;
    Elf_Scn *scn = elf_getscn(elf, f->shndx);
    GElf_Shdr sh;
    *bytes = NULL;
    if (f->size == 0) {
        snprintf(err, errlen, "%s: function '%s' has size 0 (no .size directive?)", e->path,
                 f->name);
        return NF_EINPUT;
    }
    if (!scn || !gelf_getshdr(scn, &sh)) {
        snprintf(err, errlen, "%s: function '%s' names section %zu, which does not exist", e->path,
                 f->name, f->shndx);
        return NF_EINPUT;
    }
    if (sh.sh_type == SHT_NOBITS) {
        snprintf(err, errlen,
                 "%s: the section of '%s' has no contents in this file "
                 "(a separate debug-info file?)",
                 e->path, f->name);
        return NF_EINPUT;
    }
    size_t strndx;
    const char *secname =
        elf_getshdrstrndx(elf, &strndx) == 0 ? elf_strptr(elf, strndx, sh.sh_name) : NULL;
    if (secname && strcmp(secname, ".opd") == 0) {
        snprintf(err, errlen,
                 "%s: '%s' is a ppc64 ELFv1 function descriptor (.opd), "
                 "not code; ELFv1 is not supported",
                 e->path, f->name);
        return NF_EINPUT;
    }
    uint64_t off = e->priv->rel ? f->addr : f->addr - sh.sh_addr;
    if ((!e->priv->rel && f->addr < sh.sh_addr) || off > sh.sh_size || f->size > sh.sh_size - off) {
        snprintf(err, errlen, "%s: function '%s' (%#llx, %llu bytes) lies outside its section",
                 e->path, f->name, (unsigned long long)f->addr, (unsigned long long)f->size);
        return NF_EINPUT;
    }
    Elf_Data *d = elf_rawdata(scn, NULL);
    if (!d || !d->d_buf || d->d_size < off + f->size) {
        snprintf(err, errlen, "%s: cannot read the bytes of '%s': %s", e->path, f->name,
                 elf_errmsg(-1));
        return NF_EINPUT;
    }
    *bytes = (const uint8_t *)d->d_buf + off;
    return 0;
}
