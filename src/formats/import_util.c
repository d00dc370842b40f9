/* What the importers share (import_int.h): lines of a buffer, one-line
 * errors that name the file and line, numbers, the new run, warnings. */
#include "formats/import_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

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
    /* Overflow and an underflow to 0 are refused, as run --metric does
     * (nf_decimal); a subnormal is what was written, rounded. */
    return nf_decimal(s, len, out) == NF_NUM_OK ? 0 : -1;
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
