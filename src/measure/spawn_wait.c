/* Waiting for a child that nf_spawn_start started, and its end (see
 * spawn.h): one blocking wait4, or a pidfd and poll when fds are watched
 * or there is a timeout; then the sweep of whatever it left. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "measure/spawn_contain.h"
#include "measure/spawn.h"

#define MAX_WATCHED 4

/* The child is reaped: its status, rusage and end time are in. */
static int reaped(struct nf_spawn *c)
{
    if (!c->before_reap)
        c->t_end = nf_now_ns();
    c->reaped = 1;
    /* A stop signal kills the child (nf_spawn_interrupt): its death is
     * then the stop's, not the command's. */
    return c->stop && *c->stop ? NF_SPAWN_STOPPED : NF_SPAWN_EXITED;
}

/* wait4 for the child; with before_reap, first waitid(WNOWAIT) until it
 * has exited, the end time, the callback, and then the wait4 that reaps
 * it (which cannot block then). */
static pid_t reap(struct nf_spawn *c, int options)
{
    if (c->before_reap) {
        siginfo_t si;
        si.si_pid = 0;
        if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOWAIT | options) < 0)
            return -1;
        if (si.si_pid == 0)
            return 0; /* WNOHANG: still running */
        c->t_end = nf_now_ns();
        c->before_reap(c->reap_ctx, c->pid);
        pid_t w;
        while ((w = wait4(c->pid, &c->status, 0, &c->ru)) < 0 && errno == EINTR)
            ;
        return w;
    }
    return wait4(c->pid, &c->status, options, &c->ru);
}

/* Nothing to watch and no deadline: one blocking wait4, which a signal
 * interrupts (our handlers have no SA_RESTART). */
static int wait_blocking(struct nf_spawn *c, char *err, size_t errlen)
{
    for (;;) {
        if (c->stop && *c->stop)
            return NF_SPAWN_STOPPED;
        pid_t w = reap(c, 0);
        if (w == c->pid)
            return reaped(c);
        if (w < 0 && errno != EINTR) {
            snprintf(err, errlen, "wait4: %s", strerror(errno));
            return -1;
        }
    }
}

int nf_spawn_wait(struct nf_spawn *c, int *fds, size_t nfds, int (*readable)(void *ctx, int *fd),
                  void *ctx, char *err, size_t errlen)
{
    if (nfds > MAX_WATCHED) {
        snprintf(err, errlen, "cannot watch %zu fds of a child", nfds);
        return -1;
    }
    double timeout = c->timeout > NF_MAX_TIMEOUT ? NF_MAX_TIMEOUT : c->timeout;
    if (nfds == 0 && !(timeout > 0) && !(c->tick > 0))
        return wait_blocking(c, err, errlen);
    /* The pidfd wakes poll when the child exits, with the fds watched and a
     * timeout; without one (before Linux 5.3) we look every 10 ms. */
    if (c->pidfd < 0)
        c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
    uint64_t deadline = timeout > 0 ? c->t_start + (uint64_t)(timeout * 1e9) : 0;
    uint64_t tick = c->tick > 0 ? nf_now_ns() + (uint64_t)(c->tick * 1e9) : 0;
    for (;;) {
        if (c->stop && *c->stop)
            return NF_SPAWN_STOPPED;
        int ms = c->pidfd >= 0 ? -1 : 10;
        if (tick) {
            uint64_t now = nf_now_ns();
            if (now >= tick)
                return NF_SPAWN_TICK;
            uint64_t left = (tick - now) / 1000000 + 1;
            if (ms < 0 || left < (uint64_t)ms)
                ms = left > INT_MAX ? INT_MAX : (int)left;
        }
        if (deadline) {
            uint64_t now = nf_now_ns();
            if (now >= deadline)
                return NF_SPAWN_TIMEOUT;
            uint64_t left = (deadline - now) / 1000000 + 1;
            if (left > INT_MAX)
                left = INT_MAX; /* poll again when it ends */
            if (ms < 0 || (int)left < ms)
                ms = (int)left;
        }
        struct pollfd p[1 + MAX_WATCHED];
        p[0] = (struct pollfd){c->pidfd, POLLIN, 0}; /* poll skips a negative fd */
        for (size_t i = 0; i < nfds; i++)
            p[1 + i] = (struct pollfd){fds[i], POLLIN, 0};
        int r = poll(p, 1 + nfds, ms);
        if (r < 0 && errno != EINTR) {
            snprintf(err, errlen, "poll: %s", strerror(errno));
            return -1;
        }
        for (size_t i = 0; r > 0 && i < nfds; i++)
            if (p[1 + i].revents && fds[i] >= 0 && readable(ctx, &fds[i]) == 1)
                return NF_SPAWN_WOKEN;
        if ((r > 0 && p[0].revents) || c->pidfd < 0) {
            pid_t w = reap(c, c->pidfd >= 0 ? 0 : WNOHANG);
            if (w == c->pid)
                return reaped(c);
            if (w < 0 && errno != EINTR) {
                snprintf(err, errlen, "wait4: %s", strerror(errno));
                return -1;
            }
        }
    }
}

void nf_spawn_end(struct nf_spawn *c, int force)
{
    if (c->pid <= 0)
        return;
    if (!c->reaped) {
        if (force)
            nf_spawn_signal(c, SIGKILL);
        while (wait4(c->pid, &c->status, 0, &c->ru) < 0 && errno == EINTR)
            ;
        c->t_end = nf_now_ns();
        c->reaped = 1;
    }
    if (!c->uncontained)
        nf_contain_sweep(c->keep_group ? 0 : c->pid, &c->ru, &c->strays);
    if (!c->keep_group)
        nf_contain_running(0);
}

int nf_spawn_signal(const struct nf_spawn *c, int sig)
{
    if (c->pid <= 0 || c->reaped)
        return 0;
    return kill(c->keep_group ? c->pid : -c->pid, sig);
}

void nf_spawn_release(struct nf_spawn *c, int keep)
{
    if (c->hooked)
        c->hook->detach(c->hook->ctx, keep);
    c->hooked = 0;
    if (c->pidfd >= 0)
        close(c->pidfd);
    c->pidfd = -1;
}
