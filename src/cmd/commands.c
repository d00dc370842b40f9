/* The commands, the global options, and what every command does with its
 * option table: parse it, print its help. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/util.h"

struct nf_globals nf_g;

const struct nf_opts nf_global_opts = {
    .options =
        (const struct nf_option[]){
            NF_OPT_STRING(0, "db", struct nf_globals, db, "PATH|URI",
                          "store: a SQLite file, or a PostgreSQL URI or key=value string",
                          NF_DEF_TEXT("$NOISEFLOOR_DB, else ./noisefloor.db")),
            NF_OPT_FLAG('q', "quiet", struct nf_globals, quiet, "no warnings or progress"),
            NF_OPT_SET(0, "no-progress", struct nf_globals, progress, 0,
                       "no progress line on stderr"),
            NF_OPT_END,
        },
};

const struct nf_command nf_commands[] = {
    {"run", cmd_run, "run a workload or command repeatedly and store every sample",
     &nf_cmd_run_opts},
    {"compare", cmd_compare,
     "compare labels against a baseline: improved, regressed, equivalent, inconclusive",
     &nf_cmd_compare_opts},
    {"ab", cmd_ab, "interleaved A/B comparison with adaptive stopping", &nf_cmd_ab_opts},
    {"list", cmd_list, "list stored runs", &nf_cmd_list_opts},
    {"show", cmd_show, "show one run in full", &nf_cmd_show_opts},
    {"rm", cmd_rm, "remove runs", &nf_cmd_rm_opts},
    {"export", cmd_export, "export runs as JSON or CSV", &nf_cmd_export_opts},
    {"import", cmd_import, "import results of other tools", &nf_cmd_import_opts},
    {"doctor", cmd_doctor, "list noise sources of this machine; --tune, --restore",
     &nf_cmd_doctor_opts},
    {"profile", cmd_profile, "sample a workload's profile", &nf_cmd_profile_opts},
    {"profdiff", cmd_profdiff, "per-symbol difference of two profiles", &nf_cmd_profdiff_opts},
    {"insns", cmd_insns, "instruction mix of functions in ELF files", &nf_cmd_insns_opts},
    {"history", cmd_history, "the runs over time: change points, outliers, drift; --tip",
     &nf_cmd_history_opts},
    {"report", cmd_report, "HTML report", &nf_cmd_report_opts},
    {"submit", cmd_submit, "queue a run or ab for the fleet's agents", &nf_cmd_submit_opts},
    {"agent", cmd_agent, "run the queued jobs on this machine", &nf_cmd_agent_opts},
    {"bisect", cmd_bisect, "find the commit that changed a metric, under noise",
     &nf_cmd_bisect_opts},
    {"jobs", cmd_jobs, "the job queue: queued, running, done, failed", &nf_cmd_jobs_opts},
    {NULL, NULL, NULL, NULL},
};

static void list_commands(FILE *out)
{
    fputs("\nCommands:\n", out);
    for (size_t i = 0; nf_commands[i].name; i++)
        fprintf(out, "  %-9s %s\n", nf_commands[i].name, nf_commands[i].summary);
    fputs("\n'noisefloor COMMAND --help' describes a command; see noisefloor(1).\n"
          "Exit codes: 0 success, 1 runtime failure, 2 usage error, 3 regression found\n"
          "(compare --fail-on-regression, history --tip).\n",
          out);
}

const struct nf_opts nf_main_opts = {
    .usage = "noisefloor [OPTIONS] COMMAND [ARGS]",
    .about = "Did the change make it faster, slower, or is it inside the noise?",
    .flags = NF_OPTS_STOP,
    .options =
        (const struct nf_option[]){
            NF_OPT_GROUP("Global options (before the command or among its options):"),
            NF_OPT_INCLUDE(&nf_global_opts, 0),
            NF_OPT_FLAG(0, "version", struct nf_globals, version, "print the version"),
            NF_OPT_END,
        },
    .epilogue = list_commands,
};

void nf_cmd_help(FILE *out, const struct nf_opts *opts)
{
    nf_opts_help(out, opts);
    fputs("\nGlobal options: ", out);
    nf_opts_print_brief(out, &nf_global_opts);
    fputs(" (see noisefloor --help)\n", out);
}

int nf_cmd_parse(const char *cmd, const struct nf_opts *opts, void *base, int argc, char **argv,
                 int *first, int *rc)
{
    char err[NF_ERR_LEN];
    return nf_cmd_parse_msg(cmd, opts, base, argc, argv, first, rc, err, sizeof(err));
}

int nf_cmd_wants_json(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--json") == 0)
            return 1;
    return 0;
}

const char *nf_cmd_last_error(const char *cmd)
{
    const char *e = nf_err_last();
    size_t n = strlen(cmd);
    if (strncmp(e, cmd, n) == 0 && e[n] == ':' && e[n + 1] == ' ')
        e += n + 2;
    return e;
}

json_t *nf_cmd_json_text(const char *s)
{
    if (!s)
        return json_null();
    if (nf_utf8_valid(s, strlen(s), NULL))
        return json_string(s);
    char *t = nf_xstrdup(s); /* words as given: not UTF-8 */
    for (char *p = t; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    json_t *j = json_string(t);
    free(t);
    return j;
}

int nf_cmd_parse_msg(const char *cmd, const struct nf_opts *opts, void *base, int argc, char **argv,
                     int *first, int *rc, char *err, size_t errlen)
{
    err[0] = 0;
    /* The table's defaults (NF_DEF) first, then the words over them. */
    int r = base && nf_opts_defaults(opts, base, err, errlen) ? -1 : 0;
    if (r == 0)
        r = nf_opts_parse(opts, base, argc, argv, first, err, errlen);
    if (r == 0)
        return 0;
    if (r == NF_OPTS_HELP) {
        nf_cmd_help(stdout, opts);
        *rc = NF_EXIT_OK;
    } else {
        nf_err("%s: %s", cmd, err);
        *rc = NF_EXIT_USAGE;
    }
    return 1;
}
