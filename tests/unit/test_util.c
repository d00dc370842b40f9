/* core/util: reading a stream and a file up to a limit. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* nf_read_file: a regular file up to NF_READ_FILE_MAX bytes; a FIFO (with
 * no writer: an open that waits would hang here, so an alarm ends the
 * test), a device (/dev/zero, also behind a symlink) or a larger file is
 * refused without reading it whole.  The real /proc and /sys files, which
 * stat as regular files of size 0 or 4096, still read. */
static void test_read_file_bounded(void **st)
{
    (void)st;
    char dir[] = "/tmp/nf-util-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *fifo = nf_xasprintf("%s/fifo", dir), *zero = nf_xasprintf("%s/zero", dir),
         *big = nf_xasprintf("%s/big", dir), *ok = nf_xasprintf("%s/ok", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(symlink("/dev/zero", zero), 0);
    alarm(20);
    errno = 0;
    assert_null(nf_read_file(fifo));
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_null(nf_read_file(zero));
    assert_int_equal(errno, EINVAL);
    assert_null(nf_read_file("/dev/zero"));
    alarm(0);
    /* A sparse file one byte past the limit, then one at it. */
    int fd = open(big, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, NF_READ_FILE_MAX + 1), 0);
    close(fd);
    errno = 0;
    assert_null(nf_read_file(big));
    assert_int_equal(errno, EFBIG);
    char *b = nf_read_file_max(big, NF_READ_FILE_MAX + 1);
    assert_non_null(b);
    free(b);
    assert_int_equal(truncate(big, NF_READ_FILE_MAX), 0);
    b = nf_read_file(big);
    assert_non_null(b);
    free(b);
    FILE *f = fopen(ok, "w");
    assert_non_null(f);
    fputs("0-3 \n\n", f);
    fclose(f);
    b = nf_read_file(ok);
    assert_string_equal(b, "0-3");
    free(b);
    /* /proc and /sys as they are. */
    b = nf_read_file("/proc/self/stat");
    assert_non_null(b);
    assert_true(strchr(b, ')') != NULL);
    free(b);
    b = nf_read_file("/proc/sys/kernel/pid_max");
    assert_non_null(b);
    assert_true(atol(b) > 0);
    free(b);
    if (access("/sys/devices/system/cpu/online", R_OK) == 0) {
        b = nf_read_file("/sys/devices/system/cpu/online");
        assert_non_null(b);
        assert_true(b[0] >= '0' && b[0] <= '9');
        free(b);
    }
    unlink(fifo);
    unlink(zero);
    unlink(big);
    unlink(ok);
    rmdir(dir);
    free(fifo);
    free(zero);
    free(big);
    free(ok);
}

/* nf_scan_count: a count past blanks, the pointer moved past it; nothing
 * moved when there is none. */
static void test_scan_count(void **st)
{
    (void)st;
    const char *line = " \t62173947 3000000 23\n", *p = line;
    uint64_t v = 0;
    assert_true(nf_scan_count(&p, &v));
    assert_true(v == 62173947);
    assert_true(nf_scan_count(&p, &v));
    assert_true(v == 3000000);
    assert_true(nf_scan_count(&p, &v));
    assert_true(v == 23);
    const char *at = p;
    assert_false(nf_scan_count(&p, &v)); /* the newline */
    assert_ptr_equal(p, at);
    const char *big = "18446744073709551615", *neg = " -1", *q = big;
    assert_true(nf_scan_count(&q, &v));
    assert_true(v == UINT64_MAX);
    assert_ptr_equal(q, big + 20);
    q = neg;
    assert_false(nf_scan_count(&q, &v));
    assert_ptr_equal(q, neg);
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
        {"42", NF_NUM_OK, 42},        {"-1.5e3", NF_NUM_OK, -1500},  {"+.5", NF_NUM_OK, 0.5},
        {"5.", NF_NUM_OK, 5},         {"12abc", NF_NUM_NOT, 0},      {"1,234", NF_NUM_NOT, 0},
        {"1e", NF_NUM_NOT, 0},        {"nan", NF_NUM_NOT, 0},        {"inf", NF_NUM_NOT, 0},
        {"0x10", NF_NUM_NOT, 0},      {" 7", NF_NUM_NOT, 0},         {"", NF_NUM_NOT, 0},
        {"1e999", NF_NUM_LARGE, 0},   {"-1e999", NF_NUM_LARGE, 0},   {"1e-400", NF_NUM_SMALL, 0},
        {"-1e-400", NF_NUM_SMALL, 0}, {"1e-320", NF_NUM_OK, 1e-320}, {"0e-400", NF_NUM_OK, 0},
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
        cmocka_unit_test(test_read_file_bounded),
        cmocka_unit_test(test_scan_count),
        cmocka_unit_test(test_decimal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
