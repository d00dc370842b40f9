/* Starting a child (see spawn.h; spawn_wait.c waits for it and ends it,
 * spawn_image.c has the image a function may run in).
 *
 * Wall time of a command runs from the child's clock read just before
 * the exec to ours just after it was reaped.  An exec or setup failure comes
 * back as (stage, errno): through the memory the vfork child shares with
 * us, or on the close-on-exec ready pipe of the fork path, where end of
 * file after "go" means the exec happened (a function child closes the
 * pipe itself). */
#include "measure/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "measure/spawn_contain.h"
#include "measure/spawn_image.h"
#include "measure/spawn_path.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define NF_HAVE_VALGRIND_H 1
#endif
#endif
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

/* Where the child's setup failed: said by the child, worded by us. */
enum stage { STAGE_START = 1, STAGE_PIN, STAGE_DIR, STAGE_IO, STAGE_EXEC };

/* What the child needs, all prepared by the parent: the vfork child shares
 * our memory and must not allocate, touch stdio or anything else of libc's
 * shared state; it writes only its own stack and the fields marked below. */
struct child_args {
    const struct nf_spawn *c;
    const char *path; /* exec: argv[0] as found in PATH (spawn_path.h), or
                         c->exe */
    char *const *env; /* exec: c->env, or ours */
    pid_t parent;
    int null;               /* /dev/null, for stdin and the -1 fds */
    int gofd, readyfd;      /* fork path: the child's ends of the handshake */
    int gow, readyr;        /* fork path: our ends, which the child closes */
    uint64_t *shared;       /* fork path to exec: a shared page for the clock */
    char **image;           /* fork path, a function in an image: its argv,
                               the handshake at [1]; else NULL */
    int image_by_fd;        /* exec the image from a descriptor (nf_image_by_fd) */
    sigset_t mask;          /* vfork path: the mask to exec with */
    struct nf_counters *cs; /* vfork path: opened by the child on itself */
    uint64_t t0;            /* vfork path, written: the clock before exec */
    int stage, err;         /* vfork path, written: where and why it failed */
};

/* Own group, default dispositions, killed with us, pinned. */
static int child_identity(const struct child_args *a, int *stage)
{
    *stage = STAGE_START;
    if (!a->c->keep_group)
        setpgid(0, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    /* The ones nf_runner_signals catches or ignores (an ignored one would
     * stay ignored across the exec). */
    static const int sigs[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGPIPE,
                               SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
                               SIGXCPU, SIGIO,   SIGPWR,  SIGSTKFLT, SIGXFSZ};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != a->parent) /* we died before the prctl */
        return ESRCH;
    if (a->c->cpus && sched_setaffinity(0, sizeof(*a->c->cpus), a->c->cpus) != 0) {
        *stage = STAGE_PIN;
        return errno;
    }
    return 0;
}

/* The working directory asked for; stdin from /dev/null, stdout and
 * stderr where asked (dup2 clears close-on-exec on the copies). */
