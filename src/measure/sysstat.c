/* Reading /proc/interrupts, /proc/softirqs, /proc/stat and a task's
 * schedstat around a repetition (measure/sysstat.h).  A reading keeps,
 * for each CPU of the set, whether the file listed it and its counts; the
 * delta sums the CPUs listed in both.
 *
 * What a reading costs is most of what the kernel takes to print the files
 * (/proc/interrupts above all: it walks every IRQ number the kernel may
 * have, hundreds on a small VM; an unpinned reader prints it only for its
 * first reading, for the names, and then takes /proc/stat's sums,
 * sysstat_stat.c).  So the files stay open and are read again from offset
 * 0 with pread, into one buffer made once, with no read past the end where
 * one read is known to return the whole file; the parser reads only the
 * columns up to the last CPU of the set, with no sscanf and no allocation;
 * and a delta walks only the CPUs the files list and names only the rows
 * that counted.  The metrics they become: sysstat_record.c.
 * bench/sysstat-cost measures it. */
#include "measure/sysstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "measure/sysstat_impl.h"
#include "stats/counter_delta.h"

const char *const nf_softirq_kinds[NF_SOFTIRQ_KINDS] = {
    "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

static const char *const files[NFILES] = {"/proc/interrupts", "/proc/softirqs", "/proc/stat"};
/* Whether one read returns all of the file when the buffer has room: the
 * kernel prints /proc/softirqs and /proc/stat as one record (single_open),
 * which a read gives whole; /proc/interrupts is a record per IRQ number, of
 * which a read gives what fits in the kernel's page, so it is read until
 * its end, or until a read ends with the architecture's rows, its last
 * record (ends_with_arch_row).  (A regular file, a test's, ends where a
 * read comes up short.) */
static const int whole[NFILES] = {0, 1, 1};

static void table_alloc(struct table *t, size_t n, size_t maxrow, int names)
{
    t->maxrow = maxrow;
    t->on = nf_xcalloc(n, 1);
    t->id = nf_xcalloc(maxrow, sizeof(*t->id));
    t->name = names ? nf_xcalloc(maxrow, sizeof(*t->name)) : NULL;
    t->cnt = nf_xcalloc(maxrow * n, sizeof(uint64_t));
}

static void table_free(struct table *t)
{
    free(t->on);
    free(t->id);
    free(t->name);
    free(t->cnt);
}

static void reading_alloc(struct reading *r, int nsel)
{
    size_t n = (size_t)nsel;
    table_alloc(&r->irq, n, MAX_SRC, 1);
    /* the kinds, and room for ones a later kernel adds */
    table_alloc(&r->soft, n, 2 * NF_SOFTIRQ_KINDS, 0);
    r->stat_on = nf_xcalloc(n, 1);
    r->stat = nf_xcalloc(NSTAT * n, sizeof(uint64_t));
}

static void reading_free(struct reading *r)
{
    table_free(&r->irq);
    table_free(&r->soft);
    free(r->stat_on);
    free(r->stat);
    free(r->intr);
}

struct nf_sys *nf_sys_new(const char *root, const cpu_set_t *cpus)
{
    struct nf_sys *s = nf_xcalloc(1, sizeof(*s));
    s->root = nf_xstrdup(root ? root : "");
    s->sel = nf_xcalloc(CPU_SETSIZE, sizeof(int));
    s->cpuid = nf_xcalloc(CPU_SETSIZE, sizeof(int));
    s->all = cpus == NULL;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        s->sel[c] = s->all ? c : -1;
        s->cpuid[c] = s->all ? c : -1;
    }
    if (s->all) {
        s->nsel = CPU_SETSIZE;
    } else {
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, cpus)) {
                s->cpuid[s->nsel] = c;
                s->sel[c] = s->nsel++;
            }
    }
    /* Unpinned: every CPU id is its own index, up to the highest the
     * machine may have (at least 64: a fake tree may list more CPUs than
     * this machine has). */
    if (s->all) {
        long n = sysconf(_SC_NPROCESSORS_CONF);
        s->nsel = n > 64 && n < CPU_SETSIZE ? (int)n : n >= CPU_SETSIZE ? CPU_SETSIZE : 64;
        for (int c = s->nsel; c < CPU_SETSIZE; c++)
            s->sel[c] = -1;
    }
    s->tot = nf_xcalloc(MAX_SRC, sizeof(*s->tot));
    s->pend = nf_xcalloc(MAX_SRC, sizeof(*s->pend));
    s->hz = sysconf(_SC_CLK_TCK);
    if (s->hz <= 0)
        s->hz = 100;
    for (int i = 0; i < 2; i++)
        reading_alloc(&s->r[i], s->nsel ? s->nsel : 1);
    for (int i = 0; i < NFILES; i++)
        s->fd[i] = -1;
    s->bufcap = 65536;
    s->buf = nf_xcalloc(s->bufcap, 1);
    return s;
}

