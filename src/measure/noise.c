#include "measure/noise.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

const char *nf_noise_level_name(enum nf_noise_level l)
{
    return l == NF_NOISE_WARN ? "warn" : l == NF_NOISE_INFO ? "info" : "ok";
}

static char *rd(const char *root, const char *path)
{
    char full[1024];
    snprintf(full, sizeof(full), "%s%s", root, path);
    return nf_read_file(full);
}

static struct nf_noise *add(struct nf_noise *out, size_t *n, size_t max, const char *name,
                            enum nf_noise_level level)
{
    if (*n >= max)
        return NULL;
    struct nf_noise *f = &out[(*n)++];
    memset(f, 0, sizeof(*f));
    snprintf(f->name, sizeof(f->name), "%s", name);
    f->level = level;
    return f;
}

/* Per-CPU governors: all "performance" is fine. */
static void governors(const char *root, struct nf_noise *out, size_t *n, size_t max)
{
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu", root);
    DIR *d = opendir(dir);
    int total = 0, perf = 0;
    char other[64] = "";
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strncmp(e->d_name, "cpu", 3) || e->d_name[3] < '0' || e->d_name[3] > '9')
                continue;
            char p[512];
            snprintf(p, sizeof(p), "/sys/devices/system/cpu/%s/cpufreq/scaling_governor",
                     e->d_name);
            char *g = rd(root, p);
            if (!g)
                continue;
            total++;
            if (strcmp(g, "performance") == 0)
                perf++;
            else
                snprintf(other, sizeof(other), "%s", g);
            free(g);
        }
        closedir(d);
    }
    struct nf_noise *f;
    if (!total) {
        if ((f = add(out, n, max, "governor", NF_NOISE_OK)))
            snprintf(f->seen, sizeof(f->seen),
                     "no cpufreq governor (fixed frequency, or a virtual machine)");
        return;
    }
    if (perf == total) {
        if ((f = add(out, n, max, "governor", NF_NOISE_OK)))
            snprintf(f->seen, sizeof(f->seen), "performance on all %d CPUs", total);
        return;
    }
    if ((f = add(out, n, max, "governor", NF_NOISE_WARN))) {
        snprintf(f->seen, sizeof(f->seen), "%s on %d of %d CPUs", other, total - perf, total);
        snprintf(f->fix, sizeof(f->fix),
                 "cpupower frequency-set -g performance (or doctor --tune)");
        snprintf(f->tune_path, sizeof(f->tune_path),
                 "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor");
        snprintf(f->tune_value, sizeof(f->tune_value), "performance");
    }
}

static void turbo(const char *root, struct nf_noise *out, size_t *n, size_t max)
{
    struct nf_noise *f;
    char *v = rd(root, "/sys/devices/system/cpu/intel_pstate/no_turbo");
    if (v) {
        int on = strcmp(v, "0") == 0;
        if ((f = add(out, n, max, "turbo", on ? NF_NOISE_WARN : NF_NOISE_OK))) {
            snprintf(f->seen, sizeof(f->seen), "intel_pstate turbo %s",
                     on ? "enabled" : "disabled");
            if (on) {
                snprintf(
                    f->fix, sizeof(f->fix),
                    "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo (or doctor --tune)");
                snprintf(f->tune_path, sizeof(f->tune_path),
                         "/sys/devices/system/cpu/intel_pstate/no_turbo");
                snprintf(f->tune_value, sizeof(f->tune_value), "1");
            }
        }
        free(v);
        return;
    }
    v = rd(root, "/sys/devices/system/cpu/cpufreq/boost");
    if (v) {
        int on = strcmp(v, "1") == 0;
        if ((f = add(out, n, max, "turbo", on ? NF_NOISE_WARN : NF_NOISE_OK))) {
            snprintf(f->seen, sizeof(f->seen), "cpufreq boost %s", on ? "enabled" : "disabled");
            if (on) {
                snprintf(f->fix, sizeof(f->fix),
                         "echo 0 > /sys/devices/system/cpu/cpufreq/boost (or doctor --tune)");
                snprintf(f->tune_path, sizeof(f->tune_path),
                         "/sys/devices/system/cpu/cpufreq/boost");
                snprintf(f->tune_value, sizeof(f->tune_value), "0");
            }
        }
        free(v);
        return;
    }
    if ((f = add(out, n, max, "turbo", NF_NOISE_OK)))
        snprintf(f->seen, sizeof(f->seen), "no boost control exposed");
}

