/* noisefloor doctor: the machine's noise sources and their fixes; --tune
 * applies the fixes that are safe to apply and reversible, --restore puts
 * back what --tune or a killed run (--sysctl) changed. */
#include <errno.h>
#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "core/numfmt.h"
#include "core/util.h"
#include "measure/noise.h"
#include "measure/sysstat.h"
#include "measure/tune.h"

#define MAX_FINDINGS 32
#define MAX_FILES 256
/* Seconds of the idle sample of what the CPUs are busy with. */
#define DOCTOR_SAMPLE 0.25

struct doctor_args {
    int tune, restore, json;
    const char *root;
};

const struct nf_opts nf_cmd_doctor_opts = {
    .usage = "noisefloor doctor [--json] [--root DIR]\n"
             "noisefloor doctor --tune [--json] [--root DIR]\n"
             "noisefloor doctor --restore [--json]",
    .about = "Without an option: each noise source of this machine (frequency governor,\n"
             "turbo/boost, SMT, ASLR, NMI watchdog, perf_event_paranoid, load, virtualisation,\n"
             "hardware PMU, transparent hugepages, CPU isolation), whether it is a problem,\n"
             "and its fix.",
    .options =
        (const struct nf_option[]){
            NF_OPT_FLAG(0, "tune", struct doctor_args, tune,
                        "apply the fixes that are reversible (governor performance, turbo\n"
                        "off, NMI watchdog off); the original values go to a state file\n"
                        "first ($NOISEFLOOR_STATE.tune, else\n"
                        "/var/tmp/noisefloor-tune.state.tune)"),
            NF_OPT_FLAG(0, "restore", struct doctor_args, restore,
                        "put back what --tune changed, and what a run that was killed left\n"
                        "changed (--sysctl), from the state files"),
            NF_OPT_FLAG(0, "json", struct doctor_args, json,
                        "the findings, or what --tune set or --restore put back,\n"
                        "as JSON"),
            NF_OPT_STRING(0, "root", struct doctor_args, root, "DIR",
                          "read /sys and /proc under DIR (for tests; not with\n"
                          "--restore: the state file names the files)"),
            NF_OPT_END,
        },
};

static char *tune_state_path(void)
{
    return nf_xasprintf("%s.tune", nf_tune_state_path());
}

static void print_json(json_t *o)
{
    nf_json_dumpf(o, stdout, JSON_INDENT(2));
    fputc('\n', stdout);
    json_decref(o);
}

static int report(const struct nf_noise *f, size_t n, int json)
{
    if (json) {
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr,
                                  json_pack("{s:s, s:s, s:s, s:s, s:b}", "name", f[i].name, "level",
                                            nf_noise_level_name(f[i].level), "seen", f[i].seen,
                                            "fix", f[i].fix, "tunable", f[i].tune_path[0] != 0));
        print_json(json_pack("{s:o}", "findings", arr));
        return NF_EXIT_OK;
    }
    size_t warn = 0, tunable = 0;
    for (size_t i = 0; i < n; i++) {
        printf("%-5s %-14s %s\n", nf_noise_level_name(f[i].level), f[i].name, f[i].seen);
        if (f[i].fix[0])
            printf("      %-14s fix: %s\n", "", f[i].fix);
        warn += f[i].level == NF_NOISE_WARN;
        tunable += f[i].level == NF_NOISE_WARN && f[i].tune_path[0];
    }
    printf("\n%zu of %zu checks need attention%s\n", warn, n,
           tunable ? "; `noisefloor doctor --tune` applies the reversible fixes" : "");
    return NF_EXIT_OK;
}

/* One setting --tune set or --restore put back, for --json. */
static json_t *change_json(const struct nf_tune_entry *e, const char *from, const char *to)
{
    return json_pack("{s:s, s:s, s:s, s:s}", "key", e->key, "path", e->path, "from", from, "to",
                     to);
}

