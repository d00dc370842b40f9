/* The --help writer over the tables of core/options.h: the option lines,
 * the one-line list, the whole text. */
#include <string.h>

#include "core/options.h"
#include "core/options_int.h"

/* --- help ---------------------------------------------------------------- */

#define HELP_COL_MAX 30
#define HELP_WIDTH 80 /* an option line's default moves to a line of its own past it */

/* "  -r, --repeat N" */
static void left_column(char *buf, size_t len, const struct nf_option *o)
{
    size_t k;
    if (o->letter && o->name)
        k = (size_t)snprintf(buf, len, "  -%c, --%s", o->letter, o->name);
    else if (o->letter)
        k = (size_t)snprintf(buf, len, "  -%c", o->letter);
    else
        k = (size_t)snprintf(buf, len, "      --%s", o->name);
    if (k >= len)
        return;
    if (o->arg) {
        snprintf(buf + k, len - k, " %s", o->arg);
    } else if (o->kind == NF_OPTK_CHOICE) {
        for (size_t i = 0; o->choices[i].name && k < len; i++)
            k += (size_t)snprintf(buf + k, len - k, "%c%s", i ? '|' : ' ', o->choices[i].name);
    }
}

static int width_visit(const struct nf_opts_hit *h, void *ctx)
{
    int *w = ctx;
    char buf[256];
    if (!nf_opts_is_option(h->o))
        return 0;
    left_column(buf, sizeof(buf), h->o);
    int len = (int)strlen(buf);
    if (len > *w && len <= HELP_COL_MAX)
        *w = len;
    return 0;
}

struct print_ctx {
    FILE *out;
    int col;
    int lines; /* printed so far */
};

static void print_entry(FILE *out, const struct nf_option *o, int col)
{
    char buf[256];
    left_column(buf, sizeof(buf), o);
    int len = (int)strlen(buf);
    fputs(buf, out);
    const char *h = o->help ? o->help : "";
    if (len > col - 2 && *h)
        fprintf(out, "\n%*s", col, "");
    else
        fprintf(out, "%*s", col - len, "");
    for (const char *nl; (nl = strchr(h, '\n')) != NULL; h = nl + 1)
        fprintf(out, "%.*s\n%*s", (int)(nl - h), h, col, "");
    fputs(h, out);
    if (o->def) { /* on the last line, or a line of its own past the width */
        int last = col + (int)strlen(h);
        int more = (int)strlen(o->def) + (int)sizeof(" (default: )") - 1;
        if (*h && last + more > HELP_WIDTH)
            fprintf(out, "\n%*s(default: %s)", col, "", o->def);
        else
            fprintf(out, "%s(default: %s)", *h ? " " : "", o->def);
    }
    fputc('\n', out);
}

static int print_visit(const struct nf_opts_hit *h, void *ctx)
{
    struct print_ctx *p = ctx;
    if (h->o->kind == NF_OPTK_GROUP)
        fprintf(p->out, "%s%s\n", p->lines ? "\n" : "", h->o->help);
    else if (nf_opts_is_option(h->o))
        print_entry(p->out, h->o, p->col);
    p->lines++;
    return 0;
}

void nf_opts_print_options(FILE *out, const struct nf_opts *t)
{
    int w = 0;
    nf_opts_walk(t, NULL, width_visit, &w);
    width_visit(&(struct nf_opts_hit){&nf_opts_help_opt, NULL, 0}, &w);
    struct print_ctx p = {out, w + 2, 0};
    nf_opts_walk(t, NULL, print_visit, &p);
    print_entry(out, &nf_opts_help_opt, p.col);
}

struct brief_ctx {
    FILE *out;
    int n;
    int synopsis; /* "[-l LOOPS]" rather than "-l/--loop LOOPS" */
};

static int brief_visit(const struct nf_opts_hit *h, void *ctx)
{
    struct brief_ctx *b = ctx;
    const struct nf_option *o = h->o;
    if (!nf_opts_is_option(o))
        return 0;
    char name[64], arg[200] = "";
    if (o->arg) {
        snprintf(arg, sizeof(arg), " %s", o->arg);
    } else if (o->kind == NF_OPTK_CHOICE) {
        size_t k = 0;
        for (size_t i = 0; o->choices[i].name && k < sizeof(arg); i++)
            k += (size_t)snprintf(arg + k, sizeof(arg) - k, "%c%s", i ? '|' : ' ',
                                  o->choices[i].name);
    }
    if (b->synopsis)
        fprintf(b->out, " [%s%s]", nf_opts_name(name, sizeof(name), o, h->flags), arg);
    else if (o->letter && o->name)
        fprintf(b->out, "%s-%c/--%s%s", b->n ? ", " : "", o->letter, o->name, arg);
    else
        fprintf(b->out, "%s%s%s", b->n ? ", " : "", nf_opts_name(name, sizeof(name), o, 0), arg);
    b->n++;
    return 0;
}

void nf_opts_print_brief(FILE *out, const struct nf_opts *t)
{
    struct brief_ctx b = {out, 0, 0};
    nf_opts_walk(t, NULL, brief_visit, &b);
}

/* s, then a newline unless s ends with one. */
static void put_para(FILE *out, const char *s)
{
    size_t n = strlen(s);
    fputs(s, out);
    if (n == 0 || s[n - 1] != '\n')
        fputc('\n', out);
}

void nf_opts_help(FILE *out, const struct nf_opts *t)
{
    const char *u = t->usage ? t->usage : "";
    for (int line = 0; line == 0 || *u; line++) {
        const char *nl = strchr(u, '\n');
        int len = nl ? (int)(nl - u) : (int)strlen(u);
        fprintf(out, "%s%.*s", line ? "       " : "usage: ", len, u);
        if (line == 0 && (t->flags & NF_OPTS_SYNOPSIS)) {
            struct brief_ctx b = {out, 0, 1};
            nf_opts_walk(t, NULL, brief_visit, &b);
        }
        fputc('\n', out);
        u = nl ? nl + 1 : u + len;
    }
    if (t->about) {
        fputc('\n', out);
        put_para(out, t->about);
    }
    fputc('\n', out);
    nf_opts_print_options(out, t);
    if (t->footer) {
        fputc('\n', out);
        put_para(out, t->footer);
    }
    if (t->epilogue)
        t->epilogue(out);
}
