/* git.c — the git CLI on the spawn seam (bisect/git.h). */
#include "bisect/git.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/util.h"
#include "measure/spawn.h"

#define GIT_MAX_ARGS 256
#define GIT_TIMEOUT 600.0 /* seconds: a worktree of a large tree takes a while */

int nf_git(const char *repo, const char *const *args, char *out, size_t outlen, int *status,
           char *err, size_t errlen)
{
    const char *argv[GIT_MAX_ARGS + 4] = {"git", "-C", repo};
    size_t n = 3;
    for (size_t i = 0; args[i]; i++) {
        if (n >= GIT_MAX_ARGS + 3) {
            snprintf(err, errlen, "git: too many arguments");
            return -1;
        }
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    int st = 0;
    char e[NF_ERR_LEN];
    if (nf_run_capture((char *const *)argv, NULL, GIT_TIMEOUT, out, outlen, &st, e, sizeof(e))) {
        snprintf(err, errlen, "%s", e);
        return -1;
    }
    if (status)
        *status = st;
    if (out && outlen) {
        size_t l = strlen(out);
        while (l && (out[l - 1] == '\n' || out[l - 1] == '\r'))
            out[--l] = 0;
    }
    if (st != 0) {
        snprintf(err, errlen, "git %s: %s", args[0], e);
        return -1;
    }
    return 0;
}

int nf_git_repo(const char *dir, char *top, size_t toplen, char *ours, size_t ourslen, char *err,
                size_t errlen)
{
    char e[NF_ERR_LEN], common[PATH_MAX];
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "%s is not a directory", dir);
        return NF_EINPUT;
    }
    if (nf_git(dir, (const char *[]){"rev-parse", "--show-toplevel", NULL}, top, toplen, NULL, e,
               sizeof(e)) ||
        nf_git(dir, (const char *[]){"rev-parse", "--git-common-dir", NULL}, common, sizeof(common),
               NULL, e, sizeof(e))) {
        snprintf(err, errlen, "%s is not a git repository (or not a work tree of one)", dir);
        return NF_EINPUT;
    }
    /* --git-common-dir may be relative to dir */
    char path[PATH_MAX * 2], abs[PATH_MAX];
    if (common[0] == '/')
        snprintf(path, sizeof(path), "%s", common);
    else
        snprintf(path, sizeof(path), "%s/%s", dir, common);
    if (!realpath(path, abs)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    snprintf(ours, ourslen, "%s/noisefloor-bisect", abs);
    return 0;
}

int nf_git_sha(const char *repo, const char *rev, char sha[NF_SHA_LEN + 1], char *err,
               size_t errlen)
{
    char spec[512], out[128], e[NF_ERR_LEN];
    if (!rev[0] || rev[0] == '-') {
        snprintf(err, errlen, "unknown revision '%s'", rev);
        return NF_EINPUT;
    }
    snprintf(spec, sizeof(spec), "%s^{commit}", rev);
    if (nf_git(repo, (const char *[]){"rev-parse", "--verify", "--quiet", spec, NULL}, out,
               sizeof(out), NULL, e, sizeof(e)) ||
        strlen(out) != NF_SHA_LEN) {
        snprintf(err, errlen, "unknown revision '%s'", rev);
        return NF_EINPUT;
    }
    memcpy(sha, out, NF_SHA_LEN + 1);
    return 0;
}

int nf_git_is_ancestor(const char *repo, const char *a, const char *b, char *err, size_t errlen)
{
    int st = 0;
    char e[NF_ERR_LEN];
    int r = nf_git(repo, (const char *[]){"merge-base", "--is-ancestor", a, b, NULL}, NULL, 0, &st,
                   e, sizeof(e));
    if (r == 0)
        return 1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
        return 0;
    snprintf(err, errlen, "%s", e);
    return -1;
}

void nf_git_subject(const char *repo, const char *sha, char *out, size_t outlen)
{
    char e[NF_ERR_LEN];
    if (nf_git(repo, (const char *[]){"log", "-1", "--format=%s", sha, "--", NULL}, out, outlen,
               NULL, e, sizeof(e)))
        out[0] = 0;
}

int nf_git_parent(const char *repo, const char *sha, char parent[NF_SHA_LEN + 1], char *err,
                  size_t errlen)
{
    char spec[NF_SHA_LEN + 8];
    snprintf(spec, sizeof(spec), "%s^1", sha);
    return nf_git_sha(repo, spec, parent, err, errlen) ? -1 : 0;
}

static int in_list(const char *s, const char *const *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, l[i]) == 0)
            return 1;
    return 0;
}

int nf_git_next(const char *repo, const char *bad, const char *const *good, size_t ngood,
                const char *const *skip, size_t nskip, size_t *count, char next[NF_SHA_LEN + 1],
                char *err, size_t errlen)
{
    size_t na = 4 + ngood;
    const char **args = nf_xcalloc(na + 1, sizeof(*args));
    size_t k = 0;
    args[k++] = "rev-list";
    args[k++] = "--bisect-all";
    args[k++] = bad;
    args[k++] = "--not";
    for (size_t i = 0; i < ngood; i++)
        args[k++] = good[i];
    size_t outlen = 1 << 22;
    char *out = nf_xcalloc(outlen, 1);
    int r = -1;
    if (k > GIT_MAX_ARGS) {
        snprintf(err, errlen, "git rev-list: too many good revisions (%zu)", ngood);
        goto out;
    }
    if (nf_git(repo, args, out, outlen, NULL, err, errlen))
        goto out;
    /* "SHA (dist=N)" per line, the best halving first */
    *count = 0;
    next[0] = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        if (strlen(line) < NF_SHA_LEN)
            continue;
        line[NF_SHA_LEN] = 0;
        (*count)++;
        if (!next[0] && strcmp(line, bad) != 0 && !in_list(line, skip, nskip))
            memcpy(next, line, NF_SHA_LEN + 1);
    }
    r = 0;
out:
    free(out);
    free(args);
    return r;
}

int nf_git_worktree_remove(const char *repo, const char *path, char *err, size_t errlen)
{
    char e[NF_ERR_LEN];
    struct stat sb;
    int r = 0;
    if (stat(path, &sb) == 0 &&
        nf_git(repo, (const char *[]){"worktree", "remove", "--force", "--force", path, NULL}, NULL,
               0, NULL, e, sizeof(e))) {
        snprintf(err, errlen, "%s", e);
        r = -1;
    }
    nf_git(repo, (const char *[]){"worktree", "prune", NULL}, NULL, 0, NULL, e, sizeof(e));
    return r;
}

int nf_git_worktree_add(const char *repo, const char *path, const char *sha, char *err,
                        size_t errlen)
{
    char e[NF_ERR_LEN];
    nf_git_worktree_remove(repo, path, e, sizeof(e));
    if (nf_git(
            repo,
            (const char *[]){"worktree", "add", "--detach", "--force", "--quiet", path, sha, NULL},
            NULL, 0, NULL, e, sizeof(e))) {
        snprintf(err, errlen, "cannot make a worktree of %.12s: %s", sha, e);
        return -1;
    }
    return 0;
}
