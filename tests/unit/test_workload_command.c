/* -- COMMAND: what --metric NAME=REGEX accepts and captures; what starting
 * the command leaves of ours (stdio, fds) after many repetitions; counters
 * that count the command. */
#include <dirent.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "measure/capture.h"
#include "measure/runner.h"
#include "measure/runner_cmd.h"
#include "measure/runspec.h"

static void test_capture_value(void **state)
{
    (void)state;
    double v = 0;
    assert_int_equal(nf_capture_value("time: ([0-9.]+)", "x\ntime: 1.25 s\n", &v), 0);
    assert_true(v == 1.25);
    /* The group is one number as a whole, blanks around it aside. */
    assert_int_equal(nf_capture_value("delta=([^u]*)", "delta= -3.5e2 units", &v), 0);
    assert_true(v == -350);
    assert_int_equal(nf_capture_value("v=(.*)", "v=.5", &v), 0);
    assert_true(v == 0.5);
    assert_int_equal(nf_capture_value("v=(.*)", "v=+7.", &v), 0);
    assert_true(v == 7);
    assert_int_equal(nf_capture_value("v=(.*)", "v=1E+3\t", &v), 0);
    assert_true(v == 1000);
    /* Anything else in the group is not taken to be a number. */
    v = 42;
    assert_int_equal(nf_capture_value("(took .*)", "it took about 12ms, or 13", &v), -1);
    assert_int_equal(nf_capture_value("delta=(.*)", "delta=-3.5e2 units", &v), -1);
    const char *not_numbers[] = {"12abc", "1,234", "v=1",  "1e",  "1e+", ".",     "-",
                                 "+.e1",  "1 2",   "0x10", "inf", "nan", "1.2.3", "--1"};
    for (size_t i = 0; i < sizeof(not_numbers) / sizeof(not_numbers[0]); i++)
        assert_int_equal(nf_capture_value("^(.*)$", not_numbers[i], &v), -1);
    /* Nor is a number a double cannot hold (not 999 or -400, not inf or 0). */
    assert_int_equal(nf_capture_value("^(.*)$", "1e999", &v), -1);
    assert_int_equal(nf_capture_value("^(.*)$", "-1e999", &v), -1);
    assert_int_equal(nf_capture_value("^(.*)$", "1e-400", &v), -1);
    assert_true(v == 42);
    /* Digits past what a double keeps are fine. */
    assert_int_equal(nf_capture_value("^(.*)$",
                                      "1.00000000000000000000000000000000000000000000"
                                      "000000000000000000000000000000000000000000000"
                                      "00000000000000000000000000000000000000000001",
                                      &v),
                     0);
    assert_true(v == 1);
    /* The first match counts. */
    assert_int_equal(nf_capture_value("rps ([0-9]+)", "rps 10\nrps 20\n", &v), 0);
    assert_true(v == 10);
    /* Misses: no match, or no number in the group. */
    assert_int_equal(nf_capture_value("time: ([0-9.]+)", "nothing here", &v), -1);
    assert_int_equal(nf_capture_value("name: (.*)", "name: none", &v), -1);
    assert_int_equal(nf_capture_value("(x)", "", &v), -1);
}

