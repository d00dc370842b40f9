#include "measure/tune.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/safefile.h"
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
 * whether the file was opened for writing (so may have changed).  A
 * symlink in the last place is not followed: no setting is one. */
static int write_value(const char *path, const char *value, int *touched)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
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

static json_t *state_json(const struct nf_tune *t, const char *root)
{
    json_t *entries = json_array();
    for (size_t i = 0; i < t->n; i++)
        json_array_append_new(entries, json_pack("{s:s, s:s, s:s, s:s}", "key", t->e[i].key, "path",
                                                 t->e[i].path, "original", t->e[i].original,
                                                 "value", t->e[i].value));
    return json_pack("{s:i, s:I, s:s, s:o}", "version", 1, "pid", (json_int_t)getpid(), "root",
                     root ? root : "", "entries", entries);
}

/* The state file at path, read only if it can be trusted (nf_open_trusted).
 * The JSON, or NULL: with *none set when there is no such file, else with
 * err. */
static json_t *read_state(const char *path, int *none, char *err, size_t errlen)
{
    *none = 0;
    char why[NF_ERR_LEN];
    int fd = nf_open_trusted(path, why, sizeof(why));
    if (fd < 0) {
        if (errno == ENOENT)
            *none = 1;
        else
            snprintf(err, errlen,
                     "refusing the tuning state file %s: %s (remove it if no noisefloor of "
                     "yours wrote it)",
                     path, why);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadfd(fd, 0, &je);
    close(fd);
    if (!j || !json_is_array(json_object_get(j, "entries"))) {
        snprintf(err, errlen, "%s is not a noisefloor tuning state file: %s", path,
                 j ? "no entries" : je.text);
        json_decref(j);
        return NULL;
    }
    return j;
}

/* Create the state file atomically, failing if one exists: written and
 * synced under a private name, then linked into place; only in a directory
 * doctor --restore will trust. */
static void state_held(const char *path, char *err, size_t errlen);

static int write_state(const struct nf_tune *t, const char *root, const char *path, char *err,
                       size_t errlen)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? nf_xasprintf("%.*s", (int)(slash == path ? 1 : slash - path), path)
                      : nf_xstrdup(".");
    char why[NF_ERR_LEN];
    int rc = nf_dir_trusted(dir, why, sizeof(why));
    free(dir);
    if (rc) {
        snprintf(err, errlen,
                 "will not keep the tuning state file %s where others could change it: %s "
                 "(set NOISEFLOOR_STATE)",
                 path, why);
        return -1;
    }
    struct nf_newfile nf;
    if (nf_newfile_open(&nf, path, 0600, why, sizeof(why))) {
        snprintf(err, errlen, "cannot write the tuning state file: %s", why);
        return -1;
    }
    json_t *j = state_json(t, root);
    int dumped = json_dumpf(j, nf.f, JSON_INDENT(1));
    json_decref(j);
    fputc('\n', nf.f);
    if (dumped != 0) {
        nf_newfile_abort(&nf);
        snprintf(err, errlen, "cannot write the tuning state file %s", path);
        return -1;
    }
    if (nf_newfile_commit(&nf, NF_NEWFILE_NOREPLACE, why, sizeof(why)) == 0)
        return 0;
    if (errno != EEXIST) {
        snprintf(err, errlen, "cannot write the tuning state file: %s", why);
        return -1;
    }
    state_held(path, err, errlen);
    return -1;
}

/* Why the state file at path, which exists, stops a new tuning: its
 * holder is still running, or it did not restore (one line in err). */
static void state_held(const char *path, char *err, size_t errlen)
{
    char why[NF_ERR_LEN];
    int none;
    json_t *old = read_state(path, &none, why, sizeof(why));
    long pid = old ? (long)json_integer_value(json_object_get(old, "pid")) : 0;
    json_decref(old);
    if (!old && !none)
        snprintf(err, errlen, "%s", why);
    else if (holder_alive(pid))
        snprintf(err, errlen,
                 "another noisefloor (pid %ld) has tuned settings recorded in %s; "
                 "wait for it to finish",
                 pid, path);
    else
        snprintf(err, errlen,
                 "%s records settings an earlier run (pid %ld) did not restore; "
                 "run 'noisefloor doctor --restore' first",
                 path, pid);
}

int nf_tune_state_clear(const char *path, char *err, size_t errlen)
{
    struct stat sb;
    if (lstat(path, &sb) != 0 && errno == ENOENT)
        return 0;
    state_held(path, err, errlen);
    return -1;
}

