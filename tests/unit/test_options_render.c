/* nf_opts_render (core/options.h): a table's values written back as words,
 * one spelling, defaults left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/options.h"
#include "core/util.h"

struct rin {
    double alpha;
    unsigned long seed;
};

struct rcfg {
    int json;               /* FLAG */
    int progress;           /* two FLAGs on one field: --progress (1), --no-progress (0) */
    int verbose;            /* COUNTER */
    long loops;             /* INT (long) */
    int repeat;             /* INT (int) */
    double timeout;         /* DOUBLE */
    const char *label;      /* STRING */
    int proto;              /* CHOICE */
    struct nf_optlist tags; /* LIST */
    long sizes[4];          /* CALLBACK with a show function */
    int nsizes;
    struct rin in; /* INCLUDE */
};

static int take_sizes(const struct nf_option *o, void *base, const char *arg, char *err,
                      size_t errlen)
{
    struct rcfg *c = base;
    char *dup = nf_xstrdup(arg), *save = NULL;
    (void)o;
    c->nsizes = 0;
    for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long v;
        if (c->nsizes == 4 || nf_parse_long(t, 1, 1000000, &v)) {
            snprintf(err, errlen, "bad sizes '%s'", arg);
            free(dup);
            return -1;
        }
        c->sizes[c->nsizes++] = v;
    }
    free(dup);
    return 0;
}

