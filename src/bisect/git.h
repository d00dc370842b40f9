/* git for the bisection driver: every call is the git CLI started on the
 * spawn seam (measure/spawn.h, nf_run_capture), argv-exec'd, never through a
 * shell.  What a bisection owns lives under one directory of ours inside the
 * repository's git directory, <git-common-dir>/noisefloor-bisect/: the
 * state file and one detached worktree per revision built.  The user's work
 * tree, index and branches are never touched. */
#ifndef NF_BISECT_GIT_H
#define NF_BISECT_GIT_H

#include <stddef.h>

#define NF_SHA_LEN 40

/* Run `git -C repo ARGS...` (args NULL-terminated).  0 with its stdout in
 * out (trailing newlines removed); -1 with one line in err (git's last line
 * of stderr) when it failed or exited non-zero; *status its wait status
 * (NULL: not wanted). */
int nf_git(const char *repo, const char *const *args, char *out, size_t outlen, int *status,
           char *err, size_t errlen);

/* The top of the work tree of dir (git rev-parse --show-toplevel) and our
 * directory (<git-common-dir>/noisefloor-bisect, absolute).  0, or
 * NF_EINPUT with "DIR is not a git repository". */
int nf_git_repo(const char *dir, char *top, size_t toplen, char *ours, size_t ourslen, char *err,
                size_t errlen);

/* The full sha of a revision (rev^{commit}): 0, or NF_EINPUT with
 * "unknown revision 'REV'". */
int nf_git_sha(const char *repo, const char *rev, char sha[NF_SHA_LEN + 1], char *err,
               size_t errlen);

/* 1 when a is an ancestor of b (or b itself), 0 when not, -1 on failure. */
int nf_git_is_ancestor(const char *repo, const char *a, const char *b, char *err, size_t errlen);

/* The subject line of a commit into out ("" when it cannot be read). */
void nf_git_subject(const char *repo, const char *sha, char *out, size_t outlen);

/* The first parent of sha: 0, or -1 (a root commit). */
int nf_git_parent(const char *repo, const char *sha, char parent[NF_SHA_LEN + 1], char *err,
                  size_t errlen);

/* The revisions that may still be the first bad one: reachable from bad and
 * from none of good[0..ngood) (git rev-list bad --not good...), counted into
 * *count; and the one git would test next, the best halving not in
 * skip[0..nskip) (git rev-list --bisect-all: merges and non-linear history
 * as git bisect sees them), into next ("" when every candidate but bad
 * itself is skipped or none is left).  0, or -1 with one line in err. */
int nf_git_next(const char *repo, const char *bad, const char *const *good, size_t ngood,
                const char *const *skip, size_t nskip, size_t *count, char next[NF_SHA_LEN + 1],
                char *err, size_t errlen);

/* A detached worktree of sha at path (an older one there is removed
 * first); remove one (git worktree remove --force, then prune). */
int nf_git_worktree_add(const char *repo, const char *path, const char *sha, char *err,
                        size_t errlen);
int nf_git_worktree_remove(const char *repo, const char *path, char *err, size_t errlen);

#endif
