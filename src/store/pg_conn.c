/* The PostgreSQL backend's plumbing: parameters, array literals, running
 * statements with one-line errors, transactions. */
#include "store/pg_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nf_pgp_text(struct nf_pgp *p, const char *s)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->v = nf_xrealloc(p->v, (size_t)p->cap * sizeof(char *));
    }
    p->v[p->n++] = s ? nf_xstrdup(s) : NULL;
}

void nf_pgp_columns(struct nf_pgp *p, struct nf_buf *col, int n)
{
    for (int c = 0; c < n; c++) {
        nf_arr_close(&col[c]);
        nf_pgp_text(p, col[c].s);
        free(col[c].s);
        col[c] = (struct nf_buf){0};
    }
}

void nf_pgp_run_ids(struct nf_pgp *p, struct nf_run *const *runs, size_t n)
{
    struct nf_buf ids = {0};
    nf_arr_open(&ids);
    for (size_t i = 0; i < n; i++)
        nf_arr_int(&ids, runs[i]->id);
    nf_arr_close(&ids);
    nf_pgp_text(p, ids.s);
    free(ids.s);
}

void nf_pgp_int(struct nf_pgp *p, long long v)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", v);
    nf_pgp_text(p, buf);
}

void nf_pgp_free(struct nf_pgp *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
    memset(p, 0, sizeof(*p));
}

void nf_buf_add(struct nf_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2 + 64;
        b->s = nf_xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void nf_buf_printf(struct nf_buf *b, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n > 0) {
        nf_buf_add(b, "", 0);
        if (b->len + (size_t)n + 1 > b->cap) {
            b->cap = (b->len + (size_t)n + 1) * 2;
            b->s = nf_xrealloc(b->s, b->cap);
        }
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, aq);
        b->len += (size_t)n;
    }
    va_end(aq);
}

void nf_arr_open(struct nf_buf *b)
{
    nf_buf_add(b, "{", 1);
}

static void arr_sep(struct nf_buf *b)
{
    if (b->len && b->s[b->len - 1] != '{')
        nf_buf_add(b, ",", 1);
}

void nf_arr_text(struct nf_buf *b, const char *s)
{
    arr_sep(b);
    nf_buf_add(b, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\')
            nf_buf_add(b, "\\", 1);
        nf_buf_add(b, p, 1);
    }
    nf_buf_add(b, "\"", 1);
}

void nf_arr_double(struct nf_buf *b, double v)
{
    char buf[40];
    if (isnan(v))
        snprintf(buf, sizeof(buf), "NaN");
    else if (isinf(v))
        snprintf(buf, sizeof(buf), "%sInfinity", v < 0 ? "-" : "");
    else
        snprintf(buf, sizeof(buf), "%.17g", v);
    arr_sep(b);
    nf_buf_add(b, buf, strlen(buf));
}

void nf_arr_int(struct nf_buf *b, long long v)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", v);
    arr_sep(b);
    nf_buf_add(b, buf, strlen(buf));
}

void nf_arr_null(struct nf_buf *b)
{
    arr_sep(b);
    nf_buf_add(b, "NULL", 4);
}

void nf_arr_close(struct nf_buf *b)
{
    nf_buf_add(b, "}", 1);
}

void nf_pg_flatten(char *dst, size_t len, const char *msg)
{
    size_t o = 0;
    int space = 1; /* drop leading blanks */
    for (const char *p = msg ? msg : ""; *p && o + 1 < len; p++) {
        int blank = *p == '\n' || *p == '\t' || *p == '\r' || *p == ' ';
        if (blank) {
            if (!space)
                dst[o++] = ' ';
            space = 1;
        } else {
            dst[o++] = *p;
            space = 0;
        }
    }
    while (o && dst[o - 1] == ' ')
        o--;
    dst[o] = 0;
}

void nf_pg_on_notice(void *ctx, const char *msg)
{
    struct nf_pg *g = ctx;
    nf_pg_flatten(g->notice, sizeof(g->notice), msg);
}

static PGresult *check(struct nf_pg *g, PGresult *res, const char *what)
{
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return res;
    const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    char line[NF_ERR_LEN];
    nf_pg_flatten(line, sizeof(line), msg ? msg : PQerrorMessage(g->conn));
    if (g->notice[0] && !msg) /* the connection failed: the server may have said why */
        nf_store_seterr(&g->base, "%s: %s: %s (the server said: %s)", g->base.name, what, line,
                        g->notice);
    else
        nf_store_seterr(&g->base, "%s: %s: %s", g->base.name, what, line);
    g->notice[0] = 0;
    PQclear(res);
    return NULL;
}