void nf_sys_close(struct nf_sys *s)
{
    for (int i = 0; i < NFILES; i++)
        if (s->fd[i] >= 0) {
            close(s->fd[i]);
            s->fd[i] = -1;
        }
}

void nf_sys_free(struct nf_sys *s)
{
    if (!s)
        return;
    for (int i = 0; i < 2; i++)
        reading_free(&s->r[i]);
    nf_sys_close(s);
    free(s->sel);
    free(s->cpuid);
    free(s->root);
    free(s->buf);
    free(s->tot);
    free(s->pend);
    free(s->irq_names);
    free(s);
}

/* Whether buf[0..n) ends with a whole line of an interrupt the
 * architecture counts ("LOC: ...", "IPI0: ..."): the kernel prints those
 * as one record after every numbered one, the file's last, so a read that
 * ends with one has reached the file's end and the read that would say so
 * (a system call, over a microsecond on a guest) is not needed. */
static int ends_with_arch_row(const char *buf, size_t n)
{
    if (n == 0 || buf[n - 1] != '\n')
        return 0;
    size_t i = n - 1;
    while (i > 0 && buf[i - 1] != '\n')
        i--;
    while (i < n && (buf[i] == ' ' || buf[i] == '\t'))
        i++;
    /* not a numbered row, and not the header ("CPU0 CPU1", no colon) */
    return i < n && (buf[i] < '0' || buf[i] > '9') && memchr(buf + i, ':', n - i) != NULL;
}

/* The whole of file f into s->buf (NUL-terminated), read again from its
 * start: its end, or NULL when it cannot be read.  A file missing now is
 * looked for again at the next reading. */
