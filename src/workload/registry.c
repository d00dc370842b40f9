#include <string.h>

#include "workload/workload.h"

extern const struct nf_workload nf_workload_messaging;
extern const struct nf_workload nf_workload_netsend;

const struct nf_workload *const nf_workloads[] = {
    &nf_workload_pipe,
    &nf_workload_messaging,
    &nf_workload_netsend,
    NULL,
};

const struct nf_workload *nf_workload_find(const char *name)
{
    for (size_t i = 0; nf_workloads[i]; i++)
        if (strcmp(nf_workloads[i]->name, name) == 0)
            return nf_workloads[i];
    return NULL;
}
