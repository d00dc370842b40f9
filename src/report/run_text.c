#include "report/run_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "stats/summary.h"

/* The run's metric of perf's event `base`, its modifiers aside
 * ("cycles:u" is cycles), with values; or NULL. */
static const struct nf_metric *event(const struct nf_run *run, const char *base)
{
    size_t len = strlen(base);
    for (size_t i = 0; i < run->nmetrics; i++) {
        const struct nf_metric *m = &run->metrics[i];
        if (m->supported && m->n && strncmp(m->name, base, len) == 0 &&
            (m->name[len] == 0 || m->name[len] == ':'))
            return m;
    }
    return NULL;
}

static double mean_of(const struct nf_metric *m)
{
    struct nf_summary s;
    return m && nf_summarize(m->values, m->n, &s) == 0 ? s.mean : NAN;
}

/* perf stat's derived ratio beside a counter, where the run has what it
 * takes: CPUs utilized (task-clock over the wall time), GHz (cycles over
 * task-clock) and insn per cycle; "" otherwise.  Of the means, as perf
 * prints them for -r. */
void nf_report_derived(const struct nf_run *run, const struct nf_metric *m, char *buf, size_t len)
{
    buf[0] = 0;
    const struct nf_metric *tc = event(run, "task-clock");
    const struct nf_metric *cyc = event(run, "cycles");
    if (!cyc)
        cyc = event(run, "cpu-cycles");
    const struct nf_metric *wall = event(run, "wall");
    double r = NAN;
    int prec = 3;
    const char *what = NULL;
    if (m == tc && wall && strcmp(tc->unit, "msec") == 0) {
        r = mean_of(tc) / 1e3 / mean_of(wall);
        what = "CPUs utilized";
    } else if (m == cyc && tc && strcmp(tc->unit, "msec") == 0) {
        r = mean_of(cyc) / (mean_of(tc) * 1e6);
        what = "GHz";
    } else if (m == event(run, "instructions") && cyc) {
        r = mean_of(m) / mean_of(cyc);
        what = "insn per cycle";
        prec = 2; /* as perf prints it */
    }
    if (what && isfinite(r))
        snprintf(buf, len, "# %.*f %s", prec, r, what);
}

static void print_metric(FILE *out, const struct nf_run *run, const struct nf_metric *m)
{
    /* The unit before the name, as perf stat's "msec task-clock", unless
     * the name says it ("usecs/op", "total-seconds"). */
    char name[96];
    int unit = m->unit[0] && !strstr(m->name, m->unit);
    snprintf(name, sizeof(name), "%s%s%s", unit ? m->unit : "", unit ? " " : "", m->name);
    nf_printable(name);  /* as an import gave them */
    if (!m->supported) { /* perf stat's words: could not count, or did not */
        fprintf(out, "  %18s  %-28s\n",
                nf_metric_not_counted(m) ? "<not counted>" : "<not supported>", name);
        return;
    }
    struct nf_summary s;
    if (nf_summarize(m->values, m->n, &s) != 0) {
        fprintf(out, "  %18s  %-28s\n", "<not counted>", name);
        return;
    }
    /* A rate's harmonic mean, 0 when a value is 0 and none below it, as
     * compare shows it (a note after the table says why). */
    int rate = nf_metric_is_rate(m);
    double mean = nf_summary_mean(&s, rate);
    /* One value has no spread to show: "-", as compare prints it, not a
     * spread of 0 (perf stat -r 1 prints no +- either).  Relative to the
     * mean printed: a rate's harmonic mean has the spread and standard
     * error of the reciprocals (nf_summary_cv). */
    char sem[16] = "   -  ", cv[16] = "    -  ", sd[16] = "-";
    double sem_pct = nf_summary_sem(&s, rate), cv_pct = nf_summary_cv(&s, rate);
    if (s.n > 1 && isfinite(sem_pct))
        snprintf(sem, sizeof(sem), "%5.2f%%", sem_pct);
    if (s.n > 1 && isfinite(cv_pct))
        snprintf(cv, sizeof(cv), "%6.2f%%", cv_pct); /* 100% and more line up */
    if (s.n > 1)
        snprintf(sd, sizeof(sd), "%.4g", s.stddev);
    /* About six significant digits, as perf stat's columns read. */
    int prec = mean != 0 && isfinite(mean) ? 5 - (int)floor(log10(fabs(mean))) : 4;
    prec = prec < 0 ? 0 : prec > 9 ? 9 : prec;
    char value[64] = "-";
    if (isfinite(mean))
        snprintf(value, sizeof(value), "%.*f", prec, mean);
    fprintf(out, "  %18s  %-28s ( +- %s )  sd %-10s cv %s  min %-10.6g max %-10.6g%s", value, name,
            sem, sd, cv, s.min, s.max, rate ? "  (hmean)" : "");
    double lo = nf_metric_min_running(m);
    if (lo < 100.0)
        fprintf(out, "  (%.2f%%)", lo);
    char derived[64];
    nf_report_derived(run, m, derived, sizeof(derived));
    if (derived[0])
        fprintf(out, "  %s", derived);
    fputc('\n', out);
}

