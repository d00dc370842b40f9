/* noisefloor profdiff BASE OTHER: per-symbol difference of the profiles of
 * two labels (every profiled run of a label summed), as `perf diff` shows
 * it: the baseline's overhead and the other's change in percentage points,
 * and whether the change is outside the noise.  Each repetition's share of a
 * symbol is one unit: a Welch CI of the change of the mean shares, Holm over
 * the symbols shown, and a star as compare marks a change
 * (stats/profdelta.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/defaults.h"
#include "core/numfmt.h"
#include "core/util.h"
#include "elf/demangle.h"
#include "profile/profile.h"
#include "stats/profdelta.h"
#include "store/store.h"

struct profdiff_args {
    long top;
    double min_pct;
    double alpha;
    int json;
};

const struct nf_opts nf_cmd_profdiff_opts = {
    .usage = "noisefloor profdiff [OPTIONS] BASE OTHER",
    .about = "Per-symbol difference of the profiles stored by 'noisefloor profile' under\n"
             "two labels (all profiled runs of a label summed), like perf diff: the\n"
             "baseline's overhead and the change of OTHER in percentage points, with the\n"
             "CI of the change over the profiled repetitions (each one's share of the\n"
             "symbol) and *x%* when it is outside the noise, after Holm's correction over\n"
             "the symbols shown.  Sorted by baseline overhead; a symbol only in OTHER is\n"
             "placed by its own overhead and shown with a blank baseline.  Overheads are\n"
             "shares of the sample period; with repetitions on both sides the columns,\n"
             "the order, --min and --top all use the mean share over the repetitions.\n"
             "Symbols pair up by name and the file name of their dso.",
    .options =
        (const struct nf_option[]){
            NF_OPT_INT(0, "top", struct profdiff_args, top, 0, 1000000, "a count (0: all)", "N",
                       "rows shown (0: all)", NF_DEF("20")),
            NF_OPT_DOUBLE(0, "min", struct profdiff_args, min_pct, 0, 100, 0, "a percentage", "PCT",
                          "leave out symbols below PCT overhead on both sides, as\nshown",
                          NF_DEF("0")),
            NF_OPT_DOUBLE(0, "alpha", struct profdiff_args, alpha, 0, 0.5,
                          NF_OPTF_LO_OPEN | NF_OPTF_HI_OPEN, "a significance level", "A",
                          "significance level of the CIs and stars",
                          NF_DEF(NF_STR(NF_DEFAULT_ALPHA))),
            NF_OPT_FLAG(0, "json", struct profdiff_args, json, "the difference as JSON"),
            NF_OPT_END,
        },
};

/* The rows shown and, when both labels kept their repetitions, each one's
 * delta over them (NULL otherwise). */
struct shown {
    size_t n;                  /* rows shown: --top of the rows above --min */
    size_t reps[2];            /* repetitions with samples, per label */
    struct nf_prof_delta *dlt; /* n of them, or NULL */
};

/* The deltas of the first n rows of d over the repetitions: 0, or -1 when
 * a label kept none with samples. */
static int rep_deltas(const struct nf_profile p[2], const struct nf_profdiff *d, size_t n,
                      double alpha, size_t reps[2], struct nf_prof_delta **out)
{
    double *m[2];
    *out = NULL;
    for (int i = 0; i < 2; i++)
        reps[i] = nf_profile_rep_shares(&p[i], d, n, &m[i]);
    if (n && reps[0] && reps[1]) {
        *out = nf_xcalloc(n, sizeof(**out));
        if (nf_profile_deltas(m[0], reps[0], m[1], reps[1], n, alpha, *out)) {
            free(*out);
            *out = NULL;
        }
    }
    free(m[0]);
    free(m[1]);
    return *out ? 0 : -1;
}

/* Order and cut d as shown: by the mean shares over the repetitions when
 * both labels kept them (the Baseline and Delta columns then show those),
 * else by the summed profiles' shares; --min on the same shares, then
 * --top; the deltas over the repetitions of the rows shown (Holm is over
 * them). */
static void deltas(const struct nf_profile p[2], struct nf_profdiff *d, long top, double min_pct,
                   double alpha, struct shown *sh)
{
    memset(sh, 0, sizeof(*sh));
    struct nf_prof_delta *all;
    if (rep_deltas(p, d, d->n, alpha, sh->reps, &all) == 0) {
        double *mean = nf_xcalloc(2 * d->n, sizeof(*mean));
        for (size_t i = 0; i < d->n; i++) {
            mean[i] = all[i].base_pct;
            mean[d->n + i] = all[i].var_pct;
        }
        nf_profdiff_order(d, mean, mean + d->n, min_pct);
        free(mean);
        free(all);
    } else {
        nf_profdiff_order(d, NULL, NULL, min_pct);
    }
    sh->n = top == 0 || d->n < (size_t)top ? d->n : (size_t)top;
    rep_deltas(p, d, sh->n, alpha, sh->reps, &sh->dlt);
}

