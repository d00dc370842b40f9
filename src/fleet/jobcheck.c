/* The check of a job's words (jobcheck.h). */
#include "fleet/jobcheck.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "measure/runspec.h"
#include "measure/spawn_path.h"
#include "measure/variant.h"

int nf_job_allow_add(struct nf_job_allow *a, const char *path, char *err, size_t errlen)
{
    char real[PATH_MAX];
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) != 0) {
        snprintf(err, errlen, "--allow-command %s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode) || access(real, X_OK) != 0) {
        snprintf(err, errlen, "--allow-command %s: not an executable file", path);
        return -1;
    }
    a->paths = nf_xrealloc(a->paths, (a->npaths + 1) * sizeof(char *));
    a->paths[a->npaths++] = nf_xstrdup(real);
    return 0;
}

void nf_job_allow_free(struct nf_job_allow *a)
{
    for (size_t i = 0; i < a->npaths; i++)
        free(a->paths[i]);
    free(a->paths);
    memset(a, 0, sizeof(*a));
}

/* A word of the job for a message: quoted, short. */
static const char *shown(char *buf, size_t len, const char *w)
{
    nf_quote(buf, len, w, strlen(w));
    return buf;
}

/* Whether the program cmd[0] may be started: 0, or -1 with why. */
static int command_allowed(const struct nf_job_allow *allow, char *const *cmd, char *err,
                           size_t errlen)
{
    char q[64];
    if (allow->any)
        return 0;
    if (!allow->npaths) {
        snprintf(err, errlen,
                 "the job runs a command ('%s') and this agent runs built-in workloads "
                 "only (see noisefloor agent --allow-command)",
                 shown(q, sizeof(q), cmd[0]));
        return -1;
    }
    char found[PATH_MAX], real[PATH_MAX];
    if (nf_spawn_resolve(cmd[0], found, sizeof(found)) == 0 && realpath(found, real))
        for (size_t i = 0; i < allow->npaths; i++)
            if (strcmp(real, allow->paths[i]) == 0)
                return 0;
    snprintf(err, errlen, "command '%s' is not one this agent allows (--allow-command)",
             shown(q, sizeof(q), cmd[0]));
    return -1;
}

/* run WORDS: the command it starts, if any, judged. */
static int check_run(int argc, char **argv, const struct nf_job_allow *allow, char *err,
                     size_t errlen)
{
    struct nf_runspec spec;
    int help, rc = 0;
    char e2[NF_ERR_LEN];
    if (nf_runspec_parse(&spec, argc, argv, &help, e2, sizeof(e2))) {
        snprintf(err, errlen, "run: %s", e2);
        rc = -1;
    } else if (help) {
        snprintf(err, errlen, "--help is not a job");
        rc = -1;
    } else if (spec.cmd) {
        rc = command_allowed(allow, spec.cmd, err, errlen);
    }
    nf_runspec_free(&spec);
    return rc;
}

/* ab WORDS: which of them are its NAME=SPEC variants is the ab parser's
 * business (cmd/), so every word that parses as a variant is judged, an
 * option's value too: a word taken for a SPEC wrongly can only refuse a
 * job, never let a command through. */
static int check_ab(int argc, char **argv, const struct nf_job_allow *allow, char *err,
                    size_t errlen)
{
    for (int i = 1; i < argc; i++) {
        if (!strchr(argv[i], '='))
            continue;
        struct nf_variant *v;
        char e2[NF_ERR_LEN];
        int rc = 0;
        if (nf_variants_parse(&argv[i], 1, &v, e2, sizeof(e2)) == 0 && v[0].spec.cmd)
            rc = command_allowed(allow, v[0].spec.cmd, err, errlen);
        nf_variants_free(v, 1);
        if (rc)
            return -1;
    }
    return 0;
}

int nf_job_check(char *const *words, size_t n, const struct nf_job_globals *g,
                 const struct nf_job_allow *allow, char *err, size_t errlen)
{
    char q[64];
    if (n == 0) {
        snprintf(err, errlen, "the job has no words");
        return -1;
    }
    if (strcmp(words[0], "run") != 0 && strcmp(words[0], "ab") != 0) {
        snprintf(err, errlen, "a job is a 'run' or an 'ab' command, not '%s'",
                 shown(q, sizeof(q), words[0]));
        return -1;
    }
    /* The options end at the first word that is not one; before that, a
     * --help would be a job that prints help. */
    for (size_t i = 1; i < n && strcmp(words[i], "--") != 0; i++)
        if (strcmp(words[i], "--help") == 0 || strcmp(words[i], "-h") == 0) {
            snprintf(err, errlen, "'%s' is not a job (see 'noisefloor %s --help')", words[i],
                     words[0]);
            return -1;
        }
    /* The command is `noisefloor WORDS`, whose main takes the global
     * options out of the words first: so does the check, on a copy (the
     * parsers may reorder what they are given). */
    char **copy = nf_xcalloc(n + 1, sizeof(char *));
    memcpy(copy, words, n * sizeof(char *));
    char e2[NF_ERR_LEN];
    memset(g->base, 0, g->size);
    int rc = 0, argc = nf_opts_take(g->opts, g->base, (int)n, copy, e2, sizeof(e2));
    if (argc < 0) {
        snprintf(err, errlen, "%s: %s", words[0], e2);
        rc = -1;
    } else if (*g->db) {
        snprintf(err, errlen,
                 "a job cannot choose its store (--db): the agent's --db decides "
                 "where the job's runs go");
        rc = -1;
    } else if (allow) {
        rc = strcmp(copy[0], "run") == 0 ? check_run(argc, copy, allow, err, errlen)
                                         : check_ab(argc, copy, allow, err, errlen);
    }
    free(copy);
    return rc;
}
