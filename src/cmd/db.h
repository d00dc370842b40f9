#ifndef NF_CMD_DB_H
#define NF_CMD_DB_H

#include <stdint.h>
#include <stdlib.h>

#include "core/options.h"
#include "store/store.h"

/* How a command uses the store: only reads it (also where it cannot be
 * written: a read-only mount, a full disk), creates it when missing (run,
 * import), or writes an existing one (rm). */
enum { NF_CMD_READ = 0, NF_CMD_CREATE = 1, NF_CMD_WRITE = 2 };
/* Open nf_g.db for use (NF_CMD_*); on failure one line and *rc: 2 when
 * the store does not exist (NF_STORE_NOTFOUND), else 1. */
struct nf_store *nf_cmd_open_store(const char *cmd, int use, int *rc);
/* A --db that names no store that would keep anything: "" (nothing),
 * ":memory:", or a name SQLite would take as a URI ("file:..."; "./file:x"
 * is the file).
 * 0, or -1 with one line in err (a usage error). */
int nf_cmd_check_db(const char *db, char *err, size_t errlen);
/* The words of a command as one line, for people: a word with a blank,
 * quote or backslash in it is shown in single quotes.  malloc'd. */
char *nf_cmd_words(char *const *words, size_t n);

/* A positive run id, or one line and -1. */
int nf_cmd_parse_id(const char *cmd, const char *s, int64_t *id);
/* Run id as stored; hists: with its latency histograms, as the run JSON
 * of run --json, show --json and export has them (doc/noisefloor.1,
 * JSON).  0 with *run (free with nf_run_free), else nf_store_load_run's
 * code (NF_STORE_NOTFOUND, -1) with nf_store_error saying why. */
int nf_cmd_load_run(struct nf_store *s, int64_t id, int hists, struct nf_run **run);
/* 0 when every label (and the workload) has runs; else one line and the
 * exit code (2: unknown label or workload). */
/* Warn when label already has runs in the store that compare counts (not
 * superseded): compare pools them with the runs about to be made under it. */
void nf_cmd_warn_pooled(const char *cmd, struct nf_store *st, const char *label);

int nf_cmd_check_labels(const char *cmd, struct nf_store *s, const char *const *labels, size_t n,
                        const char *workload);

/* Which runs list and export take: -L/--label (repeatable), -w/--workload;
 * nf_cmd_selection_options over this struct. */
#define NF_SEL_MAX_LABELS 64
struct nf_cmd_selection {
    struct nf_optlist labels; /* free with nf_optlist_free */
    const char *workload;
};
extern const struct nf_opts nf_cmd_selection_options;
/* The runs of a selection, as list and export print them: no words after
 * the options (argv[first..]), the store read, every label and the
 * workload of sel known to it; hists: with their latency histograms
 * (nf_store_load_hists).  NF_EXIT_OK with *runs and *n (free with
 * nf_runs_free), or the exit code after one line on stderr. */
int nf_cmd_selected_runs(const char *cmd, const struct nf_cmd_selection *sel, int hists, int argc,
                         char **argv, int first, struct nf_run ***runs, size_t *n);

#endif
