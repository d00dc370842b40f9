/* /proc/stat in a reading (measure/sysstat.h): the lines of the CPUs of
 * the set, and for an unpinned reader the two lines that hold the sums over
 * every CPU the kernel may have, so that it need not print the per-CPU
 * files: "softirq" (what /proc/softirqs lists, by kind) and "intr" (what
 * /proc/interrupts lists: the total, then each IRQ number's count).  The
 * file is read at each reading anyway, and the kernel prints it as one
 * record; printing /proc/interrupts walks every IRQ number it may have and
 * costs more than all the rest of a reading (bench/sysstat-cost). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "measure/sysstat_impl.h"
#include "stats/counter_delta.h"

/* The last line of /proc/stat, "softirq TOTAL HI TIMER ... RCU": each
 * kind summed over every CPU the kernel may have, the CPUs /proc/softirqs
 * lists.  Taken only when it has the kinds of nf_softirq_kinds, in their
 * order, and nothing after them. */
static void read_soft_total(char *buf, char *eof, struct reading *r)
{
    static const char key[] = "\nsoftirq ";
    char *p = eof;
    while (p > buf && p[-1] == '\n')
        p--;
    while (p > buf && p[-1] != '\n')
        p--; /* the last line's start */
    if (p == buf || strncmp(p - 1, key, sizeof(key) - 1) != 0)
        return;
    char *q = p + sizeof(key) - 2;
    uint64_t total, v[NF_SOFTIRQ_KINDS];
    if (!nf_sys_number(&q, &total))
        return;
    for (int k = 0; k < NF_SOFTIRQ_KINDS; k++)
        if (!nf_sys_number(&q, &v[k]))
            return;
    q = nf_sys_skip_blank(q);
    if (q < eof && *q != '\n')
        return; /* a kind this reader does not know */
    memcpy(r->soft_tot, v, sizeof(v));
    r->soft_tot_ok = 1;
}

/* "intr TOTAL N0 N1 ...": every interrupt of every CPU (the architecture's
 * own too: timer, IPIs), then IRQ number i's count at column i, to the
 * highest number the kernel may have.  p..end: the line. */
static void read_intr(char *p, char *end, struct reading *r)
{
    char *q = p + 4;
    if (!nf_sys_number(&q, &r->intr_total))
        return;
    size_t n = 0;
    uint64_t v;
    while (q < end && nf_sys_number(&q, &v)) {
        if (n == r->intr_cap) {
            r->intr_cap = r->intr_cap ? 2 * r->intr_cap : 512;
            r->intr = nf_xrealloc(r->intr, r->intr_cap * sizeof(*r->intr));
        }
        r->intr[n++] = v;
    }
    if (nf_sys_skip_blank(q) < end)
        return; /* not a count */
    r->nintr = n;
    r->intr_ok = 1;
}

void nf_sys_read_stat(struct nf_sys *s, struct reading *r)
{
    r->stat_ok = 0;
    r->stat_hi = 0;
    r->soft_tot_ok = 0;
    r->intr_ok = 0;
    memset(r->stat_on, 0, (size_t)s->nsel);
    char *eof = nf_sys_slurp(s, F_STAT);
    if (!eof)
        return;
    if (s->all)
        read_soft_total(s->buf, eof, r);
    /* "cpuN user nice system idle iowait irq softirq steal ...", first;
     * then, unpinned, the intr line that follows them; the rest is not
     * parsed */
    for (char *p = s->buf, *end; p < eof; p = end + 1) {
        end = memchr(p, '\n', (size_t)(eof - p));
        if (!end)
            end = eof;
        if (strncmp(p, "cpu", 3) != 0) {
            if (s->all && strncmp(p, "intr ", 5) == 0)
                read_intr(p, end, r);
            break;
        }
        char *q = p + 3;
        uint64_t cpu, f[NSTAT] = {0};
        /* "cpuN ...", not the machine's total "cpu  ..." */
        if (*q < '0' || *q > '9' || !nf_sys_number(&q, &cpu) || cpu >= CPU_SETSIZE ||
            s->sel[cpu] < 0)
            continue;
        int i = 0;
        while (i < NSTAT && nf_sys_number(&q, &f[i]))
            i++;
        if (i < 4)
            continue;
        int k = s->sel[cpu];
        r->stat_on[k] = 1;
        if (k >= r->stat_hi)
            r->stat_hi = k + 1;
        memcpy(&r->stat[(size_t)k * NSTAT], f, sizeof(f));
        r->stat_ok = 1;
    }
}

