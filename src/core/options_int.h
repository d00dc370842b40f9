/* What the files of core/options share: the walk over a table and its
 * includes, and taking a value (both in options.c), used by the parser
 * over getopt_long (options_parse.c) and the --help writer
 * (options_help.c). */
#ifndef NF_CORE_OPTIONS_INT_H
#define NF_CORE_OPTIONS_INT_H

#include <stddef.h>

#include "core/options.h"

/* An entry found, with the base and flags of the table it is in. */
struct nf_opts_hit {
    const struct nf_option *o;
    char *base; /* NULL when only the entries matter (help) */
    unsigned flags;
};

typedef int (*nf_opts_visit_fn)(const struct nf_opts_hit *h, void *ctx);

/* Visit every entry (groups too, includes followed) until fn returns
 * non-zero; returns that. */
int nf_opts_walk(const struct nf_opts *t, char *base, nf_opts_visit_fn fn, void *ctx);

/* Not a group, an include or the end. */
int nf_opts_is_option(const struct nf_option *o);

/* The option's name in messages and the synopsis: "--repeat", or "-l" in
 * a table with NF_OPTS_LETTERS. */
const char *nf_opts_name(char *buf, size_t len, const struct nf_option *o, unsigned flags);

/* The entry takes a value (an argument word). */
int nf_opts_takes_value(const struct nf_option *o);

/* Store arg (NULL for an entry without a value) as entry h says, checking
 * bounds and converting: 0, or -1 with one line in err ("--loops wants a
 * loop count from 1 to 1000, not '0'"). */
int nf_opts_apply(const struct nf_opts_hit *h, const char *arg, char *err, size_t errlen);

/* -h/--help, accepted by every table and listed last in its --help. */
extern const struct nf_option nf_opts_help_opt;

#endif
