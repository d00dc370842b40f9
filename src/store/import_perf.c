/* perf stat output: `-x,` (CSV) and `-j` (one JSON object a line).
 *
 * One file is one run.  perf prints one line per event per invocation; an
 * invocation is a "block" of lines, and each block is one repetition.  A
 * block ends when an event seen in it appears again, or at a "# started on"
 * header (which `-o FILE --append` writes before each invocation).  With
 * `-r N` perf prints only the mean of the N repetitions and its relative
 * standard error (the "variance" column): that mean becomes the block's one
 * value, and the run's note says so.  So three `perf stat -r 10` invocations
 * appended to one file import as a run of three values, each the mean of ten
 * — the between-invocation variance that doc/cases.md's third case found to
 * be the real one.
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
 * Every event must be in every block.  "<not supported>" and "<not counted>"
 * mean no value: such an event is stored unsupported (never as 0), and must
 * then be uncounted in every block.
 *
 * Interval output (-I), per-CPU output (-A), per-cgroup output (-G,
 * --for-each-cgroup) and the other aggregations (--per-socket, --per-die,
 * --per-core, --per-node, --per-thread) print an event several times per
 * invocation: read as blocks, they would be intervals, CPUs or cgroups
 * posing as repetitions.  (And -G counts a cgroup system-wide, not the
 * command.)  They are refused. */
#include "store/import_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"

struct perf_acc {
    const struct nf_import_opts *o;
    struct nf_run *run;
    size_t blocks;       /* finished blocks */
    size_t in_block;     /* events seen in the current block */
    unsigned char *seen; /* per metric: seen in the current block */
    size_t block_line;   /* first line of the current block */
    int variance;        /* -r output seen */
    int dated;           /* started taken from a header */
    size_t after_event;  /* the line of the last event, or of a derived
                            metric's line after it; 0 after a header */
    char *err;
    size_t errlen;
};

static int acc_close_block(struct perf_acc *a, size_t line)
{
    if (a->in_block == 0)
        return 0;
    for (size_t i = 0; i < a->run->nmetrics; i++)
        if (!a->seen[i])
            return nf_import_fail(a->err, a->errlen, a->o->name, line,
                                  "expected event '%s' in the block starting at line %zu "
                                  "(every invocation must count the same events)",
                                  a->run->metrics[i].name, a->block_line);
    a->blocks++;
    a->in_block = 0;
    memset(a->seen, 0, a->run->nmetrics);
    return 0;
}

/* One event line: value (NAN with counted = 0 for <not supported>). */
static int acc_add(struct perf_acc *a, size_t line, const char *event, const char *unit,
                   int counted, double value, double pct)
{
    struct nf_metric *m = nf_run_find(a->run, event);
    if (m && a->seen[m - a->run->metrics]) {
        if (acc_close_block(a, line))
            return -1;
    }
    if (a->in_block == 0)
        a->block_line = line;
    if (!m) {
        if (a->blocks > 0)
            return nf_import_fail(a->err, a->errlen, a->o->name, line,
                                  "expected only the events of the first block, got '%s'", event);
        m = nf_run_metric(a->run, event, unit, NF_BETTER_LOWER, 0);
        if (!m)
            return nf_import_fail(a->err, a->errlen, a->o->name, line,
                                  "expected at most %d events (a run holds no more metrics)",
                                  NF_RUN_MAX_METRICS);
        m->supported = counted;
        a->seen = nf_xrealloc(a->seen, a->run->nmetrics);
        a->seen[a->run->nmetrics - 1] = 0;
    } else if (m->supported != counted) {
        return nf_import_fail(a->err, a->errlen, a->o->name, line,
                              "expected '%s' to be counted in every block or in none", event);
    }
    a->seen[m - a->run->metrics] = 1;
    a->in_block++;
    a->after_event = line;
    if (counted)
        nf_metric_push(m, value, pct);
    return 0;
}

/* "# started on Mon Nov 30 03:25:58 2026" (local time) → run->started. */
static int acc_header(struct perf_acc *a, const char *s, size_t len, size_t line)
{
    static const char tag[] = "# started on ";
    if (len < sizeof(tag) - 1 || memcmp(s, tag, sizeof(tag) - 1) != 0)
        return 0;
    if (acc_close_block(a, line))
        return -1;
    a->after_event = 0;
    if (!a->dated) {
        char buf[64];
        size_t n = len - (sizeof(tag) - 1);
        if (n >= sizeof(buf))
            return 0;
        memcpy(buf, s + sizeof(tag) - 1, n);
        buf[n] = 0;
        struct tm tm;
        memset(&tm, 0, sizeof(tm));
        const char *end = strptime(buf, "%a %b %d %H:%M:%S %Y", &tm);
        if (end && !*end) {
            tm.tm_isdst = -1;
            time_t t = mktime(&tm);
            struct tm utc;
            if (t != (time_t)-1 && gmtime_r(&t, &utc)) {
                strftime(a->run->started, sizeof(a->run->started), "%Y-%m-%dT%H:%M:%SZ", &utc);
                a->dated = 1;
            }
        }
    }
    return 0;
}

