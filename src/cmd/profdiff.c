/* noisefloor profdiff BASE OTHER: per-symbol difference of the profiles of
 * two labels (every profiled run of a label summed), as `perf diff` shows
 * it: the baseline's overhead and the other's change in percentage points. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"
#include "profile/profile.h"
#include "store/export.h"
#include "store/store.h"

struct profdiff_args {
    long top;
    double min_pct;
    int json;
};

const struct nf_opts nf_cmd_profdiff_opts = {
    .usage = "noisefloor profdiff [OPTIONS] BASE OTHER",
    .about = "Per-symbol difference of the profiles stored by 'noisefloor profile' under\n"
             "two labels (all profiled runs of a label summed), like perf diff: the\n"
             "baseline's overhead and the change of OTHER in percentage points.  Sorted by\n"
             "baseline overhead; a symbol only in OTHER is placed by its own overhead and\n"
             "shown with a blank baseline, one only in BASE with a blank delta.  Symbols\n"
             "pair up by name and the file name of their dso.",
    .options =
        (const struct nf_option[]){
            NF_OPT_INT(0, "top", struct profdiff_args, top, 0, 1000000, "a count (0: all)", "N",
                       "rows shown (default 20; 0: all)"),
            NF_OPT_DOUBLE(0, "min", struct profdiff_args, min_pct, 0, 100, 0, "a percentage", "PCT",
                          "leave out symbols below PCT overhead on both sides (default 0)"),
            NF_OPT_FLAG(0, "json", struct profdiff_args, json, "the difference as JSON"),
            NF_OPT_END,
        },
};

static void print_text(const char *const labels[2], const struct nf_profile p[2],
                       const size_t nruns[2], const struct nf_profdiff *d, long top)
{
    for (int i = 0; i < 2; i++)
        printf("# %-9s '%s': %zu run%s, %llu samples of %s, %llu lost\n",
               i ? "Other:" : "Baseline:", labels[i], nruns[i], nruns[i] == 1 ? "" : "s",
               (unsigned long long)p[i].samples, p[i].event ? p[i].event : "?",
               (unsigned long long)p[i].lost);
    printf("#\n# %8s  %8s  %s\n", "Baseline", "Delta", "Symbol  [dso]");
    for (size_t i = 0; i < d->n && (top == 0 || i < (size_t)top); i++) {
        const struct nf_profdiff_row *r = &d->rows[i];
        char base[32] = "", delta[32] = "";
        if (r->in_base)
            snprintf(base, sizeof(base), "%.2f%%", r->base_pct);
        if (r->in_other)
            snprintf(delta, sizeof(delta), "%+.2f%%", fabs(r->delta) < 0.005 ? 0.0 : r->delta);
        printf("  %8s  %8s  %s  %s%s%s\n", base, delta, r->symbol, r->dso[0] == '[' ? "" : "[",
               r->dso, r->dso[0] == '[' ? "" : "]");
    }
    if (d->n == 0)
        printf("# no symbols%s\n", p[0].n + p[1].n ? " above --min" : " (no samples)");
}

static void print_json(const char *const labels[2], const struct nf_profile p[2],
                       const size_t nruns[2], const struct nf_profdiff *d, long top)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < d->n && (top == 0 || i < (size_t)top); i++) {
        const struct nf_profdiff_row *r = &d->rows[i];
        json_array_append_new(
            rows, json_pack("{s:s,s:s,s:o,s:o,s:f,s:I,s:I}", "symbol", r->symbol, "dso", r->dso,
                            "baseline_pct", r->in_base ? json_real(r->base_pct) : json_null(),
                            "other_pct", r->in_other ? json_real(r->other_pct) : json_null(),
                            "delta_pct", r->delta, "baseline_samples", (json_int_t)r->base_samples,
                            "other_samples", (json_int_t)r->other_samples));
    }
    json_t *side[2];
    for (int i = 0; i < 2; i++)
        side[i] = json_pack("{s:s,s:I,s:I,s:I,s:s}", "label", labels[i], "runs",
                            (json_int_t)nruns[i], "samples", (json_int_t)p[i].samples, "lost",
                            (json_int_t)p[i].lost, "event", p[i].event ? p[i].event : "");
    json_t *j = json_pack("{s:o,s:o,s:o}", "baseline", side[0], "other", side[1], "rows", rows);
    json_dumpf(j, stdout, NF_JSON_FLAGS);
    fputc('\n', stdout);
    json_decref(j);
}

int cmd_profdiff(int argc, char **argv)
{
    struct profdiff_args a = {.top = 20};
    int first, rc;
    if (nf_cmd_parse("profdiff", &nf_cmd_profdiff_opts, &a, argc, argv, &first, &rc))
        return rc;
    if (argc - first != 2) {
        nf_err("profdiff: two labels wanted, BASE and OTHER (got %d)", argc - first);
        return NF_EXIT_USAGE;
    }
    const char *labels[2] = {argv[first], argv[first + 1]};
    rc = NF_EXIT_OK;
    struct nf_store *s = nf_cmd_open_store("profdiff", 0, &rc);
    if (!s)
        return rc;
    struct nf_profile p[2];
    size_t nruns[2];
    int loaded = 0;
    for (; loaded < 2; loaded++) {
        int r = nf_store_load_label_profile(s, labels[loaded], &p[loaded], &nruns[loaded]);
        if (r) {
            nf_err("profdiff: %s", nf_store_error(s));
            rc = r == NF_STORE_NOTFOUND ? NF_EXIT_USAGE : NF_EXIT_FAIL;
            break;
        }
    }
    if (loaded == 2) {
        if (p[0].event && p[1].event && strcmp(p[0].event, p[1].event) != 0)
            nf_warn("the profiles were sampled with different events (%s, %s): overheads are "
                    "still shares of each side's total",
                    p[0].event, p[1].event);
        struct nf_profdiff d;
        nf_profile_diff(&p[0], &p[1], a.min_pct, &d);
        if (a.json)
            print_json(labels, p, nruns, &d, a.top);
        else
            print_text(labels, p, nruns, &d, a.top);
        nf_profdiff_free(&d);
    }
    for (int i = 0; i < loaded; i++)
        nf_profile_free(&p[i]);
    nf_store_close(s);
    return rc;
}