static void smt(const char *root, struct nf_noise *out, size_t *n, size_t max)
{
    struct nf_noise *f;
    char *v = rd(root, "/sys/devices/system/cpu/smt/active");
    int on = v && strcmp(v, "1") == 0;
    if ((f = add(out, n, max, "smt", on ? NF_NOISE_WARN : NF_NOISE_OK))) {
        snprintf(f->seen, sizeof(f->seen), "%s",
                 !v   ? "no SMT control (no SMT)"
                 : on ? "SMT siblings active"
                      : "SMT off");
        if (on)
            snprintf(f->fix, sizeof(f->fix),
                     "pin to one thread per core (--pin), or echo off > "
                     "/sys/devices/system/cpu/smt/control");
    }
    free(v);
}

static void sysctl_check(const char *root, struct nf_noise *out, size_t *n, size_t max,
                         const char *name, const char *path, const char *good, const char *why,
                         const char *fix, int tunable)
{
    struct nf_noise *f;
    char *v = rd(root, path);
    if (!v)
        return;
    int ok = strcmp(v, good) == 0;
    if ((f = add(out, n, max, name, ok ? NF_NOISE_OK : NF_NOISE_WARN))) {
        char key[128];
        snprintf(key, sizeof(key), "%s", path + strlen("/proc/sys/"));
        for (char *c = key; *c; c++)
            if (*c == '/')
                *c = '.';
        snprintf(f->seen, sizeof(f->seen), "%s = %s%s%s", key, v, ok ? "" : ": ", ok ? "" : why);
        if (!ok) {
            snprintf(f->fix, sizeof(f->fix), "%s", fix);
            if (tunable) {
                snprintf(f->tune_path, sizeof(f->tune_path), "%s", path);
                snprintf(f->tune_value, sizeof(f->tune_value), "%s", good);
            }
        }
    }
    free(v);
}