/* A line of one of perf's derived metrics: skipped, right after an event
 * (see the top of this file). */
static int acc_metric_line(struct perf_acc *a, size_t line)
{
    if (a->after_event == 0 || a->after_event + 1 != line)
        return nf_import_fail(a->err, a->errlen, a->o->name, line,
                              "expected a derived metric's line right after its event's line");
    a->after_event = line;
    return 0;
}

static int acc_finish(struct perf_acc *a, size_t line)
{
    if (acc_close_block(a, line))
        return -1;
    if (a->blocks == 0)
        return nf_import_fail(a->err, a->errlen, a->o->name, line ? line : 1,
                              "expected at least one line of perf stat %s output",
                              strcmp(a->o->format, "perf-stat-csv") == 0 ? "-x," : "-j");
    a->run->repeat = (int)a->blocks;
    /* Primary: task-clock, as perf stat leads with it; else the first
     * counted event. */
    struct nf_metric *p = nf_run_find(a->run, "task-clock");
    if (!p || !p->supported)
        p = nf_run_primary(a->run);
    if (p)
        p->primary = 1;
    if (a->variance) {
        char *note = nf_xasprintf("%s; each value is the mean of one 'perf stat -r' "
                                  "invocation",
                                  a->run->note);
        free(a->run->note);
        a->run->note = note;
    }
    return 0;
}

static int parse_pct(const char *s, size_t len, double *pct)
{
    if (len == 0) {
        *pct = 100.0;
        return 0;
    }
    return nf_import_number(s, len, pct) || *pct < 0 || *pct > 100 ? -1 : 0;
}

static int is_uncounted(const char *s, size_t len)
{
    return (len == 15 && memcmp(s, "<not supported>", 15) == 0) ||
           (len == 13 && memcmp(s, "<not counted>", 13) == 0);
}

/* "interval output (-I)" is not one measurement per invocation. */
static int not_per_invocation(struct perf_acc *a, size_t line, const char *what)
{
    return nf_import_fail(a->err, a->errlen, a->o->name, line,
                          "perf stat %s is not one measurement per invocation; "
                          "run perf stat without -I, -A, -G and --per-*",
                          what);
}

