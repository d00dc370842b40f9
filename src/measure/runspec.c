#include "measure/runspec.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/util.h"
#include "measure/runner_cmd.h"

void nf_runspec_usage(FILE *out, const char *prog)
{
    fprintf(out,
            "usage: noisefloor %s [OPTIONS] WORKLOAD [WORKLOAD-OPTIONS]\n"
            "       noisefloor %s [OPTIONS] -- COMMAND [ARG...]\n"
            "\n"
            "Run a workload (or a command) repeatedly, with counters, and store every sample.\n"
            "\n"
            "  -r, --repeat N        repetitions (default 10)\n"
            "      --warmup N        repetitions run first and not counted (default 1)\n"
            "  -L, --label NAME      label of the run (default: uname -r)\n"
            "      --pin CPUS        run the workload on these CPUs (\"0\", \"0,2\", \"0-3\")\n"
            "  -e, --events LIST     counters (default %s)\n"
            "      --timeout SEC     kill a repetition that runs longer (0: never)\n"
            "      --sysctl KEY=VAL  set before each repetition, restored after (repeatable)\n"
            "      --metric NAME=RE  commands: a number captured from stdout by RE's first\n"
            "                        group (repeatable)\n"
            "      --better lower|higher, --unit UNIT   for captured metrics\n"
            "      --source DIR      record `git describe` of DIR with the run\n"
            "      --json            print the stored run as JSON on stdout\n"
            "  -h, --help            this help\n"
            "Global: --db PATH, -q/--quiet, --no-progress.\n"
            "\n"
            "Workloads:\n",
            prog, prog, nf_default_events);
    for (size_t i = 0; nf_workloads[i]; i++)
        fprintf(out, "  %-10s %s\n", nf_workloads[i]->name, nf_workloads[i]->summary);
    fprintf(out, "  %-10s %s\n", "-- CMD", "any command, fork/exec'd without a shell");
    fprintf(out, "'noisefloor %s WORKLOAD --help' shows the workload's options.\n", prog);
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

int nf_parse_cpus(const char *s, const char *root, cpu_set_t *set, char *err, size_t errlen)
{
    cpu_set_t online;
    CPU_ZERO(set);
    online_cpus(root, &online);
    char *buf = nf_xstrdup(s);
    char *save = NULL;
    int rc = 0;
    if (!*buf)
        goto bad;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long a, b;
        char *dash = strchr(tok, '-');
        if (dash) {
            *dash = 0;
            if (nf_parse_long(tok, 0, CPU_SETSIZE - 1, &a) ||
                nf_parse_long(dash + 1, 0, CPU_SETSIZE - 1, &b) || b < a)
                goto bad;
        } else {
            if (nf_parse_long(tok, 0, CPU_SETSIZE - 1, &a))
                goto bad;
            b = a;
        }
        for (long c = a; c <= b; c++) {
            if (!CPU_ISSET(c, &online)) {
                snprintf(err, errlen, "--pin: CPU %ld is not online (online: %d CPUs)", c,
                         CPU_COUNT(&online));
                rc = -1;
                goto out;
            }
            CPU_SET(c, set);
        }
    }
    goto out;
bad:
    snprintf(err, errlen, "--pin: '%s' is not a CPU list (like 0, 0,2 or 0-3)", s);
    rc = -1;
out:
    free(buf);
    return rc;
}

static int split_kv(const char *opt, char *arg, char **k, char **v, char *err, size_t errlen)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) {
        snprintf(err, errlen, "%s wants KEY=VALUE, not '%s'", opt, arg);
        return -1;
    }
    *k = nf_xstrdup(arg);
    (*k)[eq - arg] = 0;
    *v = nf_xstrdup(eq + 1);
    return 0;
}

static int parse_opts(struct nf_runspec *spec, int argc, char **argv, const struct option *opts,
                      const char *shortopts, const struct nf_runspec_extra *extra, int *help,
                      char *err, size_t errlen);

