/* Symbol tables from ELF files and from /proc/kallsyms.
 *
 * A sampled user address becomes a symbol in three steps: the mapping that
 * holds it gives a file offset (ip - map start + map offset, done by the
 * resolver), the PT_LOAD segment holding that offset gives the ELF virtual
 * address (offset - p_offset + p_vaddr, the same for executables, PIE and
 * shared objects wherever they were loaded), and the function symbols,
 * sorted by address, give the name. */
#include "profile/symbols.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include "core/util.h"
#include "elf/debuginfo.h"
#include "elf/elfsym.h"
#include "elf/plt.h"

static struct nf_symtab *symtab_new(const char *path)
{
    struct nf_symtab *t = nf_xcalloc(1, sizeof(*t));
    t->path = nf_xstrdup(path);
    return t;
}

void nf_symtab_free(struct nf_symtab *t)
{
    if (!t)
        return;
    free(t->path);
    free(t->shown);
    free(t->debug);
    free(t->syms);
    free(t->segs);
    free(t->pool);
    free(t);
}

/* Names go to one pool; the symbols keep offsets until the pool stops
 * moving, then become pointers (fix_names). */
static size_t pool_add(struct nf_symtab *t, const char *s)
{
    size_t n = strlen(s) + 1;
    if (t->npool + n > t->cappool) {
        t->cappool = (t->npool + n) * 2;
        t->pool = nf_xrealloc(t->pool, t->cappool);
    }
    memcpy(t->pool + t->npool, s, n);
    t->npool += n;
    return t->npool - n;
}

/* Until finish(), a symbol's dso holds its preference rank among aliases
 * (the low byte) and SIZELESS: a symbol of size 0 (a label, _init), whose
 * end is only a bound (its section's end, or none) until finish() ends it
 * at the next symbol. */
#define RANK(s) ((uintptr_t)(s)->dso & 0xff)
#define SIZELESS 0x100u
#define NO_LIMIT UINT64_MAX

static void sym_add(struct nf_symtab *t, size_t *cap, uint64_t start, uint64_t size, uint64_t limit,
                    const char *name, int rank)
{
    if (t->n == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        t->syms = nf_xrealloc(t->syms, *cap * sizeof(*t->syms));
    }
    struct nf_sym *s = &t->syms[t->n++];
    s->start = start;
    s->end = size ? start + size : limit;
    s->name = (const char *)(uintptr_t)pool_add(t, name);
    s->dso = (const char *)(uintptr_t)((unsigned)rank | (size ? 0 : SIZELESS));
}

static int by_start(const void *a, const void *b)
{
    const struct nf_sym *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    /* Aliases: the preferred (lower rank) first, then one with a size,
     * then the longer one. */
    uintptr_t rx = RANK(x), ry = RANK(y);
    if (rx != ry)
        return rx < ry ? -1 : 1;
    uintptr_t zx = (uintptr_t)x->dso & SIZELESS, zy = (uintptr_t)y->dso & SIZELESS;
    if (zx != zy)
        return zx < zy ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return (uintptr_t)x->name < (uintptr_t)y->name ? -1 : (uintptr_t)x->name > (uintptr_t)y->name;
}

/* Sort, keep one symbol per address, end each sizeless symbol at the next
 * one (but not past its section: the room after _init is .plt's, not
 * _init's; without a section, last_size past its start when it is the
 * last), and turn name offsets into pointers. */
static void finish(struct nf_symtab *t, const char *dso_default, uint64_t last_size)
{
    if (t->n)
        qsort(t->syms, t->n, sizeof(*t->syms), by_start);
    size_t out = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (out && t->syms[out - 1].start == t->syms[i].start)
            continue;
        t->syms[out++] = t->syms[i];
    }
    t->n = out;
    for (size_t i = 0; i < t->n; i++) {
        struct nf_sym *s = &t->syms[i];
        if ((uintptr_t)s->dso & SIZELESS) {
            uint64_t next = i + 1 < t->n         ? t->syms[i + 1].start
                            : s->end == NO_LIMIT ? s->start + last_size
                                                 : s->end;
            s->end = next < s->end ? next : s->end;
        }
        s->name = t->pool + (uintptr_t)s->name;
        s->dso = dso_default;
    }
}