char *nf_sys_slurp(struct nf_sys *s, int f)
{
    if (s->fd[f] < 0) {
        char path[4096];
        snprintf(path, sizeof(path), "%s%s", s->root, files[f]);
        s->fd[f] = open(path, O_RDONLY | O_CLOEXEC);
        if (s->fd[f] < 0)
            return NULL;
    }
    size_t n = 0;
    for (;;) {
        if (s->bufcap - n < 4096) {
            s->bufcap *= 2;
            s->buf = nf_xrealloc(s->buf, s->bufcap);
        }
        ssize_t got = pread(s->fd[f], s->buf + n, s->bufcap - n - 1, (off_t)n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return NULL;
        if (got == 0)
            break;
        n += (size_t)got;
        int short_read = (size_t)got < s->bufcap - (n - (size_t)got) - 1;
        if (short_read && (whole[f] || (f == F_IRQ && ends_with_arch_row(s->buf, n))))
            break; /* all of it: no read past the end */
    }
    s->buf[n] = 0;
    return s->buf + n;
}

char *nf_sys_skip_blank(char *q)
{
    while (*q == ' ' || *q == '\t')
        q++;
    return q;
}

int nf_sys_number(char **q, uint64_t *v)
{
    const char *p = *q;
    if (!nf_scan_count(&p, v))
        return 0;
    *q += p - *q;
    return 1;
}

/* An interrupt's name: for a numbered one, the last word of its text (the
 * handler's name: "virtio0-input.0", "ttyS0"); for the architecture's
 * (LOC, NMI, RES), the id.  text..end: the rest of its line. */
static void irq_name(char *out, size_t outlen, const char *id, const char *text, const char *end)
{
    while (end > text && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    if (!nf_sys_numbered(id) || end == text) {
        snprintf(out, outlen, "%s", id);
        return;
    }
    const char *last = end;
    while (last > text && last[-1] != ' ' && last[-1] != '\t')
        last--;
    size_t n = (size_t)(end - last);
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, last, n);
    out[n] = 0;
}

/* /proc/interrupts or /proc/softirqs (one shape): the header line "CPU0
 * CPU2 ..." gives each column's CPU, then each row "ID: n1 n2 ... text"
 * its counts.  Only the columns up to the last CPU of the set are parsed.
 * A row with fewer numbers than columns (ERR and MIS: one total, no CPU's)
 * is left out. */
static void read_table(struct nf_sys *s, int f, struct table *t)
{
    t->ok = 0;
    t->nrow = 0;
    t->hi = 0;
    memset(t->on, 0, (size_t)s->nsel);
    char *eof = nf_sys_slurp(s, f);
    if (!eof)
        return;
    char *p = s->buf, *end = memchr(p, '\n', (size_t)(eof - p));
    if (!end)
        end = eof;
    int ncols = 0, need = 0;
    for (char *q = p;;) {
        q = nf_sys_skip_blank(q);
        if (q >= end)
            break;
        uint64_t cpu;
        q += 3;
        if (strncmp(q - 3, "CPU", 3) != 0 || !nf_sys_number(&q, &cpu) || ncols >= MAX_COLS)
            return;
        int k = cpu < CPU_SETSIZE ? s->sel[cpu] : -1;
        s->col[ncols++] = k;
        if (k >= 0) {
            t->on[k] = 1;
            need = ncols;
            if (k >= t->hi)
                t->hi = k + 1;
        }
    }
    if (ncols == 0)
        return;
    size_t n = (size_t)s->nsel;
    for (p = end < eof ? end + 1 : eof; p < eof && t->nrow < t->maxrow; p = end + 1) {
        end = memchr(p, '\n', (size_t)(eof - p));
        if (!end)
            end = eof;
        char *q = nf_sys_skip_blank(p), *colon = memchr(q, ':', (size_t)(end - q));
        if (!colon || colon == q)
            continue;
        uint64_t *cnt = &t->cnt[t->nrow * n];
        int c = 0;
        uint64_t v;
        for (q = colon + 1; c < need && nf_sys_number(&q, &v); c++)
            if (s->col[c] >= 0)
                cnt[s->col[c]] = v;
        /* a row of one total: fewer numbers than columns */
        if (c < need || (need < ncols && ncols > 1 && !nf_sys_number(&q, &v)))
            continue;
        size_t l = (size_t)(colon - nf_sys_skip_blank(p));
        if (l >= sizeof(t->id[0]))
            l = sizeof(t->id[0]) - 1;
        memcpy(t->id[t->nrow], nf_sys_skip_blank(p), l);
        t->id[t->nrow][l] = 0;
        if (t->name) {
            /* the text follows the numbers of every column */
            while (c < ncols && nf_sys_number(&q, &v))
                c++;
            irq_name(t->name[t->nrow], sizeof(t->name[0]), t->id[t->nrow], nf_sys_skip_blank(q),
                     end);
        }
        t->nrow++;
        if (end == eof)
            break;
    }
    t->ok = 1;
}

void nf_sys_read(struct nf_sys *s, int which)
{
    struct reading *r = &s->r[which ? 1 : 0];
    nf_sys_read_stat(s, r);
    /* Unpinned, the interrupts are /proc/stat's intr line, once the first
     * reading has named its IRQ numbers (nf_sys_intr_try): the same counts,
     * without printing /proc/interrupts (about 35 us here,
     * bench/sysstat-cost). */
    if (s->intr_mode && r->intr_ok) {
        r->irq.ok = 0;
        r->irq.nrow = 0;
    } else {
        read_table(s, F_IRQ, &r->irq);
        if (!s->intr_tried) {
            s->intr_tried = 1;
            nf_sys_intr_try(s, r);
        }
    }
    /* Unpinned, the softirqs of every CPU are /proc/stat's totals: the
     * same counts, without printing /proc/softirqs (about 6 us here,
     * bench/sysstat-cost). */
    if (r->soft_tot_ok) {
        r->soft.ok = 0;
        r->soft.nrow = 0;
    } else
        read_table(s, F_SOFT, &r->soft);
}

void nf_sys_again(struct nf_sys *s)
{
    struct reading t = s->r[0];
    s->r[0] = s->r[1];
    s->r[1] = t;
}

/* A row's index in t by id, or -1. */
static long find_row(const struct table *t, const char *id, size_t hint)
{
    if (hint < t->nrow && strcmp(t->id[hint], id) == 0)
        return (long)hint;
    for (size_t i = 0; i < t->nrow; i++)
        if (strcmp(t->id[i], id) == 0)
            return (long)i;
    return -1;
}

/* Row j of a and row k of b summed over the CPUs listed in both. */
static uint64_t row_delta(const struct table *a, size_t j, const struct table *b, size_t k,
                          size_t n)
{
    uint64_t sum = 0;
    size_t hi = (size_t)(a->hi < b->hi ? a->hi : b->hi);
    for (size_t c = 0; c < hi; c++)
        if (a->on[c] && b->on[c])
            sum += nf_counter_delta(a->cnt[j * n + c], b->cnt[k * n + c]);
    return sum;
}

void nf_sys_copy_name(char *out, const char *name)
{
    size_t n = strnlen(name, 47);
    memcpy(out, name, n);
    out[n] = 0;
}

void nf_sys_add_top(struct nf_sys_delta *d, const char *name, uint64_t count)
{
    if (count == 0)
        return;
    size_t i = d->nsrc < NF_SYS_TOP ? d->nsrc++ : NF_SYS_TOP;
    if (i == NF_SYS_TOP) {
        if (count <= d->src[NF_SYS_TOP - 1].count)
            return;
        i = NF_SYS_TOP - 1;
    }
    while (i > 0 && d->src[i - 1].count < count) {
        d->src[i] = d->src[i - 1];
        i--;
    }
    nf_sys_copy_name(d->src[i].name, name);
    d->src[i].count = count;
}

void nf_sys_count_source(struct nf_sys *s, struct nf_sys_delta *d, const char *name, uint64_t count)
{
    nf_sys_add_top(d, name, count);
    for (size_t i = 0; i < s->nnamed; i++)
        if (strcmp(s->named[i], name) == 0)
            d->named[i] += count;
    if (s->npend < MAX_SRC) {
        nf_sys_copy_name(s->pend[s->npend].name, name);
        s->pend[s->npend++].count = count;
    }
}

void nf_sys_delta(struct nf_sys *s, struct nf_sys_delta *d)
{
    memset(d, 0, sizeof(*d));
    const struct reading *a = &s->r[0], *b = &s->r[1];
    size_t n = (size_t)s->nsel;
    s->npend = 0;
    if (s->intr_mode && a->intr_ok && b->intr_ok) {
        nf_sys_intr_delta(s, d);
    } else {
        d->irq_ok = a->irq.ok && b->irq.ok;
        for (size_t k = 0; d->irq_ok && k < b->irq.nrow; k++) {
            long j = find_row(&a->irq, b->irq.id[k], k);
            if (j < 0)
                continue; /* an interrupt that appeared: counted from the next */
            uint64_t sum = row_delta(&a->irq, (size_t)j, &b->irq, k, n);
            if (sum == 0)
                continue; /* most rows, in a short repetition */
            d->irq += sum;
            nf_sys_count_source(s, d, b->irq.name[k], sum);
        }
    }
    nf_sys_stat_delta(s, d);
    for (size_t k = 0; a->soft.ok && b->soft.ok && k < b->soft.nrow; k++) {
        long j = find_row(&a->soft, b->soft.id[k], k);
        /* the kernel's order: row k is kind k, else looked for */
        int kind =
            k < NF_SOFTIRQ_KINDS && strcmp(nf_softirq_kinds[k], b->soft.id[k]) == 0 ? (int)k : 0;
        while (kind < NF_SOFTIRQ_KINDS && strcmp(nf_softirq_kinds[kind], b->soft.id[k]) != 0)
            kind++;
        if (j < 0 || kind == NF_SOFTIRQ_KINDS)
            continue;
        d->softirq_ok[kind] = 1;
        d->softirq[kind] = row_delta(&a->soft, (size_t)j, &b->soft, k, n);
    }
}

int nf_sys_cpus(const struct nf_sys *s, int *out)
{
    int n = 0;
    for (int k = 0; s->r[0].stat_ok && k < s->nsel; k++)
        if (s->r[0].stat_on[k])
            out[n++] = s->cpuid[k];
    return n;
}