static int child_io(const struct child_args *a, int *stage)
{
    if (a->c->dir && chdir(a->c->dir) != 0) {
        *stage = STAGE_DIR;
        return errno;
    }
    int out = a->c->out >= 0 ? a->c->out : a->null;
    int err = a->c->err >= 0 ? a->c->err : a->null;
    if (dup2(a->null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) {
        *stage = STAGE_IO;
        return errno;
    }
    return 0;
}

/* The fork child: set up, say ready, wait for go (the parent opens the
 * counters and attaches its hook meanwhile), then exec with the clock in
 * the shared page, or close the ready pipe and call the function.  A
 * function's image does the handshake and the work itself. */
static void fork_child(const struct child_args *a)
{
    nf_contain_forked();
    close(a->gow);
    close(a->readyr);
    int stage, e = child_identity(a, &stage);
    if (!e && a->c->argv)
        e = child_io(a, &stage);
    /* Ready: "r"; or "f" and the errno when the image could not be
     * exec'd and the function runs here instead. */
    char ready[1 + sizeof(int)] = {'r'};
    size_t nready = 1;
    if (!e && a->image) {
        int ie = nf_image_exec(a->c, a->image, a->image_by_fd, a->readyfd, a->gofd);
        ready[0] = 'f';
        memcpy(ready + 1, &ie, sizeof(ie));
        nready = sizeof(ready);
    }
    if (write(a->readyfd, ready, nready) != (ssize_t)nready)
        _exit(127);
    char go;
    if (read(a->gofd, &go, 1) != 1)
        _exit(127);
    if (!e && a->c->argv) {
        *a->shared = nf_now_ns();
        execve(a->path, a->c->argv, a->env);
        e = errno;
        stage = STAGE_EXEC;
    }
    if (e) {
        int msg[2] = {stage, e};
        if (write(a->readyfd, msg, sizeof(msg)) < 0)
            _exit(127);
        _exit(127);
    }
    close(a->readyfd);
    close(a->gofd);
    _exit(a->c->fn(a->c->arg));
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
    int stage, e = child_identity(a, &stage);
    if (!e && a->cs) {
        nf_counters_open(a->cs, 0, 1);
        if (unshare(CLONE_FILES) != 0)
            e = errno;
    }
    if (!e)
        e = child_io(a, &stage);
    sigprocmask(SIG_SETMASK, &a->mask, NULL);
    if (!e) {
        a->t0 = nf_now_ns();
        execve(a->path, a->c->argv, a->env);
        e = errno;
        stage = STAGE_EXEC;
    }
    a->stage = stage;
    a->err = e ? e : EIO;
    syscall(SYS_exit, 127);
    return 127;
}

static int on_valgrind(void)
{
#ifdef NF_HAVE_VALGRIND_H
    return RUNNING_ON_VALGRIND;
#else
    return 0;
#endif
}

/* Whether to take the vfork path: only to exec, not when a hook must attach
 * between the child's setup and its exec, not under valgrind, and not once
 * clone refused the flags. */
static int clone_refused;

static int use_vfork(const struct nf_spawn *c)
{
    return c->argv && !c->hook && !clone_refused && !on_valgrind();
}

#define VFORK_STACK (256u << 10)

/* The vfork child's stack, kept from one repetition to the next (the
 * child is done with it when clone returns). */
static char *vfork_stack;
static size_t vfork_stack_size;

/* clone the vfork child; returns its pid (exec done or failed, see a->err)
 * or -1 with errno. */
static pid_t clone_vfork(struct child_args *a)
{
    size_t nargv = 0;
    while (a->c->argv[nargv])
        nargv++;
    size_t size = VFORK_STACK + (nargv + 2) * sizeof(char *);
    size = (size + 4095) & ~(size_t)4095;
    if (size > vfork_stack_size) {
        char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
        if (stack == MAP_FAILED)
            return -1;
        if (vfork_stack)
            munmap(vfork_stack, vfork_stack_size);
        vfork_stack = stack;
        vfork_stack_size = size;
    }
    char *stack = vfork_stack;
    size = vfork_stack_size;
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
    errno = e;
    return pid;
}

static const char *child_name(const struct nf_spawn *c)
{
    return c->name ? c->name : c->argv ? c->argv[0] : "the child";
}

static void say_failure(const struct nf_spawn *c, int stage, int e, char *err, size_t errlen)
{
    if (stage == STAGE_PIN)
        snprintf(err, errlen, "cannot pin to CPUs %s: %s", c->pin ? c->pin : "?", strerror(e));
    else if (stage == STAGE_DIR)
        snprintf(err, errlen, "cannot run '%s' in '%s': %s", child_name(c), c->dir, strerror(e));
    else if (stage == STAGE_EXEC)
        snprintf(err, errlen, "cannot run '%s': %s", child_name(c), strerror(e));
    else
        snprintf(err, errlen, "cannot start '%s': %s", child_name(c), strerror(e));
}

/* write(2) to a pipe whose reader may be dead (a child a stop signal just
 * killed): EPIPE, never the SIGPIPE that would kill us before we restore
 * what the run changed.  SIGPIPE is blocked around the write, and one it
 * raised is taken off before it is unblocked.  *t0: the time just before
 * the write. */
static ssize_t write_nosigpipe(int fd, const void *buf, size_t n, uint64_t *t0)
{
    sigset_t pipe_only, old;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    int was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    *t0 = nf_now_ns(); /* the clock starts here, not before the mask */
    ssize_t r = write(fd, buf, n);
    int e = errno;
    if (r < 0 && e == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_only, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return r;
}

/* Wait for the child's ready byte: 1 with it in *ready, 0 or -1 when the
 * child died first; -2 with err when it was not ready within c->timeout
 * (then it is killed: an image's start can hang, a loader's message to a
 * terminal that stops it) or a stop came. */
static ssize_t wait_ready(struct nf_spawn *c, int fd, char *ready, char *err, size_t errlen)
{
    double timeout = c->timeout > NF_MAX_TIMEOUT ? NF_MAX_TIMEOUT : c->timeout;
    uint64_t deadline = timeout > 0 ? nf_now_ns() + (uint64_t)(timeout * 1e9) : 0;
    for (;;) {
        if (c->stop && *c->stop) {
            snprintf(err, errlen, "cannot start '%s': stopped", child_name(c));
            return -2;
        }
        int ms = -1;
        if (deadline) {
            uint64_t now = nf_now_ns();
            if (now >= deadline) {
                nf_spawn_signal(c, SIGKILL);
                snprintf(err, errlen, "'%s' was not ready within --timeout %gs; killed",
                         child_name(c), c->timeout);
                return -2;
            }
            uint64_t left = (deadline - now) / 1000000 + 1;
            ms = left > INT_MAX ? INT_MAX : (int)left;
        }
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, ms);
        if (r < 0 && errno != EINTR)
            return -1;
        if (r > 0) {
            ssize_t n = read(fd, ready, 1);
            if (n >= 0 || errno != EINTR)
                return n;
        }
    }
}

/* The fork path: fork, wait for ready, open the counters on the child,
 * attach the hook, go; then learn whether the exec (or the setup)
 * failed. */
static int start_fork(struct nf_spawn *c, struct child_args *a, char *err, size_t errlen)
{
    const char *name = child_name(c);
    int gop[2] = {-1, -1}, readyp[2] = {-1, -1}, rc = -1;
    char hs[sizeof(NF_SPAWN_IMAGE_ARG) + 32];
    a->image = NULL;
    a->shared = NULL; /* a function child's clock is ours, at go */
    if (c->argv) {
        a->shared =
            mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (a->shared == MAP_FAILED) {
            snprintf(err, errlen, "cannot map a page: %s", strerror(errno));
            return -1;
        }
        *a->shared = 0;
    }
    if (pipe2(gop, O_CLOEXEC) || pipe2(readyp, O_CLOEXEC)) {
        snprintf(err, errlen, "cannot create pipes: %s", strerror(errno));
        goto out;
    }
    a->gofd = gop[0];
    a->gow = gop[1];
    a->readyfd = readyp[1];
    a->readyr = readyp[0];
    /* under valgrind /proc/self/exe is valgrind: fn runs in the fork */
    a->image = on_valgrind() ? NULL : nf_image_argv(c, a->readyfd, a->gofd, hs, sizeof(hs));
    a->image_by_fd = a->image && nf_image_by_fd();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0)
        fork_child(a);
    c->pid = pid;
    if (!c->keep_group) {
        setpgid(pid, pid);
        nf_contain_running(pid);
    }
    close(gop[0]);
    close(readyp[1]);
    gop[0] = readyp[1] = -1;
    char ready;
    ssize_t n = wait_ready(c, readyp[0], &ready, err, errlen);
    if (n == -2)
        goto out;
    if (n != 1) {
        snprintf(err, errlen, "cannot start '%s': the child died before it was ready", name);
        goto out;
    }
    if (ready == 'f') {
        int ie = 0;
        while ((n = read(readyp[0], &ie, sizeof(ie))) < 0 && errno == EINTR)
            ;
        c->image_errno = n == (ssize_t)sizeof(ie) && ie ? ie : EIO;
    }
    if (c->counters) {
        nf_counters_open(c->counters, pid, c->argv != NULL);
        if (!c->argv)
            nf_counters_enable(c->counters);
    }
    if (c->hook) {
        if (c->hook->attach(c->hook->ctx, pid, c->argv != NULL, err, errlen))
            goto out; /* the child sees no "go" and exits */
        c->hooked = 1;
    }
    if (write_nosigpipe(gop[1], "g", 1, &c->t_start) != 1) {
        snprintf(err, errlen, "cannot start '%s'", name);
        goto out;
    }
    int msg[2];
    while ((n = read(readyp[0], msg, sizeof(msg))) < 0 && errno == EINTR)
        ;
    if (n == (ssize_t)sizeof(msg)) {
        say_failure(c, msg[0], msg[1], err, errlen);
        goto out;
    }
    if (c->argv)
        c->t_start = *a->shared;
    rc = 0;
out:
    for (int i = 0; i < 2; i++) {
        if (gop[i] >= 0)
            close(gop[i]);
        if (readyp[i] >= 0)
            close(readyp[i]);
    }
    if (c->argv)
        munmap(a->shared, sizeof(uint64_t));
    free(a->image);
    return rc;
}

