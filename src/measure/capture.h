/* What a command writes, and the numbers --metric takes from it.
 *
 * A command's stdout is kept only when a --metric needs it (otherwise it
 * goes to /dev/null, so it never mixes with our results), up to
 * NF_OUTPUT_MAX bytes and, of more, also its last NF_OUTPUT_LAST bytes
 * (whole lines), since harnesses print their result first or last: the
 * middle is dropped; of its stderr only the tail is kept, for the message
 * of a repetition that failed.  Both go to memory files (memfd, opened
 * O_APPEND) that the repetitions of a run share: the command writes as it
 * would to any file, nobody reads while it runs (so we never wake up to
 * drain a pipe beside the workload), and after the repetition, when all it
 * started is gone, one fstat says whether there is anything to read; the
 * file is then emptied for the next.  What a repetition writes is held in
 * memory until it ends.
 *
 * A --metric regex is checked once, when the option is parsed: at most
 * NF_CAPTURE_MAX_LEN bytes, groups nested at most NF_CAPTURE_MAX_DEPTH
 * deep (glibc's regcomp recurses once per level and runs out of stack in
 * the thousands), and compiled first in a child process under CPU-time
 * and memory limits (a short regex can still take regcomp minutes, such
 * as a run of thousands of '*', or nested counted repetitions); only a
 * regex that compiled there is compiled here, once, for every
 * repetition. */
#ifndef NF_MEASURE_CAPTURE_H
#define NF_MEASURE_CAPTURE_H

#include <stddef.h>

#include "measure/runspec.h"

#define NF_OUTPUT_MAX (16u << 20) /* stdout kept for --metric (bytes) */
#define NF_OUTPUT_LAST (1u << 20) /* and its end, when it wrote more */
#define NF_OUTPUT_TAIL 4096       /* stderr kept for error messages (bytes) */
#define NF_CAPTURE_MAX_LEN 4096   /* bytes of a --metric regex */
#define NF_CAPTURE_MAX_DEPTH 64   /* groups nested in a --metric regex */

struct nf_output {
    int null;     /* /dev/null: the command's stdin, and stdout when not kept */
    int out, err; /* the memory files for stdout (-1: not kept) and stderr */
    char *text;   /* the last repetition's stdout (n bytes, a NUL among them
                     too), NUL-terminated */
    size_t n, cap;
    unsigned long long written; /* the bytes it wrote to stdout */
    int cut;                    /* more than NF_OUTPUT_MAX + NF_OUTPUT_LAST: text is
                                   its first whole lines, then its last ones (the
                                   middle dropped) */
    size_t head;                /* when cut: the bytes of text from its first
                                   NF_OUTPUT_MAX (0: its first line runs past
                                   them); the rest are its last lines */
    char tail[NF_OUTPUT_TAIL];  /* the last bytes of its stderr */
    size_t tail_n;
};

/* /dev/null and the files: stderr always, stdout when want_stdout.  0, or
 * -1 with err (nothing left open). */
int nf_output_open(struct nf_output *o, int want_stdout, char *err, size_t errlen);
/* After a repetition whose processes are all gone: take what it wrote
 * (text, tail) and empty the files for the next one.  When stdout is
 * longer than NF_OUTPUT_MAX + NF_OUTPUT_LAST, text holds whole lines only
 * (a line cut by the limit could hold a number cut short): those that end
 * within the first NF_OUTPUT_MAX bytes, then those that start within the
 * last NF_OUTPUT_LAST; cut is set. */
void nf_output_collect(struct nf_output *o);
/* Append the last lines of stderr to err, each indented and prefixed
 * "stderr| ", as far as err has room; with stdout_too, stdout's when
 * stderr was empty. */
void nf_output_tail(const struct nf_output *o, int stdout_too, char *err, size_t errlen);
/* Each --metric's number from stdout into values[i] (as nf_capture_value,
 * over all n bytes of text: a NUL byte does not end it).  0, or -1 with err
 * naming the first that found none (saying so when the output was cut, and
 * when a line too long to keep left a part of it unsearched) or captured
 * text that is not a number, and the text, a NUL in it shown as '?' (name:
 * the command, for the message). */
int nf_output_captures(struct nf_output *o, const struct nf_capture *caps, int n, const char *name,
                       double *values, char *err, size_t errlen);
void nf_output_close(struct nf_output *o);

/* --metric NAME=REGEX at parse time: REGEX must be a POSIX extended regular
 * expression with a group, within the bounds above, NAME not one of the
 * command's own metrics.  0, or -1 with one line in err. */
int nf_capture_check(const char *name, const char *regex, char *err, size_t errlen);
/* nf_capture_check, then c->re compiled from c->regex (freed by
 * nf_capture_free). */
int nf_capture_prepare(struct nf_capture *c, char *err, size_t errlen);
void nf_capture_free(struct nf_capture *c);
/* The number the first group of REGEX's first match in text holds (POSIX
 * extended, line by line: ^ and $ match at each line, . not a newline).  The
 * group must be one finite decimal number as a whole, blanks around it
 * aside: -1 for "12abc", "1,234" or "1e999" as for no match. */
int nf_capture_value(const char *regex, const char *text, double *out);

#endif
