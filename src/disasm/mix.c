/* Disassembly side of the instruction mix: decode a function's bytes with
 * capstone and count each mnemonic.
 *
 * ARM and AArch64 code may hold data (literal pools, jump tables); the
 * mapping symbols $a/$t/$x/$d say where, and where ARM code switches to
 * Thumb.  Bytes that are data, or that capstone cannot decode, are counted
 * as skipped, never as instructions; after an encoding capstone cannot
 * decode, decoding resumes after the whole of it (disasm/insnlen.h). */
#include "disasm/disasm.h"
#include "disasm/insnlen.h"
#include "disasm/priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"

int nf_mnemonic_match(const char *pattern, const char *mnemonic)
{
    size_t pl = strlen(pattern);
    size_t start = pl > 0 && pattern[0] == '^';
    size_t end = pl > start && pattern[pl - 1] == '$';
    const char *p = pattern + start;
    size_t n = pl - start - end;
    size_t ml = strlen(mnemonic);
    if (n > ml)
        return 0;
    if (start && end)
        return n == ml && strncasecmp(p, mnemonic, n) == 0;
    if (start)
        return strncasecmp(p, mnemonic, n) == 0;
    if (end)
        return strncasecmp(p, mnemonic + ml - n, n) == 0;
    for (size_t i = 0; i + n <= ml; i++)
        if (strncasecmp(p, mnemonic + i, n) == 0)
            return 1;
    return 0;
}

static void count(struct nf_mix *m, size_t *cap, const char *mnemonic)
{
    /* Few distinct mnemonics per function (tens): a linear search, from
     * the most recent ones, is as fast as a hash here. */
    for (size_t i = m->nmn; i-- > 0;)
        if (strcmp(m->mn[i].mnemonic, mnemonic) == 0) {
            m->mn[i].count++;
            return;
        }
    if (m->nmn == *cap) {
        *cap = *cap ? 2 * *cap : 32;
        m->mn = nf_xrealloc(m->mn, *cap * sizeof(*m->mn));
    }
    m->mn[m->nmn++] = (struct nf_mnem){nf_xstrdup(mnemonic), 1};
}

static int cmp_mnem(const void *a, const void *b)
{
    const struct nf_mnem *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->mnemonic, y->mnemonic);
}

/* How a stretch of code is decoded. */
struct stretch {
    csh h;
    cs_insn *insn;
    cs_arch arch;
    int mode64;     /* x86: 64-bit mode */
    int thumb;      /* ARM: Thumb code */
    int big_endian; /* the code's byte order */
    unsigned align; /* the step of a fixed-length architecture */
};

/* The length of the instruction at code that capstone could not decode;
 * 0 when not known (x86 only: see disasm/insnlen.h). */
static size_t undecodable_len(const struct stretch *s, const uint8_t *code, size_t len)
{
    if (s->arch == CS_ARCH_X86)
        return nf_x86_insn_len(code, len, s->mode64);
    if (s->arch == CS_ARCH_SYSZ)
        return nf_s390_insn_len(code, len);
    if (s->thumb)
        return nf_thumb_insn_len(code, len, s->big_endian);
    return s->align <= len ? s->align : 0; /* fixed length */
}

/* Decode len bytes at addr; every byte ends up an instruction's or skipped.
 * An encoding capstone cannot decode is stepped over whole when its length
 * is known: stepping one byte into an x86 instruction would read its
 * middle as new instructions (a phantom `div`).  When the length is not
 * known, one byte is stepped and the function marked unsure from there. */
static void decode(const struct stretch *s, const uint8_t *code, size_t len, uint64_t addr,
                   struct nf_mix *m, size_t *cap)
{
    while (len > 0) {
        if (cs_disasm_iter(s->h, &code, &len, &addr, s->insn)) {
            m->insns++;
            count(m, cap, nf_cs_mnemonic(s->insn));
            continue;
        }
        size_t step = undecodable_len(s, code, len);
        if (step) {
            m->undecodable++;
        } else if (s->arch == CS_ARCH_X86) {
            if (!m->unsure) {
                m->unsure = 1;
                m->unsure_at = addr;
            }
            step = 1;
        } else {
            step = len; /* a tail shorter than one instruction */
        }
        code += step;
        len -= step;
        addr += step;
        m->skipped += step;
    }
}

