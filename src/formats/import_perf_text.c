/* perf stat's own output, as it prints it without -x or -j (and as kernel
 * mails paste it), read in blocks, one per invocation
 * (formats/import_perf_int.h):
 *
 *      Performance counter stats for 'perf bench sched pipe' (10 runs):
 *
 *           16,839.74 msec task-clock:u   #    1.158 CPUs utilized  ( +-  0.52% )
 *         333,773,107      cycles:u       #    0.020 GHz  ( +-  0.70% )  (83.72%)
 *          84,456,137      instructions:u #    0.25  insn per cycle
 *                                         #    0.83  stalled cycles per insn  ( +-  0.02% )
 * (83.01%) <not supported>      branches
 *
 *             14.5464 +- 0.0758 seconds time elapsed  ( +-  0.52% )
 *
 *         0.002465000 seconds user        (without -r)
 *         0.000000000 seconds sys
 *
 * An event's line is its count (or <not supported>, <not counted>), its
 * unit (msec) if it has one, and its name; then perf's derived metrics
 * after '#' (skipped: the events are stored, see import_perf.c), the
 * relative standard error of -r, "( +- x% )", and, for a counter that ran
 * only part of the time (multiplexed), that part, "(83.72%)".  perf puts
 * those two after the event's last metric, which may be on a line of its
 * own that starts with '#'.  Each invocation's "seconds time elapsed" is
 * the metric "wall", and "seconds user" and "seconds sys" (perf prints
 * them without -r) "user" and "sys", in seconds: the names `run --
 * COMMAND` gives them.  So `perf stat --null`, which prints nothing else,
 * imports as wall times, and so do lines of "N seconds time elapsed"
 * alone, as a mail quotes them; an event's line must come after its
 * invocation's "Performance counter stats for" line (and before its
 * "seconds time elapsed"), so that the output of the command, written
 * into the same file, is never read as a count.
 *
 * With -r perf prints the mean of the repetitions: as in -x, that mean is
 * the invocation's one value, and the run's note says so.  Its --table of
 * each repetition's wall time is skipped, and so are the hints perf
 * prints after the counts (NMI watchdog, event groups).
 *
 * Counts, times and percentages are read as perf formats them in the
 * locale (import_perf_text_num.c).
 *
 * Lines quoted as in a mail ("> ") are read as they are.  Interval (-I),
 * per-CPU (-A), per-thread, per-cgroup (-G) and aggregated (--per-*)
 * output are refused, as in -x, (import_perf.c says why); so is any line
 * that is not perf's. */
#include "formats/import_perf_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define MAXTOK 16

/* What a line that is not perf's is told. */
static const char not_perf[] = "a line of perf stat's output (perf stat -o FILE keeps the "
                               "command's own output out of FILE)";

struct text {
    struct perf_acc a;
    int in_counts; /* after a "Performance counter stats" line, before the
                      elapsed time */
    int in_table;  /* in -r --table's "Table of individual measurements" */
    /* The event whose line was read last, added once its metric lines,
     * which may hold its running percentage, are read too. */
    int pending;
    char event[256], unit[64];
    enum perf_count count;
    double value, pct;
    double sem;        /* its -r "( +- x% )", NAN when none */
    size_t line, last; /* the event's line, and its last metric line */
    long runs;         /* the block's -r N, from its header; 0 without */
    json_t *sems;      /* metric -> its "( +- x% )" (the last block's) */
};

static int starts(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

static int equals(const char *s, size_t len, const char *word)
{
    return len == strlen(word) && memcmp(s, word, len) == 0;
}

static int fail(struct text *t, size_t line, const char *s, size_t len, const char *what)
{
    char q[64];
    nf_quote(q, sizeof(q), s, len);
    return nf_import_fail(t->a.err, t->a.errlen, t->a.o->name, line, "expected %s, got '%s'", what,
                          q);
}

/* Whether a word starts a count: a number, or "<not". */
static int count_word(const char *s, size_t len)
{
    double v;
    return equals(s, len, "<not") || perf_text_count(s, len, &v) == 0;
}

/* Split [s, s+len) at blanks into at most MAXTOK words; their number. */
static size_t words(const char *s, size_t len, const char *w[], size_t wl[])
{
    size_t n = 0, i = 0;
    while (i < len && n < MAXTOK) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i == len)
            break;
        size_t b = i;
        while (i < len && s[i] != ' ' && s[i] != '\t')
            i++;
        w[n] = s + b;
        wl[n++] = i - b;
    }
    return n;
}

