/* Running a command: one child per repetition, never through a shell.
 *
 * The child puts itself in its own process group (so a timeout or a stop
 * kills everything the command started), pins itself, gets its stdio, and
 * execs; the counters are opened on it with enable_on_exec, so they count
 * from the exec on.  There are two ways to get there:
 *
 *  - vfork (the default): clone(CLONE_VM | CLONE_VFORK), so no page tables
 *    are copied and torn down per repetition (with our libraries that was
 *    most of the harness's cost).  We are suspended until the child execs,
 *    so it opens the counters on itself, into our fd table (CLONE_FILES),
 *    before taking a private table for its dup2s.  An exec failure, and the
 *    clock, come back through the memory we share.
 *  - fork, with a ready/go handshake: for profile, whose hook must attach
 *    to the ready child from the parent (and allocates doing so), under
 *    valgrind, which cannot run a CLONE_VM child, and if clone is refused.
 *    An exec failure comes back as an errno on the close-on-exec ready
 *    pipe (end of file there means the exec happened).
 *
 * Either way, wall time runs from the child's clock read just before
 * execvp to the parent's just after it reaped the child.  The parent then
 * drains the command's stdout (only when a --metric needs it; otherwise it
 * goes to /dev/null, so it never mixes with our results) and the tail of its
 * stderr while watching a pidfd, the timeout and the stop signal.  When the
 * command exits, whatever is left of its process group is killed: a
 * background process would disturb the next repetition. */
#include "measure/runner_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define NF_HAVE_VALGRIND_H 1
#endif
#endif
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

#define OUT_MAX (16u << 20) /* stdout kept for --metric (bytes) */
#define TAIL_MAX 4096       /* stderr tail kept for error messages */

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
        nf_run_metric(run, spec->captures[i].name, spec->unit ? spec->unit : "", spec->better, 0);
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

/* ---- one repetition ----------------------------------------------------- */

struct out_buf {
    char *p;
    size_t n, cap;
};

