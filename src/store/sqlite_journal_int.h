/* The journal's file as its two sides read it, private to them: its
 * writer (sqlite_journal.c, which has the layout) and its recovery
 * (sqlite_journal_recover.c).  The rest of the backend sees the journal
 * through sqlite_int.h. */
#ifndef NF_STORE_SQLITE_JOURNAL_INT_H
#define NF_STORE_SQLITE_JOURNAL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "store/sqlite_int.h"

/* The header's size and magic, the size of a record's fields before its
 * bytes, the file's size. */
#define NF_SQ_JOURNAL_HDR 64
#define NF_SQ_JOURNAL_REC 32
#define NF_SQ_JOURNAL_SIZE (1u << 20)
extern const char nf_sq_journal_magic[8];
/* The u64 and the u32 at p, in the host's byte order, unaligned. */
uint64_t nf_sq_get64(const unsigned char *p);
uint32_t nf_sq_get32(const unsigned char *p);
/* The record at off in a journal of size bytes under generation gen: its
 * length, or 0 when it does not count. */
size_t nf_sq_record_at(const unsigned char *map, size_t size, size_t off, uint64_t gen);
/* A journal opened to read, never through a symlink nor waiting (a FIFO
 * planted at its name): an fd, or -1.  The caller then takes only a
 * regular file of ours. */
int nf_sq_open_journal(const char *path);
/* Whether the writer of the journal open at fd lives: 1 (it holds its
 * lock), 0 (the lock could be taken: it is gone), -1 (cannot tell). */
int nf_sq_writer_lives(int fd);
/* The records [from, to) of a journal mapped at map into the samples
 * table, in the caller's transaction (sqlite_journal.c). */
int nf_sq_insert_records(struct nf_sqlite *q, const unsigned char *map, size_t size, size_t from,
                         size_t to, uint64_t gen, int64_t run_id);

#endif