/* The end of what perf prints after an event (or on its metric's own
 * line): the running percentage "(83.72%)" ("[83.72%]" before perf 4.x)
 * and before it -r's "( +- 0.52% )", each taken off the end of [*s,
 * *s + *len), which is left trimmed.  What else ends in a parenthesis is
 * left where it is; a percentage that is not a number is malformed. */
static int tail(struct text *t, const char **s, size_t *len, double *pct, double *sem, size_t line)
{
    nf_trim_span(s, len);
    const char *p = *s;
    for (int step = 0; step < 2 && *len >= 3; step++) {
        char close = p[*len - 1];
        if (close != ')' && close != ']')
            break;
        char open = close == ')' ? '(' : '[';
        size_t o = *len - 1;
        while (o > 0 && p[o] != open)
            o--;
        if (p[o] != open)
            break;
        const char *in = p + o + 1;
        size_t inl = *len - 1 - (o + 1);
        nf_trim_span(&in, &inl);
        if (inl == 0 || in[inl - 1] != '%')
            break;
        int noise = open == '(' && inl >= 2 && memcmp(in, "+-", 2) == 0;
        if (noise) {
            in += 2;
            inl -= 2;
            nf_trim_span(&in, &inl);
        }
        double v;
        if (perf_text_decimal(in, inl - 1, &v) || v < 0 || (!noise && v > 100))
            return fail(t, line, p + o, *len - o, "'(NN.NN%)' or '( +- N.NN% )'");
        if (!noise && step == 1)
            break; /* two running percentages: not perf's */
        if (noise) {
            t->a.variance = 1;
            *sem = v;
        } else {
            *pct = v;
        }
        *len = o;
        nf_trim_span(s, len);
        if (noise)
            break;
    }
    return 0;
}

static int flush(struct text *t)
{
    if (!t->pending)
        return 0;
    t->pending = 0;
    if (t->count == PERF_COUNTED && isfinite(t->sem))
        json_object_set_new(t->sems, t->event, json_real(t->sem));
    return perf_acc_add(&t->a, t->line, t->event, t->unit, t->count, t->value, t->pct);
}

/* "Performance counter stats for 'CMD' (10 runs):" */
static int header_line(struct text *t, const char *s, size_t len, size_t line)
{
    if (len < 2 || s[len - 1] != ':')
        return fail(t, line, s, len, "perf's \"Performance counter stats for '...':\"");
    if (perf_acc_close_block(&t->a, line))
        return -1;
    t->in_counts = 1;
    t->in_table = 0;
    static const char runs[] = " runs):";
    t->runs = 0;
    json_object_clear(t->sems);
    if (len > sizeof(runs) && memcmp(s + len - (sizeof(runs) - 1), runs, sizeof(runs) - 1) == 0) {
        t->a.variance = 1;
        /* "... (10 runs):": the N */
        size_t e = len - (sizeof(runs) - 1), b = e;
        while (b > 0 && s[b - 1] >= '0' && s[b - 1] <= '9')
            b--;
        if (b < e && b > 0 && s[b - 1] == '(' && e - b < 10)
            t->runs = strtol(s + b, NULL, 10);
    }
    return 0;
}

/* A '#' line that is no "# started on": -r --table's headings, -I's
 * column heading, or an event's next derived metric. */
static int hash_line(struct text *t, const char *s, size_t len, size_t line)
{
    if (equals(s, len, "# Table of individual measurements:")) {
        t->in_table = 1;
        return flush(t);
    }
    if (equals(s, len, "# Final result:")) {
        t->in_table = 0;
        return flush(t);
    }
    const char *w[MAXTOK];
    size_t wl[MAXTOK];
    size_t n = words(s + 1, len - 1, w, wl);
    if (n >= 1 && equals(w[0], wl[0], "time"))
        return perf_not_per_invocation(&t->a, line, "interval output (-I: a column of times)");
    char c = n ? w[0][0] : 0;
    if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'n' || c == 'i' || c == 'N'))
        return fail(t, line, s, len, not_perf);
    if (!t->pending || t->last + 1 != line)
        return fail(t, line, s, len,
                    "a derived metric's line ('# N UNIT') right after its event's");
    t->last = line;
    return tail(t, &s, &len, &t->pct, &t->sem, line);
}

