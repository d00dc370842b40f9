/* Import dispatch: the table of formats.  Each format has its file:
 * import_values.c, import_json.c (noisefloor's own export),
 * import_perf*.c, import_hyperfine.c; what they share is in
 * import_util.c. */
#include "formats/import_int.h"

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
