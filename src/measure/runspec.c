#include "measure/runspec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/defaults.h"
#include "core/run.h"
#include "core/util.h"
#include "measure/capture.h"
#include "measure/runner.h"
#include "measure/runner_cmd.h"

void nf_runspec_workloads_help(FILE *out)
{
    fputs("\nWorkloads ('WORKLOAD --help' shows a workload's options):\n", out);
    for (size_t i = 0; nf_workloads[i]; i++)
        fprintf(out, "  %-10s %s\n", nf_workloads[i]->name, nf_workloads[i]->summary);
    fprintf(out, "  %-10s %s\n", "-- CMD", "any command, fork/exec'd without a shell");
}

static int online_cpus(const char *root, cpu_set_t *online)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/online", root ? root : "");
    char *s = nf_read_file(path);
    CPU_ZERO(online);
    if (!s) {
        /* No sysfs (or a fake root without it): trust sched_getaffinity. */
        return sched_getaffinity(0, sizeof(*online), online);
    }
    char err[8];
    char *save = NULL;
    for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long a, b;
        char *dash = strchr(tok, '-');
        if (dash) {
            *dash = 0;
            if (nf_parse_long(tok, 0, CPU_SETSIZE - 1, &a) ||
                nf_parse_long(dash + 1, 0, CPU_SETSIZE - 1, &b))
                continue;
        } else if (nf_parse_long(tok, 0, CPU_SETSIZE - 1, &a) == 0) {
            b = a;
        } else {
            continue;
        }
        for (long c = a; c <= b; c++)
            CPU_SET(c, online);
    }
    (void)err;
    free(s);
    return 0;
}

/* A CPU number at *p as the kernel writes one: decimal digits, no sign,
 * no blank, no leading zero; *p moved past it.  0, or -1.  One past
 * CPU_SETSIZE - 1 is read as CPU_SETSIZE or more (not overflowing), with
 * all its digits, so that the caller can say it is too large. */
static int cpu_number(const char **p, long *out)
{
    const char *s = *p;
    if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
        return -1;
    long v = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        if (v < CPU_SETSIZE)
            v = v * 10 + (*s - '0');
    *p = s;
    *out = v;
    return 0;
}

/* The CPU number [from, to) is past the largest a CPU set holds. */
static int too_large(const char *from, const char *to, char *err, size_t errlen)
{
    char q[64];
    nf_quote(q, sizeof(q), from, (size_t)(to - from));
    snprintf(err, errlen, "--pin: CPU %s is past %d, the largest CPU number accepted", q,
             CPU_SETSIZE - 1);
    return -1;
}

int nf_parse_cpus(const char *s, const char *root, cpu_set_t *set, char *err, size_t errlen)
{
    cpu_set_t online;
    CPU_ZERO(set);
    online_cpus(root, &online);
    /* CPU numbers and ranges A-B (A <= B) separated by single commas,
     * nothing else: strtok would fold ",0", "0,,1" or "," into a list, or
     * into none. */
    const char *p = s;
    for (;;) {
        long a, b;
        const char *a0 = p, *b0 = p; /* where A and B are written */
        if (cpu_number(&p, &a))
            goto bad;
        const char *a1 = p;
        b = a;
        if (*p == '-') {
            b0 = ++p;
            if (cpu_number(&p, &b) || b < a)
                goto bad;
        }
        for (long c = a; c <= b; c++) {
            if (c >= CPU_SETSIZE) /* A, or B after CPUs that are online */
                return c == a ? too_large(a0, a1, err, errlen) : too_large(b0, p, err, errlen);
            if (!CPU_ISSET(c, &online)) {
                snprintf(err, errlen, "--pin: CPU %ld is not online (online: %d CPUs)", c,
                         CPU_COUNT(&online));
                return -1;
            }
            CPU_SET(c, set);
        }
        if (*p == 0)
            return 0;
        if (*p++ != ',')
            goto bad;
    }
bad:;
    char q[64];
    nf_quote(q, sizeof(q), s, strlen(s));
    snprintf(err, errlen,
             "--pin: '%s' is not a CPU list (CPU numbers and ranges A-B separated by single "
             "commas, like 0, 0,2 or 0-3)",
             q);
    return -1;
}

char *nf_cpus_list(const cpu_set_t *set)
{
    size_t cap = 64, len = 0;
    char *out = nf_xmalloc(cap);
    out[0] = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
            e++;
        if (len + 32 > cap) {
            cap *= 2;
            out = nf_xrealloc(out, cap);
        }
        len += (size_t)(e > c ? snprintf(out + len, cap - len, "%s%d-%d", len ? "," : "", c, e)
                              : snprintf(out + len, cap - len, "%s%d", len ? "," : "", c));
        c = e;
    }
    return out;
}

