/* The environment a run was measured in: what the kernel, CPU and machine
 * were and how they were set, so that two runs can be told apart later and a
 * surprising result can be traced to a governor or a hypervisor.
 *
 * Every file is read under `root` ("" or NULL: the real /proc and /sys), so
 * tests point it at a fake tree.  What cannot be read is null, never a guess.
 *
 * Keys: kernel (release), kernel_version, cmdline, hostname, cpu_model,
 * nr_cpus, online_cpus, pin, governor ({"cpu": name} or null), boost (bool
 * or null), smt ("on", "off", "forceoff", "notsupported", ... or null),
 * smt_active, aslr (0-2 or null), loadavg ([1, 5, 15 min]), virtualized,
 * perf_event_paranoid, hardware_pmu, noisefloor_version, source,
 * git_describe, commit (git rev-parse HEAD of --source); and, added by the command, sysctl
 * (nf_env_sysctls). */
#ifndef NF_MEASURE_ENV_H
#define NF_MEASURE_ENV_H

#include <jansson.h>

/* pin: the --pin CPU list as given, or NULL.  source_dir: --source DIR for
 * `git describe --always --dirty --tags` (run with fork/exec, no shell), or
 * NULL. */
json_t *nf_env_snapshot(const char *root, const char *pin, const char *source_dir);

struct nf_sysctl;

/* The --sysctl settings of a run as its environment's "sysctl" value:
 * {"KEY": "VALUE", ...} as given (a value that is not UTF-8 as null), or
 * NULL when there are none. */
json_t *nf_env_sysctls(const struct nf_sysctl *s, int n);

/* `git describe` of dir, malloc'd, or NULL when git fails. */
char *nf_env_git_describe(const char *dir);

/* --source DIR before anything runs: 0 when DIR is a git work tree;
 * NF_EINPUT with one line in err when it does not exist or is not a
 * directory; 1 with one line (a warning) in err when it is a directory
 * but not a git work tree (or git cannot be run). */
int nf_env_source_check(const char *dir, char *err, size_t errlen);

#endif
