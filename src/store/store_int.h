/* Internals shared by the store's files; not for other modules. */
#ifndef NF_STORE_INT_H
#define NF_STORE_INT_H

#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>

#include "store/store.h"

struct nf_store {
    sqlite3 *db;
    char *path;
    int opened_version;
    char errmsg[512];
    /* Kept prepared across repetitions (finalized by nf_store_close). */
    sqlite3_stmt *begin, *commit, *upsert_metrics, *insert_sample;
    /* The metric rows as last written, for one run: a repetition rewrites
     * them only when a flag changed (the counters are opened by then). */
    int64_t metrics_run;
    size_t metrics_n;
    unsigned char *metrics_flags; /* supported | primary << 1, per metric */
};

/* The statement in *slot, prepared on first use; reset after each use. */
sqlite3_stmt *nf_store_cached(struct nf_store *s, sqlite3_stmt **slot, const char *sql);

/* Set the store's message; returns -1 (or the given code via seterr_rc). */
int nf_store_seterr(struct nf_store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "what: <sqlite message>"; returns -1. */
int nf_store_dberr(struct nf_store *s, const char *what);
/* Run SQL without results; -1 with the message set on failure. */
int nf_store_exec(struct nf_store *s, const char *sql);
/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. */
int nf_store_tx_begin(struct nf_store *s);
int nf_store_tx_commit(struct nf_store *s);
void nf_store_tx_rollback(struct nf_store *s);

#endif
