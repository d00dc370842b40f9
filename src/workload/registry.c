#include <string.h>

#include "workload/workload.h"

extern const struct nf_workload nf_workload_messaging;
extern const struct nf_workload nf_workload_netsend;
extern const struct nf_workload nf_workload_wakeup;
extern const struct nf_workload nf_workload_timer;

const struct nf_workload *const nf_workloads[] = {
    &nf_workload_pipe,   &nf_workload_messaging, &nf_workload_netsend,
    &nf_workload_wakeup, &nf_workload_timer,     NULL,
};

const struct nf_workload *nf_workload_find(const char *name)
{
    for (size_t i = 0; nf_workloads[i]; i++)
        if (strcmp(nf_workloads[i]->name, name) == 0)
            return nf_workloads[i];
    return NULL;
}
