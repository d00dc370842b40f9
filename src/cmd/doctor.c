/* noisefloor doctor: the machine's noise sources and their fixes.  This
 * version has --restore only: undo the settings a crashed run left changed,
 * as recorded in the tuning state file (see measure/tune.h). */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/util.h"
#include "measure/tune.h"

static void usage(FILE *out)
{
    fputs("usage: noisefloor doctor [--tune | --restore]\n"
          "\n"
          "  --restore   put back the settings a run changed (--sysctl) and could not\n"
          "              restore itself (killed, crashed), from the state file\n"
          "              ($NOISEFLOOR_STATE, else /var/tmp/noisefloor-tune.state)\n"
          "  --tune      (not in this version)\n"
          "Without an option: the noise report (not in this version).\n", out);
}

int cmd_doctor(int argc, char **argv)
{
    int restore = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return NF_EXIT_OK;
        } else if (strcmp(argv[i], "--restore") == 0) {
            restore = 1;
        } else if (strcmp(argv[i], "--tune") == 0) {
            nf_err("doctor: --tune is not implemented in this version");
            return NF_EXIT_FAIL;
        } else {
            nf_err("doctor: unknown option '%s'", argv[i]);
            return NF_EXIT_USAGE;
        }
    }
    if (!restore) {
        nf_err("doctor: the noise report is not implemented in this version (try --restore)");
        return NF_EXIT_FAIL;
    }
    const char *path = nf_tune_state_path();
    char err[512];
    int n = nf_tune_restore_from_state(path, stdout, err, sizeof(err));
    if (n < 0) {
        nf_err("doctor: %s", err);
        return NF_EXIT_FAIL;
    }
    if (n == 0)
        printf("nothing to restore (no %s)\n", path);
    return NF_EXIT_OK;
}
