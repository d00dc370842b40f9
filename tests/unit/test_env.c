/* Environment snapshot over a fake /proc and /sys tree. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "faketree.h"
#include "measure/env.h"

static int setup(void **state)
{
    (void)state;
    return fake_tree_make("env");
}

static int teardown(void **state)
{
    (void)state;
    return fake_tree_remove();
}

static void fake_machine(void)
{
    fake_tree_put("/proc/sys/kernel/osrelease", "6.1.0-test\n");
    fake_tree_put("/proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.0\n");
    fake_tree_put("/proc/sys/kernel/hostname", "benchbox\n");
    fake_tree_put("/proc/cmdline", "root=/dev/sda1 isolcpus=2,3 mitigations=off\n");
    fake_tree_put(
        "/proc/cpuinfo",
        "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6130\n"
        "flags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm\n\n"
        "processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Gold 6130\n");
    fake_tree_put("/sys/devices/system/cpu/online", "0-2,4\n");
    fake_tree_put("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
    fake_tree_put("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
    fake_tree_put("/sys/devices/system/cpu/cpu4/cpufreq/scaling_governor", "performance\n");
    fake_tree_put("/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
    fake_tree_put("/sys/devices/system/cpu/smt/control", "on\n");
    fake_tree_put("/sys/devices/system/cpu/smt/active", "1\n");
    fake_tree_put("/proc/sys/kernel/randomize_va_space", "0\n");
    fake_tree_put("/proc/loadavg", "0.52 0.31 0.10 1/234 5678\n");
    fake_tree_put("/proc/sys/kernel/perf_event_paranoid", "-1\n");
    fake_tree_put("/sys/bus/event_source/devices/cpu/type", "4\n");
}

static void test_fake_machine(void **state)
{
    (void)state;
    fake_machine();
    json_t *e = nf_env_snapshot(fake_root, "0,2", NULL);
    assert_string_equal(json_string_value(json_object_get(e, "kernel")), "6.1.0-test");
    assert_string_equal(json_string_value(json_object_get(e, "kernel_version")),
                        "#1 SMP PREEMPT_DYNAMIC Debian 6.1.0");
    assert_string_equal(json_string_value(json_object_get(e, "hostname")), "benchbox");
    assert_string_equal(json_string_value(json_object_get(e, "cmdline")),
                        "root=/dev/sda1 isolcpus=2,3 mitigations=off");
    assert_string_equal(json_string_value(json_object_get(e, "cpu_model")),
                        "Intel(R) Xeon(R) Gold 6130");
    assert_int_equal(json_integer_value(json_object_get(e, "nr_cpus")), 4);
    assert_string_equal(json_string_value(json_object_get(e, "online_cpus")), "0-2,4");
    assert_string_equal(json_string_value(json_object_get(e, "pin")), "0,2");
    json_t *g = json_object_get(e, "governor");
    assert_int_equal(json_object_size(g), 3); /* cpu2 has no cpufreq */
    assert_string_equal(json_string_value(json_object_get(g, "0")), "performance");
    assert_string_equal(json_string_value(json_object_get(g, "1")), "powersave");
    assert_string_equal(json_string_value(json_object_get(g, "4")), "performance");
    assert_true(json_is_false(json_object_get(e, "boost"))); /* no_turbo = 1 */
    assert_string_equal(json_string_value(json_object_get(e, "smt")), "on");
    assert_true(json_is_true(json_object_get(e, "smt_active")));
    assert_int_equal(json_integer_value(json_object_get(e, "aslr")), 0);
    json_t *la = json_object_get(e, "loadavg");
    assert_int_equal(json_array_size(la), 3);
    assert_true(json_real_value(json_array_get(la, 0)) == 0.52);
    assert_true(json_is_true(json_object_get(e, "virtualized")));
    assert_int_equal(json_integer_value(json_object_get(e, "perf_event_paranoid")), -1);
    assert_true(json_is_true(json_object_get(e, "hardware_pmu")));
    /* NF_VERSION is baked in when env.o is compiled; any non-empty string. */
    assert_true(strlen(json_string_value(json_object_get(e, "noisefloor_version"))) > 0);
    assert_true(json_is_null(json_object_get(e, "git_describe")));
    assert_true(json_is_null(json_object_get(e, "commit")));
    json_decref(e);
}

