/* Internals shared by the store's files; not for other modules. */
#ifndef NF_STORE_INT_H
#define NF_STORE_INT_H

#include <sqlite3.h>
#include <stdarg.h>

#include "store/store.h"

struct nf_store {
    sqlite3 *db;
    char *path;
    int opened_version;
    char errmsg[512];
};

/* Set the store's message; returns -1 (or the given code via seterr_rc). */
int nf_store_seterr(struct nf_store *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "what: <sqlite message>"; returns -1. */
int nf_store_dberr(struct nf_store *s, const char *what);
/* Run SQL without results; -1 with the message set on failure. */
int nf_store_exec(struct nf_store *s, const char *sql);
/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. */
int nf_store_tx_begin(struct nf_store *s);
int nf_store_tx_commit(struct nf_store *s);
void nf_store_tx_rollback(struct nf_store *s);

#endif
