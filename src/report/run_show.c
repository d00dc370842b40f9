#include "report/run_show.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "report/run_text.h"

static void env_value(FILE *out, const json_t *v)
{
    if (json_is_string(v)) {
        nf_fputs_printable(json_string_value(v), out);
    } else if (json_is_null(v)) {
        fputs("-", out);
    } else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(6));
        nf_fputs_printable(s ? s : "?", out);
        free(s);
    }
}

/* "  label      VALUE\n" (value NULL: the caller writes it and the end). */
static void field(FILE *out, const char *name, const char *value)
{
    fprintf(out, "  %-10s ", name);
    if (value) {
        nf_fputs_printable(value, out);
        fputc('\n', out);
    }
}

void nf_report_run_show(FILE *out, const struct nf_run *run)
{
    /* Text stored as given (a JSON import's labels, names and notes, a
     * command's words) as printable text: it goes to a terminal. */
    fprintf(out, "run %lld\n", (long long)run->id);
    field(out, "label", run->label);
    field(out, "workload", NULL);
    nf_fputs_printable(run->workload, out);
    nf_report_args(out, run);
    fputc('\n', out);
    field(out, "started", run->started);
    fprintf(out, "  status     %s\n", nf_run_status_name(run->state));
    fprintf(out, "  repeat     %d (warm-up %d)\n", run->repeat, run->warmup);
    if (run->session)
        field(out, "session", run->session);
    if (run->note)
        field(out, "note", run->note);
    if (run->env && json_object_size(run->env)) {
        fputs("\nenvironment:\n", out);
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)run->env, key, v)
        {
            char *k = nf_xprintable(key);
            fprintf(out, "  %-20s ", k);
            free(k);
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
        if (run->metrics[i].supported) {
            char *name = nf_xprintable(run->metrics[i].name);
            fprintf(out, "  %16s", name);
            free(name);
        }
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
