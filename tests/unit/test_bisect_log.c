/* test_bisect_log.c — a bisect log read back for replay
 * (src/bisect/print.c, nf_bisect_read_log; doc/noisefloor-bisect.1,
 * replay): its start line, its good, bad and skip lines in order, none
 * with --remeasure, and one line for a file that is not a log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bisect/print.h"
#include "core/util.h"

/* text as a file of its own; its name in path[len]. */
static void write_log(char *path, size_t len, const char *text)
{
    snprintf(path, len, "/tmp/nf-test-bisect-log.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char log_text[] =
    "# noisefloor bisect log (noisefloor bisect replay FILE re-runs it)\n"
    "noisefloor bisect start --good g1 --bad b1 --threshold 1 --alpha 0.05 -- pipe -l 200\n"
    "# endpoint check: BAD vs GOOD +5.00%, 10 rounds: bad\n"
    "\n"
    "# good: [c1] one (8 rounds, +0.10% vs GOOD)\n"
    "good c1\n"
    "skip c2\n"
    "bad c3\n";

static void test_marks(void **state)
{
    (void)state;
    char path[64], err[NF_ERR_LEN], *start;
    struct nf_bmark *marks;
    size_t n;
    write_log(path, sizeof(path), log_text);
    assert_int_equal(nf_bisect_read_log(path, 0, &start, &marks, &n, err, sizeof(err)), 0);
    assert_string_equal(start, "noisefloor bisect start --good g1 --bad b1 --threshold 1 "
                               "--alpha 0.05 -- pipe -l 200");
    assert_int_equal(n, 3);
    assert_string_equal(marks[0].sha, "c1");
    assert_int_equal(marks[0].what, 'g');
    assert_string_equal(marks[1].sha, "c2");
    assert_int_equal(marks[1].what, 's');
    assert_string_equal(marks[2].sha, "c3");
    assert_int_equal(marks[2].what, 'b');
    free(start);
    free(marks);
    /* --remeasure: the start line only */
    assert_int_equal(nf_bisect_read_log(path, 1, &start, &marks, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 0);
    assert_null(marks);
    assert_non_null(start);
    free(start);
    unlink(path);
}

static void test_not_a_log(void **state)
{
    (void)state;
    char path[64], err[NF_ERR_LEN], want[NF_ERR_LEN], *start;
    struct nf_bmark *marks;
    size_t n;
    write_log(path, sizeof(path), "noisefloor bisect start --good a --bad b -- x\nmaybe c1\n");
    assert_int_equal(nf_bisect_read_log(path, 0, &start, &marks, &n, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s:2: 'maybe c1' is not 'good REV', 'bad REV' or 'skip REV'",
             path);
    assert_string_equal(err, want);
    assert_null(start);
    assert_null(marks);
    unlink(path);

    write_log(path, sizeof(path), "good c1\n");
    assert_int_equal(nf_bisect_read_log(path, 0, &start, &marks, &n, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s has no 'noisefloor bisect start' line", path);
    assert_string_equal(err, want);
    unlink(path);

    assert_int_equal(nf_bisect_read_log(path, 0, &start, &marks, &n, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "cannot read %s", path);
    assert_string_equal(err, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_marks),
        cmocka_unit_test(test_not_a_log),
    };
    return cmocka_run_group_tests_name("bisect_log", tests, NULL, NULL);
}
