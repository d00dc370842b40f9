/* The option tables of core/options.h: what the parser accepts, what it
 * refuses and with which line, and the --help text it writes. */
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

struct inner {
    double alpha;
    unsigned long seed;
};

struct cfg {
    int json, verbose, quiet;
    long loops;
    int repeat;
    double timeout;
    const char *label;
    char *pin;
    int better;
    struct nf_optlist tags;
    struct nf_optlist funcs;
    int calls;
    const char *last;
    struct inner in;
};

static int take_kv(const struct nf_option *o, void *base, const char *arg, char *err, size_t errlen)
{
    struct cfg *c = base;
    (void)o;
    if (!strchr(arg, '=')) {
        snprintf(err, errlen, "--kv wants KEY=VALUE, not '%s'", arg);
        return -1;
    }
    c->calls++;
    c->last = arg;
    return 0;
}

static int bump(const struct nf_option *o, void *base, const char *arg, char *err, size_t errlen)
{
    (void)o;
    (void)err;
    (void)errlen;
    assert_null(arg);
    ((struct cfg *)base)->calls += 10;
    return 0;
}

static const struct nf_opt_choice better_choices[] = {{"lower", 0}, {"higher", 1}, {NULL, 0}};
static const struct nf_opt_choice three[] = {{"a", 0}, {"b", 1}, {"c", 2}, {NULL, 0}};

static const struct nf_opts inner_opts = {
    .options =
        (const struct nf_option[]){
            NF_OPT_DOUBLE(0, "alpha", struct inner, alpha, 0, 0.5,
                          NF_OPTF_LO_OPEN | NF_OPTF_HI_OPEN, "a significance level", "A",
                          "significance level"),
            NF_OPT_INT(0, "seed", struct inner, seed, 0, 0x7fffffffL, "a seed", "N", "the seed"),
            NF_OPT_END,
        },
};

static const struct nf_opts test_opts = {
    .usage = "noisefloor test [OPTIONS] THING...\nnoisefloor test --other",
    .about = "A table to test the parser with.",
    .options =
        (const struct nf_option[]){
            NF_OPT_FLAG(0, "json", struct cfg, json, "JSON"),
            NF_OPT_COUNTER('v', "verbose", struct cfg, verbose, "more words (repeatable)"),
            NF_OPT_SET('q', "quiet", struct cfg, quiet, 7, "quiet"),
            NF_OPT_INT('l', "loops", struct cfg, loops, 1, 1000, "a loop count", "LOOPS",
                       "loops\nsecond line"),
            NF_OPT_INT('r', "repeat", struct cfg, repeat, 0, LONG_MAX, "a count", "N", "reps"),
            NF_OPT_DOUBLE(0, "timeout", struct cfg, timeout, 0, INFINITY, 0, "seconds", "SEC",
                          "per repetition"),
            NF_OPT_STRING_NOEMPTY('L', "label", struct cfg, label, "NAME", "label"),
            NF_OPT_STRING(0, "pin", struct cfg, pin, "CPUS", "CPUs"),
            NF_OPT_CHOICE(0, "better", struct cfg, better, better_choices, NULL, "direction"),
            NF_OPT_CHOICE(0, "abc", struct cfg, better, three, "X", "one of three"),
            NF_OPT_LIST('t', "tag", struct cfg, tags, 2, "TAG", "a tag (at most 2)"),
            NF_OPT_LIST_NOEMPTY(0, "func", struct cfg, funcs, 0, "NAME", "a function"),
            NF_OPT_CALLBACK(0, "kv", take_kv, "KEY=VALUE", "a pair"),
            NF_OPT_CALLBACK('B', "bump", bump, NULL, "add ten"),
            NF_OPT_GROUP("Inner options:"),
            NF_OPT_INCLUDE(&inner_opts, offsetof(struct cfg, in)),
            NF_OPT_FLAG(0, "a-very-long-option-name-indeed", struct cfg, json, "long"),
            NF_OPT_END,
        },
    .footer = "The footer.",
};

