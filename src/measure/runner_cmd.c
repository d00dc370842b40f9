/* Running a command: one fork/exec per repetition, never through a shell.
 *
 * The child puts itself in its own process group (so a timeout or a stop
 * kills everything the command started), pins itself, says it is ready and
 * waits for "go"; the parent opens the counters on it with enable_on_exec,
 * so they count from the exec on, starts the clock and says go.  An exec
 * failure comes back as an errno on the close-on-exec ready pipe (end of
 * file there means the exec happened).  The parent then drains the
 * command's stdout (only when a --metric needs it; otherwise it goes to
 * /dev/null, so it never mixes with our results) and the tail of its stderr
 * while watching a pidfd, the timeout and the stop signal.  When the
 * command exits, whatever is left of its process group is killed: a
 * background process would disturb the next repetition. */
#include "measure/runner_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"

#define OUT_MAX (16u << 20)     /* stdout kept for --metric (bytes) */
#define TAIL_MAX 4096           /* stderr tail kept for error messages */

static const char *const own_metrics[] = {"wall", "user", "sys"};

void nf_runner_cmd_declare(const struct nf_runspec *spec, struct nf_run *run)
{
    (void)spec;
    nf_run_metric(run, "wall", "seconds", NF_BETTER_LOWER, 1);
    nf_run_metric(run, "user", "seconds", NF_BETTER_LOWER, 0);
    nf_run_metric(run, "sys", "seconds", NF_BETTER_LOWER, 0);
}

void nf_runner_cmd_declare_captures(const struct nf_runspec *spec, struct nf_run *run)
{
    for (int i = 0; i < spec->ncaptures; i++)
        nf_run_metric(run, spec->captures[i].name, spec->unit ? spec->unit : "",
                      spec->better, 0);
}

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
        snprintf(err, errlen, "--metric %s: '%s' needs a group, like 'time: ([0-9.]+)'", name, regex);
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

/* ---- one repetition ----------------------------------------------------- */

struct out_buf {
    char *p;
    size_t n, cap;
};

struct cmd_io {
    int out, err;            /* read ends, -1 once closed */
    struct out_buf stdout_;  /* all of it, up to OUT_MAX */
    char tail[TAIL_MAX];     /* the last TAIL_MAX bytes of stderr */
    size_t tail_n;           /* bytes in tail (<= TAIL_MAX) */
};

static void tail_add(struct cmd_io *io, const char *p, size_t n)
{
    if (n >= TAIL_MAX) {
        memcpy(io->tail, p + n - TAIL_MAX, TAIL_MAX);
        io->tail_n = TAIL_MAX;
        return;
    }
    if (io->tail_n + n > TAIL_MAX) {
        size_t drop = io->tail_n + n - TAIL_MAX;
        memmove(io->tail, io->tail + drop, io->tail_n - drop);
        io->tail_n -= drop;
    }
    memcpy(io->tail + io->tail_n, p, n);
    io->tail_n += n;
}

/* Read what is there now (the fds are non-blocking). */
static void drain(struct cmd_io *io, int *fd, int is_out)
{
    char buf[65536];
    for (;;) {
        ssize_t r = read(*fd, buf, sizeof(buf));
        if (r > 0) {
            if (!is_out) {
                tail_add(io, buf, (size_t)r);
            } else if (io->stdout_.n < OUT_MAX) {
                size_t n = (size_t)r;
                if (io->stdout_.n + n > OUT_MAX)
                    n = OUT_MAX - io->stdout_.n;
                if (io->stdout_.n + n + 1 > io->stdout_.cap) {
                    io->stdout_.cap = (io->stdout_.n + n + 1) * 2;
                    io->stdout_.p = nf_xrealloc(io->stdout_.p, io->stdout_.cap);
                }
                memcpy(io->stdout_.p + io->stdout_.n, buf, n);
                io->stdout_.n += n;
            }
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0 || (r < 0 && errno != EAGAIN)) {
            close(*fd);
            *fd = -1;
        }
        return;
    }
}

