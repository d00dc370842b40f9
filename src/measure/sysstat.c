/* Reading /proc/interrupts, /proc/softirqs, /proc/stat and a task's
 * schedstat around a repetition (measure/sysstat.h).  A reading keeps,
 * for each CPU of the set, whether the file listed it and its counts; the
 * delta sums the CPUs listed in both. */
#include "measure/sysstat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "measure/noise.h"
#include "stats/counter_delta.h"

const char *const nf_softirq_kinds[NF_SOFTIRQ_KINDS] = {
    "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

#define MAX_SRC 512
#define MAX_COLS CPU_SETSIZE
#define NSTAT 8 /* user nice system idle iowait irq softirq steal */

struct reading {
    int irq_ok, soft_ok, stat_ok;
    unsigned char *irq_on, *soft_on, *stat_on; /* [nsel]: the file listed the CPU */
    size_t nsrc;
    char (*id)[16];   /* [MAX_SRC] "24", "LOC" */
    char (*name)[48]; /* [MAX_SRC] */
    uint64_t *irq;    /* [MAX_SRC * nsel] */
    int soft_kind[NF_SOFTIRQ_KINDS];
    uint64_t *soft; /* [NF_SOFTIRQ_KINDS * nsel] */
    uint64_t *stat; /* [nsel * NSTAT] */
};

struct nf_sys {
    char *root;
    int nsel;
    int *sel;   /* [CPU_SETSIZE]: CPU id -> its index in the set, or -1 */
    int all;    /* no set: every CPU listed, indices given as met */
    int *cpuid; /* [CPU_SETSIZE]: index -> CPU id */
    long hz;
    struct reading r[2];
    char *buf;
    size_t bufcap;
    struct nf_sys_source *tot; /* [MAX_SRC]: per source over every delta */
    size_t ntot;
    int col[MAX_COLS];    /* a header's columns as set indices */
    uint64_t v[MAX_COLS]; /* a row's numbers */
};

static void reading_alloc(struct reading *r, int nsel)
{
    size_t n = (size_t)nsel;
    r->irq_on = nf_xcalloc(n, 1);
    r->soft_on = nf_xcalloc(n, 1);
    r->stat_on = nf_xcalloc(n, 1);
    r->id = nf_xcalloc(MAX_SRC, sizeof(*r->id));
    r->name = nf_xcalloc(MAX_SRC, sizeof(*r->name));
    r->irq = nf_xcalloc(MAX_SRC * n, sizeof(uint64_t));
    r->soft = nf_xcalloc(NF_SOFTIRQ_KINDS * n, sizeof(uint64_t));
    r->stat = nf_xcalloc(NSTAT * n, sizeof(uint64_t));
}

static void reading_free(struct reading *r)
{
    free(r->irq_on);
    free(r->soft_on);
    free(r->stat_on);
    free(r->id);
    free(r->name);
    free(r->irq);
    free(r->soft);
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
    s->hz = sysconf(_SC_CLK_TCK);
    if (s->hz <= 0)
        s->hz = 100;
    for (int i = 0; i < 2; i++)
        reading_alloc(&s->r[i], s->nsel ? s->nsel : 1);
    return s;
}

void nf_sys_free(struct nf_sys *s)
{
    if (!s)
        return;
    for (int i = 0; i < 2; i++)
        reading_free(&s->r[i]);
    free(s->sel);
    free(s->cpuid);
    free(s->root);
    free(s->buf);
    free(s->tot);
    free(s);
}

/* The whole of a /proc file into s->buf (NUL-terminated): its length, or
 * -1 when it cannot be read. */
static long slurp(struct nf_sys *s, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s%s", s->root, rel);
    /* open and read, not stdio: no buffer of its own to allocate per file */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    for (;;) {
        if (s->bufcap - n < 4096) {
            s->bufcap = s->bufcap ? s->bufcap * 2 : 65536;
            s->buf = nf_xrealloc(s->buf, s->bufcap);
        }
        ssize_t got = read(fd, s->buf + n, s->bufcap - n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            close(fd);
            return -1;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    s->buf[n] = 0;
    return (long)n;
}

/* The header line "CPU0 CPU2 ..." of /proc/interrupts and /proc/softirqs:
 * each column's set index (-1: not in the set) in col; the number of
 * columns, or -1 when it is not such a line.  *p moves past the line. */
static int header(const struct nf_sys *s, char **p, int *col)
{
    char *line = *p, *end = strchr(line, '\n');
    if (end)
        *end = 0;
    *p = end ? end + 1 : line + strlen(line);
    int n = 0;
    for (char *q = line;;) {
        while (*q == ' ' || *q == '\t')
            q++;
        if (!*q)
            break;
        int cpu, len;
        if (sscanf(q, "CPU%d%n", &cpu, &len) != 1 || cpu < 0 || n >= MAX_COLS)
            return -1;
        col[n++] = cpu < CPU_SETSIZE ? s->sel[cpu] : -1;
        q += len;
    }
    return n;
}

/* One line "ID: n1 n2 ... text": the id (without ':') in id, up to ncols
 * numbers in v, the rest in *text.  The count of numbers, or -1 for a line
 * without an id.  *p moves past the line. */
static int row(char **p, char *id, size_t idlen, uint64_t *v, int ncols, char **text)
{
    char *line = *p, *end = strchr(line, '\n');
    if (end)
        *end = 0;
    *p = end ? end + 1 : line + strlen(line);
    while (*line == ' ')
        line++;
    char *colon = strchr(line, ':');
    if (!colon || colon == line)
        return -1;
    size_t l = (size_t)(colon - line);
    if (l >= idlen)
        l = idlen - 1;
    memcpy(id, line, l);
    id[l] = 0;
    char *q = colon + 1;
    int n = 0;
    while (n < ncols) {
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q < '0' || *q > '9')
            break;
        char *e;
        v[n++] = strtoull(q, &e, 10);
        q = e;
    }
    while (*q == ' ' || *q == '\t')
        q++;
    *text = q;
    return n;
}

/* An interrupt's name: for a numbered one, the last word of its text (the
 * handler's name: "virtio0-input.0", "ttyS0"); for the architecture's
 * (LOC, NMI, RES), the id. */
static void irq_name(char *out, size_t outlen, const char *id, const char *text)
{
    if (id[0] < '0' || id[0] > '9' || !*text) {
        snprintf(out, outlen, "%s", id);
        return;
    }
    const char *last = text;
    for (const char *q = text; *q; q++)
        if ((*q == ' ' || *q == '\t') && q[1] && q[1] != ' ' && q[1] != '\t')
            last = q + 1;
    snprintf(out, outlen, "%s", last);
    size_t n = strlen(out);
    while (n && (out[n - 1] == ' ' || out[n - 1] == '\t'))
        out[--n] = 0;
}

static void read_interrupts(struct nf_sys *s, struct reading *r)
{
    r->irq_ok = 0;
    r->nsrc = 0;
    memset(r->irq_on, 0, (size_t)s->nsel);
    if (slurp(s, "/proc/interrupts") < 0)
        return;
    int *col = s->col;
    uint64_t *v = s->v;
    char *p = s->buf;
    int ncols = header(s, &p, col);
    if (ncols <= 0)
        return;
    for (int c = 0; c < ncols; c++)
        if (col[c] >= 0)
            r->irq_on[col[c]] = 1;
    char id[16], *text;
    while (*p && r->nsrc < MAX_SRC) {
        int n = row(&p, id, sizeof(id), v, ncols, &text);
        /* ERR and MIS: one total, not per CPU (when there are more) */
        if (n <= 0 || (n == 1 && ncols > 1))
            continue;
        size_t k = r->nsrc++;
        snprintf(r->id[k], sizeof(r->id[k]), "%s", id);
        irq_name(r->name[k], sizeof(r->name[k]), id, text);
        uint64_t *cnt = &r->irq[k * (size_t)s->nsel];
        memset(cnt, 0, (size_t)s->nsel * sizeof(*cnt));
        for (int c = 0; c < n; c++)
            if (col[c] >= 0)
                cnt[col[c]] = v[c];
    }
    r->irq_ok = 1;
}

static void read_softirqs(struct nf_sys *s, struct reading *r)
{
    r->soft_ok = 0;
    memset(r->soft_kind, 0, sizeof(r->soft_kind));
    memset(r->soft_on, 0, (size_t)s->nsel);
    if (slurp(s, "/proc/softirqs") < 0)
        return;
    int *col = s->col;
    uint64_t *v = s->v;
    char *p = s->buf;
    int ncols = header(s, &p, col);
    if (ncols <= 0)
        return;
    for (int c = 0; c < ncols; c++)
        if (col[c] >= 0)
            r->soft_on[col[c]] = 1;
    char id[16], *text;
    while (*p) {
        int n = row(&p, id, sizeof(id), v, ncols, &text);
        int k = 0;
        while (k < NF_SOFTIRQ_KINDS && strcmp(nf_softirq_kinds[k], id) != 0)
            k++;
        if (n < 0 || k == NF_SOFTIRQ_KINDS)
            continue;
        r->soft_kind[k] = 1;
        uint64_t *cnt = &r->soft[(size_t)k * (size_t)s->nsel];
        memset(cnt, 0, (size_t)s->nsel * sizeof(*cnt));
        for (int c = 0; c < n; c++)
            if (col[c] >= 0)
                cnt[col[c]] = v[c];
    }
    r->soft_ok = 1;
}

static void read_stat(struct nf_sys *s, struct reading *r)
{
    r->stat_ok = 0;
    memset(r->stat_on, 0, (size_t)s->nsel);
    if (slurp(s, "/proc/stat") < 0)
        return;
    for (char *p = s->buf; p && *p;) {
        char *end = strchr(p, '\n');
        if (end)
            *end = 0;
        int cpu, len;
        unsigned long long f[NSTAT] = {0};
        /* "cpuN ...", not the machine's total "cpu  ..." */
        if (strncmp(p, "cpu", 3) == 0 && p[3] >= '0' && p[3] <= '9' &&
            sscanf(p, "cpu%d%n", &cpu, &len) == 1 && cpu >= 0 && cpu < CPU_SETSIZE &&
            s->sel[cpu] >= 0 &&
            sscanf(p + len, "%llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3],
                   &f[4], &f[5], &f[6], &f[7]) >= 4) {
            int k = s->sel[cpu];
            r->stat_on[k] = 1;
            for (int i = 0; i < NSTAT; i++)
                r->stat[(size_t)k * NSTAT + i] = f[i];
            r->stat_ok = 1;
        }
        p = end ? end + 1 : NULL;
    }
}

void nf_sys_read(struct nf_sys *s, int which)
{
    struct reading *r = &s->r[which ? 1 : 0];
    read_interrupts(s, r);
    read_softirqs(s, r);
    read_stat(s, r);
}

/* A source's index in r by id, or -1. */
static long find_src(const struct reading *r, const char *id, size_t hint)
{
    if (hint < r->nsrc && strcmp(r->id[hint], id) == 0)
        return (long)hint;
    for (size_t i = 0; i < r->nsrc; i++)
        if (strcmp(r->id[i], id) == 0)
            return (long)i;
    return -1;
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

static void add_total(struct nf_sys *s, const char *name, uint64_t count)
{
    if (count == 0)
        return;
    size_t i = 0;
    while (i < s->ntot && strcmp(s->tot[i].name, name) != 0)
        i++;
    if (i == s->ntot) {
        if (s->ntot == MAX_SRC)
            return;
        snprintf(s->tot[s->ntot++].name, sizeof(s->tot[0].name), "%s", name);
    }
    s->tot[i].count += count;
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

void nf_sys_delta(struct nf_sys *s, struct nf_sys_delta *d)
{
    memset(d, 0, sizeof(*d));
    const struct reading *a = &s->r[0], *b = &s->r[1];
    size_t n = (size_t)s->nsel;
    d->irq_ok = a->irq_ok && b->irq_ok;
    for (size_t k = 0; d->irq_ok && k < b->nsrc; k++) {
        long j = find_src(a, b->id[k], k);
        if (j < 0)
            continue; /* an interrupt that appeared: counted from the next */
        uint64_t sum = 0;
        for (size_t c = 0; c < n; c++)
            if (a->irq_on[c] && b->irq_on[c])
                sum += nf_counter_delta(a->irq[(size_t)j * n + c], b->irq[k * n + c]);
        d->irq += sum;
        add_top(d, b->name[k], sum);
        add_total(s, b->name[k], sum);
    }
    for (int k = 0; k < NF_SOFTIRQ_KINDS; k++) {
        d->softirq_ok[k] = a->soft_ok && b->soft_ok && a->soft_kind[k] && b->soft_kind[k];
        for (size_t c = 0; d->softirq_ok[k] && c < n; c++)
            if (a->soft_on[c] && b->soft_on[c])
                d->softirq[k] += nf_counter_delta(a->soft[k * n + c], b->soft[k * n + c]);
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

/* The first number after "key" and ':' in a /proc/PID/sched line. */
static int sched_field(FILE *f, const char *key, uint64_t *v)
{
    char line[256];
    size_t kl = strlen(key);
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, key, kl) != 0 || (line[kl] != ' ' && line[kl] != ':'))
            continue;
        char *c = strchr(line, ':');
        unsigned long long x;
        if (c && sscanf(c + 1, "%llu", &x) == 1) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

void nf_sys_task_read(const char *root, pid_t pid, struct nf_sys_task *t)
{
    /* The leader's own files, not /proc/PID/task/: once the leader can be
     * reaped every other thread has exited and been released, and its
     * counts with it (what its threads waited is in theirs, gone). */
    char path[4096];
    snprintf(path, sizeof(path), "%s/proc/%d/schedstat", root ? root : "", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char buf[128];
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
    if (fd >= 0)
        close(fd);
    unsigned long long run, delay;
    if (n > 0 && (buf[n] = 0, sscanf(buf, "%llu %llu", &run, &delay) == 2)) {
        t->ok = 1;
        t->run_delay_ns += delay;
    }
    snprintf(path, sizeof(path), "%s/proc/%d/sched", root ? root : "", (int)pid);
    FILE *f = fopen(path, "re");
    uint64_t m;
    if (f && sched_field(f, "se.nr_migrations", &m) == 0) {
        t->migr_ok = 1;
        t->migrations += m;
    }
    if (f)
        fclose(f);
}

static const char *const fixed_names[] = {
    "cpu.irq",        "cpu.steal",       "cpu.irq-time",     "cpu.softirq-time",
    "cpu.other-busy", "sched.run-delay", "sched.migrations",
};
static const char *const fixed_units[] = {"count", "ms", "ms", "ms", "ms", "ms", "count"};

void nf_sys_declare(struct nf_run *run)
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

void nf_sys_record(struct nf_run *run, const struct nf_sys_delta *d, const struct nf_sys_task *t,
                   double own_ms)
{
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
}

/* Busy above this share of a CPU, or interrupts above this rate, make a
 * CPU one to name. */
#define BUSY_SHARE 0.2
#define IRQ_RATE 2000.0

static void sleep_for(void *ctx, double seconds)
{
    (void)ctx;
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int nf_sys_doctor(const char *root, double seconds, struct nf_noise *out)
{
    return nf_sys_doctor_with(root, seconds, sleep_for, NULL, out);
}

int nf_sys_doctor_with(const char *root, double seconds, void (*wait)(void *ctx, double seconds),
                       void *ctx, struct nf_noise *out)
{
    struct nf_sys *all = nf_sys_new(root, NULL);
    nf_sys_read(all, 0);
    int ncpu = 0, cpus[CPU_SETSIZE];
    for (int k = 0; all->r[0].stat_ok && k < all->nsel; k++)
        if (all->r[0].stat_on[k])
            cpus[ncpu++] = all->cpuid[k];
    nf_sys_free(all);
    if (!ncpu)
        return 0;
    struct nf_sys **one = nf_xcalloc((size_t)ncpu, sizeof(*one));
    for (int i = 0; i < ncpu; i++) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpus[i], &set);
        one[i] = nf_sys_new(root, &set);
        nf_sys_read(one[i], 0);
    }
    wait(ctx, seconds);
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "cpu-activity");
    int quiet = -1, nbusy = 0, len = 0;
    double quiet_score = 0;
    char busy[160] = "";
    for (int i = 0; i < ncpu; i++) {
        nf_sys_read(one[i], 1);
        struct nf_sys_delta d;
        nf_sys_delta(one[i], &d);
        nf_sys_free(one[i]);
        double share = d.stat_ok ? d.busy_ms / (seconds * 1000) : 0;
        double rate = d.irq_ok ? (double)d.irq / seconds : 0;
        double score = share + rate / IRQ_RATE * BUSY_SHARE;
        if (quiet < 0 || score < quiet_score)
            quiet = cpus[i], quiet_score = score;
        if (share > BUSY_SHARE || rate > IRQ_RATE) {
            nbusy++;
            if (len >= 0 && (size_t)len < sizeof(busy))
                len += snprintf(busy + len, sizeof(busy) - (size_t)len,
                                "%sCPU %d %.0f%% busy, %.0f interrupts/s%s%s%s",
                                nbusy > 1 ? "; " : "", cpus[i], share * 100, rate,
                                d.nsrc ? " (" : "", d.nsrc ? d.src[0].name : "", d.nsrc ? ")" : "");
        }
    }
    free(one);
    out->level = nbusy ? NF_NOISE_WARN : NF_NOISE_OK;
    if (nbusy)
        snprintf(out->seen, sizeof(out->seen), "over %.2g s: %.140s", seconds, busy);
    else
        snprintf(out->seen, sizeof(out->seen),
                 "over %.2g s: no CPU busy with other tasks or interrupts", seconds);
    if (nbusy)
        snprintf(out->fix, sizeof(out->fix),
                 "--pin %d (the quietest CPU now); find what runs on the busy ones (top) and move "
                 "interrupts off them (/proc/irq/*/smp_affinity)",
                 quiet);
    return 1;
}
