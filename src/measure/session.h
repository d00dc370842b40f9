/* A measured session: one run per variant, measured in rounds, every
 * repetition committed to the store as it finishes.  `run` and `profile`
 * are sessions of one variant; `ab` interleaves several.
 *
 *   nf_session_begin   a run per variant (label, workload and its words,
 *                      environment snapshot, metrics), --sysctl set, the
 *                      runs begun in the store; SIGINT, SIGTERM, SIGHUP
 *                      and SIGQUIT caught; the guardian started
 *   nf_session_run     warm-up rounds, then rounds (every variant once, in
 *                      the order asked) until the stop rule, the maximum
 *                      or the time limit ends it, or a signal or a failure
 *                      does; a progress line
 *   nf_session_rep     one repetition of one variant, committed (what
 *                      nf_session_run calls for each)
 *   nf_session_finish  --sysctl restored, the final status stored
 *   nf_session_free
 *
 * --sysctl: with one variant it is set once, in begin, before anything is
 * stored (so a refused setting leaves no run behind), and restored at the
 * end of nf_session_run; with several, each variant's holds for its own
 * repetitions only (set before, restored right after), so the others run
 * untouched.  Either way it is restored also when a signal stops the
 * session.
 *
 * Whether to stop early is not decided here: the caller gives a stop rule
 * (ab's comes from src/analysis/ab_stop.h), asked after every round from
 * the minimum on. */
#ifndef NF_MEASURE_SESSION_H
#define NF_MEASURE_SESSION_H

#include <stddef.h>

#include "core/run.h"
#include "core/util.h"
#include "measure/progress.h"
#include "measure/runspec.h"
#include "measure/tune.h"
#include "store/store.h"

/* The order of the variants in each round. */
enum nf_order {
    NF_ORDER_RANDOM,     /* a fresh random order each round (seeded) */
    NF_ORDER_ABBA,       /* in order, then reversed, and so on */
    NF_ORDER_SEQUENTIAL, /* min_rounds of each variant in turn; no stop rule */
};
const char *nf_order_name(enum nf_order o); /* "random", "abba", "sequential" */
int nf_order_parse(const char *s, enum nf_order *out);

/* The stop rule: may the session stop after this round?  names[i] and
 * runs[i] are variant i's label and run, holding every repetition so far.
 * Returns 0 to go on, 1 to stop (*why: a static text saying why), or -1
 * (NF_EINPUT when the input is at fault) to fail the session with one line
 * in err.  It may write a short text for
 * the progress line into note (empty when nothing to show). */
typedef int (*nf_session_stop_fn)(void *ctx, const char *const *names, struct nf_run **runs,
                                  size_t n, const char **why, char *note, size_t notelen, char *err,
                                  size_t errlen);

struct nf_session_variant {
    const char *name; /* its run's label */
    const struct nf_runspec *spec;
};

struct nf_session_opts {
    int warmup;                  /* warm-up rounds, each variant once in order */
    long min_rounds, max_rounds; /* the stop rule is asked from min_rounds on */
    double max_time;             /* seconds (0: no limit): no round starts after
                                    it, the minimum or not (at least one round
                                    runs); in sequential order each variant
                                    gets an equal share of it (at least one
                                    repetition each) */
    enum nf_order order;
    unsigned long seed;      /* of the random order */
    const char *id_prefix;   /* the session's id is "<prefix>-<UTC time>-<pid>"
                                (s->id), stored with every run; NULL: none */
    nf_session_stop_fn stop; /* or NULL: max_rounds rounds */
    void *stop_ctx;
    int progress;            /* draw the progress line on stderr */
    const json_t *env_extra; /* keys added to every run's environment snapshot
                                before it is stored (ab: its design), or NULL */
};

struct nf_session {
    struct nf_store *store;
    struct nf_session_opts o;
    char id[64]; /* "" without an id_prefix */
    size_t nv;
    const char **names; /* per variant */
    const struct nf_runspec **specs;
    struct nf_run **runs; /* made by begin; freed by nf_session_free */
    long *reps;           /* repetitions recorded per variant */

    /* The outcome. */
    enum nf_run_status status; /* running, then complete, interrupted or failed */
    long rounds;               /* rounds every variant has finished */
    const char *why;           /* why it ended (complete) */
    int time_limited;          /* the time limit ended it (why says so, and
                                  whether before min_rounds) */
    char why_text[256];        /* what why points to when it is not static */
    int signal;                /* interrupted: by which signal */
    double seconds;            /* nf_session_run's duration */

    struct nf_tune tune; /* one variant: its --sysctl, for the session */
    struct nf_progress prog;
};

/* What nf_session_run returns besides 0 (complete) and -1 (failed). */
enum { NF_SESSION_INTERRUPTED = 1 };

/* Make and begin the runs of v[0..nv) in st (the labels of the variants
 * must differ).  A run's repeat is max_rounds (min_rounds in sequential
 * order) or, with a stop rule, the rounds it got; its warmup o->warmup.
 * 0, or -1 with one line in err (NF_EINPUT: a --sysctl that does not exist
 * or is refused).  nf_session_free() follows either way. */
int nf_session_begin(struct nf_session *s, struct nf_store *st, const struct nf_session_variant *v,
                     size_t nv, const struct nf_session_opts *o, char *err, size_t errlen);

/* The rounds.  0 when complete (s->why says why it ended),
 * NF_SESSION_INTERRUPTED (s->signal), or -1 with one line in err (NF_EINPUT
 * when the stop rule said the input is at fault); the status is set either
 * way. */
int nf_session_run(struct nf_session *s, char *err, size_t errlen);

/* One repetition of variant i (record = 0: a warm-up), committed to the
 * store when recorded.  An enum nf_rep_status; on NF_REP_FAILED one line
 * in err, naming the variant when there are several. */
int nf_session_rep(struct nf_session *s, size_t i, int record, char *err, size_t errlen);

/* Store each run's final status (after nf_session_run).  0, or -1 with
 * one line in err. */
int nf_session_finish(struct nf_session *s, char *err, size_t errlen);

/* Restore --sysctl if still set; free the runs. */
void nf_session_free(struct nf_session *s);

#endif
