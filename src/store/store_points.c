/* The rows of a point load onto flat records (store_int.h,
 * nf_store_point_row), as both backends read them. */
#include "store/store_int.h"

#include <string.h>

static void want_whole(struct nf_store_pload *l, int64_t id)
{
    if (l->nwhole == l->wcap)
        l->whole = nf_xrealloc(l->whole, (l->wcap = l->wcap ? 2 * l->wcap : 16) * sizeof(int64_t));
    l->whole[l->nwhole++] = id;
}

static void close_run(struct nf_store_pload *l)
{
    if (l->cur && !l->skip)
        nf_points_end_run(l->p);
}

void nf_store_point_row(struct nf_store_pload *l, const struct nf_store_prow *r)
{
    struct nf_points *p = l->p;
    if (l->enc)
        nf_pc_enc_row(l->enc, r);
    if (r->id != l->cur || !l->cur) {
        close_run(l);
        l->cur = r->id;
        enum nf_run_status st = nf_store_row_status(r->status);
        /* Whole: a "running" row's writer must be asked whether it lives
         * (the loaders of runs do), a messaging run's metrics may be
         * renamed on reading (nf_run_read_compat). */
        l->skip = (st == NF_RUN_RUNNING && !r->superseded) ||
                  (r->workload && strcmp(r->workload, "messaging") == 0);
        if (l->skip) {
            want_whole(l, r->id);
            return;
        }
        if (r->superseded)
            st = NF_RUN_SUPERSEDED;
        nf_points_run(p, r->id, nf_points_cfg(p, r->workload, r->args), r->label, r->started,
                      r->host, r->commit, r->describe, st);
    }
    if (l->skip || !r->name)
        return;
    if (!r->summed) { /* one being written, or a dead writer's not folded */
        nf_points_drop_run(p);
        want_whole(l, r->id);
        l->skip = 1;
        return;
    }
    if (p->runs[p->nruns - 1].npts == NF_RUN_MAX_METRICS)
        return; /* more than a run can hold (nf_run_metric) */
    enum nf_better b = NF_BETTER_LOWER;
    if (r->better)
        nf_better_parse(r->better, &b);
    struct nf_point *pt = nf_points_metric(p, r->name, r->unit, b, r->primary, r->supported);
    pt->sum = r->sum;
}

void nf_store_point_end(struct nf_store_pload *l)
{
    close_run(l);
    l->cur = 0;
}