/* Our pid, asked of the kernel once per process rather than once per
 * repetition (a forked child asks again). */
static pid_t self_pid;

static void forget_self(void)
{
    self_pid = 0;
}

static pid_t self(void)
{
    static int registered;
    if (!registered && pthread_atfork(NULL, NULL, forget_self) == 0)
        registered = 1;
    if (!registered || !self_pid)
        self_pid = getpid();
    return self_pid;
}

int nf_spawn_start(struct nf_spawn *c, char *err, size_t errlen)
{
    c->pid = -1;
    c->pidfd = -1;
    c->reaped = c->hooked = c->strays = c->image_errno = 0;
    memset(&c->ru, 0, sizeof(c->ru));
    if (!c->uncontained)
        nf_contain_init();
    char path[PATH_MAX];
    if (c->argv && c->exe) {
        if (strlen(c->exe) >= sizeof(path)) {
            say_failure(c, STAGE_EXEC, ENAMETOOLONG, err, errlen);
            return -1;
        }
        snprintf(path, sizeof(path), "%s", c->exe);
    } else if (c->argv) {
        int e = nf_spawn_resolve(c->argv[0], path, sizeof(path));
        if (e) {
            say_failure(c, STAGE_EXEC, e, err, errlen);
            return -1;
        }
    }
    extern char **environ;
    struct child_args a = {.c = c,
                           .path = path,
                           .env = c->env ? c->env : environ,
                           .parent = self(),
                           .gofd = -1,
                           .readyfd = -1,
                           .gow = -1,
                           .readyr = -1,
                           .cs = c->counters && c->counters->n ? c->counters : NULL};
    /* A function keeps our stdio. */
    a.null = !c->argv ? -1 : c->null ? *c->null : open("/dev/null", O_RDWR | O_CLOEXEC);
    if (c->argv && a.null < 0) {
        snprintf(err, errlen, "cannot open /dev/null: %s", strerror(errno));
        return -1;
    }
    int rc = -1;
    if (use_vfork(c)) {
        pid_t pid = clone_vfork(&a);
        if (pid < 0 && (errno == EINVAL || errno == ENOSYS || errno == EPERM)) {
            clone_refused = 1; /* take the fork path from now on */
        } else if (pid < 0) {
            snprintf(err, errlen, "clone: %s", strerror(errno));
        } else {
            c->pid = pid;
            if (!c->keep_group)
                nf_contain_running(pid);
            if (a.err) {
                say_failure(c, a.stage, a.err, err, errlen);
            } else {
                c->t_start = a.t0;
                rc = 0;
            }
        }
    }
    if (!use_vfork(c))
        rc = start_fork(c, &a, err, errlen);
    if (a.null >= 0 && !c->null)
        close(a.null);
    return rc;
}
