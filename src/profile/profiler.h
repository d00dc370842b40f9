/* A profile over the repetitions of one run: the sampler is attached to
 * each recorded repetition's child (through the runner's repetition hook,
 * whose signatures these functions have) and each finished repetition's
 * records are resolved into one aggregated profile. */
#ifndef NF_PROFILE_PROFILER_H
#define NF_PROFILE_PROFILER_H

#include <stddef.h>
#include <sys/types.h>

#include "profile/events.h"
#include "profile/profile.h"
#include "profile/sampler.h"
#include "profile/symbols.h"

struct nf_profiler {
    struct nf_sample_cfg cfg;
    struct nf_symcache syms;
    struct nf_profile prof;   /* every kept repetition, summed; each one in prof.reps */
    struct nf_prof_events ev; /* the current repetition's records */
    struct nf_sampler *cur;
    int reps; /* repetitions in prof */
};

/* Probe the machine (nf_sampler_probe) and set up; -1 with a line in err. */
int nf_profiler_init(struct nf_profiler *p, unsigned freq, char *err, size_t errlen);
void nf_profiler_free(struct nf_profiler *p);

/* Start sampling pid (ctx is the profiler); on_exec as nf_sampler_start. */
int nf_profiler_attach(void *ctx, pid_t pid, int on_exec, char *err, size_t errlen);
/* Stop; keep: add the repetition's samples to the profile (else drop them:
 * a failed repetition is not part of the run either). */
void nf_profiler_detach(void *ctx, int keep);

#endif
