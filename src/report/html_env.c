/* Section 4 of the HTML report: the runs behind each label and their
 * environment snapshots side by side, with the differences that matter
 * flagged.  Different kernels (or source trees) are what one compares;
 * a different CPU, governor, host or virtualisation means the numbers may
 * reflect the machine rather than the change. */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "report/html_int.h"
#include "report/svg.h"

enum kind { K_WARN, K_RED, K_EXPECTED, K_VOLATILE };

static const struct {
    const char *key;
    enum kind kind;
} known[] = {
    {"kernel", K_EXPECTED},
    {"kernel_version", K_EXPECTED},
    {"hostname", K_RED},
    {"cpu_model", K_RED},
    {"nr_cpus", K_RED},
    {"online_cpus", K_RED},
    {"pin", K_WARN},
    {"governor", K_RED},
    {"boost", K_RED},
    {"smt", K_RED},
    {"smt_active", K_RED},
    {"virtualized", K_RED},
    {"hardware_pmu", K_RED},
    {"aslr", K_WARN},
    {"perf_event_paranoid", K_WARN},
    {"cmdline", K_WARN},
    {"loadavg", K_VOLATILE},
    {"job", K_VOLATILE}, /* each job's runs have their own */
    {"git_describe", K_EXPECTED},
    {"source", K_EXPECTED},
    {"noisefloor_version", K_EXPECTED},
};
#define NKNOWN (sizeof(known) / sizeof(known[0]))

static enum kind kind_of(const char *key)
{
    for (size_t i = 0; i < NKNOWN; i++)
        if (strcmp(known[i].key, key) == 0)
            return known[i].kind;
    return K_WARN;
}

static const char *kind_class(enum kind k)
{
    return k == K_RED ? "red" : k == K_EXPECTED ? "exp" : "warn";
}

/* Is every key of object v a CPU number (the per-CPU governor)? */
static int per_cpu(const json_t *v)
{
    const char *k;
    const json_t *x;
    json_object_foreach((json_t *)v, k, x)
    {
        (void)x;
        if (!*k || strspn(k, "0123456789") != strlen(k))
            return 0;
    }
    return 1;
}

/* "key=value, key=value" of an object of strings (the --sysctl settings),
 * or NULL when a value is not a string. */
static char *pairs(const json_t *v)
{
    const char *k;
    const json_t *x;
    char *out = nf_xstrdup("");
    json_object_foreach((json_t *)v, k, x)
    {
        if (!json_is_string(x)) {
            free(out);
            return NULL;
        }
        char *next = nf_xasprintf("%s%s%s=%s", out, *out ? ", " : "", k, json_string_value(x));
        free(out);
        out = next;
    }
    return out;
}

/* One environment value as text: "performance (all 8)" for a per-CPU
 * object whose values agree (the governor), "key=value, ..." for another
 * object of strings (the --sysctl settings), JSON for other structures. */
static char *env_str(const json_t *v)
{
    if (json_is_string(v))
        return nf_xstrdup(json_string_value(v));
    if (json_is_null(v))
        return nf_xstrdup("-");
    if (json_is_boolean(v))
        return nf_xstrdup(json_is_true(v) ? "yes" : "no");
    if (json_is_integer(v))
        return nf_xasprintf("%lld", (long long)json_integer_value(v));
    if (json_is_real(v))
        return nf_xasprintf("%.6g", json_real_value(v));
    if (json_is_object(v) && json_object_size(v) > 0 && !per_cpu(v)) {
        char *p = pairs(v);
        if (p)
            return p;
    }
    if (json_is_object(v) && json_object_size(v) > 0) {
        const char *k, *first = NULL;
        const json_t *x;
        int same = 1;
        json_object_foreach((json_t *)v, k, x)
        {
            if (!json_is_string(x) || (first && strcmp(first, json_string_value(x)) != 0))
                same = 0;
            else if (!first)
                first = json_string_value(x);
        }
        if (same && first)
            return json_object_size(v) == 1
                       ? nf_xstrdup(first)
                       : nf_xasprintf("%s (all %zu)", first, json_object_size(v));
    }
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(3));
    return s ? s : nf_xstrdup("?");
}

#define MISSING "\xe2\x80\x94" /* an em dash: the run has no such key */

/* The distinct values of one key among one label's runs, in order met. */
struct cell {
    char **v;
    size_t n;
    char *joined; /* v joined by " | " (MISSING for runs without the key), or NULL when the
                     label's runs have no environment */
};

