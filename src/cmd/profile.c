/* noisefloor profile: a run (same options, same storage, counters and
 * metrics included) whose recorded repetitions are also sampled; the
 * profile of all of them is stored with the run and its top symbols are
 * printed like `perf report --stdio`.
 *
 * Sampling is probed before anything is stored, so a machine or user that
 * may not sample leaves the database as it was.  The metrics of a profiled
 * run include the sampling's own cost (interrupts at -F Hz), as with perf
 * record: compare profiled runs with profiled runs.  With --interleave the
 * sampler goes with the counters, on the counted half of each repetition
 * (measure/runner.h), so the other metrics are free of both. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "cmd/measured.h"
#include "core/defaults.h"
#include "core/numfmt.h"
#include "core/util.h"
#include "elf/demangle.h"
#include "measure/runner.h"
#include "measure/runspec.h"
#include "profile/profiler.h"
#include "report/run_text.h"
#include "store/store.h"

/* The run's words and profile's own: one base for profile's table. */
struct prof_args {
    struct nf_runspec spec;
    long freq;
    long top;
    struct nf_optlist debug_dirs;
};

const struct nf_opts nf_cmd_profile_opts = {
    .usage = "noisefloor profile [OPTIONS] WORKLOAD [WORKLOAD-OPTIONS]\n"
             "noisefloor profile [OPTIONS] -- COMMAND [ARG...]",
    .about = "Run a workload (or a command) as 'run' does, and sample its recorded\n"
             "repetitions; the run is stored with its profile.",
    /* -F, as perf record calls it; the run options keep their long names. */
    .flags = NF_OPTS_STOP | NF_OPTS_KEEP_DASHDASH | NF_OPTS_LETTERS,
    .options =
        (const struct nf_option[]){
            NF_OPT_INCLUDE(&nf_runspec_measure_options, offsetof(struct prof_args, spec)),
            NF_OPT_FLAG(0, "json", struct prof_args, spec.json,
                        "print the profile, with the stored run, as JSON on\nstdout"),
            NF_OPT_GROUP("Profile options:"),
            NF_OPT_INT('F', "freq", struct prof_args, freq, 1, NF_PROF_MAX_FREQ,
                       "a sampling frequency in Hz", "HZ",
                       "samples per second (cycles when the machine has a\n"
                       "PMU, else cpu-clock)",
                       NF_DEF(NF_STR(NF_PROF_DEFAULT_FREQ))),
            NF_OPT_INT(0, "top", struct prof_args, top, 0, 1000000, "a count (0: all)", "N",
                       "symbols shown (0: all)", NF_DEF("20")),
            NF_OPT_LIST(0, "debug-dir", struct prof_args, debug_dirs, 0, "DIR",
                        "look for stripped files' debug files under DIR\n(.build-id/ and by "
                        "path; repeatable) instead of\n/usr/lib/debug"),
            NF_OPT_END,
        },
    .footer = "Compare the profiles of two labels with 'noisefloor profdiff BASE OTHER'.",
    .epilogue = nf_runspec_workloads_help,
};

static void print_text(const struct nf_run *run, const struct nf_profile *p, int reps, long top)
{
    printf("# run %lld, label '", (long long)run->id);
    nf_fputs_printable(run->label, stdout);
    printf("', ");
    nf_fputs_printable(run->workload, stdout);
    nf_report_args(stdout, run); /* a command's words are stored as given */
    printf(": %d repetition%s profiled (%s)\n", reps, reps == 1 ? "" : "s",
           nf_run_status_name(run->state));
    printf("# event %s at %u Hz: %llu samples, %llu lost\n#\n", p->event ? p->event : "?", p->freq,
           (unsigned long long)p->samples, (unsigned long long)p->lost);
    printf("# %8s  %9s  %s\n", "Overhead", "Samples", "Symbol  [dso]");
    for (size_t i = 0; i < p->n && (top == 0 || i < (size_t)top); i++) {
        const struct nf_prof_entry *e = &p->e[i];
        const char *dso = nf_prof_dso_short(e->dso);
        char *dm;
        /* names read from binaries, printed as given but for control bytes */
        char *sym = nf_xprintable(nf_demangle_show(e->symbol, &dm)), *d = nf_xprintable(dso);
        printf("  %8.2f%%  %9llu  %s  %s%s%s\n", nf_profile_pct(p, e),
               (unsigned long long)e->samples, sym, d[0] == '[' ? "" : "[", d,
               d[0] == '[' ? "" : "]");
        free(sym);
        free(d);
        free(dm);
    }
    if (p->n == 0)
        printf("# no samples (the workload ran for less than one sampling period?)\n");
}

/* JSON: "demangled" beside the symbol of a C++ name (elf/demangle.h). */
static void set_demangled(json_t *o, const char *sym)
{
    char *d = nf_demangle(sym);
    if (d)
        json_object_set_new(o, "demangled", json_string(d));
    free(d);
}

