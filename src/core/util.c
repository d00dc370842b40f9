#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int nf_quiet;

static void oom(void)
{
    fputs("noisefloor: out of memory\n", stderr);
    exit(NF_EXIT_FAIL);
}

void *nf_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *nf_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *nf_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        oom();
    return p;
}

char *nf_xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p)
        oom();
    return p;
}

char *nf_xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    int r = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (r < 0)
        oom();
    return s;
}

size_t nf_invisible_at(const unsigned char *p)
{
    if (p[0] == 0xe2 && p[1] == 0x80 &&
        ((p[2] >= 0x8b && p[2] <= 0x8f) || (p[2] >= 0xaa && p[2] <= 0xae)))
        return 3;
    if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)
        return 3;
    if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
        return 3;
    return 0;
}

/* C0 control bytes, DEL and the C1 controls in UTF-8 of s as '?', in
 * place; with keep_indent, a newline followed by four spaces stays. */
static void printable(char *s, int keep_indent)
{
    unsigned char *u = (unsigned char *)s;
    for (size_t i = 0; u[i]; i++) {
        if (keep_indent && u[i] == '\n' && strncmp(s + i + 1, "    ", 4) == 0)
            continue;
        if (u[i] < 0x20 || u[i] == 0x7f)
            u[i] = '?';
        else if (u[i] == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f)
            u[i] = u[i + 1] = '?';
    }
}

void nf_printable(char *s)
{
    printable(s, 0);
}

char *nf_xprintable(const char *s)
{
    if (!s)
        return NULL;
    char *p = nf_xstrdup(s);
    printable(p, 0);
    return p;
}

void nf_fputs_printable(const char *s, FILE *out)
{
    char *p = nf_xprintable(s);
    if (p)
        fputs(p, out);
    free(p);
}

/* One line on stderr: the prefix, the message, a newline.  What the
 * message quotes of the user's input (a label, an argument, a line of a
 * file) cannot break the line or reach the terminal as an escape: C0
 * control bytes, DEL and the C1 controls in UTF-8 are written as '?'.
 * Only a newline followed by four spaces stays: the indented lines a
 * message may add (a failed command's last lines of output, prefixed
 * "    stderr| "). */
static char *last_err;

const char *nf_err_last(void)
{
    return last_err ? last_err : "";
}

static void say(const char *prefix, const char *fmt, va_list ap, int keep)
{
    char buf[1024];
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(buf, sizeof(buf), fmt, aq);
    va_end(aq);
    char *m = buf;
    if (n >= (int)sizeof(buf)) {
        m = malloc((size_t)n + 1);
        if (m)
            vsnprintf(m, (size_t)n + 1, fmt, ap);
        else
            m = buf; /* cut */
    }
    printable(m, 1);
    fputs(prefix, stderr);
    fputs(m, stderr);
    fputc('\n', stderr);
    if (keep) {
        free(last_err);
        last_err = nf_xstrdup(m);
    }
    if (m != buf)
        free(m);
}

void nf_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("noisefloor: ", fmt, ap, 1);
    va_end(ap);
}

void nf_warn(const char *fmt, ...)
{
    va_list ap;
    if (nf_quiet)
        return;
    va_start(ap, fmt);
    say("noisefloor: warning: ", fmt, ap, 0);
    va_end(ap);
}

int nf_parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int nf_scan_count(const char **p, uint64_t *v)
{
    const char *q = *p;
    while (*q == ' ' || *q == '\t')
        q++;
    if (*q < '0' || *q > '9')
        return 0;
    uint64_t x = 0;
    while (*q >= '0' && *q <= '9')
        x = x * 10 + (uint64_t)(*q++ - '0');
    *v = x;
    *p = q;
    return 1;
}

