/* A run as the JSON of doc/noisefloor.1 (section JSON), and back.  Export
 * then import must give the same run, so every stored field goes out and
 * comes back; summaries are derived and recomputed. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/run.h"
#include "core/util.h"
#include "stats/summary.h"

json_t *nf_json_num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *metric_to_json(const struct nf_metric *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(m->name));
    json_object_set_new(o, "unit", json_string(m->unit));
    json_object_set_new(o, "better", json_string(nf_better_name(m->better)));
    json_object_set_new(o, "primary", json_boolean(m->primary));
    json_object_set_new(o, "supported", json_boolean(m->supported));
    if (!m->supported) /* opened but counted nothing, or could not count */
        json_object_set_new(o, "not_counted", json_boolean(m->not_counted));
    json_t *vals = json_array();
    for (size_t i = 0; i < m->n; i++)
        json_array_append_new(vals, json_real(m->values[i]));
    json_object_set_new(o, "values", vals);
    struct nf_summary s;
    if (m->supported && m->n && nf_summarize(m->values, m->n, &s) == 0) {
        double mean = nf_summary_mean(&s, nf_metric_is_rate(m)); /* as compare's */
        json_object_set_new(o, "n", json_integer((json_int_t)s.n));
        json_object_set_new(o, "mean", nf_json_num(mean));
        /* One value has no spread (the sample SD divides by n - 1): null,
         * as the text shows "-", not 0, which would read as exact. */
        json_object_set_new(o, "stddev", s.n > 1 ? nf_json_num(s.stddev) : json_null());
        /* relative to "mean": a rate's are the reciprocals' (nf_summary_cv) */
        int rate = nf_metric_is_rate(m);
        json_object_set_new(o, "cv_pct",
                            s.n > 1 ? nf_json_num(nf_summary_cv(&s, rate)) : json_null());
        json_object_set_new(o, "sem_pct",
                            s.n > 1 ? nf_json_num(nf_summary_sem(&s, rate)) : json_null());
        json_object_set_new(o, "min", nf_json_num(s.min));
        json_object_set_new(o, "max", nf_json_num(s.max));
        json_object_set_new(o, "median", nf_json_num(s.median));
    } else {
        json_object_set_new(o, "n", json_integer((json_int_t)m->n));
        const char *keys[] = {"mean", "stddev", "cv_pct", "sem_pct", "min", "max", "median"};
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
            json_object_set_new(o, keys[i], json_null());
    }
    if (m->running_pct) {
        json_t *rp = json_array();
        for (size_t i = 0; i < m->n; i++)
            json_array_append_new(rp, json_real(m->running_pct[i]));
        json_object_set_new(o, "running_pct", rp);
    }
    return o;
}

/* {"name", "unit": "ns", "reps": [{"rep", "buckets": [[lo, count], ...]}]},
 * "rep" the repetition's number from 1, as show and the diagnosis number
 * repetitions. */
static json_t *hist_to_json(const struct nf_run_hist *h)
{
    json_t *reps = json_array();
    for (size_t i = 0; i < h->nreps; i++) {
        const struct nf_rep_hist *r = &h->reps[i];
        json_t *b = json_array();
        for (size_t k = 0; k < r->n; k++)
            json_array_append_new(
                b, json_pack("[I,I]", (json_int_t)r->b[k].lo, (json_int_t)r->b[k].count));
        json_array_append_new(reps,
                              json_pack("{s:I,s:o}", "rep", (json_int_t)r->rep + 1, "buckets", b));
    }
    return json_pack("{s:s,s:s,s:o}", "name", h->name, "unit", "ns", "reps", reps);
}

