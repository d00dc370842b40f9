/* perf stat output: `-x,` (CSV) and `-j` (one JSON object a line), read
 * in blocks, one per invocation (formats/import_perf_int.h).
 *
 * perf follows an event's line with a line of its own for each derived
 * metric after the first (insn per cycle, then stalled cycles per insn;
 * metric groups and TopDown do the same): in -x, a line whose value and
 * event fields are empty, ending in the metric's value and unit; in -j
 * an object of only "metric-value" and "metric-unit".  Such lines are
 * skipped: the run keeps the events, from which every ratio follows, not
 * perf's ratios of them.  They must follow an event's line (or another
 * such line) directly.
 *
 * Interval output (-I), per-CPU output (-A), per-cgroup output (-G,
 * --for-each-cgroup) and the other aggregations (--per-socket, --per-die,
 * --per-core, --per-node, --per-thread) print an event several times per
 * invocation: read as blocks, they would be intervals, CPUs or cgroups
 * posing as repetitions.  (And -G counts a cgroup system-wide, not the
 * command.)  They are refused. */
#include "formats/import_perf_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static int parse_pct(const char *s, size_t len, double *pct)
{
    if (len == 0) {
        *pct = 100.0;
        return 0;
    }
    return nf_import_number(s, len, pct) || *pct < 0 || *pct > 100 ? -1 : 0;
}

/* A count or "<not counted>": how a line of one measurement starts. */
static int is_count(const char *s, size_t len)
{
    double v;
    return perf_uncounted(s, len) != PERF_COUNTED || nf_import_number(s, len, &v) == 0;
}

/* "2.03%": the relative standard error that -r prints after the event. */
static int is_variance(const char *s, size_t len)
{
    double v;
    return len > 1 && s[len - 1] == '%' && nf_import_number(s, len - 1, &v) == 0;
}

/* An event name cut at a comma: perf prints PMU terms as given
 * ("cpu/event=0x3c,umask=0x0/"), commas and all, so a field with an odd
 * number of '/' is only the start of the event (csv_line() joins it with
 * the rest; one that is never closed stays cut, and is refused). */
static int event_cut(const char *s, size_t len)
{
    size_t slashes = 0;
    for (size_t i = 0; i < len; i++)
        slashes += s[i] == '/';
    return slashes % 2;
}

/* What a CSV line's first fields say about the mode perf ran in, when they
 * say it unmistakably (NULL: a line of one measurement per invocation, or a
 * malformed one).  A line of one measurement starts with a count (perf
 * prints at most two decimals) or "<not counted>", then a unit, which is
 * never a number.  -I puts before them the time in seconds with nine
 * decimals, -A "CPU<n>", and the --per-* aggregations a socket, die, core
 * or node and the number of CPUs aggregated (see perf_place_field()), and
 * --per-thread the thread as "COMM-TID" (a COMM with commas in it spans
 * fields, so the thread may be any of the first ones).  -G puts
 * the cgroup after the event, where the run time (a whole number), or with
 * -r the variance ("2.03%"), is otherwise: so the field after it is one of
 * those, and the cgroup never a variance. */
