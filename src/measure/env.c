#include "measure/env.h"

#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "core/version.h"
#include "measure/runspec.h"
#include "measure/spawn.h"

static char *read_rel(const char *root, const char *path)
{
    char *full = nf_xasprintf("%s%s", root ? root : "", path);
    char *s = nf_read_file(full);
    free(full);
    return s;
}

static json_t *str_or_null(char *s)
{
    json_t *j = s ? json_string(s) : json_null();
    free(s);
    return j ? j : json_null(); /* json_string refuses invalid UTF-8 */
}

/* A small integer file (0/1, paranoid level): json integer or null. */
static json_t *int_file(const char *root, const char *path)
{
    char *s = read_rel(root, path);
    long v;
    json_t *j = s && nf_parse_long(s, -1000, 1000, &v) == 0 ? json_integer(v) : json_null();
    free(s);
    return j;
}

/* Parse "0-3,5" into a sorted list; returns the count, -1 when malformed. */
static int parse_cpu_list(const char *s, int *cpus, int max)
{
    int n = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b;
        if (end == s || a < 0)
            return -1;
        b = a;
        s = end;
        if (*s == '-') {
            b = strtol(s + 1, &end, 10);
            if (end == s + 1 || b < a)
                return -1;
            s = end;
        }
        for (long c = a; c <= b; c++) {
            if (n == max)
                return -1;
            cpus[n++] = (int)c;
        }
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return n;
}

/* The value after "key<blanks>: " of the first matching /proc/cpuinfo line. */
static char *cpuinfo_field(const char *info, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = info; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, kl) != 0 || (p[kl] != '\t' && p[kl] != ' ' && p[kl] != ':'))
            continue;
        const char *c = strchr(p, ':');
        const char *e = strchr(p, '\n');
        if (!c || (e && c > e))
            continue;
        c++;
        while (*c == ' ' || *c == '\t')
            c++;
        size_t n = e ? (size_t)(e - c) : strlen(c);
        char *v = nf_xmalloc(n + 1);
        memcpy(v, c, n);
        v[n] = 0;
        return v;
    }
    return NULL;
}

static int has_word(const char *list, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = list; p && (p = strstr(p, word)); p += wl)
        if ((p == list || isspace((unsigned char)p[-1])) &&
            (p[wl] == 0 || isspace((unsigned char)p[wl])))
            return 1;
    return 0;
}

static json_t *governors(const char *root, const int *cpus, int n)
{
    json_t *g = json_object();
    for (int i = 0; i < n; i++) {
        char path[96], key[16];
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
                 cpus[i]);
        char *s = read_rel(root, path);
        if (s) {
            snprintf(key, sizeof(key), "%d", cpus[i]);
            json_object_set_new(g, key, str_or_null(s));
        }
    }
    if (json_object_size(g) == 0) {
        json_decref(g);
        return json_null();
    }
    return g;
}

/* cpufreq/boost (acpi-cpufreq, amd-pstate) or intel_pstate/no_turbo. */
static json_t *boost(const char *root)
{
    json_t *b = int_file(root, "/sys/devices/system/cpu/cpufreq/boost");
    if (json_is_integer(b)) {
        int on = json_integer_value(b) != 0;
        json_decref(b);
        return json_boolean(on);
    }
    json_decref(b);
    b = int_file(root, "/sys/devices/system/cpu/intel_pstate/no_turbo");
    if (json_is_integer(b)) {
        int on = json_integer_value(b) == 0;
        json_decref(b);
        return json_boolean(on);
    }
    json_decref(b);
    return json_null();
}

static json_t *loadavg(const char *root)
{
    char *s = read_rel(root, "/proc/loadavg");
    double a, b, c;
    json_t *j = json_null();
    if (s && sscanf(s, "%lf %lf %lf", &a, &b, &c) == 3) {
        json_decref(j);
        j = json_pack("[fff]", a, b, c);
    }
    free(s);
    return j;
}

/* A hardware PMU registers an event source: "cpu" on x86, "cpu_core" and
 * "cpu_atom" on hybrid Intel, "armv8_pmuv3*" / "armv7_*" on Arm. */
static int hardware_pmu(const char *root)
{
    char *dir = nf_xasprintf("%s/sys/bus/event_source/devices", root ? root : "");
    DIR *d = opendir(dir);
    free(dir);
    if (!d)
        return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)))
        found = strcmp(e->d_name, "cpu") == 0 || strcmp(e->d_name, "cpu_core") == 0 ||
                strcmp(e->d_name, "cpu_atom") == 0 || strncmp(e->d_name, "armv", 4) == 0;
    closedir(d);
    return found;
}

/* What git prints for `git -C dir ARGS...` (measure/spawn.h runs it, no
 * shell; its stderr is not shown), its first 255 bytes without the final
 * newline, malloc'd; NULL when git fails or prints nothing. */