static void test_capture_check(void **state)
{
    (void)state;
    char err[256];
    assert_int_equal(nf_capture_check("rps", "rps: ([0-9]+)", err, sizeof(err)), 0);
    assert_int_equal(nf_capture_check("rps", "rps: [0-9]+", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "needs a group"));
    assert_int_equal(nf_capture_check("rps", "rps: ([0-9]+", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "bad regular expression"));
    assert_int_equal(nf_capture_check("wall", "(1)", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "already a metric"));
    /* Bounds: nesting (counted outside brackets and escapes), length. */
    char re[NF_CAPTURE_MAX_LEN + 2];
    memset(re, '(', 65);
    strcpy(re + 65, "1");
    memset(re + 66, ')', 65);
    re[131] = 0;
    assert_int_equal(nf_capture_check("x", re, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "nests groups 65 deep (at most 64)"));
    assert_int_equal(nf_capture_check("x", re + 1, err, sizeof(err)), 0);
    assert_int_equal(nf_capture_check("x", "([(((]\\(\\([[:digit:]]+)", err, sizeof(err)), 0);
    memset(re, 'a', sizeof(re) - 1);
    re[0] = '(';
    re[2] = ')';
    re[sizeof(re) - 1] = 0;
    assert_int_equal(nf_capture_check("x", re, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "4097 bytes long (at most 4096)"));
    re[NF_CAPTURE_MAX_LEN] = 0;
    assert_int_equal(nf_capture_check("x", re, err, sizeof(err)), 0);
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Run `argv` (a run command line) for its repetitions; the run is returned. */
static struct nf_run *run_reps(int argc, char **argv, enum nf_rep_status want, char *err,
                               size_t errlen)
{
    struct nf_runspec spec;
    int help = 0;
    assert_int_equal(nf_runspec_parse(&spec, argc, argv, &help, err, errlen), 0);
    struct nf_run *run = nf_run_new("t", "command");
    nf_runner_declare(&spec, run);
    for (int i = 0; i < spec.repeat; i++)
        assert_int_equal(nf_runner_rep(&spec, run, 1, err, errlen), want);
    nf_runspec_free(&spec);
    return run;
}

/* The child's dup2s land in its own fd table, never in ours, and nothing of
 * the child's (counters, pipes, /dev/null) stays open here. */
static void test_our_fds_untouched(void **state)
{
    (void)state;
    struct stat before[3], after[3];
    for (int fd = 0; fd < 3; fd++)
        assert_int_equal(fstat(fd, &before[fd]), 0);
    int nfds = open_fds();
    char err[512] = "";
    char *counted[] = {"run", "-r", "200", "--", "/bin/true", NULL};
    nf_run_free(run_reps(5, counted, NF_REP_OK, err, sizeof(err)));
    char *bare[] = {"run", "-r", "50", "--metric", "x=x([0-9])", "--", "/bin/echo", "x7", NULL};
    nf_run_free(run_reps(8, bare, NF_REP_OK, err, sizeof(err)));
    char *missing[] = {"run", "-r", "20", "--", "/nonexistent/nf-cmd", NULL};
    nf_run_free(run_reps(5, missing, NF_REP_FAILED, err, sizeof(err)));
    assert_string_equal(err, "cannot run '/nonexistent/nf-cmd': No such file or directory");
    for (int fd = 0; fd < 3; fd++) {
        assert_int_equal(fstat(fd, &after[fd]), 0);
        assert_true(after[fd].st_dev == before[fd].st_dev && after[fd].st_ino == before[fd].st_ino);
        assert_int_equal(after[fd].st_mode, before[fd].st_mode);
    }
    assert_int_equal(open_fds(), nfds);
}

/* The counters count the command from its exec on: true faults its pages
 * in and runs for some time.  (Skipped where counters are denied.) */
static void test_counters_count_the_command(void **state)
{
    (void)state;
    char err[512] = "";
    char *argv[] = {"run", "-r", "3", "-e", "task-clock,page-faults", "--", "/bin/true", NULL};
    struct nf_run *run = run_reps(7, argv, NF_REP_OK, err, sizeof(err));
    struct nf_metric *tc = nf_run_find(run, "task-clock"), *pf = nf_run_find(run, "page-faults");
    assert_non_null(tc);
    assert_non_null(pf);
    if (tc->n == 0) {
        nf_run_free(run);
        skip();
    }
    assert_int_equal(tc->n, 3);
    assert_int_equal(pf->n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_true(tc->values[i] > 0);
        assert_true(pf->values[i] > 0);
    }
    struct nf_metric *wall = nf_run_find(run, "wall");
    assert_int_equal(wall->n, 3);
    assert_true(wall->values[0] > 0 && wall->values[0] < 10);
    nf_run_free(run);
}

static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        assert_true(w > 0);
        buf += w;
        len -= (size_t)w;
    }
}

/* total bytes of 16-byte lines ("xxx...x\n"), the line "result 12345"
 * across the end of the part kept first, and "last 7" the last line. */
