/* The SQLite backend, profiles: one profiles row per profiled run (event, freq,
 * lost records), its symbols in profile_symbols and each repetition's in
 * profile_rep_symbols.  Deleting a run deletes its profile (ON DELETE
 * CASCADE). */
#include "store/sqlite_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

int nf_sq_add_profile(struct nf_store *s, int64_t run_id, const struct nf_profile *p)
{
    struct nf_sqlite *q = nf_sq(s);
    sqlite3_stmt *head = NULL, *sym = NULL, *rsym = NULL;
    if (nf_sq_begin(q))
        return -1;
    if (sqlite3_prepare_v2(q->db,
                           "INSERT INTO profiles (run_id, event, freq, lost) "
                           "VALUES (?,?,?,?)",
                           -1, &head, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(q->db,
                           "INSERT INTO profile_symbols (run_id, symbol, dso, samples, "
                           "period) VALUES (?,?,?,?,?)",
                           -1, &sym, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(q->db,
                           "INSERT INTO profile_rep_symbols (run_id, rep, symbol, dso, "
                           "samples, period) VALUES (?,?,?,?,?,?)",
                           -1, &rsym, NULL) != SQLITE_OK) {
        nf_sq_dberr(q, "cannot store the profile");
        goto fail;
    }
    sqlite3_bind_int64(head, 1, run_id);
    sqlite3_bind_text(head, 2, p->event ? p->event : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(head, 3, p->freq);
    sqlite3_bind_int64(head, 4, (sqlite3_int64)p->lost);
    if (sqlite3_step(head) != SQLITE_DONE) {
        nf_sq_dberr(q, "cannot store the profile");
        goto fail;
    }
    for (size_t i = 0; i < p->n; i++) {
        const struct nf_prof_entry *e = &p->e[i];
        sqlite3_reset(sym);
        sqlite3_bind_int64(sym, 1, run_id);
        sqlite3_bind_text(sym, 2, e->symbol, -1, SQLITE_STATIC);
        sqlite3_bind_text(sym, 3, e->dso, -1, SQLITE_STATIC);
        sqlite3_bind_int64(sym, 4, (sqlite3_int64)e->samples);
        sqlite3_bind_int64(sym, 5, (sqlite3_int64)e->period);
        if (sqlite3_step(sym) != SQLITE_DONE) {
            nf_sq_dberr(q, "cannot store the profile");
            goto fail;
        }
    }
    for (size_t r = 0; r < p->nreps; r++)
        for (size_t i = 0; i < p->reps[r].n; i++) {
            const struct nf_prof_entry *e = &p->reps[r].e[i];
            sqlite3_reset(rsym);
            sqlite3_bind_int64(rsym, 1, run_id);
            sqlite3_bind_int64(rsym, 2, (sqlite3_int64)r);
            sqlite3_bind_text(rsym, 3, e->symbol, -1, SQLITE_STATIC);
            sqlite3_bind_text(rsym, 4, e->dso, -1, SQLITE_STATIC);
            sqlite3_bind_int64(rsym, 5, (sqlite3_int64)e->samples);
            sqlite3_bind_int64(rsym, 6, (sqlite3_int64)e->period);
            if (sqlite3_step(rsym) != SQLITE_DONE) {
                nf_sq_dberr(q, "cannot store the profile");
                goto fail;
            }
        }
    sqlite3_finalize(head);
    sqlite3_finalize(sym);
    sqlite3_finalize(rsym);
    return nf_sq_commit(q) ? (nf_sq_rollback(q), -1) : 0;
fail:
    sqlite3_finalize(head);
    sqlite3_finalize(sym);
    sqlite3_finalize(rsym);
    nf_sq_rollback(q);
    return -1;
}

/* Add the profiles of the runs selected by where (bound to one parameter,
 * text or integer) to out.  Returns the number of profiled runs, or -1. */
static long load_where(struct nf_sqlite *q, const char *where, const char *text, int64_t id,
                       struct nf_profile *out)
{
    char *qh = nf_xasprintf("SELECT p.event, p.freq, p.lost FROM profiles p JOIN runs r "
                            "ON r.id = p.run_id WHERE %s ORDER BY r.id",
                            where);
    char *qs = nf_xasprintf("SELECT ps.symbol, ps.dso, ps.samples, ps.period FROM "
                            "profile_symbols ps JOIN runs r ON r.id = ps.run_id WHERE %s",
                            where);
    char *qr = nf_xasprintf("SELECT rs.run_id, rs.rep, rs.symbol, rs.dso, rs.samples, rs.period "
                            "FROM profile_rep_symbols rs JOIN runs r ON r.id = rs.run_id "
                            "WHERE %s ORDER BY rs.run_id, rs.rep",
                            where);
    sqlite3_stmt *head = NULL, *sym = NULL, *rsym = NULL;
    long runs = -1;
    if (sqlite3_prepare_v2(q->db, qh, -1, &head, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(q->db, qs, -1, &sym, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(q->db, qr, -1, &rsym, NULL) != SQLITE_OK) {
        nf_sq_dberr(q, "cannot read profiles");
        goto out;
    }
    if (text) {
        sqlite3_bind_text(head, 1, text, -1, SQLITE_STATIC);
        sqlite3_bind_text(sym, 1, text, -1, SQLITE_STATIC);
        sqlite3_bind_text(rsym, 1, text, -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_int64(head, 1, id);
        sqlite3_bind_int64(sym, 1, id);
        sqlite3_bind_int64(rsym, 1, id);
    }
    long n = 0;
    int rc;
    while ((rc = sqlite3_step(head)) == SQLITE_ROW) {
        const char *ev = (const char *)sqlite3_column_text(head, 0);
        nf_profile_add_event(out, ev ? ev : "");
        if (!out->freq)
            out->freq = (unsigned)sqlite3_column_int64(head, 1);
        out->lost += (uint64_t)sqlite3_column_int64(head, 2);
        n++;
    }
    if (rc != SQLITE_DONE) {
        nf_sq_dberr(q, "cannot read profiles");
        goto out;
    }
    while ((rc = sqlite3_step(sym)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(sym, 0);
        const char *dso = (const char *)sqlite3_column_text(sym, 1);
        nf_profile_add(out, name ? name : "", dso ? dso : "",
                       (uint64_t)sqlite3_column_int64(sym, 2),
                       (uint64_t)sqlite3_column_int64(sym, 3));
    }
    if (rc != SQLITE_DONE) {
        nf_sq_dberr(q, "cannot read profiles");
        goto out;
    }
    /* each (run, rep) one repetition, in order */
    struct nf_profile *rep = NULL;
    int64_t last_run = -1, last_rep = -1;
    while ((rc = sqlite3_step(rsym)) == SQLITE_ROW) {
        int64_t run = sqlite3_column_int64(rsym, 0), r = sqlite3_column_int64(rsym, 1);
        if (!rep || run != last_run || r != last_rep)
            rep = nf_profile_add_rep(out);
        last_run = run;
        last_rep = r;
        const char *name = (const char *)sqlite3_column_text(rsym, 2);
        const char *dso = (const char *)sqlite3_column_text(rsym, 3);
        nf_profile_add(rep, name ? name : "", dso ? dso : "",
                       (uint64_t)sqlite3_column_int64(rsym, 4),
                       (uint64_t)sqlite3_column_int64(rsym, 5));
    }
    if (rc != SQLITE_DONE) {
        nf_sq_dberr(q, "cannot read profiles");
        goto out;
    }
    runs = n;
out:
    sqlite3_finalize(head);
    sqlite3_finalize(sym);
    sqlite3_finalize(rsym);
    free(qh);
    free(qs);
    free(qr);
    return runs;
}

long nf_sq_load_profiles(struct nf_store *s, int64_t run_id, const char *label,
                         struct nf_profile *out)
{
    if (label)
        return load_where(nf_sq(s), "r.label = ?", label, 0, out);
    return load_where(nf_sq(s), "r.id = ?", NULL, run_id, out);
}
