/* Import dispatch (the table of formats) and the helpers the importers
 * share.  Each format has its file: import_values.c, import_json.c
 * (noisefloor's own export), import_perf*.c, import_hyperfine.c. */
#include "formats/import_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

const char nf_import_formats[] =
    "values, perf-stat, perf-stat-csv, perf-stat-json, hyperfine-json, json";

static const struct {
    const char *name;
    int (*parse)(const char *, size_t, const struct nf_import_opts *, struct nf_run ***, size_t *,
                 char *, size_t);
    int needs_label;
} formats[] = {
    {"values", nf_import_values, 1},
    {"perf-stat", nf_import_perf_text, 1},
    {"perf-stat-csv", nf_import_perf_csv, 1},
    {"perf-stat-json", nf_import_perf_json, 1},
    {"hyperfine-json", nf_import_hyperfine, 0},
    {"json", nf_import_json, 0},
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

static int find_format(const char *format)
{
    for (size_t i = 0; format && i < NFORMATS; i++)
        if (strcmp(formats[i].name, format) == 0)
            return (int)i;
    return -1;
}

int nf_import_format_known(const char *format)
{
    return find_format(format) >= 0;
}

int nf_import_needs_label(const char *format)
{
    int i = find_format(format);
    return i >= 0 && formats[i].needs_label;
}

int nf_import_parse(const char *buf, size_t len, const struct nf_import_opts *o,
                    struct nf_run ***runs, size_t *n, char *err, size_t errlen)
{
    *runs = NULL;
    *n = 0;
    int i = find_format(o->format);
    if (i < 0) {
        snprintf(err, errlen, "unknown import format '%s' (one of: %s)", o->format ? o->format : "",
                 nf_import_formats);
        return -1;
    }
    if (formats[i].needs_label && o->nlabels != 1) {
        snprintf(err, errlen, "format %s needs one --label", formats[i].name);
        return -1;
    }
    size_t bad;
    if (!nf_utf8_valid(buf, len, &bad)) {
        size_t line = 1;
        for (size_t k = 0; k < bad; k++)
            line += buf[k] == '\n';
        return nf_import_fail(err, errlen, o->name, line,
                              "expected UTF-8 text without "
                              "NUL bytes (byte %zu is not)",
                              bad + 1);
    }
    size_t warned = o->warnings ? o->warnings->n : 0;
    if (formats[i].parse(buf, len, o, runs, n, err, errlen) == 0)
        return 0;
    while (o->warnings && o->warnings->n > warned)
        free(o->warnings->v[--o->warnings->n]);
    nf_runs_free(*runs, *n);
    *runs = NULL;
    *n = 0;
    return -1;
}

/* --- helpers -------------------------------------------------------------- */

void nf_lines_init(struct nf_lines *l, const char *buf, size_t len)
{
    l->p = buf;
    l->end = buf + len;
    l->lineno = 0;
}

int nf_lines_next(struct nf_lines *l, const char **s, size_t *len)
{
    if (l->p >= l->end)
        return 0;
    const char *nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
    const char *e = nl ? nl : l->end;
    *s = l->p;
    *len = (size_t)(e - l->p);
    if (*len && (*s)[*len - 1] == '\r')
        (*len)--;
    l->p = nl ? nl + 1 : l->end;
    l->lineno++;
    return 1;
}

int nf_import_fail(char *err, size_t errlen, const char *name, size_t line, const char *fmt, ...)
{
    int k = snprintf(err, errlen, "%s:%zu: ", name ? name : "-", line);
    if (k < 0 || (size_t)k >= errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
    va_end(ap);
    /* One line, whatever the input held (jansson quotes what it choked on). */
    for (char *p = err; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return -1;
}

int nf_import_number(const char *s, size_t len, double *out)
{
    /* Overflow is refused; underflow gives a number as near as a double
     * gets (0 or a subnormal), which is what was written. */
    int rc = nf_decimal(s, len, out);
    return rc == NF_NUM_OK || rc == NF_NUM_SMALL ? 0 : -1;
}

size_t nf_json_elem_line(const char *b, size_t len, const char *key, size_t k)
{
    size_t line = 1, depth = 0, arr_depth = 0, idx = 0;
    size_t keylen = key ? strlen(key) : 0;
    int in_str = 0, esc = 0;
    /* 0 looking for the key, 1 after it (':' next), 2 after ':' ('[' next),
     * 3 in the array before an element, 4 inside an element */
    int state = 0;
    const char *str = NULL;
    for (size_t i = 0; i < len; i++) {
        char c = b[i];
        if (c == '\n')
            line++;
        if (in_str) {
            if (esc)
                esc = 0;
            else if (c == '\\')
                esc = 1;
            else if (c == '"') {
                in_str = 0;
                if (state == 0 && depth == 1 && key && (size_t)(b + i - str) == keylen &&
                    memcmp(str, key, keylen) == 0)
                    state = 1;
            }
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            continue;
        if (!key)
            return line;
        if (state == 3 && depth == arr_depth) {
            if (idx == k)
                return line;
            state = 4;
        }
        if (state == 1) {
            state = c == ':' ? 2 : 0;
            continue;
        }
        if (state == 2) {
            if (c == '[') {
                depth++;
                arr_depth = depth;
                state = 3;
                continue;
            }
            state = 0;
        }
        if (c == '"') {
            in_str = 1;
            str = b + i + 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (state >= 3 && depth == arr_depth)
                return 1;
            if (depth)
                depth--;
        } else if (c == ',' && state == 4 && depth == arr_depth) {
            idx++;
            state = 3;
        }
    }
    return 1;
}

struct nf_run *nf_import_new_run(const struct nf_import_opts *o, size_t k, const char *label,
                                 const char *default_workload)
{
    if (o->nlabels == 1)
        label = o->labels[0];
    else if (o->nlabels > k)
        label = o->labels[k];
    struct nf_run *run = nf_run_new(label, o->workload ? o->workload : default_workload);
    nf_run_set_state(run, NF_RUN_COMPLETE);
    run->note = nf_xasprintf("imported from %s (%s)", o->name ? o->name : "-", o->format);
    return run;
}

void nf_import_warn(const struct nf_import_opts *o, const char *fmt, ...)
{
    struct nf_import_warnings *w = o->warnings;
    if (!w)
        return;
    char line[NF_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    w->v = nf_xrealloc(w->v, (w->n + 1) * sizeof(*w->v));
    w->v[w->n++] = nf_xstrdup(line);
}

void nf_import_warnings_free(struct nf_import_warnings *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->v[i]);
    free(w->v);
    w->v = NULL;
    w->n = 0;
}

void nf_import_push(struct nf_run ***runs, size_t *n, struct nf_run *run)
{
    *runs = nf_xrealloc(*runs, (*n + 1) * sizeof(**runs));
    (*runs)[(*n)++] = run;
}