int nf_symtab_vaddr(const struct nf_symtab *t, uint64_t offset, uint64_t *vaddr)
{
    for (size_t i = 0; i < t->nsegs; i++) {
        const struct nf_seg *g = &t->segs[i];
        if (offset >= g->offset && offset < g->offset + g->filesz) {
            *vaddr = offset - g->offset + g->vaddr;
            return 0;
        }
    }
    return -1;
}

const struct nf_sym *nf_symtab_lookup(const struct nf_symtab *t, uint64_t addr)
{
    if (!t || !t->ok || t->n == 0 || addr < t->syms[0].start)
        return NULL;
    size_t lo = 0, hi = t->n; /* last symbol with start <= addr */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->syms[mid].start <= addr)
            lo = mid;
        else
            hi = mid;
    }
    /* A symbol nested in a larger one ends early: look a little further
     * back for the one that still covers addr. */
    for (size_t k = 0; k < 8 && k <= lo; k++)
        if (addr < t->syms[lo - k].end)
            return &t->syms[lo - k];
    return NULL;
}

/* Where a sizeless symbol must end at the latest: the end of its section. */
static uint64_t section_end(const struct nf_elf *e, const struct nf_elf_sym *s)
{
    GElf_Shdr sh;
    Elf_Scn *scn = s->in_section ? elf_getscn(e->elf, s->shndx) : NULL;
    if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || s->value < sh.sh_addr ||
        s->value >= sh.sh_addr + sh.sh_size)
        return NO_LIMIT;
    return sh.sh_addr + sh.sh_size;
}

/* Function symbols of one symbol table; returns how many. */
static size_t read_syms(struct nf_symtab *t, size_t *cap, const struct nf_elf *e,
                        enum nf_elf_table which)
{
    struct nf_elf_syms it;
    struct nf_elf_sym s;
    size_t added = 0;
    if (nf_elf_syms_begin(e, which, &it))
        return 0;
    while (nf_elf_syms_next(&it, &s)) {
        if (!nf_elf_sym_is_func(&s) || s.shndx == SHN_UNDEF || s.value == 0)
            continue;
        sym_add(t, cap, s.value, s.size, s.size ? 0 : section_end(e, &s), s.name,
                nf_elf_bind_rank(s.bind));
        added++;
    }
    return added;
}

/* The PLT stubs, as perf names them: "read@plt"; what is not a named stub
 * (a lazy .plt's header, other architectures' PLTs) is the section's, as
 * "[.plt]".  Ranked after every real symbol of the same address. */
static void read_plt(struct nf_symtab *t, size_t *cap, const struct nf_elf *e)
{
    struct nf_elf_plt *p;
    size_t n = nf_elf_plt(e, &p);
    for (size_t i = 0; i < n; i++) {
        char *name =
            p[i].name ? nf_xasprintf("%s@plt", p[i].name) : nf_xasprintf("[%s]", p[i].section);
        sym_add(t, cap, p[i].addr, p[i].size, 0, name, p[i].name ? 3 : 4);
        free(name);
    }
    free(p);
}

/* Segments and function symbols of an open ELF image into t: the
 * functions of dbg's .symtab when dbg (e's debug file, or NULL) has any,
 * else of e's. */
static void load_elf(struct nf_symtab *t, const struct nf_elf *e, const struct nf_elf *dbg)
{
    size_t nph = 0;
    if (elf_getphdrnum(e->elf, &nph) != 0)
        return;
    t->segs = nf_xcalloc(nph ? nph : 1, sizeof(*t->segs));
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e->elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_filesz)
            t->segs[t->nsegs++] = (struct nf_seg){ph.p_offset, ph.p_filesz, ph.p_vaddr};
    }
    size_t cap = 0;
    /* .dynsym only when .symtab had no functions: it adds nothing else.
     * The PLT is the file's own: a debug file keeps no relocations. */
    if ((!dbg || read_syms(t, &cap, dbg, NF_ELF_SYMTAB) == 0) &&
        read_syms(t, &cap, e, NF_ELF_SYMTAB) == 0)
        read_syms(t, &cap, e, NF_ELF_DYNSYM);
    read_plt(t, &cap, e);
    finish(t, NULL, 0);
    t->ok = t->nsegs > 0;
}