static char *git_line(const char *dir, const char *a1, const char *a2, const char *a3,
                      const char *a4)
{
    char *argv[] = {"git", "-C", (char *)dir, (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL};
    char buf[256], why[NF_ERR_LEN];
    int st;
    if (nf_run_capture(argv, NULL, 0, buf, sizeof(buf), &st, why, sizeof(why)) != 0 ||
        !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return NULL;
    size_t len = strlen(buf);
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
        buf[--len] = 0;
    return len ? nf_xstrdup(buf) : NULL;
}

char *nf_env_git_describe(const char *dir)
{
    return git_line(dir, "describe", "--always", "--dirty", "--tags");
}

int nf_env_source_check(const char *dir, char *err, size_t errlen)
{
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        snprintf(err, errlen, "--source '%s': %s", dir, strerror(errno));
        return NF_EINPUT;
    }
    if (!S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "--source '%s' is not a directory", dir);
        return NF_EINPUT;
    }
    char *in = git_line(dir, "rev-parse", "--is-inside-work-tree", NULL, NULL);
    int tree = in && strcmp(in, "true") == 0;
    free(in);
    if (tree)
        return 0;
    snprintf(err, errlen,
             "--source '%s' is not a git work tree (or git cannot be run): its git_describe "
             "is stored as null",
             dir);
    return 1;
}

json_t *nf_env_snapshot(const char *root, const char *pin, const char *source_dir)
{
    if (!root)
        root = "";
    json_t *e = json_object();
    json_object_set_new(e, "kernel", str_or_null(read_rel(root, "/proc/sys/kernel/osrelease")));
    json_object_set_new(e, "kernel_version",
                        str_or_null(read_rel(root, "/proc/sys/kernel/version")));
    json_object_set_new(e, "cmdline", str_or_null(read_rel(root, "/proc/cmdline")));
    const char *forced = nf_hostname_override(); /* $NOISEFLOOR_HOSTNAME */
    char *host = forced ? nf_xstrdup(forced) : read_rel(root, "/proc/sys/kernel/hostname");
    if (!host && !*root) {
        char h[256] = "";
        if (gethostname(h, sizeof(h) - 1) == 0)
            host = nf_xstrdup(h);
    }
    json_object_set_new(e, "hostname", str_or_null(host));

    char *info = read_rel(root, "/proc/cpuinfo");
    char *model = info ? cpuinfo_field(info, "model name") : NULL;
    if (!model && info)
        model = cpuinfo_field(info, "Hardware"); /* some Arm kernels */
    json_object_set_new(e, "cpu_model", str_or_null(model));

    char *online = read_rel(root, "/sys/devices/system/cpu/online");
    int cpus[4096];
    int n = online ? parse_cpu_list(online, cpus, 4096) : -1;
    if (n < 0 && !*root) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 && c <= 4096 ? (int)c : -1;
        for (int i = 0; i < n; i++)
            cpus[i] = i;
    }
    json_object_set_new(e, "nr_cpus", n >= 0 ? json_integer(n) : json_null());
    json_object_set_new(e, "online_cpus", str_or_null(online));
    json_object_set_new(e, "pin", str_or_null(pin ? nf_xstrdup(pin) : NULL));
    json_object_set_new(e, "governor", governors(root, cpus, n > 0 ? n : 0));
    json_object_set_new(e, "boost", boost(root));
    json_object_set_new(e, "smt",
                        str_or_null(read_rel(root, "/sys/devices/system/cpu/smt/control")));
    json_t *smt_active = int_file(root, "/sys/devices/system/cpu/smt/active");
    json_object_set_new(e, "smt_active",
                        json_is_integer(smt_active) ? json_boolean(json_integer_value(smt_active))
                                                    : json_null());
    json_decref(smt_active);
    json_object_set_new(e, "aslr", int_file(root, "/proc/sys/kernel/randomize_va_space"));
    json_object_set_new(e, "loadavg", loadavg(root));
    char *flags = info ? cpuinfo_field(info, "flags") : NULL;
    json_object_set_new(e, "virtualized",
                        info ? json_boolean(has_word(flags, "hypervisor")) : json_null());
    free(flags);
    free(info);
    json_object_set_new(e, "perf_event_paranoid",
                        int_file(root, "/proc/sys/kernel/perf_event_paranoid"));
    json_object_set_new(e, "hardware_pmu", json_boolean(hardware_pmu(root)));
    json_object_set_new(e, "noisefloor_version", json_string(nf_version));
    json_object_set_new(e, "source", str_or_null(source_dir ? nf_xstrdup(source_dir) : NULL));
    json_object_set_new(e, "git_describe",
                        source_dir ? str_or_null(nf_env_git_describe(source_dir)) : json_null());
    /* The full SHA, which `history --by commit` orders by and hands to
     * `bisect` (git_describe may be a tag, or abbreviated). */
    json_object_set_new(e, "commit",
                        source_dir
                            ? str_or_null(git_line(source_dir, "rev-parse", "HEAD", NULL, NULL))
                            : json_null());
    return e;
}

json_t *nf_env_sysctls(const struct nf_sysctl *s, int n)
{
    if (n <= 0)
        return NULL;
    json_t *o = json_object();
    for (int i = 0; i < n; i++) {
        json_t *v = json_string(s[i].value);
        json_object_set_new(o, s[i].key, v ? v : json_null());
    }
    return o;
}
