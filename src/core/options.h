/* Declarative command-line options, in the spirit of perf's parse-options
 * (OPT_INTEGER('r', "repeat", &run_count, "...")) and git's
 * parse_options_concat(): a command or workload declares one table, and the
 * parser, its error messages and the --help text all come from it.
 *
 * A table (struct nf_opts) is a static const object: its entries name a
 * destination by its offset in a struct (the table's base), so one table
 * serves every parse (ab parses one run table per variant) and a test can
 * walk every table without running anything.  A table includes another at
 * an offset (NF_OPT_INCLUDE), which is how the run options, the statistics
 * options and the run selection are shared.
 *
 *     struct pipe_cfg { long loops; int threads; };
 *     static const struct nf_opts pipe_opts = {
 *         .usage = "noisefloor run [OPTIONS] pipe",
 *         .options = (const struct nf_option[]){
 *             NF_OPT_INT('l', "loop", struct pipe_cfg, loops, 1, 1000000000L,
 *                        "a loop count", "LOOPS", "round trips", NF_DEF("1000000")),
 *             NF_OPT_FLAG('T', "threaded", struct pipe_cfg, threads, "two threads"),
 *             NF_OPT_END,
 *         },
 *     };
 *     struct pipe_cfg cfg = {0};
 *     int first, rc = nf_opts_defaults(&pipe_opts, &cfg, err, len);  (loops = 1000000)
 *     if (rc == 0)
 *         rc = nf_opts_parse(&pipe_opts, &cfg, argc, argv, &first, err, len);
 *
 * glibc's getopt_long scans the words (core/options_parse.c flattens the
 * table into its optstring and struct option array for each parse), so
 * they mean what they mean to any GNU tool: `--name value`, `--name=value`,
 * a unique prefix of a long name (`--he` is --help when nothing else
 * starts so), `-x value`, `-xvalue`, bundled letters (`-pt`), `--` ends
 * the options, `-` alone is not an option, and -h/--help is accepted by
 * every table.  A value is the next word whatever it looks like
 * (`--top -1`).  Without NF_OPTS_STOP the words that are not options may
 * stand anywhere and getopt_long moves them behind the options (unless
 * POSIXLY_CORRECT is set in the environment, which makes it stop at the
 * first one as NF_OPTS_STOP does).  The messages are the table's own, one
 * line each; getopt_long prints nothing.  getopt_long's state is global: a
 * parse starts it afresh, and two threads must not parse at once. */
#ifndef NF_CORE_OPTIONS_H
#define NF_CORE_OPTIONS_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>

enum nf_opt_kind {
    NF_OPTK_END = 0,
    NF_OPTK_FLAG,     /* int = the entry's value (1, or NF_OPT_SET's) */
    NF_OPTK_COUNTER,  /* int += 1 each time given */
    NF_OPTK_INT,      /* int, long or unsigned long within [min, max] */
    NF_OPTK_DOUBLE,   /* double within lo..hi (each end open or closed) */
    NF_OPTK_STRING,   /* char * into argv (the last one given wins) */
    NF_OPTK_CHOICE,   /* one of named values, stored in an int-sized field */
    NF_OPTK_LIST,     /* repeatable: every value, in order (struct nf_optlist) */
    NF_OPTK_CALLBACK, /* a function takes the value (or none: arg NULL) */
    NF_OPTK_GROUP,    /* a heading in --help; not an option */
    NF_OPTK_INCLUDE,  /* another table's options, at base + off */
};

/* The integer types an NF_OPT_INT destination may have. */
enum { NF_OPTT_INT = 1, NF_OPTT_LONG, NF_OPTT_ULONG };

/* Entry flags. */
#define NF_OPTF_NOEMPTY 0x01 /* STRING, LIST: "" is refused */
#define NF_OPTF_LO_OPEN 0x02 /* DOUBLE: lo itself is refused */
#define NF_OPTF_HI_OPEN 0x04 /* DOUBLE: hi itself is refused */

/* Table flags. */
#define NF_OPTS_STOP 0x01 /* options end at the first word that is not one */
/* A "--" ending the options stays as argv[first]; the options end at the
 * first word that is not one, as with NF_OPTS_STOP. */
#define NF_OPTS_KEEP_DASHDASH 0x02
#define NF_OPTS_LETTERS                                                                            \
    0x04                      /* messages and the synopsis name an option by its                   \
                                 letter (workloads that mirror perf bench's -l) */