static const struct nf_opts stop_opts = {
    .usage = "noisefloor stop",
    .flags = NF_OPTS_STOP | NF_OPTS_LETTERS | NF_OPTS_SYNOPSIS,
    .options =
        (const struct nf_option[]){
            NF_OPT_INT('l', "loop", struct cfg, loops, 1, 1000, "a loop count", "LOOPS", "loops"),
            NF_OPT_FLAG('T', "threaded", struct cfg, json, "threads"),
            NF_OPT_CHOICE('P', "proto", struct cfg, better, better_choices, NULL, "protocol"),
            NF_OPT_END,
        },
};

static const struct nf_opts keep_opts = {
    .flags = NF_OPTS_STOP | NF_OPTS_KEEP_DASHDASH,
    .options =
        (const struct nf_option[]){
            NF_OPT_FLAG('x', NULL, struct cfg, json, "x"),
            NF_OPT_STRING('s', "hello", struct cfg, pin, "S", "a word"),
            NF_OPT_END,
        },
};

/* Parse the words (NULL-terminated) into a fresh cfg; argv kept for
 * checks. */
static char *words[32];
static int nwords;
static char err[512];

static int vparse(const struct nf_opts *t, struct cfg *c, int *first, va_list ap)
{
    memset(c, 0, sizeof(*c));
    nwords = 0;
    words[nwords++] = "test";
    for (char *w; (w = va_arg(ap, char *)) != NULL;)
        words[nwords++] = w;
    words[nwords] = NULL;
    err[0] = 0;
    return nf_opts_parse(t, c, nwords, words, first, err, sizeof(err));
}

static int parse(const struct nf_opts *t, struct cfg *c, int *first, ...)
{
    va_list ap;
    va_start(ap, first);
    int rc = vparse(t, c, first, ap);
    va_end(ap);
    return rc;
}

static void cfg_free(struct cfg *c)
{
    nf_optlist_free(&c->tags);
    nf_optlist_free(&c->funcs);
}

/* parse must fail with a line containing want. */
static void refused(const struct nf_opts *t, const char *want, ...)
{
    struct cfg c;
    int first;
    va_list ap;
    va_start(ap, want);
    int rc = vparse(t, &c, &first, ap);
    va_end(ap);
    cfg_free(&c);
    if (rc != -1)
        fail_msg("accepted, wanted an error with '%s'", want);
    if (!strstr(err, want))
        fail_msg("error '%s' lacks '%s'", err, want);
    assert_null(strchr(err, '\n'));
}

static void test_kinds(void **state)
{
    (void)state;
    struct cfg c;
    int first;
    assert_int_equal(parse(&test_opts, &c, &first, "--json", "-vvv", "--verbose", "-q", "-l", "5",
                           "--repeat=7", "--timeout", "2.5", "-Lx", "--pin=0-3", "--better",
                           "higher", "-t", "a", "--tag=b", "--func", "f", "--kv", "k=v", "-B",
                           "--alpha", "0.01", "--seed", "42", NULL),
                     0);
    assert_int_equal(first, nwords);
    assert_int_equal(c.json, 1);
    assert_int_equal(c.verbose, 4);
    assert_int_equal(c.quiet, 7);
    assert_int_equal(c.loops, 5);
    assert_int_equal(c.repeat, 7);
    assert_true(c.timeout == 2.5);
    assert_string_equal(c.label, "x");
    assert_string_equal(c.pin, "0-3");
    assert_int_equal(c.better, 1);
    assert_int_equal(c.tags.n, 2);
    assert_string_equal(c.tags.v[0], "a");
    assert_string_equal(c.tags.v[1], "b");
    assert_null(c.tags.v[2]);
    assert_string_equal(c.funcs.v[0], "f");
    assert_int_equal(c.calls, 11);
    assert_string_equal(c.last, "k=v");
    assert_true(c.in.alpha == 0.01);
    assert_int_equal(c.in.seed, 42);
    cfg_free(&c);
}

