/* The in-memory form of one run: what was measured, how, and every sample.
 *
 * A run is one invocation of a workload (or command) repeated `repeat` times
 * under one label.  Each metric holds one value per repetition; counters that
 * the machine cannot count are kept as metrics with supported = 0 and no
 * values, never as zeros.  The store, the reports and the importers all speak
 * this one type. */
#ifndef NF_CORE_RUN_H
#define NF_CORE_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "core/metric.h"

/* What became of a run.  A run is "running" while its writer measures it;
 * the loaders report a running run whose writer is gone as "incomplete".
 * A run made for a job by an attempt that a later attempt has taken over
 * (its agent lost the lease or gave the job back) is "superseded", as the
 * loaders report it whatever it stored: it is not the job's result, and
 * compare and report leave it out (store/jobs.h). */
enum nf_run_status {
    NF_RUN_RUNNING,
    NF_RUN_COMPLETE,
    NF_RUN_INCOMPLETE,
    NF_RUN_INTERRUPTED, /* stopped by a signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) */
    NF_RUN_FAILED,
    NF_RUN_SUPERSEDED,
};

/* "running", "complete", "incomplete", "interrupted", "failed",
 * "superseded": the words stored, exported and shown. */
const char *nf_run_status_name(enum nf_run_status s);
/* One of those words; 0, or -1 for anything else. */
int nf_run_status_parse(const char *s, enum nf_run_status *out);

/* What a metric's values come to, as history reads them and the store
 * keeps them per run (store.h): their count, mean and sd (n - 1), and the
 * same of their reciprocals (a rate's tested scale) when every value is
 * above 0 (recip 1). */
struct nf_metric_summary {
    size_t n;
    double mean, sd;
    int recip;
    double rmean, rsd;
};

struct nf_metric {
    char *name; /* "usecs/op", "task-clock", "send-1024" */
    char *unit; /* "usecs/op", "msec", "Mbit/s", "" for counts */
    enum nf_better better;
    int primary;   /* the metric a run is summarised by */
    int supported; /* 0: "<not supported>" on this machine */
    /* With supported 0: the event was opened but did not count, perf
     * stat's <not counted> (nf_metric_not_counted); stored (schema 11),
     * exported as "not_counted". */
    int not_counted;
    double *values;      /* one per finished repetition */
    double *running_pct; /* per value: counter time_running/time_enabled
                            in percent; NULL when never multiplexed */
    size_t n, cap;
    /* summed: loaded as the store's summary of the values in place of them
     * (nf_store_filter.summaries; history needs no more): values stays
     * empty (n 0) and sum says what they were. */
    int summed;
    struct nf_metric_summary sum;
};

/* A latency workload's distribution of events (wakeup, timer): per
 * repetition, the non-zero buckets of its log-linear histogram
 * (stats/hist.h), each as the smallest value the bucket holds, in
 * nanoseconds, and the events in it; ascending by value.  The percentile
 * metrics NAME-pN of that repetition came from these buckets. */
struct nf_bucket {
    uint64_t lo, count;
};
struct nf_rep_hist {
    size_t rep; /* 0-based repetition, as a metric's values count them */
    struct nf_bucket *b;
    size_t n;
};
struct nf_run_hist {
    char *name;               /* the family: "wakeup" for wakeup-p99 */
    struct nf_rep_hist *reps; /* ascending rep */
    size_t nreps, cap;
};

struct nf_run {
    int64_t id; /* 0 until stored */
    char *label;
    char *workload; /* "pipe", "messaging", "command", ... */
    char **args;    /* the workload's words (argv after the name) */
    size_t nargs;
    /* The arguments compare tells configurations apart by, when they are
     * not the words themselves: a built-in workload's canonical words
     * (workload/parse.c: nf_workload_key), set when runs are read and
     * never stored.  NULL (a command's words, or words that no longer
     * parse): args is the key.  NULL-terminated; nf_run_set_key. */
    char **key;
    size_t nkey;
    char started[32]; /* ISO 8601 UTC */
    int repeat, warmup;
    enum nf_run_status state;
    int writing;        /* as loaded: its writer is alive and may store more (a
                           "running" run, or a superseded one whose attempt is
                           still at work); set by the store's loaders, never stored */
    const char *status; /* nf_run_status_name(state), for the store's text
                           column; set only through the setters below */
    char *session;      /* ab session id, or NULL */
    char *note;
    json_t *env;               /* environment snapshot (object), or NULL */
    struct nf_metric *metrics; /* nf_run_new: room for NF_RUN_MAX_METRICS,
                                  allocated once: a metric pointer stays
                                  valid for the life of the run;
                                  nf_run_new_growing: grown as metrics are
                                  added (a pointer is valid until the next) */
    size_t nmetrics, mcap;     /* metrics held, and room */
    struct nf_run_hist *hists; /* latency distributions, or none (they are
                                  loaded only on request: nf_store_load_hists) */
    size_t nhists;
};

