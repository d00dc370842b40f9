/* Every command's and workload's --help against what it accepts: each
 * option the parser takes is listed in --help (-x and --long forms), each
 * option --help lists (synopsis, option lines, global options) is taken by
 * the parser, a --long named anywhere in the text exists somewhere, the
 * command prints the help of the table it registered, each default the
 * table holds is shown, and the man pages (noisefloor(1) for the global
 * options, noisefloor-COMMAND(1) for each command) name every option, by
 * each of its names, where they describe the command (or workload) that
 * takes it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmp_opts.h"
#include "core/options.h"
#include "measure/runspec.h"
#include "stats/verdict.h"
#include "workload/workload.h"

/* Options of other tools that the help text names (import's formats). */
static const char *const foreign[] = {"--append", "--export-json", "--null", NULL};

#define MAX_TOKS 512

struct toks {
    char t[MAX_TOKS][64];
    size_t n;
};

static void add_tok(struct toks *k, const char *s, size_t len)
{
    assert_true(len < sizeof(k->t[0]));
    for (size_t i = 0; i < k->n; i++)
        if (strlen(k->t[i]) == len && strncmp(k->t[i], s, len) == 0)
            return;
    assert_true(k->n < MAX_TOKS);
    memcpy(k->t[k->n], s, len);
    k->t[k->n++][len] = '\0';
}

static int has_tok(const struct toks *k, const char *s)
{
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->t[i], s) == 0)
            return 1;
    return 0;
}

/* The option words in s[0..len): "-x" and "--name", each standing after a
 * blank, a bracket, a quote, '/', '|' or ','. */
static void tokens(const char *s, size_t len, struct toks *k, int long_only)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] != '-' || (i > 0 && !strchr(" \t[(|/,'\"`", s[i - 1])))
            continue;
        if (s[i + 1] == '-' && i + 2 < len && isalpha((unsigned char)s[i + 2])) {
            size_t j = i + 2;
            while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '-' || s[j] == '_'))
                j++;
            add_tok(k, s + i, j - i);
            i = j;
        } else if (!long_only && isalpha((unsigned char)s[i + 1]) &&
                   (i + 2 >= len || !(isalnum((unsigned char)s[i + 2]) || s[i + 2] == '-'))) {
            add_tok(k, s + i, 2);
        }
    }
}

/* The options --help lists: in the synopsis, in the left column of the
 * option lines, on the global options line. */
static void listed(const char *text, struct toks *k)
{
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (strncmp(line, "usage: ", 7) == 0 || strncmp(line, "       noisefloor ", 18) == 0 ||
            strncmp(line, "Global options: ", 16) == 0) {
            tokens(line, len, k, 0);
        } else if ((len > 3 && strncmp(line, "  -", 3) == 0 && isalpha((unsigned char)line[3])) ||
                   (len > 8 && strncmp(line, "      --", 8) == 0)) {
            const char *start = line + strspn(line, " ");
            const char *gap = strstr(start, "  ");
            size_t left = gap && gap < line + len ? (size_t)(gap - line) : len;
            tokens(line, left, k, 0);
        }
        line += len + (nl != NULL);
    }
}

typedef void (*help_fn)(FILE *out, const struct nf_opts *t);

static char *render(help_fn fn, const struct nf_opts *t)
{
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    assert_non_null(f);
    fn(f, t);
    fclose(f);
    return s;
}

/* What fn(argc, argv) prints on stdout. */
static char *captured(nf_cmd_fn fn, int argc, char **argv, int *rc)
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
    *rc = fn(argc, argv);
    fflush(stdout);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    long n = ftell(tmp);
    assert_true(n >= 0);
    char *s = calloc(1, (size_t)n + 1);
    rewind(tmp);
    assert_int_equal(fread(s, 1, (size_t)n, tmp), (size_t)n);
    fclose(tmp);
    return s;
}

struct entries {
    const struct nf_option *o[256];
    size_t n;
};

static void collect(const struct nf_opts *t, struct entries *e)
{
    for (const struct nf_option *o = t->options; o->kind != NF_OPTK_END; o++) {
        if (o->kind == NF_OPTK_INCLUDE)
            collect(o->sub, e);
        else if (o->kind != NF_OPTK_GROUP) {
            assert_true(e->n < 256);
            e->o[e->n++] = o;
        }
    }
}

