/* What `run` and `profile` do around the repetitions: the run record, the
 * store, --sysctl, the environment, the loop that commits each repetition
 * as it finishes, and the final status. */
#ifndef NF_CMD_MEASURED_H
#define NF_CMD_MEASURED_H

#include "core/run.h"
#include "measure/runspec.h"
#include "measure/tune.h"
#include "store/store.h"

struct nf_measured {
    struct nf_store *store;
    struct nf_run *run;
    struct nf_tune tune;
};

/* Open the store, make the run (label: -L, else uname -r), set --sysctl
 * (before anything is stored, so a refused setting leaves no run behind),
 * snapshot the environment, begin the run.  0, or the exit code after one
 * line; nf_measured_end() is needed either way. */
int nf_measured_begin(const char *cmd, const struct nf_runspec *spec, struct nf_measured *m);

/* Warm-ups, then the repetitions, each committed as it finishes, with
 * progress; --sysctl restored, also when a signal stops the run; the final
 * status stored.  Returns the exit code (128+N when stopped by signal N). */
int nf_measured_loop(const char *cmd, const struct nf_runspec *spec, struct nf_measured *m);

void nf_measured_end(struct nf_measured *m);

#endif