struct nf_symtab *nf_symtab_elf(const char *path)
{
    return nf_symtab_elf_id(path, NULL, -1);
}

/* Read e, the file at path, into t if it is the file id names, with its
 * debug file's symbols when it has one in dirs: 1, else 0.  Closes e. */
static int load_if(struct nf_symtab *t, struct nf_elf *e, const char *path,
                   const struct nf_fileid *id, const char *const *dirs)
{
    int same = !id || nf_fileid_matches(id, e);
    if (same) {
        struct nf_elf dbg;
        int has = nf_elf_debug_open(e, path, dirs, &dbg, &t->debug);
        load_elf(t, e, has ? &dbg : NULL);
        if (has)
            nf_elf_close(&dbg);
    }
    nf_elf_close(e);
    return same;
}

struct nf_symtab *nf_symtab_elf_id(const char *path, const struct nf_fileid *id, int fd)
{
    return nf_symtab_elf_debug(path, id, fd, NULL);
}

struct nf_symtab *nf_symtab_elf_debug(const char *path, const struct nf_fileid *id, int fd,
                                      const char *const *dirs)
{
    struct nf_symtab *t = symtab_new(path);
    struct nf_elf e;
    char err[NF_ERR_LEN]; /* unused: a file without symbols is not an error here */
    if (id && id->kind == NF_FILEID_NONE)
        id = NULL; /* nothing to compare with: path's file, as it is */
    int other = 0; /* a file that is not the mapped one was found */
    if (fd >= 0 && nf_elf_open_fd(&e, fd, path, err, sizeof(err)) == 0) {
        if (load_if(t, &e, path, id, dirs))
            return t;
        other = 1;
    }
    struct stat st;
    if (nf_elf_open(&e, path, err, sizeof(err)) == 0) {
        if (load_if(t, &e, path, id, dirs))
            return t;
        other = 1;
    } else if (id && !other && stat(path, &st) != 0 && errno == ENOENT) {
        t->changed = 1;
        t->shown = nf_xasprintf("%s (deleted)", path);
    }
    if (other) {
        t->changed = 1;
        t->shown = nf_xasprintf("%s (replaced)", path);
    }
    return t;
}

/* The kernel maps one vDSO image into every process of an ABI: ours
 * stands for the workload's (when it is of our ABI, as a workload run
 * from here nearly always is).  Its ELF image, section headers included,
 * lies at AT_SYSINFO_EHDR. */
static struct nf_symtab *vdso_table(void)
{
    struct nf_symtab *t = symtab_new("[vdso]");
    const unsigned char *base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
    struct nf_elf e;
    char err[NF_ERR_LEN]; /* unused: no vDSO symbols is not an error here */
    if (!base || memcmp(base, ELFMAG, SELFMAG) != 0)
        return t;
    /* The header fields needed for the size, read for either class. */
    if (nf_elf_open_memory(&e, "[vdso]", (char *)base, sizeof(Elf64_Ehdr), err, sizeof(err)))
        return t;
    size_t size = (size_t)(e.eh.e_shoff + (uint64_t)e.eh.e_shnum * e.eh.e_shentsize);
    nf_elf_close(&e);
    if (size < sizeof(Elf64_Ehdr) || size > (64u << 20))
        return t;
    char *copy = nf_xmalloc(size); /* libelf may write to its image */
    memcpy(copy, base, size);
    if (nf_elf_open_memory(&e, "[vdso]", copy, size, err, sizeof(err)) == 0) {
        load_elf(t, &e, NULL);
        nf_elf_close(&e);
    }
    free(copy);
    return t;
}

