/* Profiles in the store, on both backends: schema v2 (also reached from a
 * v1 database, through every later step), each repetition's symbols
 * (schema v4, also reached from a v3 database whose profiles have none),
 * storing and loading a run's profile, a label's profiles summed, the
 * "not found" answers profdiff relies on, and deletion with the run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "profile/profile.h"
#include "store/store.h"

#include "store_target.h"

static struct nf_store *open_db(void)
{
    return tgt_open(NF_STORE_CREATE);
}

static int64_t add_run(struct nf_store *s, const char *label)
{
    struct nf_run *r = nf_run_new(label, "command");
    nf_run_metric(r, "wall", "seconds", NF_BETTER_LOWER, 1);
    nf_metric_push(&r->metrics[0], 1.0, 100.0);
    assert_int_equal(nf_store_begin_run(s, r), 0);
    assert_int_equal(nf_store_add_rep(s, r, 0), 0);
    nf_run_set_status(r, "complete");
    assert_int_equal(nf_store_finish_run(s, r), 0);
    int64_t id = r->id;
    nf_run_free(r);
    return id;
}

/* Two repetitions: burn and work split 1:3 and 3:1 between them. */
static void make_profile(struct nf_profile *p, uint64_t burn, uint64_t work)
{
    nf_profile_init(p);
    p->event = nf_xstrdup("cpu-clock");
    p->freq = 4000;
    p->lost = 2;
    for (int k = 0; k < 2; k++) {
        uint64_t b = k ? burn - burn / 4 : burn / 4, w = k ? work / 4 : work - work / 4;
        struct nf_profile *r = nf_profile_add_rep(p);
        nf_profile_add(r, "burn_cpu", "/tmp/burn", b, b * 250000);
        nf_profile_add(r, "work", "/tmp/burn", w, w * 250000);
        if (k == 0)
            nf_profile_add(r, "pipe_read", "[kernel.kallsyms]", 1, 250000);
        nf_profile_merge(p, r);
    }
    /* nf_profile_merge appended the repetitions' (empty) repetitions: none */
    assert_int_equal(p->nreps, 2);
}

static void test_roundtrip(void **state)
{
    (void)state;
    struct nf_store *s = open_db();
    int64_t a1 = add_run(s, "a"), a2 = add_run(s, "a"), b = add_run(s, "b");
    add_run(s, "plain");
    struct nf_profile p, q, out;
    make_profile(&p, 100, 100);
    make_profile(&q, 300, 100);
    assert_int_equal(nf_store_add_profile(s, a1, &p), 0);
    assert_int_equal(nf_store_add_profile(s, a2, &p), 0);
    assert_int_equal(nf_store_add_profile(s, b, &q), 0);
    /* One profile per run. */
    assert_int_equal(nf_store_add_profile(s, a1, &p), -1);
    assert_non_null(strcasestr(nf_store_error(s), "unique"));

    assert_int_equal(nf_store_load_profile(s, a1, &out), 0);
    assert_int_equal(out.n, 3);
    assert_string_equal(out.e[0].symbol, "burn_cpu"); /* sorted; ties by name */
    assert_int_equal(out.e[0].samples, 100);
    assert_int_equal(out.e[0].period, 100 * 250000ull);
    assert_string_equal(out.event, "cpu-clock");
    assert_int_equal(out.freq, 4000);
    assert_int_equal(out.lost, 2);
    assert_int_equal(out.samples, 201);
    /* each repetition as it was */
    assert_int_equal(out.nreps, 2);
    assert_int_equal(out.reps[0].n, 3);
    assert_int_equal(nf_profile_find(&out.reps[0], "burn_cpu", "/tmp/burn")->samples, 25);
    assert_int_equal(nf_profile_find(&out.reps[1], "work", "/tmp/burn")->period, 25 * 250000ull);
    assert_null(nf_profile_find(&out.reps[1], "pipe_read", "[kernel.kallsyms]"));
    assert_int_equal(out.reps[0].samples + out.reps[1].samples, out.samples);
    nf_profile_free(&out);

    size_t nruns;
    assert_int_equal(nf_store_load_label_profile(s, "a", &out, &nruns), 0);
    assert_int_equal(nruns, 2);
    assert_int_equal(nf_profile_find(&out, "burn_cpu", "/tmp/burn")->samples, 200);
    assert_int_equal(out.lost, 4);
    assert_int_equal(out.samples, 402);
    assert_int_equal(out.nreps, 4); /* run a1's two, then a2's */
    assert_int_equal(nf_profile_find(&out.reps[2], "burn_cpu", "/tmp/burn")->samples, 25);
    nf_profile_free(&out);

    assert_int_equal(nf_store_load_label_profile(s, "nosuch", &out, &nruns), NF_STORE_NOTFOUND);
    assert_non_null(strstr(nf_store_error(s), "no runs with label 'nosuch'"));
    nf_profile_free(&out);
    assert_int_equal(nf_store_load_label_profile(s, "plain", &out, &nruns), NF_STORE_NOTFOUND);
    assert_non_null(strstr(nf_store_error(s), "has 1 run but no profile"));
    nf_profile_free(&out);
    assert_int_equal(nf_store_load_profile(s, 4, &out), NF_STORE_NOTFOUND);
    nf_profile_free(&out);

    /* Deleting a run deletes its profile, symbols included. */
    assert_int_equal(nf_store_delete_runs(s, &b, 1), 0);
    assert_int_equal(nf_store_load_label_profile(s, "b", &out, &nruns), NF_STORE_NOTFOUND);
    nf_profile_free(&out);
    nf_store_close(s);
    assert_int_equal(
        tgt_int("SELECT count(*) FROM profile_symbols WHERE run_id = %lld", (long long)b), 0);
    assert_int_equal(
        tgt_int("SELECT count(*) FROM profile_rep_symbols WHERE run_id = %lld", (long long)b), 0);
    nf_profile_free(&p);
    nf_profile_free(&q);
}