static int show_sizes(const struct nf_option *o, const void *base, char *buf, size_t len)
{
    const struct rcfg *c = base;
    size_t k = 0;
    (void)o;
    buf[0] = 0;
    for (int i = 0; i < c->nsizes && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%ld", i ? "," : "", c->sizes[i]);
    return k < len ? 0 : -1;
}

static const struct nf_opt_choice protos[] = {{"udp", 0}, {"tcp", 1}, {NULL, 0}};

static const struct nf_opts inner = {
    .options =
        (const struct nf_option[]){
            NF_OPT_DOUBLE(0, "alpha", struct rin, alpha, 0, 1, NF_OPTF_LO_OPEN, "a level", "A",
                          "alpha"),
            NF_OPT_INT(0, "seed", struct rin, seed, 0, LONG_MAX, "a seed", "N", "seed"),
            NF_OPT_END,
        },
};

/* Every kind of entry, declared once for two tables: one that names its
 * options by letter (as the workloads do), one by long name. */
static const struct nf_option every_kind[] = {
    NF_OPT_FLAG(0, "json", struct rcfg, json, "JSON"),
    NF_OPT_SET(0, "progress", struct rcfg, progress, 1, "progress"),
    NF_OPT_SET(0, "no-progress", struct rcfg, progress, 0, "no progress"),
    NF_OPT_COUNTER('v', "verbose", struct rcfg, verbose, "more words"),
    NF_OPT_INT('l', "loops", struct rcfg, loops, 1, 1000000, "a loop count", "LOOPS", "loops"),
    NF_OPT_INT('r', "repeat", struct rcfg, repeat, 1, 100, "a count", "N", "repetitions"),
    NF_OPT_DOUBLE(0, "timeout", struct rcfg, timeout, 0, INFINITY, NF_OPTF_LO_OPEN, "seconds",
                  "SEC", "timeout"),
    NF_OPT_STRING('L', "label", struct rcfg, label, "NAME", "label"),
    NF_OPT_CHOICE('P', "proto", struct rcfg, proto, protos, NULL, "protocol"),
    NF_OPT_LIST('t', "tag", struct rcfg, tags, 0, "TAG", "a tag"),
    NF_OPT_CALLBACK_SHOW('m', "sizes", take_sizes, show_sizes, "SIZES", "sizes"),
    NF_OPT_GROUP("Inner:"),
    NF_OPT_INCLUDE(&inner, offsetof(struct rcfg, in)),
    NF_OPT_END,
};

static const struct nf_opts by_letter = {.flags = NF_OPTS_LETTERS, .options = every_kind};
static const struct nf_opts by_name = {.options = every_kind};

/* A callback nobody can write back. */
static const struct nf_opts no_show = {
    .options =
        (const struct nf_option[]){
            NF_OPT_CALLBACK('m', "sizes", take_sizes, "SIZES", "sizes"),
            NF_OPT_END,
        },
};

static const struct rcfg defaults = {.progress = 1,
                                     .loops = 1000,
                                     .repeat = 10,
                                     .timeout = 5,
                                     .sizes = {64},
                                     .nsizes = 1,
                                     .in = {.alpha = 0.05, .seed = 1}};

static char err[NF_ERR_LEN];

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

/* The words (NULL-terminated) parsed over the defaults with table t, then
 * rendered and joined by spaces; "ERROR: ..." when rendering fails. */
static char *vrender(const struct nf_opts *t, va_list ap)
{
    char *argv[64];
    int argc = 0, first;
    argv[argc++] = "test";
    for (char *w; (w = va_arg(ap, char *)) != NULL;)
        argv[argc++] = w;
    argv[argc] = NULL;
    struct rcfg c = defaults;
    assert_int_equal(nf_opts_parse(t, &c, argc, argv, &first, err, sizeof(err)), 0);
    assert_int_equal(first, argc);
    char **w = NULL, *s;
    size_t n = 99;
    if (nf_opts_render(t, &c, &defaults, &w, &n, err, sizeof(err)) == 0) {
        assert_non_null(w);
        assert_null(w[n]);
        s = join(w, n);
        nf_free_words(w);
    } else {
        s = nf_xasprintf("ERROR: %s", err);
    }
    nf_optlist_free(&c.tags);
    return s;
}

static char *render(const struct nf_opts *t, ...)
{
    va_list ap;
    va_start(ap, t);
    char *s = vrender(t, ap);
    va_end(ap);
    return s;
}

#define assert_renders(want, ...)                                                                  \
    do {                                                                                           \
        char *got_ = render(__VA_ARGS__, NULL);                                                    \
        assert_string_equal(got_, want);                                                           \
        free(got_);                                                                                \
    } while (0)

/* Every kind, written back in the table's order whatever the order given,
 * by letter or by long name as the table says. */
static void test_every_kind(void **state)
{
    (void)state;
    assert_renders("--json --no-progress -v -v -l 20 -r 3 --timeout 2.5 -L x -P tcp -t a -t b "
                   "-m 1,2 --alpha 0.1 --seed 7",
                   &by_letter, "--seed", "7", "-m", "1,2", "-t", "a", "--no-progress", "-P", "tcp",
                   "-v", "-L", "x", "--alpha", "0.1", "-r", "3", "--timeout", "2.5", "-t", "b",
                   "-l", "20", "-v", "--json");
    assert_renders("--json --no-progress --verbose --verbose --loops 20 --repeat 3 --timeout 2.5 "
                   "--label x --proto tcp --tag a --tag b --sizes 1,2 --alpha 0.1 --seed 7",
                   &by_name, "--json", "--no-progress", "-vv", "--loops=20", "-r3", "--timeout",
                   "2.5", "-Lx", "--proto=tcp", "-ta", "--tag", "b", "-m1,2", "--alpha=0.1",
                   "--seed", "7");
}

/* Options that restate a default are left out; no options, no words. */
static void test_defaults_dropped(void **state)
{
    (void)state;
    assert_renders("", &by_letter);
    assert_renders("", &by_letter, "-l", "1000", "-r", "10", "--timeout", "5.0", "-P", "udp",
                   "--progress", "-m", "064", "--alpha", "0.05", "--seed", "1");
    assert_renders("-l 20", &by_letter, "-l", "1000", "-l", "20"); /* the last one counts */
    assert_renders("", &by_letter, "-l", "20", "-l", "1000");
    assert_renders("--no-progress", &by_letter, "--progress", "--no-progress");
}

/* The same values however they were spelt: the order of the options,
 * letter or long name, --opt=V, --opt V, -oV, a prefix of a long name,
 * bundled letters, leading zeros, the digits of a double. */
static void test_spellings(void **state)
{
    (void)state;
    const char *want = "-v -v -l 20 -r 3";
    assert_renders(want, &by_letter, "-l", "20", "-r", "3", "-v", "-v");
    assert_renders(want, &by_letter, "-r", "3", "-vv", "-l", "20");
    assert_renders(want, &by_letter, "--repeat=3", "--verbose", "--loops", "20", "--verbose");
    assert_renders(want, &by_letter, "-l20", "-vvr3");
    assert_renders(want, &by_letter, "--loo", "020", "--rep", "03", "-v", "--verb");
    assert_renders("--timeout 0.5", &by_letter, "--timeout", ".5");
    assert_renders("--timeout 0.5", &by_letter, "--timeout=0.50");
    assert_renders("--timeout 0.5", &by_letter, "--timeout", "5e-1");
    assert_renders("--timeout 0.1", &by_letter, "--timeout", "0.1");
    assert_renders("--timeout 1e-07", &by_letter, "--timeout", "0.0000001");
    assert_renders("--timeout 86400", &by_letter, "--timeout", "8.64e4");
    assert_renders("-m 1,2", &by_letter, "--sizes=01,002");
    /* A list keeps its order (the values are the user's, in sequence). */
    assert_renders("-t b -t a", &by_letter, "-t", "b", "-t", "a");
    /* A string is taken as it is. */
    assert_renders("-L 'a b'", &by_letter, "--label", "'a b'");
}

/* The words parse back to the same values: rendering them again gives
 * them again. */
static void test_round_trip(void **state)
{
    (void)state;
    char *once = render(&by_letter, "-Lx", "-vvv", "--loops=999999", "-t", "-x", "--timeout",
                        "1e300", "--seed=0", "--alpha", "1", "-P", "tcp", "-m", "9,8,7", NULL);
    assert_string_equal(once, "-v -v -v -l 999999 --timeout 1e+300 -L x -P tcp -t -x -m 9,8,7 "
                              "--alpha 1 --seed 0");
    int argc;
    char **w = nf_split_words(once, &argc, err, sizeof(err));
    assert_non_null(w);
    assert_int_equal(argc, 19);
    char *twice = render(&by_letter, w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9],
                         w[10], w[11], w[12], w[13], w[14], w[15], w[16], w[17], w[18], NULL);
    assert_string_equal(twice, once);
    free(twice);
    free(once);
    nf_free_words(w);
}

