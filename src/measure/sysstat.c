/* Reading /proc/interrupts, /proc/softirqs, /proc/stat and a task's
 * schedstat around a repetition (measure/sysstat.h).  A reading keeps,
 * for each CPU of the set, whether the file listed it and its counts; the
 * delta sums the CPUs listed in both.
 *
 * What a reading costs is most of what the kernel takes to print the files
 * (/proc/interrupts above all), so the files stay open and are read again
 * from offset 0 with pread, into one buffer made once; the parser reads
 * only the columns up to the last CPU of the set, with no sscanf and no
 * allocation; and bench/sysstat-cost measures it. */
#include "measure/sysstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "stats/counter_delta.h"

const char *const nf_softirq_kinds[NF_SOFTIRQ_KINDS] = {
    "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

#define MAX_SRC 512
#define MAX_COLS CPU_SETSIZE
#define NSTAT 8 /* user nice system idle iowait irq softirq steal */

/* One reading of /proc/interrupts or /proc/softirqs: a header of CPU
 * columns, then rows "ID: n1 n2 ... text". */
struct table {
    int ok;
    unsigned char *on; /* [nsel]: the file listed the CPU */
    size_t nrow, maxrow;
    char (*id)[16];   /* [MAX_SRC] "24", "LOC", "NET_RX" */
    char (*name)[48]; /* [MAX_SRC] the handler's name (interrupts only) */
    uint64_t *cnt;    /* [MAX_SRC * nsel] */
};

struct reading {
    struct table irq, soft;
    int stat_ok;
    unsigned char *stat_on; /* [nsel] */
    uint64_t *stat;         /* [nsel * NSTAT] */
};

enum { F_IRQ, F_SOFT, F_STAT, NFILES };
static const char *const files[NFILES] = {"/proc/interrupts", "/proc/softirqs", "/proc/stat"};

struct nf_sys {
    char *root;
    int nsel;
    int *sel;   /* [CPU_SETSIZE]: CPU id -> its index in the set, or -1 */
    int all;    /* no set: every CPU listed, indices given as met */
    int *cpuid; /* [CPU_SETSIZE]: index -> CPU id */
    long hz;
    struct reading r[2];
    int fd[NFILES]; /* open from the first reading on; -1: not (yet) */
    char *buf;
    size_t bufcap;
    struct nf_sys_source *tot; /* [MAX_SRC]: per source over every recorded delta */
    size_t ntot;
    struct nf_sys_source *pend; /* [MAX_SRC]: the last delta's sources, not yet recorded */
    size_t npend;
    char named[NF_SYS_TOP][48]; /* the sources of metrics cpu.irq.NAME */
    size_t nnamed;
    int col[MAX_COLS]; /* a header's columns as set indices */
};

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
    free(s);
}

/* The whole of file f into s->buf (NUL-terminated), read again from its
 * start: its end, or NULL when it cannot be read.  A file missing now is
 * looked for again at the next reading. */
static char *slurp(struct nf_sys *s, int f)
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
    }
    s->buf[n] = 0;
    return s->buf + n;
}

static char *skip_blank(char *q)
{
    while (*q == ' ' || *q == '\t')
        q++;
    return q;
}

/* A decimal number at *q (past blanks): 1 and *q past it, or 0. */
static int number(char **q, uint64_t *v)
{
    char *p = skip_blank(*q);
    if (*p < '0' || *p > '9')
        return 0;
    uint64_t x = 0;
    while (*p >= '0' && *p <= '9')
        x = x * 10 + (uint64_t)(*p++ - '0');
    *v = x;
    *q = p;
    return 1;
}

/* An interrupt's name: for a numbered one, the last word of its text (the
 * handler's name: "virtio0-input.0", "ttyS0"); for the architecture's
 * (LOC, NMI, RES), the id.  text..end: the rest of its line. */
