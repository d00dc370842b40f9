/* store_writers: many processes writing runs to one store at once, as a
 * fleet does, each repetition its own transaction; then every value is
 * read back and checked.  Used by tests/e2e/t_store_writers.sh (no error,
 * no lost row) and bench/store-throughput (repetitions per second).
 *
 *   store_writers DB WRITERS REPS METRICS
 *
 * The writers start together (a pipe closed by the parent is the starting
 * gun); writer w's value of metric m in repetition r is w * 1e6 + r + m / 8,
 * exact in a double.  Prints one line:
 *   store_writers: BACKEND: W writers x R repetitions x M metrics: N repetitions in S s: X
 * repetitions/s and exits 0 when every writer succeeded and every value came back, 1 otherwise (one
 * line saying what went wrong). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/run.h"
#include "core/util.h"
#include "store/store.h"

static double value(long w, long r, long m)
{
    return (double)w * 1e6 + (double)r + (double)m / 8;
}

static int writer(const char *db, long w, long reps, long metrics, int go)
{
    char err[NF_ERR_LEN];
    struct nf_store *s;
    if (nf_store_open(&s, db, NF_STORE_CREATE, err, sizeof(err)) != 0) {
        fprintf(stderr, "store_writers: writer %ld: %s\n", w, err);
        return 1;
    }
    char c;
    if (read(go, &c, 1) != 0)
        return 1;
    struct nf_run *run = nf_run_new("store-writers", "store-writers");
    char arg[32];
    snprintf(arg, sizeof(arg), "%ld", w);
    char *args[] = {arg};
    nf_run_set_args(run, 1, args);
    run->repeat = (int)reps;
    for (long m = 0; m < metrics; m++) {
        char name[32];
        snprintf(name, sizeof(name), "metric-%ld", m);
        nf_run_metric(run, name, "ms", NF_BETTER_LOWER, m == 0);
    }
    int rc = nf_store_begin_run(s, run);
    for (long r = 0; rc == 0 && r < reps; r++) {
        for (long m = 0; m < metrics; m++)
            nf_metric_push(&run->metrics[m], value(w, r, m), 100.0);
        rc = nf_store_add_rep(s, run, (size_t)r);
    }
    if (rc == 0) {
        nf_run_set_status(run, "complete");
        rc = nf_store_finish_run(s, run);
    }
    if (rc)
        fprintf(stderr, "store_writers: writer %ld: %s\n", w, nf_store_error(s));
    nf_run_free(run);
    nf_store_close(s);
    return rc ? 1 : 0;
}

/* Every run back, every value in place. */
static int check(const char *db, long writers, long reps, long metrics, char *backend, size_t len)
{
    char err[NF_ERR_LEN];
    struct nf_store *s;
    if (nf_store_open(&s, db, 0, err, sizeof(err)) != 0) {
        fprintf(stderr, "store_writers: %s\n", err);
        return 1;
    }
    snprintf(backend, len, "%s", nf_store_backend(s));
    const char *label = "store-writers";
    struct nf_store_filter f = {.labels = &label, .nlabels = 1};
    struct nf_run **runs;
    size_t n;
    int bad = 0;
    if (nf_store_load_runs(s, &f, &runs, &n)) {
        fprintf(stderr, "store_writers: %s\n", nf_store_error(s));
        nf_store_close(s);
        return 1;
    }
    if ((long)n != writers) {
        fprintf(stderr, "store_writers: %zu runs stored, not %ld\n", n, writers);
        bad = 1;
    }
    for (size_t i = 0; !bad && i < n; i++) {
        struct nf_run *r = runs[i];
        long w = r->nargs ? atol(r->args[0]) : -1;
        if (strcmp(r->status, "complete") != 0 || (long)r->nmetrics != metrics) {
            fprintf(stderr, "store_writers: run %lld: %s, %zu metrics\n", (long long)r->id,
                    r->status, r->nmetrics);
            bad = 1;
        }
        for (long m = 0; !bad && m < metrics; m++) {
            struct nf_metric *mm = &r->metrics[m];
            if ((long)mm->n != reps) {
                fprintf(stderr, "store_writers: run %lld metric %ld: %zu values, not %ld\n",
                        (long long)r->id, m, mm->n, reps);
                bad = 1;
            }
            for (long k = 0; !bad && k < reps; k++)
                if (mm->values[k] != value(w, k, m)) {
                    fprintf(stderr, "store_writers: run %lld metric %ld rep %ld: %.17g\n",
                            (long long)r->id, m, k, mm->values[k]);
                    bad = 1;
                }
        }
    }
    nf_runs_free(runs, n);
    nf_store_close(s);
    return bad;
}

int main(int argc, char **argv)
{
    long writers, reps, metrics;
    if (argc != 5 || nf_parse_long(argv[2], 1, 1000, &writers) ||
        nf_parse_long(argv[3], 1, 10000000, &reps) ||
        nf_parse_long(argv[4], 1, NF_RUN_MAX_METRICS, &metrics)) {
        fprintf(stderr, "usage: store_writers DB WRITERS REPS METRICS\n");
        return 2;
    }
    const char *db = argv[1];
    /* The store exists before the writers race to it. */
    char err[NF_ERR_LEN];
    struct nf_store *s;
    if (nf_store_open(&s, db, NF_STORE_CREATE, err, sizeof(err)) != 0) {
        fprintf(stderr, "store_writers: %s\n", err);
        return 1;
    }
    nf_store_close(s);
    int go[2];
    if (pipe(go) != 0)
        return 1;
    pid_t *kids = nf_xcalloc((size_t)writers, sizeof(pid_t));
    for (long w = 0; w < writers; w++) {
        kids[w] = fork();
        if (kids[w] < 0)
            return 1;
        if (kids[w] == 0) {
            close(go[1]);
            _exit(writer(db, w, reps, metrics, go[0]));
        }
    }
    close(go[0]);
    usleep(200 * 1000); /* let every writer connect before the gun */
    uint64_t t0 = nf_now_ns();
    close(go[1]);
    int failed = 0;
    for (long w = 0; w < writers; w++) {
        int st;
        if (waitpid(kids[w], &st, 0) != kids[w] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed++;
    }
    double secs = (double)(nf_now_ns() - t0) / 1e9;
    free(kids);
    if (failed) {
        fprintf(stderr, "store_writers: %d of %ld writers failed\n", failed, writers);
        return 1;
    }
    char backend[32];
    if (check(db, writers, reps, metrics, backend, sizeof(backend)))
        return 1;
    printf("store_writers: %s: %ld writers x %ld repetitions x %ld metrics: %ld repetitions in "
           "%.2f s: %.0f repetitions/s\n",
           backend, writers, reps, metrics, writers * reps, secs, (double)(writers * reps) / secs);
    return 0;
}