/* An IRQ number from a row's id ("24"), or -1 for the architecture's
 * ("LOC"). */
static long irq_number(const char *id)
{
    uint64_t n;
    const char *p = id;
    if (!nf_sys_numbered(id) || !nf_scan_count(&p, &n) || *p || n > LONG_MAX)
        return -1;
    return (long)n;
}

void nf_sys_intr_try(struct nf_sys *s, const struct reading *r)
{
    if (!s->all || !r->intr_ok || !r->irq.ok)
        return;
    size_t n = 0;
    for (size_t k = 0; k < r->irq.nrow; k++) {
        long irq = irq_number(r->irq.id[k]);
        if (irq >= 0 && (size_t)irq >= r->nintr)
            return; /* a row the intr line does not cover */
        if (irq >= 0 && (size_t)irq + 1 > n)
            n = (size_t)irq + 1;
    }
    s->irq_names = nf_xcalloc(n ? n : 1, sizeof(*s->irq_names));
    s->nirq_names = n;
    for (size_t k = 0; k < r->irq.nrow; k++) {
        long irq = irq_number(r->irq.id[k]);
        if (irq >= 0)
            nf_sys_copy_name(s->irq_names[irq], r->irq.name[k]);
    }
    s->intr_mode = 1;
}

void nf_sys_intr_delta(struct nf_sys *s, struct nf_sys_delta *d)
{
    const struct reading *a = &s->r[0], *b = &s->r[1];
    d->irq_ok = a->intr_ok && b->intr_ok;
    if (!d->irq_ok)
        return;
    uint64_t numbered = 0;
    size_t n = a->nintr < b->nintr ? a->nintr : b->nintr;
    for (size_t i = 0; i < n; i++) {
        /* a count over every CPU, printed 32 bits wide */
        uint64_t c = nf_counter_sum_delta(a->intr[i], b->intr[i]);
        if (c == 0)
            continue; /* most numbers, in a short repetition */
        numbered += c;
        char id[24];
        const char *name = i < s->nirq_names ? s->irq_names[i] : "";
        if (!*name) {
            /* one that appeared during the run: its number for a name */
            snprintf(id, sizeof(id), "%zu", i);
            name = id;
        }
        nf_sys_count_source(s, d, name, c);
    }
    uint64_t total = b->intr_total >= a->intr_total ? b->intr_total - a->intr_total : 0;
    /* printed a moment before the numbers: never fewer than they sum to */
    d->irq = total > numbered ? total : numbered;
    if (total > numbered)
        nf_sys_count_source(s, d, NF_METRIC_IRQ_ARCH, total - numbered);
}

void nf_sys_stat_delta(const struct nf_sys *s, struct nf_sys_delta *d)
{
    const struct reading *a = &s->r[0], *b = &s->r[1];
    /* the kinds' totals over every CPU, unpinned */
    for (int k = 0; a->soft_tot_ok && b->soft_tot_ok && k < NF_SOFTIRQ_KINDS; k++) {
        d->softirq_ok[k] = 1;
        d->softirq[k] = nf_counter_sum_delta(a->soft_tot[k], b->soft_tot[k]);
    }
    d->stat_ok = a->stat_ok && b->stat_ok;
    uint64_t f[NSTAT] = {0};
    size_t hi = (size_t)(a->stat_hi < b->stat_hi ? a->stat_hi : b->stat_hi);
    for (size_t c = 0; d->stat_ok && c < hi; c++) {
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