static int all_digits(const char *s, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* s is TAG<digits>, and its length is returned; 0 when not. */
static size_t tagged_number(const char *s, size_t len, const char *tag)
{
    size_t t = strlen(tag), k = t;
    if (len <= t || memcmp(s, tag, t) != 0)
        return 0;
    while (k < len && s[k] >= '0' && s[k] <= '9')
        k++;
    return k > t ? k : 0;
}

/* The kind of place a field names: "CPU<n>" (-A), and "S<n>", "S<n>-D<n>",
 * "S<n>-D<n>-C<n>" or "N<n>" (--per-socket, --per-die, --per-core,
 * --per-node); NULL for anything else, a count among them. */
static const char *place_field(const char *s, size_t len)
{
    if (tagged_number(s, len, "CPU") == len)
        return "per-CPU output (-A: the first field is a CPU)";
    size_t k = tagged_number(s, len, "N");
    if (k && k == len)
        return "per-node output (--per-node: the first field is a node)";
    k = tagged_number(s, len, "S");
    if (k == 0)
        return NULL;
    if (k == len)
        return "per-socket output (--per-socket: the first field is a socket)";
    size_t d = tagged_number(s + k, len - k, "-D");
    if (d == 0)
        return NULL;
    if (k + d == len)
        return "per-die output (--per-die: the first field is a die)";
    size_t c = tagged_number(s + k + d, len - k - d, "-C");
    if (c && k + d + c == len)
        return "per-core output (--per-core: the first field is a core)";
    return NULL;
}

/* "COMM-TID", as --per-thread names a thread (the command name may be
 * anything, but the thread id after its last '-' is a number). */
static int thread_field(const char *s, size_t len)
{
    size_t k = len;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    return k < len && k > 0 && s[k - 1] == '-';
}

/* A count or "<not counted>": how a line of one measurement starts. */
static int is_count(const char *s, size_t len)
{
    double v;
    return is_uncounted(s, len) || nf_import_number(s, len, &v) == 0;
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
 * or node and the number of CPUs aggregated (see place_field()), and
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
    if (dot && all_digits(f[0], (size_t)(dot - f[0])) && fl[0] - (size_t)(dot - f[0]) == 10 &&
        all_digits(dot + 1, 9) &&
        (is_uncounted(f[1], fl[1]) || nf_import_number(f[1], fl[1], &v) == 0 ||
         place_field(f[1], fl[1]) || thread_field(f[1], fl[1])))
        return "interval output (-I: the first field is a time in seconds)";
    const char *place = place_field(f[0], fl[0]);
    if (place)
        return (fl[0] > 3 && memcmp(f[0], "CPU", 3) == 0) || all_digits(f[1], fl[1]) ? place : NULL;
    if (!is_count(f[0], fl[0])) {
        for (size_t k = 0; k + 3 < nf; k++)
            if (thread_field(f[k], fl[k]) && is_count(f[k + 1], fl[k + 1]))
                return "per-thread output (--per-thread: the first field is a thread)";
        return NULL;
    }
    if (nf >= 5 && !event_cut(f[2], fl[2]) && !is_variance(f[3], fl[3]) &&
        (all_digits(f[4], fl[4]) || is_variance(f[4], fl[4])))
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
        return acc_metric_line(a, line);
    const char *mode = csv_mode(f, fl, nf);
    if (mode)
        return not_per_invocation(a, line, mode);
    char q[64];
    if (nf < 3 || fl[2] == 0) {
        nf_quote(q, sizeof(q), s, len);
        return nf_import_fail(a->err, a->errlen, a->o->name, line,
                              "expected 'value,unit,event,...' (perf stat -x,), got '%s'", q);
    }
    int counted = !is_uncounted(f[0], fl[0]);
    double value = 0;
    if (counted && nf_import_number(f[0], fl[0], &value)) {
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
    return acc_add(a, line, event, unit, counted, value, pct);
}

typedef int (*line_fn)(struct perf_acc *, const char *, size_t, size_t);

static int parse_lines(const char *buf, size_t len, const struct nf_import_opts *o,
                       struct nf_run ***runs, size_t *n, char *err, size_t errlen, line_fn fn)
{
    struct perf_acc a = {.o = o, .err = err, .errlen = errlen};
    a.run = nf_import_new_run(o, 0, "", "perf-stat");
    nf_import_push(runs, n, a.run);
    struct nf_lines l;
    const char *s;
    size_t sl;
    int rc = 0;
    /* perf ends every line with a newline: a last line without one was cut
     * off (a full disk, a copy that stopped), and its tail may read as a
     * smaller value or another event. */
    size_t last = len;
    while (last > 0 && (buf[last - 1] == ' ' || buf[last - 1] == '\t'))
        last--;
    if (last > 0 && buf[last - 1] != '\n') {
        size_t lineno = 1;
        for (size_t i = 0; i < len; i++)
            lineno += buf[i] == '\n';
        return nf_import_fail(err, errlen, o->name, lineno,
                              "expected a whole line, ending with a newline as perf writes "
                              "it (the file ends in the middle of one: cut off?)");
    }
    nf_lines_init(&l, buf, len);
    while (rc == 0 && nf_lines_next(&l, &s, &sl)) {
        nf_trim_span(&s, &sl);
        if (sl == 0)
            continue;
        if (s[0] == '#')
            rc = acc_header(&a, s, sl, l.lineno);
        else
            rc = fn(&a, s, sl, l.lineno);
    }
    if (rc == 0)
        rc = acc_finish(&a, l.lineno);
    free(a.seen);
    return rc;
}

int nf_import_perf_csv(const char *buf, size_t len, const struct nf_import_opts *o,
                       struct nf_run ***runs, size_t *n, char *err, size_t errlen)
{
    return parse_lines(buf, len, o, runs, n, err, errlen, csv_line);
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

static int json_line(struct perf_acc *a, const char *s, size_t len, size_t line)
{
    json_error_t je;
    json_t *o = json_loadb(s, len, 0, &je);
    int rc = 0;
    if (!json_is_object(o)) {
        rc = nf_import_fail(a->err, a->errlen, a->o->name, line,
                            "expected one JSON object per line (perf stat -j)%s%s", o ? "" : ": ",
                            o ? "" : je.text);
        goto out;
    }
    for (size_t i = 0; i < sizeof(json_modes) / sizeof(json_modes[0]); i++)
        if (json_object_get(o, json_modes[i].key)) {
            rc = not_per_invocation(a, line, json_modes[i].what);
            goto out;
        }
    /* A derived metric's own line (new_line_json() and print_metric_json()
     * in perf's util/stat-display.c). */
    if (!json_object_get(o, "event") && !json_object_get(o, "counter-value") &&
        json_object_get(o, "metric-value")) {
        rc = acc_metric_line(a, line);
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
    int counted = !is_uncounted(cv, strlen(cv));
    double value = 0, pct = pcnt ? json_number_value(pcnt) : 100.0;
    if (counted && nf_import_number(cv, strlen(cv), &value)) {
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
    rc = acc_add(a, line, event, unit ? json_string_value(unit) : "", counted, value, pct);
out:
    json_decref(o);
    return rc;
}

int nf_import_perf_json(const char *buf, size_t len, const struct nf_import_opts *o,
                        struct nf_run ***runs, size_t *n, char *err, size_t errlen)
{
    return parse_lines(buf, len, o, runs, n, err, errlen, json_line);
}
