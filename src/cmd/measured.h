/* What `run` and `profile` share: a measured session of one variant
 * (measure/session.h) on the store of --db, with their messages and exit
 * codes. */
#ifndef NF_CMD_MEASURED_H
#define NF_CMD_MEASURED_H

#include "core/run.h"
#include "measure/runspec.h"
#include "measure/session.h"
#include "store/store.h"

struct nf_measured {
    struct nf_store *store;
    struct nf_run *run; /* the session's run */
    struct nf_session s;
};

/* Open the store, begin the session (label: -L, else uname -r).  0, or the
 * exit code after one line; nf_measured_end() is needed either way. */
int nf_measured_begin(const char *cmd, const struct nf_runspec *spec, struct nf_measured *m);

/* The repetitions and the final status.  Returns the exit code (128+N
 * when stopped by signal N). */
int nf_measured_loop(const char *cmd, const struct nf_runspec *spec, struct nf_measured *m);

void nf_measured_end(struct nf_measured *m);

#endif
