/* tree.c — worktrees, builds and the SPEC of a revision (bisect/tree.h). */
#include "bisect/tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bisect/bisect.h"
#include "bisect/git.h"
#include "core/util.h"
#include "measure/repetition.h"
#include "measure/spawn.h"

void nf_bisect_tree(const struct nf_bstate *s, const char *sha, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s/wt/%s", s->dir, sha);
}

/* /bin/sh -c BUILD in tree, stdout and stderr into log: 0 it exited 0; 1 it
 * failed (why in err); -1 could not run. */
static int run_build(const char *build, const char *tree, const char *log, char *err, size_t errlen)
{
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %.300s: %s", log, strerror(errno));
        return -1;
    }
    char *const argv[] = {"/bin/sh", "-c", (char *)build, NULL};
    struct nf_spawn c = {
        .argv = argv, .dir = tree, .out = fd, .err = fd, .name = "build", .stop = &nf_stop_signal};
    int w = -1, r = -1;
    if (nf_spawn_start(&c, err, errlen) == 0)
        w = nf_spawn_wait(&c, NULL, 0, NULL, NULL, err, errlen);
    nf_spawn_end(&c, w != NF_SPAWN_EXITED);
    nf_spawn_release(&c, 0);
    close(fd);
    if (w == NF_SPAWN_EXITED && c.reaped) {
        if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0)
            return 0;
        if (WIFEXITED(c.status))
            snprintf(err, errlen, "exit status %d", WEXITSTATUS(c.status));
        else
            snprintf(err, errlen, "killed by signal %d", WTERMSIG(c.status));
        return 1;
    }
    if (w >= 0)
        snprintf(err, errlen, "the build was stopped");
    return r;
}

int nf_btree_ensure(struct nf_bstate *s, const char *sha, int progress, size_t *built, char *err,
                    size_t errlen)
{
    char tree[4200], log[4200], e[NF_ERR_LEN];
    struct stat sb;
    nf_bisect_tree(s, sha, tree, sizeof(tree));
    const struct nf_bbuild *b = nf_bstate_build(s, sha);
    if (b && (!b->ok || stat(tree, &sb) == 0))
        return b->ok;
    snprintf(log, sizeof(log), "%s/wt", s->dir);
    if (mkdir(s->dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %.300s: %s", s->dir, strerror(errno));
        return -1;
    }
    if (mkdir(log, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %.300s: %s", log, strerror(errno));
        return -1;
    }
    if (progress)
        fprintf(stderr, "bisect: %s %.12s\n", s->build ? "building" : "checking out", sha);
    if (nf_git_worktree_add(s->repo, tree, sha, e, sizeof(e))) {
        /* a tree left by an interrupted checkout that git does not know */
        nf_rmtree(tree);
        if (nf_git_worktree_add(s->repo, tree, sha, err, errlen))
            return -1;
    }
    int ok = 1;
    if (s->build) {
        snprintf(log, sizeof(log), "%s/build-%.12s.log", s->dir, sha);
        int r = run_build(s->build, tree, log, e, sizeof(e));
        if (nf_stop_signal) /* stopped, not failed: built again on resuming */
            return NF_BTREE_STOPPED;
        if (r < 0) {
            snprintf(err, errlen, "build of %.12s: %.400s", sha, e);
            return -1;
        }
        ok = r == 0;
        if (!ok)
            snprintf(err, errlen, "the build failed at %.12s (%s); its output: %.200s", sha, e,
                     log);
        if (built)
            (*built)++;
    }
    nf_bstate_set_build(s, sha, ok);
    char e2[NF_ERR_LEN];
    if (nf_bstate_save(s, e2, sizeof(e2))) {
        snprintf(err, errlen, "%s", e2);
        return -1;
    }
    return ok;
}

/* word with every {tree} replaced by tree (malloc'd) */
static char *subst(const char *word, const char *tree)
{
    static const char key[] = "{tree}";
    size_t n = 0, tl = strlen(tree);
    for (const char *p = strstr(word, key); p; p = strstr(p + 6, key))
        n++;
    char *out = nf_xcalloc(strlen(word) + n * tl + 1, 1), *o = out;
    for (const char *p = word;;) {
        const char *q = strstr(p, key);
        if (!q) {
            strcpy(o, p);
            break;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, tree, tl);
        o += tl;
        p = q + 6;
    }
    return out;
}

int nf_btree_variant(const struct nf_bstate *s, const char *sha, const char *tree,
                     struct nf_variant **vp, char *err, size_t errlen)
{
    struct nf_variant *v = nf_xcalloc(1, sizeof(*v));
    *vp = v;
    char label[16];
    snprintf(label, sizeof(label), "%.12s", sha);
    v->name = nf_xstrdup(label);
    v->words = nf_xcalloc(s->nspec + 2, sizeof(char *));
    v->words[0] = nf_xstrdup("bisect");
    for (size_t i = 0; i < s->nspec; i++)
        v->words[i + 1] = subst(s->spec[i], tree);
    int help = 0;
    char e[NF_ERR_LEN];
    if (nf_runspec_parse(&v->spec, (int)s->nspec + 1, v->words, &help, e, sizeof(e)) || help) {
        snprintf(err, errlen, "SPEC: %s", help ? "--help is not a SPEC" : e);
        return NF_EINPUT;
    }
    return 0;
}
