#include "report/run_show.h"

#include <string.h>

#include "report/run_text.h"

static void env_value(FILE *out, const json_t *v)
{
    if (json_is_string(v)) {
        fputs(json_string_value(v), out);
    } else if (json_is_null(v)) {
        fputs("-", out);
    } else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(6));
        fputs(s ? s : "?", out);
        free(s);
    }
}

void nf_report_run_show(FILE *out, const struct nf_run *run)
{
    fprintf(out, "run %lld\n", (long long)run->id);
    fprintf(out, "  label      %s\n", run->label);
    fprintf(out, "  workload   %s", run->workload);
    nf_report_args(out, run);
    fprintf(out, "\n  started    %s\n", run->started);
    fprintf(out, "  status     %s\n", nf_run_status_name(run->state));
    fprintf(out, "  repeat     %d (warm-up %d)\n", run->repeat, run->warmup);
    if (run->session)
        fprintf(out, "  session    %s\n", run->session);
    if (run->note)
        fprintf(out, "  note       %s\n", run->note);
    if (run->env && json_object_size(run->env)) {
        fputs("\nenvironment:\n", out);
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)run->env, key, v)
        {
            fprintf(out, "  %-20s ", key);
            env_value(out, v);
            fputc('\n', out);
        }
    }
    nf_report_run_text(out, run, NULL);

    size_t reps = 0;
    for (size_t i = 0; i < run->nmetrics; i++)
        if (run->metrics[i].n > reps)
            reps = run->metrics[i].n;
    fprintf(out, "repetitions (%zu):\n  %4s", reps, "rep");
    for (size_t i = 0; i < run->nmetrics; i++)
        if (run->metrics[i].supported)
            fprintf(out, "  %16s", run->metrics[i].name);
    fputc('\n', out);
    for (size_t r = 0; r < reps; r++) {
        fprintf(out, "  %4zu", r + 1);
        for (size_t i = 0; i < run->nmetrics; i++) {
            const struct nf_metric *m = &run->metrics[i];
            if (!m->supported)
                continue;
            char cell[48];
            if (r >= m->n)
                snprintf(cell, sizeof(cell), "-");
            else if (m->running_pct && m->running_pct[r] < 100.0)
                snprintf(cell, sizeof(cell), "%.10g (%.1f%%)", m->values[r], m->running_pct[r]);
            else
                snprintf(cell, sizeof(cell), "%.10g", m->values[r]);
            fprintf(out, "  %16s", cell);
        }
        fputc('\n', out);
    }
}
