/* noisefloor import FILE --format F: results of other tools (and our own
 * export) into the store, all runs of a file in one transaction. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/run.h"
#include "core/util.h"
#include "measure/runspec.h"
#include "formats/import.h"

#define MAX_LABELS 256

struct import_args {
    const char *format, *workload, *metric, *unit;
    int better;   /* -1: not given */
    int renumber; /* --renumber: runs whose ids are taken get new ones */
    struct nf_optlist labels;
};

static int take_label(const struct nf_option *o, void *base, const char *arg, char *err,
                      size_t errlen)
{
    struct import_args *a = base;
    (void)o;
    if (a->labels.n == MAX_LABELS) {
        snprintf(err, errlen, "too many --label (at most %d)", MAX_LABELS);
        return -1;
    }
    if (nf_label_check("--label", arg, err, errlen))
        return -1;
    nf_optlist_add(&a->labels, arg);
    return 0;
}

const struct nf_opts nf_cmd_import_opts = {
    .usage = "noisefloor import [OPTIONS] --format F FILE",
    .about = "Store the runs in FILE ('-': stdin).  Formats:\n"
             "  values          one number per line, '#' comments; one file is one run;\n"
             "                  --metric NAME (value) --unit U --better lower|higher\n"
             "  perf-stat       perf stat's own output (with or without perf's -r, -o,\n"
             "                  --append, --null): each perf invocation in the file is one\n"
             "                  repetition; its \"seconds time elapsed\" is the metric wall\n"
             "  perf-stat-csv   'perf stat -x,' output, the same way\n"
             "  perf-stat-json  'perf stat -j' output, the same way\n"
             "  hyperfine-json  'hyperfine --export-json': one run per command, labelled by\n"
             "                  the command unless --label is given (once, or per command)\n"
             "  json            'noisefloor export' output; runs keep labels and ids (ids\n"
             "                  already taken in the database are refused: --renumber)",
    .options =
        (const struct nf_option[]){
            NF_OPT_STRING('f', "format", struct import_args, format, "F",
                          "the file's format (one of the above; required)"),
            NF_OPT_CALLBACK('L', "label", take_label, "L",
                            "label of the run (values and perf-stat* need one)"),
            NF_OPT_STRING('w', "workload", struct import_args, workload, "W", "workload name",
                          NF_DEF_TEXT("values, perf-stat, command")),
            NF_OPT_STRING(0, "metric", struct import_args, metric, "NAME",
                          "values: the metric's name", NF_DEF_TEXT("value")),
            NF_OPT_STRING(0, "unit", struct import_args, unit, "U", "values: its unit"),
            NF_OPT_CHOICE(0, "better", struct import_args, better, nf_better_choices, NULL,
                          "values: which way is better", NF_DEF_TEXT("lower")),
            NF_OPT_FLAG(0, "renumber", struct import_args, renumber,
                        "json: give runs whose ids are taken new ids (else refused)"),
            NF_OPT_END,
        },
    .footer = "A malformed file: one line FILE:LINE: expected ..., exit 2, nothing stored.\n"
              "At most 1 GiB is read; a larger file is refused (exit 2), and so is a\n"
              "hyperfine result with a failed repetition (exit_codes).",
};

/* The most import reads of one file: far more than any benchmark's results,
 * and still a size the parsers can hold in memory. */
#define IMPORT_MAX_BYTES ((size_t)1 << 30)

static char *read_all(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = nf_read_stream(f, IMPORT_MAX_BYTES, len);
    int e = errno;
    if (f != stdin)
        fclose(f);
    /* A UTF-8 byte-order mark, as editors on Windows write it, is not
     * part of any format's text. */
    if (buf && *len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
        memmove(buf, buf + 3, *len - 3 + 1);
        *len -= 3;
    }
    errno = e;
    return buf;
}

