/* The results store, on both backends: per-repetition commits, the
 * incomplete-run rule, loaders, delete, import ids.  Opening a store (the
 * schema, refusal of foreign files and newer schemas) is tested in
 * test_store_open.c; what only PostgreSQL has in test_store_pg.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "store/store.h"

#include "points_same.h"
#include "store_target.h"

static struct nf_store *open_new(void)
{
    return tgt_open(NF_STORE_CREATE);
}

static char *dump(const struct nf_run *r)
{
    json_t *j = nf_run_to_json(r);
    char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(j);
    return s;
}

/* The run as history loads it (the filter's summaries): each metric of
 * "usecs/op"'s run summed (or not, while it is written) and its summary,
 * bit for bit, that of the values of values_of. */
static void check_summary(struct nf_store *s, const struct nf_run *values_of, int summed)
{
    struct nf_store_filter f = {.id = values_of->id, .summaries = 1};
    struct nf_run **runs;
    size_t n;
    assert_int_equal(nf_store_load_runs(s, &f, &runs, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(runs[0]->nmetrics, values_of->nmetrics);
    for (size_t i = 0; i < values_of->nmetrics; i++) {
        const struct nf_metric *m = &runs[0]->metrics[i], *v = &values_of->metrics[i];
        assert_string_equal(m->name, v->name);
        assert_int_equal(m->summed, summed);
        struct nf_metric_summary a, b;
        nf_metric_summary_of(m, &a);
        nf_metric_summarise(v->values, v->n, &b);
        assert_int_equal(a.n, b.n);
        assert_int_equal(a.recip, b.recip);
        assert_memory_equal(&a.mean, &b.mean, sizeof(double));
        assert_memory_equal(&a.sd, &b.sd, sizeof(double));
        assert_memory_equal(&a.rmean, &b.rmean, sizeof(double));
        assert_memory_equal(&a.rsd, &b.rsd, sizeof(double));
    }
    nf_runs_free(runs, n);
}

static void test_begin_add_finish_load(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *full = tgt_sample_run("aa", 3);
    /* Replay it as `run` does: declare, begin, push and commit each rep. */
    struct nf_run *r = nf_run_new("aa", "pipe");
    char *args[] = {"-l", "1000"};
    nf_run_set_args(r, 2, args);
    r->repeat = 3;
    r->warmup = 1;
    snprintf(r->started, sizeof(r->started), "%s", full->started);
    r->env = json_deep_copy(full->env);
    for (size_t i = 0; i < full->nmetrics; i++) {
        struct nf_metric *m = &full->metrics[i];
        nf_run_metric(r, m->name, m->unit, m->better, m->primary);
    }
    assert_int_equal(nf_store_begin_run(s, r), 0);
    assert_true(r->id > 0);
    for (size_t rep = 0; rep < 3; rep++) {
        for (size_t i = 0; i < full->nmetrics; i++) {
            struct nf_metric *m = &full->metrics[i];
            r->metrics[i].supported = m->supported;
            if (m->n > rep)
                nf_metric_push(&r->metrics[i], m->values[rep],
                               m->running_pct ? m->running_pct[rep] : 100.0);
        }
        assert_int_equal(nf_store_add_rep(s, r, rep), 0);
        struct nf_run *mid;
        assert_int_equal(nf_store_load_run(s, r->id, &mid), 0);
        assert_string_equal(mid->status, "running"); /* our own pid: alive */
        assert_int_equal(nf_run_find(mid, "usecs/op")->n, rep + 1);
        check_summary(s, mid, 0); /* no summary until it is finished: values */
        nf_run_free(mid);
    }
    nf_run_set_status(r, "complete");
    assert_int_equal(nf_store_finish_run(s, r), 0);

    struct nf_run *back;
    assert_int_equal(nf_store_load_run(s, r->id, &back), 0);
    check_summary(s, back, 1); /* finished: its summaries */
    full->id = r->id;
    nf_run_set_status(full, "complete");
    char *a = dump(full), *b = dump(back);
    assert_string_equal(a, b);
    struct nf_metric *c = nf_run_find(back, "cycles");
    assert_int_equal(c->supported, 0);
    assert_int_equal(c->n, 0);
    assert_null(nf_run_find(back, "usecs/op")->running_pct);
    assert_non_null(nf_run_find(back, "task-clock")->running_pct);
    assert_true(nf_run_find(back, "task-clock")->running_pct[1] == 83.72);
    free(a);
    free(b);
    nf_run_free(back);
    nf_run_free(r);
    nf_run_free(full);

    assert_int_equal(nf_store_load_run(s, 12345, &back), NF_STORE_NOTFOUND);
    assert_non_null(strstr(nf_store_error(s), "no run 12345"));
    nf_store_close(s);
}

/* A run left "running" by a process that is gone reads as incomplete. */
static void test_dead_writer_is_incomplete(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *r = tgt_sample_run("aa", 0);
    struct nf_metric *u = nf_run_find(r, "usecs/op");
    assert_int_equal(nf_store_begin_run(s, r), 0);
    nf_metric_push(u, 5.0, 100.0);
    assert_int_equal(nf_store_add_rep(s, r, 0), 0);
    int64_t id = r->id;
    nf_store_close(s);
    nf_run_free(r);

    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0); /* a pid that certainly is gone now */
    tgt_exec("UPDATE runs SET pid = %d WHERE id = %lld", (int)child, (long long)id);

    s = open_new();
    struct nf_run *back;
    assert_int_equal(nf_store_load_run(s, id, &back), 0);
    assert_string_equal(back->status, "incomplete");
    assert_int_equal(nf_run_find(back, "usecs/op")->n, 1);
    nf_run_free(back);
    nf_store_close(s);
}

/* SQLite: a "running" run's writer lives while it holds the lock on the
 * run's journal, and not otherwise: a live noisefloor process that holds
 * the pid since (a twin, recorded as the writer in the row and in the
 * journal) keeps a journal its writer left from reading as incomplete, and
 * does so after the journal is folded in and removed.  (PostgreSQL asks
 * the server about the writer's session instead.) */
static void test_recycled_writer_pid(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *r = tgt_sample_run("aa", 0);
    assert_int_equal(nf_store_begin_run(s, r), 0);
    pid_t twin = tgt_twin();
    char *journal = nf_xasprintf("%s-nfj.%lld", tgt.db, (long long)r->id);
    char *copy = nf_xasprintf("%s.copy", journal);

    struct nf_store *o = open_new();
    struct nf_run *back;
    assert_int_equal(nf_store_load_run(o, r->id, &back), 0);
    assert_string_equal(back->status, "running"); /* its writer, s, holds the lock */
    nf_run_free(back);
    nf_store_close(o);

    /* The journal as the writer left it, unlocked (a copy), naming the
     * twin: the header's writer pid at 24, its start at 40. */
    char *cmd = nf_xasprintf("cp %s %s", journal, copy);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    nf_store_close(s); /* removes its journal; the row stays "running" */
    assert_int_equal(rename(copy, journal), 0);
    tgt_exec("UPDATE runs SET pid = %d WHERE id = %lld", (int)twin, (long long)r->id);
    int fd = open(journal, O_WRONLY);
    assert_true(fd >= 0);
    int64_t pid = twin, born = tgt_start_ticks(twin);
    assert_int_equal(pwrite(fd, &pid, 8, 24), 8);
    assert_int_equal(pwrite(fd, &born, 8, 40), 8);
    close(fd);
    for (int k = 0; k < 2; k++) { /* folded and removed, then without the journal */
        o = open_new();
        assert_int_equal(nf_store_load_run(o, r->id, &back), 0);
        assert_string_equal(back->status, "incomplete");
        nf_run_free(back);
        nf_store_close(o);
        struct stat sb;
        assert_int_not_equal(lstat(journal, &sb), 0);
    }

    free(copy);
    free(journal);
    tgt_twin_end(twin);
    nf_run_free(r);
}

static void test_filters_label_delete(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *runs[4] = {tgt_sample_run("a", 3), tgt_sample_run("b", 2),
                              tgt_sample_run("a", 4), tgt_sample_run("c", 1)};
    free(runs[3]->workload);
    runs[3]->workload = nf_xstrdup("messaging");
    assert_int_equal(nf_store_insert_runs(s, runs, 4, 1, NULL), 0);

    const char *ab[] = {"a", "c"};
    struct nf_store_filter f = {.labels = ab, .nlabels = 2};
    int64_t *ids;
    size_t n;
    assert_int_equal(nf_store_find_runs(s, &f, &ids, &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(ids[0], runs[0]->id);
    assert_int_equal(ids[1], runs[2]->id);
    assert_int_equal(ids[2], runs[3]->id);
    free(ids);
    f.workload = "pipe";
    assert_int_equal(nf_store_find_runs(s, &f, &ids, &n), 0);
    assert_int_equal(n, 2);
    free(ids);

    struct nf_run **got;
    assert_int_equal(nf_store_load_label(s, "a", NULL, &got, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(nf_run_find(got[0], "usecs/op")->n, 3);
    assert_int_equal(nf_run_find(got[1], "usecs/op")->n, 4);
    assert_true(nf_run_find(got[1], "usecs/op")->values[3] == 6.03);
    nf_runs_free(got, n);
    assert_int_equal(nf_store_load_label(s, "zz", NULL, &got, &n), NF_STORE_NOTFOUND);
    assert_non_null(strstr(nf_store_error(s), "'zz'"));

    /* Delete: all or nothing. */
    int64_t del[2] = {runs[1]->id, 999};
    assert_int_equal(nf_store_delete_runs(s, del, 2), NF_STORE_NOTFOUND);
    struct nf_run *still;
    assert_int_equal(nf_store_load_run(s, runs[1]->id, &still), 0);
    nf_run_free(still);
    assert_int_equal(nf_store_delete_runs(s, del, 1), 0);
    assert_int_equal(nf_store_load_run(s, runs[1]->id, &still), NF_STORE_NOTFOUND);
    assert_int_equal(tgt_int("SELECT (SELECT count(*) FROM samples WHERE run_id = %lld) + "
                             "(SELECT count(*) FROM metrics WHERE run_id = %lld)",
                             (long long)runs[1]->id, (long long)runs[1]->id),
                     0); /* cascaded */
    for (int i = 0; i < 4; i++)
        nf_run_free(runs[i]);
    nf_store_close(s);
}

/* Imported runs keep free ids; taken ones are refused, or get new ids
 * with renumber (and are counted); failures change nothing. */
static void test_insert_ids_and_atomicity(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *a = tgt_sample_run("a", 2), *b = tgt_sample_run("b", 2);
    a->id = 7;
    b->id = 7;
    struct nf_run *both[2] = {a, b};
    size_t clashed = 99;
    /* Without renumber: the second 7 is taken by the first; nothing stays. */
    assert_int_equal(nf_store_insert_runs(s, both, 2, 0, &clashed), NF_STORE_TAKEN);
    assert_int_equal(clashed, 1);
    assert_non_null(strstr(nf_store_error(s), "run 7 in "));
    assert_int_equal(a->id, 7);
    assert_int_equal(b->id, 7);
    struct nf_run *none;
    assert_int_equal(nf_store_load_run(s, 7, &none), NF_STORE_NOTFOUND);
    assert_int_equal(nf_store_insert_runs(s, both, 2, 1, &clashed), 0);
    assert_int_equal(clashed, 1);
    assert_int_equal(a->id, 7);
    assert_true(b->id != 7 && b->id > 0);
    /* Both taken now: two clashes, refused; a free one alone is kept. */
    int64_t bid = b->id;
    a->id = 7;
    assert_int_equal(nf_store_insert_runs(s, both, 2, 0, &clashed), NF_STORE_TAKEN);
    assert_int_equal(clashed, 2);
    assert_int_equal(b->id, bid);
    a->id = 40;
    assert_int_equal(nf_store_insert_runs(s, both, 1, 0, &clashed), 0);
    assert_int_equal(clashed, 0);
    assert_int_equal(a->id, 40);

    /* A run that cannot be stored (metric name not UTF-8) rolls back all. */
    struct nf_run *c = tgt_sample_run("c", 2), *d = tgt_sample_run("d", 2);
    free(d->metrics[0].name);
    d->metrics[0].name = nf_xstrdup("bad\xff");
    c->id = 50;
    struct nf_run *cd[2] = {c, d};
    assert_int_equal(nf_store_insert_runs(s, cd, 2, 1, NULL), -1);
    assert_non_null(strstr(nf_store_error(s), "UTF-8"));
    assert_int_equal(c->id, 50);
    struct nf_run *x;
    assert_int_equal(nf_store_load_run(s, 50, &x), NF_STORE_NOTFOUND);
    int64_t *ids;
    size_t n;
    assert_int_equal(nf_store_find_runs(s, NULL, &ids, &n), 0);
    assert_int_equal(n, 3); /* 7, b's new id, 40 */
    free(ids);
    nf_run_free(a);
    nf_run_free(b);
    nf_run_free(c);
    nf_run_free(d);
    nf_store_close(s);
}

/* Many runs and samples come back whole and in order from the loader
 * (speed is measured by bench/, not here). */
static void test_load_many(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    enum { RUNS = 20, REPS = 500 };
    struct nf_run *runs[RUNS];
    for (int i = 0; i < RUNS; i++) {
        runs[i] = nf_run_new(i % 2 ? "odd" : "even", "pipe");
        nf_run_metric(runs[i], "usecs/op", "usecs/op", NF_BETTER_LOWER, 1);
        nf_run_metric(runs[i], "page-faults", "", NF_BETTER_LOWER, 0);
        struct nf_metric *m = &runs[i]->metrics[0], *k = &runs[i]->metrics[1];
        for (int r = 0; r < REPS; r++) {
            nf_metric_push(m, i * 1000.0 + r, 100.0);
            nf_metric_push(k, -r, 100.0);
        }
    }
    assert_int_equal(nf_store_insert_runs(s, runs, RUNS, 1, NULL), 0);
    struct nf_run **got;
    size_t n;
    assert_int_equal(nf_store_load_label(s, "odd", "pipe", &got, &n), 0);
    assert_int_equal(n, RUNS / 2);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(got[i]->id, runs[2 * i + 1]->id);
        struct nf_metric *m = nf_run_find(got[i], "usecs/op");
        assert_int_equal(m->n, REPS);
        for (int r = 0; r < REPS; r++)
            assert_true(m->values[r] == (2 * i + 1) * 1000.0 + r);
        assert_true(nf_run_find(got[i], "page-faults")->values[REPS - 1] == -(REPS - 1));
    }
    nf_runs_free(got, n);
    for (int i = 0; i < RUNS; i++)
        nf_run_free(runs[i]);
    nf_store_close(s);
}

/* Samples come back in repetition order whatever order the database keeps
 * them in (an updated row moves to the end of a PostgreSQL table's page),
 * and with a repetition missing. */
static void test_rep_order(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *r = nf_run_new("o", "pipe");
    nf_run_metric(r, "a", "", NF_BETTER_LOWER, 1);
    nf_run_metric(r, "b", "", NF_BETTER_LOWER, 0);
    for (int i = 0; i < 5; i++) {
        nf_metric_push(&r->metrics[0], 10.0 + i, 100.0);
        nf_metric_push(&r->metrics[1], 20.0 + i, i == 3 ? 50.0 : 100.0);
    }
    assert_int_equal(nf_store_insert_runs(s, &r, 1, 1, NULL), 0);
    tgt_exec("UPDATE samples SET vals = vals WHERE rep IN (0, 2)");
    /* Metric 1 without its value of repetition 1. */
    if (tgt.pg)
        tgt_exec("UPDATE samples SET vals[2] = NULL WHERE rep = 1");
    else /* a NaN (little-endian) in its place */
        tgt_exec("UPDATE samples SET vals = substr(vals, 1, 8) || X'000000000000F87F'"
                 " WHERE rep = 1");
    if (tgt.pg) /* statistics: a small table is scanned, in its physical order */
        tgt_exec("ANALYZE samples");
    struct nf_run *back;
    assert_int_equal(nf_store_load_run(s, r->id, &back), 0);
    struct nf_metric *a = nf_run_find(back, "a"), *b = nf_run_find(back, "b");
    assert_int_equal(a->n, 5);
    for (int i = 0; i < 5; i++)
        assert_true(a->values[i] == 10.0 + i);
    assert_null(a->running_pct);
    assert_int_equal(b->n, 4);
    const double want[] = {20, 22, 23, 24}, pct[] = {100, 100, 50, 100};
    assert_non_null(b->running_pct);
    for (int i = 0; i < 4; i++) {
        assert_true(b->values[i] == want[i]);
        assert_true(b->running_pct[i] == pct[i]);
    }
    nf_run_free(back);
    nf_run_free(r);
    nf_store_close(s);
}

static int prun_cmp(const void *a, const void *b)
{
    const struct nf_prun *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The point load (history's) gives each run's record and each metric's
 * summary as the runs loaded whole do (nf_points_add_run of them): the
 * environment's keys, the arguments, the primary metric, the summaries
 * bit for bit; and the runs its rows cannot tell (one being written, a
 * messaging run whose metrics are renamed on reading) as loaded whole. */
static void test_points_match_runs(void **state)
{
    (void)state;
    struct nf_store *s = open_new();
    struct nf_run *in[4];
    in[0] = tgt_sample_run("aa", 3);
    in[1] = tgt_sample_run("bb", 2);
    char *args[] = {"-l", "1000"};
    nf_run_set_args(in[1], 2, args);
    json_object_set_new(in[1]->env, "hostname", json_string("box"));
    json_object_set_new(in[1]->env, "commit", json_integer(7)); /* not a string: none */
    json_object_set_new(in[1]->env, "git_describe", json_string("v1-3-gabcdef12-dirty"));
    in[2] = nf_run_new("cc", "messaging"); /* stored before seconds was the barrier's */
    nf_run_metric(in[2], "seconds", "s", NF_BETTER_LOWER, 1);
    nf_run_metric(in[2], "transfer-seconds", "s", NF_BETTER_LOWER, 0);
    for (int i = 0; i < 3; i++) {
        nf_metric_push(&in[2]->metrics[0], 2.0 + i, 100.0);
        nf_metric_push(&in[2]->metrics[1], 1.0 + i, 100.0);
    }
    in[3] = nf_run_new("dd", "pipe"); /* no metric at all */
    for (int i = 0; i < 4; i++)
        nf_run_set_status(in[i], "complete");
    assert_int_equal(nf_store_insert_runs(s, in, 4, 0, NULL), 0);
    struct nf_run *live = tgt_sample_run("ee", 0); /* being written: no summaries yet */
    assert_int_equal(nf_store_begin_run(s, live), 0);
    nf_metric_push(nf_run_find(live, "usecs/op"), 5.0, 100.0);
    assert_int_equal(nf_store_add_rep(s, live, 0), 0);

    struct nf_points p, w;
    nf_points_init(&p);
    nf_points_init(&w);
    assert_int_equal(nf_store_load_points(s, NULL, &p), 0);
    struct nf_run **runs;
    size_t n;
    assert_int_equal(nf_store_load_runs(s, NULL, &runs, &n), 0);
    for (size_t i = 0; i < n; i++)
        nf_points_add_run(&w, runs[i]);
    assert_int_equal(p.nruns, 5);
    assert_int_equal(p.nruns, w.nruns);
    assert_int_equal(p.npts, w.npts);
    qsort(p.runs, p.nruns, sizeof(*p.runs), prun_cmp);
    for (size_t i = 0; i < p.nruns; i++) {
        const struct nf_prun *a = &p.runs[i], *b = &w.runs[i];
        assert_int_equal(a->id, b->id);
        assert_string_equal(a->label, b->label);
        assert_string_equal(a->started, b->started);
        assert_string_equal(a->host, b->host);
        nf_test_same_text(a->commit, b->commit);
        nf_test_same_text(a->describe, b->describe);
        assert_int_equal(a->state, b->state);
        const struct nf_pcfg *ca = &p.cfgs[a->cfg], *cb = &w.cfgs[b->cfg];
        assert_string_equal(ca->workload, cb->workload);
        assert_int_equal(ca->nargs, cb->nargs);
        for (size_t k = 0; k < ca->nargs; k++)
            assert_string_equal(ca->args[k], cb->args[k]);
        assert_int_equal(a->npts, b->npts);
        for (size_t k = 0; k < a->npts; k++) {
            const struct nf_point *x = &p.pts[a->first + k], *y = &w.pts[b->first + k];
            nf_test_same_point(x, y, 0);
        }
    }
    /* what the rows said, by hand */
    assert_string_equal(p.runs[1].host, "box");
    assert_null(p.runs[1].commit);
    assert_string_equal(p.runs[1].describe, "v1-3-gabcdef12-dirty");
    assert_string_equal(p.cfgs[p.runs[1].cfg].args[1], "1000");
    assert_string_equal(p.pts[p.runs[2].first].metric, "seconds"); /* the barrier's, renamed */
    assert_string_equal(p.pts[p.runs[2].first + 1].metric, "total-seconds");
    assert_int_equal(p.runs[3].npts, 0);
    assert_int_equal(p.runs[4].state, NF_RUN_RUNNING);
    assert_int_equal(p.pts[p.runs[4].first].sum.n, 1); /* from its values */
    nf_points_free(&p);
    nf_points_free(&w);
    nf_runs_free(runs, n);
    for (int i = 0; i < 4; i++)
        nf_run_free(in[i]);
    nf_run_free(live);
    nf_store_close(s);
}

#define BOTH(f) cmocka_unit_test_setup_teardown(f, tgt_setup, tgt_teardown)

int main(void)
{
    const struct CMUnitTest sqlite_tests[] = {
        BOTH(test_begin_add_finish_load),
        BOTH(test_dead_writer_is_incomplete),
        BOTH(test_recycled_writer_pid),
        BOTH(test_filters_label_delete),
        BOTH(test_insert_ids_and_atomicity),
        BOTH(test_load_many),
        BOTH(test_rep_order),
        BOTH(test_points_match_runs),
    };
    const struct CMUnitTest pg_tests[] = {
        BOTH(test_begin_add_finish_load),
        BOTH(test_dead_writer_is_incomplete),
        BOTH(test_filters_label_delete),
        BOTH(test_insert_ids_and_atomicity),
        BOTH(test_load_many),
        BOTH(test_rep_order),
        BOTH(test_points_match_runs),
    };
    int failed = cmocka_run_group_tests_name("store/sqlite", sqlite_tests, tgt_group_sqlite, NULL);
    failed += cmocka_run_group_tests_name("store/postgresql", pg_tests, tgt_group_pg, NULL);
    return failed;
}
