#include "formats/export.h"

#include "core/numfmt.h"

#include <errno.h>
#include <string.h>

/* The first write that failed: its errno (-1: not known), 0 while none
 * has.  Writing stops there, so that a row is never written after one
 * that was lost. */
struct sink {
    FILE *out;
    int failed;
};

/* 0, or -1 and the reason in err: the write that failed first, else the
 * flush of what is still buffered. */
static int sink_finish(struct sink *s, char *err, size_t errlen)
{
    if (!s->failed) {
        errno = 0;
        if (fflush(s->out) != 0 || ferror(s->out))
            s->failed = errno ? errno : -1;
    }
    if (!s->failed)
        return 0;
    snprintf(err, errlen, "cannot write the output: %s",
             s->failed > 0 ? strerror(s->failed) : "write error");
    return -1;
}

static int json_write(const char *buf, size_t size, void *data)
{
    struct sink *s = data;
    errno = 0;
    if (fwrite(buf, 1, size, s->out) == size)
        return 0;
    s->failed = errno ? errno : -1;
    return -1;
}

int nf_export_json(FILE *out, struct nf_run *const *runs, size_t n, char *err, size_t errlen)
{
    json_t *root = json_object();
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, nf_run_to_json(runs[i]));
    json_object_set_new(root, "runs", list);
    struct sink s = {.out = out};
    if (nf_json_dump_callback(root, json_write, &s, NF_JSON_FLAGS) == 0)
        json_write("\n", 1, &s);
    else if (!s.failed)
        s.failed = ENOMEM; /* jansson's own failure: it writes nothing else */
    json_decref(root);
    return sink_finish(&s, err, errlen);
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

int nf_export_csv(FILE *out, struct nf_run *const *runs, size_t n, char *err, size_t errlen)
{
    struct sink s = {.out = out};
    errno = 0;
    fputs("run,label,workload,metric,unit,better,rep,value,running_pct\n", out);
    for (size_t i = 0; i < n && !ferror(out); i++) {
        const struct nf_run *r = runs[i];
        for (size_t k = 0; k < r->nmetrics && !ferror(out); k++) {
            const struct nf_metric *m = &r->metrics[k];
            for (size_t j = 0; j < m->n && !ferror(out); j++) {
                fprintf(out, "%lld,", (long long)r->id);
                csv_field(out, r->label);
                fputc(',', out);
                csv_field(out, r->workload);
                fputc(',', out);
                csv_field(out, m->name);
                fputc(',', out);
                csv_field(out, m->unit);
                char num[NF_NUM_LEN];
                fprintf(out, ",%s,%zu,%s,", nf_better_name(m->better), j + 1,
                        nf_num_shortest(num, m->values[j]));
                if (m->running_pct)
                    fputs(nf_num_shortest(num, m->running_pct[j]), out);
                fputc('\n', out);
            }
        }
    }
    /* A write that fails sets errno, and the writes after it in the same
     * row fail again the same way (stdio retries the full buffer). */
    if (ferror(out))
        s.failed = errno ? errno : -1;
    return sink_finish(&s, err, errlen);
}
