/* The words of a run, parsed: `[OPTIONS] WORKLOAD [WORKLOAD-OPTIONS]` or
 * `[OPTIONS] -- COMMAND [ARG...]`.  `run` parses its command line into one;
 * `ab` parses each NAME=SPEC into one. */
#ifndef NF_MEASURE_RUNSPEC_H
#define NF_MEASURE_RUNSPEC_H

#include <regex.h>
#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/options.h"
#include "measure/counters.h"
#include "core/metric.h"
#include "workload/workload.h"

#define NF_MAX_SYSCTLS 16
/* The longest --timeout, in seconds: a year.  Deadlines are nanoseconds
 * of a 64-bit clock and poll waits at most INT_MAX ms at a time, so no
 * value up to it overflows. */
#define NF_MAX_TIMEOUT 31536000.0
#define NF_MAX_CAPTURES 16

struct nf_capture { /* --metric NAME=REGEX */
    char *name;
    char *regex;
    regex_t *re; /* compiled once, when parsed (measure/capture.h) */
};

struct nf_sysctl { /* --sysctl KEY=VALUE */
    char *key;
    char *value;
};

/* Something attached to the child of each recorded repetition (profile's
 * sampler).  attach: after the counters are opened on the ready child, before
 * it is told to go (on_exec: the command's exec is where it must start);
 * non-zero fails the repetition with err.  detach: once the child and its
 * process group are gone; keep says whether the repetition succeeded. */
struct nf_rep_hook {
    int (*attach)(void *ctx, pid_t pid, int on_exec, char *err, size_t errlen);
    void (*detach)(void *ctx, int keep);
    void *ctx;
};

struct nf_runspec {
    const struct nf_workload *wl; /* NULL for a command */
    void *cfg;                    /* the workload's parsed options */
    char **cmd;                   /* command argv, NULL-terminated */
    int ncmd;
    int wl_argc; /* the workload's words, as stored */
    char **wl_argv;
    int repeat, warmup;
    int repeat_given, warmup_given; /* -r, --warmup on the command line (ab
                                       refuses them in a SPEC) */
    double timeout;                 /* seconds per repetition (<= NF_MAX_TIMEOUT); 0 = none */
    char *label;                    /* NULL: uname -r */
    char *pin;                      /* the CPUs of --pin as nf_cpus_list writes them
                                       ("0,1,3" as "0-1,3"), or NULL */
    char *pin_list;                 /* what pin points to once parsed (ours) */
    cpu_set_t cpus;
    char *events;      /* -e list (several -e joined with commas); NULL: none
                          (measure/counters.h) */
    char *events_list; /* what events points to (ours) */
    struct nf_counters counters;
    int interleave; /* --interleave (only with counters): each repetition
                       runs twice, uncounted then counted (measure/runner.h) */
    struct nf_sysctl sysctls[NF_MAX_SYSCTLS];
    int nsysctls;
    struct nf_capture captures[NF_MAX_CAPTURES];
    int ncaptures;
    enum nf_better better; /* for captured metrics */
    char *unit;            /* for captured metrics */
    char *primary;         /* --primary NAME: a command's primary metric (wall or a
                              --metric); NULL: the first --metric, else wall */
    int json;
    char *source;                   /* --source DIR for git describe */
    char *sysfs_root;               /* for tests: where /sys and /proc live */
    int no_sysstat;                 /* --no-sysstat: no machine readings per repetition
                                       (measure/sysstat.h) */
    const struct nf_rep_hook *hook; /* set by the caller, not parsed; or NULL */
    struct nf_rep_keep *keep;       /* what its repetitions keep open between them
                                       (measure/runner.h); NULL: each opens its own */
};

/* "lower", "higher": --better's values (import's too). */
extern const struct nf_opt_choice nf_better_choices[];

/* The run options (-r, --warmup, -L, --pin, -e, ..., --json) over struct
 * nf_runspec.  A command that takes more (profile's -F) includes
 * nf_runspec_measure_options, all of them but --json, in its own at the
 * offset of its spec, and declares a --json that says what it prints. */
extern const struct nf_opts nf_runspec_options;
extern const struct nf_opts nf_runspec_measure_options;

/* What *help says after a parse: --help among the run options, or among a
 * workload's words (`run pipe --help`: that workload's help). */
enum { NF_RUNSPEC_HELP = 1, NF_RUNSPEC_HELP_WORKLOAD = 2 };

/* Parse argv (argv[0] is the command name, e.g. "run") with
 * nf_runspec_options.  On a usage error, writes one line to err and
 * returns -1.  *help is 0, or NF_RUNSPEC_HELP* when --help was asked for.
 * The spec keeps pointers into argv. */
int nf_runspec_parse(struct nf_runspec *spec, int argc, char **argv, int *help, char *err,
                     size_t errlen);
/* The same with a command's own table, which includes nf_runspec_options
 * at spec's offset in base (the rest of base is the caller's, set to its
 * defaults before the call).  The options end at the workload's name or
 * at "--", whatever the table's flags say. */
int nf_runspec_parse_opts(struct nf_runspec *spec, const struct nf_opts *opts, void *base, int argc,
                          char **argv, int *help, char *err, size_t errlen);
/* The built-in workloads, one line each: the end of run's --help. */
void nf_runspec_workloads_help(FILE *out);
void nf_runspec_free(struct nf_runspec *spec);

/* Parse "0", "0,2", "0-3" into a CPU set: CPU numbers (decimal, without
 * sign, blank or leading zero) and ranges A-B with A <= B, separated by
 * single commas; every CPU must be online (checked against
 * <root>/sys/devices/system/cpu/online).  0, or -1 with one line in err. */
int nf_parse_cpus(const char *s, const char *root, cpu_set_t *set, char *err, size_t errlen);
/* The set as the kernel writes a CPU list (cpuset.cpus, .../cpu/online):
 * ascending, runs of two or more as A-B ("0-1,3"); "" for none.  Allocated. */
char *nf_cpus_list(const cpu_set_t *set);

#endif
