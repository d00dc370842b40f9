/* What the labels' runs differ in (analysis/unlike.h). */
#include "analysis/unlike.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* A growing line. */
struct line {
    char *s;
    size_t len;
};

static void add(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    l->s = nf_xrealloc(l->s, l->len + (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(l->s + l->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    l->len += (size_t)n;
}

/* A run's arguments as words joined by spaces: its key (a built-in
 * workload's canonical words) or its words as stored. */
static char *args_of(const struct nf_run *r)
{
    size_t n = r->key ? r->nkey : r->nargs;
    char *const *w = r->key ? r->key : r->args;
    struct line l = {nf_xstrdup(""), 0};
    for (size_t i = 0; i < n; i++)
        add(&l, "%s%s", i ? " " : "", w[i]);
    return l.s;
}

/* Label lr's value of what `of` reads from a run of workload wl (NULL:
 * any run): the first run's, "several" when its runs disagree, NULL when
 * it has no such run.  A reader's NULL is a run that does not record it:
 * left out, as if it were not there.  The caller frees it. */
typedef char *(*reader)(const struct nf_run *r);

static char *label_value(const struct nf_label_runs *lr, const char *wl, reader of)
{
    char *v = NULL;
    for (size_t r = 0; r < lr->nruns; r++) {
        if (wl && strcmp(lr->runs[r]->workload, wl) != 0)
            continue;
        char *x = of(lr->runs[r]);
        if (!x)
            continue;
        if (!v) {
            v = x;
            continue;
        }
        int same = strcmp(v, x) == 0;
        free(x);
        if (!same) {
            free(v);
            return nf_xstrdup("several");
        }
    }
    return v;
}

static char *env_str(const struct nf_run *r, const char *key)
{
    json_t *v = r->env ? json_object_get(r->env, key) : NULL;
    return nf_xstrdup(json_is_string(v) ? json_string_value(v) : "none");
}
static char *host_of(const struct nf_run *r)
{
    return env_str(r, "hostname");
}
static char *kernel_of(const struct nf_run *r)
{
    return env_str(r, "kernel");
}
static char *cpu_of(const struct nf_run *r)
{
    return env_str(r, "cpu_model");
}
/* The CPUs a run was pinned to, "none" (its environment's "pin" null: not
 * pinned), or NULL when it does not say (no "pin": an import of another
 * tool's output, an export that had none). */
static char *pin_of(const struct nf_run *r)
{
    if (!r->env || !json_object_get(r->env, "pin"))
        return NULL;
    return env_str(r, "pin");
}

/* Does some run of in[] not record its pinning? */
static int pin_unknown(const struct nf_label_runs *in, size_t n)
{
    for (size_t l = 0; l < n; l++)
        for (size_t r = 0; r < in[l].nruns; r++) {
            char *p = pin_of(in[l].runs[r]);
            free(p);
            if (!p)
                return 1;
        }
    return 0;
}

/* Is name a perf counter: a metric only -e brings (the perf names of
 * doc/noisefloor-run.1's -e default, and any cache or raw event). */
static int counter(const char *name)
{
    static const char *const known[] = {"task-clock",
                                        "cpu-clock",
                                        "context-switches",
                                        "cpu-migrations",
                                        "page-faults",
                                        "cycles",
                                        "instructions",
                                        "branches",
                                        "branch-misses",
                                        "cache-misses",
                                        "cache-references",
                                        "stalled-cycles-frontend",
                                        "stalled-cycles-backend"};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (strcmp(name, known[i]) == 0)
            return 1;
    return strchr(name, ':') != NULL || strncmp(name, "L1-", 3) == 0 ||
           strncmp(name, "LLC-", 4) == 0;
}

static char *counters_of(const struct nf_run *r)
{
    struct line l = {nf_xstrdup(""), 0};
    for (size_t m = 0; m < r->nmetrics; m++)
        if (counter(r->metrics[m].name))
            add(&l, "%s%s", l.len ? "," : "", r->metrics[m].name);
    if (!l.len)
        add(&l, "none");
    return l.s;
}

/* One difference: "WHAT: a V1, b V2" when the labels' values differ
 * (a label without a value is left out); 1 when it added one. */
static int differ(struct line *out, const char *what, const struct nf_label_runs *in, size_t n,
                  const char *wl, reader of, int quote)
{
    char **v = nf_xcalloc(n, sizeof(*v));
    int diff = 0;
    const char *first = NULL;
    for (size_t l = 0; l < n; l++) {
        v[l] = label_value(&in[l], wl, of);
        if (!v[l])
            continue;
        if (!first)
            first = v[l];
        else if (strcmp(first, v[l]) != 0)
            diff = 1;
    }
    if (diff) {
        add(out, "%s%s: ", out->len ? "; " : "", what);
        for (size_t l = 0, k = 0; l < n; l++)
            if (v[l]) {
                const char *s = v[l];
                if (quote && strcmp(s, "several") != 0)
                    add(out, "%s%s %s%s%s", k++ ? ", " : "", in[l].label, "'",
                        s[0] ? s : "(defaults)", "'");
                else
                    add(out, "%s%s %s", k++ ? ", " : "", in[l].label, s);
            }
    }
    for (size_t l = 0; l < n; l++)
        free(v[l]);
    free(v);
    return diff;
}

/* The value every run of in[] shares of `of`, or "several"; NULL when
 * there is no run. */
static char *common(const struct nf_label_runs *in, size_t n, reader of)
{
    char *v = NULL;
    for (size_t l = 0; l < n; l++) {
        char *x = label_value(&in[l], NULL, of);
        if (!x)
            continue;
        if (!v)
            v = x;
        else if (strcmp(v, x) != 0 || strcmp(x, "several") == 0) {
            free(v);
            free(x);
            return nf_xstrdup("several");
        } else
            free(x);
    }
    return v;
}

/* c->setup: how the runs were measured, as the mail form's last line
 * says it: "pinned to CPU 0, kernel 6.1.0, Intel Xeon ... (host h)". */
static void setup(struct nf_comparison *c, const struct nf_label_runs *in, size_t n)
{
    struct line l = {nf_xstrdup(""), 0};
    char *pin = common(in, n, pin_of), *k = common(in, n, kernel_of), *cpu = common(in, n, cpu_of),
         *host = common(in, n, host_of);
    c->interleaved = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < in[i].nruns; r++)
            c->interleaved |= in[i].runs[r]->session != NULL;
    /* pin: of the runs that record it (NULL: none does, nothing said) */
    if (pin && strcmp(pin, "several") == 0)
        add(&l, "pinning differs");
    else if (pin && pin_unknown(in, n)) /* some do not: not all alike */
        add(&l, "pinning unknown");
    else if (pin && strcmp(pin, "none") == 0)
        add(&l, "unpinned");
    else if (pin)
        add(&l, "pinned to CPU %s", pin);
    if (k && strcmp(k, "none") != 0) /* not "kernel none" for runs that stored none */
        add(&l, "%skernel %s", l.len ? ", " : "", strcmp(k, "several") == 0 ? "differs" : k);
    if (cpu && strcmp(cpu, "none") != 0)
        add(&l, "%s%s", l.len ? ", " : "", strcmp(cpu, "several") == 0 ? "CPU models differ" : cpu);
    if (host && strcmp(host, "none") != 0)
        add(&l, "%s%s", l.len ? ", " : "", strcmp(host, "several") == 0 ? "several hosts" : "");
    if (host && strcmp(host, "none") != 0 && strcmp(host, "several") != 0)
        add(&l, "host %s", host);
    free(pin);
    free(k);
    free(cpu);
    free(host);
    nf_printable(l.s);
    free(c->setup);
    c->setup = l.s;
}

void nf_compare_note_unlike(struct nf_comparison *c, const struct nf_label_runs *in, size_t nlabels)
{
    struct line out = {nf_xstrdup(""), 0};
    /* the arguments of each workload that blocks compare across labels */
    for (size_t i = 0; i < c->nblocks; i++) {
        struct nf_cmp_block *b = &c->blocks[i];
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= strcmp(c->blocks[j].workload, b->workload) == 0;
        /* a command's words are often the change under test (./old vs
         * ./new): only a built-in workload's arguments are its setup */
        if (b->args || seen || strcmp(b->workload, "command") == 0)
            continue;
        char what[160];
        snprintf(what, sizeof(what), "workload arguments (%s)", b->workload);
        if (differ(&out, what, in, nlabels, b->workload, args_of, 1))
            for (size_t j = i; j < c->nblocks; j++)
                if (!c->blocks[j].args && strcmp(c->blocks[j].workload, b->workload) == 0)
                    c->blocks[j].unlike_args = 1;
    }
    differ(&out, "counters (-e)", in, nlabels, NULL, counters_of, 0);
    differ(&out, "pinning (--pin)", in, nlabels, NULL, pin_of, 0);
    differ(&out, "host", in, nlabels, NULL, host_of, 0);
    differ(&out, "kernel", in, nlabels, NULL, kernel_of, 0);
    differ(&out, "CPU model", in, nlabels, NULL, cpu_of, 0);
    free(c->unlike);
    c->unlike = NULL;
    setup(c, in, nlabels);
    if (out.len) {
        nf_printable(out.s);
        c->unlike = out.s;
    } else {
        free(out.s);
    }
}
