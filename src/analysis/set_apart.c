/* The runs a comparison does not count: a job's runs made by an attempt
 * that a later attempt took over (status "superseded", core/run.h).  They
 * keep their label; they are set apart before anything reads the label's
 * runs (the tests, the diagnosis, the report's plots), and each row they
 * would have been part of says so.  And the runs it counts though they did
 * not finish: their finished repetitions are measurements like any other,
 * but a reader of the verdict should know that a variant failed or was
 * stopped part-way. */
#include "analysis/compare.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"

void nf_label_runs_set_apart(struct nf_label_runs *lr, struct nf_label_runs *apart)
{
    size_t kept = 0;
    apart->label = lr->label;
    apart->runs = nf_xcalloc(lr->nruns ? lr->nruns : 1, sizeof(*apart->runs));
    apart->nruns = 0;
    for (size_t r = 0; r < lr->nruns; r++) {
        if (lr->runs[r]->state == NF_RUN_SUPERSEDED)
            apart->runs[apart->nruns++] = lr->runs[r];
        else
            lr->runs[kept++] = lr->runs[r];
    }
    lr->nruns = kept;
}

static void note(const struct nf_cmp_block *b, struct nf_cmp_cell *cell,
                 const struct nf_label_runs *apart)
{
    char ids[160];
    size_t n = 0, len = 0, more = 0;
    ids[0] = 0;
    for (size_t r = 0; r < apart->nruns; r++) {
        const struct nf_run *run = apart->runs[r];
        if (!nf_cmp_block_has(b, run))
            continue;
        if (len + 24 < sizeof(ids))
            len += (size_t)snprintf(ids + len, sizeof(ids) - len, "%s%lld", n ? ", " : "",
                                    (long long)run->id);
        else
            more++;
        n++;
    }
    if (!n)
        return;
    if (more)
        snprintf(ids + len, sizeof(ids) - len, " and %zu more", more);
    nf_cmp_note(cell,
                "%s: %zu run%s of %s left out (run%s %s): a later attempt took the job over; "
                "list marks %s superseded",
                apart->label, n, n == 1 ? "" : "s",
                n == 1 ? "a superseded job attempt" : "superseded job attempts", n == 1 ? "" : "s",
                ids, n == 1 ? "it" : "them");
}

void nf_compare_note_set_apart(struct nf_comparison *c, const struct nf_label_runs *apart)
{
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 0; l < c->nlabels; l++)
            note(&c->blocks[i], &c->blocks[i].cells[l], &apart[l]);
}

static const char *unfinished_word(const struct nf_run *run)
{
    switch (run->state) {
    case NF_RUN_FAILED: return "failed";
    case NF_RUN_INTERRUPTED: return "was interrupted";
    case NF_RUN_INCOMPLETE: return "is incomplete";
    case NF_RUN_RUNNING: return "is still running";
    default: return NULL;
    }
}

static void note_unfinished(const struct nf_cmp_block *b, struct nf_cmp_cell *cell,
                            const struct nf_label_runs *lr)
{
    for (size_t r = 0; r < lr->nruns; r++) {
        struct nf_run *run = lr->runs[r];
        const char *what = unfinished_word(run);
        if (!what || !nf_cmp_block_has(b, run))
            continue;
        const struct nf_metric *m = nf_run_find(run, b->metric);
        if (!m || !m->supported)
            continue;
        nf_cmp_note(cell,
                    "%s: run %lld %s after %zu of %d repetition%s; %s counted (list shows its "
                    "status)",
                    lr->label, (long long)run->id, what, m->n, run->repeat,
                    run->repeat == 1 ? "" : "s",
                    m->n == 1 ? "that one is"
                    : m->n    ? "those are"
                              : "it has none to be");
    }
}

void nf_compare_note_unfinished(struct nf_comparison *c, const struct nf_label_runs *in)
{
    for (size_t i = 0; i < c->nblocks; i++)
        for (size_t l = 0; l < c->nlabels; l++)
            note_unfinished(&c->blocks[i], &c->blocks[i].cells[l], &in[l]);
}
