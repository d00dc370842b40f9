/* print.c — what bisect prints of a bisection: its table's rows, its
 * end (or its JSON), its log, and the log read back for replay
 * (bisect/print.h). */
#include "bisect/print.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numfmt.h"
#include "core/run.h"
#include "core/util.h"

static void fmt_ci(char *buf, size_t len, const struct nf_brow *r)
{
    if (!isfinite(r->change_pct))
        snprintf(buf, len, "-");
    else if (!isfinite(r->ci_low_pct))
        snprintf(buf, len, "%+.2f%%", r->change_pct);
    else
        snprintf(buf, len, "%+.2f%% [%+.2f%%, %+.2f%%]", r->change_pct, r->ci_low_pct,
                 r->ci_high_pct);
}

void nf_bisect_text_row(void *ctx, const struct nf_brow *r)
{
    size_t *step = ctx;
    char ci[96], what[16];
    if (r->kind == NF_BTEST_ENDPOINT) {
        printf("%-6s %-12s %6s  %-30s %-12s %s\n", "step", "revision", "rounds", "change vs GOOD",
               "decision", "subject");
        snprintf(what, sizeof(what), "BAD");
    } else if (r->kind == NF_BTEST_CONFIRM) {
        snprintf(what, sizeof(what), "parent");
    } else {
        snprintf(what, sizeof(what), "%zu", ++*step);
    }
    fmt_ci(ci, sizeof(ci), r);
    printf("%-6s %.12s %6zu  %-30s %-12s %s\n", what, r->sha, r->rounds, ci, r->decision,
           r->subject);
    fflush(stdout);
}

/* A row as compare's and ab's JSON say it (doc/noisefloor-bisect.1):
 * change_pct of the means, oriented in change_better_pct; the test's
 * estimate and its CI at ci_level_pct. */
static json_t *row_json(const struct nf_brow *r)
{
    json_t *j =
        json_pack("{s:s,s:s,s:I,s:s,s:b}", "commit", r->sha, "subject", r->subject, "rounds",
                  (json_int_t)r->rounds, "decision", r->decision, "given", r->given);
    json_object_set_new(j, "baseline_mean", nf_json_num(r->base_mean));
    json_object_set_new(j, "mean", nf_json_num(r->mean));
    json_object_set_new(j, "change_pct", nf_json_num(r->means_pct));
    json_object_set_new(j, "change_better_pct", nf_json_num(r->means_better_pct));
    json_object_set_new(j, "test_change_pct", nf_json_num(r->change_pct));
    json_object_set_new(j, "ci_low_pct", nf_json_num(r->ci_low_pct));
    json_object_set_new(j, "ci_high_pct", nf_json_num(r->ci_high_pct));
    json_object_set_new(j, "ci_level_pct", nf_json_num(r->ci_level_pct));
    return j;
}

/* The end of a bisection: the final line and the counts, or the JSON. */
void nf_bisect_print_end(const struct nf_bisect_out *o, int json)
{
    if (json) {
        json_t *j = json_object();
        json_object_set_new(j, "result", json_string(nf_bresult_name(o->result)));
        const struct nf_brow *cf = NULL; /* the confirmation's row */
        for (size_t i = 0; i < o->nrows; i++)
            if (o->rows[i].kind == NF_BTEST_CONFIRM)
                cf = &o->rows[i];
        json_object_set_new(j, "first_bad",
                            o->result == NF_BRES_FOUND && cf ? row_json(cf) : json_null());
        json_t *steps = json_array();
        for (size_t i = 0; i < o->nrows; i++)
            if (o->rows[i].kind == NF_BTEST_STEP)
                json_array_append_new(steps, row_json(&o->rows[i]));
        json_object_set_new(j, "steps", steps);
        json_object_set_new(j, "rounds", json_integer((json_int_t)o->rounds));
        json_object_set_new(j, "builds", json_integer((json_int_t)o->builds));
        nf_json_dumpf(j, stdout, NF_JSON_FLAGS);
        fputc('\n', stdout);
        json_decref(j);
        return;
    }
    if (o->result == NF_BRES_FOUND) {
        printf("\nfirst bad commit: %.12s %s: %+.1f%% [%+.1f%%, %+.1f%%] on %s (confirmed against "
               "its parent, %zu rounds%s%s)\n",
               o->first_bad, o->subject, o->change_pct, o->ci_low_pct, o->ci_high_pct, o->metric,
               o->confirm_rounds, o->why[0] ? "; " : "", o->why);
    } else {
        printf("\n%s\n", o->why);
    }
    printf("%zu step%s, %zu rounds, %zu build%s\n", o->steps, o->steps == 1 ? "" : "s", o->rounds,
           o->builds, o->builds == 1 ? "" : "s");
}

