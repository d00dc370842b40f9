/* noisefloor import FILE --format F: results of other tools (and our own
 * export) into the store, all runs of a file in one transaction. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"
#include "store/import.h"

#define MAX_LABELS 256

static void usage(FILE *out)
{
    fputs("usage: noisefloor import FILE --format F [--label L]... [--workload W]\n"
          "                         [--metric NAME] [--unit U] [--better lower|higher]\n\n"
          "Store the runs in FILE ('-': stdin).  Formats:\n"
          "  values          one number per line, '#' comments; one file is one run;\n"
          "                  --metric NAME (value) --unit U --better lower|higher\n"
          "  perf-stat-csv   'perf stat -x,' output (with or without -r, -o, --append):\n"
          "                  each perf invocation in the file is one repetition\n"
          "  perf-stat-json  'perf stat -j' output, the same way\n"
          "  hyperfine-json  'hyperfine --export-json': one run per command, labelled by\n"
          "                  the command unless --label is given (once, or per command)\n"
          "  json            'noisefloor export' output; runs keep labels and ids (an id\n"
          "                  already taken in the database gets a new one)\n\n"
          "  -L, --label L    label of the run (values and perf-stat-* need one)\n"
          "  -w, --workload W workload name (default: values, perf-stat, command)\n\n"
          "A malformed file: one line FILE:LINE: expected ..., exit 2, nothing stored.\n",
          out);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 65536, n = 0, r;
    char *buf = nf_xmalloc(cap);
    while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            buf = nf_xrealloc(buf, cap);
        }
    }
    int bad = ferror(f);
    if (f != stdin)
        fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

enum { OPT_METRIC = 256, OPT_UNIT, OPT_BETTER };

int cmd_import(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'},
        {"label", required_argument, 0, 'L'},
        {"workload", required_argument, 0, 'w'},
        {"metric", required_argument, 0, OPT_METRIC},
        {"unit", required_argument, 0, OPT_UNIT},
        {"better", required_argument, 0, OPT_BETTER},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *labels[MAX_LABELS];
    struct nf_import_opts o = {.better = NF_BETTER_LOWER, .labels = labels};
    int values_opt = 0, c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:L:w:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f': o.format = optarg; break;
        case 'L':
            if (o.nlabels == MAX_LABELS) {
                nf_err("import: too many --label (at most %d)", MAX_LABELS);
                return NF_EXIT_USAGE;
            }
            if (!*optarg || !nf_utf8_valid(optarg, strlen(optarg), NULL)) {
                nf_err("import: --label must be non-empty UTF-8 text");
                return NF_EXIT_USAGE;
            }
            labels[o.nlabels++] = optarg;
            break;
        case 'w': o.workload = optarg; break;
        case OPT_METRIC:
            o.metric = optarg;
            values_opt = 1;
            break;
        case OPT_UNIT:
            o.unit = optarg;
            values_opt = 1;
            break;
        case OPT_BETTER:
            if (nf_better_parse(optarg, &o.better)) {
                nf_err("import: --better wants 'lower' or 'higher', not '%s'", optarg);
                return NF_EXIT_USAGE;
            }
            values_opt = 1;
            break;
        case 'h': usage(stdout); return NF_EXIT_OK;
        case ':':
            nf_err("import: option '%s' needs a value", argv[optind - 1]);
            return NF_EXIT_USAGE;
        default: nf_err("import: unknown option '%s'", argv[optind - 1]); return NF_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        nf_err("import: %s (usage: noisefloor import FILE --format F)",
               optind >= argc ? "which file?" : "one file at a time");
        return NF_EXIT_USAGE;
    }
    o.name = argv[optind];
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
    size_t len;
    char *buf = read_all(o.name, &len);
    if (!buf) {
        nf_err("import: cannot read '%s': %s", o.name, strerror(errno));
        return NF_EXIT_USAGE;
    }
    char err[NF_ERR_LEN];
    struct nf_run **runs;
    size_t n;
    int rc = NF_EXIT_OK;
    if (nf_import_parse(buf, len, &o, &runs, &n, err, sizeof(err))) {
        nf_err("%s", err);
        free(buf);
        return NF_EXIT_USAGE;
    }
    free(buf);
    struct nf_store *s = nf_cmd_open_store("import", 1, &rc);
    if (s && nf_store_insert_runs(s, runs, n)) {
        nf_err("import: %s", nf_store_error(s));
        rc = NF_EXIT_FAIL;
    }
    for (size_t i = 0; s && rc == NF_EXIT_OK && i < n; i++) {
        size_t reps = 0;
        for (size_t k = 0; k < runs[i]->nmetrics; k++)
            if (runs[i]->metrics[k].n > reps)
                reps = runs[i]->metrics[k].n;
        printf("imported run %lld (label %s, %s, %zu repetition%s)\n", (long long)runs[i]->id,
               runs[i]->label, runs[i]->workload, reps, reps == 1 ? "" : "s");
    }
    nf_runs_free(runs, n);
    nf_store_close(s);
    return rc;
}
