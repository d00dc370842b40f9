/* The blocks of perf stat output, as the perf stat importers (-x, and -j
 * in import_perf.c) read them: see formats/import_perf_int.h. */
#include "formats/import_perf_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"

int perf_acc_close_block(struct perf_acc *a, size_t line)
{
    if (a->in_block == 0)
        return 0;
    for (size_t i = 0; i < a->run->nmetrics; i++)
        if (!a->ev[i].seen)
            return nf_import_fail(a->err, a->errlen, a->o->name, line,
                                  "expected event '%s' in the block starting at line %zu "
                                  "(every invocation must count the same events)",
                                  a->run->metrics[i].name, a->block_line);
    a->blocks++;
    a->in_block = 0;
    for (size_t i = 0; i < a->run->nmetrics; i++)
        a->ev[i].seen = 0;
    return 0;
}

int perf_acc_add(struct perf_acc *a, size_t line, const char *event, const char *unit,
                 enum perf_count c, double value, double pct)
{
    struct nf_metric *m = nf_run_find(a->run, event);
    if (m && a->ev[m - a->run->metrics].seen) {
        if (perf_acc_close_block(a, line))
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
        a->ev = nf_xrealloc(a->ev, a->run->nmetrics * sizeof(*a->ev));
        memset(&a->ev[a->run->nmetrics - 1], 0, sizeof(*a->ev));
    }
    struct perf_ev *e = &a->ev[m - a->run->metrics];
    /* <not supported> in some blocks and not in others: not one machine. */
    if (c == PERF_NOT_SUPPORTED ? e->not_supported < e->blocks : e->not_supported > 0)
        return nf_import_fail(a->err, a->errlen, a->o->name, line,
                              "expected '%s' to be <not supported> in every block or in none "
                              "(output of one machine)",
                              event);
    e->seen = 1;
    e->blocks++;
    a->in_block++;
    a->after_event = line;
    if (c == PERF_COUNTED)
        nf_metric_push(m, value, pct);
    else if (c == PERF_NOT_COUNTED)
        e->not_counted++;
    else
        e->not_supported++;
    return 0;
}

/* "# started on Mon Nov 30 03:25:58 2026" (local time) → run->started. */
int perf_acc_header(struct perf_acc *a, const char *s, size_t len, size_t line)
{
    static const char tag[] = "# started on ";
    if (len < sizeof(tag) - 1 || memcmp(s, tag, sizeof(tag) - 1) != 0)
        return 0;
    if (perf_acc_close_block(a, line))
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
            /* A run's start is written with a four-digit year (and read
             * back only so): a date outside them is no date of a run. */
            if (t != (time_t)-1 && gmtime_r(&t, &utc) && utc.tm_year >= 1970 - 1900 &&
                utc.tm_year <= 9999 - 1900) {
                strftime(a->run->started, sizeof(a->run->started), "%Y-%m-%dT%H:%M:%SZ", &utc);
                a->dated = 1;
            }
        }
    }
    return 0;
}

/* A line of one of perf's derived metrics: skipped, right after an event
 * (see the top of this file). */
int perf_acc_metric_line(struct perf_acc *a, size_t line)
{
    if (a->after_event == 0 || a->after_event + 1 != line)
        return nf_import_fail(a->err, a->errlen, a->o->name, line,
                              "expected a derived metric's line right after its event's line");
    a->after_event = line;
    return 0;
}

/* Append "; TEXT" to the run's note. */
static void note_add(struct nf_run *run, const char *text)
{
    char *note = nf_xasprintf("%s; %s", run->note, text);
    free(run->note);
    run->note = note;
}

int perf_acc_finish(struct perf_acc *a, size_t line, const char *what, const char *fallback)
{
    if (perf_acc_close_block(a, line))
        return -1;
    if (a->blocks == 0)
        return nf_import_fail(a->err, a->errlen, a->o->name, line ? line : 1,
                              "expected at least one line of %s", what);
    a->run->repeat = (int)a->blocks;
    if (a->variance)
        note_add(a->run, "each value is the mean of one 'perf stat -r' invocation");
    for (size_t i = 0; i < a->run->nmetrics; i++) {
        struct nf_metric *m = &a->run->metrics[i];
        const struct perf_ev *e = &a->ev[i];
        if (e->not_counted == 0 && e->not_supported == 0)
            continue;
        /* No value rather than the values of some invocations only. */
        m->supported = 0;
        m->n = 0;
        free(m->running_pct);
        m->running_pct = NULL;
        if (e->not_counted == 0)
            continue;
        m->not_counted = 1;
        char *what = nf_xasprintf("'%s' was <not counted> in %zu of %zu invocations", m->name,
                                  e->not_counted, a->blocks);
        nf_import_warn(a->o,
                       "%s: %s (it never ran in them: multiplexed out, or enabled too late); "
                       "stored without values, as unsupported",
                       a->o->name ? a->o->name : "-", what);
        char *note = nf_xasprintf("%s: stored without values", what);
        note_add(a->run, note);
        free(note);
        free(what);
    }
    /* Primary: task-clock (task-clock:u, ...), as perf stat leads with
     * it; else the fallback; else the first counted event. */
    struct nf_metric *p = NULL;
    for (size_t i = 0; i < a->run->nmetrics && !p; i++) {
        const char *name = a->run->metrics[i].name;
        if (a->run->metrics[i].supported && strncmp(name, "task-clock", 10) == 0 &&
            (name[10] == 0 || name[10] == ':'))
            p = &a->run->metrics[i];
    }
    if (!p && fallback)
        p = nf_run_find(a->run, fallback);
    if (!p || !p->supported)
        p = nf_run_primary(a->run);
    if (p)
        p->primary = 1;
    return 0;
}

