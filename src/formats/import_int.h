/* Helpers shared by the importers (import_util.c) and the parsers each
 * format has (import.c dispatches to them). */
#ifndef NF_FORMATS_IMPORT_INT_H
#define NF_FORMATS_IMPORT_INT_H

#include <stddef.h>

#include "formats/import.h"

/* Lines of a buffer; a final line without '\n' counts; "\r\n" is accepted. */
struct nf_lines {
    const char *p, *end;
    size_t lineno; /* of the line last returned */
};
void nf_lines_init(struct nf_lines *l, const char *buf, size_t len);
/* 1 and the line (without its end) when there is one, 0 at the end. */
int nf_lines_next(struct nf_lines *l, const char **s, size_t *len);

/* "NAME:LINE: <message>" into err; returns -1. */
int nf_import_fail(char *err, size_t errlen, const char *name, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A decimal number filling all of [s, s+len) exactly, of any length;
 * finite (an underflow is the nearest double). 0 on success. */
int nf_import_number(const char *s, size_t len, double *out);
/* The line of element k of the array under key `key` in the top-level
 * object (key NULL: the top-level value itself); 1 when not found. */
size_t nf_json_elem_line(const char *buf, size_t len, const char *key, size_t k);

/* The run every importer starts from: label, workload, note, import time. */
struct nf_run *nf_import_new_run(const struct nf_import_opts *o, size_t k, const char *label,
                                 const char *default_workload);
/* Add one line to o->warnings (when the caller keeps them). */
void nf_import_warn(const struct nf_import_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append a run to a growing array. */
void nf_import_push(struct nf_run ***runs, size_t *n, struct nf_run *run);

int nf_import_values(const char *buf, size_t len, const struct nf_import_opts *o,
                     struct nf_run ***runs, size_t *n, char *err, size_t errlen);
int nf_import_json(const char *buf, size_t len, const struct nf_import_opts *o,
                   struct nf_run ***runs, size_t *n, char *err, size_t errlen);
int nf_import_perf_csv(const char *buf, size_t len, const struct nf_import_opts *o,
                       struct nf_run ***runs, size_t *n, char *err, size_t errlen);
int nf_import_perf_text(const char *buf, size_t len, const struct nf_import_opts *o,
                        struct nf_run ***runs, size_t *n, char *err, size_t errlen);
int nf_import_perf_json(const char *buf, size_t len, const struct nf_import_opts *o,
                        struct nf_run ***runs, size_t *n, char *err, size_t errlen);
int nf_import_hyperfine(const char *buf, size_t len, const struct nf_import_opts *o,
                        struct nf_run ***runs, size_t *n, char *err, size_t errlen);

#endif