static int split_kv(const char *opt, const char *arg, char **k, char **v, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) {
        snprintf(err, errlen, "%s wants KEY=VALUE, not '%s'", opt, arg);
        return -1;
    }
    *k = nf_xstrdup(arg);
    (*k)[eq - arg] = 0;
    *v = nf_xstrdup(eq + 1);
    return 0;
}

static int take_sysctl(const struct nf_option *o, void *base, const char *arg, char *err,
                       size_t errlen)
{
    struct nf_runspec *spec = base;
    (void)o;
    if (spec->nsysctls == NF_MAX_SYSCTLS) {
        snprintf(err, errlen, "too many --sysctl (at most %d)", NF_MAX_SYSCTLS);
        return -1;
    }
    struct nf_sysctl *s = &spec->sysctls[spec->nsysctls];
    if (split_kv("--sysctl", arg, &s->key, &s->value, err, errlen))
        return -1;
    spec->nsysctls++;
    return 0;
}

/* -e LIST, repeatable as perf stat's: "-e a -e b" counts both, as "-e a,b"
 * (the lists joined with a comma; an event named twice is counted once). */
static int take_events(const struct nf_option *o, void *base, const char *arg, char *err,
                       size_t errlen)
{
    struct nf_runspec *spec = base;
    (void)o;
    if (!*arg) {
        snprintf(err, errlen, "-e: an empty event name in ''");
        return -1;
    }
    char *joined = spec->events ? nf_xasprintf("%s,%s", spec->events, arg) : nf_xstrdup(arg);
    free(spec->events_list);
    spec->events = spec->events_list = joined;
    return 0;
}

static int take_label(const struct nf_option *o, void *base, const char *arg, char *err,
                      size_t errlen)
{
    struct nf_runspec *spec = base;
    (void)o;
    if (nf_label_check("--label", arg, err, errlen))
        return -1;
    spec->label = (char *)arg;
    return 0;
}

static int take_metric(const struct nf_option *o, void *base, const char *arg, char *err,
                       size_t errlen)
{
    struct nf_runspec *spec = base;
    (void)o;
    if (spec->ncaptures == NF_MAX_CAPTURES) {
        snprintf(err, errlen, "too many --metric (at most %d)", NF_MAX_CAPTURES);
        return -1;
    }
    struct nf_capture *c = &spec->captures[spec->ncaptures];
    if (split_kv("--metric", arg, &c->name, &c->regex, err, errlen))
        return -1;
    spec->ncaptures++;
    if (nf_metric_name_check("--metric", c->name, err, errlen))
        return -1;
    if (nf_metric_is_machine(c->name)) {
        snprintf(err, errlen,
                 "--metric: '%s': names beginning cpu. or sched. are the machine's readings "
                 "(measure/sysstat.h); choose another",
                 c->name);
        return -1;
    }
    /* Two captures of one name would push both numbers into one metric,
     * alternating. */
    for (int i = 0; i < spec->ncaptures - 1; i++)
        if (strcmp(spec->captures[i].name, c->name) == 0) {
            snprintf(err, errlen,
                     "--metric: '%s' is given twice (each captured number needs a name of its own)",
                     c->name);
            return -1;
        }
    return nf_capture_prepare(c, err, errlen);
}

/* A --metric named as one of the -e counters (given before or after it,
 * or in a named set such as "default"): its numbers and the counter's
 * would mix in one metric.  0, or -1 with err. */
static int captures_clash(const struct nf_runspec *spec, char *err, size_t errlen)
{
    for (int i = 0; i < spec->ncaptures; i++)
        for (size_t k = 0; k < spec->counters.n; k++)
            if (strcmp(spec->captures[i].name, spec->counters.c[k].name) == 0) {
                snprintf(err, errlen,
                         "--metric: '%s' is the name of a counter of -e %s (each captured number "
                         "needs a name of its own)",
                         spec->captures[i].name, spec->events);
                return -1;
            }
    return 0;
}

static int take_unit(const struct nf_option *o, void *base, const char *arg, char *err,
                     size_t errlen)
{
    struct nf_runspec *spec = base;
    (void)o;
    if (nf_metric_unit_check("--unit", arg, err, errlen))
        return -1;
    spec->unit = (char *)arg;
    return 0;
}

const struct nf_opt_choice nf_better_choices[] = {
    {"lower", NF_BETTER_LOWER}, {"higher", NF_BETTER_HIGHER}, {NULL, 0}};

