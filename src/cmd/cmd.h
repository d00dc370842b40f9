/* Commands: one file each, a thin layer that parses options, calls the
 * modules and prints.  Global options are taken out of argv by main. */
#ifndef NF_CMD_H
#define NF_CMD_H

#include "core/util.h"

struct nf_globals {
    const char *db; /* --db, $NOISEFLOOR_DB, or ./noisefloor.db */
    int quiet;      /* -q */
    int progress;   /* progress on stderr (a terminal, no --no-progress) */
};

extern struct nf_globals nf_g;

typedef int (*nf_cmd_fn)(int argc, char **argv);

/* The exit code for a module's return code: 0 for 0, 2 for NF_EINPUT (the
 * user's to fix), 1 for any other failure. */
static inline int nf_exit_code(int rc)
{
    return rc == 0 ? NF_EXIT_OK : rc == NF_EINPUT ? NF_EXIT_USAGE : NF_EXIT_FAIL;
}

int cmd_run(int argc, char **argv);
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
int cmd_report(int argc, char **argv);

#endif