/* Is c one of the caller's options (a long option's val or a letter of its
 * shortopts)? */
static int is_extra(const struct nf_runspec_extra *extra, int c)
{
    for (size_t i = 0; extra->opts[i].name; i++)
        if (extra->opts[i].val == c && !extra->opts[i].flag)
            return 1;
    return c > 0 && c < 128 && c != ':' && extra->shortopts && strchr(extra->shortopts, c);
}

enum {
    OPT_WARMUP = 256,
    OPT_PIN,
    OPT_TIMEOUT,
    OPT_SYSCTL,
    OPT_METRIC,
    OPT_BETTER,
    OPT_UNIT,
    OPT_JSON,
    OPT_SOURCE,
    OPT_ROOT
};

int nf_runspec_parse(struct nf_runspec *spec, int argc, char **argv, int *help, char *err,
                     size_t errlen)
{
    return nf_runspec_parse_extra(spec, argc, argv, NULL, help, err, errlen);
}

int nf_runspec_parse_extra(struct nf_runspec *spec, int argc, char **argv,
                           const struct nf_runspec_extra *extra, int *help, char *err,
                           size_t errlen)
{
    static const struct option opts[] = {
        {"repeat", required_argument, 0, 'r'},
        {"warmup", required_argument, 0, OPT_WARMUP},
        {"label", required_argument, 0, 'L'},
        {"pin", required_argument, 0, OPT_PIN},
        {"events", required_argument, 0, 'e'},
        {"timeout", required_argument, 0, OPT_TIMEOUT},
        {"sysctl", required_argument, 0, OPT_SYSCTL},
        {"metric", required_argument, 0, OPT_METRIC},
        {"better", required_argument, 0, OPT_BETTER},
        {"unit", required_argument, 0, OPT_UNIT},
        {"json", no_argument, 0, OPT_JSON},
        {"source", required_argument, 0, OPT_SOURCE},
        {"root", required_argument, 0, OPT_ROOT},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    memset(spec, 0, sizeof(*spec));
    spec->repeat = 10;
    spec->warmup = 1;
    *help = 0;
    /* The run options, then the caller's. */
    size_t nown = sizeof(opts) / sizeof(opts[0]) - 1, nextra = 0;
    while (extra && extra->opts[nextra].name)
        nextra++;
    struct option *all = nf_xcalloc(nown + nextra + 1, sizeof(*all));
    memcpy(all, opts, nown * sizeof(*all));
    if (nextra)
        memcpy(all + nown, extra->opts, nextra * sizeof(*all));
    char *shortopts =
        nf_xasprintf("+:r:L:e:h%s", extra && extra->shortopts ? extra->shortopts : "");
    int rc = parse_opts(spec, argc, argv, all, shortopts, extra, help, err, errlen);
    free(all);
    free(shortopts);
    return rc;
}

static int parse_opts(struct nf_runspec *spec, int argc, char **argv, const struct option *opts,
                      const char *shortopts, const struct nf_runspec_extra *extra, int *help,
                      char *err, size_t errlen)
{
    long v;
    double d;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
        if (extra && is_extra(extra, c)) {
            if (extra->handle(extra->ctx, c, optarg, err, errlen))
                return -1;
            continue;
        }
        switch (c) {
        case 'r':
            if (nf_parse_long(optarg, 1, 1000000, &v)) {
                snprintf(err, errlen, "--repeat wants a count from 1 to 1000000, not '%s'", optarg);
                return -1;
            }
            spec->repeat = (int)v;
            break;
        case OPT_WARMUP:
            if (nf_parse_long(optarg, 0, 1000000, &v)) {
                snprintf(err, errlen, "--warmup wants a count from 0, not '%s'", optarg);
                return -1;
            }
            spec->warmup = (int)v;
            break;
        case 'L':
            if (!*optarg) {
                snprintf(err, errlen, "--label must not be empty");
                return -1;
            }
            spec->label = optarg;
            break;
        case OPT_PIN: spec->pin = optarg; break;
        case 'e': spec->events = optarg; break;
        case OPT_TIMEOUT:
            if (nf_parse_double(optarg, &d) || d < 0) {
                snprintf(err, errlen, "--timeout wants seconds >= 0, not '%s'", optarg);
                return -1;
            }
            spec->timeout = d;
            break;
        case OPT_SYSCTL:
            if (spec->nsysctls == NF_MAX_SYSCTLS) {
                snprintf(err, errlen, "too many --sysctl (at most %d)", NF_MAX_SYSCTLS);
                return -1;
            }
            if (split_kv("--sysctl", optarg, &spec->sysctls[spec->nsysctls].key,
                         &spec->sysctls[spec->nsysctls].value, err, errlen))
                return -1;
            spec->nsysctls++;
            break;
        case OPT_METRIC:
            if (spec->ncaptures == NF_MAX_CAPTURES) {
                snprintf(err, errlen, "too many --metric (at most %d)", NF_MAX_CAPTURES);
                return -1;
            }
            if (split_kv("--metric", optarg, &spec->captures[spec->ncaptures].name,
                         &spec->captures[spec->ncaptures].regex, err, errlen))
                return -1;
            spec->ncaptures++;
            if (nf_capture_check(spec->captures[spec->ncaptures - 1].name,
                                 spec->captures[spec->ncaptures - 1].regex, err, errlen))
                return -1;
            break;
        case OPT_BETTER:
            if (nf_better_parse(optarg, &spec->better)) {
                snprintf(err, errlen, "--better wants 'lower' or 'higher', not '%s'", optarg);
                return -1;
            }
            break;
        case OPT_UNIT: spec->unit = optarg; break;
        case OPT_JSON: spec->json = 1; break;
        case OPT_SOURCE: spec->source = optarg; break;
        case OPT_ROOT: spec->sysfs_root = optarg; break;
        case 'h': *help = 1; return 0;
        case ':': snprintf(err, errlen, "option '%s' needs a value", argv[optind - 1]); return -1;
        default: snprintf(err, errlen, "unknown option '%s'", argv[optind - 1]); return -1;
        }
    }
    if (spec->pin && nf_parse_cpus(spec->pin, spec->sysfs_root, &spec->cpus, err, errlen))
        return -1;
    if (nf_counters_parse(&spec->counters, spec->events ? spec->events : nf_default_events, err,
                          errlen))
        return -1;

    /* getopt stops at "--" (consumed) or the first word that is not an option. */
    if (optind > 0 && optind <= argc && strcmp(argv[optind - 1], "--") == 0) {
        if (optind >= argc) {
            snprintf(err, errlen, "no command after '--'");
            return -1;
        }
        spec->cmd = &argv[optind];
        spec->ncmd = argc - optind;
        spec->wl_argc = spec->ncmd;
        spec->wl_argv = spec->cmd;
        return 0;
    }
    if (optind >= argc) {
        snprintf(err, errlen, "no workload given (try 'pipe', or '-- COMMAND')");
        return -1;
    }
    spec->wl = nf_workload_find(argv[optind]);
    if (!spec->wl) {
        snprintf(err, errlen, "unknown workload '%s' (try --help)", argv[optind]);
        return -1;
    }
    if (spec->ncaptures) {
        snprintf(err, errlen, "--metric captures a command's output; '%s' is a built-in workload",
                 spec->wl->name);
        return -1;
    }
    int wl_argc = argc - optind;
    char **wl_argv = &argv[optind];
    for (int i = 1; i < wl_argc; i++)
        if (strcmp(wl_argv[i], "--help") == 0 || strcmp(wl_argv[i], "-h") == 0) {
            *help = 2; /* the workload's help */
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
        free(spec->captures[i].name);
        free(spec->captures[i].regex);
    }
    memset(spec, 0, sizeof(*spec));
}