static void load(const char *root, struct nf_noise *out, size_t *n, size_t max)
{
    char *v = rd(root, "/proc/loadavg");
    if (!v)
        return;
    double l1 = atof(v);
    long ncpu = 0;
    char *online = rd(root, "/sys/devices/system/cpu/online");
    if (online) {
        /* "0-1" or "0,2-3": count. */
        char *save = NULL;
        for (char *t = strtok_r(online, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            char *dash = strchr(t, '-');
            ncpu += dash ? atol(dash + 1) - atol(t) + 1 : 1;
        }
        free(online);
    }
    if (ncpu <= 0)
        ncpu = 1;
    struct nf_noise *f;
    int busy = l1 > 0.25 * (double)ncpu;
    if ((f = add(out, n, max, "load", busy ? NF_NOISE_WARN : NF_NOISE_OK))) {
        snprintf(f->seen, sizeof(f->seen), "load average %.2f on %ld CPUs", l1, ncpu);
        if (busy)
            snprintf(f->fix, sizeof(f->fix),
                     "stop other work, or compare with `ab` so that both variants share the noise");
    }
    free(v);
}

static void virt(const char *root, struct nf_noise *out, size_t *n, size_t max)
{
    char *v = rd(root, "/proc/cpuinfo");
    if (!v)
        return;
    int hv = strstr(v, " hypervisor") != NULL;
    free(v);
    struct nf_noise *f;
    if ((f = add(out, n, max, "virtualized", hv ? NF_NOISE_INFO : NF_NOISE_OK))) {
        snprintf(f->seen, sizeof(f->seen), "%s",
                 hv ? "a virtual machine (hypervisor flag)" : "bare metal");
        if (hv)
            snprintf(f->fix, sizeof(f->fix),
                     "steal time and neighbours add noise no setting here removes; "
                     "interleave variants (`ab`) and pin");
    }
}

static void pmu(const char *root, struct nf_noise *out, size_t *n, size_t max)
{
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/sys/bus/event_source/devices/cpu", root);
    DIR *d = opendir(dir);
    if (d)
        closedir(d);
    struct nf_noise *f;
    if ((f = add(out, n, max, "pmu", d ? NF_NOISE_OK : NF_NOISE_INFO))) {
        snprintf(f->seen, sizeof(f->seen), "%s",
                 d ? "hardware PMU present"
                   : "no hardware PMU: cycles, instructions and branches are <not supported>");
        if (!d)
            snprintf(f->fix, sizeof(f->fix),
                     "software counters (task-clock, context-switches, ...) still work");
    }
}

static void thp(const char *root, struct nf_noise *out, size_t *n, size_t max)
{
    char *v = rd(root, "/sys/kernel/mm/transparent_hugepage/enabled");
    if (!v)
        return;
    int always = strstr(v, "[always]") != NULL;
    struct nf_noise *f;
    if ((f = add(out, n, max, "thp", always ? NF_NOISE_INFO : NF_NOISE_OK))) {
        snprintf(f->seen, sizeof(f->seen), "transparent hugepages: %s", v);
        if (always)
            snprintf(f->fix, sizeof(f->fix),
                     "khugepaged and huge-page faults vary run to run; "
                     "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled");
    }
    free(v);
}

static void isolation(const char *root, struct nf_noise *out, size_t *n, size_t max)
{
    char *v = rd(root, "/proc/cmdline");
    if (!v)
        return;
    int iso = strstr(v, "isolcpus=") || strstr(v, "nohz_full=");
    free(v);
    struct nf_noise *f;
    if ((f = add(out, n, max, "isolation", iso ? NF_NOISE_OK : NF_NOISE_INFO))) {
        snprintf(f->seen, sizeof(f->seen), "%s",
                 iso ? "isolated CPUs on the kernel command line" : "no isolcpus/nohz_full");
        if (!iso)
            snprintf(f->fix, sizeof(f->fix),
                     "for the quietest CPUs boot with isolcpus=N nohz_full=N and --pin N");
    }
}

size_t nf_noise_inspect(const char *root, struct nf_noise *out, size_t max)
{
    if (!root)
        root = "";
    size_t n = 0;
    governors(root, out, &n, max);
    turbo(root, out, &n, max);
    smt(root, out, &n, max);
    sysctl_check(root, out, &n, max, "aslr", "/proc/sys/kernel/randomize_va_space", "0",
                 "address layout changes every run",
                 "sysctl kernel.randomize_va_space=0 while "
                 "measuring (a security trade-off; not applied by --tune)",
                 0);
    sysctl_check(root, out, &n, max, "nmi_watchdog", "/proc/sys/kernel/nmi_watchdog", "0",
                 "the watchdog holds a hardware counter and interrupts periodically",
                 "sysctl kernel.nmi_watchdog=0 (or doctor --tune)", 1);
    char *par = rd(root, "/proc/sys/kernel/perf_event_paranoid");
    if (par) {
        int p = atoi(par);
        struct nf_noise *f;
        if ((f = add(out, &n, max, "perf_paranoid", p > 2 ? NF_NOISE_WARN : NF_NOISE_OK))) {
            snprintf(f->seen, sizeof(f->seen), "kernel.perf_event_paranoid = %d", p);
            if (p > 2)
                snprintf(f->fix, sizeof(f->fix),
                         "sysctl kernel.perf_event_paranoid=2 (or lower) so counters can be read");
        }
        free(par);
    }
    load(root, out, &n, max);
    virt(root, out, &n, max);
    pmu(root, out, &n, max);
    thp(root, out, &n, max);
    isolation(root, out, &n, max);
    return n;
}