#define NF_OPTS_SYNOPSIS 0x08 /* append "[-l LOOPS] [-T]" to the first usage line */

/* nf_opts_parse's return when -h or --help was given. */
#define NF_OPTS_HELP 1

struct nf_option;
struct nf_opts;

/* A CALLBACK takes its value (NULL when the entry has no arg): 0, or -1
 * with one line in err.  base is the base of the table the entry is in. */
typedef int (*nf_opt_fn)(const struct nf_option *o, void *base, const char *arg, char *err,
                         size_t errlen);
/* A CALLBACK's value in base as nf_opts_render writes it: one word (NUL-
 * terminated in buf), the same for the same value however it was spelt
 * (netsend's `-m 064,128` and `-m 64,128` are "64,128").  0, or -1 when
 * it does not fit. */
typedef int (*nf_opt_show_fn)(const struct nf_option *o, const void *base, char *buf, size_t len);

struct nf_opt_choice { /* {NULL}-terminated */
    const char *name;
    int value;
};

/* A LIST destination: the values in order (pointers into argv), v[n] NULL. */
struct nf_optlist {
    const char **v;
    size_t n;
};
void nf_optlist_add(struct nf_optlist *l, const char *s);
void nf_optlist_free(struct nf_optlist *l); /* the array; the strings are argv's */

struct nf_option {
    enum nf_opt_kind kind;
    char letter;         /* short name (a letter or digit), or 0 */
    const char *name;    /* long name without "--", or NULL */
    size_t off;          /* destination: offset in the base */
    const char *arg;     /* the value's name in --help ("N"); NULL: takes no value */
    const char *help;    /* --help text; "\n" continues on an indented line */
    const char *what;    /* INT, DOUBLE: the value in messages ("a loop count") */
    unsigned char itype; /* INT: NF_OPTT_* */
    unsigned char flags; /* NF_OPTF_* */
    long min, max;       /* INT: bounds; FLAG: the value set; LIST: most values (0: any) */
    double lo, hi;       /* DOUBLE: bounds (+-INFINITY: none) */
    const struct nf_opt_choice *choices; /* CHOICE */
    nf_opt_fn fn;                        /* CALLBACK */
    nf_opt_show_fn show;                 /* CALLBACK: its value as a word, or NULL */
    const struct nf_opts *sub;           /* INCLUDE */
    /* The default, as --help shows it: "(default: 10)".  A word the
     * option takes, which nf_opts_defaults stores (INT, DOUBLE, STRING,
     * CHOICE, CALLBACK); with def_text, words that describe it ("uname -r"), which
     * only --help shows and the command applies itself. */
    const char *def;
    unsigned char def_text;
};

struct nf_opts {
    const char *usage; /* synopsis, "\n" between lines: "noisefloor compare [OPTIONS] ..." */
    const char *about; /* what the command does, after the synopsis */
    const struct nf_option *options; /* NF_OPT_END-terminated */
    const char *footer;              /* after the options */
    void (*epilogue)(FILE *out);     /* more text made at run time (a list of workloads) */
    unsigned flags;                  /* NF_OPTS_* */
};

/* --- declaring entries: T is the base's type, f the field ----------------
 * The field's type is checked at compile time.  After the help text an
 * entry may take more designators: NF_DEF("10") (its default, which
 * --help shows and nf_opts_defaults stores), NF_DEF_TEXT("uname -r") (a
 * default --help only describes). */
#define NF_DEF(word) .def = (word)
#define NF_DEF_TEXT(words) .def = (words), .def_text = 1
#define NF_OPT_FIELD_(T, f, type) _Generic(((T *)0)->f, type : offsetof(T, f))
#define NF_OPT_STRFIELD_(T, f)                                                                     \
    _Generic(((T *)0)->f, char * : offsetof(T, f), const char * : offsetof(T, f))
#define NF_OPT_ITYPE_(T, f)                                                                        \
    _Generic(((T *)0)->f, int : NF_OPTT_INT, long : NF_OPTT_LONG, unsigned long : NF_OPTT_ULONG)
#define NF_OPT_INTSIZED_(T, f)                                                                     \
    (offsetof(T, f) + 0 * sizeof(char[sizeof(((T *)0)->f) == sizeof(int) ? 1 : -1]))

#define NF_OPT_END                                                                                 \
    {                                                                                              \
        .kind = NF_OPTK_END                                                                        \
    }