struct cmd_io {
    int out, err;           /* read ends, -1 once closed */
    struct out_buf stdout_; /* all of it, up to OUT_MAX */
    char tail[TAIL_MAX];    /* the last TAIL_MAX bytes of stderr */
    size_t tail_n;          /* bytes in tail (<= TAIL_MAX) */
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

/* ---- starting the command --------------------------------------------- */

/* What the child needs, all prepared by the parent: the vfork child shares
 * our memory and must not allocate, touch stdio or anything else of libc's
 * shared state; it writes only its own stack and the fields marked below. */
struct child_args {
    const struct nf_runspec *spec;
    pid_t parent;
    int null, outfd, errfd; /* outfd -1: stdout to /dev/null */
    int gofd, readyfd;      /* fork path: the handshake pipes */
    sigset_t mask;          /* vfork path: the mask to exec with */
    struct nf_counters *cs; /* vfork path: opened by the child on itself */
    uint64_t t0;            /* vfork path, written: the clock before exec */
    int err;                /* vfork path, written: errno of setup or exec */
};

/* Own group (a timeout or a stop kills everything the command starts),
 * default dispositions, killed with us, pinned. */
static int child_identity(const struct child_args *a)
{
    setpgid(0, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != a->parent) /* we died before the prctl */
        return ESRCH;
    if (a->spec->pin && sched_setaffinity(0, sizeof(a->spec->cpus), &a->spec->cpus) != 0)
        return errno;
    return 0;
}

/* stdin from /dev/null, stdout to the capture pipe or /dev/null, stderr to
 * the tail pipe (dup2 clears close-on-exec on the copies). */
static int child_io(const struct child_args *a)
{
    if (dup2(a->null, 0) < 0 || dup2(a->outfd >= 0 ? a->outfd : a->null, 1) < 0 ||
        dup2(a->errfd, 2) < 0)
        return errno;
    return 0;
}

/* The fork child: set up, say ready, wait for go (the parent opens the
 * counters and attaches its hook meanwhile), read the clock into the shared
 * page, exec.  An exec failure comes back on the close-on-exec ready pipe
 * as an errno (end of file there means the exec happened). */
static void fork_child(const struct child_args *a, uint64_t *shared)
{
    int e = child_identity(a);
    if (!e)
        e = child_io(a);
    if (write(a->readyfd, "r", 1) != 1)
        _exit(127);
    char go;
    if (read(a->gofd, &go, 1) != 1)
        _exit(127);
    if (!e) {
        *shared = nf_now_ns();
        execvp(a->spec->cmd[0], a->spec->cmd);
        e = errno;
    }
    if (write(a->readyfd, &e, sizeof(e)) < 0)
        _exit(127);
    _exit(127);
}

/* The vfork child (CLONE_VM | CLONE_VFORK, and CLONE_FILES when there are
 * counters): we are suspended until it execs or exits, so it can open the
 * counters on itself (enable_on_exec, close-on-exec) into our fd table,
 * then take a private copy of the table before its dup2s, which must not
 * touch our stdin and stdout.  All signals are blocked until the
 * dispositions are reset; then the mask we had comes back for the exec.
 * It leaves by the exit system call, never through libc's exit paths. */
__attribute__((no_sanitize_address)) static int vfork_child(void *p)
{
    struct child_args *a = p;
    int e = child_identity(a);
    if (!e && a->cs) {
        nf_counters_open(a->cs, 0, 1);
        if (unshare(CLONE_FILES) != 0)
            e = errno;
    }
    if (!e)
        e = child_io(a);
    sigprocmask(SIG_SETMASK, &a->mask, NULL);
    if (!e) {
        a->t0 = nf_now_ns();
        execvp(a->spec->cmd[0], a->spec->cmd);
        e = errno;
    }
    a->err = e ? e : EIO;
    syscall(SYS_exit, 127);
    return 127;
}

/* Whether to use the vfork path: not when a hook must attach between the
 * child's setup and its exec (profile's sampler allocates and opens events
 * on the child; it needs the fork path's handshake), not under valgrind
 * (which cannot run a CLONE_VM child that is not a thread), and not once
 * clone refused the flags (a seccomp filter, say). */
static int clone_refused;

static int use_vfork(const struct nf_runspec *spec)
{
    if (spec->hook || clone_refused)
        return 0;
#ifdef NF_HAVE_VALGRIND_H
    if (RUNNING_ON_VALGRIND)
        return 0;
#endif
    return 1;
}

#define VFORK_STACK (256u << 10)

/* clone the vfork child; returns its pid (exec done or failed, see a->err)
 * or -1 with errno. */
static pid_t spawn_vfork(struct child_args *a)
{
    size_t size = VFORK_STACK + (size_t)(a->spec->ncmd + 2) * sizeof(char *);
    size = (size + 4095) & ~(size_t)4095;
    char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &a->mask);
    int flags = CLONE_VM | CLONE_VFORK | SIGCHLD | (a->cs ? CLONE_FILES : 0);
    pid_t pid = clone(vfork_child, stack + size, flags, a);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &a->mask, NULL);
#ifdef __SANITIZE_ADDRESS__
    ASAN_UNPOISON_MEMORY_REGION(stack, size); /* the child's frames never returned */
#endif
    munmap(stack, size);
    errno = e;
    return pid;
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
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* -1 before Linux 5.3 */
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

/* The fork path's start: fork, wait for ready, open the counters on the
 * child, attach the hook, go; the clock comes back through a shared page.
 * Returns 0 once the command has exec'd; otherwise err is set and the
 * child, if any, is left for the caller to reap. */
