/* NAME=SPEC: one variant of a session, as `ab` takes it on its command
 * line.  SPEC is the words of a run ('pipe -l 20000', '--pin 0 pipe',
 * '-- ./bench'), split as a shell would split a simple command (no
 * expansion) and parsed as `run` parses its own. */
#ifndef NF_MEASURE_VARIANT_H
#define NF_MEASURE_VARIANT_H

#include <stddef.h>

#include "measure/runspec.h"

struct nf_variant {
    char *name;   /* its run's label */
    char **words; /* "ab" + the SPEC's words; the spec points into them */
    struct nf_runspec spec;
};

/* Parse args[0..n) into *out (n variants, the names all different).  0,
 * or -1 with one line in err. nf_variants_free() follows either way. */
int nf_variants_parse(char **args, size_t n, struct nf_variant **out, char *err, size_t errlen);
void nf_variants_free(struct nf_variant *v, size_t n);

/* Whether the n variants of a session (the first the baseline) can be run
 * and compared, from what each variant's run will declare: 0, or -1 with
 * one line in err.  Refused: a SPEC holding what the session decides for
 * all (-r, --warmup, -L, --json); a variant on another workload than the
 * baseline's; with metric (-m), a side without it; without, a primary
 * metric one side lacks; a metric declared with another --better or
 * --unit by two variants.  A variant that could not be compared could not
 * be decided either: the stop rule would wait for it until MAX. */
int nf_variants_check(const struct nf_variant *v, size_t n, const char *metric, char *err,
                      size_t errlen);

#endif
