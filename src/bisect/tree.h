/* A revision's worktree, its build, and the SPEC run in it (bisect/tree.c).
 * Internal to src/bisect/. */
#ifndef NF_BISECT_TREE_H
#define NF_BISECT_TREE_H

#include <stddef.h>

#include "bisect/state.h"
#include "measure/variant.h"

/* The worktree of sha exists and is built (recorded in the state, saved):
 * 1 built, 0 the build failed (a skip), -1 with one line in err.  The
 * build is `/bin/sh -c BUILD` in the worktree, its output in
 * dir/build-<sha>.log; *built counts the builds made by this call.
 * NF_BTREE_STOPPED: a stop signal ended it, nothing recorded. */
enum { NF_BTREE_STOPPED = -3 }; /* a stop signal came (measure/repetition.h) */
int nf_btree_ensure(struct nf_bstate *s, const char *sha, int progress, size_t *built, char *err,
                    size_t errlen);

/* The variant that measures sha: its label the sha's first 12 digits, its
 * spec the SPEC with every {tree} the worktree's path.  0, or NF_EINPUT with
 * one line (the SPEC does not parse).  nf_variants_free(v, 1) follows. */
int nf_btree_variant(const struct nf_bstate *s, const char *sha, const char *tree,
                     struct nf_variant **v, char *err, size_t errlen);

#endif