static void test_words(void **state)
{
    (void)state;
    struct cfg c;
    int first;
    /* -r5, -r 5, bundles with a value at the end, a value that looks like an
     * option, a unique prefix. */
    assert_int_equal(parse(&test_opts, &c, &first, "-r5", "-vvl", "9", "-L", "--json", "--rep", "3",
                           "--tim=1", NULL),
                     0);
    assert_int_equal(c.repeat, 3);
    assert_int_equal(c.verbose, 2);
    assert_int_equal(c.loops, 9);
    assert_string_equal(c.label, "--json");
    assert_int_equal(c.json, 0);
    assert_true(c.timeout == 1);
    cfg_free(&c);

    /* Words that are not options move behind them, in order; "--" ends the
     * options; "-" is not an option. */
    assert_int_equal(
        parse(&test_opts, &c, &first, "A", "--json", "-", "B", "--", "--loops", "C", NULL), 0);
    assert_int_equal(first, 3);
    assert_string_equal(words[1], "--json");
    assert_string_equal(words[2], "--");
    assert_string_equal(words[3], "A");
    assert_string_equal(words[4], "-");
    assert_string_equal(words[5], "B");
    assert_string_equal(words[6], "--loops");
    assert_string_equal(words[7], "C");
    assert_int_equal(c.loops, 0);

    /* NF_OPTS_STOP: the first word that is not an option ends them. */
    assert_int_equal(parse(&stop_opts, &c, &first, "-Tl3", "pipe", "-l", "4", NULL), 0);
    assert_int_equal(first, 2);
    assert_string_equal(words[first], "pipe");
    assert_int_equal(c.loops, 3);
    assert_int_equal(parse(&stop_opts, &c, &first, "-T", "--", "-l", NULL), 0);
    assert_string_equal(words[first], "-l");
    /* NF_OPTS_KEEP_DASHDASH: the "--" stays for the caller to see. */
    assert_int_equal(parse(&keep_opts, &c, &first, "-x", "--", "cmd", NULL), 0);
    assert_int_equal(first, 2);
    assert_string_equal(words[first], "--");
    assert_int_equal(parse(&keep_opts, &c, &first, "-x", "work", "--", NULL), 0);
    assert_string_equal(words[first], "work");
    /* A "--" that is an option's value does not end the options. */
    assert_int_equal(parse(&keep_opts, &c, &first, "-s", "--", "cmd", NULL), 0);
    assert_string_equal(c.pin, "--");
    assert_int_equal(first, 3);
    assert_int_equal(parse(&keep_opts, &c, &first, "--hello", "--", "--", "cmd", NULL), 0);
    assert_string_equal(c.pin, "--");
    assert_int_equal(first, 3);
    assert_string_equal(words[first], "--");
    assert_int_equal(parse(&keep_opts, &c, &first, "--", NULL), 0);
    assert_int_equal(first, 1);
    /* KEEP_DASHDASH ends the options at the first word that is not one. */
    assert_int_equal(parse(&keep_opts, &c, &first, "work", "-x", NULL), 0);
    assert_int_equal(first, 1);
    assert_int_equal(c.json, 0);
}

/* getopt_long's state is global: each parse starts afresh, also after one
 * that stopped inside a bundle, and a second table parses the words the
 * first left (run's options, then the workload's). */
static void test_parse_again(void **state)
{
    (void)state;
    struct cfg c;
    int first;
    assert_int_equal(parse(&test_opts, &c, &first, "-hv", NULL), NF_OPTS_HELP);
    assert_int_equal(parse(&test_opts, &c, &first, "-q", NULL), 0);
    assert_int_equal(c.quiet, 7);
    assert_int_equal(c.verbose, 0);
    refused(&test_opts, "unknown option '-z'", "-zv", NULL);
    assert_int_equal(parse(&test_opts, &c, &first, "-B", NULL), 0);
    assert_int_equal(c.calls, 10);
    assert_int_equal(c.verbose, 0);

    assert_int_equal(parse(&stop_opts, &c, &first, "-T", "pipe", "-l", "4", "-T", NULL), 0);
    assert_int_equal(first, 2);
    struct cfg w = {0};
    int wfirst;
    assert_int_equal(
        nf_opts_parse(&stop_opts, &w, nwords - first, words + first, &wfirst, err, sizeof(err)), 0);
    assert_int_equal(wfirst, 4);
    assert_int_equal(w.loops, 4);
    assert_int_equal(w.json, 1);
    assert_int_equal(c.loops, 0);
}