json_t *nf_run_to_json(const struct nf_run *run)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", run->id ? json_integer(run->id) : json_null());
    json_object_set_new(o, "label", json_string(run->label));
    json_object_set_new(o, "workload", json_string(run->workload));
    json_t *args = json_array();
    for (size_t i = 0; i < run->nargs; i++)
        json_array_append_new(args, json_string(run->args[i]));
    json_object_set_new(o, "args", args);
    json_object_set_new(o, "started", json_string(run->started));
    json_object_set_new(o, "repeat", json_integer(run->repeat));
    json_object_set_new(o, "warmup", json_integer(run->warmup));
    json_object_set_new(o, "status", json_string(nf_run_status_name(run->state)));
    json_object_set_new(o, "session", run->session ? json_string(run->session) : json_null());
    json_object_set_new(o, "note", run->note ? json_string(run->note) : json_null());
    json_object_set_new(o, "env", run->env ? json_deep_copy(run->env) : json_object());
    json_t *ms = json_array();
    for (size_t i = 0; i < run->nmetrics; i++)
        json_array_append_new(ms, metric_to_json(&run->metrics[i]));
    json_object_set_new(o, "metrics", ms);
    if (run->nhists) {
        json_t *hs = json_array();
        for (size_t i = 0; i < run->nhists; i++)
            json_array_append_new(hs, hist_to_json(&run->hists[i]));
        json_object_set_new(o, "histograms", hs);
    }
    return o;
}

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        goto fail;                                                                                 \
    } while (0)

/* "2026-11-30T03:20:02Z", a real time (no 30 February), as nf_iso_time
 * writes it. */
static int iso_utc(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!end || *end || strlen(s) != 20)
        return 0;
    struct tm back = tm;
    time_t t = timegm(&back);
    return t != (time_t)-1 && back.tm_mday == tm.tm_mday && back.tm_mon == tm.tm_mon &&
           back.tm_hour == tm.tm_hour && back.tm_min == tm.tm_min && back.tm_sec == tm.tm_sec;
}

/* A whole number from 0 that fits an int. */
static int is_count(const json_t *v)
{
    return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= INT_MAX;
}

static const char *opt_str(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Whether o's key is there with a type other than the one wanted (null
 * counting as absent): is_type is json_is_string, json_is_boolean... */
#define WRONG_TYPE(o, key, is_type)                                                                \
    (json_object_get(o, key) && !json_is_null(json_object_get(o, key)) &&                          \
     !is_type(json_object_get(o, key)))

/* A name that holds a character that changes how the text around it shows
 * (nf_invisible_at): refused, as run and import --label do; err says so. */
static int invisible(const char *what, const char *s, char *err, size_t errlen)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (nf_invisible_at(p)) {
            char shown[96];
            nf_label_escape(shown, sizeof(shown), s, 1);
            snprintf(err, errlen,
                     "%s '%s' contains an invisible or bidirectional control character", what,
                     shown);
            return -1;
        }
    return 0;
}

/* Does any histogram of hs have a "rep" of 0?  Exports written before
 * repetitions were numbered from 1 numbered them from 0, and every
 * repetition of a latency run has a histogram, so theirs has a 0 and a
 * new one never does. */
static int reps_from_zero(const json_t *hs)
{
    for (size_t i = 0; i < json_array_size(hs); i++) {
        const json_t *reps = json_object_get(json_array_get(hs, i), "reps");
        for (size_t k = 0; k < json_array_size(reps); k++) {
            const json_t *rep = json_object_get(json_array_get(reps, k), "rep");
            if (json_is_integer(rep) && json_integer_value(rep) == 0)
                return 1;
        }
    }
    return 0;
}

/* The "histograms" of a run (absent or null: none): each repetition's
 * buckets as nf_run_hist_add takes them, for a repetition the run has,
 * numbered from 1 (or from 0 throughout the run: an older export). */
