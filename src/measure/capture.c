/* A command's output: the pipes, the buffers, and the --metric regexes. */
#include "measure/capture.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

/* The metrics every command has (as the runner declares them). */
static const char *const own_metrics[] = {"wall", "user", "sys"};

int nf_capture_check(const char *name, const char *regex, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof(own_metrics) / sizeof(own_metrics[0]); i++)
        if (strcmp(name, own_metrics[i]) == 0) {
            snprintf(err, errlen, "--metric: '%s' is already a metric of every command", name);
            return -1;
        }
    regex_t re;
    int rc = regcomp(&re, regex, REG_EXTENDED | REG_NEWLINE);
    if (rc) {
        char why[128];
        regerror(rc, &re, why, sizeof(why));
        snprintf(err, errlen, "--metric %s: bad regular expression '%s': %s", name, regex, why);
        return -1;
    }
    size_t groups = re.re_nsub;
    regfree(&re);
    if (groups < 1) {
        snprintf(err, errlen, "--metric %s: '%s' needs a group, like 'time: ([0-9.]+)'", name,
                 regex);
        return -1;
    }
    return 0;
}

/* The first number in [s, s + len): sign, digits, decimals, exponent. */
static int first_number(const char *s, size_t len, double *out)
{
    char buf[128];
    for (size_t i = 0; i < len; i++) {
        int digit = s[i] >= '0' && s[i] <= '9';
        int lead = (s[i] == '-' || s[i] == '+' || s[i] == '.') && i + 1 < len &&
                   ((s[i + 1] >= '0' && s[i + 1] <= '9') || s[i + 1] == '.');
        if (!digit && !lead)
            continue;
        size_t n = len - i < sizeof(buf) - 1 ? len - i : sizeof(buf) - 1;
        memcpy(buf, s + i, n);
        buf[n] = 0;
        char *end;
        errno = 0;
        double v = strtod(buf, &end);
        if (end != buf && errno == 0) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

int nf_capture_value(const char *regex, const char *text, double *out)
{
    regex_t re;
    if (regcomp(&re, regex, REG_EXTENDED | REG_NEWLINE))
        return -1;
    regmatch_t m[2];
    int rc = -1;
    if (re.re_nsub >= 1 && regexec(&re, text, 2, m, 0) == 0 && m[1].rm_so >= 0)
        rc = first_number(text + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so), out);
    regfree(&re);
    return rc;
}

/* ---- the pipes ---------------------------------------------------------- */

int nf_output_open(struct nf_output *o, int want_stdout, char *err, size_t errlen)
{
    memset(o, 0, sizeof(*o));
    int outp[2] = {-1, -1}, errp[2] = {-1, -1};
    if (pipe2(errp, O_CLOEXEC) || (want_stdout && pipe2(outp, O_CLOEXEC))) {
        snprintf(err, errlen, "cannot create pipes: %s", strerror(errno));
        int fds[] = {errp[0], errp[1], outp[0], outp[1]};
        for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
            if (fds[i] >= 0)
                close(fds[i]);
        o->fd[0] = o->fd[1] = o->child_out = o->child_err = -1;
        return -1;
    }
    o->fd[0] = outp[0];
    o->fd[1] = errp[0];
    o->child_out = outp[1];
    o->child_err = errp[1];
    for (int i = 0; i < 2; i++)
        if (o->fd[i] >= 0)
            fcntl(o->fd[i], F_SETFL, O_NONBLOCK);
    return 0;
}

static void tail_add(struct nf_output *o, const char *p, size_t n)
{
    if (n >= NF_OUTPUT_TAIL) {
        memcpy(o->tail, p + n - NF_OUTPUT_TAIL, NF_OUTPUT_TAIL);
        o->tail_n = NF_OUTPUT_TAIL;
        return;
    }
    if (o->tail_n + n > NF_OUTPUT_TAIL) {
        size_t drop = o->tail_n + n - NF_OUTPUT_TAIL;
        memmove(o->tail, o->tail + drop, o->tail_n - drop);
        o->tail_n -= drop;
    }
    memcpy(o->tail + o->tail_n, p, n);
    o->tail_n += n;
}

static void text_add(struct nf_output *o, const char *p, size_t n)
{
    if (o->n >= NF_OUTPUT_MAX)
        return;
    if (o->n + n > NF_OUTPUT_MAX)
        n = NF_OUTPUT_MAX - o->n;
    if (o->n + n + 1 > o->cap) {
        o->cap = (o->n + n + 1) * 2;
        o->text = nf_xrealloc(o->text, o->cap);
    }
    memcpy(o->text + o->n, p, n);
    o->n += n;
}

int nf_output_readable(void *ctx, int *fd)
{
    struct nf_output *o = ctx;
    int is_out = fd == &o->fd[0];
    char buf[65536];
    for (;;) {
        ssize_t r = read(*fd, buf, sizeof(buf));
        if (r > 0) {
            if (is_out)
                text_add(o, buf, (size_t)r);
            else
                tail_add(o, buf, (size_t)r);
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0 || (r < 0 && errno != EAGAIN)) {
            close(*fd);
            *fd = -1;
        }
        return 0;
    }
}

void nf_output_drain(struct nf_output *o)
{
    for (int i = 0; i < 2; i++)
        if (o->fd[i] >= 0)
            nf_output_readable(o, &o->fd[i]);
    if (o->text)
        o->text[o->n] = 0;
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
        int w = (int)(e - i > 160 ? 160 : e - i);
        snprintf(err + len, errlen - len, "\n    %s| %.*s", what, w, text + i);
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
    for (int i = 0; i < n; i++)
        if (nf_capture_value(caps[i].regex, text, &values[i])) {
            snprintf(err, errlen, "--metric %s: /%s/ found no number in the output of '%s'",
                     caps[i].name, caps[i].regex, name);
            nf_output_tail(o, 1, err, errlen);
            return -1;
        }
    return 0;
}

void nf_output_close(struct nf_output *o)
{
    int fds[] = {o->fd[0], o->fd[1], o->child_out, o->child_err};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(o->text);
    memset(o, 0, sizeof(*o));
    o->fd[0] = o->fd[1] = o->child_out = o->child_err = -1;
}