/* With POSIXLY_CORRECT set, getopt_long does not move words: the options
 * end at the first word that is not one. */
static void test_posixly_correct(void **state)
{
    (void)state;
    struct cfg c;
    int first;
    setenv("POSIXLY_CORRECT", "1", 1);
    int rc = parse(&test_opts, &c, &first, "A", "--json", NULL);
    unsetenv("POSIXLY_CORRECT");
    assert_int_equal(rc, 0);
    assert_int_equal(first, 1);
    assert_int_equal(c.json, 0);
    assert_int_equal(parse(&test_opts, &c, &first, "A", "--json", NULL), 0);
    assert_int_equal(first, 2);
    assert_int_equal(c.json, 1);
}

static void test_help_asked(void **state)
{
    (void)state;
    struct cfg c;
    int first;
    assert_int_equal(parse(&test_opts, &c, &first, "-h", NULL), NF_OPTS_HELP);
    assert_int_equal(parse(&test_opts, &c, &first, "A", "--help", NULL), NF_OPTS_HELP);
    assert_int_equal(parse(&test_opts, &c, &first, "-vh", NULL), NF_OPTS_HELP);
    assert_int_equal(parse(&stop_opts, &c, &first, "--he", NULL), NF_OPTS_HELP);
    assert_int_equal(parse(&keep_opts, &c, &first, "--help", NULL), NF_OPTS_HELP);
    assert_int_equal(parse(&keep_opts, &c, &first, "--hell", "x", NULL), 0);
    assert_string_equal(c.pin, "x");
    /* After the first word that is not an option, --help is that word's. */
    assert_int_equal(parse(&stop_opts, &c, &first, "pipe", "--help", NULL), 0);
    /* A bad option before it is an error, as getopt_long would say. */
    refused(&test_opts, "unknown option '--bogus'", "--bogus", "--help", NULL);
}

static void test_messages(void **state)
{
    (void)state;
    refused(&test_opts, "unknown option '--bogus'", "--bogus", NULL);
    refused(&test_opts, "unknown option '--bogus'", "--bogus=3", NULL);
    refused(&test_opts, "unknown option '-z'", "-vz", NULL);
    refused(&test_opts, "option '--loops' needs a value", "--loops", NULL);
    refused(&test_opts, "option '-l' needs a value", "-vl", NULL);
    refused(&test_opts, "option '--json' takes no value", "--json=1", NULL);
    refused(&test_opts, "option '--qui' takes no value", "--qui=1", NULL);
    refused(&test_opts, "option '--bump' takes no value", "--bump=", NULL);
    refused(&test_opts, "option '--rep' needs a value", "-v", "--rep", NULL);
    refused(&test_opts, "unknown option '--bogus'", "A", "--bogus", NULL);
    refused(&test_opts, "unknown option '--=3'", "--=3", NULL);
    refused(&keep_opts, "option '--he' is ambiguous (--hello, --help)", "--he", NULL);
    refused(&test_opts, "option '--t' is ambiguous (--timeout, --tag)", "--t", "1", NULL);
    refused(&test_opts, "--loops wants a loop count from 1 to 1000, not '0'", "-l", "0", NULL);
    refused(&test_opts, "--loops wants a loop count from 1 to 1000, not '5x'", "--loops=5x", NULL);
    refused(&test_opts, "--repeat wants a count >= 0, not '-1'", "-r", "-1", NULL);
    refused(&test_opts, "--repeat wants a count >= 0, not '3000000000'", "-r", "3000000000", NULL);
    refused(&test_opts, "--timeout wants seconds >= 0, not '-0.5'", "--timeout", "-0.5", NULL);
    refused(&test_opts, "--timeout wants seconds >= 0, not 'nan'", "--timeout", "nan", NULL);
    refused(&test_opts, "--alpha wants a significance level in (0, 0.5), not '0.5'", "--alpha",
            "0.5", NULL);
    refused(&test_opts, "--alpha wants a significance level in (0, 0.5), not '0'", "--alpha", "0",
            NULL);
    refused(&test_opts, "--label must not be empty", "-L", "", NULL);
    refused(&test_opts, "--func must not be empty", "--func=", NULL);
    refused(&test_opts, "--better wants 'lower' or 'higher', not 'up'", "--better", "up", NULL);
    refused(&test_opts, "--abc wants 'a', 'b' or 'c', not 'd'", "--abc", "d", NULL);
    refused(&test_opts, "too many --tag (at most 2)", "-t", "a", "-t", "b", "-t", "c", NULL);
    refused(&test_opts, "--kv wants KEY=VALUE, not 'k'", "--kv", "k", NULL);
    /* NF_OPTS_LETTERS: a value's message names the option by its letter,
     * whichever form was typed; needs-a-value says what was typed. */
    refused(&stop_opts, "-l wants a loop count from 1 to 1000, not 'x'", "--loop", "x", NULL);
    refused(&stop_opts, "-P wants 'lower' or 'higher', not 'x'", "--proto", "x", NULL);
    refused(&stop_opts, "option '--loop' needs a value", "--loop", NULL);
}

