/* A command's output: the memory files, what is kept of them, and the
 * --metric regexes. */
#include "measure/capture.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "measure/rusage.h"
#include "measure/spawn.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define NF_HAVE_VALGRIND_H 1
#endif
#endif

/* ---- --metric ----------------------------------------------------------- */

/* The deepest nesting of groups in an extended regex (escapes and bracket
 * expressions skipped). */
static int group_depth(const char *re)
{
    int depth = 0, deepest = 0;
    for (const char *p = re; *p; p++) {
        if (*p == '\\') {
            if (!*++p)
                break;
        } else if (*p == '[') {
            p++;
            if (*p == '^')
                p++;
            if (*p == ']')
                p++; /* a ']' first is one of the set */
            for (; *p && *p != ']'; p++)
                if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
                    char end = p[1];
                    for (p += 2; *p && !(p[0] == end && p[1] == ']'); p++)
                        ;
                    if (!*p)
                        break;
                    p++;
                }
            if (!*p)
                break;
        } else if (*p == '(') {
            if (++depth > deepest)
                deepest = depth;
        } else if (*p == ')' && depth > 0) {
            depth--;
        }
    }
    return deepest;
}

struct compiled {
    int rc;        /* regcomp's */
    unsigned nsub; /* groups, when it compiled */
    char why[160]; /* regerror's words, when not */
};

/* The child's side of compile_in_child: limits, regcomp, the result on
 * the pipe (smaller than a pipe holds, so the write never waits). */
struct compile_job {
    const char *regex;
    int p[2];
};

static int compile_child(void *arg)
{
    const struct compile_job *j = arg;
    close(j->p[0]);
    struct rlimit cpu = {2, 3}, core = {0, 0};
    setrlimit(RLIMIT_CPU, &cpu);
    setrlimit(RLIMIT_CORE, &core);
    int limit_memory = 1;
#ifdef __SANITIZE_ADDRESS__
    limit_memory = 0; /* ASan reserves terabytes of address space */
#endif
#ifdef NF_HAVE_VALGRIND_H
    if (RUNNING_ON_VALGRIND)
        limit_memory = 0;
#endif
    if (limit_memory) {
        struct rlimit as = {1ul << 30, 1ul << 30};
        setrlimit(RLIMIT_AS, &as);
    }
    struct compiled c;
    memset(&c, 0, sizeof(c));
    regex_t re;
    c.rc = regcomp(&re, j->regex, REG_EXTENDED | REG_NEWLINE);
    if (c.rc)
        regerror(c.rc, &re, c.why, sizeof(c.why));
    else
        c.nsub = (unsigned)re.re_nsub;
    if (c.rc == 0)
        regfree(&re); /* the child exits at once, but valgrind follows it */
    return write(j->p[1], &c, sizeof(c)) == (ssize_t)sizeof(c) ? 0 : 1;
}

/* regcomp in a child under limits (a function child of measure/spawn.h):
 * 0 with *out filled, or -1 with err saying why the child could not
 * finish. */