int nf_parse_double(const char *s, double *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

uint64_t nf_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void nf_iso_time(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

char *nf_read_file_max(const char *path, size_t max)
{
    /* O_NONBLOCK: opening a FIFO does not wait for a writer (and it is
     * refused next); /proc and /sys files are regular files to fstat. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat sb;
    FILE *f = NULL;
    int e = fstat(fd, &sb) != 0 ? errno : !S_ISREG(sb.st_mode) ? EINVAL : 0;
    if (!e && !(f = fdopen(fd, "r")))
        e = errno;
    if (e) {
        close(fd);
        errno = e;
        return NULL;
    }
    size_t len;
    char *buf = nf_read_stream(f, max, &len);
    e = errno;
    fclose(f);
    errno = e;
    if (!buf)
        return NULL;
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
        buf[--len] = 0;
    return buf;
}

char *nf_read_file(const char *path)
{
    return nf_read_file_max(path, NF_READ_FILE_MAX);
}

char *nf_read_stream(FILE *f, size_t max, size_t *len)
{
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > max) {
        errno = EFBIG;
        return NULL;
    }
    size_t cap = 65536, n = 0, r;
    char *buf = nf_xmalloc(cap);
    for (;;) {
        /* Room for a NUL kept; one byte past max tells a file of max bytes
         * from a larger one. */
        size_t want = cap - 1 - n;
        if (want > max + 1 - n)
            want = max + 1 - n;
        if ((r = fread(buf + n, 1, want, f)) == 0)
            break;
        n += r;
        if (n > max) {
            free(buf);
            errno = EFBIG;
            return NULL;
        }
        if (n == cap - 1) {
            cap *= 2;
            buf = nf_xrealloc(buf, cap);
        }
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        errno = e ? e : EIO;
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

char **nf_split_words(const char *s, int *argc, char *err, size_t errlen)
{
    size_t cap = 8, n = 0;
    char **words = nf_xcalloc(cap, sizeof(char *));
    char *buf = nf_xmalloc(strlen(s) + 1);
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        size_t len = 0;
        char quote = 0;
        while (*p && (quote || (*p != ' ' && *p != '\t' && *p != '\n'))) {
            if (quote) {
                if (*p == quote)
                    quote = 0;
                else if (quote == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\'))
                    buf[len++] = *++p;
                else
                    buf[len++] = *p;
            } else if (*p == '\'' || *p == '"') {
                quote = *p;
            } else if (*p == '\\' && p[1]) {
                buf[len++] = *++p;
            } else {
                buf[len++] = *p;
            }
            p++;
        }
        if (quote) {
            snprintf(err, errlen, "unterminated %c quote in '%s'", quote, s);
            free(buf);
            words[n] = NULL;
            nf_free_words(words);
            return NULL;
        }
        buf[len] = 0;
        if (n + 2 > cap) {
            cap *= 2;
            words = nf_xrealloc(words, cap * sizeof(char *));
        }
        words[n++] = nf_xstrdup(buf);
    }
    words[n] = NULL;
    free(buf);
    *argc = (int)n;
    return words;
}

void nf_free_words(char **words)
{
    if (!words)
        return;
    for (char **w = words; *w; w++)
        free(*w);
    free(words);
}

const char *nf_hostname_override(void)
{
    const char *h = getenv("NOISEFLOOR_HOSTNAME");
    return h && *h ? h : NULL;
}

void nf_hostname(char *buf, size_t len)
{
    const char *h = nf_hostname_override();
    if (h) {
        snprintf(buf, len, "%s", h);
        return;
    }
    buf[0] = 0;
    if (gethostname(buf, len - 1) != 0)
        buf[0] = 0;
    buf[len - 1] = 0;
}

int nf_utf8_valid(const char *buf, size_t len, size_t *bad)
{
    const unsigned char *s = (const unsigned char *)buf;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t need;
        unsigned min;
        if (c == 0)
            goto bad;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
            min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            min = 0x10000;
        } else
            goto bad;
        if (len - i <= need)
            goto bad;
        unsigned cp = c & (0x3f >> need);
        for (size_t k = 1; k <= need; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                goto bad;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            goto bad;
        i += need + 1;
    }
    return 1;
bad:
    if (bad)
        *bad = i;
    return 0;
}

void nf_quote(char *out, size_t outlen, const char *s, size_t len)
{
    size_t k = 0;
    for (size_t i = 0; i < len && i < 40 && k + 4 < outlen; i++)
        out[k++] = isprint((unsigned char)s[i]) ? s[i] : '?';
    if (len > 40 && k + 4 < outlen) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = 0;
}

void nf_trim_span(const char **s, size_t *len)
{
    while (*len && isspace((unsigned char)**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len && isspace((unsigned char)(*s)[*len - 1]))
        (*len)--;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

int nf_decimal(const char *s, size_t len, double *out)
{
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    for (; i < len && is_digit(s[i]); i++)
        digits++;
    if (i < len && s[i] == '.')
        for (i++; i < len && is_digit(s[i]); i++)
            digits++;
    if (digits == 0)
        return NF_NUM_NOT;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t e = i;
        while (i < len && is_digit(s[i]))
            i++;
        if (i == e)
            return NF_NUM_NOT;
    }
    if (i != len)
        return NF_NUM_NOT;
    char *buf = nf_xmalloc(len + 1); /* perf and people may write 17 digits or 70 */
    memcpy(buf, s, len);
    buf[len] = 0;
    errno = 0;
    double v = strtod(buf, NULL);
    int range = errno == ERANGE;
    free(buf);
    *out = v;
    if (!isfinite(v))
        return NF_NUM_LARGE;
    /* Below the normal range: a subnormal is the double nearest what was
     * written (as any rounding is), 0 for a number that is not 0 is not. */
    if (range && fabs(v) > 1)
        return NF_NUM_LARGE;
    return range && v == 0 ? NF_NUM_SMALL : NF_NUM_OK;
}
