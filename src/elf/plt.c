/* PLT stubs and the functions they jump to (see plt.h). */
#include "elf/plt.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* A GOT slot a dynamic relocation fills with a function's address. */
struct slot {
    uint64_t addr;
    const char *name;
};

struct slots {
    struct slot *s;
    size_t n, cap;
};

static int by_addr(const void *a, const void *b)
{
    const struct slot *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The slots of every RELA section of e whose relocations x86-64 uses to
 * bind a function: JUMP_SLOT (.rela.plt) and GLOB_DAT (.rela.dyn, the slots
 * .plt.got jumps through). */
static void x86_64_slots(const struct nf_elf *e, struct slots *out)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
            continue;
        Elf_Scn *symscn = elf_getscn(e->elf, sh.sh_link);
        GElf_Shdr symsh;
        Elf_Data *rel = elf_getdata(scn, NULL);
        Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
        if (!rel || !syms || !gelf_getshdr(symscn, &symsh))
            continue;
        size_t n = sh.sh_size / sh.sh_entsize;
        for (size_t i = 0; i < n; i++) {
            GElf_Rela r;
            GElf_Sym sym;
            if (!gelf_getrela(rel, (int)i, &r))
                break;
            uint64_t type = GELF_R_TYPE(r.r_info), idx = GELF_R_SYM(r.r_info);
            if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || idx == 0 ||
                !gelf_getsym(syms, (int)idx, &sym))
                continue;
            const char *name = elf_strptr(e->elf, symsh.sh_link, sym.st_name);
            if (!name || !*name)
                continue;
            if (out->n == out->cap) {
                out->cap = out->cap ? out->cap * 2 : 64;
                out->s = nf_xrealloc(out->s, out->cap * sizeof(*out->s));
            }
            out->s[out->n++] = (struct slot){r.r_offset, name};
        }
    }
    if (out->n)
        qsort(out->s, out->n, sizeof(*out->s), by_addr);
}

static const char *slot_name(const struct slots *sl, uint64_t addr)
{
    size_t lo = 0, hi = sl->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sl->s[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sl->n && sl->s[lo].addr == addr ? sl->s[lo].name : NULL;
}

/* The GOT slot an x86-64 stub of len bytes at addr jumps through, in
 * *target: 1, or 0 when the stub does not start with one of the linkers'
 * forms.  Before the `ff 25 disp32` (jmp *disp32(%rip)) may come an endbr64
 * (f3 0f 1e fa), then a bnd prefix (f2) or mold's `mov $index, %r11d`
 * (41 bb imm32). */
static int x86_64_jump(const unsigned char *b, size_t len, uint64_t addr, uint64_t *target)
{
    static const unsigned char endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
    size_t o = 0;
    if (len >= 4 && memcmp(b, endbr64, 4) == 0)
        o = 4;
    if (o < len && b[o] == 0xf2)
        o += 1;
    else if (o + 1 < len && b[o] == 0x41 && b[o + 1] == 0xbb)
        o += 6;
    if (o + 6 > len || b[o] != 0xff || b[o + 1] != 0x25)
        return 0;
    int32_t disp;
    memcpy(&disp, b + o + 2, sizeof(disp));
    *target = addr + o + 6 + (uint64_t)(int64_t)disp;
    return 1;
}

static void add(struct nf_elf_plt **out, size_t *n, size_t *cap, uint64_t addr, uint64_t size,
                const char *name, const char *section)
{
    struct nf_elf_plt *last = *n ? &(*out)[*n - 1] : NULL;
    if (!name && last && !last->name && last->section == section &&
        last->addr + last->size == addr) {
        last->size += size; /* the unnamed run goes on */
        return;
    }
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        *out = nf_xrealloc(*out, *cap * sizeof(**out));
    }
    (*out)[(*n)++] = (struct nf_elf_plt){addr, size, name, section};
}

size_t nf_elf_plt(const struct nf_elf *e, struct nf_elf_plt **out)
{
    size_t n = 0, cap = 0, shstrndx;
    *out = NULL;
    if (elf_getshdrstrndx(e->elf, &shstrndx) != 0)
        return 0;
    int x86_64 = e->eh.e_machine == EM_X86_64;
    struct slots sl = {0};
    if (x86_64)
        x86_64_slots(e, &sl);
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
            !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_size == 0)
            continue;
        const char *name = elf_strptr(e->elf, shstrndx, sh.sh_name);
        if (!name || strncmp(name, ".plt", 4) != 0)
            continue;
        Elf_Data *d = x86_64 ? elf_getdata(scn, NULL) : NULL;
        uint64_t ent = sh.sh_entsize ? sh.sh_entsize : 16;
        if (!d || !d->d_buf || d->d_size != sh.sh_size || ent < 6 || ent > 64) {
            add(out, &n, &cap, sh.sh_addr, sh.sh_size, NULL, name);
            continue;
        }
        for (uint64_t off = 0; off < sh.sh_size; off += ent) {
            uint64_t len = sh.sh_size - off < ent ? sh.sh_size - off : ent, target;
            const char *fn = NULL;
            if (x86_64_jump((const unsigned char *)d->d_buf + off, len, sh.sh_addr + off, &target))
                fn = slot_name(&sl, target);
            add(out, &n, &cap, sh.sh_addr + off, len, fn, name);
        }
    }
    free(sl.s);
    return n;
}