/* "N seconds time elapsed", "N +- SD seconds time elapsed ( +- x% )",
 * "N seconds user", "N seconds sys": 1 when s is one of these (then *rc
 * says how it went), 0 when not. */
static int time_line(struct text *t, const char *s, size_t len, size_t line, int *rc)
{
    const char *w[MAXTOK];
    size_t wl[MAXTOK];
    size_t n = words(s, len, w, wl), k = 1;
    if (n >= 3 && equals(w[1], wl[1], "+-"))
        k = 3;
    if (n < k + 2 || !equals(w[k], wl[k], "seconds"))
        return 0;
    const char *name;
    size_t rest;
    if (n >= k + 3 && equals(w[k + 1], wl[k + 1], "time") &&
        equals(w[k + 2], wl[k + 2], "elapsed")) {
        name = "wall";
        rest = k + 3;
    } else if (equals(w[k + 1], wl[k + 1], "user") || equals(w[k + 1], wl[k + 1], "sys")) {
        name = w[k + 1][0] == 'u' ? "user" : "sys";
        rest = k + 2;
    } else {
        return 0;
    }
    double v, sd, pct = 100.0, sem = NAN;
    *rc = -1;
    if (perf_text_decimal(w[0], wl[0], &v) || v < 0 ||
        (k == 3 && perf_text_decimal(w[2], wl[2], &sd))) {
        fail(t, line, s, len, "'N seconds time elapsed' (N a number of seconds)");
        return 1;
    }
    if (k == 3)
        t->a.variance = 1;
    const char *r = rest < n ? w[rest] : s + len;
    size_t tl = (size_t)(s + len - r);
    if (flush(t) || tail(t, &r, &tl, &pct, &sem, line))
        return 1;
    if (isfinite(sem))
        json_object_set_new(t->sems, name, json_real(sem));
    if (tl || pct != 100.0) {
        fail(t, line, s, len, "nothing after 'seconds time elapsed' but '( +- N.NN% )'");
        return 1;
    }
    if (name[0] == 'w') {
        t->in_counts = 0;
        t->in_table = 0;
    }
    *rc = perf_acc_add(&t->a, line, name, "seconds", PERF_COUNTED, v, 100.0);
    return 1;
}

/* What a line's first words say about a mode that is not one measurement
 * per invocation (see csv_mode() in import_perf.c), or NULL. */
static const char *text_mode(const char *w[], const size_t wl[], size_t n)
{
    if (n < 2)
        return NULL;
    const char *dot = memchr(w[0], '.', wl[0]);
    if (!dot)
        dot = memchr(w[0], ',', wl[0]);
    if (dot && perf_all_digits(w[0], (size_t)(dot - w[0])) && wl[0] - (size_t)(dot - w[0]) == 10 &&
        perf_all_digits(dot + 1, 9))
        return "interval output (-I: the first column is a time in seconds)";
    const char *place = perf_place_field(w[0], wl[0]);
    if (place && ((wl[0] > 3 && memcmp(w[0], "CPU", 3) == 0) || perf_all_digits(w[1], wl[1])))
        return place;
    if (!count_word(w[0], wl[0]))
        for (size_t k = 0; k + 1 < n; k++)
            if (perf_thread_field(w[k], wl[k]) && count_word(w[k + 1], wl[k + 1]))
                return "per-thread output (--per-thread: the first column is a thread)";
    return NULL;
}

/* Where the words of an event's line end: at the derived metric ('#'),
 * or at the tail ("(83.72%)", "( +- 0.52% )", "[83.72%]"; not at an
 * "[PMU]" that is part of the event's name, nor at "(msec)" that is its
 * unit before perf 4.x). */
