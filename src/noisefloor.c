/* noisefloor: did my change make it faster, slower, or is the difference
 * inside the noise?  main takes the global options out of argv and hands the
 * rest to one command. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/util.h"

struct nf_globals nf_g;

static const struct {
    const char *name;
    nf_cmd_fn fn;
    const char *summary;
} commands[] = {
    {"run", cmd_run, "run a workload or command repeatedly and store every sample"},
    {"compare", cmd_compare,
     "compare labels against a baseline: improved, regressed, equivalent, inconclusive"},
    {"ab", cmd_ab, "interleaved A/B comparison with adaptive stopping"},
    {"list", cmd_list, "list stored runs"},
    {"show", cmd_show, "show one run in full"},
    {"rm", cmd_rm, "remove runs"},
    {"export", cmd_export, "export runs as JSON or CSV"},
    {"import", cmd_import, "import results of other tools"},
    {"doctor", cmd_doctor, "list noise sources of this machine; --tune, --restore"},
    {"profile", cmd_profile, "sample a workload's profile"},
    {"profdiff", cmd_profdiff, "per-symbol difference of two profiles"},
    {"insns", cmd_insns, "instruction mix of functions in ELF files"},
    {"report", cmd_report, "HTML report"},
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
    fputs("usage: noisefloor [--db PATH|URI] [-q] [--no-progress] COMMAND [ARGS]\n\n"
          "Did the change make it faster, slower, or is it inside the noise?\n\n"
          "Commands:\n",
          out);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fputs("\nGlobal options (before the command or among its options):\n"
          "  --db PATH|URI   store: a SQLite file, or a PostgreSQL URI or key=value string\n"
          "                  (default $NOISEFLOOR_DB, else ./noisefloor.db)\n"
          "  -q, --quiet     no warnings or progress\n"
          "  --no-progress   no progress line on stderr\n"
          "  --version       print the version\n\n"
          "'noisefloor COMMAND --help' describes a command; see noisefloor(1).\n"
          "Exit codes: 0 success, 1 runtime failure, 2 usage error, 3 regression found\n"
          "(compare --fail-on-regression).\n",
          out);
}

/* Take the global options out of argv (up to a "--"), wherever they stand.
 * Returns the new argc, or -1 on a usage error. */
static int take_globals(int argc, char **argv)
{
    int out = 1;
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        if (strcmp(a, "--db") == 0) {
            if (i + 1 >= argc) {
                nf_err("option '--db' needs a value");
                return -1;
            }
            nf_g.db = argv[++i];
        } else if (strncmp(a, "--db=", 5) == 0) {
            nf_g.db = a + 5;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            nf_g.quiet = 1;
        } else if (strcmp(a, "--no-progress") == 0) {
            nf_g.progress = 0;
        } else {
            argv[out++] = argv[i];
        }
    }
    for (; i < argc; i++)
        argv[out++] = argv[i];
    argv[out] = NULL;
    return out;
}

int main(int argc, char **argv)
{
    /* GSL's default handler aborts; the statistics check their inputs and
     * report NaN for what cannot be computed. */
    gsl_set_error_handler_off();
    nf_g.progress = isatty(STDERR_FILENO);
    argc = take_globals(argc, argv);
    if (argc < 0)
        return NF_EXIT_USAGE;
    if (!nf_g.db || !*nf_g.db) {
        const char *env = getenv("NOISEFLOOR_DB");
        nf_g.db = env && *env ? env : "noisefloor.db";
    }
    if (nf_g.quiet) {
        nf_quiet = 1;
        nf_g.progress = 0;
    }
    if (argc < 2) {
        usage(stderr);
        return NF_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return NF_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("noisefloor %s\n", NF_VERSION);
        return NF_EXIT_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    nf_err("unknown command '%s' (try 'noisefloor --help')", name);
    return NF_EXIT_USAGE;
}
