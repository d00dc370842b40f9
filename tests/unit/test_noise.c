/* doctor's inspection of noise sources, on fake /sys and /proc trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "measure/noise.h"

static void put(const char *root, const char *path, const char *text)
{
    char full[1024], dir[1024];
    snprintf(full, sizeof(full), "%s%s", root, path);
    /* mkdir -p of the parent */
    snprintf(dir, sizeof(dir), "%s", full);
    for (char *p = dir + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(dir, 0755);
            *p = '/';
        }
    FILE *f = fopen(full, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const struct nf_noise *find(const struct nf_noise *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0)
            return &f[i];
    return NULL;
}

static char *mkroot(void)
{
    char *root = strdup("/tmp/nf-noise.XXXXXX");
    assert_non_null(mkdtemp(root));
    return root;
}

static void rmroot(char *root)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    free(root);
}

static void test_noisy_machine(void **state)
{
    (void)state;
    char *root = mkroot();
    put(root, "/sys/devices/system/cpu/online", "0-3\n");
    put(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
    put(root, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
    put(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
    put(root, "/sys/devices/system/cpu/smt/active", "1\n");
    put(root, "/proc/sys/kernel/randomize_va_space", "2\n");
    put(root, "/proc/sys/kernel/nmi_watchdog", "1\n");
    put(root, "/proc/sys/kernel/perf_event_paranoid", "4\n");
    put(root, "/proc/loadavg", "3.50 1.00 0.50 2/300 1234\n");
    put(root, "/proc/cpuinfo", "flags\t\t: fpu vme hypervisor\n");
    put(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro quiet\n");
    put(root, "/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
    struct nf_noise f[32];
    size_t n = nf_noise_inspect(root, f, 32);
    const struct nf_noise *g = find(f, n, "governor");
    assert_non_null(g);
    assert_int_equal(g->level, NF_NOISE_WARN);
    assert_non_null(strstr(g->seen, "powersave on 1 of 2 CPUs"));
    assert_string_equal(g->tune_value, "performance");
    assert_int_equal(find(f, n, "turbo")->level, NF_NOISE_WARN);
    assert_string_equal(find(f, n, "turbo")->tune_value, "1");
    assert_int_equal(find(f, n, "smt")->level, NF_NOISE_WARN);
    assert_int_equal(find(f, n, "aslr")->level, NF_NOISE_WARN);
    assert_string_equal(find(f, n, "aslr")->tune_path, ""); /* not tuned: security */
    assert_int_equal(find(f, n, "nmi_watchdog")->level, NF_NOISE_WARN);
    assert_string_equal(find(f, n, "nmi_watchdog")->tune_path, "/proc/sys/kernel/nmi_watchdog");
    assert_int_equal(find(f, n, "perf_paranoid")->level, NF_NOISE_WARN);
    assert_int_equal(find(f, n, "load")->level, NF_NOISE_WARN);
    assert_non_null(strstr(find(f, n, "load")->seen, "on 4 CPUs"));
    assert_int_equal(find(f, n, "virtualized")->level, NF_NOISE_INFO);
    assert_int_equal(find(f, n, "pmu")->level, NF_NOISE_INFO);
    assert_int_equal(find(f, n, "thp")->level, NF_NOISE_INFO);
    assert_int_equal(find(f, n, "isolation")->level, NF_NOISE_INFO);
    rmroot(root);
}

static void test_quiet_machine(void **state)
{
    (void)state;
    char *root = mkroot();
    put(root, "/sys/devices/system/cpu/online", "0-1\n");
    put(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
    put(root, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n");
    put(root, "/sys/devices/system/cpu/cpufreq/boost", "0\n");
    put(root, "/proc/sys/kernel/randomize_va_space", "0\n");
    put(root, "/proc/sys/kernel/nmi_watchdog", "0\n");
    put(root, "/proc/sys/kernel/perf_event_paranoid", "-1\n");
    put(root, "/proc/loadavg", "0.01 0.00 0.00 1/100 1\n");
    put(root, "/proc/cpuinfo", "flags\t\t: fpu vme\n");
    put(root, "/proc/cmdline", "ro isolcpus=1 nohz_full=1\n");
    put(root, "/sys/bus/event_source/devices/cpu/type", "4\n");
    struct nf_noise f[32];
    size_t n = nf_noise_inspect(root, f, 32);
    for (size_t i = 0; i < n; i++)
        if (f[i].level != NF_NOISE_OK)
            fail_msg("%s: %s", f[i].name, f[i].seen);
    const struct nf_noise *g = find(f, n, "governor"), *t = find(f, n, "turbo");
    assert_non_null(g);
    assert_non_null(t);
    assert_non_null(strstr(g->seen, "performance on all 2 CPUs"));
    assert_non_null(strstr(t->seen, "boost disabled"));
    rmroot(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_noisy_machine),
        cmocka_unit_test(test_quiet_machine),
    };
    return cmocka_run_group_tests_name("noise", tests, NULL, NULL);
}