/* First mapping symbol of section shndx at or after addr. */
static size_t map_lower_bound(const struct nf_delf_priv *p, size_t shndx, uint64_t addr)
{
    size_t lo = 0, hi = p->nmaps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct nf_mapsym *s = &p->maps[mid];
        if (s->shndx < shndx || (s->shndx == shndx && s->addr < addr))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int nf_delf_mix(const struct nf_delf *e, const struct nf_dfunc *f, const char *const *patterns,
                size_t npatterns, struct nf_mix *out, char *err, size_t errlen)
{
    const struct nf_delf_priv *p = e->priv;
    memset(out, 0, sizeof(*out));
    out->matched = nf_xcalloc(npatterns, sizeof(*out->matched));
    const uint8_t *bytes;
    int rc = nf_delf_bytes(e, f, &bytes, err, errlen);
    if (rc)
        return rc;
    out->bytes = f->size;

    /* capstone is loaded here, at the first disassembly (disasm/cs.h). */
    if (nf_cs_load(err, errlen))
        return -1;
    if (!cs_support((int)p->cs_arch)) {
        snprintf(err, errlen, "%s: this capstone was built without %s", e->path, e->arch);
        return -1;
    }
    int arm = p->cs_arch == CS_ARCH_ARM;
    csh h;
    cs_err ce = cs_open(p->cs_arch, p->cs_mode, &h);
    if (ce != CS_ERR_OK) {
        snprintf(err, errlen, "capstone (%s): %s", e->arch, cs_strerror(ce));
        return -1;
    }
    cs_insn *insn = cs_malloc(h);
    size_t cap = 0;
    struct stretch st = {h,          insn,
                         p->cs_arch, (p->cs_mode & CS_MODE_64) != 0,
                         0,          (p->cs_mode & CS_MODE_BIG_ENDIAN) != 0,
                         p->align};

    /* Walk the function in stretches between mapping symbols. */
    char kind = arm ? (f->thumb ? 't' : 'a') : 'x';
    uint64_t pos = f->addr, end = f->addr + f->size;
    size_t mi = map_lower_bound(p, f->shndx, f->addr);
#define MAP_BEFORE(lim) (mi < p->nmaps && p->maps[mi].shndx == f->shndx && p->maps[mi].addr < (lim))
    while (MAP_BEFORE(pos + 1))
        kind = p->maps[mi++].kind;
    while (pos < end) {
        uint64_t next = MAP_BEFORE(end) ? p->maps[mi].addr : end;
        if (kind == 'd') {
            out->skipped += next - pos;
        } else {
            st.thumb = arm && kind == 't';
            if (arm)
                cs_option(h, CS_OPT_MODE, p->cs_mode | (st.thumb ? CS_MODE_THUMB : 0));
            decode(&st, bytes + (pos - f->addr), next - pos, pos, out, &cap);
        }
        pos = next;
        while (MAP_BEFORE(pos + 1))
            kind = p->maps[mi++].kind;
    }
#undef MAP_BEFORE
    cs_free(insn, 1);
    cs_close(&h);

    if (out->nmn)
        qsort(out->mn, out->nmn, sizeof(*out->mn), cmp_mnem);
    for (size_t i = 0; i < npatterns; i++)
        for (size_t j = 0; j < out->nmn; j++)
            if (nf_mnemonic_match(patterns[i], out->mn[j].mnemonic))
                out->matched[i] += out->mn[j].count;
    return 0;
}

void nf_mix_free(struct nf_mix *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nmn; i++)
        free(m->mn[i].mnemonic);
    free(m->mn);
    free(m->matched);
    memset(m, 0, sizeof(*m));
}
