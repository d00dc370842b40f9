/* libFuzzer target over the importers (tests/fuzz/run.sh builds and runs it).
 *
 * Byte 0 picks the format (low bits) and whether to push the parsed runs
 * through an in-memory store too (bit 7); the rest is the file.  Beyond
 * "no crash, no leak, no UB", two oracles: a parsed run must survive
 * nf_run_to_json → nf_run_from_json unchanged, and (bit 7) storing and
 * loading it back must give the same JSON. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "formats/import.h"
#include "store/store.h"

static const char *const fmts[] = {"values",         "perf-stat-csv", "perf-stat-json",
                                   "hyperfine-json", "json",          "perf-stat"};
#define NFMTS (sizeof(fmts) / sizeof(fmts[0]))

static char *dump(const struct nf_run *r)
{
    json_t *j = nf_run_to_json(r);
    char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(j);
    return s;
}

static void same(const char *a, const char *b, const char *what)
{
    if (strcmp(a, b) != 0) {
        fprintf(stderr, "%s differs:\n%s\n%s\n", what, a, b);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *labels[1] = {"fuzz"};
    struct nf_import_opts o = {
        .format = fmts[(data[0] & 0x7f) % NFMTS],
        .name = "fuzz",
        .labels = labels,
        .nlabels = 1,
        .metric = "m",
        .unit = "u",
    };
    struct nf_run **runs;
    size_t n;
    char err[512];
    if (nf_import_parse((const char *)data + 1, size - 1, &o, &runs, &n, err, sizeof(err))) {
        if (strlen(err) == 0 || strchr(err, '\n'))
            abort(); /* one line, always */
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        char *a = dump(runs[i]);
        json_t *j = json_loads(a, 0, NULL);
        struct nf_run *back = nf_run_from_json(j, err, sizeof(err));
        if (!back) {
            fprintf(stderr, "re-parse failed: %s\n%s\n", err, a);
            abort();
        }
        char *b = dump(back);
        same(a, b, "JSON round trip");
        free(b);
        nf_run_free(back);
        json_decref(j);
        free(a);
    }
    if (data[0] & 0x80) {
        struct nf_store *s;
        if (nf_store_open(&s, ":memory:", NF_STORE_CREATE, err, sizeof(err)) != 0)
            abort();
        if (nf_store_insert_runs(s, runs, n, 1, NULL) != 0) {
            fprintf(stderr, "insert failed: %s\n", nf_store_error(s));
            abort();
        }
        for (size_t i = 0; i < n; i++) {
            struct nf_run *back;
            if (nf_store_load_run(s, runs[i]->id, &back) != 0)
                abort();
            char *a = dump(runs[i]), *b = dump(back);
            same(a, b, "store round trip");
            free(a);
            free(b);
            nf_run_free(back);
        }
        nf_store_close(s);
    }
    nf_runs_free(runs, n);
    return 0;
}
