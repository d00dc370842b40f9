/* The statistics options compare, ab and report share: --alpha,
 * --threshold, --test, --decile, --seed; one table, one text, one set of
 * limits. */
#ifndef NF_CMD_CMP_OPTS_H
#define NF_CMD_CMP_OPTS_H

#include "analysis/compare.h"
#include "core/options.h"
#include "store/store.h"
#include "stats/verdict.h"

/* --alpha, --threshold, --test, --decile over struct nf_cmp_opts (include them at
 * the offset of the command's struct nf_cmp_opts).  --seed stands apart:
 * ab has one of its own (the order of the rounds, and the bootstrap's). */
extern const struct nf_opts nf_cmd_cmp_options;
extern const struct nf_opts nf_cmd_cmp_seed_options;

/* --format of compare and ab: the text tables, or the mail form
 * (report/compare.h, nf_compare_mail). */
enum nf_cmd_format { NF_CMD_FORMAT_TEXT, NF_CMD_FORMAT_MAIL };
extern const struct nf_opt_choice nf_cmd_formats[];

/* The defaults of the two tables' rows (NF_DEF): alpha NF_DEFAULT_ALPHA,
 * threshold NF_DEFAULT_THRESHOLD_PCT, Welch, seed 1, decile 1. */
struct nf_cmp_opts nf_cmp_defaults(void);

/* The labels of a comparison, each with every stored run it counts: the
 * baseline (-b) first, then argv[first..] in the order given; apart[l]:
 * label l's superseded runs (nf_label_runs_set_apart), for
 * nf_compare_note_set_apart.  0, or the exit code after one line (2: a
 * label given twice, fewer than two, without runs, or with superseded runs
 * only).  `need` completes "give at least two labels (a baseline and a
 * variant)".  Each run of a built-in workload gets its key
 * (nf_workload_key_runs). */
int nf_cmd_load_labels(const char *cmd, struct nf_store *st, const char *baseline,
                       const char *workload, int argc, char **argv, int first, const char *need,
                       struct nf_label_runs **in, struct nf_label_runs **apart, size_t *nin);
void nf_cmd_free_labels(struct nf_label_runs *in, struct nf_label_runs *apart, size_t n);

#endif
