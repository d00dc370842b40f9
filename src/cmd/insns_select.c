/* Which functions insns shows (insns_select.h): a policy over the function
 * lists of the files, which disasm/ reads and numbers. */
#include "cmd/insns_select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "elf/demangle.h"

static int have_key(const struct nf_insns_key *k, size_t n, const char *name, int dup)
{
    for (size_t i = 0; i < n; i++)
        if (k[i].dup == dup && strcmp(k[i].name, name) == 0)
            return 1;
    return 0;
}

/* The symbol name of the function of f whose demangled name is shown
 * (insns prints C++ names demangled, so they are given back that way), or
 * NULL. */
static const char *by_demangled(const struct nf_delf *f, const char *shown)
{
    const char *found = NULL;
    for (size_t i = 0; i < f->nfuncs && !found; i++) {
        char *d = nf_demangle(f->funcs[i].name);
        if (d && strcmp(d, shown) == 0)
            found = f->funcs[i].name;
        free(d);
    }
    return found;
}

struct ranked {
    struct nf_insns_key k;
    uint64_t size;
};

static int cmp_key(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    int c = strcmp(x->k.name, y->k.name);
    return c ? c : x->k.dup - y->k.dup;
}

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    int c = strcmp(x->k.name, y->k.name);
    return c ? c : x->k.dup - y->k.dup;
}

int nf_insns_select(struct nf_delf *const *files, size_t n, const char *const *names, size_t nnames,
                    size_t top, struct nf_insns_key **keys, size_t *nkeys, char *err, size_t errlen)
{
    *keys = NULL;
    *nkeys = 0;
    if (nnames) {
        /* Every function of each name, in name order given, then dup. */
        struct nf_insns_key *k = NULL;
        size_t nk = 0;
        for (size_t j = 0; j < nnames; j++) {
            for (size_t i = 0; i < n; i++) {
                const char *name = names[j];
                if (!nf_delf_find(files[i], name, 1))
                    name = by_demangled(files[i], name);
                if (!name) {
                    snprintf(err, errlen, "%s: no function '%s'", files[i]->path, names[j]);
                    free(k);
                    return NF_EINPUT;
                }
                for (int dup = 1; nf_delf_find(files[i], name, dup); dup++)
                    if (!have_key(k, nk, name, dup)) {
                        k = nf_xrealloc(k, (nk + 1) * sizeof(*k));
                        k[nk].name = nf_delf_find(files[i], name, dup)->name;
                        k[nk++].dup = dup;
                    }
            }
        }
        /* Dups may arrive out of order from different files. */
        for (size_t i = 1; i < nk; i++)
            for (size_t j = i;
                 j > 0 && strcmp(k[j].name, k[j - 1].name) == 0 && k[j].dup < k[j - 1].dup; j--) {
                struct nf_insns_key t = k[j];
                k[j] = k[j - 1];
                k[j - 1] = t;
            }
        *keys = k;
        *nkeys = nk;
        return 0;
    }
    /* The union of all functions, each at its largest size: sorted by
     * name, merged, then ranked (files like vmlinux have 10^5 of them). */
    size_t cap = 0;
    for (size_t i = 0; i < n; i++)
        cap += files[i]->nfuncs;
    struct ranked *r = nf_xcalloc(cap, sizeof(*r));
    size_t nr = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < files[i]->nfuncs; j++) {
            const struct nf_dfunc *f = &files[i]->funcs[j];
            if (!f->alias && f->size)
                r[nr++] = (struct ranked){{f->name, f->dup}, f->size};
        }
    qsort(r, nr, sizeof(*r), cmp_key);
    size_t m = 0;
    for (size_t i = 0; i < nr; i++) {
        if (m && r[m - 1].k.dup == r[i].k.dup && strcmp(r[m - 1].k.name, r[i].k.name) == 0) {
            if (r[i].size > r[m - 1].size)
                r[m - 1].size = r[i].size;
        } else {
            r[m++] = r[i];
        }
    }
    nr = m;
    qsort(r, nr, sizeof(*r), cmp_ranked);
    size_t nk = top && top < nr ? top : nr;
    struct nf_insns_key *k = nf_xcalloc(nk, sizeof(*k));
    for (size_t i = 0; i < nk; i++)
        k[i] = r[i].k;
    free(r);
    if (nk == 0) {
        if (n == 1)
            snprintf(err, errlen, "%s: no function symbols with a size in .%s%s", files[0]->path,
                     files[0]->symtab, strcmp(files[0]->symtab, "dynsym") ? "" : " (stripped?)");
        else
            snprintf(err, errlen, "none of the files has function symbols with a size");
        free(k);
        return NF_EINPUT;
    }
    *keys = k;
    *nkeys = nk;
    return 0;
}
