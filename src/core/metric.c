#include "core/metric.h"

#include <string.h>

const char *nf_better_name(enum nf_better b)
{
    return b == NF_BETTER_HIGHER ? "higher" : "lower";
}

int nf_better_parse(const char *s, enum nf_better *out)
{
    if (strcmp(s, "lower") == 0)
        *out = NF_BETTER_LOWER;
    else if (strcmp(s, "higher") == 0)
        *out = NF_BETTER_HIGHER;
    else
        return -1;
    return 0;
}
