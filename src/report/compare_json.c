/* A comparison as the compare JSON of noisefloor(1): one row per
 * variant and metric, the change on the metric's own scale, with the
 * notes, the noise diagnosis and the explanations (report/compare.h). */
#include <math.h>
#include <stdlib.h>

#include "core/util.h"
#include "report/compare.h"

#include "report/diag.h"
#include "report/fmt.h"

/* The deciding look of an ab session's design (doc/ab.md). */
/* Why a side of a row has no test: WHO ("the baseline", "this label") has
 * the metric <not counted> or <not supported>, or no data; nothing when
 * it has data. */
static void no_test_note(json_t *notes, const char *who, const struct nf_cmp_cell *y)
{
    const char *why = y->not_counted   ? "has this metric <not counted> (the event was opened but "
                                         "did not count, as the runs' note says): no test"
                      : y->unsupported ? "has this metric <not supported> (the event could not "
                                         "be counted): no test"
                      : !y->has_data   ? "has no data for this metric"
                                       : NULL;
    if (why) {
        char *t = nf_xasprintf("%s %s", who, why);
        json_array_append_new(notes, json_string(t));
        free(t);
    }
}

static json_t *seq_json(const struct nf_cmp_cell *x)
{
    const struct nf_seq_look *l = &x->look;
    json_t *o = json_object();
    json_object_set_new(o, "action", json_string(nf_seq_action_name(l->action)));
    json_object_set_new(o, "round", json_integer((json_int_t)l->rounds));
    json_object_set_new(o, "level", nf_json_num(l->level_effect));
    json_object_set_new(o, "z", nf_json_num(l->z_effect));
    json_object_set_new(o, "bound", nf_json_num(l->bound_effect));
    json_object_set_new(o, "z_equivalence", nf_json_num(l->z_equiv));
    json_object_set_new(o, "bound_equivalence", nf_json_num(l->bound_equiv));
    json_object_set_new(o, "eq_ci_low_pct", nf_json_num(l->eq_low_pct));
    json_object_set_new(o, "eq_ci_high_pct", nf_json_num(l->eq_high_pct));
    return o;
}

/* The locations change_pct compares (doc/noisefloor.1, compare --json). */
static const char *change_of(const struct nf_comparison *c, const struct nf_cmp_cell *x)
{
    if (x->pairing != NF_PAIR_NONE)
        return "pairs";
    const struct nf_test_row *t = nf_test_row(c->opts.test);
    return t && t->location != NF_LOC_MEAN ? "location" : "means";
}