static int compile_in_child(const char *regex, struct compiled *out, char *err, size_t errlen)
{
    struct compile_job j = {.regex = regex};
    if (pipe2(j.p, O_CLOEXEC)) {
        snprintf(err, errlen, "cannot check it: %s", strerror(errno));
        return -1;
    }
    struct nf_spawn c = {.fn = compile_child, .arg = &j, .name = "regcomp"};
    char why[NF_ERR_LEN];
    int w = -1;
    if (nf_spawn_start(&c, why, sizeof(why)) == 0)
        w = nf_spawn_wait(&c, NULL, 0, NULL, NULL, why, sizeof(why));
    close(j.p[1]);
    nf_spawn_end(&c, w != NF_SPAWN_EXITED);
    nf_spawn_release(&c, 0);
    if (c.pid <= 0) {
        snprintf(err, errlen, "cannot check it: %.400s", why);
        close(j.p[0]);
        return -1;
    }
    ssize_t n;
    while ((n = read(j.p[0], out, sizeof(*out))) < 0 && errno == EINTR)
        ;
    close(j.p[0]);
    int st = c.status;
    if (n == (ssize_t)sizeof(*out) && WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    if (WIFSIGNALED(st))
        snprintf(err, errlen, "too complex to compile (regcomp was killed by %s)",
                 strsignal(WTERMSIG(st)));
    else
        snprintf(err, errlen, "too complex to compile (regcomp ran out of memory)");
    return -1;
}

int nf_capture_check(const char *name, const char *regex, char *err, size_t errlen)
{
    int own = strcmp(name, "wall") == 0;
    for (size_t i = 0; i < NF_RUSAGE_NMETRICS; i++)
        own |= strcmp(name, nf_rusage_names[i]) == 0;
    if (own) {
        snprintf(err, errlen, "--metric: '%s' is already a metric of every command", name);
        return -1;
    }
    int depth = group_depth(regex);
    if (depth > NF_CAPTURE_MAX_DEPTH) {
        snprintf(err, errlen,
                 "--metric %s: the regular expression nests groups %d deep (at most %d)", name,
                 depth, NF_CAPTURE_MAX_DEPTH);
        return -1;
    }
    size_t len = strlen(regex);
    if (len > NF_CAPTURE_MAX_LEN) {
        snprintf(err, errlen, "--metric %s: the regular expression is %zu bytes long (at most %d)",
                 name, len, NF_CAPTURE_MAX_LEN);
        return -1;
    }
    struct compiled c;
    char why[NF_ERR_LEN];
    if (compile_in_child(regex, &c, why, sizeof(why))) {
        snprintf(err, errlen, "--metric %s: the regular expression is %s", name, why);
        return -1;
    }
    if (c.rc) {
        c.why[sizeof(c.why) - 1] = 0;
        snprintf(err, errlen, "--metric %s: bad regular expression '%.200s': %s", name, regex,
                 c.why);
        return -1;
    }
    if (c.nsub < 1) {
        snprintf(err, errlen, "--metric %s: '%.200s' needs a group, like 'time: ([0-9.]+)'", name,
                 regex);
        return -1;
    }
    return 0;
}

int nf_capture_prepare(struct nf_capture *c, char *err, size_t errlen)
{
    if (nf_capture_check(c->name, c->regex, err, errlen))
        return -1;
    c->re = nf_xmalloc(sizeof(regex_t));
    if (regcomp(c->re, c->regex, REG_EXTENDED | REG_NEWLINE)) { /* compiled in the child */
        free(c->re);
        c->re = NULL;
        snprintf(err, errlen, "--metric %s: cannot compile the regular expression", c->name);
        return -1;
    }
    return 0;
}

void nf_capture_free(struct nf_capture *c)
{
    if (c->re) {
        regfree(c->re);
        free(c->re);
        c->re = NULL;
    }
}

/* The number [s, s + len) is, blanks around it aside (nf_decimal): one
 * decimal number as a whole, so "12abc", "1,234" or "about 7" are not
 * numbers (the regex can say which part is), and "1e999" or "1e-400",
 * which a double cannot hold, are not read as whatever strtod or the
 * digits after the 'e' would make of them.  An NF_NUM_* code. */
static int group_number(const char *s, size_t len, double *out)
{
    nf_trim_span(&s, &len);
    double v;
    int rc = nf_decimal(s, len, &v);
    if (rc == NF_NUM_OK)
        *out = v;
    return rc;
}

/* The span of the first group of re's first match in the n bytes of text;
 * -1: no match.  All n bytes are searched, a NUL among them too (a command
 * may write binary bytes before its result): REG_STARTEND gives glibc's
 * regexec the length instead of the C string's, and a NUL is then a byte
 * like any other, which no '.' or bracket expression matches. */
static int match_group(const regex_t *re, const char *text, size_t n, const char **s, size_t *len)
{
    regmatch_t m[2];
    m[0].rm_so = 0;
    m[0].rm_eo = (regoff_t)n;
    if (re->re_nsub < 1 || regexec(re, text, 2, m, REG_STARTEND) != 0 || m[1].rm_so < 0)
        return -1;
    *s = text + m[1].rm_so;
    *len = (size_t)(m[1].rm_eo - m[1].rm_so);
    return 0;
}

int nf_capture_value(const char *regex, const char *text, double *out)
{
    regex_t re;
    if (regcomp(&re, regex, REG_EXTENDED | REG_NEWLINE))
        return -1;
    const char *s;
    size_t len;
    int rc = match_group(&re, text, strlen(text), &s, &len) == 0 &&
                     group_number(s, len, out) == NF_NUM_OK
                 ? 0
                 : -1;
    regfree(&re);
    return rc;
}

/* ---- the files ---------------------------------------------------------- */

/* An anonymous file in memory, appended to; or one in $TMPDIR where there
 * is no memfd_create. */
static int memory_file(const char *name)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) {
        const char *dir = getenv("TMPDIR");
        fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    }
    if (fd >= 0 && fcntl(fd, F_SETFL, O_APPEND) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int nf_output_open(struct nf_output *o, int want_stdout, char *err, size_t errlen)
{
    memset(o, 0, sizeof(*o));
    o->null = open("/dev/null", O_RDWR | O_CLOEXEC);
    o->err = memory_file("nf-stderr");
    o->out = want_stdout ? memory_file("nf-stdout") : -1;
    if (o->null < 0 || o->err < 0 || (want_stdout && o->out < 0)) {
        snprintf(err, errlen, "cannot open files for the command's output: %s", strerror(errno));
        nf_output_close(o);
        return -1;
    }
    return 0;
}

/* Up to max bytes of fd from offset off into buf; the count read. */
static size_t read_at(int fd, char *buf, size_t max, off_t off)
{
    size_t got = 0;
    while (got < max) {
        ssize_t r = pread(fd, buf + got, max - got, off + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return got;
}

/* The size of fd's file, or 0. */
static off_t file_size(int fd)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 ? st.st_size : 0;
}

/* More than NF_OUTPUT_MAX + NF_OUTPUT_LAST bytes of stdout (size): its
 * whole lines in the first NF_OUTPUT_MAX bytes, then those that start in
 * the last NF_OUTPUT_LAST, into o->text (which has room for
 * NF_OUTPUT_MAX + NF_OUTPUT_LAST + 2). */
static void collect_cut(struct nf_output *o, off_t size)
{
    size_t head = read_at(o->out, o->text, NF_OUTPUT_MAX, 0);
    while (head > 0 && o->text[head - 1] != '\n')
        head--;
    o->head = head;
    /* The byte before the end too: a '\n' there means the end starts
     * with a whole line. */
    char *end = o->text + head;
    size_t got = read_at(o->out, end, NF_OUTPUT_LAST + 1, size - NF_OUTPUT_LAST - 1);
    char *nl = memchr(end, '\n', got);
    size_t skip = nl ? (size_t)(nl - end) + 1 : got;
    memmove(end, end + skip, got - skip);
    o->n = head + got - skip;
    o->cut = 1;
}

void nf_output_collect(struct nf_output *o)
{
    o->n = 0;
    o->cut = 0;
    o->head = 0;
    off_t size = file_size(o->out);
    o->written = size > 0 ? (unsigned long long)size : 0;
    if (size > 0) {
        int cut = (unsigned long long)size > NF_OUTPUT_MAX + NF_OUTPUT_LAST;
        size_t need = cut ? NF_OUTPUT_MAX + NF_OUTPUT_LAST + 2 : (size_t)size + 1;
        if (need > o->cap) {
            o->cap = need;
            o->text = nf_xrealloc(o->text, o->cap);
        }
        if (cut)
            collect_cut(o, size);
        else
            o->n = read_at(o->out, o->text, (size_t)size, 0);
        if (ftruncate(o->out, 0) != 0) {
            /* the next repetition's text then starts with this one's */
        }
    }
    if (o->text)
        o->text[o->n] = 0;
    o->tail_n = 0;
    size = file_size(o->err);
    if (size > 0) {
        off_t from = size > NF_OUTPUT_TAIL ? size - NF_OUTPUT_TAIL : 0;
        o->tail_n = read_at(o->err, o->tail, (size_t)(size - from), from);
        if (ftruncate(o->err, 0) != 0) {
            /* only the tail is shown; a stale one is the worst case */
        }
    }
}

/* Append the last lines of text (at most 3) to err, each indented and
 * prefixed, as far as err has room. */
static void append_tail(char *err, size_t errlen, const char *what, const char *text, size_t n)
{
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
        n--;
    size_t start = n;
    int lines = 0;
    while (start > 0 && lines < 3) {
        start--;
        if (text[start] == '\n' && ++lines == 3) {
            start++;
            break;
        }
    }
    size_t len = strlen(err);
    for (size_t i = start; i < n && len + 1 < errlen;) {
        size_t e = i;
        while (e < n && text[e] != '\n')
            e++;
        /* A NUL would end the line here: shown as '?', as nf_err shows
         * every other control byte. */
        char line[161];
        size_t w = e - i > 160 ? 160 : e - i;
        for (size_t k = 0; k < w; k++)
            line[k] = text[i + k] ? text[i + k] : '?';
        line[w] = 0;
        snprintf(err + len, errlen - len, "\n    %s| %s", what, line);
        len = strlen(err);
        i = e + 1;
    }
}

void nf_output_tail(const struct nf_output *o, int stdout_too, char *err, size_t errlen)
{
    if (o->tail_n || !stdout_too)
        append_tail(err, errlen, "stderr", o->tail, o->tail_n);
    else if (o->text)
        append_tail(err, errlen, "stdout", o->text, o->n);
}

int nf_output_captures(struct nf_output *o, const struct nf_capture *caps, int n, const char *name,
                       double *values, char *err, size_t errlen)
{
    const char *text = o->text ? o->text : "";
    size_t text_n = o->text ? o->n : 0;
    for (int i = 0; i < n; i++) {
        regex_t own;
        const regex_t *re = caps[i].re;
        if (!re) {
            if (regcomp(&own, caps[i].regex, REG_EXTENDED | REG_NEWLINE)) {
                snprintf(err, errlen, "--metric %s: cannot compile the regular expression",
                         caps[i].name);
                return -1;
            }
            re = &own;
        }
        const char *s;
        size_t len;
        int found = match_group(re, text, text_n, &s, &len) == 0;
        int rc = found ? group_number(s, len, &values[i]) : NF_NUM_NOT;
        if (!caps[i].re)
            regfree(&own);
        if (rc == NF_NUM_OK)
            continue;
        if (!found && o->cut) {
            /* Only whole lines are kept: a line that runs past the first
             * part, or starts before the last, is not searched at all,
             * even where its number is within the part. */
            char why[160] = "";
            if (o->head == 0 && o->n == 0)
                snprintf(why, sizeof(why),
                         ", whole lines only, and it has none there: its first line runs past "
                         "%u MiB and its last line starts before the last %u MiB",
                         NF_OUTPUT_MAX >> 20, NF_OUTPUT_LAST >> 20);
            else if (o->head == 0)
                snprintf(why, sizeof(why),
                         ", whole lines only: its first line runs past %u MiB, so only the last "
                         "%u MiB is",
                         NF_OUTPUT_MAX >> 20, NF_OUTPUT_LAST >> 20);
            else if (o->n == o->head)
                snprintf(why, sizeof(why),
                         ", whole lines only: its last line starts before the last %u MiB, so "
                         "only the first %u MiB is",
                         NF_OUTPUT_LAST >> 20, NF_OUTPUT_MAX >> 20);
            snprintf(err, errlen,
                     "--metric %s: /%s/ found no number in the output of '%s', which was cut: "
                     "it wrote %.1f MiB, of which the first %u MiB and the last %u MiB are "
                     "searched%s",
                     caps[i].name, caps[i].regex, name, (double)o->written / (1 << 20),
                     NF_OUTPUT_MAX >> 20, NF_OUTPUT_LAST >> 20, why);
        } else if (!found) {
            snprintf(err, errlen, "--metric %s: /%s/ found no number in the output of '%s'",
                     caps[i].name, caps[i].regex, name);
        } else {
            static const char *const why[] = {
                [NF_NUM_NOT] = "not a number (the group must hold one decimal number and "
                               "nothing else)",
                [NF_NUM_LARGE] = "a number too large for a double",
                [NF_NUM_SMALL] = "a number too small for a double (it underflows to 0)",
            };
            char q[64];
            nf_quote(q, sizeof(q), s, len);
            snprintf(err, errlen, "--metric %s: /%s/ captured '%s' in the output of '%s': %s",
                     caps[i].name, caps[i].regex, q, name, why[rc]);
        }
        nf_output_tail(o, 1, err, errlen);
        return -1;
    }
    return 0;
}

void nf_output_close(struct nf_output *o)
{
    int fds[] = {o->null, o->out, o->err};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(o->text);
    memset(o, 0, sizeof(*o));
    o->null = o->out = o->err = -1;
}