/* Append the last lines of text (at most `lines`) to err, each indented and
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

/* The child: own group, pinned, stdin from /dev/null, ready, wait, exec. */
static void cmd_child(const struct nf_runspec *spec, int gofd, int readyfd, int outfd, int errfd)
{
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int e = 0;
    if (spec->pin && sched_setaffinity(0, sizeof(spec->cpus), &spec->cpus) != 0)
        e = errno;
    int null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, 0) < 0 || dup2(outfd >= 0 ? outfd : null, 1) < 0 ||
        dup2(errfd, 2) < 0)
        e = errno;
    if (write(readyfd, "r", 1) != 1)
        _exit(127);
    char go;
    if (read(gofd, &go, 1) != 1)
        _exit(127);
    if (!e) {
        execvp(spec->cmd[0], spec->cmd);
        e = errno;
    }
    if (write(readyfd, &e, sizeof(e)) < 0)
        _exit(127);
    _exit(127);
}

static void describe_status(int st, const char *name, char *err, size_t errlen)
{
    if (WIFSIGNALED(st))
        snprintf(err, errlen, "'%s' was killed by signal %d (%s)", name, WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
    else
        snprintf(err, errlen, "'%s' exited with status %d", name, WEXITSTATUS(st));
}

/* Wait for the command while draining its output.  Returns 0 when it exited
 * (st, ru filled, t_end set), 1 on timeout, 2 on a stop signal. */
static int supervise(const struct nf_runspec *spec, pid_t pid, struct cmd_io *io, int *st,
                     struct rusage *ru, uint64_t t_start, uint64_t *t_end)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);   /* -1 before Linux 5.3 */
    uint64_t deadline = spec->timeout > 0 ? t_start + (uint64_t)(spec->timeout * 1e9) : 0;
    int rc = -1;
    while (rc < 0) {
        if (nf_stop_signal) {
            rc = 2;
            break;
        }
        int ms = pidfd >= 0 ? -1 : 10;
        if (deadline) {
            uint64_t now = nf_now_ns();
            if (now >= deadline) {
                rc = 1;
                break;
            }
            int left = (int)((deadline - now) / 1000000) + 1;
            if (ms < 0 || left < ms)
                ms = left;
        }
        struct pollfd p[3] = {{pidfd, POLLIN, 0}, {io->out, POLLIN, 0}, {io->err, POLLIN, 0}};
        int r = poll(p, 3, ms);
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0 && p[1].revents)
            drain(io, &io->out, 1);
        if (r > 0 && p[2].revents)
            drain(io, &io->err, 0);
        if ((r > 0 && p[0].revents) || pidfd < 0) {
            pid_t w = wait4(pid, st, pidfd >= 0 ? 0 : WNOHANG, ru);
            if (w == pid) {
                *t_end = nf_now_ns();
                rc = 0;
            }
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    return rc < 0 ? 1 : rc;
}

static void io_close(struct cmd_io *io)
{
    if (io->out >= 0)
        close(io->out);
    if (io->err >= 0)
        close(io->err);
    free(io->stdout_.p);
}