static void irq_name(char *out, size_t outlen, const char *id, const char *text, const char *end)
{
    while (end > text && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    if (id[0] < '0' || id[0] > '9' || end == text) {
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
    memset(t->on, 0, (size_t)s->nsel);
    char *eof = slurp(s, f);
    if (!eof)
        return;
    char *p = s->buf, *end = memchr(p, '\n', (size_t)(eof - p));
    if (!end)
        end = eof;
    int ncols = 0, need = 0;
    for (char *q = p;;) {
        q = skip_blank(q);
        if (q >= end)
            break;
        uint64_t cpu;
        q += 3;
        if (strncmp(q - 3, "CPU", 3) != 0 || !number(&q, &cpu) || ncols >= MAX_COLS)
            return;
        int k = cpu < CPU_SETSIZE ? s->sel[cpu] : -1;
        s->col[ncols++] = k;
        if (k >= 0) {
            t->on[k] = 1;
            need = ncols;
        }
    }
    if (ncols == 0)
        return;
    size_t n = (size_t)s->nsel;
    for (p = end < eof ? end + 1 : eof; p < eof && t->nrow < t->maxrow; p = end + 1) {
        end = memchr(p, '\n', (size_t)(eof - p));
        if (!end)
            end = eof;
        char *q = skip_blank(p), *colon = memchr(q, ':', (size_t)(end - q));
        if (!colon || colon == q)
            continue;
        uint64_t *cnt = &t->cnt[t->nrow * n];
        int c = 0;
        uint64_t v;
        for (q = colon + 1; c < need && number(&q, &v); c++)
            if (s->col[c] >= 0)
                cnt[s->col[c]] = v;
        /* a row of one total: fewer numbers than columns */
        if (c < need || (need < ncols && ncols > 1 && !number(&q, &v)))
            continue;
        size_t l = (size_t)(colon - skip_blank(p));
        if (l >= sizeof(t->id[0]))
            l = sizeof(t->id[0]) - 1;
        memcpy(t->id[t->nrow], skip_blank(p), l);
        t->id[t->nrow][l] = 0;
        if (t->name) {
            /* the text follows the numbers of every column */
            while (c < ncols && number(&q, &v))
                c++;
            irq_name(t->name[t->nrow], sizeof(t->name[0]), t->id[t->nrow], skip_blank(q), end);
        }
        t->nrow++;
        if (end == eof)
            break;
    }
    t->ok = 1;
}

/* The lines "cpuN user nice system idle iowait irq softirq steal ..." of
 * the CPUs of the set; they come first, so the rest (the long "intr" line)
 * is not parsed. */
static void read_stat(struct nf_sys *s, struct reading *r)
{
    r->stat_ok = 0;
    memset(r->stat_on, 0, (size_t)s->nsel);
    char *eof = slurp(s, F_STAT);
    if (!eof)
        return;
    for (char *p = s->buf, *end; p < eof; p = end + 1) {
        end = memchr(p, '\n', (size_t)(eof - p));
        if (!end)
            end = eof;
        if (strncmp(p, "cpu", 3) != 0)
            break;
        char *q = p + 3;
        uint64_t cpu, f[NSTAT] = {0};
        /* "cpuN ...", not the machine's total "cpu  ..." */
        if (*q < '0' || *q > '9' || !number(&q, &cpu) || cpu >= CPU_SETSIZE || s->sel[cpu] < 0)
            continue;
        int i = 0;
        while (i < NSTAT && number(&q, &f[i]))
            i++;
        if (i < 4)
            continue;
        int k = s->sel[cpu];
        r->stat_on[k] = 1;
        memcpy(&r->stat[(size_t)k * NSTAT], f, sizeof(f));
        r->stat_ok = 1;
    }
}

void nf_sys_read(struct nf_sys *s, int which)
{
    struct reading *r = &s->r[which ? 1 : 0];
    read_table(s, F_IRQ, &r->irq);
    read_table(s, F_SOFT, &r->soft);
    read_stat(s, r);
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
    for (size_t c = 0; c < n; c++)
        if (a->on[c] && b->on[c])
            sum += nf_counter_delta(a->cnt[j * n + c], b->cnt[k * n + c]);
    return sum;
}

static void add_top(struct nf_sys_delta *d, const char *name, uint64_t count)
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
    snprintf(d->src[i].name, sizeof(d->src[i].name), "%s", name);
    d->src[i].count = count;
}

void nf_sys_delta(struct nf_sys *s, struct nf_sys_delta *d)
{
    memset(d, 0, sizeof(*d));
    const struct reading *a = &s->r[0], *b = &s->r[1];
    size_t n = (size_t)s->nsel;
    s->npend = 0;
    d->irq_ok = a->irq.ok && b->irq.ok;
    for (size_t k = 0; d->irq_ok && k < b->irq.nrow; k++) {
        long j = find_row(&a->irq, b->irq.id[k], k);
        if (j < 0)
            continue; /* an interrupt that appeared: counted from the next */
        uint64_t sum = row_delta(&a->irq, (size_t)j, &b->irq, k, n);
        d->irq += sum;
        add_top(d, b->irq.name[k], sum);
        for (size_t i = 0; i < s->nnamed; i++)
            if (strcmp(s->named[i], b->irq.name[k]) == 0)
                d->named[i] += sum;
        if (sum && s->npend < MAX_SRC) {
            snprintf(s->pend[s->npend].name, sizeof(s->pend[0].name), "%s", b->irq.name[k]);
            s->pend[s->npend++].count = sum;
        }
    }
    for (size_t k = 0; a->soft.ok && b->soft.ok && k < b->soft.nrow; k++) {
        long j = find_row(&a->soft, b->soft.id[k], k);
        int kind = 0;
        while (kind < NF_SOFTIRQ_KINDS && strcmp(nf_softirq_kinds[kind], b->soft.id[k]) != 0)
            kind++;
        if (j < 0 || kind == NF_SOFTIRQ_KINDS)
            continue;
        d->softirq_ok[kind] = 1;
        d->softirq[kind] = row_delta(&a->soft, (size_t)j, &b->soft, k, n);
    }
    d->stat_ok = a->stat_ok && b->stat_ok;
    uint64_t f[NSTAT] = {0};
    for (size_t c = 0; d->stat_ok && c < n; c++) {
        if (!(a->stat_on[c] && b->stat_on[c]))
            continue;
        d->cpus++;
        for (int i = 0; i < NSTAT; i++)
            f[i] += b->stat[c * NSTAT + i] >= a->stat[c * NSTAT + i]
                        ? b->stat[c * NSTAT + i] - a->stat[c * NSTAT + i]
                        : 0;
    }
    double ms = 1000.0 / (double)s->hz;
    d->irq_ms = (double)f[5] * ms;
    d->softirq_ms = (double)f[6] * ms;
    d->steal_ms = (double)f[7] * ms;
    d->busy_ms = (double)(f[0] + f[1] + f[2] + f[5] + f[6]) * ms;
}

int nf_sys_cpus(const struct nf_sys *s, int *out)
{
    int n = 0;
    for (int k = 0; s->r[0].stat_ok && k < s->nsel; k++)
        if (s->r[0].stat_on[k])
            out[n++] = s->cpuid[k];
    return n;
}

/* The pending delta's sources into the totals. */
static void commit_sources(struct nf_sys *s)
{
    for (size_t k = 0; k < s->npend; k++) {
        size_t i = 0;
        while (i < s->ntot && strcmp(s->tot[i].name, s->pend[k].name) != 0)
            i++;
        if (i == s->ntot) {
            if (s->ntot == MAX_SRC)
                continue;
            snprintf(s->tot[s->ntot++].name, sizeof(s->tot[0].name), "%s", s->pend[k].name);
        }
        s->tot[i].count += s->pend[k].count;
    }
    s->npend = 0;
}

size_t nf_sys_top(const struct nf_sys *s, struct nf_sys_source *out, size_t max)
{
    struct nf_sys_delta d;
    memset(&d, 0, sizeof(d));
    for (size_t i = 0; i < s->ntot; i++)
        add_top(&d, s->tot[i].name, s->tot[i].count);
    size_t n = d.nsrc < max ? d.nsrc : max;
    memcpy(out, d.src, n * sizeof(*out));
    return n;
}

static const char *const fixed_names[] = {
    "cpu.irq",        "cpu.steal",       "cpu.irq-time",     "cpu.softirq-time",
    "cpu.other-busy", "sched.run-delay", "sched.migrations",
};
static const char *const fixed_units[] = {"count", "ms", "ms", "ms", "ms", "ms", "count"};

/* The sources with the most interrupts on the CPUs of the set since boot
 * (a reading now), most first, into s->named. */
static void choose_named(struct nf_sys *s)
{
    nf_sys_read(s, 0);
    const struct table *t = &s->r[0].irq;
    size_t n = (size_t)s->nsel;
    struct nf_sys_delta top;
    memset(&top, 0, sizeof(top));
    for (size_t k = 0; t->ok && k < t->nrow; k++) {
        uint64_t sum = 0;
        for (size_t c = 0; c < n; c++)
            if (t->on[c])
                sum += t->cnt[k * n + c];
        /* one name per metric: a second row of the same name joins the first */
        int dup = 0;
        for (size_t i = 0; i < top.nsrc; i++)
            dup |= strcmp(top.src[i].name, t->name[k]) == 0;
        if (!dup)
            add_top(&top, t->name[k], sum);
    }
    s->nnamed = top.nsrc;
    for (size_t i = 0; i < top.nsrc; i++)
        snprintf(s->named[i], sizeof(s->named[i]), "%s", top.src[i].name);
}

void nf_sys_declare(struct nf_sys *s, struct nf_run *run)
{
    for (size_t i = 0; i < 5; i++)
        nf_run_metric(run, fixed_names[i], fixed_units[i], NF_BETTER_LOWER, 0);
    for (int k = 0; k < NF_SOFTIRQ_KINDS; k++) {
        char name[64];
        snprintf(name, sizeof(name), "cpu.softirq.%s", nf_softirq_kinds[k]);
        nf_run_metric(run, name, "count", NF_BETTER_LOWER, 0);
    }
    for (size_t i = 5; i < 7; i++)
        nf_run_metric(run, fixed_names[i], fixed_units[i], NF_BETTER_LOWER, 0);
    if (!s)
        return;
    choose_named(s);
    for (size_t i = 0; i < s->nnamed; i++) {
        char name[80];
        snprintf(name, sizeof(name), "%s%s", NF_SYS_SOURCE_PREFIX, s->named[i]);
        nf_run_metric(run, name, "count", NF_BETTER_LOWER, 0);
    }
}

static void put(struct nf_run *run, const char *name, int ok, double v)
{
    struct nf_metric *m = nf_run_find(run, name);
    if (!m)
        return;
    if (ok && m->supported)
        nf_metric_push(m, v, 100.0);
    else if (m->n == 0)
        m->supported = 0; /* "<not supported>", never a 0 */
}

void nf_sys_record(struct nf_sys *s, struct nf_run *run, const struct nf_sys_delta *d,
                   const struct nf_sys_task *t, double own_ms)
{
    if (s && d->irq_ok)
        commit_sources(s);
    double other = d->busy_ms - own_ms;
    put(run, "cpu.irq", d->irq_ok, (double)d->irq);
    put(run, "cpu.steal", d->stat_ok, d->steal_ms);
    put(run, "cpu.irq-time", d->stat_ok, d->irq_ms);
    put(run, "cpu.softirq-time", d->stat_ok, d->softirq_ms);
    put(run, "cpu.other-busy", d->stat_ok, other > 0 ? other : 0);
    for (int k = 0; k < NF_SOFTIRQ_KINDS; k++) {
        char name[64];
        snprintf(name, sizeof(name), "cpu.softirq.%s", nf_softirq_kinds[k]);
        put(run, name, d->softirq_ok[k], (double)d->softirq[k]);
    }
    put(run, "sched.run-delay", t->ok, (double)t->run_delay_ns / 1e6);
    put(run, "sched.migrations", t->migr_ok, (double)t->migrations);
    for (size_t i = 0; s && i < s->nnamed; i++) {
        char name[80];
        snprintf(name, sizeof(name), "%s%s", NF_SYS_SOURCE_PREFIX, s->named[i]);
        put(run, name, d->irq_ok, (double)d->named[i]);
    }
}