void nf_tune_free(struct nf_tune *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->e[i].key);
        free(t->e[i].path);
        free(t->e[i].original);
        free(t->e[i].value);
        free(t->e[i].found);
    }
    for (size_t i = 0; t->locks && i < t->n; i++)
        if (t->locks[i] >= 0)
            close(t->locks[i]);
    free(t->locks);
    free(t->e);
    free(t->state_path);
    memset(t, 0, sizeof(*t));
}

/* Whether two settings are the same as the kernel reads them back: the
 * same words (a vector sysctl reads back with tabs: "32768\t60999"). */
static int same_setting(const char *a, const char *b)
{
    for (;;) {
        while (*a == ' ' || *a == '\t' || *a == '\n')
            a++;
        while (*b == ' ' || *b == '\t' || *b == '\n')
            b++;
        if (!*a || !*b)
            return !*a && !*b;
        for (; *a && *a != ' ' && *a != '\t' && *a != '\n'; a++, b++)
            if (*a != *b)
                return 0;
        if (*b && *b != ' ' && *b != '\t' && *b != '\n')
            return 0;
    }
}

/* A setting's file as it reads now, trailing newline dropped; NULL when
 * it cannot be read (a directory, gone, refused). */
static char *read_setting(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char buf[4096];
    size_t len = 0;
    ssize_t r;
    while (len < sizeof(buf) - 1 && (r = read(fd, buf + len, sizeof(buf) - 1 - len)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            return NULL;
        }
        len += (size_t)r;
    }
    close(fd);
    while (len && buf[len - 1] == '\n')
        len--;
    buf[len] = 0;
    return nf_xstrdup(buf);
}

/* A guarded entry (from a state file another process left) is put back
 * only while its file holds what that process set: a value changed by
 * hand since is the user's, and is kept (e->found says what it is).  1
 * when the entry is to be written back. */
static int still_ours(struct nf_tune_entry *e)
{
    if (!e->guard)
        return 1;
    char *cur = read_setting(e->path);
    if (!cur)
        return 1; /* unreadable: try the write, which says why */
    if (same_setting(cur, e->value) || same_setting(cur, e->original)) {
        free(cur);
        return 1;
    }
    e->found = cur;
    return 0;
}