enum nf_rep_status nf_runner_cmd_rep(const struct nf_runspec *spec, struct nf_run *run,
                                     int record, char *err, size_t errlen)
{
    const char *name = spec->cmd[0];
    int gop[2], readyp[2], errp[2], outp[2] = {-1, -1};
    int *all[] = {&gop[0], &gop[1], &readyp[0], &readyp[1], &errp[0], &errp[1], &outp[0], &outp[1]};
    for (size_t i = 0; i < 6; i++)
        *all[i] = -1;
    pid_t pid = -1;
    if (pipe2(gop, O_CLOEXEC) || pipe2(readyp, O_CLOEXEC) || pipe2(errp, O_CLOEXEC) ||
        (spec->ncaptures && pipe2(outp, O_CLOEXEC)))
        snprintf(err, errlen, "cannot create pipes: %s", strerror(errno));
    else if (fflush(NULL), (pid = fork()) < 0)
        snprintf(err, errlen, "fork: %s", strerror(errno));
    if (pid < 0) {
        for (size_t i = 0; i < 8; i++)
            if (*all[i] >= 0)
                close(*all[i]);
        return NF_REP_FAILED;
    }
    if (pid == 0)
        cmd_child(spec, gop[0], readyp[1], outp[1], errp[1]);
    setpgid(pid, pid);
    close(gop[0]);
    close(readyp[1]);
    close(errp[1]);
    if (outp[1] >= 0)
        close(outp[1]);
    struct cmd_io io = {.out = outp[0], .err = errp[0]};
    fcntl(io.err, F_SETFL, O_NONBLOCK);
    if (io.out >= 0)
        fcntl(io.out, F_SETFL, O_NONBLOCK);

    enum nf_rep_status rc = NF_REP_FAILED;
    double captured[NF_MAX_CAPTURES] = {0};
    struct nf_counters cs = spec->counters;
    int st = 0, reaped = 0, hooked = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof(ru));
    char ready;
    ssize_t n;
    while ((n = read(readyp[0], &ready, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1) {
        snprintf(err, errlen, "cannot start '%s': the child died before it was ready", name);
        goto out;
    }
    nf_counters_open(&cs, pid, 1);
    if (record && spec->hook) {
        if (spec->hook->attach(spec->hook->ctx, pid, 1, err, errlen))
            goto out;
        hooked = 1;
    }
    uint64_t t0 = nf_now_ns(), t1 = t0;
    if (write(gop[1], "g", 1) != 1) {
        snprintf(err, errlen, "cannot start '%s'", name);
        goto out;
    }
    int e = 0;
    while ((n = read(readyp[0], &e, sizeof(e))) < 0 && errno == EINTR)
        ;
    if (n == (ssize_t)sizeof(e)) {
        snprintf(err, errlen, "cannot run '%s': %s", name, strerror(e));
        goto out;
    }
    int w = supervise(spec, pid, &io, &st, &ru, t0, &t1);
    reaped = w == 0;
    if (w == 2) {
        rc = NF_REP_STOPPED;
        goto out;
    }
    /* What the group still holds goes: then the pipes reach end of file
     * unless a process escaped the group (only what is there is read). */
    kill(-pid, SIGKILL);
    if (io.out >= 0)
        drain(&io, &io.out, 1);
    if (io.err >= 0)
        drain(&io, &io.err, 0);
    if (w == 1) {
        snprintf(err, errlen, "'%s' exceeded --timeout %gs; its process group was killed",
                 name, spec->timeout);
        append_tail(err, errlen, "stderr", io.tail, io.tail_n);
        goto out;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        describe_status(st, name, err, errlen);
        append_tail(err, errlen, "stderr", io.tail, io.tail_n);
        goto out;
    }
    if (spec->ncaptures) {
        const char *text = io.stdout_.p ? io.stdout_.p : "";
        if (io.stdout_.p)
            io.stdout_.p[io.stdout_.n] = 0;
        for (int i = 0; i < spec->ncaptures; i++)
            if (nf_capture_value(spec->captures[i].regex, text, &captured[i])) {
                snprintf(err, errlen, "--metric %s: /%s/ found no number in the output of '%s'",
                         spec->captures[i].name, spec->captures[i].regex, name);
                if (io.tail_n)
                    append_tail(err, errlen, "stderr", io.tail, io.tail_n);
                else
                    append_tail(err, errlen, "stdout", text, io.stdout_.n);
                goto out;
            }
    }
    rc = NF_REP_OK;
    if (record) {
        nf_metric_push(nf_run_find(run, "wall"), (double)(t1 - t0) / 1e9, 100.0);
        nf_metric_push(nf_run_find(run, "user"),
                       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6, 100.0);
        nf_metric_push(nf_run_find(run, "sys"),
                       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, 100.0);
    }
out:
    if (!reaped) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    kill(-pid, SIGKILL);
    if (hooked)
        spec->hook->detach(spec->hook->ctx, rc == NF_REP_OK);
    nf_counters_disable(&cs);
    nf_counters_read_close(&cs);
    if (rc == NF_REP_OK && record) {
        nf_runner_record_counters(&cs, run);
        for (int i = 0; i < spec->ncaptures; i++)
            nf_metric_push(nf_run_find(run, spec->captures[i].name), captured[i], 100.0);
    }
    close(gop[1]);
    close(readyp[0]);
    io_close(&io);
    return rc;
}