/* One table against its help text.  globals: also accepted (main takes
 * them out of argv for every command). */
static void check_table(const char *what, const struct nf_opts *t, const char *text,
                        const struct nf_opts *globals)
{
    struct entries e = {.n = 0};
    collect(t, &e);
    size_t own = e.n; /* the globals' defaults are in main's --help */
    if (globals)
        collect(globals, &e);
    struct toks shown = {.n = 0};
    listed(text, &shown);

    /* Accepted -> listed; names unique, each with a help text. */
    for (size_t i = 0; i < e.n; i++) {
        const struct nf_option *o = e.o[i];
        char buf[80];
        if (!o->help || !*o->help)
            fail_msg("%s: option %s has no help text", what, o->name ? o->name : "?");
        if (o->name) {
            snprintf(buf, sizeof(buf), "--%s", o->name);
            if (!has_tok(&shown, buf))
                fail_msg("%s: %s is accepted but not in --help", what, buf);
            if (strcmp(o->name, "help") == 0)
                fail_msg("%s: --help is every table's own", what);
        }
        if (o->letter) {
            snprintf(buf, sizeof(buf), "-%c", o->letter);
            if (!has_tok(&shown, buf))
                fail_msg("%s: %s is accepted but not in --help", what, buf);
            if (o->letter == 'h')
                fail_msg("%s: -h is every table's own", what);
        }
        for (size_t j = 0; j < i; j++) {
            if (o->name && e.o[j]->name && strcmp(o->name, e.o[j]->name) == 0)
                fail_msg("%s: --%s declared twice", what, o->name);
            if (o->letter && o->letter == e.o[j]->letter)
                fail_msg("%s: -%c declared twice", what, o->letter);
        }
    }
    if (!has_tok(&shown, "--help") || !has_tok(&shown, "-h"))
        fail_msg("%s: -h, --help not in --help", what);

    /* Each default is the table's (NF_DEF), shown as --help shows them all:
     * a help text does not spell one by hand, and every row's is shown. */
    for (size_t i = 0; i < e.n; i++) {
        const struct nf_option *o = e.o[i];
        char want[200];
        for (const char *h = o->help; h && *h; h++)
            if (strncasecmp(h, "(default", 8) == 0 || strncasecmp(h, "default:", 8) == 0)
                fail_msg("%s: --%s writes its default in its help text, not in NF_DEF: '%s'", what,
                         o->name ? o->name : "?", o->help);
        if (!o->def || i >= own)
            continue;
        snprintf(want, sizeof(want), "(default: %s)", o->def);
        if (!strstr(text, want))
            fail_msg("%s: --help does not show %s", what, want);
    }

    /* Listed -> accepted, by the parser's own lookup. */
    for (size_t i = 0; i < shown.n; i++)
        if (!nf_opts_find(t, shown.t[i]) && !(globals && nf_opts_find(globals, shown.t[i])))
            fail_msg("%s: --help lists %s, which is not accepted", what, shown.t[i]);
}

/* Is --name an option of any table (commands, workloads, main)? */
static int known_anywhere(const char *tok)
{
    if (nf_opts_find(&nf_main_opts, tok) || nf_opts_find(&nf_global_opts, tok))
        return 1;
    for (size_t i = 0; nf_commands[i].name; i++)
        if (nf_opts_find(nf_commands[i].opts, tok))
            return 1;
    for (size_t i = 0; nf_workloads[i]; i++)
        if (nf_opts_find(nf_workloads[i]->opts, tok))
            return 1;
    for (size_t i = 0; foreign[i]; i++)
        if (strcmp(foreign[i], tok) == 0)
            return 1;
    return 0;
}

/* Every --long the text names, prose included, is somebody's option. */
static void check_mentions(const char *what, const char *text)
{
    struct toks all = {.n = 0};
    tokens(text, strlen(text), &all, 1);
    for (size_t i = 0; i < all.n; i++)
        if (!known_anywhere(all.t[i]))
            fail_msg("%s: --help names %s, an option of no table", what, all.t[i]);
}

/* The table's defaults parse as its options do (nf_cmd_parse and the
 * workloads' parse store them before the words). */
