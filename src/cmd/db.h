#ifndef NF_CMD_DB_H
#define NF_CMD_DB_H

#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>

#include "store/store.h"

/* Open nf_g.db (create: for writers); on failure one line and *rc = 1. */
struct nf_store *nf_cmd_open_store(const char *cmd, int create, int *rc);
/* The words of a command as one line, for people: a word with a blank,
 * quote or backslash in it is shown in single quotes.  malloc'd. */
char *nf_cmd_words(char *const *words, size_t n);

/* A positive run id, or one line and -1. */
int nf_cmd_parse_id(const char *cmd, const char *s, int64_t *id);
/* 0 when every label (and the workload) has runs; else one line and the
 * exit code (2: unknown label or workload). */
int nf_cmd_check_labels(const char *cmd, struct nf_store *s, const char *const *labels, size_t n,
                        const char *workload);

/* Which runs list and export take: -L/--label (repeatable), -w/--workload. */
#define NF_SEL_MAX_LABELS 64
struct nf_cmd_selection {
    const char *labels[NF_SEL_MAX_LABELS];
    size_t nlabels;
    const char *workload;
};
#define NF_SEL_LONGOPTS                                                                            \
    {"label", required_argument, 0, 'L'},                                                          \
    {                                                                                              \
        "workload", required_argument, 0, 'w'                                                      \
    }
#define NF_SEL_SHORTOPTS "L:w:"
/* Take option c if it is -L or -w: 1 taken, 0 not ours, -1 too many
 * labels (one line printed). */
int nf_cmd_selection_option(const char *cmd, int c, const char *arg, struct nf_cmd_selection *sel);

#endif