const struct nf_opts nf_runspec_measure_options = {
    .options =
        (const struct nf_option[]){
            NF_OPT_INT('r', "repeat", struct nf_runspec, repeat, 1, 1000000, "a count", "N",
                       "repetitions", NF_DEF(NF_STR(NF_DEFAULT_REPEAT))),
            NF_OPT_INT(0, "warmup", struct nf_runspec, warmup, 0, 1000000, "a count", "N",
                       "repetitions run first and not counted", NF_DEF(NF_STR(NF_DEFAULT_WARMUP))),
            NF_OPT_CALLBACK('L', "label", take_label, "NAME", "label of the run",
                            NF_DEF_TEXT("uname -r")),
            NF_OPT_STRING(0, "pin", struct nf_runspec, pin, "CPUS",
                          "run the workload on these CPUs (\"0\", \"0,2\", \"0-3\")"),
            NF_OPT_CALLBACK('e', "events", take_events, "LIST",
                            "perf counters on each repetition ('default':\n"
                            "task-clock, context-switches, cpu-migrations,\n"
                            "page-faults; repeatable, the lists joined);\n"
                            "counting perturbs",
                            NF_DEF_TEXT("none")),
            NF_OPT_FLAG(0, "interleave", struct nf_runspec, interleave,
                        "with -e: run each repetition twice, uncounted then\n"
                        "counted; the counters come from the counted run,\n"
                        "every other metric from the uncounted one"),
            NF_OPT_DOUBLE(0, "timeout", struct nf_runspec, timeout, 0, NF_MAX_TIMEOUT, 0, "seconds",
                          "SEC",
                          "kill a repetition (and all it started) that runs longer\n"
                          "(0: never; at most 31536000, a year)",
                          NF_DEF("0")),
            NF_OPT_CALLBACK(0, "sysctl", take_sysctl, "KEY=VAL",
                            "set before each repetition, restored after (repeatable)"),
            NF_OPT_CALLBACK(0, "metric", take_metric, "NAME=RE",
                            "commands: a number captured from stdout by RE's first\n"
                            "group (repeatable)"),
            NF_OPT_CHOICE(0, "better", struct nf_runspec, better, nf_better_choices, NULL,
                          "for captured metrics", NF_DEF("lower")),
            NF_OPT_CALLBACK(0, "unit", take_unit, "UNIT", "for captured metrics"),
            NF_OPT_STRING_NOEMPTY(0, "primary", struct nf_runspec, primary, "NAME",
                                  "commands: the primary metric, wall or a --metric",
                                  NF_DEF_TEXT("the first --metric, else wall")),
            NF_OPT_STRING(0, "source", struct nf_runspec, source, "DIR",
                          "record `git describe` of DIR with the run"),
            NF_OPT_FLAG(0, "no-sysstat", struct nf_runspec, no_sysstat,
                        "do not read what the machine did around each repetition\n"
                        "(interrupts, softirqs, steal, other tasks, run delay:\n"
                        "the cpu.* and sched.* metrics)"),
            NF_OPT_STRING(0, "root", struct nf_runspec, sysfs_root, "DIR",
                          "read /sys and /proc under DIR (for tests)"),
            NF_OPT_END,
        },
};

const struct nf_opts nf_runspec_options = {
    .flags = NF_OPTS_STOP | NF_OPTS_KEEP_DASHDASH,
    .options =
        (const struct nf_option[]){
            NF_OPT_INCLUDE(&nf_runspec_measure_options, 0),
            NF_OPT_FLAG(0, "json", struct nf_runspec, json,
                        "print the stored run as JSON on stdout"),
            NF_OPT_END,
        },
};

int nf_runspec_parse(struct nf_runspec *spec, int argc, char **argv, int *help, char *err,
                     size_t errlen)
{
    return nf_runspec_parse_opts(spec, &nf_runspec_options, spec, argc, argv, help, err, errlen);
}