static char *long_output(size_t total, size_t *result_at)
{
    char *buf = malloc(total);
    assert_non_null(buf);
    for (size_t i = 0; i < total; i++)
        buf[i] = i % 16 == 15 ? '\n' : 'x';
    size_t q = NF_OUTPUT_MAX - 9; /* "result 12" | "345" */
    buf[q - 1] = '\n';
    memcpy(buf + q, "result 12345\n", 13);
    buf[total - 8] = '\n';
    memcpy(buf + total - 7, "last 7\n", 7);
    *result_at = q;
    return buf;
}

/* Output past NF_OUTPUT_MAX + NF_OUTPUT_LAST: its first lines and its last
 * ones are kept,
 * whole (a line the limit cuts, such as "result 12|345", is left out, not
 * read as 12), and a --metric that finds nothing says the output was cut
 * and how much there was. */
static void test_output_cut(void **state)
{
    (void)state;
    struct nf_output o;
    char err[1024];
    assert_int_equal(nf_output_open(&o, 1, err, sizeof(err)), 0);

    /* Exactly the limit: all of it. */
    size_t at, total = NF_OUTPUT_MAX + NF_OUTPUT_LAST;
    char *buf = long_output(total, &at);
    write_all(o.out, buf, total);
    nf_output_collect(&o);
    assert_int_equal(o.cut, 0);
    assert_int_equal(o.n, total);
    assert_memory_equal(o.text, buf, total);
    free(buf);

    /* 3 MiB and 5 bytes more: the end starts within a line. */
    total = NF_OUTPUT_MAX + (3u << 20) + 5;
    buf = long_output(total, &at);
    write_all(o.out, buf, total);
    nf_output_collect(&o);
    assert_int_equal(o.cut, 1);
    assert_true(o.written == total);
    assert_true(o.n <= NF_OUTPUT_MAX + NF_OUTPUT_LAST && o.n > NF_OUTPUT_MAX + NF_OUTPUT_LAST - 64);
    assert_int_equal(o.text[o.n], 0);
    assert_memory_equal(o.text, buf, at); /* the first lines, up to "result" */
    size_t rest = o.n - at;               /* the last lines, from a line's start */
    assert_true(rest <= NF_OUTPUT_LAST && rest > NF_OUTPUT_LAST - 16);
    assert_int_equal(buf[total - rest - 1], '\n');
    assert_memory_equal(o.text + at, buf + total - rest, rest);
    assert_null(strstr(o.text, "result"));
    struct nf_capture caps[2] = {{.name = "last", .regex = "^last ([0-9]+)$"},
                                 {.name = "r", .regex = "^result ([0-9]+)$"}};
    double v[2];
    assert_int_equal(nf_output_captures(&o, caps, 1, "cmd", v, err, sizeof(err)), 0);
    assert_true(v[0] == 7);
    assert_int_equal(nf_output_captures(&o, caps, 2, "cmd", v, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "--metric r: /^result ([0-9]+)$/ found no number in the output "
                                "of 'cmd', which was cut: it wrote 19.0 MiB, of which the "
                                "first 16 MiB and the last 1 MiB are searched\n"));
    free(buf);

    /* The end starting at a line's start keeps that line. */
    total = NF_OUTPUT_MAX + (3u << 20);
    buf = long_output(total, &at);
    write_all(o.out, buf, total);
    nf_output_collect(&o);
    assert_int_equal(o.cut, 1);
    assert_int_equal(o.n, at + NF_OUTPUT_LAST);
    assert_memory_equal(o.text + at, buf + total - NF_OUTPUT_LAST, NF_OUTPUT_LAST);
    free(buf);

    /* The next repetition's output is its own. */
    write_all(o.out, "last 3\n", 7);
    nf_output_collect(&o);
    assert_int_equal(o.cut, 0);
    assert_string_equal(o.text, "last 3\n");
    assert_int_equal(nf_output_captures(&o, caps, 1, "cmd", v, err, sizeof(err)), 0);
    assert_true(v[0] == 3);
    nf_output_close(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture_value),     cmocka_unit_test(test_capture_check),
        cmocka_unit_test(test_our_fds_untouched), cmocka_unit_test(test_counters_count_the_command),
        cmocka_unit_test(test_output_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
