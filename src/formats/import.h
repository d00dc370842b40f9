/* Importers: text other tools write (and noisefloor's own export) turned
 * into runs.  Pure parsing, no database: the caller stores the runs with
 * nf_store_insert_runs, in one transaction.  Malformed input gives one line
 * "FILE:LINE: expected ..." and no runs. */
#ifndef NF_FORMATS_IMPORT_H
#define NF_FORMATS_IMPORT_H

#include <stddef.h>

#include "core/run.h"

/* What a parse that succeeded has to say besides the runs: one line each,
 * without a prefix, for the caller to print (as warnings). */
struct nf_import_warnings {
    char **v;
    size_t n;
};
void nf_import_warnings_free(struct nf_import_warnings *w);

struct nf_import_opts {
    const char *format;        /* see nf_import_formats */
    const char *name;          /* file name, for messages and notes */
    const char *const *labels; /* --label: one, or (hyperfine-json, json) one per run */
    size_t nlabels;
    const char *workload;  /* NULL: the format's default */
    const char *metric;    /* values: metric name (default "value") */
    const char *unit;      /* values: unit (default "") */
    enum nf_better better; /* values: lower (default) or higher */
    /* Out: the warnings of a parse that succeeded are added here (free
     * with nf_import_warnings_free, also after a failure); NULL: none
     * are kept. */
    struct nf_import_warnings *warnings;
};

/* "values, perf-stat, perf-stat-csv, perf-stat-json, hyperfine-json, json" */
extern const char nf_import_formats[];
int nf_import_format_known(const char *format);
/* Whether the format needs exactly one --label (values, perf-stat-*). */
int nf_import_needs_label(const char *format);

/* Parse len bytes (need not be NUL-terminated).  0 and *runs (free with
 * nf_runs_free) on success; -1 with one line in err otherwise. */
int nf_import_parse(const char *buf, size_t len, const struct nf_import_opts *o,
                    struct nf_run ***runs, size_t *n, char *err, size_t errlen);

#endif
