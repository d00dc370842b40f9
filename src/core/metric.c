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

const char *const nf_rusage_names[NF_RUSAGE_NMETRICS] = {
    "user",
    "sys",
    "voluntary-context-switches",
    "involuntary-context-switches",
    "minor-page-faults",
    "major-page-faults",
    "max-rss",
};

int nf_metric_is_rusage(const char *name)
{
    for (int i = 0; i < NF_RUSAGE_NMETRICS; i++)
        if (strcmp(name, nf_rusage_names[i]) == 0)
            return 1;
    return 0;
}