static size_t head_end(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '#' || s[i] == '(')
            return i;
        if (s[i] == '[') {
            const char *close = memchr(s + i, ']', len - i);
            if (!close || memchr(s + i, '%', (size_t)(close - s - i)))
                return i;
        }
    }
    return len;
}

static int event_line(struct text *t, const char *s, size_t len, size_t line)
{
    static const char shape[] = "a line of perf stat's output ('COUNT [UNIT] EVENT')";
    size_t head = head_end(s, len);
    const char *w[MAXTOK];
    size_t wl[MAXTOK];
    size_t n = words(s, head, w, wl);
    const char *mode = text_mode(w, wl, n);
    if (mode)
        return perf_not_per_invocation(&t->a, line, mode);
    enum perf_count c = PERF_COUNTED;
    size_t k = 1;
    double value = 0;
    if (n >= 2 && equals(w[0], wl[0], "<not")) {
        c = equals(w[1], wl[1], "supported>") ? PERF_NOT_SUPPORTED
            : equals(w[1], wl[1], "counted>") ? PERF_NOT_COUNTED
                                              : PERF_COUNTED;
        if (c == PERF_COUNTED)
            return fail(t, line, s, len, "<not supported> or <not counted>");
        k = 2;
    } else if (n == 0 || perf_text_count(w[0], wl[0], &value)) {
        return fail(t, line, s, len, shape);
    }
    if (!t->in_counts)
        return fail(t, line, s, len, "perf's 'Performance counter stats for' line before a count");
    /* [UNIT] EVENT, where "EVENT [PMU]" is one event (perf names it so
     * with --no-merge); a cgroup (-G) would follow the event. */
    size_t left = n - k, ev = k;
    int pmu = left >= 2 && w[n - 1][0] == '[';
    if (left == 0 || left - (size_t)pmu > 2)
        return left - (size_t)pmu == 3 || (left && w[n - 1][0] == '/')
                   ? perf_not_per_invocation(&t->a, line,
                                             "per-cgroup output (-G: a cgroup follows the event)")
                   : fail(t, line, s, len, shape);
    if (left - (size_t)pmu == 2) {
        if (w[n - 1 - (size_t)pmu][0] == '/')
            return perf_not_per_invocation(&t->a, line,
                                           "per-cgroup output (-G: a cgroup follows the event)");
        ev++;
    }
    const char *unit = ev > k ? w[k] : "";
    size_t unitl = ev > k ? wl[k] : 0;
    size_t evl = (size_t)(w[n - 1] + wl[n - 1] - w[ev]);
    /* Before perf 4.x the unit came after the event: "task-clock (msec)". */
    const char *rest = s + head;
    size_t restl = len - head;
    if (unitl == 0 && restl > 2 && rest[0] == '(') {
        const char *close = memchr(rest, ')', restl);
        size_t ul = close ? (size_t)(close - rest - 1) : 0;
        int word = ul > 0;
        for (size_t i = 1; i <= ul; i++)
            word &= (rest[i] >= 'a' && rest[i] <= 'z') || (rest[i] >= 'A' && rest[i] <= 'Z');
        if (word) {
            unit = rest + 1;
            unitl = ul;
            rest += ul + 2;
            restl -= ul + 2;
        }
    }
    if (evl >= sizeof(t->event) || unitl >= sizeof(t->unit))
        return fail(t, line, s, len, "an event name and unit of sensible length");
    if (flush(t))
        return -1;
    /* The tail; before it only a derived metric. */
    double pct = 100.0;
    t->sem = NAN;
    if (tail(t, &rest, &restl, &pct, &t->sem, line))
        return -1;
    if (restl && rest[0] != '#')
        return fail(t, line, s, len, shape);
    memcpy(t->event, w[ev], evl);
    t->event[evl] = 0;
    memcpy(t->unit, unit, unitl);
    t->unit[unitl] = 0;
    t->pending = 1;
    t->count = c;
    t->value = value;
    t->pct = pct;
    t->line = t->last = line;
    return 0;
}

/* Lines perf prints after the counts that hold none (the hints of
 * print_footer() in perf's util/stat-display.c). */