/* Counters the kernel multiplexed: how little they ran, and the fix. */
static void multiplex_note(FILE *out, const struct nf_run *run)
{
    double worst = 100.0;
    size_t k = 0;
    for (size_t i = 0; i < run->nmetrics; i++) {
        double lo = run->metrics[i].supported ? nf_metric_min_running(&run->metrics[i]) : 100.0;
        if (lo < 100.0)
            k++;
        if (lo < worst)
            worst = lo;
    }
    if (!k)
        return;
    fprintf(out,
            "  note: %zu counter%s multiplexed (the (x%%) column: counted %.2f%% of the time at\n"
            "        worst) and scaled, which adds noise; fix: count fewer events, or one group\n"
            "        per run\n",
            k, k == 1 ? " was" : "s were", worst);
}

/* A rate with a value of 0 or below: why its mean is 0, or none. */
static void rate_note(FILE *out, const struct nf_metric *m)
{
    struct nf_summary s;
    if (!m->supported || !nf_metric_is_rate(m) || nf_summarize(m->values, m->n, &s) != 0 ||
        s.min > 0)
        return;
    fputs("  note: ", out);
    nf_fputs_printable(m->name, out);
    fprintf(out, ": a value %s in a rate (higher is better): %s (did a repetition fail?)\n",
            s.min == 0 ? "of 0" : "below 0",
            s.min == 0 ? "the harmonic mean is 0" : "no harmonic mean");
}

void nf_report_args(FILE *out, const struct nf_run *run)
{
    for (size_t i = 0; i < run->nargs; i++) {
        char *a = nf_xstrdup(run->args[i]);
        nf_printable(a);
        fprintf(out, " %s", a);
        free(a);
    }
}

void nf_report_run_text(FILE *out, const struct nf_run *run, const char *events)
{
    /* Names stored as given (a JSON import's, a command's words) go to a
     * terminal as printable text. */
    fputs("\n Summary of '", out);
    nf_fputs_printable(run->workload, out);
    nf_report_args(out, run);
    size_t n = 0;
    for (size_t i = 0; i < run->nmetrics; i++)
        if (run->metrics[i].n > n)
            n = run->metrics[i].n;
    fputs("' (label ", out);
    nf_fputs_printable(run->label, out);
    fprintf(out, ", %zu repetition%s, %d warm-up", n, n == 1 ? "" : "s", run->warmup);
    if (run->id)
        fprintf(out, ", run %lld", (long long)run->id);
    if (run->state != NF_RUN_COMPLETE)
        fprintf(out, ", %s", nf_run_status_name(run->state));
    fputs("):\n\n", out);
    for (size_t i = 0; i < run->nmetrics; i++)
        print_metric(out, run, &run->metrics[i]);
    fputs("\n  ( +- x% ) is the standard error of the mean, as perf stat prints it.\n", out);
    for (size_t i = 0; i < run->nmetrics; i++)
        if (run->metrics[i].supported && run->metrics[i].n && nf_metric_is_rate(&run->metrics[i])) {
            fputs("  (hmean): a rate's harmonic mean; its +- and cv are those of the reciprocals "
                  "(time per op).\n",
                  out);
            break;
        }
    for (size_t i = 0; i < run->nmetrics; i++)
        rate_note(out, &run->metrics[i]);
    multiplex_note(out, run);
    const json_t *mode = run->env ? json_object_get(run->env, NF_ENV_COUNTERS) : NULL;
    if (json_is_string(mode) && strcmp(json_string_value(mode), "interleaved") == 0) {
        if (events && *events)
            fprintf(out, "  Counted with -e %s on interleaved runs:\n", events);
        else
            fputs("  Counted on interleaved runs:\n", out);
        fputs("  each repetition ran twice, uncounted then counted; the counters come from\n"
              "  the counted runs and every other metric from the uncounted ones, so the\n"
              "  timings are not perturbed by counting.\n",
              out);
    } else if (events && *events)
        fprintf(out,
                "  Counted with -e %s: counting perturbs the workload (an\n"
                "  inherited counter runs on every context switch); run without -e for\n"
                "  timings comparable with perf bench and hyperfine.\n",
                events);
    fputc('\n', out);
}
