/* Commands of the contract that this version does not have yet.  Each
 * answers --help and says plainly that it is missing, exit 1. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/util.h"

int nf_cmd_unimplemented(const char *name, int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: noisefloor %s ...\n\n'%s' is part of the noisefloor contract "
                   "(see noisefloor(1)) but not implemented in this version.\n", name, name);
            return NF_EXIT_OK;
        }
    nf_err("%s: not implemented in this version", name);
    return NF_EXIT_FAIL;
}

#define STUB(fn, name) \
    int fn(int argc, char **argv) { return nf_cmd_unimplemented(name, argc, argv); }

STUB(cmd_report, "report")