struct row {
    const char *key;
    struct cell *cells;  /* one per label */
    int between, within; /* labels disagree / a label's runs disagree */
};

static void cell_add(struct cell *c, char *s)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i], s) == 0) {
            free(s);
            return;
        }
    c->v = nf_xrealloc(c->v, (c->n + 1) * sizeof(char *));
    c->v[c->n++] = s;
}

static void add_key(const char ***keys, size_t *n, const char *key)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*keys)[i], key) == 0)
            return;
    *keys = nf_xrealloc(*keys, (*n + 1) * sizeof(char *));
    (*keys)[(*n)++] = key;
}

/* Keys: the known ones first, in the order above, then the rest as met. */
static size_t collect_keys(const struct nf_comparison *c, const struct nf_label_runs *in,
                           const char ***keys)
{
    size_t n = 0;
    *keys = NULL;
    for (size_t k = 0; k < NKNOWN; k++)
        for (size_t l = 0; l < c->nlabels; l++)
            for (size_t r = 0; r < in[l].nruns; r++)
                if (json_is_object(in[l].runs[r]->env) &&
                    json_object_get(in[l].runs[r]->env, known[k].key))
                    add_key(keys, &n, known[k].key);
    for (size_t l = 0; l < c->nlabels; l++)
        for (size_t r = 0; r < in[l].nruns; r++) {
            const char *key;
            const json_t *v;
            if (!json_is_object(in[l].runs[r]->env))
                continue;
            json_object_foreach(in[l].runs[r]->env, key, v) add_key(keys, &n, key);
        }
    return n;
}

static void fill_row(struct row *row, const struct nf_comparison *c, const struct nf_label_runs *in)
{
    const char *first = NULL;
    row->cells = nf_xcalloc(c->nlabels, sizeof(struct cell));
    for (size_t l = 0; l < c->nlabels; l++) {
        struct cell *cl = &row->cells[l];
        for (size_t r = 0; r < in[l].nruns; r++) {
            const json_t *env = in[l].runs[r]->env;
            if (!json_is_object(env) || !json_object_size(env))
                continue; /* no environment at all: flagged as such below */
            const json_t *v = json_object_get(env, row->key);
            /* A key a run lacks is a value too ("\u2014", as the table shows
             * it): a --sysctl one label ran with and the others did not
             * differs between them. */
            cell_add(cl, v ? env_str(v) : nf_xstrdup(MISSING));
        }
        if (!cl->n)
            continue;
        size_t len = 1;
        for (size_t i = 0; i < cl->n; i++)
            len += strlen(cl->v[i]) + 3;
        cl->joined = nf_xcalloc(len, 1);
        for (size_t i = 0; i < cl->n; i++) {
            if (i)
                strcat(cl->joined, " | ");
            strcat(cl->joined, cl->v[i]);
        }
        row->within |= cl->n > 1;
        if (!first)
            first = cl->joined;
        else if (strcmp(first, cl->joined) != 0)
            row->between = 1;
    }
}

static void free_row(struct row *row, size_t nlabels)
{
    for (size_t l = 0; l < nlabels; l++) {
        for (size_t i = 0; i < row->cells[l].n; i++)
            free(row->cells[l].v[i]);
        free(row->cells[l].v);
        free(row->cells[l].joined);
    }
    free(row->cells);
}

