/* libpq, loaded when a PostgreSQL store is first named, not at start-up.
 *
 * Linked like the other libraries, libpq brings some twenty more (TLS,
 * Kerberos, LDAP) into every noisefloor process, whichever store it uses:
 * their constructors made each start-up about 4 ms dearer, and their
 * mappings (some 100 more areas) made every fork of a process of ours
 * dearer too, which a workload that forks hundreds of tasks (messaging)
 * measures as its own time.  So the backend calls libpq through this
 * table, filled by nf_pq_load from $NOISEFLOOR_LIBPQ or libpq.so.5.
 *
 * Include this instead of <libpq-fe.h>: after it, PQexec(...) and the
 * other functions used go through the table, unchanged in the source. */
#ifndef NF_STORE_PQ_H
#define NF_STORE_PQ_H

#include <libpq-fe.h>
#include <stddef.h>

#define NF_PQ_FUNCS(X)                                                                             \
    X(PQclear)                                                                                     \
    X(PQcmdTuples)                                                                                 \
    X(PQconndefaults)                                                                              \
    X(PQconnectdbParams)                                                                           \
    X(PQconninfoFree)                                                                              \
    X(PQconninfoParse)                                                                             \
    X(PQerrorMessage)                                                                              \
    X(PQexec)                                                                                      \
    X(PQexecParams)                                                                                \
    X(PQexecPrepared)                                                                              \
    X(PQfinish)                                                                                    \
    X(PQfreemem)                                                                                   \
    X(PQgetisnull)                                                                                 \
    X(PQgetlength)                                                                                 \
    X(PQgetvalue)                                                                                  \
    X(PQntuples)                                                                                   \
    X(PQprepare)                                                                                   \
    X(PQreset)                                                                                     \
    X(PQresultErrorField)                                                                          \
    X(PQresultStatus)                                                                              \
    X(PQserverVersion)                                                                             \
    X(PQsetNoticeProcessor)                                                                        \
    X(PQstatus)                                                                                    \
    X(PQtransactionStatus)

struct nf_pq_api {
#define NF_PQ_FIELD(f) __typeof__(f) *f;
    NF_PQ_FUNCS(NF_PQ_FIELD)
#undef NF_PQ_FIELD
};
extern struct nf_pq_api nf_pq;

/* Load libpq once: 0, or -1 with one line in err ("cannot load libpq
 * (libpq.so.5): ..."). */
int nf_pq_load(char *err, size_t errlen);

#ifndef NF_PQ_NO_REDIRECT
#define PQclear (nf_pq.PQclear)
#define PQcmdTuples (nf_pq.PQcmdTuples)
#define PQconndefaults (nf_pq.PQconndefaults)
#define PQconnectdbParams (nf_pq.PQconnectdbParams)
#define PQconninfoFree (nf_pq.PQconninfoFree)
#define PQconninfoParse (nf_pq.PQconninfoParse)
#define PQerrorMessage (nf_pq.PQerrorMessage)
#define PQexec (nf_pq.PQexec)
#define PQexecParams (nf_pq.PQexecParams)
#define PQexecPrepared (nf_pq.PQexecPrepared)
#define PQfinish (nf_pq.PQfinish)
#define PQfreemem (nf_pq.PQfreemem)
#define PQgetisnull (nf_pq.PQgetisnull)
#define PQgetlength (nf_pq.PQgetlength)
#define PQgetvalue (nf_pq.PQgetvalue)
#define PQntuples (nf_pq.PQntuples)
#define PQprepare (nf_pq.PQprepare)
#define PQreset (nf_pq.PQreset)
#define PQresultErrorField (nf_pq.PQresultErrorField)
#define PQresultStatus (nf_pq.PQresultStatus)
#define PQserverVersion (nf_pq.PQserverVersion)
#define PQsetNoticeProcessor (nf_pq.PQsetNoticeProcessor)
#define PQstatus (nf_pq.PQstatus)
#define PQtransactionStatus (nf_pq.PQtransactionStatus)
#endif

#endif
