#include "store/export.h"

#include <string.h>

int nf_export_json(FILE *out, struct nf_run *const *runs, size_t n)
{
    json_t *root = json_object();
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, nf_run_to_json(runs[i]));
    json_object_set_new(root, "runs", list);
    int rc = json_dumpf(root, out, NF_JSON_FLAGS);
    json_decref(root);
    if (rc == 0 && fputc('\n', out) == EOF)
        rc = -1;
    return rc;
}

/* RFC 4180: quote a field holding a comma, quote or line break. */
static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int nf_export_csv(FILE *out, struct nf_run *const *runs, size_t n)
{
    fputs("run,label,workload,metric,unit,better,rep,value,running_pct\n", out);
    for (size_t i = 0; i < n; i++) {
        const struct nf_run *r = runs[i];
        for (size_t k = 0; k < r->nmetrics; k++) {
            const struct nf_metric *m = &r->metrics[k];
            for (size_t j = 0; j < m->n; j++) {
                fprintf(out, "%lld,", (long long)r->id);
                csv_field(out, r->label);
                fputc(',', out);
                csv_field(out, r->workload);
                fputc(',', out);
                csv_field(out, m->name);
                fputc(',', out);
                csv_field(out, m->unit);
                fprintf(out, ",%s,%zu,%.17g,", nf_better_name(m->better), j + 1, m->values[j]);
                if (m->running_pct)
                    fprintf(out, "%.17g", m->running_pct[j]);
                fputc('\n', out);
            }
        }
    }
    return ferror(out) ? -1 : 0;
}