#define NF_OPT_GROUP(heading)                                                                      \
    {                                                                                              \
        .kind = NF_OPTK_GROUP, .help = (heading)                                                   \
    }
/* Another table's options; their base is this table's base + offset. */
#define NF_OPT_INCLUDE(table, offset)                                                              \
    {                                                                                              \
        .kind = NF_OPTK_INCLUDE, .sub = (table), .off = (offset)                                   \
    }
#define NF_OPT_FLAG(s, l, T, f, h, ...)                                                            \
    {                                                                                              \
        .kind = NF_OPTK_FLAG, .letter = (s), .name = (l), .off = NF_OPT_FIELD_(T, f, int),         \
        .help = (h), .min = 1, __VA_ARGS__                                                         \
    }
/* A flag that stores v (--no-progress stores 0). */
#define NF_OPT_SET(s, l, T, f, v, h, ...)                                                          \
    {                                                                                              \
        .kind = NF_OPTK_FLAG, .letter = (s), .name = (l), .off = NF_OPT_FIELD_(T, f, int),         \
        .help = (h), .min = (v), __VA_ARGS__                                                       \
    }
#define NF_OPT_COUNTER(s, l, T, f, h, ...)                                                         \
    {                                                                                              \
        .kind = NF_OPTK_COUNTER, .letter = (s), .name = (l), .off = NF_OPT_FIELD_(T, f, int),      \
        .help = (h), __VA_ARGS__                                                                   \
    }
/* An integer in [mn, mx]; the field is int, long or unsigned long. */
#define NF_OPT_INT(s, l, T, f, mn, mx, wh, a, h, ...)                                              \
    {                                                                                              \
        .kind = NF_OPTK_INT, .letter = (s), .name = (l), .off = offsetof(T, f),                    \
        .itype = NF_OPT_ITYPE_(T, f), .min = (mn), .max = (mx), .what = (wh), .arg = (a),          \
        .help = (h), __VA_ARGS__                                                                   \
    }
/* A double from lo to hi; bounds: 0 (both closed) or NF_OPTF_LO_OPEN and/or
 * NF_OPTF_HI_OPEN; INFINITY for no bound. */
#define NF_OPT_DOUBLE(s, l, T, f, l0, h0, bounds, wh, a, h, ...)                                   \
    {                                                                                              \
        .kind = NF_OPTK_DOUBLE, .letter = (s), .name = (l), .off = NF_OPT_FIELD_(T, f, double),    \
        .lo = (l0), .hi = (h0), .flags = (bounds), .what = (wh), .arg = (a), .help = (h),          \
        __VA_ARGS__                                                                                \
    }
#define NF_OPT_STRING(s, l, T, f, a, h, ...)                                                       \
    {                                                                                              \
        .kind = NF_OPTK_STRING, .letter = (s), .name = (l), .off = NF_OPT_STRFIELD_(T, f),         \
        .arg = (a), .help = (h), __VA_ARGS__                                                       \
    }
#define NF_OPT_STRING_NOEMPTY(s, l, T, f, a, h, ...)                                               \
    {                                                                                              \
        .kind = NF_OPTK_STRING, .letter = (s), .name = (l), .off = NF_OPT_STRFIELD_(T, f),         \
        .arg = (a), .help = (h), .flags = NF_OPTF_NOEMPTY, __VA_ARGS__                             \
    }
/* One of the names of ch (a {NULL}-terminated nf_opt_choice array); the
 * field (an int or an enum) gets its value.  a NULL: "lower|higher". */
#define NF_OPT_CHOICE(s, l, T, f, ch, a, h, ...)                                                   \
    {                                                                                              \
        .kind = NF_OPTK_CHOICE, .letter = (s), .name = (l), .off = NF_OPT_INTSIZED_(T, f),         \
        .choices = (ch), .arg = (a), .help = (h), __VA_ARGS__                                      \
    }
/* Repeatable; at most mx values (0: any). */
#define NF_OPT_LIST(s, l, T, f, mx, a, h, ...)                                                     \
    {                                                                                              \
        .kind = NF_OPTK_LIST, .letter = (s), .name = (l),                                          \
        .off = NF_OPT_FIELD_(T, f, struct nf_optlist), .max = (mx), .arg = (a), .help = (h),       \
        __VA_ARGS__                                                                                \
    }
