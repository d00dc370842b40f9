/* noisefloor's own JSON: {"runs": [run, ...]} as `export` writes it, or
 * one run as `run --json` prints it; each run as nf_run_from_json
 * (core/run.h) reads it. */
#include "formats/import_int.h"

#include <stdlib.h>

#include "core/util.h"

int nf_import_json(const char *buf, size_t len, const struct nf_import_opts *o,
                   struct nf_run ***runs, size_t *n, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return nf_import_fail(err, errlen, o->name, je.line > 0 ? (size_t)je.line : 1,
                              "expected JSON: %s", je.text);
    const json_t *list = json_object_get(root, "runs");
    const char *key = "runs";
    json_t *single = NULL;
    if (!list && json_is_object(root) && json_object_get(root, "metrics")) {
        single = json_array(); /* one run, as `run --json` prints it */
        json_array_append(single, root);
        list = single;
        key = NULL;
    }
    int rc = 0;
    if (!json_is_array(list)) {
        rc = nf_import_fail(err, errlen, o->name, 1,
                            "expected {\"runs\": [run, ...]} as 'noisefloor export' writes it");
        goto out;
    }
    if (o->nlabels > 1 && o->nlabels != json_array_size(list)) {
        rc = nf_import_fail(err, errlen, o->name, 1,
                            "expected %zu --label (one per run) "
                            "or one, got %zu",
                            json_array_size(list), o->nlabels);
        goto out;
    }
    for (size_t i = 0; i < json_array_size(list); i++) {
        char why[256];
        struct nf_run *run = nf_run_from_json(json_array_get(list, i), why, sizeof(why));
        if (!run) {
            rc =
                nf_import_fail(err, errlen, o->name, nf_json_elem_line(buf, len, key, i),
                               "expected a run as noisefloor exports it (run %zu: %s)", i + 1, why);
            goto out;
        }
        if (o->nlabels) {
            free(run->label);
            run->label = nf_xstrdup(o->labels[o->nlabels == 1 ? 0 : i]);
        }
        if (o->workload) {
            free(run->workload);
            run->workload = nf_xstrdup(o->workload);
        }
        nf_import_push(runs, n, run);
    }
    if (*n == 0)
        rc = nf_import_fail(err, errlen, o->name, 1, "expected at least one run");
out:
    json_decref(single);
    json_decref(root);
    return rc;
}
