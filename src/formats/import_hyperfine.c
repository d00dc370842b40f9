/* hyperfine --export-json: one run per benchmarked command.  Each command's
 * "times" (wall seconds per repetition) become the metric "wall" in seconds,
 * as `noisefloor run -- COMMAND` names it.  A result with a repetition that
 * exited non-zero (hyperfine --ignore-failure) is refused, not stored.  Labels: one --label per
 * command in order, or one for all, or by default the command itself (hyperfine's
 * --command-name when given), which must then be a label as -L takes it (one line:
 * a command that is a multi-line shell script needs a --label). */
#include "formats/import_int.h"

#include <stdio.h>
#include <string.h>

#include "core/run.h"
#include "core/util.h"

int nf_import_hyperfine(const char *buf, size_t len, const struct nf_import_opts *o,
                        struct nf_run ***runs, size_t *n, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_loadb(buf, len, 0, &je);
    if (!root)
        return nf_import_fail(err, errlen, o->name, je.line > 0 ? (size_t)je.line : 1,
                              "expected JSON: %s", je.text);
    int rc = 0;
    const json_t *results = json_object_get(root, "results");
    if (!json_is_array(results) || json_array_size(results) == 0) {
        rc = nf_import_fail(err, errlen, o->name, 1,
                            "expected {\"results\": [...]} "
                            "as hyperfine --export-json writes it");
        goto out;
    }
    size_t nres = json_array_size(results);
    if (o->nlabels > 1 && o->nlabels != nres) {
        rc = nf_import_fail(err, errlen, o->name, 1,
                            "expected %zu --label (one per "
                            "command) or one, got %zu",
                            nres, o->nlabels);
        goto out;
    }
    for (size_t i = 0; i < nres; i++) {
        const json_t *r = json_array_get(results, i);
        size_t line = nf_json_elem_line(buf, len, "results", i);
        const char *cmd = json_string_value(json_object_get(r, "command"));
        const json_t *times = json_object_get(r, "times");
        if (!json_is_object(r) || !cmd || !*cmd) {
            rc = nf_import_fail(err, errlen, o->name, line,
                                "expected a \"command\" string in result %zu", i + 1);
            goto out;
        }
        if (o->nlabels == 0) {
            char what[64], lerr[NF_ERR_LEN];
            snprintf(what, sizeof(what), "label (the \"command\" of result %zu)", i + 1);
            if (nf_label_check(what, cmd, lerr, sizeof(lerr))) {
                rc = nf_import_fail(err, errlen, o->name, line, "%s; give --label", lerr);
                goto out;
            }
        }
        if (!json_is_array(times) || json_array_size(times) == 0) {
            rc = nf_import_fail(err, errlen, o->name, line,
                                "expected a non-empty \"times\" "
                                "array in result %zu (hyperfine 1.11 or later)",
                                i + 1);
            goto out;
        }
        struct nf_run *run = nf_import_new_run(o, i, cmd, "command");
        nf_import_push(runs, n, run);
        char *args[1] = {(char *)cmd};
        nf_run_set_args(run, 1, args);
        struct nf_metric *m = nf_run_metric(run, "wall", "seconds", NF_BETTER_LOWER, 1);
        for (size_t k = 0; k < json_array_size(times); k++) {
            const json_t *t = json_array_get(times, k);
            if (!json_is_number(t) || json_number_value(t) < 0) {
                rc = nf_import_fail(err, errlen, o->name, line,
                                    "expected \"times\" of "
                                    "result %zu to hold seconds (non-negative numbers)",
                                    i + 1);
                goto out;
            }
            nf_metric_push(m, json_number_value(t), 100.0);
        }
        run->repeat = (int)m->n;
        /* A repetition that exited non-zero (or was killed: null) did not
         * do the work whose time is wanted; hyperfine times it anyway with
         * --ignore-failure.  Such times are not samples. */
        const json_t *codes = json_object_get(r, "exit_codes");
        if (codes && (!json_is_array(codes) || json_array_size(codes) != m->n)) {
            rc = nf_import_fail(err, errlen, o->name, line,
                                "expected \"exit_codes\" of result %zu to have one code per "
                                "time (%zu)",
                                i + 1, m->n);
            goto out;
        }
        size_t failed = 0;
        for (size_t k = 0; k < json_array_size(codes); k++)
            if (!json_is_integer(json_array_get(codes, k)) ||
                json_integer_value(json_array_get(codes, k)) != 0)
                failed++;
        if (failed) {
            char q[64];
            nf_quote(q, sizeof(q), cmd, strlen(cmd));
            rc = nf_import_fail(err, errlen, o->name, line,
                                "expected every repetition of result %zu ('%s') to succeed, "
                                "but %zu of %zu exited non-zero (\"exit_codes\"); their times "
                                "are not measurements",
                                i + 1, q, failed, m->n);
            goto out;
        }
    }
out:
    json_decref(root);
    return rc;
}