static void check_defaults(const char *what, const struct nf_opts *t)
{
    static _Alignas(max_align_t) char base[1 << 16];
    char err[256];
    memset(base, 0, sizeof(base));
    if (nf_opts_defaults(t, base, err, sizeof(err)))
        fail_msg("%s: a default does not parse: %s", what, err);
}

static void test_commands(void **state)
{
    (void)state;
    size_t n = 0;
    for (const struct nf_command *c = nf_commands; c->name; c++, n++) {
        if (!c->opts)
            fail_msg("%s has no option table", c->name);
        char *text = render(nf_cmd_help, c->opts);
        char want[64];
        snprintf(want, sizeof(want), "usage: noisefloor %s ", c->name);
        if (strncmp(text, want, strlen(want)) != 0)
            fail_msg("%s: help starts '%.40s'", c->name, text);
        check_table(c->name, c->opts, text, &nf_global_opts);
        check_mentions(c->name, text);
        check_defaults(c->name, c->opts);

        /* The command prints the help of the table it registered. */
        char *argv[] = {(char *)c->name, "--help", NULL};
        int rc;
        char *out = captured(c->fn, 2, argv, &rc);
        assert_int_equal(rc, 0);
        if (strcmp(out, text) != 0)
            fail_msg("%s --help is not its table's help:\n%s", c->name, out);
        free(out);
        free(text);
    }
    assert_true(n >= 13);
}

static void test_workloads(void **state)
{
    (void)state;
    for (size_t i = 0; nf_workloads[i]; i++) {
        const struct nf_workload *w = nf_workloads[i];
        if (!w->opts)
            fail_msg("workload %s has no option table", w->name);
        char *text = render(nf_opts_help, w->opts);
        char want[64];
        snprintf(want, sizeof(want), "usage: noisefloor run [OPTIONS] %s", w->name);
        if (strncmp(text, want, strlen(want)) != 0)
            fail_msg("%s: help starts '%.40s'", w->name, text);
        check_table(w->name, w->opts, text, NULL);
        check_mentions(w->name, text);
        check_defaults(w->name, w->opts);

        char *argv[] = {"run", (char *)w->name, "--help", NULL};
        int rc;
        char *out = captured(cmd_run, 3, argv, &rc);
        assert_int_equal(rc, 0);
        if (strcmp(out, text) != 0)
            fail_msg("run %s --help is not its table's help:\n%s", w->name, out);
        free(out);
        free(text);
    }
}

static void test_main(void **state)
{
    (void)state;
    char *text = render(nf_opts_help, &nf_main_opts);
    check_table("noisefloor", &nf_main_opts, text, NULL);
    check_mentions("noisefloor", text);
    for (size_t i = 0; nf_commands[i].name; i++) {
        char line[64];
        snprintf(line, sizeof(line), "\n  %-9s ", nf_commands[i].name);
        if (!strstr(text, line))
            fail_msg("noisefloor --help does not list %s", nf_commands[i].name);
    }
    free(text);
}

static char *read_page(const char *path)
{
    FILE *f = fopen(path, "r"); /* the tests run from the top directory */
    if (!f)
        fail_msg("cannot open %s (run from the top directory)", path);
    char *s = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&s, &len);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        fwrite(buf, 1, n, m);
    fclose(f);
    fclose(m);
    return s;
}

static char *read_man(void)
{
    return read_page("doc/noisefloor.1");
}

/* A command's page, doc/noisefloor-NAME.1. */
static char *read_cmd_page(const char *name)
{
    char path[128];
    snprintf(path, sizeof(path), "doc/noisefloor-%s.1", name);
    return read_page(path);
}

/* The part of a command's page that describes the command: from the top
 * to its BUILT-IN WORKLOADS (run's) or its SEE ALSO; malloc'd. */
static char *cmd_part(const char *page)
{
    const char *end = strstr(page, "\n.SH BUILT-IN");
    if (!end)
        end = strstr(page, "\n.SH SEE ALSO");
    size_t n = end ? (size_t)(end - page) + 1 : strlen(page);
    char *s = calloc(1, n + 1);
    memcpy(s, page, n);
    return s;
}