static int hint_line(const char *s, size_t len)
{
    static const char *const hints[] = {
        "Some events weren't counted. Try disabling the NMI watchdog:",
        "echo 0 > /proc/sys/kernel/nmi_watchdog",
        "perf stat ...",
        "echo 1 > /proc/sys/kernel/nmi_watchdog",
        "The events in group usually have to be from the same PMU. Try reorganizing the group.",
    };
    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
        if (equals(s, len, hints[i]))
            return 1;
    return perf_message(s, len);
}

/* "0.0007077 (-0.0000106) #": a row of -r --table. */
static int table_row(const char *s, size_t len)
{
    const char *w[MAXTOK];
    size_t wl[MAXTOK];
    size_t n = words(s, len, w, wl);
    double v;
    if (n < 2 || perf_text_decimal(w[0], wl[0], &v) || wl[1] < 4 || w[1][0] != '(' ||
        w[1][wl[1] - 1] != ')' || (w[1][1] != '+' && w[1][1] != '-') ||
        perf_text_decimal(w[1] + 2, wl[1] - 3, &v))
        return 0;
    for (size_t k = 2; k < n; k++)
        for (size_t i = 0; i < wl[k]; i++)
            if (w[k][i] != '#')
                return 0;
    return 1;
}

static int text_line(struct text *t, const char *s, size_t len, size_t line)
{
    /* A mail's quoting: "> ", "> > ", ">>". */
    if (len && s[0] == '>') {
        while (len && (s[0] == '>' || s[0] == ' ' || s[0] == '\t')) {
            s++;
            len--;
        }
        nf_trim_span(&s, &len);
    }
    if (len == 0 || hint_line(s, len))
        return flush(t);
    if (starts(s, len, "Performance counter stats for ")) {
        if (flush(t))
            return -1;
        return header_line(t, s, len, line);
    }
    if (s[0] == '#') {
        if (starts(s, len, "# started on ")) {
            if (flush(t))
                return -1;
            t->in_counts = 0;
            return perf_acc_header(&t->a, s, len, line);
        }
        return hash_line(t, s, len, line);
    }
    if (t->in_table && table_row(s, len))
        return 0;
    int rc;
    if (time_line(t, s, len, line, &rc))
        return rc;
    return event_line(t, s, len, line);
}

/* One invocation of perf stat -r N: its "( +- x% )" per metric, with N,
 * in the run's environment (core/run.h: NF_ENV_PERF_REPEAT), so that
 * compare tests it as N repetitions.  Several invocations are a run of
 * their means, as before: their spread is the one that counts. */
static void keep_repeat(struct text *t, struct nf_run *run)
{
    if (t->a.blocks != 1 || t->runs < 2 || json_object_size(t->sems) == 0)
        return;
    if (!run->env)
        run->env = json_object();
    json_object_set_new(run->env, NF_ENV_PERF_REPEAT,
                        json_pack("{s:I, s:O}", "runs", (json_int_t)t->runs, "sem_pct", t->sems));
    char *note = nf_xasprintf("%s; its ( +- x%% ) kept: compare tests it as %ld repetitions",
                              run->note ? run->note : "one perf stat -r invocation", t->runs);
    free(run->note);
    run->note = note;
}

int nf_import_perf_text(const char *buf, size_t len, const struct nf_import_opts *o,
                        struct nf_run ***runs, size_t *n, char *err, size_t errlen)
{
    struct text t;
    memset(&t, 0, sizeof(t));
    t.sems = json_object();
    t.sem = NAN;
    perf_acc_init(&t.a, o, runs, n, err, errlen);
    int rc = perf_whole_lines(buf, len, o, err, errlen);
    struct nf_lines l;
    const char *s;
    size_t sl;
    nf_lines_init(&l, buf, len);
    while (rc == 0 && nf_lines_next(&l, &s, &sl)) {
        nf_trim_span(&s, &sl);
        rc = text_line(&t, s, sl, l.lineno);
    }
    if (rc == 0)
        rc = flush(&t);
    if (rc == 0)
        rc = perf_acc_finish(&t.a, l.lineno,
                             "perf stat's output (a count, or 'N seconds time elapsed')", "wall");
    if (rc == 0)
        keep_repeat(&t, (*runs)[*n - 1]);
    perf_acc_free(&t.a);
    json_decref(t.sems);
    return rc;
}
