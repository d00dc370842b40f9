/* `values`: one number per line, '#' starts a comment. */
#include "formats/import_int.h"

#include <string.h>

#include "core/util.h"

int nf_import_values(const char *buf, size_t len, const struct nf_import_opts *o,
                     struct nf_run ***runs, size_t *n, char *err, size_t errlen)
{
    struct nf_run *run = nf_import_new_run(o, 0, "", "values");
    nf_import_push(runs, n, run);
    const char *metric = o->metric && *o->metric ? o->metric : "value";
    struct nf_metric *m = nf_run_metric(run, metric, o->unit ? o->unit : "", o->better, 1);
    struct nf_lines l;
    const char *s;
    size_t sl;
    nf_lines_init(&l, buf, len);
    while (nf_lines_next(&l, &s, &sl)) {
        const char *hash = memchr(s, '#', sl);
        if (hash)
            sl = (size_t)(hash - s);
        nf_trim_span(&s, &sl);
        if (!sl)
            continue;
        double v;
        if (nf_import_number(s, sl, &v)) {
            char q[64];
            nf_quote(q, sizeof(q), s, sl);
            return nf_import_fail(err, errlen, o->name, l.lineno,
                                  "expected one number per line, got '%s'", q);
        }
        nf_metric_push(m, v, 100.0);
    }
    if (m->n == 0)
        return nf_import_fail(err, errlen, o->name, l.lineno ? l.lineno : 1,
                              "expected at least one number (one per line)");
    run->repeat = (int)m->n;
    return 0;
}
