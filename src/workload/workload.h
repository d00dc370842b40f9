/* One interface for every built-in workload.
 *
 * The runner forks a fresh child for each repetition; the child calls
 * run_once(), which does the work, times the part that matters (setup
 * excluded) and fills one value per declared metric.  So the harness never
 * sits inside the timed window, and a workload that crashes takes only its
 * own child down. */
#ifndef NF_WORKLOAD_H
#define NF_WORKLOAD_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "core/metric.h"
#include "core/options.h"

#define NF_MAX_METRICS 32

struct nf_hist;

struct nf_metric_decl {
    char name[48];
    char unit[24];
    enum nf_better better;
    int primary;
};

struct nf_workload {
    const char *name;
    const char *summary; /* one line for --help */
    /* Its option table, over its cfg struct: `run WORKLOAD --help` prints
     * it, and parse normally hands it to nf_workload_parse_opts(). */
    const struct nf_opts *opts;
    /* Parse the workload's own options (argv[0] is the workload name).
     * On error writes one line to err and returns -1. */
    int (*parse)(int argc, char **argv, void **cfg, char *err, size_t errlen);
    /* Metrics in output order; returns how many (<= NF_MAX_METRICS). */
    size_t (*metrics)(const void *cfg, struct nf_metric_decl *out);
    /* One repetition, in the child.  values[i] for metric i.  Returns 0, or
     * -1 with one line in err. */
    int (*run_once)(const void *cfg, double *values, char *err, size_t errlen);
    void (*free_cfg)(void *cfg);
    /* A latency workload (wakeup, timer) also hands back the distribution
     * its percentile metrics HIST-pN came from: run_hist is run_once that
     * also leaves the repetition's histogram (stats/hist.h, nanoseconds)
     * in *h, zeroed by the caller.  The runner stores its non-zero buckets
     * with the repetition.  Both NULL for the other workloads. */
    const char *hist;
    int (*run_hist)(const void *cfg, double *values, struct nf_hist *h, char *err, size_t errlen);
    /* Optional (NULL: nothing): add the workload's own keys to its run's
     * environment snapshot (a JSON object), in the parent at the run's
     * start: how a repetition will be set up beyond its options. */
    void (*env)(const void *cfg, json_t *env);
    /* Optional (NULL: cannot say): about how many seconds one repetition
     * takes, from the options alone (netsend: its sizes times -d), for the
     * progress line's first estimate (measure/progress.h). */
    double (*expected_seconds)(const void *cfg);
};

/* The usual parse: a cfg of `size` bytes starting as a copy of `defaults`
 * with the table's own defaults (NF_DEF, nf_opts_defaults) stored over it,
 * the words (argv[0] is the workload's name) parsed with wl->opts; a word
 * that is not an option is an error.  On success *cfg is the new cfg (freed
 * by free()); on error one line "NAME: ..." in err, -1, nothing allocated. */
int nf_workload_parse_opts(const struct nf_workload *wl, const void *defaults, size_t size,
                           int argc, char **argv, void **cfg, char *err, size_t errlen);

/* The arguments by which compare tells configurations of wl apart: the
 * words args (a run's stored words, after the workload's name) parsed by
 * wl->parse and written back by nf_opts_render against the cfg of no
 * words.  So `pipe -l 20000 -T`, `pipe -T -l 20000` and `pipe --loop=20000
 * --threaded` have one key, `-l 20000 -T`, and `pipe -l 1000000` the key
 * of `pipe`, no words.  0 with *key (NULL-terminated; nf_free_words) and
 * *nkey; -1 when the words do not parse (a run stored by a version with
 * an option since gone): then the words themselves are the key.  wl->parse
 * must do nothing but parse. */
int nf_workload_key(const struct nf_workload *wl, size_t nargs, char *const *args, char ***key,
                    size_t *nkey);
struct nf_run;
/* nf_run_set_key for every run of a built-in workload whose words parse;
 * the others (commands, imports of other tools) keep no key. */
void nf_workload_key_runs(struct nf_run *const *runs, size_t n);

/* The registry of built-in workloads (NULL-terminated). */
extern const struct nf_workload *const nf_workloads[];
const struct nf_workload *nf_workload_find(const char *name);

extern const struct nf_workload nf_workload_pipe;

#endif