/* Undo what was set, last first.  0, or -1 with the first failure in err. */
static int undo(struct nf_tune *t, char *err, size_t errlen)
{
    int rc = 0;
    for (size_t i = t->n; i-- > 0;) {
        struct nf_tune_entry *e = &t->e[i];
        if (!e->set)
            continue;
        if (!still_ours(e)) {
            e->set = 0;
            continue;
        }
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
    rc = nf_tune_apply_files(t, f, (size_t)n, root, state_path, "--sysctl: ", err, errlen);
out:
    free(f);
    free(paths);
    return rc;
}

int nf_tune_apply_files(struct nf_tune *t, const struct nf_tune_file *f, size_t n, const char *root,
                        const char *state_path, const char *what, char *err, size_t errlen)
{
    memset(t, 0, sizeof(*t));
    if (n == 0)
        return 0;
    t->e = nf_xcalloc(n, sizeof(*t->e));
    t->locks = nf_xmalloc(n * sizeof(*t->locks));
    for (size_t i = 0; i < n; i++)
        t->locks[i] = -1;
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        /* Held before the original is read: another noisefloor tuning the
         * same setting (under another NOISEFLOOR_STATE) would otherwise
         * take our value for the original, and leave it set. */
        t->locks[i] = open(f[i].path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (t->locks[i] >= 0 && flock(t->locks[i], LOCK_EX | LOCK_NB) != 0 &&
            errno == EWOULDBLOCK) {
            snprintf(err, errlen,
                     "%s%s is being tuned by another noisefloor (whatever its state file); "
                     "wait for it to finish",
                     what, f[i].name);
            goto fail;
        }
        errno = 0;
        char *orig = nf_read_file(f[i].path);
        if (!orig) {
            snprintf(err, errlen, "%scannot read %s (%s), so it could not be restored", what,
                     f[i].name, strerror(errno ? errno : EIO));
            goto fail;
        }
        t->e[t->n++] = (struct nf_tune_entry){
            nf_xstrdup(f[i].name), nf_xstrdup(f[i].path), orig, nf_xstrdup(f[i].value), 0, 0, NULL};
    }
    if (write_state(t, root, state_path, err, errlen))
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
    for (size_t j = t->n; j < n; j++) /* held for an entry not yet made */
        if (t->locks[j] >= 0)
            close(t->locks[j]);
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

/* The file an entry of a state file names, resolved, if it is one a
 * noisefloor could have tuned: under <root>/proc/sys/ or
 * <root>/sys/devices/system/cpu/ (<root> as recorded, "" normally).
 * NULL with err otherwise. */
static char *tunable_path(const char *root, const char *path, char *err, size_t errlen)
{
    char *croot = realpath(*root ? root : "/", NULL);
    if (!croot) {
        snprintf(err, errlen, "its root %s: %s", root, strerror(errno));
        return NULL;
    }
    char *real = realpath(path, NULL);
    if (!real) {
        snprintf(err, errlen, "cannot resolve %s: %s", path, strerror(errno));
        free(croot);
        return NULL;
    }
    const char *r = strcmp(croot, "/") == 0 ? "" : croot;
    static const char *const under[] = {"/proc/sys/", "/sys/devices/system/cpu/"};
    int ok = 0;
    for (size_t i = 0; i < sizeof(under) / sizeof(under[0]) && !ok; i++) {
        size_t rl = strlen(r), ul = strlen(under[i]);
        ok = strncmp(real, r, rl) == 0 && strncmp(real + rl, under[i], ul) == 0 &&
             real[rl + ul] != 0;
    }
    if (!ok)
        snprintf(err, errlen,
                 "it names %s, which is not under %s/proc/sys or %s/sys/devices/system/cpu", real,
                 r, r);
    free(croot);
    if (!ok) {
        free(real);
        return NULL;
    }
    return real;
}

int nf_tune_load_state(struct nf_tune *t, const char *path, char *err, size_t errlen)
{
    memset(t, 0, sizeof(*t));
    int none;
    json_t *j = read_state(path, &none, err, errlen);
    if (!j)
        return none ? 0 : -1;
    long pid = (long)json_integer_value(json_object_get(j, "pid"));
    if (holder_alive(pid)) {
        snprintf(err, errlen,
                 "noisefloor pid %ld is still running and will restore its settings "
                 "itself (%s)",
                 pid, path);
        json_decref(j);
        return -1;
    }
    json_t *jroot = json_object_get(j, "root");
    const char *root = jroot ? json_string_value(jroot) : "";
    json_t *entries = json_object_get(j, "entries");
    int rc = 0;
    if (!root) {
        snprintf(err, errlen, "%s is not a noisefloor tuning state file: root is not a string",
                 path);
        rc = -1;
    }
    t->e = nf_xcalloc(json_array_size(entries) + 1, sizeof(*t->e));
    size_t i;
    json_t *e;
    json_array_foreach(entries, i, e)
    {
        if (rc)
            break;
        const char *key = json_string_value(json_object_get(e, "key"));
        const char *p = json_string_value(json_object_get(e, "path"));
        const char *orig = json_string_value(json_object_get(e, "original"));
        const char *value = json_string_value(json_object_get(e, "value"));
        if (!key || !p || !orig) {
            snprintf(err, errlen, "%s: entry %zu lacks key, path or original", path, i + 1);
            rc = -1;
            break;
        }
        char why[NF_ERR_LEN];
        char *real = tunable_path(root, p, why, sizeof(why));
        if (!real) {
            snprintf(err, errlen, "refusing the tuning state file %s: entry %zu (%s): %s", path,
                     i + 1, key, why);
            rc = -1;
            break;
        }
        /* Guarded: the user may have changed the setting since (a state
         * file without the value set is put back as it is). */
        t->e[t->n++] = (struct nf_tune_entry){
            nf_xstrdup(key), real, nf_xstrdup(orig), nf_xstrdup(value ? value : ""), 1,
            value && *value, NULL};
    }
    json_decref(j);
    if (rc) {
        nf_tune_free(t);
        return -1;
    }
    t->state_path = nf_xstrdup(path);
    return 1;
}

int nf_tune_restore_from_state(const char *path, FILE *log, char *err, size_t errlen)
{
    struct nf_tune t;
    int rc = nf_tune_load_state(&t, path, err, errlen);
    if (rc <= 0)
        return rc;
    rc = nf_tune_restore(&t, err, errlen) ? -1 : (int)t.n;
    for (size_t i = 0; log && i < t.n; i++)
        if (t.e[i].found)
            fprintf(log, "left %s at '%s': changed since it was set to '%s' (before: '%s')\n",
                    t.e[i].key, t.e[i].found, t.e[i].value, t.e[i].original);
        else if (!t.e[i].set)
            fprintf(log, "restored %s to '%s'\n", t.e[i].key, t.e[i].original);
    nf_tune_free(&t);
    return rc;
}