/* cpufreq/boost wins over intel_pstate; no hypervisor flag; no PMU. */
static void test_boost_bare_metal(void **state)
{
    (void)state;
    fake_tree_put("/proc/cpuinfo",
                  "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu sse2\n");
    fake_tree_put("/sys/devices/system/cpu/cpufreq/boost", "1\n");
    fake_tree_put("/sys/bus/event_source/devices/software/type", "1\n");
    json_t *e = nf_env_snapshot(fake_root, NULL, NULL);
    assert_true(json_is_true(json_object_get(e, "boost")));
    assert_true(json_is_false(json_object_get(e, "virtualized")));
    assert_true(json_is_false(json_object_get(e, "hardware_pmu")));
    assert_true(json_is_null(json_object_get(e, "pin")));
    json_decref(e);
}

/* An empty tree: everything unknown is null, never a guess. */
static void test_empty_tree(void **state)
{
    (void)state;
    json_t *e = nf_env_snapshot(fake_root, NULL, NULL);
    const char *nulls[] = {
        "kernel",     "kernel_version", "cmdline",  "hostname",    "cpu_model",
        "nr_cpus",    "online_cpus",    "governor", "boost",       "smt",
        "smt_active", "aslr",           "loadavg",  "virtualized", "perf_event_paranoid"};
    for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
        if (!json_is_null(json_object_get(e, nulls[i])))
            fail_msg("%s is not null", nulls[i]);
    assert_true(json_is_false(json_object_get(e, "hardware_pmu")));
    json_decref(e);
}

static void test_git_describe(void **state)
{
    (void)state;
    if (system("git --version >/dev/null 2>&1") != 0)
        skip();
    char *cmd =
        nf_xasprintf("cd '%s' && git init -q src && cd src && git -c user.name=t -c user.email=t@t "
                     "commit -q --allow-empty -m one && git tag v1.2 && git -c user.name=t "
                     "-c user.email=t@t commit -q --allow-empty -m two",
                     fake_root);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    char *dir = nf_xasprintf("%s/src", fake_root);
    json_t *e = nf_env_snapshot(fake_root, NULL, dir);
    const char *d = json_string_value(json_object_get(e, "git_describe"));
    assert_non_null(d);
    assert_true(strncmp(d, "v1.2-1-g", 8) == 0);
    assert_string_equal(json_string_value(json_object_get(e, "source")), dir);
    /* The full SHA of HEAD, whose abbreviation git_describe ends in. */
    const char *c = json_string_value(json_object_get(e, "commit"));
    assert_non_null(c);
    assert_int_equal(strlen(c), 40);
    assert_non_null(strstr(c, d + 8));
    assert_int_equal(strncmp(c, d + 8, strlen(d + 8)), 0);
    json_decref(e);
    /* Dirty tree. */
    char *f = nf_xasprintf("cd '%s' && echo x > f && git add f", dir);
    assert_int_equal(system(f), 0);
    free(f);
    char *desc = nf_env_git_describe(dir);
    assert_non_null(strstr(desc, "-dirty"));
    free(desc);
    /* Not a repository. */
    assert_null(nf_env_git_describe(fake_root));
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fake_machine, setup, teardown),
        cmocka_unit_test_setup_teardown(test_boost_bare_metal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_tree, setup, teardown),
        cmocka_unit_test_setup_teardown(test_git_describe, setup, teardown),
    };
    return cmocka_run_group_tests_name("env", tests, NULL, NULL);
}