static const char *csv_mode(const char *f[], const size_t fl[], size_t nf)
{
    if (nf < 4)
        return NULL;
    const char *dot = memchr(f[0], '.', fl[0]);
    double v;
    if (dot && perf_all_digits(f[0], (size_t)(dot - f[0])) && fl[0] - (size_t)(dot - f[0]) == 10 &&
        perf_all_digits(dot + 1, 9) &&
        (perf_uncounted(f[1], fl[1]) != PERF_COUNTED || nf_import_number(f[1], fl[1], &v) == 0 ||
         perf_place_field(f[1], fl[1]) || perf_thread_field(f[1], fl[1])))
        return "interval output (-I: the first field is a time in seconds)";
    const char *place = perf_place_field(f[0], fl[0]);
    if (place)
        return (fl[0] > 3 && memcmp(f[0], "CPU", 3) == 0) || perf_all_digits(f[1], fl[1]) ? place
                                                                                          : NULL;
    if (!is_count(f[0], fl[0])) {
        for (size_t k = 0; k + 3 < nf; k++)
            if (perf_thread_field(f[k], fl[k]) && is_count(f[k + 1], fl[k + 1]))
                return "per-thread output (--per-thread: the first field is a thread)";
        return NULL;
    }
    if (nf >= 5 && !event_cut(f[2], fl[2]) && !is_variance(f[3], fl[3]) &&
        (perf_all_digits(f[4], fl[4]) || is_variance(f[4], fl[4])))
        return "per-cgroup output (-G: a cgroup follows the event)";
    return NULL;
}

/* A derived metric's own line in -x, (new_line_csv() and
 * print_metric_csv() in perf's util/stat-display.c): at least four empty
 * fields (the number differs between perf versions and modes), then the
 * metric's value (digits and '.', empty when perf could not print it) and
 * its unit. */
static int csv_metric_line(const char *f[], const size_t fl[], size_t nf)
{
    if (nf < 6 || fl[nf - 1] == 0)
        return 0;
    for (size_t k = 0; k + 2 < nf; k++)
        if (fl[k])
            return 0;
    double v;
    return fl[nf - 2] == 0 || nf_import_number(f[nf - 2], fl[nf - 2], &v) == 0;
}

/* Whether a line was written with a decimal comma (perf formats numbers
 * in LC_NUMERIC, and -x, does not quote them): the running percentage,
 * which perf prints with two decimals ("100.00"), is then two fields,
 * "100" and "00", and no field holds a '.'. */
static int csv_comma_locale(const char *f[], const size_t fl[], size_t nf)
{
    for (size_t k = 0; k < nf; k++)
        if (memchr(f[k], '.', fl[k]))
            return 0;
    for (size_t k = 3; k + 1 < nf; k++)
        if (fl[k] >= 1 && fl[k] <= 3 && perf_all_digits(f[k], fl[k]) && fl[k + 1] == 2 &&
            perf_all_digits(f[k + 1], 2))
            return 1;
    return 0;
}

/* What perf stat -x, and -j print in a locale with a decimal comma
 * cannot be read back (-x, splits the numbers, -j is not JSON). */
static int comma_locale(struct perf_acc *a, size_t line, const char *opt)
{
    return nf_import_fail(a->err, a->errlen, a->o->name, line,
                          "expected numbers with a decimal point: perf stat %s ran in a locale "
                          "with a decimal comma (100,00), which it does not quote; run it with "
                          "LC_ALL=C",
                          opt);
}

#define MAXF 16