/* The file argv[first] as the options say; the exit code. */
static int import_file(const struct import_args *a, int argc, char **argv, int first)
{
    struct nf_import_opts o = {.format = a->format,
                               .labels = a->labels.v,
                               .nlabels = a->labels.n,
                               .workload = a->workload,
                               .metric = a->metric,
                               .unit = a->unit,
                               .better =
                                   a->better < 0 ? NF_BETTER_LOWER : (enum nf_better)a->better};
    int values_opt = a->metric || a->unit || a->better >= 0;
    if (first != argc - 1) {
        nf_err("import: %s (usage: noisefloor import FILE --format F)",
               first >= argc ? "which file?" : "one file at a time");
        return NF_EXIT_USAGE;
    }
    o.name = argv[first];
    if (!o.format) {
        nf_err("import: --format is required (one of: %s)", nf_import_formats);
        return NF_EXIT_USAGE;
    }
    if (!nf_import_format_known(o.format)) {
        nf_err("import: unknown format '%s' (one of: %s)", o.format, nf_import_formats);
        return NF_EXIT_USAGE;
    }
    if (nf_import_needs_label(o.format) && o.nlabels != 1) {
        nf_err("import: --format %s needs one --label", o.format);
        return NF_EXIT_USAGE;
    }
    if (values_opt && strcmp(o.format, "values") != 0) {
        nf_err("import: --metric, --unit and --better are for --format values");
        return NF_EXIT_USAGE;
    }
    /* An empty --unit is "no unit", as giving none. */
    char werr[NF_ERR_LEN];
    if ((a->workload && nf_word_check("-w", "a workload name", a->workload, werr, sizeof(werr))) ||
        (a->metric && nf_metric_name_check("--metric", a->metric, werr, sizeof(werr))) ||
        (a->unit && *a->unit && nf_metric_unit_check("--unit", a->unit, werr, sizeof(werr)))) {
        nf_err("import: %s", werr);
        return NF_EXIT_USAGE;
    }
    size_t len;
    char *buf = read_all(o.name, &len);
    if (!buf && errno == EFBIG) {
        nf_err("import: '%s' is larger than 1 GiB, the most import reads", o.name);
        return NF_EXIT_USAGE;
    }
    if (!buf) {
        nf_err("import: cannot read '%s': %s", o.name, strerror(errno));
        return NF_EXIT_USAGE;
    }
    char err[NF_ERR_LEN];
    struct nf_run **runs;
    size_t n;
    int rc = NF_EXIT_OK;
    struct nf_import_warnings warnings = {0};
    o.warnings = &warnings;
    if (nf_import_parse(buf, len, &o, &runs, &n, err, sizeof(err))) {
        nf_err("%s", err);
        nf_import_warnings_free(&warnings);
        free(buf);
        return NF_EXIT_USAGE;
    }
    free(buf);
    struct nf_store *s = nf_cmd_open_store("import", 1, &rc);
    size_t clashed = 0;
    int st = s ? nf_store_insert_runs(s, runs, n, a->renumber, &clashed) : 0;
    if (st == NF_STORE_TAKEN) {
        /* The same export imported twice, most likely: its runs are there. */
        nf_err("import: %s: %zu of its %zu run ids are already in the store (the first: %s); "
               "nothing stored: --renumber stores them under new ids",
               o.name, clashed, n, nf_store_error(s));
        rc = NF_EXIT_USAGE;
    } else if (st) {
        nf_err("import: %s", nf_store_error(s));
        rc = NF_EXIT_FAIL;
    } else if (clashed) {
        nf_warn("import: %zu of %zu run ids were already in the store: renumbered", clashed, n);
    }
    /* What the file lacked, once it is stored. */
    for (size_t i = 0; s && rc == NF_EXIT_OK && i < warnings.n; i++)
        nf_warn("%s", warnings.v[i]);
    nf_import_warnings_free(&warnings);
    for (size_t i = 0; s && rc == NF_EXIT_OK && i < n; i++) {
        size_t reps = 0;
        for (size_t k = 0; k < runs[i]->nmetrics; k++)
            if (runs[i]->metrics[k].n > reps)
                reps = runs[i]->metrics[k].n;
        /* A JSON import keeps its labels and names as given. */
        char *label = nf_xprintable(runs[i]->label), *wl = nf_xprintable(runs[i]->workload);
        printf("imported run %lld (label %s, %s, %zu repetition%s)\n", (long long)runs[i]->id,
               label, wl, reps, reps == 1 ? "" : "s");
        free(label);
        free(wl);
    }
    nf_runs_free(runs, n);
    nf_store_close(s);
    return rc;
}

int cmd_import(int argc, char **argv)
{
    struct import_args a = {.better = -1};
    int first, rc;
    if (nf_cmd_parse("import", &nf_cmd_import_opts, &a, argc, argv, &first, &rc) == 0)
        rc = import_file(&a, argc, argv, first);
    nf_optlist_free(&a.labels);
    return rc;
}