/* The globals of main: taken out wherever they stand before "--". */
static void test_take(void **state)
{
    (void)state;
    struct cfg c = {0};
    char *argv[] = {"nf", "compare",   "--json", "a",  "-q",     "--pin", "3",
                    "b",  "--label=x", "-vq",    "--", "--json", NULL};
    int argc = nf_opts_take(&test_opts, &c, 12, argv, err, sizeof(err));
    assert_int_equal(argc, 7);
    assert_string_equal(argv[1], "compare");
    assert_string_equal(argv[2], "a");
    assert_string_equal(argv[3], "b");
    assert_string_equal(argv[4], "-vq"); /* no bundles */
    assert_string_equal(argv[5], "--");
    assert_string_equal(argv[6], "--json");
    assert_null(argv[7]);
    assert_int_equal(c.json, 1);
    assert_int_equal(c.quiet, 7);
    assert_string_equal(c.pin, "3");
    assert_string_equal(c.label, "x");

    char *bad[] = {"nf", "list", "--pin", NULL};
    assert_int_equal(nf_opts_take(&test_opts, &c, 3, bad, err, sizeof(err)), -1);
    assert_string_equal(err, "option '--pin' needs a value");
    char *abbrev[] = {"nf", "--pi", "3", NULL};
    assert_int_equal(nf_opts_take(&test_opts, &c, 3, abbrev, err, sizeof(err)), 3);
}

static char *help_text(const struct nf_opts *t)
{
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    assert_non_null(f);
    nf_opts_help(f, t);
    fclose(f);
    return s;
}

static void test_help_text(void **state)
{
    (void)state;
    char *s = help_text(&test_opts);
    const char *want = "usage: noisefloor test [OPTIONS] THING...\n"
                       "       noisefloor test --other\n"
                       "\n"
                       "A table to test the parser with.\n"
                       "\n"
                       "      --json                 JSON\n"
                       "  -v, --verbose              more words (repeatable)\n"
                       "  -q, --quiet                quiet\n"
                       "  -l, --loops LOOPS          loops\n"
                       "                             second line\n"
                       "  -r, --repeat N             reps\n"
                       "      --timeout SEC          per repetition\n"
                       "  -L, --label NAME           label\n"
                       "      --pin CPUS             CPUs\n"
                       "      --better lower|higher  direction\n"
                       "      --abc X                one of three\n"
                       "  -t, --tag TAG              a tag (at most 2)\n"
                       "      --func NAME            a function\n"
                       "      --kv KEY=VALUE         a pair\n"
                       "  -B, --bump                 add ten\n"
                       "\n"
                       "Inner options:\n"
                       "      --alpha A              significance level\n"
                       "      --seed N               the seed\n"
                       "      --a-very-long-option-name-indeed\n"
                       "                             long\n"
                       "  -h, --help                 this help\n"
                       "\n"
                       "The footer.\n";
    assert_string_equal(s, want);
    free(s);

    s = help_text(&stop_opts);
    assert_non_null(
        strstr(s, "usage: noisefloor stop [-l LOOPS] [-T] [-P lower|higher]\n\n  -l, --loop"));
    free(s);

    char *b = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&b, &len);
    nf_opts_print_brief(f, &inner_opts);
    fclose(f);
    assert_string_equal(b, "--alpha A, --seed N");
    free(b);
}