static void runs_table(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in)
{
    fputs("<h3>Runs</h3>\n<table class=\"runs\">\n<thead><tr><th class=\"l\">label</th><th>run</th>"
          "<th class=\"l\">workload</th><th class=\"l\">started</th><th class=\"l\">status</th>"
          "<th>repetitions</th><th class=\"l\">session</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t l = 0; l < c->nlabels; l++)
        for (size_t r = 0; r < in[l].nruns; r++) {
            const struct nf_run *run = in[l].runs[r];
            fputs("<tr><td class=\"l\">", out);
            nf_esc(out, c->labels[l]);
            fprintf(out, "</td><td>%lld</td><td class=\"l\">", (long long)run->id);
            nf_esc(out, run->workload);
            for (size_t a = 0; a < run->nargs; a++) {
                fputc(' ', out);
                nf_esc(out, run->args[a]);
            }
            fputs("</td><td class=\"l\">", out);
            nf_esc(out, run->started);
            fputs("</td><td class=\"l\">", out);
            nf_esc(out, nf_run_status_name(run->state));
            const struct nf_metric *m = nf_run_primary(in[l].runs[r]);
            fprintf(out, "</td><td>%zu</td><td class=\"l\">", m ? m->n : 0);
            nf_esc(out, run->session ? run->session : "");
            fputs("</td></tr>\n", out);
        }
    fputs("</tbody>\n</table>\n", out);
}

static void flag(FILE *out, const struct nf_comparison *c, const struct row *row, enum kind k)
{
    fprintf(out, "<li class=\"%s\"><b>", kind_class(k));
    nf_esc(out, row->key);
    fputs("</b> differs between labels", out);
    if (k == K_EXPECTED)
        fputs(" (expected when that is what is compared)", out);
    else if (k == K_RED)
        fputs(": the difference may be the machine&#8217;s, not the change&#8217;s", out);
    fputs(": ", out);
    int any = 0;
    for (size_t l = 0; l < c->nlabels; l++) {
        if (!row->cells[l].joined)
            continue;
        fputs(any++ ? "; " : "", out);
        nf_esc(out, c->labels[l]);
        fputs(" = ", out);
        nf_esc(out, row->cells[l].joined);
    }
    fputs("</li>\n", out);
}

/* A run's words as its runs table shows them: "pipe -l 20000". */
static char *words_of(const struct nf_run *run)
{
    char *s = nf_xstrdup(run->workload);
    for (size_t a = 0; a < run->nargs; a++) {
        char *t = nf_xasprintf("%s %s", s, run->args[a]);
        free(s);
        s = t;
    }
    return s;
}

/* Does label l have a run of these words / a metric of this name? */
static int label_has_words(const struct nf_label_runs *lr, const char *w)
{
    int has = 0;
    for (size_t r = 0; r < lr->nruns && !has; r++) {
        char *s = words_of(lr->runs[r]);
        has = strcmp(s, w) == 0;
        free(s);
    }
    return has;
}

static int label_has_metric(const struct nf_label_runs *lr, const char *name)
{
    for (size_t r = 0; r < lr->nruns; r++) {
        const struct nf_metric *m = nf_run_find(lr->runs[r], name);
        if (m && m->supported && m->n)
            return 1;
    }
    return 0;
}

/* What the labels ran, beside where: the workloads' arguments (-l 1000000
 * against -l 100000) and the metrics one label has and another lacks (the
 * counters of -e against none).  The number of lines written. */
static size_t what_differs(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in)
{
    size_t nflags = 0;
    /* Arguments: words some label ran and another did not. */
    int args_differ = 0;
    for (size_t l = 0; l < c->nlabels && !args_differ; l++)
        for (size_t r = 0; r < in[l].nruns && !args_differ; r++) {
            char *w = words_of(in[l].runs[r]);
            for (size_t k = 0; k < c->nlabels; k++)
                args_differ |= !label_has_words(&in[k], w);
            free(w);
        }
    if (args_differ) {
        fputs("<li class=\"red\"><b>workload arguments</b> differ between labels: the runs "
              "measured different things: ",
              out);
        for (size_t l = 0; l < c->nlabels; l++) {
            fputs(l ? "; " : "", out);
            nf_esc(out, c->labels[l]);
            fputs(" ran ", out);
            for (size_t r = 0; r < in[l].nruns; r++) {
                char *w = words_of(in[l].runs[r]);
                int dup = 0;
                for (size_t q = 0; q < r && !dup; q++) {
                    char *v = words_of(in[l].runs[q]);
                    dup = strcmp(v, w) == 0;
                    free(v);
                }
                if (!dup) {
                    fputs(r ? ", <code>" : "<code>", out);
                    nf_esc(out, w);
                    fputs("</code>", out);
                }
                free(w);
            }
        }
        fputs("</li>\n", out);
        nflags++;
    }
    /* Metrics (counters): per label, those it has and some other lacks. */
    for (size_t l = 0; l < c->nlabels; l++) {
        size_t shown = 0, more = 0;
        for (size_t r = 0; r < in[l].nruns; r++)
            for (size_t i = 0; i < in[l].runs[r]->nmetrics; i++) {
                const struct nf_metric *m = &in[l].runs[r]->metrics[i];
                int missing = 0, first = 1;
                if (!m->supported || !m->n)
                    continue;
                for (size_t k = 0; k < c->nlabels; k++)
                    missing |= !label_has_metric(&in[k], m->name);
                for (size_t q = 0; q < r && first; q++)
                    first = !label_has_metric(
                        &(struct nf_label_runs){.runs = &in[l].runs[q], .nruns = 1}, m->name);
                if (!missing || !first)
                    continue;
                if (shown == 6) {
                    more++;
                    continue;
                }
                if (!shown++) {
                    fputs("<li class=\"warn\"><b>metrics</b> (counters: -e) differ: <b>", out);
                    nf_esc(out, c->labels[l]);
                    fputs("</b> has ", out);
                } else {
                    fputs(", ", out);
                }
                nf_esc(out, m->name);
            }
        if (shown) {
            if (more)
                fprintf(out, " and %zu more", more);
            fputs(", which another label lacks (counting perturbs what is measured)</li>\n", out);
            nflags++;
        }
    }
    return nflags;
}

void nf_html_env(FILE *out, const struct nf_comparison *c, const struct nf_label_runs *in)
{
    fputs("<section id=\"env\">\n<h2>4. Runs and environment</h2>\n", out);
    runs_table(out, c, in);

    const char **keys;
    size_t nkeys = collect_keys(c, in, &keys);
    struct row *rows = nf_xcalloc(nkeys, sizeof(*rows));
    for (size_t k = 0; k < nkeys; k++) {
        rows[k].key = keys[k];
        fill_row(&rows[k], c, in);
    }

    fputs("<h3>Environment</h3>\n<ul class=\"flags\">\n", out);
    size_t nflags = what_differs(out, c, in);
    static const enum kind order[] = {K_RED, K_WARN, K_EXPECTED};
    for (size_t o = 0; o < 3; o++)
        for (size_t k = 0; k < nkeys; k++)
            if (rows[k].between && kind_of(rows[k].key) == order[o]) {
                flag(out, c, &rows[k], order[o]);
                nflags++;
            }
    for (size_t k = 0; k < nkeys; k++) {
        enum kind kd = kind_of(rows[k].key);
        if (!rows[k].within || kd == K_VOLATILE)
            continue;
        for (size_t l = 0; l < c->nlabels; l++)
            if (rows[k].cells[l].n > 1) {
                fprintf(out, "<li class=\"%s\">the runs of <b>", kind_class(kd));
                nf_esc(out, c->labels[l]);
                fputs("</b> differ in <b>", out);
                nf_esc(out, rows[k].key);
                fputs("</b>: ", out);
                nf_esc(out, rows[k].cells[l].joined);
                fputs("</li>\n", out);
                nflags++;
            }
    }
    for (size_t l = 0; l < c->nlabels; l++) {
        size_t with = 0;
        for (size_t r = 0; r < in[l].nruns; r++)
            with += json_is_object(in[l].runs[r]->env) && json_object_size(in[l].runs[r]->env);
        if (with == in[l].nruns)
            continue;
        fputs("<li class=\"warn\"><b>", out);
        nf_esc(out, c->labels[l]);
        fprintf(out, "</b>: %zu of %zu runs have no environment recorded (imported?)</li>\n",
                in[l].nruns - with, in[l].nruns);
        nflags++;
    }
    if (!nflags)
        fputs("<li>The environment is the same for every label (load average aside).</li>\n", out);
    fputs("</ul>\n", out);

    if (nkeys) {
        fputs("<table class=\"env\">\n<thead><tr><th class=\"l\">key</th>", out);
        for (size_t l = 0; l < c->nlabels; l++) {
            fputs("<th class=\"l\">", out);
            nf_esc(out, c->labels[l]);
            fputs("</th>", out);
        }
        fputs("</tr></thead>\n<tbody>\n", out);
        for (size_t k = 0; k < nkeys; k++) {
            enum kind kd = kind_of(rows[k].key);
            int marked = (rows[k].between || rows[k].within) && kd != K_VOLATILE;
            char td[32] = "<td>";
            if (marked)
                snprintf(td, sizeof(td), "<td class=\"%s\">", kind_class(kd));
            fprintf(out, "<tr>%s<b>", td);
            nf_esc(out, rows[k].key);
            fputs("</b></td>", out);
            for (size_t l = 0; l < c->nlabels; l++) {
                fputs(td, out);
                nf_esc(out, rows[k].cells[l].joined ? rows[k].cells[l].joined : MISSING);
                fputs("</td>", out);
            }
            fputs("</tr>\n", out);
        }
        fputs("</tbody>\n</table>\n", out);
    }
    fputs("</section>\n", out);
    for (size_t k = 0; k < nkeys; k++)
        free_row(&rows[k], c->nlabels);
    free(rows);
    free(keys);
}