/* The profile, with the stored run (metrics and all) under "run". */
static void print_json(struct nf_store *store, const struct nf_run *run, const struct nf_profile *p,
                       int reps, long top)
{
    json_t *syms = json_array();
    for (size_t i = 0; i < p->n && (top == 0 || i < (size_t)top); i++) {
        const struct nf_prof_entry *e = &p->e[i];
        json_t *o = json_pack("{s:s,s:s,s:I,s:I,s:f}", "symbol", e->symbol, "dso", e->dso,
                              "samples", (json_int_t)e->samples, "period", (json_int_t)e->period,
                              "overhead_pct", nf_profile_pct(p, e));
        set_demangled(o, e->symbol);
        json_array_append_new(syms, o);
    }
    json_t *j = json_pack("{s:I,s:s,s:s,s:s,s:i,s:s,s:i,s:I,s:I,s:o}", "run_id",
                          (json_int_t)run->id, "label", run->label, "workload", run->workload,
                          "status", nf_run_status_name(run->state), "repetitions", reps, "event",
                          p->event ? p->event : "", "freq", (int)p->freq, "samples",
                          (json_int_t)p->samples, "lost", (json_int_t)p->lost, "symbols", syms);
    struct nf_run *stored = NULL;
    if (nf_cmd_load_run(store, run->id, 1, &stored) == 0) { /* as run --json */
        json_object_set_new(j, "run", nf_run_to_json(stored));
        nf_run_free(stored);
    }
    nf_json_dumpf(j, stdout, NF_JSON_FLAGS);
    fputc('\n', stdout);
    json_decref(j);
}

/* Every --debug-dir is a directory: 0, or NF_EXIT_USAGE with one line. */
static int check_debug_dirs(const struct nf_optlist *dirs)
{
    for (size_t i = 0; i < dirs->n; i++) {
        struct stat st;
        int bad = stat(dirs->v[i], &st) != 0;
        if (bad || !S_ISDIR(st.st_mode)) {
            nf_err("profile: --debug-dir %s: %s", dirs->v[i],
                   bad ? strerror(errno) : "not a directory");
            return NF_EXIT_USAGE;
        }
    }
    return 0;
}

/* The repetitions, as `run` does them; returns the exit code. */
int cmd_profile(int argc, char **argv)
{
    struct prof_args a = {0};
    struct nf_runspec *spec = &a.spec;
    char err[NF_ERR_LEN];
    int help;
    if (nf_opts_defaults(&nf_cmd_profile_opts, &a, err, sizeof(err))) { /* -F, --top */
        nf_err("profile: %s", err);
        return NF_EXIT_FAIL;
    }
    if (nf_runspec_parse_opts(spec, &nf_cmd_profile_opts, &a, argc, argv, &help, err,
                              sizeof(err))) {
        nf_err("profile: %s", err);
        nf_optlist_free(&a.debug_dirs);
        nf_runspec_free(spec);
        return NF_EXIT_USAGE;
    }
    if (help) {
        if (help == NF_RUNSPEC_HELP_WORKLOAD)
            nf_opts_help(stdout, spec->wl->opts);
        else
            nf_cmd_help(stdout, &nf_cmd_profile_opts);
        nf_optlist_free(&a.debug_dirs);
        nf_runspec_free(spec);
        return NF_EXIT_OK;
    }
    int rc = check_debug_dirs(&a.debug_dirs);
    if (!rc)
        rc = nf_cmd_check_source("profile", spec);
    if (rc) {
        nf_optlist_free(&a.debug_dirs);
        nf_runspec_free(spec);
        return rc;
    }
    struct nf_profiler prof;
    if (nf_profiler_init(&prof, (unsigned)a.freq, err, sizeof(err))) {
        nf_err("profile: %s", err);
        nf_profiler_free(&prof);
        nf_optlist_free(&a.debug_dirs);
        nf_runspec_free(spec);
        return NF_EXIT_FAIL;
    }
    if (a.debug_dirs.n)
        prof.syms.debug_dirs = a.debug_dirs.v;
    struct nf_rep_hook hook = {nf_profiler_attach, nf_profiler_detach, &prof};
    spec->hook = &hook;
    struct nf_measured m;
    rc = nf_measured_begin("profile", spec, &m);
    if (rc)
        goto out;
    struct nf_store *store = m.store;
    struct nf_run *run = m.run;
    rc = nf_measured_loop("profile", spec, &m);
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
            if (spec->json)
                print_json(store, run, &stored, prof.reps, a.top);
            else
                print_text(run, &stored, prof.reps, a.top);
            nf_profile_free(&stored);
        }
    }
out:
    nf_profiler_free(&prof);
    nf_measured_end(&m);
    nf_optlist_free(&a.debug_dirs);
    nf_runspec_free(spec);
    return rc;
}