/* The part of command name's page that describes it. */
static char *cmd_man(const char *name)
{
    char *page = read_cmd_page(name);
    char *part = cmd_part(page);
    free(page);
    return part;
}

/* The text of the man page's parts whose heading line is `head` followed
 * by name (a blank or the end of the line after it), each up to the next
 * .SS or .SH, joined (run has two .SS lines); malloc'd, "" when none. */
static char *man_section(const char *man, const char *head, const char *name)
{
    char *s = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&s, &len);
    size_t hl = strlen(head), nl = strlen(name);
    for (const char *line = man; *line;) {
        const char *end = strchr(line, '\n');
        end = end ? end + 1 : line + strlen(line);
        if (strncmp(line, head, hl) == 0 && strncmp(line + hl, name, nl) == 0 &&
            (line[hl + nl] == ' ' || line[hl + nl] == '\n')) {
            const char *stop = end;
            while (*stop && strncmp(stop, ".SS ", 4) != 0 && strncmp(stop, ".SH ", 4) != 0) {
                const char *e = strchr(stop, '\n');
                stop = e ? e + 1 : stop + strlen(stop);
            }
            fwrite(line, 1, (size_t)(stop - line), m);
            end = stop;
        }
        line = end;
    }
    fclose(m);
    return s;
}

/* A workload's entry under BUILT-IN WORKLOADS of run's page: from ".TP"
 * and ".B NAME" to the next .TP, .SS or .SH; malloc'd, "" when none. */
static char *man_workload(const char *man, const char *name)
{
    char *all = man_section(man, ".SH ", "BUILT-IN");
    char pat[64];
    snprintf(pat, sizeof(pat), ".TP\n.B %s ", name);
    const char *at = strstr(all, pat);
    size_t n = 0;
    if (at) {
        const char *stop = at + strlen(pat);
        while (*stop && strncmp(stop, "\n.TP\n", 5) != 0 && strncmp(stop, "\n.SS ", 5) != 0 &&
               strncmp(stop, "\n.SH ", 5) != 0)
            stop++;
        n = (size_t)(stop - at);
    }
    char *s = calloc(1, n + 1);
    if (n)
        memcpy(s, at, n);
    free(all);
    return s;
}

/* Is the option in this text of the man page by each of its names: its
 * letter and its long name (roff writes each '-' as "\-")? */
static int in_man(const char *man, const struct nf_option *o)
{
    char pat[128];
    int seen = 1;
    if (o->name) {
        size_t k = 0;
        int found = 0;
        k += (size_t)snprintf(pat, sizeof(pat), "\\-\\-");
        for (const char *c = o->name; *c && k + 3 < sizeof(pat); c++)
            k += (size_t)snprintf(pat + k, sizeof(pat) - k, *c == '-' ? "\\-" : "%c", *c);
        for (const char *at = man; !found && (at = strstr(at, pat)) != NULL; at++)
            found = !isalnum((unsigned char)at[k]) && at[k] != '_' && at[k] != '\\';
        seen &= found;
    }
    if (o->letter) {
        int found = 0;
        snprintf(pat, sizeof(pat), "\\-%c", o->letter);
        for (const char *at = man; !found && (at = strstr(at, pat)) != NULL; at++)
            found = !isalnum((unsigned char)at[3]);
        seen &= found;
    }
    return seen;
}

/* Option sets that several commands include and the man pages describe
 * once, in the page of one command (profile takes "the same options" as
 * run). */
static const struct {
    const struct nf_opts *set;
    const char *home;
} shared[] = {{&nf_runspec_options, "run"}, {&nf_runspec_measure_options, "run"}};

static int man_misses;

/* Each option of t in its part of the man pages: sec, or for an option of
 * a shared set, the set's home command's page. */