#define NF_RUN_MAX_METRICS 128
/* The environment key that says how the counters were counted: "interleaved"
 * when each repetition ran twice, uncounted then counted (run --interleave);
 * absent otherwise. */
#define NF_ENV_COUNTERS "counters"
/* The environment key that says how a built-in workload's rusage metrics
 * were counted: "from-go" from the moment the workload was told to go (its
 * image's start taken out, measure/runner.h); absent in runs recorded
 * before, which counted from the fork.  compare does not set the two side
 * by side (analysis/compare.c). */
#define NF_ENV_RUSAGE "rusage"
/* The environment key of a run made for a job (noisefloor agent):
 * "ID.ATTEMPT", as the agent gave it in NOISEFLOOR_JOB; absent otherwise.
 * A record for the reader: whether the run counts is the store's to say
 * (its status, from the job's row). */
#define NF_ENV_JOB "job"
/* The environment key of a timer run: whether each repetition held
 * /dev/cpu_dma_latency at 0 ("held at 0 us during each repetition"), or
 * why not ("not held: --default-system", "not held: PATH: REASON"). */
#define NF_ENV_DMA_LATENCY "cpu_dma_latency"
/* The environment key of a run imported from one `perf stat -r N` block
 * (formats/import_perf_text.c): {"runs": N, "sem_pct": {METRIC: x}}, the
 * block's "( +- x% )" per metric.  Its one value per metric is the mean of
 * N repetitions; compare's welch tests from these (analysis/compare.c). */
#define NF_ENV_PERF_REPEAT "perf_stat_repeat"
/* The largest run id a run may bring along (import): 2^53 - 1, exact as a
 * JSON number anywhere, and far enough below 2^63 that the ids a store
 * gives after it never run out. */
#define NF_RUN_ID_MAX 9007199254740991LL

/* A label as a user gives it (run -L, an ab variant's NAME, import -L):
 * not empty, UTF-8, and no control character (C0, DEL or C1: a newline
 * would break list's table and compare's columns).  0, or -1 with one line
 * in err: "WHAT 'x\ny' ...", the label shown escaped.  Labels already
 * stored are not checked. */
int nf_label_check(const char *what, const char *label, char *err, size_t errlen);
/* label for a message (at most about 60 bytes of it, in out of outlen, 96
 * is enough): a control character or a byte that is not UTF-8 as \n, \t,
 * \r, \xHH or \u00HH (C1), '\' as "\\".  utf8: whether label is valid
 * UTF-8 (nf_utf8_valid); if not, every byte from 0x80 is shown as \xHH. */
void nf_label_escape(char *out, size_t outlen, const char *label, int utf8);

struct nf_run *nf_run_new(const char *label, const char *workload);
/* The same with no room reserved: the metrics array grows as metrics are
 * added, so that a run read back (the store's loaders) holds what it has,
 * not 128 entries (9 KiB) each, which was most of the cost of loading
 * 100,000 runs.  For runs whose metrics are all added before any metric
 * pointer is kept. */
struct nf_run *nf_run_new_growing(const char *label, const char *workload);
void nf_run_free(struct nf_run *run);
/* Free n runs and the array that holds them. */
void nf_runs_free(struct nf_run **runs, size_t n);
/* Also drops the key (it was the old words'). */
void nf_run_set_args(struct nf_run *run, int argc, char **argv);
/* The run takes key (NULL-terminated, n words; freed as nf_free_words
 * does), or NULL: args is the key. */
void nf_run_set_key(struct nf_run *run, char **key, size_t n);
void nf_run_set_state(struct nf_run *run, enum nf_run_status state);
/* The same by name (what a store reads back); -1 and the run unchanged for
 * a word that is not a status. */
int nf_run_set_status(struct nf_run *run, const char *name);

/* The N and "( +- x% )" of metric of a run imported from one perf stat -r
 * block (NF_ENV_PERF_REPEAT): 0, or -1 when the run holds none for it. */
