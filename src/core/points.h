/* The runs of `history` as flat records: per run one small struct (id,
 * label, start, host, commit, status, configuration) and per run and metric
 * one point (name, unit, direction, the summary of its values), their
 * strings in one pool, each distinct one kept once.  What the store's point
 * loader gives (store.h, nf_store_load_points) in place of a struct nf_run
 * with its environment and metrics per run: loading 10,000 runs must cost
 * little beside the change-point statistics (doc/statistics.md,
 * "Cost and appending a run").  Uses core/run.h only. */
#ifndef NF_CORE_POINTS_H
#define NF_CORE_POINTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/run.h"

/* One configuration: a workload with its arguments as stored, and the
 * words that tell it apart (compare's key; NULL: the arguments). */
struct nf_pcfg {
    const char *workload;
    const char *args_text; /* the arguments as the store holds them (a JSON array), or "" */
    char **args;
    size_t nargs;
    char **key;
    size_t nkey;
};

struct nf_prun {
    int64_t id;
    size_t cfg; /* into cfgs */
    const char *label, *started;
    const char *host;              /* "" when the environment records none */
    const char *commit, *describe; /* the environment's commit and git_describe, or NULL */
    enum nf_run_status state;
    size_t first, npts; /* its points, pts[first..first+npts) */
};

struct nf_point {
    size_t run; /* into runs */
    const char *metric, *unit;
    enum nf_better better;
    int primary; /* the run's primary metric, as nf_run_primary picks it */
    int supported;
    struct nf_metric_summary sum;
};

struct nf_pool_chunk;

struct nf_points {
    struct nf_prun *runs;
    size_t nruns, rcap;
    struct nf_point *pts;
    size_t npts, pcap;
    struct nf_pcfg *cfgs;
    size_t ncfgs, ccap;
    /* the pool: chunks, and an open-addressed table of the interned strings */
    struct nf_pool_chunk *chunk;
    const char **slots;
    size_t nslots, used;
    size_t *cfg_slots; /* cfg index + 1 by hash of (workload, args_text) */
    size_t ncfg_slots;
};

void nf_points_init(struct nf_points *p);
void nf_points_free(struct nf_points *p);

/* s kept once in the pool (NULL stays NULL). */
const char *nf_points_intern(struct nf_points *p, const char *s);
/* s copied into the pool, not looked up (a run's own start, commit). */
const char *nf_points_copy(struct nf_points *p, const char *s);

/* The configuration of (workload, args_text): found, or added with the
 * words parsed from args_text (a JSON array of strings; NULL, "" or "[]":
 * none).  Its index. */
size_t nf_points_cfg(struct nf_points *p, const char *workload, const char *args_text);

/* A run (its points follow with nf_points_metric; close it with
 * nf_points_end_run).  Strings are taken into the pool.  Its index. */
size_t nf_points_run(struct nf_points *p, int64_t id, size_t cfg, const char *label,
                     const char *started, const char *host, const char *commit,
                     const char *describe, enum nf_run_status state);
/* A metric of the last run (a primary flag as stored: nf_points_end_run
 * decides). */
struct nf_point *nf_points_metric(struct nf_points *p, const char *name, const char *unit,
                                  enum nf_better better, int primary, int supported);
/* The last run is whole: its primary metric marked as nf_run_primary
 * picks it (the first flagged, else the first supported). */
void nf_points_end_run(struct nf_points *p);
/* Drop the last run and its points (one the loader reads another way). */
void nf_points_drop_run(struct nf_points *p);

/* A loaded run as its record and points: hostname, commit and
 * git_describe from its environment, each metric's summary
 * (nf_metric_summary_of), its key as its configuration's. */
void nf_points_add_run(struct nf_points *p, const struct nf_run *run);

#endif
