/* core/util: reading a stream up to a limit. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/util.h"

/* A pipe carrying n bytes of 'x' (a writer thread is not needed: the pipe
 * holds 64 KiB, and n stays below that). */
static FILE *pipe_of(size_t n)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    char *b = nf_xmalloc(n + 1);
    memset(b, 'x', n);
    assert_int_equal(write(fds[1], b, n), (ssize_t)n);
    free(b);
    close(fds[1]);
    return fdopen(fds[0], "r");
}

static void test_read_stream_limit(void **st)
{
    (void)st;
    size_t len = 0;
    /* Exactly max: read whole, NUL-terminated. */
    FILE *f = pipe_of(1000);
    char *b = nf_read_stream(f, 1000, &len);
    assert_non_null(b);
    assert_int_equal(len, 1000);
    assert_int_equal(b[999], 'x');
    assert_int_equal(b[1000], 0);
    free(b);
    fclose(f);
    /* One byte more than max (a pipe: only reading can tell). */
    f = pipe_of(1001);
    errno = 0;
    assert_null(nf_read_stream(f, 1000, &len));
    assert_int_equal(errno, EFBIG);
    fclose(f);
    /* A regular file larger than max is refused before reading: a sparse
     * one far larger than memory costs nothing. */
    char path[] = "/tmp/nf-util-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)1 << 40), 0);
    f = fdopen(fd, "r");
    errno = 0;
    assert_null(nf_read_stream(f, (size_t)1 << 30, &len));
    assert_int_equal(errno, EFBIG);
    fclose(f);
    unlink(path);
    /* Empty, and more than the first buffer (64 KiB) in a file. */
    f = pipe_of(0);
    b = nf_read_stream(f, 10, &len);
    assert_non_null(b);
    assert_int_equal(len, 0);
    free(b);
    fclose(f);
    strcpy(path, "/tmp/nf-util-XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    char chunk[4096];
    memset(chunk, 'y', sizeof(chunk));
    for (int i = 0; i < 50; i++)
        assert_int_equal(write(fd, chunk, sizeof(chunk)), (ssize_t)sizeof(chunk));
    lseek(fd, 0, SEEK_SET);
    f = fdopen(fd, "r");
    b = nf_read_stream(f, 50 * sizeof(chunk), &len);
    assert_non_null(b);
    assert_int_equal(len, 50 * sizeof(chunk));
    assert_int_equal(strlen(b), len);
    free(b);
    fclose(f);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_stream_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
