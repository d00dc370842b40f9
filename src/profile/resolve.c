/* Replaying one repetition's records in time order: mappings per process,
 * copied on fork and dropped on exec, and each sample looked up in the
 * state of the moment it was taken. */
#include "profile/resolve.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "profile/pin.h"

struct map {
    uint64_t start, end, pgoff;
    const char *file;           /* owned by the side-band record */
    const struct nf_fileid *id; /* likewise */
    struct nf_symtab *tab;      /* looked up on first use */
};

struct proc {
    uint32_t pid;
    int used;
    struct map *m; /* in order of mapping: the newest last */
    size_t n, cap;
};

struct procs {
    struct proc *p;
    size_t nslot, n;
};

static struct proc *proc_get(struct procs *ps, uint32_t pid);

static void procs_grow(struct procs *ps)
{
    struct procs old = *ps;
    ps->nslot = old.nslot ? old.nslot * 2 : 64;
    ps->p = nf_xcalloc(ps->nslot, sizeof(*ps->p));
    ps->n = 0;
    for (size_t i = 0; i < old.nslot; i++)
        if (old.p[i].used) {
            struct proc *q = proc_get(ps, old.p[i].pid);
            q->m = old.p[i].m;
            q->n = old.p[i].n;
            q->cap = old.p[i].cap;
        }
    free(old.p);
}

/* The process entry of pid, created empty when missing. */
static struct proc *proc_get(struct procs *ps, uint32_t pid)
{
    if (ps->n * 2 + 2 > ps->nslot)
        procs_grow(ps);
    size_t mask = ps->nslot - 1;
    for (size_t i = (pid * 2654435761u) & mask;; i = (i + 1) & mask) {
        struct proc *q = &ps->p[i];
        if (!q->used) {
            q->used = 1;
            q->pid = pid;
            ps->n++;
            return q;
        }
        if (q->pid == pid)
            return q;
    }
}

static struct proc *proc_find(const struct procs *ps, uint32_t pid)
{
    if (!ps->nslot)
        return NULL;
    size_t mask = ps->nslot - 1;
    for (size_t i = (pid * 2654435761u) & mask;; i = (i + 1) & mask) {
        struct proc *q = &ps->p[i];
        if (!q->used)
            return NULL;
        if (q->pid == pid)
            return q;
    }
}

static void procs_free(struct procs *ps)
{
    for (size_t i = 0; i < ps->nslot; i++)
        free(ps->p[i].m);
    free(ps->p);
}

static void map_add(struct proc *q, const struct map *m)
{
    /* A new mapping replaces whatever it overlaps: drop mappings it covers
     * entirely (a long-running process remapping often stays small); a
     * partly covered one stays, shadowed by the newest-first lookup. */
    size_t out = 0;
    for (size_t i = 0; i < q->n; i++)
        if (!(q->m[i].start >= m->start && q->m[i].end <= m->end))
            q->m[out++] = q->m[i];
    q->n = out;
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 16;
        q->m = nf_xrealloc(q->m, q->cap * sizeof(*q->m));
    }
    q->m[q->n++] = *m;
}

static void apply_side(struct procs *ps, const struct nf_prof_side *s)
{
    switch (s->type) {
    case NF_SIDE_MMAP: {
        struct map m = {s->start, s->start + s->len, s->pgoff, s->file, &s->id, NULL};
        map_add(proc_get(ps, s->pid), &m);
        break;
    }
    case NF_SIDE_FORK: {
        struct proc *parent = proc_find(ps, s->ppid);
        size_t n = parent ? parent->n : 0;
        struct map *copy = n ? nf_xmalloc(n * sizeof(*copy)) : NULL;
        if (n)
            memcpy(copy, parent->m, n * sizeof(*copy));
        struct proc *child = proc_get(ps, s->pid); /* may move parent */
        free(child->m);
        child->m = copy;
        child->n = child->cap = n;
        break;
    }
    case NF_SIDE_EXEC: {
        struct proc *q = proc_get(ps, s->pid);
        q->n = 0;
        break;
    }
    }
}

static const struct map *map_find(const struct proc *q, uint64_t ip)
{
    for (size_t i = q->n; i-- > 0;)
        if (ip >= q->m[i].start && ip < q->m[i].end)
            return &q->m[i];
    return NULL;
}

static const char *dso_name(const char *file)
{
    if (!*file || strncmp(file, "//anon", 6) == 0 || strncmp(file, "/dev/zero", 9) == 0 ||
        strncmp(file, "[anon", 5) == 0)
        return "[anon]";
    return file;
}

static void resolve_user(struct procs *ps, const struct nf_prof_events *ev,
                         struct nf_symcache *syms, const struct nf_prof_sample *s, const char **sym,
                         const char **dso)
{
    *sym = NF_PROF_UNKNOWN;
    *dso = NF_PROF_UNKNOWN;
    struct proc *q = proc_find(ps, s->pid);
    struct map *m = q ? (struct map *)map_find(q, s->ip) : NULL;
    if (!m)
        return;
    *dso = dso_name(m->file);
    if (!m->tab)
        m->tab = nf_symcache_file(syms, m->file, m->id, nf_prof_pin_fd(ev, m->id));
    if (m->tab->changed) {
        *dso = m->tab->shown; /* not the file that ran: no name from it */
        return;
    }
    uint64_t vaddr;
    if (!m->tab->ok || nf_symtab_vaddr(m->tab, s->ip - m->start + m->pgoff, &vaddr))
        return;
    const struct nf_sym *f = nf_symtab_lookup(m->tab, vaddr);
    if (f)
        *sym = f->name;
}

static void resolve_kernel(struct nf_symcache *syms, uint64_t ip, const char **sym,
                           const char **dso)
{
    struct nf_symtab *k = nf_symcache_kernel(syms);
    *dso = "[kernel.kallsyms]";
    if (!k) {
        *sym = NF_PROF_KERNEL;
        return;
    }
    const struct nf_sym *f = nf_symtab_lookup(k, ip);
    *sym = f ? f->name : NF_PROF_UNKNOWN;
    if (f && f->dso)
        *dso = f->dso;
}

static int sample_cmp(const void *a, const void *b)
{
    const struct nf_prof_sample *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int side_cmp(const void *a, const void *b)
{
    const struct nf_prof_side *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void nf_prof_resolve(struct nf_prof_events *ev, struct nf_symcache *syms, struct nf_profile *prof)
{
    if (ev->ns)
        qsort(ev->s, ev->ns, sizeof(*ev->s), sample_cmp);
    if (ev->nside)
        qsort(ev->side, ev->nside, sizeof(*ev->side), side_cmp);
    struct procs ps = {0};
    size_t j = 0;
    for (size_t i = 0; i < ev->ns; i++) {
        const struct nf_prof_sample *s = &ev->s[i];
        /* Side-band records up to and including this instant first: a
         * mapping reported at t covers a sample taken at t. */
        while (j < ev->nside && ev->side[j].time <= s->time)
            apply_side(&ps, &ev->side[j++]);
        const char *sym, *dso;
        if (s->kernel == 1)
            resolve_kernel(syms, s->ip, &sym, &dso);
        else if (s->kernel == 0)
            resolve_user(&ps, ev, syms, s, &sym, &dso);
        else
            sym = dso = NF_PROF_UNKNOWN;
        nf_profile_add(prof, sym, dso, 1, s->period);
    }
    prof->lost += ev->lost;
    procs_free(&ps);
}
