/* Numbers as text that read back exactly, in as few digits as that takes.
 *
 * "%.17g" reads back as the same double, but prints 0.05 as
 * 0.050000000000000003: exact, and not what anybody typed.  The shortest
 * form that strtod() turns back into the same double is both exact and
 * readable (0.05), as Python's repr() and JavaScript print numbers.  Every
 * JSON document and CSV file noisefloor writes uses it, so `import` of an
 * export still gets back every bit. */
#ifndef NF_CORE_NUMFMT_H
#define NF_CORE_NUMFMT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* Room for any double in its shortest form, with a sign, "e-308" and a
 * terminating NUL. */
#define NF_NUM_LEN 32

/* v (finite) in the fewest significant digits (1 to 17) that read back as
 * v, written as Python's repr writes them: plain for decimal exponents from
 * -4 to 15 (100, 0.0001, 123.456), with an exponent outside (1e-05,
 * 1e+16); returns buf.  An integral value keeps no ".0": this is for CSV
 * and text. */
char *nf_num_shortest(char buf[NF_NUM_LEN], double v);

/* json_dumpf, with every real number in the shortest form that reads back
 * as the same double (a real that is integral keeps its ".0", as jansson
 * prints it, so that it reads back as a real), and DEL and the C1
 * controls in strings as \u escapes (jansson escapes C0 only).  Strings
 * otherwise, integers and the layout (flags: JSON_INDENT and the rest) are
 * jansson's.  0, or -1 when jansson or the write failed. */
int nf_json_dumpf(const json_t *j, FILE *out, size_t flags);

/* The flags of the JSON documents the commands print and export: indented
 * by two, reals to 17 digits, which read back exactly (nf_json_dumpf then
 * writes each in the shortest form that still does). */
#define NF_JSON_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(17))

/* As json_dump_callback, the same rewriting on the way to cb. */
int nf_json_dump_callback(const json_t *j, json_dump_callback_t cb, void *data, size_t flags);

#endif
