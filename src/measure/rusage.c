#include "measure/rusage.h"

static const char *const units[NF_RUSAGE_NMETRICS] = {"seconds", "seconds", "", "", "", "", "KiB"};

void nf_rusage_declare(struct nf_run *run)
{
    for (int i = 0; i < NF_RUSAGE_NMETRICS; i++)
        nf_run_metric(run, nf_rusage_names[i], units[i], NF_BETTER_LOWER, 0);
}

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

void nf_rusage_record(struct nf_run *run, const struct rusage *ru)
{
    const double v[NF_RUSAGE_NMETRICS] = {
        seconds(ru->ru_utime), seconds(ru->ru_stime), (double)ru->ru_nvcsw,  (double)ru->ru_nivcsw,
        (double)ru->ru_minflt, (double)ru->ru_majflt, (double)ru->ru_maxrss, /* Linux: KiB */
    };
    for (int i = 0; i < NF_RUSAGE_NMETRICS; i++) {
        struct nf_metric *m = nf_run_find(run, nf_rusage_names[i]);
        if (m)
            nf_metric_push(m, v[i], 100.0);
    }
}
