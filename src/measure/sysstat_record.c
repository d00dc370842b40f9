/* The metrics of the machine readings (measure/sysstat.h): declared on
 * a run, appended per repetition (each found by the index it had the last
 * time), and the interrupt sources counted over the run. */
#include "measure/sysstat.h"

#include <stdio.h>
#include <string.h>

#include "measure/sysstat_impl.h"

/* The metrics a repetition appends, by slot: the fixed ones, one per
 * softirq kind, one per named source. */
static const char *const fixed_names[] = {
    "cpu.irq",        "cpu.steal",       "cpu.irq-time",     "cpu.softirq-time",
    "cpu.other-busy", "sched.run-delay", "sched.migrations",
};
static const char *const fixed_units[] = {"count", "ms", "ms", "ms", "ms", "ms", "count"};
static const char *const softirq_metrics[NF_SOFTIRQ_KINDS] = {
    "cpu.softirq.HI",      "cpu.softirq.TIMER",    "cpu.softirq.NET_TX",  "cpu.softirq.NET_RX",
    "cpu.softirq.BLOCK",   "cpu.softirq.IRQ_POLL", "cpu.softirq.TASKLET", "cpu.softirq.SCHED",
    "cpu.softirq.HRTIMER", "cpu.softirq.RCU",
};

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
            nf_sys_copy_name(s->tot[s->ntot++].name, s->pend[k].name);
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
        nf_sys_add_top(&d, s->tot[i].name, s->tot[i].count);
    size_t n = d.nsrc < max ? d.nsrc : max;
    memcpy(out, d.src, n * sizeof(*out));
    return n;
}

/* The sources with the most interrupts on the CPUs of the set since boot
 * (a reading now), most first, into s->named; when the intr line is to be
 * read (unpinned), the architecture's rows as one source, "arch". */
static void choose_named(struct nf_sys *s)
{
    nf_sys_read(s, 0);
    const struct table *t = &s->r[0].irq;
    size_t n = (size_t)s->nsel;
    struct nf_sys_delta top;
    memset(&top, 0, sizeof(top));
    uint64_t arch = 0;
    for (size_t k = 0; t->ok && k < t->nrow; k++) {
        uint64_t sum = 0;
        for (size_t c = 0; c < n; c++)
            if (t->on[c])
                sum += t->cnt[k * n + c];
        /* from the intr line, the architecture's rows are one source */
        if (s->intr_mode && !nf_sys_numbered(t->id[k])) {
            arch += sum;
            continue;
        }
        /* one name per metric: a second row of the same name joins the first */
        int dup = 0;
        for (size_t i = 0; i < top.nsrc; i++)
            dup |= strcmp(top.src[i].name, t->name[k]) == 0;
        if (!dup)
            nf_sys_add_top(&top, t->name[k], sum);
    }
    nf_sys_add_top(&top, NF_METRIC_IRQ_ARCH, arch);
    s->nnamed = top.nsrc;
    for (size_t i = 0; i < top.nsrc; i++)
        snprintf(s->named[i], sizeof(s->named[i]), "%s", top.src[i].name);
}

void nf_sys_declare(struct nf_sys *s, struct nf_run *run)
{
    for (size_t i = 0; i < 5; i++)
        nf_run_metric(run, fixed_names[i], fixed_units[i], NF_BETTER_LOWER, 0);
    for (int k = 0; k < NF_SOFTIRQ_KINDS; k++)
        nf_run_metric(run, softirq_metrics[k], "count", NF_BETTER_LOWER, 0);
    for (size_t i = 5; i < 7; i++)
        nf_run_metric(run, fixed_names[i], fixed_units[i], NF_BETTER_LOWER, 0);
    if (!s)
        return;
    choose_named(s);
    for (size_t i = 0; i < s->nnamed; i++) {
        snprintf(s->named_metric[i], sizeof(s->named_metric[i]), "%s%s", NF_METRIC_IRQ_SOURCE,
                 s->named[i]);
        nf_run_metric(run, s->named_metric[i], "count", NF_BETTER_LOWER, 0);
    }
}

/* Slot slot's metric name in run: where it was last time, else searched
 * for (and kept, with a reader s). */
static struct nf_metric *find_slot(struct nf_sys *s, struct nf_run *run, int slot, const char *name)
{
    if (s && s->mrun == run && s->midx[slot] < run->nmetrics &&
        strcmp(run->metrics[s->midx[slot]].name, name) == 0)
        return &run->metrics[s->midx[slot]];
    struct nf_metric *m = nf_run_find(run, name);
    if (s && m) {
        if (s->mrun != run) {
            s->mrun = run;
            for (int i = 0; i < NSLOTS; i++)
                s->midx[i] = (size_t)-1;
        }
        s->midx[slot] = (size_t)(m - run->metrics);
    }
    return m;
}

static void put(struct nf_sys *s, struct nf_run *run, int slot, const char *name, int ok, double v)
{
    struct nf_metric *m = find_slot(s, run, slot, name);
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
    const double fixed[NFIXED] = {
        (double)d->irq,        d->steal_ms,           d->irq_ms,
        d->softirq_ms,         other > 0 ? other : 0, (double)t->run_delay_ns / 1e6,
        (double)t->migrations,
    };
    const int fixed_ok[NFIXED] = {d->irq_ok,  d->stat_ok, d->stat_ok, d->stat_ok,
                                  d->stat_ok, t->ok,      t->migr_ok};
    for (int i = 0; i < NFIXED; i++)
        put(s, run, i, fixed_names[i], fixed_ok[i], fixed[i]);
    for (int k = 0; k < NF_SOFTIRQ_KINDS; k++)
        put(s, run, SLOT_SOFT + k, softirq_metrics[k], d->softirq_ok[k], (double)d->softirq[k]);
    for (size_t i = 0; s && i < s->nnamed; i++)
        put(s, run, SLOT_NAMED + (int)i, s->named_metric[i], d->irq_ok, (double)d->named[i]);
}
