/* What analysis/history.c orders its runs and groups its series by: a
 * string's place in an order (labels, commits), the words of a
 * configuration, and the keys of the series of a selection.  Internal to
 * history.c; uses core/ only. */
#ifndef NF_ANALYSIS_HIST_KEYS_H
#define NF_ANALYSIS_HIST_KEYS_H

#include <stddef.h>

#include "core/points.h"

struct nf_hist_rank {
    const char *s;
    size_t rank;
};

/* The series keys of a selection: one per (configuration, metric, host)
 * met (the pool keeps each metric and host once, so their pointers tell
 * them apart), each key's text made once, and their places in the order of
 * those texts (equal texts, one place) for the entries to sort by. */
struct nf_hist_group {
    size_t cfg;
    const char *metric, *host;
    char *text;
    size_t place;
};

struct nf_hist_groups {
    struct nf_hist_group *g;
    size_t n, cap;
    size_t *slot, nslot; /* index + 1, open addressing */
};

/* Sort t by string; of equal strings keep the smallest rank.  How many remain. */
size_t nf_hist_rank_table(struct nf_hist_rank *t, size_t n);
/* The place of s in t, or SIZE_MAX. */
size_t nf_hist_rank_of(const struct nf_hist_rank *t, size_t n, const char *s);

/* The words that tell c apart: its key, else its arguments. */
char *const *nf_hist_key_words(const struct nf_pcfg *c, size_t *n);
/* Words joined by blanks (malloc'd). */
char *nf_hist_words_text(char *const *w, size_t n);
/* Per configuration of p its words as one text (each malloc'd, and the array). */
char **nf_hist_cfg_texts(const struct nf_points *p);

/* The group of (run's configuration, metric, run's host) in t, added when new. */
size_t nf_hist_group_of(struct nf_hist_groups *t, const struct nf_points *p, char *const *texts,
                        const struct nf_prun *run, const char *metric);
/* Each group's place in the order of the texts (equal texts, one place). */
void nf_hist_groups_place(struct nf_hist_groups *t);
void nf_hist_groups_free(struct nf_hist_groups *t);

#endif