/* What has no spelling fails, with one line naming the option. */
static void test_cannot(void **state)
{
    (void)state;
    char **w = (char **)1;
    size_t n = 7;
    /* A callback without a show function. */
    struct rcfg c = defaults, d = defaults;
    c.nsizes = 2;
    assert_int_equal(nf_opts_render(&no_show, &c, &d, &w, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "--sizes"));
    assert_ptr_equal(w, (char **)1);
    /* A choice no name gives. */
    c = defaults;
    c.proto = 5;
    assert_int_equal(nf_opts_render(&by_letter, &c, &d, &w, &n, err, sizeof(err)), -1);
    assert_string_equal(err, "-P: a value none of its choices names");
    /* A flag field holding a value no entry sets. */
    c = defaults;
    c.progress = 3;
    assert_int_equal(nf_opts_render(&by_letter, &c, &d, &w, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "progress: a value no option sets"));
    /* A counter below its default. */
    c = defaults;
    d.verbose = 2;
    c.verbose = 1;
    assert_int_equal(nf_opts_render(&by_letter, &c, &d, &w, &n, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "-v:"));
    /* No string where the default has one. */
    c = defaults;
    d = defaults;
    d.label = "x";
    assert_int_equal(nf_opts_render(&by_letter, &c, &d, &w, &n, err, sizeof(err)), -1);
    assert_ptr_equal(w, (char **)1);
    assert_int_equal(n, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind), cmocka_unit_test(test_defaults_dropped),
        cmocka_unit_test(test_spellings),  cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_cannot),
    };
    return cmocka_run_group_tests_name("options_render", tests, NULL, NULL);
}
