#include "measure/tune.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

const char *nf_tune_state_path(void)
{
    const char *p = getenv("NOISEFLOOR_STATE");
    return p && *p ? p : "/var/tmp/noisefloor-tune.state";
}

int nf_sysctl_path(const char *key, const char *root, char *out, size_t outlen)
{
    if (!*key || key[0] == '/' || key[0] == '.' || strstr(key, "..") || strstr(key, "//"))
        return -1;
    size_t len = strlen(key);
    if (key[len - 1] == '/' || key[len - 1] == '.')
        return -1;
    for (const char *c = key; *c; c++)
        if (*c <= ' ' || *c == 0x7f)
            return -1;
    int slashed = strchr(key, '/') != NULL; /* sysctl(8)'s form for names with dots */
    int n = snprintf(out, outlen, "%s/proc/sys/%s", root ? root : "", key);
    if (n < 0 || (size_t)n >= outlen)
        return -1;
    if (!slashed)
        for (char *c = out + n - len; *c; c++)
            if (*c == '.')
                *c = '/';
    return 0;
}

/* Write a value the way sysctl(8) does; 0 or an errno.  *touched says
 * whether the file was opened for writing (so may have changed). */
static int write_value(const char *path, const char *value, int *touched)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (touched)
        *touched = fd >= 0;
    if (fd < 0)
        return errno;
    char *line = nf_xasprintf("%s\n", value);
    size_t len = strlen(line);
    ssize_t w = write(fd, line, len);
    int e = w < 0 ? errno : (size_t)w != len ? EIO : 0;
    free(line);
    if (close(fd) && !e)
        e = errno;
    return e;
}

/* Is pid a live noisefloor other than us? */
static int holder_alive(long pid)
{
    if (pid <= 0 || pid == (long)getpid())
        return 0;
    if (kill((pid_t)pid, 0) != 0 && errno != EPERM)
        return 0;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
    char *comm = nf_read_file(path);
    int alive = comm && strcmp(comm, "noisefloor") == 0;
    free(comm);
    return alive;
}

static json_t *state_json(const struct nf_tune *t)
{
    json_t *entries = json_array();
    for (size_t i = 0; i < t->n; i++)
        json_array_append_new(entries, json_pack("{s:s, s:s, s:s, s:s}", "key", t->e[i].key, "path",
                                                 t->e[i].path, "original", t->e[i].original,
                                                 "value", t->e[i].value));
    return json_pack("{s:i, s:I, s:o}", "version", 1, "pid", (json_int_t)getpid(), "entries",
                     entries);
}

/* Create the state file atomically, failing if one exists: written and
 * synced under a private name, then linked into place. */
static int write_state(const struct nf_tune *t, const char *path, char *err, size_t errlen)
{
    char *tmp = nf_xasprintf("%s.%ld.tmp", path, (long)getpid());
    json_t *j = state_json(t);
    int rc = -1;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    char *text = json_dumps(j, JSON_INDENT(1));
    if (fd < 0 || !text) {
        snprintf(err, errlen, "cannot write the tuning state file %s: %s", tmp, strerror(errno));
        goto out;
    }
    size_t len = strlen(text);
    if (write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1 || fsync(fd)) {
        snprintf(err, errlen, "cannot write the tuning state file %s: %s", tmp, strerror(errno));
        goto out;
    }
    if (link(tmp, path) != 0) {
        if (errno == EEXIST) {
            json_t *old = json_load_file(path, 0, NULL);
            long pid = old ? (long)json_integer_value(json_object_get(old, "pid")) : 0;
            json_decref(old);
            if (holder_alive(pid))
                snprintf(err, errlen,
                         "another noisefloor (pid %ld) has tuned settings recorded in %s; "
                         "wait for it to finish",
                         pid, path);
            else
                snprintf(err, errlen,
                         "%s records settings an earlier run (pid %ld) did not restore; "
                         "run 'noisefloor doctor --restore' first",
                         path, pid);
        } else {
            snprintf(err, errlen, "cannot create the tuning state file %s: %s", path,
                     strerror(errno));
        }
        goto out;
    }
    rc = 0;
out:
    if (fd >= 0) {
        close(fd);
        unlink(tmp);
    }
    free(text);
    json_decref(j);
    free(tmp);
    return rc;
}

void nf_tune_free(struct nf_tune *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->e[i].key);
        free(t->e[i].path);
        free(t->e[i].original);
        free(t->e[i].value);
    }
    free(t->e);
    free(t->state_path);
    memset(t, 0, sizeof(*t));
}

/* Undo what was set, last first.  0, or -1 with the first failure in err. */
static int undo(struct nf_tune *t, char *err, size_t errlen)
{
    int rc = 0;
    for (size_t i = t->n; i-- > 0;) {
        struct nf_tune_entry *e = &t->e[i];
        if (!e->set)
            continue;
        int we = write_value(e->path, e->original, NULL);
        if (we) {
            if (rc == 0)
                snprintf(err, errlen, "cannot restore %s to '%s': %s", e->key, e->original,
                         strerror(we));
            rc = -1;
        } else {
            e->set = 0;
        }
    }
    return rc;
}