static int tune(const char *root, const struct nf_noise *f, size_t n, int json)
{
    /* Expand each tunable finding into the files to write; a file that
     * already has the value is left alone (and listed as unchanged). */
    struct nf_tune_file files[MAX_FILES];
    char *owned[MAX_FILES];
    size_t nf = 0, no = 0;
    json_t *unchanged = json_array();
    for (size_t i = 0; i < n; i++) {
        if (!f[i].tune_path[0] || f[i].level != NF_NOISE_WARN)
            continue;
        char *pattern = nf_xasprintf("%s%s", root ? root : "", f[i].tune_path);
        glob_t g;
        if (glob(pattern, 0, NULL, &g) == 0) {
            for (size_t k = 0; k < g.gl_pathc && nf < MAX_FILES && no + 2 < MAX_FILES; k++) {
                char *cur = nf_read_file(g.gl_pathv[k]);
                int same = cur && strcmp(cur, f[i].tune_value) == 0;
                free(cur);
                const char *name = g.gl_pathv[k] + (root ? strlen(root) : 0);
                if (same) {
                    json_array_append_new(unchanged,
                                          json_pack("{s:s, s:s, s:s}", "key", name, "path",
                                                    g.gl_pathv[k], "value", f[i].tune_value));
                    continue;
                }
                char *path = nf_xstrdup(g.gl_pathv[k]);
                char *key = nf_xstrdup(name);
                owned[no++] = path;
                owned[no++] = key;
                files[nf++] = (struct nf_tune_file){key, path, f[i].tune_value};
            }
            globfree(&g);
        }
        free(pattern);
    }
    if (nf == 0) {
        if (json)
            print_json(json_pack("{s:s, s:n, s:[], s:O}", "action", "tune", "state_file", "changes",
                                 "unchanged", unchanged));
        else
            printf("nothing to tune\n");
        json_decref(unchanged);
        return NF_EXIT_OK;
    }
    char *state = tune_state_path();
    struct nf_tune t;
    char err[NF_ERR_LEN];
    /* A run's --sysctl values in effect would be recorded as the machine's
     * own, and put back by doctor --restore after the run restored them. */
    char held[NF_ERR_LEN - 16];
    int rc = nf_tune_state_clear(nf_tune_state_path(), held, sizeof(held));
    if (rc)
        snprintf(err, sizeof(err), "doctor --tune: %s", held);
    else
        rc = nf_tune_apply_files(&t, files, nf, root, state, "doctor --tune: ", err, sizeof(err));
    if (rc) {
        nf_err("%s", err);
    } else if (json) {
        json_t *changes = json_array();
        for (size_t i = 0; i < t.n; i++)
            json_array_append_new(changes, change_json(&t.e[i], t.e[i].original, t.e[i].value));
        print_json(json_pack("{s:s, s:s, s:o, s:O}", "action", "tune", "state_file", state,
                             "changes", changes, "unchanged", unchanged));
    } else {
        for (size_t i = 0; i < t.n; i++)
            printf("set %s to '%s' (was '%s')\n", t.e[i].key, t.e[i].value, t.e[i].original);
        printf("the original values are in %s; `noisefloor doctor --restore` puts them back\n",
               state);
    }
    /* Left tuned on purpose: the state file is the record of it. */
    if (rc == 0)
        nf_tune_free(&t);
    json_decref(unchanged);
    for (size_t i = 0; i < no; i++)
        free(owned[i]);
    free(state);
    return nf_exit_code(rc);
}

/* Both state files are read and checked before anything is written: one
 * that is not to be trusted stops the restore with nothing changed.  With
 * json, once writing began, what was put back is printed also when a write
 * fails (the error on stderr; the state file stays for another try). */
