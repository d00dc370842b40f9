/* What an exec of a command's name runs (see spawn_path.h). */
#include "measure/spawn_path.h"

#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An executable regular file at path: 0, or the errno an exec would give. */
static int executable(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno;
    if (!S_ISREG(st.st_mode))
        return EACCES;
    return access(path, X_OK) == 0 ? 0 : errno;
}

/* The last name searched and what it resolved to: a run execs one command
 * many times, and the search costs a stat per PATH entry. */
static char last_name[PATH_MAX], last_path[PATH_MAX];

int nf_spawn_resolve(const char *name, char *out, size_t outlen)
{
    if (!name[0])
        return ENOENT;
    if (strlen(name) >= outlen || strlen(name) >= sizeof(last_name))
        return ENAMETOOLONG;
    if (strcmp(name, last_name) == 0) {
        snprintf(out, outlen, "%s", last_path);
        return 0;
    }
    int e = ENOENT;
    if (strchr(name, '/')) {
        e = executable(name);
        if (!e)
            snprintf(out, outlen, "%s", name);
    } else {
        /* As execvp searches: each entry in turn (an empty one is the
         * current directory), /bin:/usr/bin without PATH; a file that is
         * there but cannot be run is remembered and the search goes on. */
        const char *path = getenv("PATH");
        if (!path)
            path = "/bin:/usr/bin";
        int seen_eacces = 0;
        e = ENOENT;
        for (const char *p = path;; p++) {
            const char *end = strchr(p, ':');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            char cand[PATH_MAX];
            int n = len ? snprintf(cand, sizeof(cand), "%.*s/%s", (int)len, p, name)
                        : snprintf(cand, sizeof(cand), "%s", name);
            if (n > 0 && (size_t)n < sizeof(cand) && (size_t)n < outlen) {
                int ce = executable(cand);
                if (ce == 0) {
                    snprintf(out, outlen, "%s", cand);
                    e = 0;
                    break;
                }
                if (ce == EACCES)
                    seen_eacces = 1;
            }
            if (!end)
                break;
            p = end;
        }
        if (e && seen_eacces)
            e = EACCES;
    }
    if (!e) {
        snprintf(last_name, sizeof(last_name), "%s", name);
        snprintf(last_path, sizeof(last_path), "%s", out);
    }
    return e;
}
