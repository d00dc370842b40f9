/* Export of runs: noisefloor's JSON ({"runs": [run, ...]}, each run as
 * nf_run_to_json writes it; `import --format json` reads it back exactly)
 * and CSV (one row per sample). */
#ifndef NF_FORMATS_EXPORT_H
#define NF_FORMATS_EXPORT_H

#include <stdio.h>

#include "core/run.h"

/* Both write the runs to out and flush it: 0, or -1 with one line in err
 * saying why the output could not be written ("cannot write the output:
 * No space left on device"); writing stops at the first failure. */
int nf_export_json(FILE *out, struct nf_run *const *runs, size_t n, char *err, size_t errlen);
/* Header: run,label,workload,metric,unit,better,rep,value,running_pct
 * (rep from 1; running_pct empty when the counter was never scaled).  A
 * metric stored unsupported has no samples and so no rows: a row for it
 * would need a value that is not a number, or an empty one that naive
 * readers sum as 0 (the JSON export says "supported": false). */
int nf_export_csv(FILE *out, struct nf_run *const *runs, size_t n, char *err, size_t errlen);

#endif