static int start_fork(const struct nf_runspec *spec, struct child_args *a, int record,
                      struct nf_counters *cs, pid_t *pidp, int *hooked, uint64_t *t0, char *err,
                      size_t errlen)
{
    const char *name = spec->cmd[0];
    int gop[2] = {-1, -1}, readyp[2] = {-1, -1}, rc = -1;
    uint64_t *shared =
        mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t pid = -1;
    if (shared == MAP_FAILED) {
        snprintf(err, errlen, "cannot map a page: %s", strerror(errno));
        return -1;
    }
    *shared = 0;
    if (pipe2(gop, O_CLOEXEC) || pipe2(readyp, O_CLOEXEC)) {
        snprintf(err, errlen, "cannot create pipes: %s", strerror(errno));
        goto out;
    }
    a->gofd = gop[0];
    a->readyfd = readyp[1];
    fflush(NULL);
    if ((pid = fork()) < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) {
        a->cs = NULL;
        fork_child(a, shared);
    }
    *pidp = pid;
    setpgid(pid, pid);
    close(gop[0]);
    close(readyp[1]);
    gop[0] = readyp[1] = -1;
    char ready;
    ssize_t n;
    while ((n = read(readyp[0], &ready, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1) {
        snprintf(err, errlen, "cannot start '%s': the child died before it was ready", name);
        goto out;
    }
    nf_counters_open(cs, pid, 1);
    if (record && spec->hook) {
        if (spec->hook->attach(spec->hook->ctx, pid, 1, err, errlen))
            goto out;
        *hooked = 1;
    }
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
    *t0 = *shared;
    rc = 0;
out:
    for (int i = 0; i < 2; i++) {
        if (gop[i] >= 0)
            close(gop[i]);
        if (readyp[i] >= 0)
            close(readyp[i]);
    }
    munmap(shared, sizeof(*shared));
    return rc;
}

enum nf_rep_status nf_runner_cmd_rep(const struct nf_runspec *spec, struct nf_run *run, int record,
                                     char *err, size_t errlen)
{
    const char *name = spec->cmd[0];
    int errp[2] = {-1, -1}, outp[2] = {-1, -1};
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || pipe2(errp, O_CLOEXEC) || (spec->ncaptures && pipe2(outp, O_CLOEXEC))) {
        snprintf(err, errlen, "cannot %s: %s", null < 0 ? "open /dev/null" : "create pipes",
                 strerror(errno));
        int fds[] = {null, errp[0], errp[1], outp[0], outp[1]};
        for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
            if (fds[i] >= 0)
                close(fds[i]);
        return NF_REP_FAILED;
    }
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
    struct child_args a = {.spec = spec,
                           .parent = getpid(),
                           .null = null,
                           .outfd = outp[1],
                           .errfd = errp[1],
                           .gofd = -1,
                           .readyfd = -1,
                           .cs = cs.n ? &cs : NULL};
    pid_t pid = -1;
    uint64_t t0 = 0, t1 = 0;
    int started = -1;
    if (use_vfork(spec)) {
        pid = spawn_vfork(&a);
        if (pid < 0 && (errno == EINVAL || errno == ENOSYS || errno == EPERM)) {
            clone_refused = 1; /* take the fork path from now on */
        } else if (pid < 0) {
            snprintf(err, errlen, "clone: %s", strerror(errno));
        } else if (a.err) {
            snprintf(err, errlen, "cannot run '%s': %s", name, strerror(a.err));
        } else {
            t0 = a.t0;
            started = 0;
        }
    }
    if (!use_vfork(spec))
        started = start_fork(spec, &a, record, &cs, &pid, &hooked, &t0, err, errlen);
    /* We keep the write ends of the pipes: the command's exit then wakes
     * us once (the pidfd), not also for the pipes' hangup; what it wrote is
     * in the pipes by the time it is reaped, and read then. */
    close(null);
    if (started < 0)
        goto out;
    int w = supervise(spec, pid, &io, &st, &ru, t0, &t1);
    reaped = w == 0;
    if (w == 2) {
        rc = NF_REP_STOPPED;
        goto out;
    }
    /* What the group still holds goes; then what is in the pipes is read
     * (only what is there: we hold their write ends, and a process that
     * escaped the group may too). */
    kill(-pid, SIGKILL);
    if (io.out >= 0)
        drain(&io, &io.out, 1);
    if (io.err >= 0)
        drain(&io, &io.err, 0);
    if (w == 1) {
        snprintf(err, errlen, "'%s' exceeded --timeout %gs; its process group was killed", name,
                 spec->timeout);
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
    if (pid > 0 && !reaped) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    if (pid > 0)
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
    close(errp[1]);
    if (outp[1] >= 0)
        close(outp[1]);
    io_close(&io);
    return rc;
}
