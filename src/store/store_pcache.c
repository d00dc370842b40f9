/* The points cache: the rows of nf_store_load_points (store_int.h,
 * struct nf_store_prow) of every settled run up to an id, kept in the store
 * as one blob (schema 10, table points_cache), so that `history` steps the
 * rows of the runs added since rather than joining every run's metrics and
 * summaries again (doc/statistics.md, "Cost and appending a run").
 *
 * Exact by construction: the cached rows are replayed through the same
 * nf_store_point_row as fresh ones, and the store's triggers delete the
 * cache whenever a row it covers could read differently (a run of an id up
 * to it inserted, updated or deleted, its metrics or summaries written,
 * the job that decides whether it is superseded changed); its count of runs
 * is checked on every read besides.  A run not settled (still "running",
 * or with a metric not yet summarised) ends the cached range: it and every
 * later run are read from the tables.
 *
 * The blob is a sequence of chunks, each appended when enough new runs were
 * read from the tables (REFRESH), each:
 *   "NFPC" u32 0x01020304 (byte order) u32 nstrings u32 strings' bytes
 *   u32 nrows; the strings, each NUL-terminated; then per row: i64 id,
 *   11 u32 strings (label, workload, args, started, status, host, commit,
 *   describe, name, unit, better; 0 NULL, else 1 + index), i32 superseded,
 *   primary, supported, summed, recip; when summed u64 n and 4 doubles
 *   (mean, sd, rmean, rsd), bit for bit.
 * A blob that does not parse is ignored (and replaced). */
#include "store/store_int.h"

#include <stdlib.h>
#include <string.h>

enum { REFRESH = NF_PCACHE_REFRESH, NSTR = 11, MAGIC_ORDER = 0x01020304 };

struct nf_pc_enc {
    char *rows;
    size_t rlen, rcap, nrows;
    char *str;
    size_t slen, scap;
    uint32_t nstr, *slot; /* 1 + index by hash */
    size_t nslot;
    uint32_t *soff; /* each string's offset in str */
    size_t socap;
    int64_t last;    /* the last run's id */
    int64_t nruns;   /* runs so far (before a cut) */
    size_t run_rlen; /* rlen and nrows at the last run's first row */
    size_t run_nrows;
    int cut;      /* an unsettled run seen: no row from it on */
    int64_t upto; /* with cut: the id before it */
};

static void put(char **b, size_t *len, size_t *cap, const void *v, size_t n)
{
    if (*len + n > *cap) {
        *cap = (*len + n) * 2 + 4096;
        *b = nf_xrealloc(*b, *cap);
    }
    memcpy(*b + *len, v, n);
    *len += n;
}