static int csv_line(struct perf_acc *a, const char *s, size_t len, size_t line)
{
    const char *f[MAXF];
    size_t fl[MAXF], nf = 0;
    const char *p = s, *end = s + len;
    for (;;) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        if (nf == MAXF)
            return nf_import_fail(a->err, a->errlen, a->o->name, line,
                                  "expected at most %d comma-separated fields", MAXF);
        f[nf] = p;
        fl[nf++] = (size_t)((c ? c : end) - p);
        if (!c)
            break;
        p = c + 1;
    }
    /* An event cut at a comma (see event_cut()) goes on to the field that
     * closes it: the fields are adjacent in the line, so they join. */
    if (nf > 3 && is_count(f[0], fl[0]) && event_cut(f[2], fl[2]))
        for (size_t k = 3; k < nf; k++) {
            size_t joined = (size_t)(f[k] + fl[k] - f[2]);
            if (event_cut(f[2], joined))
                continue;
            fl[2] = joined;
            memmove(f + 3, f + k + 1, (nf - k - 1) * sizeof(f[0]));
            memmove(fl + 3, fl + k + 1, (nf - k - 1) * sizeof(fl[0]));
            nf -= k - 2;
            break;
        }
    if (csv_metric_line(f, fl, nf))
        return perf_acc_metric_line(a, line);
    if (csv_comma_locale(f, fl, nf))
        return comma_locale(a, line, "-x,");
    const char *mode = csv_mode(f, fl, nf);
    if (mode)
        return perf_not_per_invocation(a, line, mode);
    char q[64];
    if (nf < 3 || fl[2] == 0) {
        nf_quote(q, sizeof(q), s, len);
        return nf_import_fail(a->err, a->errlen, a->o->name, line,
                              "expected 'value,unit,event,...' (perf stat -x,), got '%s'%s", q,
                              perf_text_hint(s, len));
    }
    enum perf_count c = perf_uncounted(f[0], fl[0]);
    double value = 0;
    if (c == PERF_COUNTED && nf_import_number(f[0], fl[0], &value)) {
        nf_quote(q, sizeof(q), f[0], fl[0]);
        return nf_import_fail(a->err, a->errlen, a->o->name, line,
                              "expected a count or <not supported> in field 1, got '%s'", q);
    }
    /* With -r a relative standard error ("0.26%") follows the event. */
    size_t pf = 4;
    if (nf > 3 && fl[3] && f[3][fl[3] - 1] == '%') {
        double var;
        if (nf_import_number(f[3], fl[3] - 1, &var)) {
            nf_quote(q, sizeof(q), f[3], fl[3]);
            return nf_import_fail(a->err, a->errlen, a->o->name, line,
                                  "expected a percentage in field 4, got '%s'", q);
        }
        a->variance = 1;
        pf = 5;
    }
    double pct = 100.0;
    if (nf > pf && parse_pct(f[pf], fl[pf], &pct)) {
        nf_quote(q, sizeof(q), f[pf], fl[pf]);
        return nf_import_fail(a->err, a->errlen, a->o->name, line,
                              "expected the running percentage (0-100) in field %zu, got '%s'",
                              pf + 1, q);
    }
    char event[256], unit[64];
    if (fl[2] >= sizeof(event) || fl[1] >= sizeof(unit) || memchr(f[2], 0, fl[2]) ||
        memchr(f[1], 0, fl[1]))
        return nf_import_fail(a->err, a->errlen, a->o->name, line,
                              "expected an event name and unit of sensible length");
    memcpy(event, f[2], fl[2]);
    event[fl[2]] = 0;
    memcpy(unit, f[1], fl[1]);
    unit[fl[1]] = 0;
    return perf_acc_add(a, line, event, unit, c, value, pct);
}

int nf_import_perf_csv(const char *buf, size_t len, const struct nf_import_opts *o,
                       struct nf_run ***runs, size_t *n, char *err, size_t errlen)
{
    return perf_parse_lines(buf, len, o, runs, n, err, errlen, csv_line, "perf stat -x, output");
}

/* The keys perf stat -j adds to a line in a mode that prints an event
 * several times per invocation ("aggregate-number" comes with every
 * --per-* aggregation, also those newer than this list). */
static const struct {
    const char *key, *what;
} json_modes[] = {
    {"interval", "interval output (-I: \"interval\")"},
    {"cgroup", "per-cgroup output (-G: \"cgroup\")"},
    {"cpu", "per-CPU output (-A: \"cpu\")"},
    {"thread", "per-thread output (--per-thread: \"thread\")"},
    {"socket", "per-socket output (--per-socket: \"socket\")"},
    {"die", "per-die output (--per-die: \"die\")"},
    {"core", "per-core output (--per-core: \"core\")"},
    {"node", "per-node output (--per-node: \"node\")"},
    {"aggregate-number", "aggregated output (--per-*: \"aggregate-number\")"},
};

