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

/* nf_decimal: one decimal number filling the span, or which way it
 * fails; the importers and --metric both read numbers with it. */
static void test_decimal(void **st)
{
    (void)st;
    static const struct {
        const char *s;
        int rc;
        double v;
    } cases[] = {
        {"42", NF_NUM_OK, 42},      {"-1.5e3", NF_NUM_OK, -1500}, {"+.5", NF_NUM_OK, 0.5},
        {"5.", NF_NUM_OK, 5},       {"12abc", NF_NUM_NOT, 0},     {"1,234", NF_NUM_NOT, 0},
        {"1e", NF_NUM_NOT, 0},      {"nan", NF_NUM_NOT, 0},       {"inf", NF_NUM_NOT, 0},
        {"0x10", NF_NUM_NOT, 0},    {" 7", NF_NUM_NOT, 0},        {"", NF_NUM_NOT, 0},
        {"1e999", NF_NUM_LARGE, 0}, {"-1e999", NF_NUM_LARGE, 0},  {"1e-400", NF_NUM_SMALL, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double v = -7;
        int rc = nf_decimal(cases[i].s, strlen(cases[i].s), &v);
        if (rc != cases[i].rc)
            fail_msg("'%s': %d, want %d", cases[i].s, rc, cases[i].rc);
        if (rc == NF_NUM_OK && v != cases[i].v)
            fail_msg("'%s': %g", cases[i].s, v);
    }
    /* a span, not a C string: what follows it does not count */
    double v;
    assert_int_equal(nf_decimal("3.25xyz", 4, &v), NF_NUM_OK);
    assert_true(v == 3.25);
    /* any number of digits */
    char many[200];
    memset(many, '1', sizeof(many) - 1);
    many[sizeof(many) - 1] = 0;
    many[1] = '.';
    assert_int_equal(nf_decimal(many, strlen(many), &v), NF_NUM_OK);
    assert_true(v > 1.11 && v < 1.12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_stream_limit),
        cmocka_unit_test(test_decimal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