static void test_find(void **state)
{
    (void)state;
    assert_non_null(nf_opts_find(&test_opts, "--seed"));
    assert_non_null(nf_opts_find(&test_opts, "-B"));
    assert_non_null(nf_opts_find(&test_opts, "--loops=3"));
    assert_non_null(nf_opts_find(&test_opts, "--help"));
    assert_non_null(nf_opts_find(&test_opts, "-h"));
    assert_null(nf_opts_find(&test_opts, "--rep"));
    assert_null(nf_opts_find(&test_opts, "-vq"));
    assert_null(nf_opts_find(&test_opts, "-x"));
    assert_null(nf_opts_find(&test_opts, "--"));
    assert_int_equal(nf_opts_find(&test_opts, "--seed")->kind, NF_OPTK_INT);
}

/* NF_DEF: nf_opts_defaults stores the row's word as if given, --help
 * shows it; NF_DEF_TEXT is shown only; a flag's default is refused. */
struct defs {
    long n;
    double x;
    int choice;
    const char *s;
};
static const struct nf_opt_choice def_choices[] = {{"one", 1}, {"two", 2}, {NULL, 0}};
static const struct nf_opts def_opts = {
    .usage = "noisefloor defs",
    .options =
        (const struct nf_option[]){
            NF_OPT_INT('n', "count", struct defs, n, 1, 100, "a count", "N", "how many",
                       NF_DEF("10")),
            NF_OPT_DOUBLE(0, "level", struct defs, x, 0, 1, 0, "a level", "X", "a level",
                          NF_DEF("0.25")),
            NF_OPT_CHOICE(0, "pick", struct defs, choice, def_choices, NULL, "which",
                          NF_DEF("two")),
            NF_OPT_STRING(0, "name", struct defs, s, "S", "a name", NF_DEF_TEXT("the host's")),
            NF_OPT_END,
        },
};
static const struct nf_opts bad_def_opts = {
    .usage = "noisefloor bad",
    .options =
        (const struct nf_option[]){
            NF_OPT_INT('n', "count", struct defs, n, 1, 100, "a count", "N", "how many",
                       NF_DEF("1000")),
            NF_OPT_END,
        },
};
static const struct nf_opts flag_def_opts = {
    .usage = "noisefloor flag",
    .options =
        (const struct nf_option[]){
            NF_OPT_FLAG('f', "flag", struct defs, choice, "a flag", NF_DEF("1")),
            NF_OPT_END,
        },
};

static void test_defaults(void **state)
{
    (void)state;
    struct defs d = {0};
    char err[200];
    assert_int_equal(nf_opts_defaults(&def_opts, &d, err, sizeof(err)), 0);
    assert_int_equal(d.n, 10);
    assert_true(d.x == 0.25);
    assert_int_equal(d.choice, 2);
    assert_null(d.s); /* described, not stored */
    char *argv[] = {"defs", "-n", "3", NULL};
    int first;
    assert_int_equal(nf_opts_parse(&def_opts, &d, 3, argv, &first, err, sizeof(err)), 0);
    assert_int_equal(d.n, 3);
    assert_int_equal(d.choice, 2);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    nf_opts_help(f, &def_opts);
    fclose(f);
    assert_non_null(strstr(text, "how many (default: 10)\n"));
    assert_non_null(strstr(text, "a level (default: 0.25)\n"));
    assert_non_null(strstr(text, "which (default: two)\n"));
    assert_non_null(strstr(text, "a name (default: the host's)\n"));
    free(text);

    assert_int_equal(nf_opts_defaults(&bad_def_opts, &d, err, sizeof(err)), -1);
    assert_string_equal(err, "--count wants a count from 1 to 100, not '1000'");
    assert_int_equal(nf_opts_defaults(&flag_def_opts, &d, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "NF_DEF_TEXT"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_help_asked),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_take),
        cmocka_unit_test(test_help_text),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_parse_again),
        cmocka_unit_test(test_posixly_correct),
        cmocka_unit_test(test_defaults),
    };
    return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