int nf_tune_apply(struct nf_tune *t, const struct nf_sysctl *s, int n, const char *root,
                  const char *state_path, char *err, size_t errlen)
{
    memset(t, 0, sizeof(*t));
    if (n <= 0)
        return 0;
    struct nf_tune_file *f = nf_xcalloc((size_t)n, sizeof(*f));
    char(*paths)[4096] = nf_xcalloc((size_t)n, sizeof(*paths));
    int rc = NF_EINPUT;
    for (int i = 0; i < n; i++) {
        if (nf_sysctl_path(s[i].key, root, paths[i], sizeof(paths[i]))) {
            snprintf(err, errlen,
                     "--sysctl: '%s' is not a sysctl name (like kernel.sched_autogroup_enabled)",
                     s[i].key);
            goto out;
        }
        struct stat sb;
        if (stat(paths[i], &sb) != 0 || !S_ISREG(sb.st_mode)) {
            snprintf(err, errlen, "--sysctl: no sysctl '%s' (%s %s)", s[i].key, paths[i],
                     errno == ENOENT ? "does not exist" : "is not a setting");
            goto out;
        }
        for (int k = 0; k < i; k++)
            if (strcmp(paths[k], paths[i]) == 0) {
                snprintf(err, errlen, "--sysctl: '%s' is given twice", s[i].key);
                goto out;
            }
        f[i] = (struct nf_tune_file){s[i].key, paths[i], s[i].value};
    }
    rc = nf_tune_apply_files(t, f, (size_t)n, state_path, "--sysctl: ", err, errlen);
out:
    free(f);
    free(paths);
    return rc;
}

int nf_tune_apply_files(struct nf_tune *t, const struct nf_tune_file *f, size_t n,
                        const char *state_path, const char *what, char *err, size_t errlen)
{
    memset(t, 0, sizeof(*t));
    if (n == 0)
        return 0;
    t->e = nf_xcalloc(n, sizeof(*t->e));
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        errno = 0;
        char *orig = nf_read_file(f[i].path);
        if (!orig) {
            snprintf(err, errlen, "%scannot read %s (%s), so it could not be restored", what,
                     f[i].name, strerror(errno ? errno : EIO));
            goto fail;
        }
        t->e[t->n++] = (struct nf_tune_entry){nf_xstrdup(f[i].name), nf_xstrdup(f[i].path), orig,
                                              nf_xstrdup(f[i].value), 0};
    }
    if (write_state(t, state_path, err, errlen))
        goto fail;
    t->state_path = nf_xstrdup(state_path);
    for (size_t i = 0; i < t->n; i++) {
        int touched;
        int we = write_value(t->e[i].path, t->e[i].value, &touched);
        if (we) {
            snprintf(err, errlen, "%scannot set %s to '%s': %s", what, t->e[i].key, t->e[i].value,
                     strerror(we));
            rc = we == EINVAL ? NF_EINPUT : -1;
            /* Opened but refused, or half-written: put it back too. */
            t->e[i].set = touched;
            char uerr[NF_ERR_LEN];
            if (undo(t, uerr, sizeof(uerr)) == 0)
                unlink(state_path);
            else
                nf_warn("%s; %s keeps the original values for 'noisefloor doctor --restore'", uerr,
                        state_path);
            goto fail;
        }
        t->e[i].set = 1;
    }
    return 0;
fail:
    nf_tune_free(t);
    return rc;
}

int nf_tune_apply_spec(struct nf_tune *t, const struct nf_runspec *spec, char *err, size_t errlen)
{
    return nf_tune_apply(t, spec->sysctls, spec->nsysctls, spec->sysfs_root, nf_tune_state_path(),
                         err, errlen);
}

int nf_tune_restore(struct nf_tune *t, char *err, size_t errlen)
{
    if (!t->state_path)
        return 0;
    if (undo(t, err, errlen))
        return -1;
    if (unlink(t->state_path) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "settings restored, but cannot remove %s: %s", t->state_path,
                 strerror(errno));
        return -1;
    }
    free(t->state_path);
    t->state_path = NULL;
    return 0;
}

void nf_tune_finish(struct nf_tune *t)
{
    char err[NF_ERR_LEN];
    if (nf_tune_restore(t, err, sizeof(err)))
        nf_warn("%s; run 'noisefloor doctor --restore' (state in %s)", err, t->state_path);
    nf_tune_free(t);
}

int nf_tune_restore_from_state(const char *path, FILE *log, char *err, size_t errlen)
{
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return 0;
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    json_t *entries = j ? json_object_get(j, "entries") : NULL;
    if (!json_is_array(entries)) {
        snprintf(err, errlen, "%s is not a noisefloor tuning state file: %s", path,
                 j ? "no entries" : je.text);
        json_decref(j);
        return -1;
    }
    long pid = (long)json_integer_value(json_object_get(j, "pid"));
    if (holder_alive(pid)) {
        snprintf(err, errlen,
                 "noisefloor pid %ld is still running and will restore its settings "
                 "itself (%s)",
                 pid, path);
        json_decref(j);
        return -1;
    }
    int restored = 0, failed = 0;
    size_t i;
    json_t *e;
    json_array_foreach(entries, i, e)
    {
        const char *key = json_string_value(json_object_get(e, "key"));
        const char *p = json_string_value(json_object_get(e, "path"));
        const char *orig = json_string_value(json_object_get(e, "original"));
        if (!key || !p || !orig) {
            snprintf(err, errlen, "%s: entry %zu lacks key, path or original", path, i + 1);
            failed++;
            continue;
        }
        int we = write_value(p, orig, NULL);
        if (we) {
            snprintf(err, errlen, "cannot restore %s to '%s': %s", key, orig, strerror(we));
            failed++;
        } else {
            restored++;
            if (log)
                fprintf(log, "restored %s to '%s'\n", key, orig);
        }
    }
    json_decref(j);
    if (failed)
        return -1;
    if (unlink(path) != 0) {
        snprintf(err, errlen, "settings restored, but cannot remove %s: %s", path, strerror(errno));
        return -1;
    }
    return restored;
}
