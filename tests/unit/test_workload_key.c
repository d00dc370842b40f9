/* The key by which compare tells a built-in workload's configurations
 * apart (nf_workload_key, workload/parse.c): the same for the same
 * configuration however it was typed; a run's words kept where they do
 * not parse, and for commands. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/util.h"
#include "workload/workload.h"

static char *join(char **w, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(w[i]) + 1;
    char *s = nf_xcalloc(len, 1);
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, w[i]);
    }
    return s;
}

/* The key of the words (after the workload's name), joined; "TEXT" when
 * they do not parse (the caller keeps the words). */
static char *key_of(const char *wl, ...)
{
    char *args[32];
    size_t n = 0;
    va_list ap;
    va_start(ap, wl);
    for (char *w; (w = va_arg(ap, char *)) != NULL;)
        args[n++] = w;
    va_end(ap);
    const struct nf_workload *w = nf_workload_find(wl);
    assert_non_null(w);
    char **key = NULL;
    size_t nkey = 0;
    if (nf_workload_key(w, n, args, &key, &nkey) != 0)
        return nf_xstrdup("TEXT");
    char *s = join(key, nkey);
    /* A key is a fixed point: its words have the same key. */
    char **again = NULL;
    size_t nagain = 0;
    assert_int_equal(nf_workload_key(w, nkey, key, &again, &nagain), 0);
    char *t = join(again, nagain);
    assert_string_equal(s, t);
    free(t);
    nf_free_words(again);
    nf_free_words(key);
    return s;
}

#define assert_key(want, ...)                                                                      \
    do {                                                                                           \
        char *got_ = key_of(__VA_ARGS__, NULL);                                                    \
        assert_string_equal(got_, want);                                                           \
        free(got_);                                                                                \
    } while (0)

static void test_workload_keys(void **state)
{
    (void)state;
    assert_key("-l 20000 -T", "pipe", "-l", "20000", "-T");
    assert_key("-l 20000 -T", "pipe", "-T", "-l", "20000");
    assert_key("-l 20000 -T", "pipe", "--loop=20000", "--threaded");
    assert_key("-l 20000 -T", "pipe", "-Tl20000");
    assert_key("", "pipe");
    assert_key("", "pipe", "-l", "1000000"); /* the default */
    assert_key("TEXT", "pipe", "--gone");    /* an option a later version dropped */
    assert_key("TEXT", "pipe", "-l", "0");
    assert_key("TEXT", "pipe", "stray");
    assert_key("TEXT", "pipe", "--help");
    assert_key("-p -t", "messaging", "-tp");
    assert_key("-g 4 -s 200", "messaging", "--datasize=200", "-g", "4", "-f", "20");
    assert_key("-m 64,1024", "netsend", "-m", "064,1024", "-P", "udp", "-d", "5");
    assert_key("-m 1024,64", "netsend", "--sizes", "1024,64"); /* the first is the primary */
    assert_key("-P tcp -d 0.5", "netsend", "-d", ".5", "--proto=tcp");
    assert_key("-r 0.5", "wakeup", "-r", "0.50");
    /* timer's parse completes the priority of --policy fifo. */
    assert_key("--policy fifo --prio 2", "timer", "--policy", "fifo");
    assert_key("--policy fifo --prio 2", "timer", "--prio", "2", "--policy=fifo");
    assert_key("-i 500", "timer", "-i", "500", "-l", "2000", "--policy", "other");
}

/* The loader's pass: runs of built-in workloads get their key; a
 * command's words, and words that no longer parse, stay the key. */
static void test_key_runs(void **state)
{
    (void)state;
    char *a1[] = {"-T", "-l", "20000"}, *a2[] = {"-l", "1000000"}, *a3[] = {"--gone"},
         *a4[] = {"true", "-b", "-a"};
    struct nf_run *runs[] = {nf_run_new("x", "pipe"), nf_run_new("x", "pipe"),
                             nf_run_new("x", "pipe"), nf_run_new("x", "command")};
    nf_run_set_args(runs[0], 3, a1);
    nf_run_set_args(runs[1], 2, a2);
    nf_run_set_args(runs[2], 1, a3);
    nf_run_set_args(runs[3], 3, a4);
    nf_workload_key_runs(runs, 4);
    assert_non_null(runs[0]->key);
    assert_int_equal(runs[0]->nkey, 3);
    assert_string_equal(runs[0]->key[0], "-l");
    assert_string_equal(runs[0]->key[1], "20000");
    assert_string_equal(runs[0]->key[2], "-T");
    assert_non_null(runs[1]->key); /* the defaults: a key of no words */
    assert_int_equal(runs[1]->nkey, 0);
    assert_null(runs[1]->key[0]);
    assert_null(runs[2]->key);
    assert_null(runs[3]->key);
    /* The stored words are never touched. */
    assert_string_equal(runs[0]->args[0], "-T");
    /* New words drop the old key. */
    nf_run_set_args(runs[0], 1, a3);
    assert_null(runs[0]->key);
    for (size_t i = 0; i < 4; i++)
        nf_run_free(runs[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workload_keys),
        cmocka_unit_test(test_key_runs),
    };
    return cmocka_run_group_tests_name("workload_key", tests, NULL, NULL);
}
