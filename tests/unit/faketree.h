/* A fake root directory for the readers of /proc and /sys that take one
 * (measure/env.h, measure/sysstat.h, doctor's --root): made in a test's
 * setup, written file by file, removed in its teardown.  Shared by the
 * unit tests (tests/unit/faketree.c, linked into them; not a library). */
#ifndef NF_TESTS_FAKETREE_H
#define NF_TESTS_FAKETREE_H

/* The root of the tree being built ("/tmp/nf-test-TAG.XXXXXX"); empty
 * before fake_tree_make. */
extern char fake_root[64];

/* Make a new empty tree under /tmp, named after tag; 0 (a cmocka setup). */
int fake_tree_make(const char *tag);
/* Write text to rel ("/proc/stat") under the tree, making its
 * directories; truncates a file that is there (the same inode, so a
 * reader that keeps it open reads the new text). */
void fake_tree_put(const char *rel, const char *text);
/* Remove the tree and all in it; 0 (a cmocka teardown). */
int fake_tree_remove(void);

#endif
