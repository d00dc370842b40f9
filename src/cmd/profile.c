/* noisefloor profile: a run (same options, same storage, counters and
 * metrics included) whose recorded repetitions are also sampled; the
 * profile of all of them is stored with the run and its top symbols are
 * printed like `perf report --stdio`.
 *
 * Sampling is probed before anything is stored, so a machine or user that
 * may not sample leaves the database as it was.  The metrics of a profiled
 * run include the sampling's own cost (interrupts at -F Hz), as with perf
 * record: compare profiled runs with profiled runs. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/measured.h"
#include "core/util.h"
#include "measure/runner.h"
#include "measure/runspec.h"
#include "profile/profiler.h"
#include "report/run_text.h"
#include "store/export.h"
#include "store/store.h"

struct prof_opts {
    long freq;
    long top;
};

enum { OPT_TOP = 1024, OPT_FREQ };

static int prof_opt(void *ctx, int opt, const char *arg, char *err, size_t errlen)
{
    struct prof_opts *o = ctx;
    if (opt == 'F' || opt == OPT_FREQ) {
        if (nf_parse_long(arg, 1, NF_PROF_MAX_FREQ, &o->freq)) {
            snprintf(err, errlen, "-F wants a sampling frequency from 1 to %d Hz, not '%s'",
                     NF_PROF_MAX_FREQ, arg);
            return -1;
        }
    } else if (nf_parse_long(arg, 0, 1000000, &o->top)) {
        snprintf(err, errlen, "--top wants a count (0: all), not '%s'", arg);
        return -1;
    }
    return 0;
}

static void usage(void)
{
    nf_runspec_usage(stdout, "profile");
    printf("\nProfile options (the run is stored as by 'run', with its profile):\n"
           "  -F, --freq HZ         samples per second (default %d; cycles when the machine\n"
           "                        has a PMU, else cpu-clock)\n"
           "      --top N           symbols shown (default 20; 0: all)\n"
           "      --json            the stored profile as JSON\n"
           "Compare profiles of two labels with 'noisefloor profdiff BASE OTHER'.\n",
           NF_PROF_DEFAULT_FREQ);
}

static void print_text(const struct nf_run *run, const struct nf_profile *p, int reps, long top)
{
    printf("# run %lld, label '%s', %s", (long long)run->id, run->label, run->workload);
    for (size_t i = 0; i < run->nargs; i++)
        printf(" %s", run->args[i]);
    printf(": %d repetition%s profiled (%s)\n", reps, reps == 1 ? "" : "s", run->status);
    printf("# event %s at %u Hz: %llu samples, %llu lost\n#\n", p->event ? p->event : "?", p->freq,
           (unsigned long long)p->samples, (unsigned long long)p->lost);
    printf("# %8s  %9s  %s\n", "Overhead", "Samples", "Symbol  [dso]");
    for (size_t i = 0; i < p->n && (top == 0 || i < (size_t)top); i++) {
        const struct nf_prof_entry *e = &p->e[i];
        const char *dso = nf_prof_dso_short(e->dso);
        printf("  %8.2f%%  %9llu  %s  %s%s%s\n", nf_profile_pct(p, e),
               (unsigned long long)e->samples, e->symbol, dso[0] == '[' ? "" : "[", dso,
               dso[0] == '[' ? "" : "]");
    }
    if (p->n == 0)
        printf("# no samples (the workload ran for less than one sampling period?)\n");
}

/* The profile, with the stored run (metrics and all) under "run". */
static void print_json(struct nf_store *store, const struct nf_run *run, const struct nf_profile *p,
                       int reps, long top)
{
    json_t *syms = json_array();
    for (size_t i = 0; i < p->n && (top == 0 || i < (size_t)top); i++) {
        const struct nf_prof_entry *e = &p->e[i];
        json_array_append_new(syms, json_pack("{s:s,s:s,s:I,s:I,s:f}", "symbol", e->symbol, "dso",
                                              e->dso, "samples", (json_int_t)e->samples, "period",
                                              (json_int_t)e->period, "overhead_pct",
                                              nf_profile_pct(p, e)));
    }
    json_t *j =
        json_pack("{s:I,s:s,s:s,s:s,s:i,s:s,s:i,s:I,s:I,s:o}", "run_id", (json_int_t)run->id,
                  "label", run->label, "workload", run->workload, "status", run->status,
                  "repetitions", reps, "event", p->event ? p->event : "", "freq", (int)p->freq,
                  "samples", (json_int_t)p->samples, "lost", (json_int_t)p->lost, "symbols", syms);
    struct nf_run *stored = NULL;
    if (nf_store_load_run(store, run->id, &stored) == 0) {
        json_object_set_new(j, "run", nf_run_to_json(stored));
        nf_run_free(stored);
    }
    json_dumpf(j, stdout, NF_JSON_FLAGS);
    fputc('\n', stdout);
    json_decref(j);
}