/* A database written by a version with schema 1 gains the profile tables
 * (and the job queue) and keeps its runs. */
static void test_migrate_v1(void **state)
{
    (void)state;
    struct nf_store *s = open_db();
    int64_t id = add_run(s, "old");
    nf_store_close(s);
    /* What versions 2 to 10 added or changed, gone. */
    tgt_points_cache_v9();
    tgt_samples_v4();
    tgt_exec("INSERT INTO samples SELECT id, 0, 0, 1.0, NULL FROM runs");
    tgt_exec("DROP TABLE jobs; DROP INDEX runs_job; ALTER TABLE runs DROP COLUMN job; "
             "ALTER TABLE runs DROP COLUMN job_attempt; DROP TABLE profile_rep_symbols; "
             "DROP TABLE profile_symbols; DROP TABLE profiles; DROP TABLE summaries; "
             "DROP TABLE bisections; "
             "UPDATE schema_version SET version = 1");
    s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), 1);
    struct nf_profile p, out;
    make_profile(&p, 5, 5);
    assert_int_equal(nf_store_add_profile(s, id, &p), 0);
    size_t nruns;
    assert_int_equal(nf_store_load_label_profile(s, "old", &out, &nruns), 0);
    assert_int_equal(out.samples, 11);
    nf_profile_free(&out);
    nf_profile_free(&p);
    nf_store_close(s);
    s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), NF_SCHEMA_VERSION);
    nf_store_close(s);
    assert_int_equal(tgt_int("SELECT count(*) FROM jobs"), 0);
    assert_int_equal(tgt_int("SELECT count(*) FROM runs WHERE job IS NULL"), 1);
    assert_int_equal(tgt_int("SELECT count(*) FROM samples WHERE run_id = %lld", (long long)id), 1);
}

/* A database of schema 3 keeps its profiles, which have no repetitions,
 * and profiles stored after the migration keep theirs. */
static void test_migrate_v3(void **state)
{
    (void)state;
    struct nf_store *s = open_db();
    int64_t old = add_run(s, "old"), young = add_run(s, "young");
    struct nf_profile p, out;
    make_profile(&p, 8, 8);
    assert_int_equal(nf_store_add_profile(s, old, &p), 0);
    nf_store_close(s);
    tgt_points_cache_v9();
    tgt_samples_v4();
    tgt_exec("DROP TABLE profile_rep_symbols; ALTER TABLE jobs DROP COLUMN max_attempts; "
             "ALTER TABLE jobs DROP COLUMN max_time; ALTER TABLE jobs DROP COLUMN cancel; "
             "DROP TABLE summaries; DROP TABLE bisections; UPDATE schema_version SET version = 3");
    s = tgt_open(0);
    assert_int_equal(nf_store_opened_version(s), 3);
    assert_int_equal(nf_store_load_profile(s, old, &out), 0);
    assert_int_equal(out.samples, 17);
    assert_int_equal(out.nreps, 0);
    nf_profile_free(&out);
    assert_int_equal(nf_store_add_profile(s, young, &p), 0);
    assert_int_equal(nf_store_load_profile(s, young, &out), 0);
    assert_int_equal(out.nreps, 2);
    nf_profile_free(&out);
    nf_store_close(s);
    nf_profile_free(&p);
}

#define BOTH(f) cmocka_unit_test_setup_teardown(f, tgt_setup, tgt_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH(test_roundtrip),
        BOTH(test_migrate_v1),
        BOTH(test_migrate_v3),
    };
    int failed = cmocka_run_group_tests_name("profile store/sqlite", tests, tgt_group_sqlite, NULL);
    failed += cmocka_run_group_tests_name("profile store/postgresql", tests, tgt_group_pg, NULL);
    return failed;
}