static void check_man_in(const char *man, const char *what, const struct nf_opts *t,
                         const char *sec)
{
    for (const struct nf_option *o = t->options; o->kind != NF_OPTK_END; o++) {
        if (o->kind == NF_OPTK_GROUP)
            continue;
        if (o->kind == NF_OPTK_INCLUDE) {
            const char *home = NULL;
            for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
                if (o->sub == shared[i].set && strcmp(what, shared[i].home) != 0)
                    home = shared[i].home;
            if (!home) {
                check_man_in(man, what, o->sub, sec);
            } else {
                char *h = cmd_man(home);
                check_man_in(man, what, o->sub, h);
                free(h);
            }
            continue;
        }
        char name[80];
        if (o->name && o->letter)
            snprintf(name, sizeof(name), "-%c/--%s", o->letter, o->name);
        else if (o->name)
            snprintf(name, sizeof(name), "--%s", o->name);
        else
            snprintf(name, sizeof(name), "-%c", o->letter);
        if (!in_man(sec, o)) { /* all of them said, then the test fails */
            print_error("%s: %s is not in its part of the man pages\n", what, name);
            man_misses++;
        }
    }
}

/* Every option of every table is in the man pages, in the part that
 * describes its command (its page), workload (run's page) or the global
 * options (noisefloor(1)), by each of its names; each command has its page,
 * named in noisefloor(1), and each page is a command's. */
static void test_man_page(void **state)
{
    (void)state;
    char *man = read_man();
    man_misses = 0;
    char *sec = man_section(man, ".SH ", "GLOBAL");
    check_man_in(man, "noisefloor", &nf_main_opts, sec);
    struct nf_option help = {.kind = NF_OPTK_FLAG, .letter = 'h', .name = "help"};
    assert_true(in_man(sec, &help));
    free(sec);
    /* all: every page, for the checks of the whole text below. */
    char *all = NULL;
    size_t all_len = 0;
    FILE *allf = open_memstream(&all, &all_len);
    fputs(man, allf);
    size_t npages = 0;
    for (size_t i = 0; nf_commands[i].name; i++, npages++) {
        const char *name = nf_commands[i].name;
        char *page = read_cmd_page(name), want[128];
        fputs(page, allf);
        snprintf(want, sizeof(want), ".TH NOISEFLOOR\\-%s 1 ", name);
        for (char *c = want + 15; *c && *c != ' '; c++)
            *c = (char)toupper((unsigned char)*c);
        if (strncmp(page, want, strlen(want)) != 0)
            fail_msg("doc/noisefloor-%s.1 does not begin '%s'", name, want);
        snprintf(want, sizeof(want), "\n.SH NAME\nnoisefloor\\-%s \\- ", name);
        if (!strstr(page, want))
            fail_msg("doc/noisefloor-%s.1 has no NAME line 'noisefloor\\-%s \\- ...'", name, name);
        if (!strstr(page, "\n.SH SEE ALSO\n.BR noisefloor (1)"))
            fail_msg("doc/noisefloor-%s.1: SEE ALSO does not begin with noisefloor(1)", name);
        snprintf(want, sizeof(want), "\n.BR noisefloor\\-%s (1)\n", name);
        if (!strstr(man, want))
            fail_msg("doc/noisefloor.1 does not name the page of %s (%s)", name, want + 1);
        sec = cmd_part(page);
        check_man_in(man, name, nf_commands[i].opts, sec);
        free(sec);
        free(page);
    }
    fclose(allf);
    /* No page of a command that is not one (make install installs them all). */
    DIR *d = opendir("doc");
    assert_non_null(d);
    size_t found = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        const char *f = de->d_name;
        if (strncmp(f, "noisefloor-", 11) != 0)
            continue;
        int known = 0;
        for (size_t i = 0; nf_commands[i].name; i++) {
            size_t k = strlen(nf_commands[i].name);
            known |= strncmp(f + 11, nf_commands[i].name, k) == 0 && strcmp(f + 11 + k, ".1") == 0;
        }
        if (!known)
            fail_msg("doc/%s is the page of no command", f);
        found++;
    }
    closedir(d);
    assert_int_equal(found, npages);
    char *run = read_cmd_page("run");
    for (size_t i = 0; nf_workloads[i]; i++) {
        sec = man_workload(run, nf_workloads[i]->name);
        if (!*sec)
            fail_msg("doc/noisefloor-run.1 has no entry for workload %s", nf_workloads[i]->name);
        check_man_in(man, nf_workloads[i]->name, nf_workloads[i]->opts, sec);
        free(sec);
    }
    free(run);
    if (man_misses)
        fail_msg("%d options are not where the man pages describe their command", man_misses);
    struct nf_option nosuch = {.kind = NF_OPTK_FLAG, .name = "no-such-option"};
    assert_false(in_man(all, &nosuch));
    struct nf_option prefix = {.kind = NF_OPTK_FLAG, .name = "fail-on"}; /* --fail-on-regression */
    assert_false(in_man(all, &prefix));
    /* Both names, in the part of its own: compare's --seed is not ab's. */
    struct nf_option half = {.kind = NF_OPTK_FLAG, .letter = 'r', .name = "no-such-option"};
    assert_true(in_man(all, &(struct nf_option){.kind = NF_OPTK_FLAG, .letter = 'r'}));
    assert_false(in_man(all, &half));
    char *ab = cmd_man("ab");
    char *list = cmd_man("list");
    struct nf_option rounds = {.kind = NF_OPTK_STRING, .name = "rounds"};
    assert_true(in_man(ab, &rounds));
    assert_false(in_man(list, &rounds));
    /* A command's part is its own page's: list's is not show's. */
    assert_null(strstr(list, "show [\\-\\-json] RUN"));
    assert_non_null(strstr(all, "show [\\-\\-json] RUN"));
    free(ab);
    free(list);
    free(all);
    free(man);
}