#define NF_OPT_LIST_NOEMPTY(s, l, T, f, mx, a, h, ...)                                             \
    {                                                                                              \
        .kind = NF_OPTK_LIST, .letter = (s), .name = (l),                                          \
        .off = NF_OPT_FIELD_(T, f, struct nf_optlist), .max = (mx), .arg = (a), .help = (h),       \
        .flags = NF_OPTF_NOEMPTY, __VA_ARGS__                                                      \
    }
/* fn(entry, base, value, err, errlen); a NULL: the option takes no value. */
#define NF_OPT_CALLBACK(s, l, f, a, h, ...)                                                        \
    {                                                                                              \
        .kind = NF_OPTK_CALLBACK, .letter = (s), .name = (l), .fn = (f), .arg = (a), .help = (h),  \
        __VA_ARGS__                                                                                \
    }

/* A CALLBACK that nf_opts_render can write back: sh shows its value. */
#define NF_OPT_CALLBACK_SHOW(s, l, f, sh, a, h, ...)                                               \
    {                                                                                              \
        .kind = NF_OPTK_CALLBACK, .letter = (s), .name = (l), .fn = (f), .show = (sh), .arg = (a), \
        .help = (h), __VA_ARGS__                                                                   \
    }

/* --- using a table ------------------------------------------------------- */

/* Parse argv[1..argc-1] (argv[0] is the command's name) into base.
 * Returns 0 with *first the index of the first word that is not an option
 * (those words are argv[*first..argc-1], in their order); NF_OPTS_HELP when
 * -h or --help was given (nothing after it is looked at); -1 with one line
 * in err ("unknown option '--x'", "option '--repeat' needs a value",
 * "--repeat wants a count from 1 to 1000000, not 'x'").  No "command:"
 * prefix: the caller adds its own. */
int nf_opts_parse(const struct nf_opts *opts, void *base, int argc, char **argv, int *first,
                  char *err, size_t errlen);

/* Store every entry's NF_DEF default in base (includes followed), as if
 * it had been given: 0, or -1 with one line in err when a default does
 * not parse (a defect of the table). */
int nf_opts_defaults(const struct nf_opts *opts, void *base, char *err, size_t errlen);

/* The values of base (a base the table filled) that differ from those of
 * defaults (the base as parsing no words leaves it), as words that parse
 * back to base: so two command lines that set the same values (`-l 20000
 * -T`, `-T -l 20000`, `--loop=20000 --threaded`, and `-l 1000000` where
 * that is the default, which gives no words) give the same words.
 *   - In the table's order (includes followed), each field once.
 *   - An option by the name its messages use (nf_opts_name: the letter in
 *     an NF_OPTS_LETTERS table, else the long name), its value as the
 *     next word: `-l` `20000`, never `--loop=20000` or `-l20000`.
 *   - Numbers as the parser read them (`-l 0x10` gives `16`); a double in
 *     the fewest digits that read back the same (`.5`, `0.50` give `0.5`).
 *   - A flag bare (the entry of its field that sets the value held); a
 *     counter once per step above its default; a choice by its name; a
 *     list once per value after the default's; a CALLBACK by its show.
 * Returns 0 with *words (NULL-terminated; nf_free_words) and their count
 * in *n; -1 with one line in err when a value has no such spelling (a
 * CALLBACK without show, a flag field holding a value no entry sets, a
 * choice no name gives). */
int nf_opts_render(const struct nf_opts *opts, const void *base, const void *defaults,
                   char ***words, size_t *n, char *err, size_t errlen);

/* Take the table's options out of argv wherever they stand before a "--"
 * (main's global options, accepted among any command's words): exact names,
 * `--name=value`, no abbreviations or bundles.  Returns the new argc
 * (argv[argc] = NULL), or -1 with one line in err. */
int nf_opts_take(const struct nf_opts *opts, void *base, int argc, char **argv, char *err,
                 size_t errlen);

/* The whole --help text: synopsis, about, options (-h/--help last), footer,
 * epilogue. */
void nf_opts_help(FILE *out, const struct nf_opts *opts);
/* Only the option lines, as in --help. */
void nf_opts_print_options(FILE *out, const struct nf_opts *opts);
/* The options on one line: "--db PATH, -q/--quiet, --no-progress". */
void nf_opts_print_brief(FILE *out, const struct nf_opts *opts);

/* The entry a word names exactly ("--repeat", "--repeat=5", "-r"; not a
 * prefix, not a bundle), includes followed; -h/--help give a built-in
 * entry.  NULL if none. */
const struct nf_option *nf_opts_find(const struct nf_opts *opts, const char *word);

#endif