static int restore(int json)
{
    char err[NF_ERR_LEN];
    char *paths[2] = {nf_xstrdup(nf_tune_state_path()), tune_state_path()};
    struct nf_tune t[2];
    int rc = NF_EXIT_OK, have[2] = {0, 0};
    for (int i = 0; i < 2 && rc == NF_EXIT_OK; i++) {
        have[i] = nf_tune_load_state(&t[i], paths[i], err, sizeof(err));
        if (have[i] < 0) {
            nf_err("doctor: %s", err);
            rc = NF_EXIT_FAIL;
        }
    }
    int loaded = rc == NF_EXIT_OK;
    json_t *files = json_array(), *changes = json_array(), *left = json_array();
    for (int i = 0; i < 2 && rc == NF_EXIT_OK; i++) {
        if (have[i] <= 0)
            continue;
        json_array_append_new(files, json_string(paths[i]));
        if (nf_tune_restore(&t[i], err, sizeof(err))) {
            nf_err("doctor: %s", err);
            rc = NF_EXIT_FAIL;
        }
        for (size_t k = 0; k < t[i].n; k++) {
            const struct nf_tune_entry *e = &t[i].e[k];
            if (e->set)
                continue;
            if (e->found) {
                if (json)
                    json_array_append_new(left,
                                          json_pack("{s:s, s:s, s:s, s:s, s:s}", "key", e->key,
                                                    "path", e->path, "value", e->found, "set",
                                                    e->value, "original", e->original));
                else
                    printf("left %s at '%s': changed since noisefloor set it to '%s' (it was "
                           "'%s' before)\n",
                           e->key, e->found, e->value, e->original);
                continue;
            }
            if (json)
                json_array_append_new(changes, change_json(e, e->value, e->original));
            else
                printf("restored %s to '%s'\n", e->key, e->original);
        }
    }
    if (json && loaded)
        print_json(json_pack("{s:s, s:O, s:O, s:O}", "action", "restore", "state_files", files,
                             "changes", changes, "left", left));
    else if (rc == NF_EXIT_OK && have[0] <= 0 && have[1] <= 0)
        printf("nothing to restore (no %s or %s)\n", paths[0], paths[1]);
    json_decref(files);
    json_decref(changes);
    json_decref(left);
    for (int i = 0; i < 2; i++) {
        if (have[i] > 0)
            nf_tune_free(&t[i]);
        free(paths[i]);
    }
    return rc;
}

int cmd_doctor(int argc, char **argv)
{
    struct doctor_args a = {0};
    int first, rc;
    if (nf_cmd_parse("doctor", &nf_cmd_doctor_opts, &a, argc, argv, &first, &rc))
        return rc;
    if (first < argc) {
        nf_err("doctor: unexpected argument '%s'", argv[first]);
        return NF_EXIT_USAGE;
    }
    if (a.tune && a.restore) {
        nf_err("doctor: --tune and --restore exclude each other");
        return NF_EXIT_USAGE;
    }
    /* The state file names the files to put back, under the root they
     * were tuned with; another root could only disagree with it. */
    if (a.restore && a.root) {
        nf_err("doctor: --restore takes no --root: the state file names the files it puts back");
        return NF_EXIT_USAGE;
    }
    if (a.restore)
        return restore(a.json);
    /* A root that is not there would find every file missing and report
     * a machine with nothing to fix. */
    struct stat sb;
    if (a.root && stat(a.root, &sb) != 0) {
        nf_err("doctor: --root '%s': %s", a.root, strerror(errno));
        return NF_EXIT_USAGE;
    }
    if (a.root && !S_ISDIR(sb.st_mode)) {
        nf_err("doctor: --root '%s' is not a directory", a.root);
        return NF_EXIT_USAGE;
    }
    struct nf_noise f[MAX_FINDINGS];
    size_t n = nf_noise_inspect(a.root, f, MAX_FINDINGS);
    /* what each CPU is busy with now, over a short idle sample */
    if (!a.tune && n < MAX_FINDINGS)
        n += (size_t)nf_sys_doctor(a.root, DOCTOR_SAMPLE, &f[n]);
    return a.tune ? tune(a.root, f, n, a.json) : report(f, n, a.json);
}