/* The checker itself: a table whose help omits an option, or names one it
 * does not take, must be caught. */
struct two {
    int a, b;
};
static const struct nf_opts liar = {
    .usage = "noisefloor liar [--nosuch] X",
    .options =
        (const struct nf_option[]){NF_OPT_FLAG(0, "real", struct two, a, "real"), NF_OPT_END},
};
static const struct nf_opts mute = {
    .usage = "noisefloor mute",
    .options =
        (const struct nf_option[]){NF_OPT_FLAG('q', "quiet", struct two, a, "dup"), NF_OPT_END},
};

static void test_checker_fails(void **state)
{
    (void)state;
    char *text = render(nf_opts_help, &liar);
    struct toks k = {.n = 0};
    listed(text, &k);
    assert_true(has_tok(&k, "--nosuch"));
    assert_true(has_tok(&k, "--real"));
    assert_true(has_tok(&k, "-h"));
    assert_null(nf_opts_find(&liar, "--nosuch"));
    free(text);
    /* A hand-written line naming an option of nobody. */
    assert_false(known_anywhere("--nosuch"));
    assert_true(known_anywhere("--fail-on-regression"));
    assert_true(known_anywhere("--nr_loops"));
    /* -q/--quiet declared by a command clashes with the global one. */
    struct entries e = {.n = 0};
    collect(&mute, &e);
    collect(&nf_global_opts, &e);
    assert_string_equal(e.o[0]->name, e.o[2]->name);
    /* Tokens: not '+-', not 'x86-64', not '--' alone, not '-5'. */
    struct toks t = {.n = 0};
    const char *s = "mean +- CV, x86-64, -- CMD, -5, [-l LOOPS], -q/--quiet, 'perf stat -x,'";
    tokens(s, strlen(s), &t, 0);
    assert_int_equal(t.n, 4);
    assert_string_equal(t.t[0], "-l");
    assert_string_equal(t.t[1], "-q");
    assert_string_equal(t.t[2], "--quiet");
    assert_string_equal(t.t[3], "-x");
}

/* --test's names are the statistics module's. */
static void test_test_names(void **state)
{
    (void)state;
    const struct nf_option *o = nf_opts_find(&nf_cmd_cmp_options, "--test");
    assert_non_null(o);
    size_t n = 0;
    for (const struct nf_opt_choice *c = o->choices; c->name; c++, n++) {
        enum nf_test t;
        assert_int_equal(nf_test_parse(c->name, &t), 0);
        assert_int_equal((int)t, c->value);
        assert_string_equal(nf_test_name(t), c->name);
    }
    enum nf_test t;
    assert_int_equal(nf_test_parse("yuen", &t) == 0, n > 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commands),   cmocka_unit_test(test_workloads),
        cmocka_unit_test(test_main),       cmocka_unit_test(test_checker_fails),
        cmocka_unit_test(test_test_names), cmocka_unit_test(test_man_page),
    };
    return cmocka_run_group_tests_name("cli_help", tests, NULL, NULL);
}