struct nf_symtab *nf_symtab_kallsyms(const char *text)
{
    struct nf_symtab *t = symtab_new("/proc/kallsyms");
    size_t cap = 0;
    int nonzero = 0;
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        char buf[512], name[256], mod[128];
        uint64_t addr;
        char type;
        if (n < sizeof(buf)) {
            memcpy(buf, line, n);
            buf[n] = 0;
            int k = sscanf(buf, "%" SCNx64 " %c %255s [%125[^]]]", &addr, &type, name, mod);
            if (k >= 3 && strchr("tTwW", type)) {
                nonzero |= addr != 0;
                /* Among aliases: global before weak before local, and real
                 * names before underscored ones such as _stext. */
                int rank = (type == 'T'                  ? 0
                            : type == 'W' || type == 'w' ? 1
                                                         : 2) +
                           (name[0] == '_' ? 3 : 0);
                sym_add(t, &cap, addr, 0, NO_LIMIT, name, rank);
                /* The dso follows the name in the pool: "[module]" or "". */
                char dso[130];
                snprintf(dso, sizeof(dso), k == 4 ? "[%s]" : "%s", k == 4 ? mod : "");
                pool_add(t, dso);
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    finish(t, "[kernel.kallsyms]", 4096);
    for (size_t i = 0; i < t->n; i++) {
        const char *d = t->syms[i].name + strlen(t->syms[i].name) + 1;
        if (*d)
            t->syms[i].dso = d;
    }
    t->ok = nonzero && t->n > 0;
    return t;
}

void nf_symcache_init(struct nf_symcache *c)
{
    memset(c, 0, sizeof(*c));
}

void nf_symcache_free(struct nf_symcache *c)
{
    for (size_t i = 0; i < c->n; i++)
        nf_symtab_free(c->t[i]);
    free(c->t);
    nf_symtab_free(c->kernel);
    memset(c, 0, sizeof(*c));
}

static int same_id(const struct nf_fileid *a, const struct nf_fileid *b)
{
    int none_a = !a || a->kind == NF_FILEID_NONE, none_b = !b || b->kind == NF_FILEID_NONE;
    return none_a || none_b ? none_a && none_b : nf_fileid_equal(a, b);
}

struct nf_symtab *nf_symcache_file(struct nf_symcache *c, const char *path,
                                   const struct nf_fileid *id, int fd)
{
    size_t slot = c->n;
    for (size_t i = 0; i < c->n && slot == c->n; i++)
        if (strcmp(c->t[i]->path, path) == 0 && same_id(&c->t[i]->id, id))
            slot = i;
    if (slot < c->n && !(c->t[slot]->changed && fd >= 0))
        return c->t[slot];
    if (slot == c->n && c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->t = nf_xrealloc(c->t, c->cap * sizeof(*c->t));
    }
    /* Only real paths are opened: not "[vdso]", "//anon", "[heap]". */
    struct nf_symtab *t;
    if (strcmp(path, "[vdso]") == 0)
        t = vdso_table();
    else if (path[0] == '/' && path[1] != '/')
        t = nf_symtab_elf_debug(path, id, fd, c->debug_dirs);
    else
        t = symtab_new(path);
    if (id)
        t->id = *id;
    if (slot < c->n) {
        /* a file that was gone, found after all (pinned this time) */
        t->warned = c->t[slot]->warned;
        nf_symtab_free(c->t[slot]);
    } else {
        c->n++;
    }
    c->t[slot] = t;
    return t;
}

struct nf_symtab *nf_symcache_kernel(struct nf_symcache *c)
{
    if (!c->kernel_loaded) {
        c->kernel_loaded = 1;
        char *text = nf_read_file_max(c->kallsyms_path ? c->kallsyms_path : "/proc/kallsyms",
                                      NF_READ_FILE_LARGE);
        if (text) {
            c->kernel = nf_symtab_kallsyms(text);
            free(text);
        }
    }
    return c->kernel && c->kernel->ok ? c->kernel : NULL;
}