PGresult *nf_pg_query(struct nf_pg *g, const char *what, const char *sql, const struct nf_pgp *p)
{
    g->notice[0] = 0;
    PGresult *res = PQexecParams(g->conn, sql, p ? p->n : 0, NULL,
                                 p ? (const char *const *)p->v : NULL, NULL, NULL, 0);
    return check(g, res, what);
}

static PGresult *prepared(struct nf_pg *g, unsigned prep, const char *name, const char *what,
                          const char *sql, const struct nf_pgp *p, int format)
{
    g->notice[0] = 0;
    if (!(g->prepared & prep)) {
        PGresult *res = check(g, PQprepare(g->conn, name, sql, 0, NULL), what);
        if (!res)
            return NULL;
        PQclear(res);
        g->prepared |= prep;
    }
    PGresult *res = PQexecPrepared(g->conn, name, p ? p->n : 0,
                                   p ? (const char *const *)p->v : NULL, NULL, NULL, format);
    return check(g, res, what);
}

PGresult *nf_pg_prepared(struct nf_pg *g, unsigned prep, const char *name, const char *what,
                         const char *sql, const struct nf_pgp *p)
{
    return prepared(g, prep, name, what, sql, p, 0);
}

PGresult *nf_pg_prepared_bin(struct nf_pg *g, unsigned prep, const char *name, const char *what,
                             const char *sql, const struct nf_pgp *p)
{
    return prepared(g, prep, name, what, sql, p, 1);
}

int64_t nf_pg_int8(const char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | (unsigned char)p[i];
    return (int64_t)v;
}

static int32_t int4(const char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 8 | (unsigned char)p[i];
    return (int32_t)v;
}

double nf_pg_float8(const char *p)
{
    uint64_t v = (uint64_t)nf_pg_int8(p);
    double d;
    memcpy(&d, &v, sizeof(d));
    return d;
}

long nf_arr_parse_doubles_bin(const char *data, size_t len, double **vals, unsigned char **isnull)
{
    /* ndim, has-nulls flag, element type; per dimension its size and lower
     * bound; then per element its length (-1: NULL) and its bytes. */
    *vals = NULL;
    *isnull = NULL;
    if (len < 12)
        return -1;
    int32_t ndim = int4(data), type = int4(data + 8);
    if (ndim == 0)
        return 0;
    if (ndim != 1 || len < 20 || (type != 701 && type != 23)) /* float8, int4 */
        return -1;
    int32_t size = type == 701 ? 8 : 4;
    int32_t n = int4(data + 12);
    if (n < 0 || (size_t)n > (len - 20) / 4)
        return -1;
    *vals = nf_xmalloc((size_t)(n ? n : 1) * sizeof(double));
    *isnull = nf_xcalloc((size_t)(n ? n : 1), 1);
    const char *p = data + 20, *end = data + len;
    for (int32_t i = 0; i < n; i++) {
        if (end - p < 4)
            goto bad;
        int32_t el = int4(p);
        p += 4;
        if (el == -1) {
            (*vals)[i] = NAN;
            (*isnull)[i] = 1;
            continue;
        }
        if (el != size || end - p < size)
            goto bad;
        (*vals)[i] = size == 8 ? nf_pg_float8(p) : (double)int4(p);
        p += size;
    }
    return n;
bad:
    free(*vals);
    free(*isnull);
    *vals = NULL;
    *isnull = NULL;
    return -1;
}

int nf_pg_exec(struct nf_pg *g, const char *what, const char *sql, const struct nf_pgp *p)
{
    PGresult *res = nf_pg_query(g, what, sql, p);
    PQclear(res);
    return res ? 0 : -1;
}

int nf_pg_begin(struct nf_pg *g)
{
    return nf_pg_exec(g, "cannot begin a transaction", "BEGIN", NULL);
}

int nf_pg_commit(struct nf_pg *g)
{
    return nf_pg_exec(g, "cannot commit", "COMMIT", NULL);
}

void nf_pg_rollback(struct nf_pg *g)
{
    if (PQtransactionStatus(g->conn) != PQTRANS_IDLE)
        PQclear(PQexec(g->conn, "ROLLBACK"));
}