int nf_run_perf_repeat(const struct nf_run *run, const char *metric, size_t *n, double *sem_pct);
/* Find a metric by name, or NULL. */
struct nf_metric *nf_run_find(struct nf_run *run, const char *name);
/* Is metric m, stored unsupported (no values), an event that was opened
 * but did not count: perf stat's <not counted>, not <not supported>?  Its
 * flag not_counted says so, which run sets for every counter of a command
 * whose exec stopped its counters (doc/noisefloor-run.1, -e) and import
 * for an event perf stat printed <not counted> (doc/noisefloor-import.1),
 * each beside the note that says it in words. */
int nf_metric_not_counted(const struct nf_metric *m);
/* What told the two apart before the flag: the run's note.  Its
 * "counters <not counted>, stored without values: WHY" (run's) is for
 * every counter of the run, a machine metric aside; "'EVENT' was <not
 * counted> in K of N invocations" (import's) for that event.  Whether
 * note says so of the metric called name; read only for runs written
 * before the flag (the store's step to schema 11, an export without
 * "not_counted"). */
int nf_note_not_counted(const char *note, const char *name);
/* What the store's loaders apply to every run read: older metric names as
 * this version names them (messaging's `transfer-seconds` of one earlier
 * version is `seconds`, its `seconds` `total-seconds`; doc/noisefloor-run.1). */
void nf_run_read_compat(struct nf_run *run);
/* Find or add a metric; on add its fields are set from the arguments.
 * NULL when the run already has NF_RUN_MAX_METRICS metrics. */
struct nf_metric *nf_run_metric(struct nf_run *run, const char *name, const char *unit,
                                enum nf_better better, int primary);
/* The primary metric, or the first supported one, or NULL. */
struct nf_metric *nf_run_primary(struct nf_run *run);

/* Repetition rep's buckets of histogram `name` (copied; found or added),
 * after the run's earlier repetitions of it.  0, or -1 (nothing added)
 * when rep is not past the last one, there are no buckets, they are not
 * ascending by lo, or a count is 0. */
int nf_run_hist_add(struct nf_run *run, const char *name, size_t rep, const struct nf_bucket *b,
                    size_t n);
/* Histogram `name` of the run, or NULL. */
const struct nf_run_hist *nf_run_hist_find(const struct nf_run *run, const char *name);
/* Its repetition rep, or NULL when that repetition has none. */
const struct nf_rep_hist *nf_run_hist_rep(const struct nf_run_hist *h, size_t rep);
/* Drop every histogram (before loading them again). */
void nf_run_hists_clear(struct nf_run *run);

/* Append one repetition's value; running_pct < 100 marks a scaled counter
 * (pass 100 when not a counter or not multiplexed). */
void nf_metric_push(struct nf_metric *m, double value, double running_pct);
/* Drop the run's metrics (a loader reading them again). */
void nf_run_clear_metrics(struct nf_run *run);
/* The summary of n values (none: n 0, the means 0). */
void nf_metric_summarise(const double *v, size_t n, struct nf_metric_summary *out);
/* The metric's summary: the one loaded (summed), else of its values. */
void nf_metric_summary_of(const struct nf_metric *m, struct nf_metric_summary *out);
/* Lowest running percentage seen (100 if never scaled). */
double nf_metric_min_running(const struct nf_metric *m);
/* Rate metrics (higher is better: ops/sec, Mbit/s) are summarised by their
 * harmonic mean and analysed as reciprocals, as mmtests does.  A metric of
 * unit "count" (wakeups) is not a rate, whichever its direction. */
int nf_metric_is_rate(const struct nf_metric *m);

/* The run JSON of doc/noisefloor.1; summaries computed from the values. */
json_t *nf_run_to_json(const struct nf_run *run);
/* A number as JSON: null when it is not finite (JSON has no NaN or inf). */
json_t *nf_json_num(double v);
/* Inverse of nf_run_to_json (summaries ignored, recomputed on output).
 * Returns NULL and fills err on a malformed object, which includes: an
 * "id" that is not null or 1..NF_RUN_ID_MAX; "started" missing or not
 * ISO 8601 UTC (2026-11-30T03:20:02Z); "status" missing or unknown;
 * "repeat" or "warmup" missing or not a count; a supported metric with
 * more values than "repeat", or (status complete) fewer. */
struct nf_run *nf_run_from_json(const json_t *obj, char *err, size_t errlen);

#endif