/* The repetitions, as `run` does them; returns the exit code. */
int cmd_profile(int argc, char **argv)
{
    static const struct option extra_opts[] = {
        {"freq", required_argument, 0, OPT_FREQ},
        {"top", required_argument, 0, OPT_TOP},
        {0, 0, 0, 0},
    };
    struct prof_opts po = {NF_PROF_DEFAULT_FREQ, 20};
    struct nf_runspec_extra extra = {extra_opts, "F:", prof_opt, &po};
    struct nf_runspec spec;
    char err[512];
    int help;
    if (nf_runspec_parse_extra(&spec, argc, argv, &extra, &help, err, sizeof(err))) {
        nf_err("profile: %s", err);
        nf_runspec_free(&spec);
        return NF_EXIT_USAGE;
    }
    if (help) {
        if (help == 2)
            nf_opts_help(stdout, spec.wl->opts);
        else
            usage();
        nf_runspec_free(&spec);
        return NF_EXIT_OK;
    }
    struct nf_profiler prof;
    if (nf_profiler_init(&prof, (unsigned)po.freq, err, sizeof(err))) {
        nf_err("profile: %s", err);
        nf_profiler_free(&prof);
        nf_runspec_free(&spec);
        return NF_EXIT_FAIL;
    }
    struct nf_rep_hook hook = {nf_profiler_attach, nf_profiler_detach, &prof};
    spec.hook = &hook;
    struct nf_measured m;
    int rc = nf_measured_begin("profile", &spec, &m);
    if (rc)
        goto out;
    struct nf_store *store = m.store;
    struct nf_run *run = m.run;
    rc = nf_measured_loop("profile", &spec, &m);
    /* The profile of the repetitions that finished, also of a run that
     * failed or was stopped later: it is what they measured. */
    if (prof.reps && nf_store_add_profile(store, run->id, &prof.prof)) {
        nf_err("profile: cannot store the profile: %s", nf_store_error(store));
        rc = NF_EXIT_FAIL;
    }
    if (prof.cfg.exclude_kernel)
        nf_warn("kernel samples are not permitted (perf_event_paranoid); user space only");
    else if (!nf_symcache_kernel(&prof.syms) &&
             nf_profile_find(&prof.prof, NF_PROF_KERNEL, "[kernel.kallsyms]"))
        nf_warn("/proc/kallsyms hides kernel addresses from this user; kernel samples are "
                "shown as one [kernel] symbol");
    if (prof.prof.lost)
        nf_warn("the kernel dropped %llu sample records (buffers full); try a lower -F",
                (unsigned long long)prof.prof.lost);
    if (prof.reps) {
        /* Print what was stored: it is what profdiff will see. */
        struct nf_profile stored;
        if (nf_store_load_profile(store, run->id, &stored) != 0) {
            nf_err("profile: cannot read the profile back: %s", nf_store_error(store));
            rc = NF_EXIT_FAIL;
        } else {
            if (spec.json)
                print_json(store, run, &stored, prof.reps, po.top);
            else
                print_text(run, &stored, prof.reps, po.top);
            nf_profile_free(&stored);
        }
    }
out:
    nf_profiler_free(&prof);
    nf_measured_end(&m);
    nf_runspec_free(&spec);
    return rc;
}
