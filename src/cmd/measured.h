/* What `run`, `profile` and `ab` share around a measured session
 * (measure/session.h): its messages and exit codes; for run and profile,
 * the session of one variant on the store of --db. */
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

/* --source DIR of a spec (none: 0): a directory, else one line and exit
 * 2; a directory that is not a git work tree is one warning. */
int nf_cmd_check_source(const char *cmd, const struct nf_runspec *spec);

/* Run a begun session and store its end, one line per problem.  Returns
 * the exit code: 0, 1, or 128+N when stopped by signal N. */
int nf_cmd_session_run(const char *cmd, struct nf_session *s);

#endif