/* "*+0.57%*" outside the noise, "(+0.57%)" inside it, "+0.57%" without a
 * test; no "-0.00". */
static void delta_cell(char *buf, size_t len, double v, const struct nf_prof_delta *x)
{
    v = fabs(v) < 0.005 ? 0.0 : v;
    if (!x || !isfinite(x->p_adj))
        snprintf(buf, len, "%+.2f%%", v);
    else if (x->outside)
        snprintf(buf, len, "*%+.2f%%*", v);
    else
        snprintf(buf, len, "(%+.2f%%)", v);
}

static void print_text(const char *const labels[2], const struct nf_profile p[2],
                       const size_t nruns[2], const struct nf_profdiff *d, const struct shown *sh,
                       double alpha)
{
    for (int i = 0; i < 2; i++) {
        char *label = nf_xprintable(labels[i]);
        printf("# %-9s '%s': %zu run%s, %zu repetition%s, %llu samples of %s, %llu lost\n",
               i ? "Other:" : "Baseline:", label, nruns[i], nruns[i] == 1 ? "" : "s", sh->reps[i],
               sh->reps[i] == 1 ? "" : "s", (unsigned long long)p[i].samples,
               p[i].event ? p[i].event : "?", (unsigned long long)p[i].lost);
        free(label);
    }
    /* the CI is each symbol's own (unadjusted), the star Holm's: both
     * shown, each under its name, so that an unstarred delta with a CI
     * that excludes 0 reads as what it is */
    if (sh->dlt)
        printf("#\n# %8s  %10s  %-18s  %-7s  %s\n", "Baseline", "Delta", "raw CI of delta",
               "Holm p", "Symbol  [dso]");
    else
        printf("#\n# %8s  %10s  %-18s  %s\n", "Baseline", "Delta", "", "Symbol  [dso]");
    size_t starred = 0, with_ci = 0;
    for (size_t i = 0; i < sh->n; i++) {
        const struct nf_profdiff_row *r = &d->rows[i];
        const struct nf_prof_delta *x = sh->dlt ? &sh->dlt[i] : NULL;
        char base[32] = "", delta[32] = "", ci[48] = "", padj[40] = "";
        if (r->in_base)
            snprintf(base, sizeof(base), "%.2f%%", x ? x->base_pct : r->base_pct);
        if (x || r->in_other)
            delta_cell(delta, sizeof(delta), x ? x->delta : r->delta, x);
        if (x && isfinite(x->lo) && isfinite(x->hi)) {
            snprintf(ci, sizeof(ci), "[%+.2f, %+.2f]", x->lo, x->hi);
            with_ci++;
        } else if (x) {
            snprintf(ci, sizeof(ci), "-");
        }
        if (x && isfinite(x->p_adj))
            snprintf(padj, sizeof(padj), "  %-7.2g", x->p_adj);
        else if (x)
            snprintf(padj, sizeof(padj), "  %-7s", "-");
        starred += x && x->outside;
        char *dm;
        /* names read from binaries, printed as given but for control bytes */
        char *sym = nf_xprintable(nf_demangle_show(r->symbol, &dm)), *dso = nf_xprintable(r->dso);
        printf("  %8s  %10s  %-18s%s  %s  %s%s%s\n", base, delta, ci, padj, sym,
               dso[0] == '[' ? "" : "[", dso, dso[0] == '[' ? "" : "]");
        free(sym);
        free(dso);
        free(dm);
    }
    if (d->n == 0)
        printf("# no symbols%s\n", p[0].n + p[1].n ? " above --min" : " (no samples)");
    else if (sh->dlt)
        printf("#\n# Baseline and Delta: mean shares over the repetitions (percent of each "
               "one's period),\n# which order the rows and --min and --top go by;\n# raw CI: "
               "Welch's %g%% interval of the delta over the repetitions, each symbol's own (not "
               "adjusted);\n# Holm p: its p adjusted over the symbols shown; *x%%*: outside the "
               "noise (Holm p below alpha)\n# after Holm's correction over the %zu symbol%s shown "
               "(%zu starred)%s.\n",
               100 * (1 - alpha), sh->n, sh->n == 1 ? "" : "s", starred,
               with_ci < sh->n ? "; no CI with one repetition a side" : "");
    else
        printf("#\n# no CI: the profiles of %s were stored without their repetitions (record "
               "them again with 'noisefloor profile')\n",
               sh->reps[0]   ? labels[1]
               : sh->reps[1] ? labels[0]
                             : "both labels");
}