enum perf_count perf_uncounted(const char *s, size_t len)
{
    if (len == 15 && memcmp(s, "<not supported>", 15) == 0)
        return PERF_NOT_SUPPORTED;
    if (len == 13 && memcmp(s, "<not counted>", 13) == 0)
        return PERF_NOT_COUNTED;
    return PERF_COUNTED;
}

/* "interval output (-I)" is not one measurement per invocation. */
int perf_not_per_invocation(struct perf_acc *a, size_t line, const char *what)
{
    return nf_import_fail(a->err, a->errlen, a->o->name, line,
                          "perf stat %s is not one measurement per invocation; "
                          "run perf stat without -I, -A, -G and --per-*",
                          what);
}

int perf_all_digits(const char *s, size_t len)
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
const char *perf_place_field(const char *s, size_t len)
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
int perf_thread_field(const char *s, size_t len)
{
    size_t k = len;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    return k < len && k > 0 && s[k - 1] == '-';
}

void perf_acc_init(struct perf_acc *a, const struct nf_import_opts *o, struct nf_run ***runs,
                   size_t *n, char *err, size_t errlen)
{
    memset(a, 0, sizeof(*a));
    a->o = o;
    a->err = err;
    a->errlen = errlen;
    a->run = nf_import_new_run(o, 0, "", "perf-stat");
    nf_import_push(runs, n, a->run);
}

void perf_acc_free(struct perf_acc *a)
{
    free(a->ev);
    a->ev = NULL;
}

int perf_whole_lines(const char *buf, size_t len, const struct nf_import_opts *o, char *err,
                     size_t errlen)
{
    /* perf ends every line with a newline: a last line without one was cut
     * off (a full disk, a copy that stopped), and its tail may read as a
     * smaller value or another event. */
    size_t last = len;
    while (last > 0 && (buf[last - 1] == ' ' || buf[last - 1] == '\t'))
        last--;
    if (last == 0 || buf[last - 1] == '\n')
        return 0;
    size_t lineno = 1;
    for (size_t i = 0; i < len; i++)
        lineno += buf[i] == '\n';
    return nf_import_fail(err, errlen, o->name, lineno,
                          "expected a whole line, ending with a newline as perf writes "
                          "it (the file ends in the middle of one: cut off?)");
}

const char *perf_text_hint(const char *s, size_t len)
{
    static const char head[] = "Performance counter stats for ";
    static const char elapsed[] = "seconds time elapsed";
    if (len >= sizeof(head) - 1 && memcmp(s, head, sizeof(head) - 1) == 0)
        return " (perf stat's text output: --format perf-stat)";
    for (size_t i = 0; i + sizeof(elapsed) - 1 <= len; i++)
        if (memcmp(s + i, elapsed, sizeof(elapsed) - 1) == 0)
            return " (perf stat's text output: --format perf-stat)";
    return "";
}

int perf_message(const char *s, size_t len)
{
    static const char *const msgs[] = {"Events disabled", "Events enabled"};
    for (size_t i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++)
        if (len == strlen(msgs[i]) && memcmp(s, msgs[i], len) == 0)
            return 1;
    return 0;
}

int perf_parse_lines(const char *buf, size_t len, const struct nf_import_opts *o,
                     struct nf_run ***runs, size_t *n, char *err, size_t errlen, perf_line_fn fn,
                     const char *what)
{
    struct perf_acc a;
    perf_acc_init(&a, o, runs, n, err, errlen);
    if (perf_whole_lines(buf, len, o, err, errlen))
        return -1;
    struct nf_lines l;
    const char *s;
    size_t sl;
    int rc = 0;
    nf_lines_init(&l, buf, len);
    while (rc == 0 && nf_lines_next(&l, &s, &sl)) {
        nf_trim_span(&s, &sl);
        if (sl == 0 || perf_message(s, sl))
            continue;
        if (s[0] == '#')
            rc = perf_acc_header(&a, s, sl, l.lineno);
        else
            rc = fn(&a, s, sl, l.lineno);
    }
    if (rc == 0)
        rc = perf_acc_finish(&a, l.lineno, what, NULL);
    perf_acc_free(&a);
    return rc;
}