json_t *nf_compare_json(const struct nf_comparison *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "baseline", json_string(c->labels[0]));
    json_object_set_new(o, "alpha", json_real(c->opts.alpha));
    json_object_set_new(o, "threshold_pct", json_real(c->opts.threshold_pct));
    json_object_set_new(o, "test", json_string(nf_test_name(c->opts.test)));
    /* what the labels' runs differ in, one line (analysis/unlike.h), or null */
    json_object_set_new(o, "unlike", c->unlike ? json_string(c->unlike) : json_null());
    json_t *rows = json_array();
    for (size_t i = 0; i < c->nblocks; i++) {
        const struct nf_cmp_block *b = &c->blocks[i];
        const struct nf_cmp_cell *base = &b->cells[0];
        for (size_t l = 1; l < c->nlabels; l++) {
            const struct nf_cmp_cell *x = &b->cells[l];
            json_t *r = json_object();
            json_object_set_new(r, "workload", json_string(b->workload));
            if (b->args) { /* rows split by arguments: this row's */
                json_t *args = json_array();
                for (size_t k = 0; k < b->nargs; k++)
                    json_array_append_new(args, json_string(b->argv[k]));
                json_object_set_new(r, "args", args);
            }
            json_object_set_new(r, "metric", json_string(b->metric));
            json_object_set_new(r, "unit", json_string(b->unit));
            json_object_set_new(r, "better",
                                json_string(b->better == NF_BETTER_LOWER ? "lower" : "higher"));
            json_object_set_new(r, "primary", json_boolean(b->primary));
            /* false: a side has the metric only as <not supported> */
            json_object_set_new(r, "supported",
                                json_boolean(!base->unsupported && !x->unsupported));
            if (b->family) { /* a percentile metric (analysis/percentile.h) */
                json_object_set_new(r, "percentile", json_real(b->pct));
                json_object_set_new(r, "events_per_rep", nf_json_num(x->events));
            }
            json_object_set_new(r, "label", json_string(c->labels[l]));
            /* a perf stat -r block's N, which its test uses */
            json_object_set_new(r, "baseline_n", json_integer((json_int_t)nf_compare_cell_n(base)));
            json_object_set_new(r, "n", json_integer((json_int_t)nf_compare_cell_n(x)));
            json_object_set_new(r, "baseline_mean", nf_json_num(base->has_data ? base->mean : NAN));
            json_object_set_new(r, "mean", nf_json_num(x->has_data ? x->mean : NAN));
            int ok = x->compared;
            /* the change of baseline_mean and mean, on the metric's own
             * scale and oriented (+ is better), as the tables show it */
            json_object_set_new(r, "change_pct",
                                nf_json_num(ok ? nf_compare_means_pct(b, x) : NAN));
            json_object_set_new(r, "change_better_pct",
                                nf_json_num(ok ? nf_compare_means_better_pct(b, x) : NAN));
            /* the change the test estimates, which the CI and p are of:
             * the means', the "location" of yuen and shift, or the
             * paired ratios' (change_of says which) */
            json_object_set_new(r, "test_change_pct", nf_json_num(ok ? x->r.change_pct : NAN));
            json_object_set_new(r, "change_of", json_string(change_of(c, x)));
            json_object_set_new(r, "ci_low_pct", nf_json_num(ok ? x->r.ci_low_pct : NAN));
            json_object_set_new(r, "ci_high_pct", nf_json_num(ok ? x->r.ci_high_pct : NAN));
            json_object_set_new(r, "ci_level_pct",
                                nf_json_num(ok ? nf_compare_ci_level(c, x) : NAN));
            json_object_set_new(r, "p_value", nf_json_num(ok ? x->r.p_value : NAN));
            json_object_set_new(r, "p_adjusted", nf_json_num(ok ? x->p_adjusted : NAN));
            /* which Holm family p_adjusted is of; null: in none */
            const char *fam = nf_family_name(x->family);
            json_object_set_new(r, "family", fam ? json_string(fam) : json_null());
            json_object_set_new(r, "significant", json_boolean(ok && x->significant));
            json_object_set_new(r, "verdict",
                                json_string(ok ? nf_verdict_name(x->verdict) : "inconclusive"));
            /* the labels ran the workload with different arguments */
            json_object_set_new(r, "different_workloads",
                                json_boolean(b->unlike_args && !c->allow_different));
            json_object_set_new(r, "pairing", json_string(nf_pairing_name(x->pairing)));
            json_object_set_new(r, "pairs",
                                x->pairing != NF_PAIR_NONE ? json_integer((json_int_t)x->npairs)
                                                           : json_null());
            json_object_set_new(r, "sequential", ok && x->sequential ? seq_json(x) : json_null());
            /* paired by rounds: serial correlation of the log-ratios */
            json_t *ac = json_null();
            if (ok && x->pairing == NF_PAIR_ROUNDS && x->serial.ac.n) {
                ac = json_object();
                json_object_set_new(ac, "lag1_r", nf_json_num(x->serial.ac.r));
                json_object_set_new(ac, "p", nf_json_num(x->serial.ac.p_pos));
                json_object_set_new(ac, "widened", json_boolean(x->serial.widened));
                json_object_set_new(ac, "variance_factor", nf_json_num(x->serial.f));
            }
            json_object_set_new(r, "autocorr", ac);
            json_object_set_new(r, "runs_needed",
                                ok && x->verdict == NF_INCONCLUSIVE && x->runs_needed
                                    ? json_integer((json_int_t)x->runs_needed)
                                    : json_null());
            json_t *notes = json_array();
            no_test_note(notes, "the baseline", base);
            no_test_note(notes, "this label", x);
            for (size_t k = 0; k < base->nnotes; k++)
                json_array_append_new(notes, json_string(base->notes[k]));
            for (size_t k = 0; k < x->nnotes; k++)
                json_array_append_new(notes, json_string(x->notes[k]));
            /* The noise diagnosis: one line per finding among the notes, and
             * structured beside them. */
            json_t *diag = json_array();
            for (size_t side = 0; side < 2; side++) {
                const struct nf_cmp_cell *y = side ? x : base;
                const char *label = c->labels[side ? l : 0];
                for (size_t k = 0; y->diag.done && k < y->diag.d.n; k++) {
                    char *line = nf_diag_line(label, &y->diag, k);
                    if (line)
                        json_array_append_new(notes, json_string(line));
                    free(line);
                }
                nf_diag_json_add(diag, label, &y->diag);
            }
            char *settle = nf_diag_settle_line(c->labels[l], &b->cells[0], x);
            if (settle)
                json_array_append_new(notes, json_string(settle));
            free(settle);
            json_object_set_new(r, "notes", notes);
            json_object_set_new(r, "diagnosis", diag);
            nf_explain_json(r, c, b, x);
            json_array_append_new(rows, r);
        }
    }
    json_object_set_new(o, "rows", rows);
    json_object_set_new(
        o, "families",
        json_pack("{s:I,s:I,s:I,s:I}", "primary", (json_int_t)c->family_rows[NF_FAMILY_PRIMARY],
                  "secondary", (json_int_t)c->family_rows[NF_FAMILY_SECONDARY], "constant",
                  (json_int_t)c->constant_rows, "sequential", (json_int_t)c->sequential_rows));
    return o;
}