/* JSON: "demangled" beside the symbol of a C++ name (elf/demangle.h). */
static void set_demangled(json_t *o, const char *sym)
{
    char *d = nf_demangle(sym);
    if (d)
        json_object_set_new(o, "demangled", json_string(d));
    free(d);
}

static void print_json(const char *const labels[2], const struct nf_profile p[2],
                       const size_t nruns[2], const struct nf_profdiff *d, const struct shown *sh,
                       double alpha)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < sh->n; i++) {
        const struct nf_profdiff_row *r = &d->rows[i];
        json_t *o =
            json_pack("{s:s,s:s,s:o,s:o,s:f,s:I,s:I}", "symbol", r->symbol, "dso", r->dso,
                      "baseline_pct", r->in_base ? json_real(r->base_pct) : json_null(),
                      "other_pct", r->in_other ? json_real(r->other_pct) : json_null(), "delta_pct",
                      r->delta, "baseline_samples", (json_int_t)r->base_samples, "other_samples",
                      (json_int_t)r->other_samples);
        set_demangled(o, r->symbol);
        const struct nf_prof_delta *x = sh->dlt ? &sh->dlt[i] : NULL;
        if (x) {
            json_object_set_new(o, "mean_baseline_pct", nf_json_num(x->base_pct));
            json_object_set_new(o, "mean_other_pct", nf_json_num(x->var_pct));
            json_object_set_new(o, "mean_delta_pct", nf_json_num(x->delta));
            json_object_set_new(o, "ci_low_pct", nf_json_num(x->lo));
            json_object_set_new(o, "ci_high_pct", nf_json_num(x->hi));
            json_object_set_new(o, "p_value", nf_json_num(x->p));
            json_object_set_new(o, "p_adjusted", nf_json_num(x->p_adj));
            json_object_set_new(o, "outside_noise", json_boolean(x->outside));
        }
        json_array_append_new(rows, o);
    }
    json_t *side[2];
    for (int i = 0; i < 2; i++)
        side[i] =
            json_pack("{s:s,s:I,s:I,s:I,s:I,s:s}", "label", labels[i], "runs", (json_int_t)nruns[i],
                      "repetitions", (json_int_t)sh->reps[i], "samples", (json_int_t)p[i].samples,
                      "lost", (json_int_t)p[i].lost, "event", p[i].event ? p[i].event : "");
    json_t *j =
        json_pack("{s:o,s:o,s:f,s:s,s:o}", "baseline", side[0], "other", side[1], "alpha", alpha,
                  "sorted_by", sh->dlt ? "mean_baseline_pct" : "baseline_pct", "rows", rows);
    nf_json_dumpf(j, stdout, NF_JSON_FLAGS);
    fputc('\n', stdout);
    json_decref(j);
}

int cmd_profdiff(int argc, char **argv)
{
    struct profdiff_args a = {0}; /* the table's defaults, by nf_cmd_parse */
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
    for (int i = 0; i < loaded && rc == NF_EXIT_OK; i++)
        if (p[i].samples == 0) {
            /* Nothing to take a share of: a difference against it would
             * be every symbol of the other label, "new". */
            nf_err("profdiff: label '%s' has no samples in its profile (%zu run%s; the command "
                   "ran for less than a sampling period?): nothing to compare",
                   labels[i], nruns[i], nruns[i] == 1 ? "" : "s");
            rc = NF_EXIT_USAGE;
        }
    if (loaded == 2 && rc == NF_EXIT_OK) {
        if (p[0].event && p[1].event && strcmp(p[0].event, p[1].event) != 0)
            nf_warn("the profiles were sampled with different events (%s, %s): overheads are "
                    "still shares of each side's total",
                    p[0].event, p[1].event);
        struct nf_profdiff d;
        struct shown sh;
        nf_profile_diff(&p[0], &p[1], 0, &d);
        deltas(p, &d, a.top, a.min_pct, a.alpha, &sh);
        if (a.json)
            print_json(labels, p, nruns, &d, &sh, a.alpha);
        else
            print_text(labels, p, nruns, &d, &sh, a.alpha);
        free(sh.dlt);
        nf_profdiff_free(&d);
    }
    for (int i = 0; i < loaded; i++)
        nf_profile_free(&p[i]);
    nf_store_close(s);
    return rc;
}