int nf_runspec_parse_opts(struct nf_runspec *spec, const struct nf_opts *opts, void *base, int argc,
                          char **argv, int *help, char *err, size_t errlen)
{
    memset(spec, 0, sizeof(*spec));
    /* The defaults are the table's (NF_DEF): --timeout before the parse;
     * -r, --warmup and --better after it, when not given. */
    struct nf_runspec def = {0};
    if (nf_opts_defaults(&nf_runspec_measure_options, &def, err, errlen))
        return -1;
    spec->timeout = def.timeout;
    /* Out of range until given, so that a given default is told apart
     * from none. */
    spec->repeat = 0;
    spec->warmup = -1;
    spec->better = (enum nf_better) - 1;
    *help = 0;
    /* The run's words end at the workload's name or at "--", which stays
     * in argv to say a command follows. */
    struct nf_opts top = *opts;
    top.flags |= NF_OPTS_STOP | NF_OPTS_KEEP_DASHDASH;
    int first, rc = nf_opts_parse(&top, base, argc, argv, &first, err, errlen);
    spec->repeat_given = spec->repeat != 0;
    spec->warmup_given = spec->warmup != -1;
    if (!spec->repeat_given)
        spec->repeat = def.repeat;
    if (!spec->warmup_given)
        spec->warmup = def.warmup;
    /* --better and --unit say what --metric's numbers are: without a
     * capture they would be dropped unseen. */
    const char *for_captures = (int)spec->better != -1 ? "--better" : spec->unit ? "--unit" : NULL;
    if ((int)spec->better == -1)
        spec->better = def.better;
    if (rc == NF_OPTS_HELP) {
        *help = NF_RUNSPEC_HELP;
        return 0;
    }
    if (rc)
        return -1;
    /* A root that is not there would read every file as missing. */
    struct stat sb;
    if (spec->sysfs_root && stat(spec->sysfs_root, &sb) != 0) {
        snprintf(err, errlen, "--root '%s': %s", spec->sysfs_root, strerror(errno));
        return -1;
    }
    if (spec->sysfs_root && !S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "--root '%s' is not a directory", spec->sysfs_root);
        return -1;
    }
    if (spec->pin) {
        if (nf_parse_cpus(spec->pin, spec->sysfs_root, &spec->cpus, err, errlen))
            return -1;
        /* One form for one set of CPUs, so that pins compare equal. */
        spec->pin = spec->pin_list = nf_cpus_list(&spec->cpus);
    }
    if (nf_counters_parse(&spec->counters, spec->events ? spec->events : "", err, errlen))
        return -1;
    if (spec->interleave && spec->counters.n == 0) {
        snprintf(err, errlen,
                 "--interleave needs -e LIST: it interleaves counted and uncounted "
                 "runs of each repetition");
        return -1;
    }
    spec->keep = nf_rep_keep_new();

    if (first < argc && strcmp(argv[first], "--") == 0) {
        if (first + 1 >= argc) {
            snprintf(err, errlen, "no command after '--'");
            return -1;
        }
        if (captures_clash(spec, err, errlen))
            return -1;
        if (for_captures && !spec->ncaptures) {
            snprintf(err, errlen,
                     "%s is for the numbers --metric captures, and this command has no --metric",
                     for_captures);
            return -1;
        }
        int known = spec->primary && strcmp(spec->primary, "wall") == 0;
        for (int i = 0; spec->primary && i < spec->ncaptures; i++)
            known |= strcmp(spec->captures[i].name, spec->primary) == 0;
        if (spec->primary && !known) {
            snprintf(err, errlen, "--primary %s: not wall or a --metric of this command",
                     spec->primary);
            return -1;
        }
        spec->cmd = &argv[first + 1];
        spec->ncmd = argc - first - 1;
        spec->wl_argc = spec->ncmd;
        spec->wl_argv = spec->cmd;
        return 0;
    }
    if (first >= argc) {
        snprintf(err, errlen, "no workload given (try 'pipe', or '-- COMMAND')");
        return -1;
    }
    spec->wl = nf_workload_find(argv[first]);
    if (!spec->wl) {
        snprintf(err, errlen, "unknown workload '%s' (try --help)", argv[first]);
        return -1;
    }
    if (spec->ncaptures) {
        snprintf(err, errlen, "--metric captures a command's output; '%s' is a built-in workload",
                 spec->wl->name);
        return -1;
    }
    if (spec->primary) {
        snprintf(err, errlen,
                 "--primary chooses among a command's metrics; '%s' is a built-in "
                 "workload (its primary metric is its own)",
                 spec->wl->name);
        return -1;
    }
    if (for_captures) {
        snprintf(err, errlen,
                 "%s is for the numbers --metric captures from a command; '%s' is a built-in "
                 "workload (its metrics say their own)",
                 for_captures, spec->wl->name);
        return -1;
    }
    int wl_argc = argc - first;
    char **wl_argv = &argv[first];
    /* --help anywhere among the workload's words is its help. */
    for (int i = 1; i < wl_argc; i++)
        if (strcmp(wl_argv[i], "--help") == 0 || strcmp(wl_argv[i], "-h") == 0) {
            *help = NF_RUNSPEC_HELP_WORKLOAD;
            return 0;
        }
    if (spec->wl->parse(wl_argc, wl_argv, &spec->cfg, err, errlen))
        return -1;
    spec->wl_argc = wl_argc - 1;
    spec->wl_argv = wl_argv + 1;
    return 0;
}

void nf_runspec_free(struct nf_runspec *spec)
{
    if (spec->wl && spec->cfg)
        spec->wl->free_cfg(spec->cfg);
    for (int i = 0; i < spec->nsysctls; i++) {
        free(spec->sysctls[i].key);
        free(spec->sysctls[i].value);
    }
    for (int i = 0; i < spec->ncaptures; i++) {
        nf_capture_free(&spec->captures[i]);
        free(spec->captures[i].name);
        free(spec->captures[i].regex);
    }
    nf_rep_keep_free(spec->keep);
    free(spec->pin_list);
    free(spec->events_list);
    memset(spec, 0, sizeof(*spec));
}