/* "pcnt-running" : 100,00: a number with a decimal comma. */
static int json_comma_locale(const char *s, size_t len)
{
    for (size_t i = 0; i + 4 < len; i++) {
        if (s[i] != ':' || s[i + 1] != ' ')
            continue;
        size_t k = i + 2;
        while (k < len && s[k] >= '0' && s[k] <= '9')
            k++;
        if (k > i + 2 && k + 1 < len && s[k] == ',' && s[k + 1] >= '0' && s[k + 1] <= '9')
            return 1;
    }
    return 0;
}

static int json_line(struct perf_acc *a, const char *s, size_t len, size_t line)
{
    json_error_t je;
    json_t *o = json_loadb(s, len, 0, &je);
    int rc = 0;
    if (!json_is_object(o)) {
        const char *hint = perf_text_hint(s, len);
        if (!o && json_comma_locale(s, len)) {
            rc = comma_locale(a, line, "-j");
            goto out;
        }
        if (*hint || o)
            rc = nf_import_fail(a->err, a->errlen, a->o->name, line,
                                "expected one JSON object per line (perf stat -j)%s", hint);
        else
            rc = nf_import_fail(a->err, a->errlen, a->o->name, line,
                                "expected one JSON object per line (perf stat -j): %s", je.text);
        goto out;
    }
    for (size_t i = 0; i < sizeof(json_modes) / sizeof(json_modes[0]); i++)
        if (json_object_get(o, json_modes[i].key)) {
            rc = perf_not_per_invocation(a, line, json_modes[i].what);
            goto out;
        }
    /* A derived metric's own line (new_line_json() and print_metric_json()
     * in perf's util/stat-display.c). */
    if (!json_object_get(o, "event") && !json_object_get(o, "counter-value") &&
        json_object_get(o, "metric-value")) {
        rc = perf_acc_metric_line(a, line);
        goto out;
    }
    const char *event = json_string_value(json_object_get(o, "event"));
    const char *cv = json_string_value(json_object_get(o, "counter-value"));
    const json_t *unit = json_object_get(o, "unit");
    const json_t *pcnt = json_object_get(o, "pcnt-running");
    const json_t *var = json_object_get(o, "variance");
    if (!event || !*event || !cv) {
        rc = nf_import_fail(a->err, a->errlen, a->o->name, line,
                            "expected \"event\" and \"counter-value\" strings");
        goto out;
    }
    if ((unit && !json_is_string(unit)) || (pcnt && !json_is_number(pcnt)) ||
        (var && !json_is_number(var))) {
        rc = nf_import_fail(a->err, a->errlen, a->o->name, line,
                            "expected \"unit\" a string, "
                            "\"pcnt-running\" and \"variance\" numbers");
        goto out;
    }
    enum perf_count c = perf_uncounted(cv, strlen(cv));
    double value = 0, pct = pcnt ? json_number_value(pcnt) : 100.0;
    if (c == PERF_COUNTED && nf_import_number(cv, strlen(cv), &value)) {
        char q[64];
        nf_quote(q, sizeof(q), cv, strlen(cv));
        rc = nf_import_fail(a->err, a->errlen, a->o->name, line,
                            "expected \"counter-value\" a number or \"<not supported>\", "
                            "got '%s'",
                            q);
        goto out;
    }
    if (!(pct >= 0 && pct <= 100)) {
        rc = nf_import_fail(a->err, a->errlen, a->o->name, line,
                            "expected \"pcnt-running\" between 0 and 100");
        goto out;
    }
    if (var)
        a->variance = 1;
    rc = perf_acc_add(a, line, event, unit ? json_string_value(unit) : "", c, value, pct);
out:
    json_decref(o);
    return rc;
}

int nf_import_perf_json(const char *buf, size_t len, const struct nf_import_opts *o,
                        struct nf_run ***runs, size_t *n, char *err, size_t errlen)
{
    return perf_parse_lines(buf, len, o, runs, n, err, errlen, json_line, "perf stat -j output");
}