static int hists_from_json(struct nf_run *run, const json_t *hs, char *err, size_t errlen)
{
    struct nf_bucket *b = NULL;
    if (!hs || json_is_null(hs))
        return 0;
    if (!json_is_array(hs))
        FAIL("run \"histograms\" must be an array");
    const json_int_t first = reps_from_zero(hs) ? 0 : 1;
    for (size_t i = 0; i < json_array_size(hs); i++) {
        const json_t *h = json_array_get(hs, i);
        const char *name = opt_str(h, "name");
        const char *unit = opt_str(h, "unit");
        const json_t *reps = json_object_get(h, "reps");
        if (!name || !*name)
            FAIL("histogram %zu has no \"name\"", i + 1);
        if (nf_run_hist_find(run, name))
            FAIL("histogram \"%s\" appears twice", name);
        if (!unit || strcmp(unit, "ns") != 0)
            FAIL("histogram \"%s\": \"unit\" must be \"ns\"", name);
        if (!json_is_array(reps) || !json_array_size(reps))
            FAIL("histogram \"%s\" has no \"reps\" array", name);
        for (size_t k = 0; k < json_array_size(reps); k++) {
            const json_t *r = json_array_get(reps, k);
            const json_t *rep = json_object_get(r, "rep");
            const json_t *bs = json_object_get(r, "buckets");
            if (!is_count(rep) || json_integer_value(rep) < first ||
                json_integer_value(rep) - first >= run->repeat)
                FAIL("histogram \"%s\": \"rep\" must be a repetition of the run (%d to %d)", name,
                     (int)first, run->repeat - 1 + (int)first);
            size_t n = json_is_array(bs) ? json_array_size(bs) : 0;
            if (!n)
                FAIL("histogram \"%s\", rep %lld: no \"buckets\"", name,
                     (long long)json_integer_value(rep));
            b = nf_xrealloc(b, n * sizeof(*b));
            for (size_t j = 0; j < n; j++) {
                const json_t *p = json_array_get(bs, j);
                const json_t *lo = json_array_get(p, 0), *count = json_array_get(p, 1);
                if (json_array_size(p) != 2 || !json_is_integer(lo) || !json_is_integer(count) ||
                    json_integer_value(lo) < 0 || json_integer_value(count) < 1)
                    FAIL("histogram \"%s\", rep %lld: bucket %zu must be [lo, count], whole "
                         "numbers, count from 1",
                         name, (long long)json_integer_value(rep), j + 1);
                b[j].lo = (uint64_t)json_integer_value(lo);
                b[j].count = (uint64_t)json_integer_value(count);
            }
            if (nf_run_hist_add(run, name, (size_t)(json_integer_value(rep) - first), b, n))
                FAIL("histogram \"%s\", rep %lld: repetitions must ascend and buckets ascend "
                     "by lo",
                     name, (long long)json_integer_value(rep));
        }
    }
    free(b);
    return 0;
fail:
    free(b);
    return -1;
}

struct nf_run *nf_run_from_json(const json_t *obj, char *err, size_t errlen)
{
    struct nf_run *run = NULL;
    if (!json_is_object(obj))
        FAIL("a run must be a JSON object");
    const char *label = opt_str(obj, "label");
    const char *workload = opt_str(obj, "workload");
    if (!label || !*label)
        FAIL("run has no \"label\" string");
    if (!workload || !*workload)
        FAIL("run has no \"workload\" string");
    if (invisible("run \"label\"", label, err, errlen))
        goto fail;
    static const char *const strings[] = {"session", "note"};
    for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
        if (WRONG_TYPE(obj, strings[i], json_is_string))
            FAIL("run \"%s\" must be a string or null", strings[i]);
    run = nf_run_new(label, workload);

    const json_t *id = json_object_get(obj, "id");
    if (id && !json_is_null(id) &&
        (!json_is_integer(id) || json_integer_value(id) < 1 ||
         json_integer_value(id) > NF_RUN_ID_MAX))
        FAIL("run \"id\" must be null or a whole number from 1 to %lld", NF_RUN_ID_MAX);
    if (json_is_integer(id))
        run->id = json_integer_value(id);
    const json_t *args = json_object_get(obj, "args");
    if (args && !json_is_array(args))
        FAIL("run \"args\" must be an array of strings");
    for (size_t i = 0; args && i < json_array_size(args); i++) {
        const json_t *a = json_array_get(args, i);
        if (!json_is_string(a))
            FAIL("run \"args\" must be an array of strings");
        run->args = nf_xrealloc(run->args, (run->nargs + 1) * sizeof(char *));
        run->args[run->nargs++] = nf_xstrdup(json_string_value(a));
    }
    const char *started = opt_str(obj, "started");
    if (!started || !iso_utc(started))
        FAIL("run \"started\" must be a time as ISO 8601 UTC (2026-11-30T03:20:02Z)");
    snprintf(run->started, sizeof(run->started), "%s", started);
    const json_t *rep = json_object_get(obj, "repeat");
    const json_t *warm = json_object_get(obj, "warmup");
    if (!is_count(rep))
        FAIL("run \"repeat\" must be a count (a whole number from 0)");
    if (!is_count(warm))
        FAIL("run \"warmup\" must be a count (a whole number from 0)");
    run->repeat = (int)json_integer_value(rep);
    run->warmup = (int)json_integer_value(warm);
    const char *status = opt_str(obj, "status");
    if (!status || nf_run_set_status(run, status))
        FAIL("run \"status\" must be running, complete, incomplete, interrupted or failed");
    const char *session = opt_str(obj, "session");
    if (session)
        run->session = nf_xstrdup(session);
    const char *note = opt_str(obj, "note");
    if (note)
        run->note = nf_xstrdup(note);
    const json_t *env = json_object_get(obj, "env");
    if (env && !json_is_object(env) && !json_is_null(env))
        FAIL("run \"env\" must be an object");
    if (json_is_object(env))
        run->env = json_deep_copy(env);

