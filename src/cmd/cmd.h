/* Commands: one file each, a thin layer that parses options, calls the
 * modules and prints.  Each declares its option table (core/options.h);
 * its parse, its messages and its --help come from it.  Global options are
 * taken out of argv by main. */
#ifndef NF_CMD_H
#define NF_CMD_H

#include <stdio.h>

#include <jansson.h>

#include "core/options.h"
#include "core/util.h"

struct nf_globals {
    const char *db; /* --db, $NOISEFLOOR_DB, or ./noisefloor.db */
    int quiet;      /* -q */
    int progress;   /* progress on stderr (a terminal, no --no-progress) */
    int version;    /* --version (main only) */
    int check_only; /* submit: run and ab parse their words, then stop */
};

extern struct nf_globals nf_g;

/* --db, -q/--quiet, --no-progress over struct nf_globals: main takes them
 * out of argv wherever they stand before a "--", so every command accepts
 * them among its own options; each command's --help lists them. */
extern const struct nf_opts nf_global_opts;
/* main's own: the global options and --version; its --help lists the
 * commands. */
extern const struct nf_opts nf_main_opts;

typedef int (*nf_cmd_fn)(int argc, char **argv);

/* The exit code for a module's return code: 0 for 0, 2 for NF_EINPUT (the
 * user's to fix), 1 for any other failure. */
static inline int nf_exit_code(int rc)
{
    return rc == 0 ? NF_EXIT_OK : rc == NF_EINPUT ? NF_EXIT_USAGE : NF_EXIT_FAIL;
}

struct nf_command {
    const char *name;
    nf_cmd_fn fn;
    const char *summary;        /* one line in `noisefloor --help` */
    const struct nf_opts *opts; /* its option table */
};

/* Every command, in `noisefloor --help` order; {NULL}-terminated. */
extern const struct nf_command nf_commands[];

/* A command's --help: its table's text, then the global options. */
void nf_cmd_help(FILE *out, const struct nf_opts *opts);

/* Parse a command's words with its table into base.  0 with *first the
 * index of the first word that is not an option; or non-zero when the
 * command is done, with *rc its exit code: --help printed (0), or a bad
 * option told in one line "noisefloor: CMD: ..." (2). */
int nf_cmd_parse(const char *cmd, const struct nf_opts *opts, void *base, int argc, char **argv,
                 int *first, int *rc);
/* The same, the bad option's line (without "CMD: ") also in err; "" else. */
int nf_cmd_parse_msg(const char *cmd, const struct nf_opts *opts, void *base, int argc, char **argv,
                     int *first, int *rc, char *err, size_t errlen);

/* --json always prints JSON on stdout, a failure too: an object with the
 * failure's line in "error" (doc/noisefloor-compare.1, --json).  Whether
 * the words ask for --json (before a "--"), whatever else in them is
 * refused; and the last line told (nf_err_last) without its "CMD: ", what
 * that "error" holds. */
int nf_cmd_wants_json(int argc, char **argv);
const char *nf_cmd_last_error(const char *cmd);
/* s as a JSON string (NULL: null), a byte of words that are not UTF-8 as
 * '?' (json_string refuses them). */
json_t *nf_cmd_json_text(const char *s);

int cmd_run(int argc, char **argv);
/* Before anything else: when argv is a workload's image (measure/spawn.h),
 * it runs its repetition and exits here; otherwise 0, or an exit code
 * when argv[1] is the image's argument but malformed. */
int nf_cmd_image(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_profdiff(int argc, char **argv);
int cmd_insns(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_agent(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_bisect(int argc, char **argv);

/* Their option tables. */
extern const struct nf_opts nf_cmd_run_opts, nf_cmd_compare_opts, nf_cmd_ab_opts, nf_cmd_list_opts,
    nf_cmd_show_opts, nf_cmd_rm_opts, nf_cmd_export_opts, nf_cmd_import_opts, nf_cmd_doctor_opts,
    nf_cmd_profile_opts, nf_cmd_profdiff_opts, nf_cmd_insns_opts, nf_cmd_report_opts,
    nf_cmd_submit_opts, nf_cmd_agent_opts, nf_cmd_jobs_opts, nf_cmd_history_opts,
    nf_cmd_bisect_opts;

#endif