void nf_bisect_log_row(void *ctx, const struct nf_brow *r)
{
    (void)ctx;
    char ci[96];
    fmt_ci(ci, sizeof(ci), r);
    if (r->kind == NF_BTEST_ENDPOINT) {
        printf("# endpoint check: BAD vs GOOD %s, %zu rounds: %s\n", ci, r->rounds, r->decision);
    } else if (r->kind == NF_BTEST_CONFIRM) {
        printf("# confirmation against its parent: %s, %zu rounds: %s\n", ci, r->rounds,
               r->decision);
    } else if (r->given) {
        printf("# %s: [%s] %s (from a replayed log)\n", r->decision, r->sha, r->subject);
        printf("%s %s\n", r->decision, r->sha);
    } else {
        printf("# %s: [%s] %s (%zu rounds, %s vs GOOD)\n", r->decision, r->sha, r->subject,
               r->rounds, ci);
        if (strcmp(r->decision, "between") != 0)
            printf("%s %s\n", r->decision, r->sha);
    }
}

int nf_bisect_read_log(const char *file, int remeasure, char **start_line,
                       struct nf_bmark **marks_out, size_t *nmarks_out, char *err, size_t errlen)
{
    *start_line = NULL;
    *marks_out = NULL;
    *nmarks_out = 0;
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read %s", file);
        return -1;
    }
    char line[65536], *start = NULL;
    struct nf_bmark *marks = NULL;
    size_t nmarks = 0, lineno = 0;
    int rc = 0;
    char buf[512];
    while (!start && fgets(line, sizeof(line), f)) {
        lineno++;
        if (strncmp(line, "noisefloor bisect start ", 24) == 0)
            start = line;
    }
    while (start && rc == 0 && fgets(buf, sizeof(buf), f)) {
        lineno++;
        buf[strcspn(buf, "\n")] = 0;
        if (!buf[0] || buf[0] == '#')
            continue;
        char word[8] = "", rev[NF_SHA_LEN + 1] = "", extra[2] = "";
        if (sscanf(buf, "%7s %40s %1s", word, rev, extra) != 2 ||
            (strcmp(word, "good") != 0 && strcmp(word, "bad") != 0 && strcmp(word, "skip") != 0)) {
            snprintf(err, errlen, "%s:%zu: '%.200s' is not 'good REV', 'bad REV' or 'skip REV'",
                     file, lineno, buf);
            rc = -1;
            break;
        }
        if (remeasure)
            continue;
        marks = nf_xrealloc(marks, (nmarks + 1) * sizeof(*marks));
        snprintf(marks[nmarks].sha, sizeof(marks[nmarks].sha), "%s", rev);
        marks[nmarks++].what = word[0];
    }
    fclose(f);
    if (!start && rc == 0) {
        snprintf(err, errlen, "%s has no 'noisefloor bisect start' line", file);
        rc = -1;
    }
    if (rc) {
        free(marks);
        return rc;
    }
    line[strcspn(line, "\n")] = 0;
    *start_line = nf_xstrdup(start);
    *marks_out = marks;
    *nmarks_out = nmarks;
    return 0;
}