    const json_t *ms = json_object_get(obj, "metrics");
    if (!json_is_array(ms))
        FAIL("run has no \"metrics\" array");
    for (size_t i = 0; i < json_array_size(ms); i++) {
        const json_t *mo = json_array_get(ms, i);
        const char *name = opt_str(mo, "name");
        if (!json_is_object(mo) || !name || !*name)
            FAIL("metric %zu has no \"name\"", i + 1);
        if (invisible("metric \"name\"", name, err, errlen))
            goto fail;
        if (nf_run_find(run, name))
            FAIL("metric \"%s\" appears twice", name);
        if (WRONG_TYPE(mo, "unit", json_is_string) || WRONG_TYPE(mo, "better", json_is_string))
            FAIL("metric \"%s\": \"unit\" and \"better\" must be strings", name);
        if (WRONG_TYPE(mo, "primary", json_is_boolean) ||
            WRONG_TYPE(mo, "supported", json_is_boolean) ||
            WRONG_TYPE(mo, "not_counted", json_is_boolean))
            FAIL("metric \"%s\": \"primary\", \"supported\" and \"not_counted\" must be true "
                 "or false",
                 name);
        const char *unit = opt_str(mo, "unit");
        const char *better = opt_str(mo, "better");
        enum nf_better b = NF_BETTER_LOWER;
        if (better && nf_better_parse(better, &b) != 0)
            FAIL("metric \"%s\": \"better\" must be \"lower\" or \"higher\"", name);
        const json_t *prim = json_object_get(mo, "primary");
        const json_t *sup = json_object_get(mo, "supported");
        struct nf_metric *m = nf_run_metric(run, name, unit, b, json_is_true(prim));
        if (!m)
            FAIL("more than %d metrics in one run", NF_RUN_MAX_METRICS);
        m->supported = sup ? json_is_true(sup) : 1;
        /* An export written before the flag: what the note says. */
        const json_t *nc = json_object_get(mo, "not_counted");
        m->not_counted = nc && !json_is_null(nc)
                             ? json_is_true(nc)
                             : !m->supported && nf_note_not_counted(run->note, name);
        const json_t *vals = json_object_get(mo, "values");
        const json_t *rp = json_object_get(mo, "running_pct");
        if (vals && !json_is_array(vals))
            FAIL("metric \"%s\": \"values\" must be an array of numbers", name);
        if (rp && !json_is_null(rp) &&
            (!json_is_array(rp) || json_array_size(rp) != json_array_size(vals)))
            FAIL("metric \"%s\": \"running_pct\" must match \"values\"", name);
        for (size_t k = 0; vals && k < json_array_size(vals); k++) {
            const json_t *v = json_array_get(vals, k);
            if (!json_is_number(v))
                FAIL("metric \"%s\": value %zu is not a number", name, k + 1);
            double pct = 100.0;
            if (json_is_array(rp)) {
                const json_t *p = json_array_get(rp, k);
                if (!json_is_number(p))
                    FAIL("metric \"%s\": running_pct %zu is not a number", name, k + 1);
                pct = json_number_value(p);
            }
            nf_metric_push(m, json_number_value(v), pct);
        }
        if (!m->supported && m->n)
            FAIL("metric \"%s\" is not supported but has values", name);
        if (m->supported && m->not_counted)
            FAIL("metric \"%s\" is not counted but supported", name);
        /* A repetition stores a value of every supported metric: a
         * complete run has repeat of them, one that stopped early fewer. */
        if (m->supported && (m->n > (size_t)run->repeat ||
                             (run->state == NF_RUN_COMPLETE && m->n != (size_t)run->repeat)))
            FAIL("metric \"%s\" has %zu values, but the %s run has %d repetitions", name, m->n,
                 run->status, run->repeat);
    }
    if (hists_from_json(run, json_object_get(obj, "histograms"), err, errlen))
        goto fail;
    return run;
fail:
    nf_run_free(run);
    return NULL;
}
