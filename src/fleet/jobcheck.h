/* What a job may be: the one check of a job's words, made by `submit`
 * before it queues them and by the agent before it runs them, whatever
 * wrote the row (anyone who can write the jobs table can queue words).
 *
 * A job is a `run` or an `ab` command; among its words the global options
 * that choose only how it reports (-q, --no-progress) but never --db: the
 * agent's store is where its runs go.  No --help (a job that prints help
 * does nothing).  A `run -- COMMAND` and an ab SPEC holding `-- COMMAND`
 * start a program of the job's choosing: with an allow-list (the agent's)
 * the program, resolved as the exec would resolve it and then to its real
 * path, must be one of the list's, or every program must be allowed
 * (--allow-commands).  Without one (submit) commands are not judged: the
 * agent that claims the job decides. */
#ifndef NF_FLEET_JOBCHECK_H
#define NF_FLEET_JOBCHECK_H

#include <stddef.h>

#include "core/options.h"

struct nf_job_allow {
    char **paths; /* real absolute paths of the programs a job may start */
    size_t npaths;
    int any; /* --allow-commands: any program */
};

/* Resolve PATH (--allow-command) to its real absolute path and add it: 0,
 * or -1 with one line in err (it does not exist, or is not an executable
 * file). */
int nf_job_allow_add(struct nf_job_allow *a, const char *path, char *err, size_t errlen);
void nf_job_allow_free(struct nf_job_allow *a);

/* The global options a job's words may carry: main's table (cmd's
 * nf_global_opts), a base for it to parse into, and where in that base
 * its --db lands. */
struct nf_job_globals {
    const struct nf_opts *opts;
    void *base; /* size bytes, zeroed by each check */
    size_t size;
    const char *const *db;
};

/* Whether words[0..n) may be a job: 0, or -1 with one line in err (the
 * reason a refused job fails with; it quotes no more than the job's own
 * words).  allow NULL: commands are not judged. */
int nf_job_check(char *const *words, size_t n, const struct nf_job_globals *g,
                 const struct nf_job_allow *allow, char *err, size_t errlen);

#endif
