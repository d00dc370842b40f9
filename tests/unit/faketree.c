/* tests/unit/faketree.h */
#include "faketree.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char fake_root[64];

int fake_tree_make(const char *tag)
{
    snprintf(fake_root, sizeof(fake_root), "/tmp/nf-test-%.20s.XXXXXX", tag);
    assert_non_null(mkdtemp(fake_root));
    return 0;
}

void fake_tree_put(const char *rel, const char *text)
{
    char path[4096];
    assert_true(fake_root[0]);
    assert_true((size_t)snprintf(path, sizeof(path), "%s%s", fake_root, rel) < sizeof(path));
    /* mkdir -p of the parent */
    for (char *p = path + strlen(fake_root) + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        mkdir(path, 0755);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int fake_tree_remove(void)
{
    /* depth first, not following links: what is under the tree only */
    assert_int_equal(nftw(fake_root, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
    fake_root[0] = 0;
    return 0;
}
