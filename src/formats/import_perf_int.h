/* What the perf stat importers share: the blocks of an invocation
 * (import_perf_acc.c), for -x, and -j (import_perf.c) and for the text
 * output (import_perf_text.c), whose numbers import_perf_text_num.c reads.
 *
 * One file is one run.  perf prints one line per event per invocation; an
 * invocation is a "block" of lines, and each block is one repetition.  A
 * block ends when an event seen in it appears again, or at a "# started on"
 * header (which `-o FILE --append` writes before each invocation).  With
 * `-r N` perf prints only the mean of the N repetitions and its relative
 * standard error (the "variance" column): that mean becomes the block's one
 * value, and the run's note says so.  So three `perf stat -r 10` invocations
 * appended to one file import as a run of three values, each the mean of ten
 * — the between-invocation variance that doc/cases.md's third case found to
 * be the real one.
 *
 * Every event must be in every block.  "<not supported>" means the machine
 * cannot count the event: it is stored unsupported, without values (never
 * as 0), and must then be <not supported> in every block (a file where it
 * is counted in some was not made on one machine).  "<not counted>" means
 * the event exists but never ran in that invocation (multiplexed out in a
 * short run, or enabled too late: -D): a metric holds one value per
 * repetition, so such an event is stored unsupported too, without the
 * values of the invocations that did count it, with a warning and a note
 * on the run that say in how many invocations it was not counted, and
 * with its flag not_counted set (core/run.h), which tells the two apart. */
#ifndef NF_FORMATS_IMPORT_PERF_INT_H
#define NF_FORMATS_IMPORT_PERF_INT_H

#include <stddef.h>

#include "formats/import_int.h"

/* What perf printed for an event of one invocation. */
enum perf_count {
    PERF_COUNTED,
    PERF_NOT_COUNTED,   /* "<not counted>" */
    PERF_NOT_SUPPORTED, /* "<not supported>" */
};

/* Per event (metric of the run). */
struct perf_ev {
    unsigned char seen;   /* in the current block */
    size_t blocks;        /* blocks it was in, the current one included */
    size_t not_counted;   /* of those, the ones where it was <not counted> */
    size_t not_supported; /* and <not supported> */
};

struct perf_acc {
    const struct nf_import_opts *o;
    struct nf_run *run;
    size_t blocks;      /* finished blocks */
    size_t in_block;    /* events seen in the current block */
    struct perf_ev *ev; /* per metric */
    size_t block_line;  /* first line of the current block */
    int variance;       /* -r output seen */
    int dated;          /* started taken from a header */
    size_t after_event; /* the line of the last event, or of a derived
                           metric's line after it; 0 after a header */
    char *err;
    size_t errlen;
};

/* One event line: value and pct (the percentage of the time it ran) when
 * c is PERF_COUNTED. */
int perf_acc_add(struct perf_acc *a, size_t line, const char *event, const char *unit,
                 enum perf_count c, double value, double pct);
/* The current block is over. */
int perf_acc_close_block(struct perf_acc *a, size_t line);
/* A '#' line: "# started on Mon Nov 30 03:25:58 2026" (local time) ends
 * the block and dates the run; any other is ignored. */
int perf_acc_header(struct perf_acc *a, const char *s, size_t len, size_t line);
/* A line of one of perf's derived metrics: skipped, but only right after
 * an event's line (or another such line). */
int perf_acc_metric_line(struct perf_acc *a, size_t line);
/* The end of the file: the last block, the events <not counted> in some
 * (see above), the primary metric (task-clock as perf leads with it,
 * else fallback when given and counted, else the first counted event),
 * the note.  what names the format for "expected at least one line of
 * WHAT" ("perf stat -x, output"). */
int perf_acc_finish(struct perf_acc *a, size_t line, const char *what, const char *fallback);

/* A run for the file, pushed onto runs (freed with them on failure). */
void perf_acc_init(struct perf_acc *a, const struct nf_import_opts *o, struct nf_run ***runs,
                   size_t *n, char *err, size_t errlen);
void perf_acc_free(struct perf_acc *a);
/* -1 with one line in err when the last line of buf does not end with a
 * newline (perf ends every line with one: the file was cut off). */
int perf_whole_lines(const char *buf, size_t len, const struct nf_import_opts *o, char *err,
                     size_t errlen);
/* " (perf stat's text output: --format perf-stat)" when s is a line of
 * that output that -x, and -j never write, else "": for their messages. */
const char *perf_text_hint(const char *s, size_t len);
/* A line perf writes among its counts that holds none: the "Events
 * disabled" and "Events enabled" of -D (--delay). */
int perf_message(const char *s, size_t len);

/* A number as perf's text output prints it in any locale
 * (import_perf_text_num.c): 0 and the number in *out, or -1.  A time or a
 * percentage: digits, with '.' or ',' as the point, never grouped.  A
 * count: its thousands grouped and its point as the locale has them. */
int perf_text_decimal(const char *s, size_t len, double *out);
int perf_text_count(const char *s, size_t len, double *out);

/* One line of a file: 0, or -1 with the failure in a->err. */
typedef int (*perf_line_fn)(struct perf_acc *, const char *, size_t, size_t);
/* The file's lines through fn (blank ones and perf_message() skipped,
 * '#' ones to perf_acc_header) into one run pushed onto runs. */
int perf_parse_lines(const char *buf, size_t len, const struct nf_import_opts *o,
                     struct nf_run ***runs, size_t *n, char *err, size_t errlen, perf_line_fn fn,
                     const char *what);

/* PERF_NOT_SUPPORTED for "<not supported>", PERF_NOT_COUNTED for "<not
 * counted>", PERF_COUNTED for anything else. */
enum perf_count perf_uncounted(const char *s, size_t len);
/* The failure for output that is not one measurement per invocation
 * (what: "interval output (-I)", ...). */
int perf_not_per_invocation(struct perf_acc *a, size_t line, const char *what);
int perf_all_digits(const char *s, size_t len);
/* The kind of place a field names (-A, --per-socket, --per-die,
 * --per-core, --per-node), or NULL. */
const char *perf_place_field(const char *s, size_t len);
/* "COMM-TID", as --per-thread names a thread. */
int perf_thread_field(const char *s, size_t len);

#endif
