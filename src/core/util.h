/* Small helpers shared by every module: allocation that cannot fail
 * silently, error lines, number parsing, time. */
#ifndef NF_CORE_UTIL_H
#define NF_CORE_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdarg.h>

/* Size of every error buffer: a module returns 0 on success or -1 with one
 * line (no "noisefloor:" prefix, no newline) in a char[NF_ERR_LEN] its
 * caller passed (with its size); only src/cmd/ turns an error into an exit
 * code (nf_exit_code in cmd/cmd.h).  A function that returns a pointer
 * returns NULL instead of -1; one that counts returns the count (>= 0). */
#define NF_ERR_LEN 512

/* The one failure a caller may have to tell apart from -1: the input the
 * user gave is wrong (a file that is not ELF, a sysctl that does not exist,
 * a value the kernel refuses), so fixing the command line helps where
 * running again would not.  A function that can fail both ways says so in
 * its header and returns NF_EINPUT for this kind and -1 for the machine
 * failing (I/O, permissions, a library); src/cmd/ exits 2 and 1 for them. */
enum { NF_EINPUT = -2 };

/* Exit codes of the contract. */
enum { NF_EXIT_OK = 0, NF_EXIT_FAIL = 1, NF_EXIT_USAGE = 2, NF_EXIT_REGRESSION = 3 };

void *nf_xmalloc(size_t n);
void *nf_xcalloc(size_t n, size_t size);
void *nf_xrealloc(void *p, size_t n);
char *nf_xstrdup(const char *s);
char *nf_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "noisefloor: <message>" on stderr, one line: control bytes in the
 * message (quoted input) are written as '?', but for a newline that
 * begins an indented line ("\n    "), which a message may add. */
void nf_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The message of the last nf_err (as printed, without "noisefloor: "), or
 * "" when there was none: what a command's --json repeats of a failure a
 * helper told (src/cmd/: {"error": "..."}). */
const char *nf_err_last(void);
void nf_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int nf_quiet; /* -q: warnings suppressed */

/* Strict parsers: the whole string must be a number in range. 0 on success. */
int nf_parse_long(const char *s, long min, long max, long *out);
int nf_parse_double(const char *s, double *out);

/* A count at *p, past blanks (spaces, tabs), as the kernel prints them in
 * /proc: decimal digits, no sign.  1 with *v and *p past it, or 0 (*p
 * unchanged).  For the readers of /proc files, called per repetition. */
int nf_scan_count(const char **p, uint64_t *v);

/* Monotonic clock in nanoseconds. */
uint64_t nf_now_ns(void);
/* ISO 8601 UTC of the current time ("2026-11-30T03:20:02Z"). */
void nf_iso_time(char *buf, size_t len);

/* The name of this machine as runs and jobs record it:
 * $NOISEFLOOR_HOSTNAME when set and not empty (a test can play a fleet of
 * hosts on one machine), else gethostname(). */
void nf_hostname(char *buf, size_t len);
/* $NOISEFLOOR_HOSTNAME when set and not empty, else NULL. */
const char *nf_hostname_override(void);

/* Read a small text file (a /proc or /sys value, a state file): at most
 * NF_READ_FILE_MAX bytes, trailing newlines and blanks stripped.  NULL
 * with errno set if it cannot be opened or read, is not a regular file
 * (EINVAL: a FIFO, a device such as /dev/zero; opening does not block),
 * or is larger (EFBIG). */
#define NF_READ_FILE_MAX (1u << 20)
char *nf_read_file(const char *path);
/* The same for files that may be larger: at most max bytes; large ones
 * (/proc/kallsyms, a process's maps or command line) take
 * NF_READ_FILE_LARGE. */
#define NF_READ_FILE_LARGE (256u << 20)
char *nf_read_file_max(const char *path, size_t max);
/* Read all of f, at most max bytes, into a NUL-terminated buffer (its
 * length in *len).  NULL with errno set on a read error, or EFBIG, without
 * reading further, when f holds more than max bytes (a regular file larger
 * than that is refused before anything is read). */
char *nf_read_stream(FILE *f, size_t max, size_t *len);

/* Split a string into words as a shell would split a simple command line:
 * blanks separate words, '...' and "..." quote, \ escapes the next
 * character.  No expansion of any kind.  Returns a NULL-terminated array
 * (free with nf_free_words) and sets *argc; NULL with a line in err on an
 * unterminated quote. */
char **nf_split_words(const char *s, int *argc, char *err, size_t errlen);
void nf_free_words(char **words);

/* Whether [buf, buf+len) is UTF-8 without NUL bytes; *bad: the offset of
 * the first offending byte. */
int nf_utf8_valid(const char *buf, size_t len, size_t *bad);

/* The length of the UTF-8 character at p if it is one that changes how
 * text around it shows without being seen itself: a bidirectional
 * embedding, override or isolate (U+202A..U+202E, U+2066..U+2069), a
 * directional mark (U+200E, U+200F), a zero-width space or joiner
 * (U+200B..U+200D) or U+FEFF; else 0.  "v6.8-<U+202E>dexif" shows as
 * "v6.8-fixed". */
size_t nf_invisible_at(const unsigned char *p);

/* [*s, *s + *len) without the blanks around it. */
void nf_trim_span(const char **s, size_t *len);

/* A decimal number filling all of [s, s+len) exactly ([+-], digits with an
 * optional '.', an optional exponent; any number of digits), as measures
 * are written: not "nan", "inf", hex, "12abc" or "1,234".  NF_NUM_OK;
 * NF_NUM_NOT; or NF_NUM_LARGE when a double overflows (*out: inf),
 * NF_NUM_SMALL when a number that is not 0 underflows to 0 (1e-400).  A
 * subnormal (1e-320) is NF_NUM_OK.  One rule for every reader of
 * numbers: the importers and run --metric refuse both. */
enum { NF_NUM_OK = 0, NF_NUM_NOT, NF_NUM_LARGE, NF_NUM_SMALL };
int nf_decimal(const char *s, size_t len, double *out);

/* Up to 40 bytes of [s, s+len) for a message, into out: a byte that is
 * not printable becomes '?', and "..." marks what was cut. */
void nf_quote(char *out, size_t outlen, const char *s, size_t len);

/* Control bytes of s (C0, DEL, C1 in UTF-8) as '?', in place: text stored
 * as given (a command's arguments) printed in a table or a line. */
void nf_printable(char *s);
/* A copy of s made printable so (NULL for NULL); the caller frees it. */
char *nf_xprintable(const char *s);
/* Write s to out made printable so (labels, notes and names brought by
 * an import are stored as given). */
void nf_fputs_printable(const char *s, FILE *out);

#endif