static size_t shash(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static uint32_t enc_str(struct nf_pc_enc *e, const char *s)
{
    if (!s)
        return 0;
    if (2 * (e->nstr + 1) > e->nslot) {
        size_t n = e->nslot ? 2 * e->nslot : 1024;
        uint32_t *t = nf_xcalloc(n, sizeof(*t));
        for (size_t i = 0; i < e->nslot; i++)
            if (e->slot[i]) {
                size_t k = shash(e->str + e->soff[e->slot[i] - 1]) & (n - 1);
                while (t[k])
                    k = (k + 1) & (n - 1);
                t[k] = e->slot[i];
            }
        free(e->slot);
        e->slot = t;
        e->nslot = n;
    }
    size_t k = shash(s) & (e->nslot - 1);
    for (; e->slot[k]; k = (k + 1) & (e->nslot - 1))
        if (strcmp(e->str + e->soff[e->slot[k] - 1], s) == 0)
            return e->slot[k];
    if (e->nstr == e->socap)
        e->soff =
            nf_xrealloc(e->soff, (e->socap = e->socap ? 2 * e->socap : 1024) * sizeof(uint32_t));
    e->soff[e->nstr] = (uint32_t)e->slen;
    put(&e->str, &e->slen, &e->scap, s, strlen(s) + 1);
    return e->slot[k] = ++e->nstr;
}

/* Keep row r, unless an unsettled run came before it: an unsettled run cuts
 * the cache at its first row. */
static void enc_row(struct nf_pc_enc *e, const struct nf_store_prow *r)
{
    if (e->cut)
        return;
    if (r->id != e->last) {
        e->last = r->id;
        e->nruns++;
        e->run_rlen = e->rlen;
        e->run_nrows = e->nrows;
    }
    int running = nf_store_row_status(r->status) == NF_RUN_RUNNING && !r->superseded;
    if (running || (r->name && !r->summed)) {
        e->cut = 1;
        e->upto = r->id - 1;
        e->nruns--;
        e->rlen = e->run_rlen;
        e->nrows = e->run_nrows;
        return;
    }
    const char *s[NSTR] = {r->label,  r->workload, r->args, r->started, r->status, r->host,
                           r->commit, r->describe, r->name, r->unit,    r->better};
    uint32_t ix[NSTR];
    for (int i = 0; i < NSTR; i++)
        ix[i] = enc_str(e, s[i]);
    int32_t fl[5] = {r->superseded, r->primary, r->supported, r->summed, r->sum.recip};
    put(&e->rows, &e->rlen, &e->rcap, &r->id, sizeof(r->id));
    put(&e->rows, &e->rlen, &e->rcap, ix, sizeof(ix));
    put(&e->rows, &e->rlen, &e->rcap, fl, sizeof(fl));
    if (r->summed) {
        uint64_t n = r->sum.n;
        double d[4] = {r->sum.mean, r->sum.sd, r->sum.rmean, r->sum.rsd};
        put(&e->rows, &e->rlen, &e->rcap, &n, sizeof(n));
        put(&e->rows, &e->rlen, &e->rcap, d, sizeof(d));
    }
    e->nrows++;
}

void nf_pc_enc_row(struct nf_pc_enc *e, const struct nf_store_prow *r)
{
    enc_row(e, r);
}

static void enc_free(struct nf_pc_enc *e)
{
    free(e->rows);
    free(e->str);
    free(e->slot);
    free(e->soff);
}

/* The chunk of e appended to *b. */
static void enc_chunk(const struct nf_pc_enc *e, char **b, size_t *len, size_t *cap)
{
    uint32_t h[5] = {0, MAGIC_ORDER, e->nstr, (uint32_t)e->slen, (uint32_t)e->nrows};
    memcpy(h, "NFPC", 4);
    put(b, len, cap, h, sizeof(h));
    put(b, len, cap, e->str, e->slen);
    put(b, len, cap, e->rows, e->rlen);
}

/* --- reading ---------------------------------------------------------------- */

struct rd {
    const char *p, *end;
};

static int take(struct rd *d, void *v, size_t n)
{
    if ((size_t)(d->end - d->p) < n)
        return -1;
    memcpy(v, d->p, n);
    d->p += n;
    return 0;
}

static int matches(const struct nf_store_filter *f, const struct nf_store_prow *r)
{
    if (f && f->workload && (!r->workload || strcmp(f->workload, r->workload) != 0))
        return 0;
    if (!f || !f->nlabels)
        return 1;
    for (size_t i = 0; i < f->nlabels; i++)
        if (r->label && strcmp(f->labels[i], r->label) == 0)
            return 1;
    return 0;
}

/* Walk the chunks of data: each row given to nf_store_point_row(l) when l
 * (and it matches f), else only checked.  0, or -1 when it does not parse. */
static int replay(const void *data, size_t len, const struct nf_store_filter *f,
                  struct nf_store_pload *l, int64_t upto)
{
    struct rd d = {data, (const char *)data + len};
    const char **tab = NULL;
    size_t tcap = 0;
    int64_t last = 0;
    int rc = 0;
    while (rc == 0 && d.p < d.end) {
        uint32_t h[5];
        if (take(&d, h, sizeof(h)) || memcmp(h, "NFPC", 4) != 0 || h[1] != MAGIC_ORDER ||
            h[3] > (size_t)(d.end - d.p)) {
            rc = -1;
            break;
        }
        const char *str = d.p, *send = d.p + h[3];
        if (h[2] > tcap)
            tab = nf_xrealloc(tab, (tcap = h[2]) * sizeof(*tab));
        for (uint32_t i = 0; i < h[2] && rc == 0; i++) {
            const char *z = memchr(str, 0, (size_t)(send - str));
            if (!z) {
                rc = -1;
                break;
            }
            tab[i] = str;
            str = z + 1;
        }
        d.p = send;
        for (uint32_t i = 0; i < h[4] && rc == 0; i++) {
            struct nf_store_prow r = {0};
            uint32_t ix[NSTR];
            int32_t fl[5];
            if (take(&d, &r.id, sizeof(r.id)) || take(&d, ix, sizeof(ix)) ||
                take(&d, fl, sizeof(fl)) || r.id < last || r.id <= 0 || r.id > upto) {
                rc = -1;
                break;
            }
            last = r.id;
            const char *s[NSTR];
            for (int k = 0; k < NSTR; k++) {
                if (ix[k] > h[2]) {
                    rc = -1;
                    break;
                }
                s[k] = ix[k] ? tab[ix[k] - 1] : NULL;
            }
            if (rc)
                break;
            r.label = s[0], r.workload = s[1], r.args = s[2], r.started = s[3];
            r.status = s[4], r.host = s[5], r.commit = s[6], r.describe = s[7];
            r.name = s[8], r.unit = s[9], r.better = s[10];
            r.superseded = fl[0], r.primary = fl[1], r.supported = fl[2], r.summed = fl[3];
            r.sum.recip = fl[4];
            if (r.summed) {
                uint64_t n;
                double v[4];
                if (take(&d, &n, sizeof(n)) || take(&d, v, sizeof(v))) {
                    rc = -1;
                    break;
                }
                r.sum.n = (size_t)n;
                r.sum.mean = v[0], r.sum.sd = v[1], r.sum.rmean = v[2], r.sum.rsd = v[3];
            }
            if (l && matches(f, &r))
                nf_store_point_row(l, &r);
        }
    }
    free(tab);
    return rc;
}

/* --- the load ------------------------------------------------------------- */

/* A filter the cached rows can be matched against in memory (labels and
 * workload); all: none at all, the load that writes the cache. */
static int cacheable(const struct nf_store_filter *f, int *all)
{
    *all = !f || (!f->nlabels && !f->workload);
    return !f || (!f->session && !f->id && !f->counted && !f->summaries && !f->after);
}

/* The rows of f: the cached ones, then those of the runs after them from
 * the tables, in one transaction; the cache written again (in it) when the
 * load is of every run and the cache was missing or REFRESH runs behind.
 * 0; 1 when the cache could not be written (the rows stand); 2 when it
 * could not be read (no row loaded); -1 on a failure of the load. */
static int cached_load(struct nf_store *s, const struct nf_store_filter *f, int all,
                       struct nf_store_pload *l)
{
    int64_t upto = 0, nruns = 0;
    void *data = NULL;
    size_t len = 0;
    if (s->ops->pcache_read(s, &upto, &nruns, &data, &len))
        return 2; /* nothing loaded: the tables alone */
    if (data && replay(data, len, NULL, NULL, upto) != 0) {
        free(data); /* does not parse: replaced below */
        data = NULL;
    }
    if (!data)
        upto = nruns = len = 0;
    else
        replay(data, len, f, l, upto);
    struct nf_pc_enc e = {0};
    if (all)
        l->enc = &e;
    struct nf_store_filter t = {0};
    if (f)
        t = *f;
    t.after = upto;
    int rc = s->ops->load_points(s, &t, l);
    l->enc = NULL;
    if (rc == 0 && all && e.nruns > 0 && (!data || e.nruns >= REFRESH)) {
        size_t cap = len;
        char *b = data;
        enc_chunk(&e, &b, &len, &cap);
        data = b;
        if (s->ops->pcache_write(s, e.cut ? e.upto : e.last, nruns + e.nruns, data, len))
            rc = 1; /* not now: rolled back, the rows stand */
    }
    enc_free(&e);
    free(data);
    return rc;
}

int nf_store_load_points(struct nf_store *s, const struct nf_store_filter *f, struct nf_points *p)
{
    struct nf_store_pload l = {.p = p};
    int all, rc;
    /* NF_POINTS_CACHE=off: neither read nor written (tests compare). */
    const char *env = getenv("NF_POINTS_CACHE");
    if (s->ops->pcache_txn && cacheable(f, &all) && !(env && strcmp(env, "off") == 0) &&
        s->ops->pcache_txn(s, all ? 3 : 0) == 0) {
        rc = cached_load(s, f, all, &l);
        if (s->ops->pcache_txn(s, rc ? 2 : 1) && rc == 0)
            rc = -1;
        if (rc == 1)
            rc = 0;
        if (rc == 2)
            rc = s->ops->load_points(s, f, &l);
    } else {
        rc = s->ops->load_points(s, f, &l);
    }
    nf_store_point_end(&l);
    for (size_t i = 0; rc == 0 && i < l.nwhole; i++) {
        struct nf_run *run;
        int r = nf_store_load_run(s, l.whole[i], &run);
        if (r == NF_STORE_NOTFOUND)
            continue; /* deleted since */
        if (r) {
            rc = -1;
            break;
        }
        nf_points_add_run(p, run);
        nf_run_free(run);
    }
    free(l.whole);
    return rc;
}
