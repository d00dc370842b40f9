/* noisefloor: did my change make it faster, slower, or is the difference
 * inside the noise?  main takes the global options out of argv and hands the
 * rest to one command (src/cmd/commands.c lists them). */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"
#include "core/version.h"

static int dispatch(int argc, char **argv)
{
    /* GSL's default handler aborts; the statistics check their inputs and
     * report NaN for what cannot be computed. */
    gsl_set_error_handler_off();
    nf_g.progress = isatty(STDERR_FILENO);
    /* The global options stand anywhere before a "--": before the command
     * or among its options. */
    char err[NF_ERR_LEN];
    argc = nf_opts_take(&nf_global_opts, &nf_g, argc, argv, err, sizeof(err));
    if (argc < 0) {
        nf_err("%s", err);
        return NF_EXIT_USAGE;
    }
    if (!nf_g.db) { /* (an empty $NOISEFLOOR_DB is unset; an empty --db is refused) */
        const char *env = getenv("NOISEFLOOR_DB");
        nf_g.db = env && *env ? env : "noisefloor.db";
    }
    if (nf_cmd_check_db(nf_g.db, err, sizeof(err))) {
        nf_err("%s", err);
        return NF_EXIT_USAGE;
    }
    if (nf_g.quiet) {
        nf_quiet = 1;
        nf_g.progress = 0;
    }
    int first;
    int rc = nf_opts_parse(&nf_main_opts, &nf_g, argc, argv, &first, err, sizeof(err));
    if (rc < 0) {
        nf_err("%s (try 'noisefloor --help')", err);
        return NF_EXIT_USAGE;
    }
    if (rc == NF_OPTS_HELP || (first < argc && strcmp(argv[first], "help") == 0)) {
        nf_opts_help(stdout, &nf_main_opts);
        return NF_EXIT_OK;
    }
    if (nf_g.version) {
        printf("noisefloor %s\n", nf_version);
        return NF_EXIT_OK;
    }
    if (first >= argc) {
        nf_opts_help(stderr, &nf_main_opts);
        return NF_EXIT_USAGE;
    }
    const char *name = argv[first];
    for (size_t i = 0; nf_commands[i].name; i++)
        if (strcmp(nf_commands[i].name, name) == 0)
            return nf_commands[i].fn(argc - first, argv + first);
    nf_err("unknown command '%s' (try 'noisefloor --help')", name);
    return NF_EXIT_USAGE;
}

/* What a command printed is its result: if it could not all be written (a
 * full disk, /dev/full), the command failed, whatever it returned.  fclose,
 * not only fflush, so that an error the system reports only on close (NFS)
 * is seen too. */
int main(int argc, char **argv)
{
    int rc = nf_cmd_image(argc, argv); /* a workload's image runs and exits here */
    if (rc)
        return rc;
    /* A file-size limit (ulimit -f) makes a write fail with EFBIG, which
     * is reported with one line, rather than kill us with --sysctl values
     * applied or a state file half made (a child gets the default back:
     * nf_spawn). */
    signal(SIGXFSZ, SIG_IGN);
    rc = dispatch(argc, argv);
    errno = 0;
    int bad = ferror(stdout);
    if ((fclose(stdout) != 0 || bad) && (rc == NF_EXIT_OK || rc == NF_EXIT_REGRESSION)) {
        /* (A command that failed already said why, and exits non-zero.) */
        nf_err("cannot write the output: %s", errno ? strerror(errno) : "write error");
        rc = NF_EXIT_FAIL;
    }
    return rc;
}
