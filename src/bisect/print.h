/* What noisefloor bisect prints of a bisection (doc/noisefloor-bisect.1):
 * the table's rows as they are decided, the end of a bisection (text or
 * JSON), the replayable log's rows, and that log read back (replay). */
#ifndef NF_BISECT_PRINT_H
#define NF_BISECT_PRINT_H

#include <stddef.h>

#include "bisect/bisect.h" /* bisect/state.h: struct nf_bmark */

/* A row of the table on stdout, its header before the endpoint check's;
 * ctx is the step count (size_t *), as nf_bisect_io's row callback. */
void nf_bisect_text_row(void *ctx, const struct nf_brow *r);
/* The end of a bisection on stdout: the final line and the counts, or
 * (json) the JSON of doc/noisefloor-bisect.1. */
void nf_bisect_print_end(const struct nf_bisect_out *o, int json);
/* A row as the log's lines on stdout: a comment, then (a step decided
 * good, bad or skip) the line replay takes; ctx unused. */
void nf_bisect_log_row(void *ctx, const struct nf_brow *r);
/* Read a bisect log (nf_bisect_log_row's lines after its start line):
 * its "noisefloor bisect start ..." line into *start_line (allocated,
 * without the newline) and its good, bad and skip lines into *marks
 * (allocated, *nmarks of them; none with remeasure).  0, or -1 with one
 * line in err (the file unreadable, a line that is not a mark, no start
 * line). */
int nf_bisect_read_log(const char *file, int remeasure, char **start_line, struct nf_bmark **marks,
                       size_t *nmarks, char *err, size_t errlen);

#endif
