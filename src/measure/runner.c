#include "measure/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "measure/runner_cmd.h"

void nf_runner_declare(const struct nf_runspec *spec, struct nf_run *run)
{
    if (spec->wl) {
        struct nf_metric_decl decl[NF_MAX_METRICS];
        size_t n = spec->wl->metrics(spec->cfg, decl);
        for (size_t i = 0; i < n; i++)
            nf_run_metric(run, decl[i].name, decl[i].unit, decl[i].better, decl[i].primary);
    } else {
        nf_runner_cmd_declare(spec, run);
    }
    for (size_t i = 0; i < spec->counters.n; i++)
        nf_run_metric(run, spec->counters.c[i].name, spec->counters.c[i].unit, NF_BETTER_LOWER, 0);
    if (!spec->wl)
        nf_runner_cmd_declare_captures(spec, run);
}

/* What a workload child sends back: small enough for one atomic write. */
struct child_result {
    int status;
    int nvalues;
    double values[NF_MAX_METRICS];
    char msg[400];
};

static void child_main(const struct nf_runspec *spec, int gofd, int resfd)
{
    struct child_result res;
    memset(&res, 0, sizeof(res));
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (spec->pin && sched_setaffinity(0, sizeof(spec->cpus), &spec->cpus) != 0) {
        res.status = -1;
        snprintf(res.msg, sizeof(res.msg), "cannot pin to CPUs %s: %s", spec->pin, strerror(errno));
    }
    /* Pinned and ready: the parent opens the counters only now, so the
     * move to the pinned CPU is not counted as a migration. */
    if (write(resfd, "r", 1) != 1)
        _exit(1);
    char go;
    if (read(gofd, &go, 1) != 1)
        _exit(1);
    close(gofd);
    if (res.status == 0) {
        struct nf_metric_decl decl[NF_MAX_METRICS];
        res.nvalues = (int)spec->wl->metrics(spec->cfg, decl);
        res.status = spec->wl->run_once(spec->cfg, res.values, res.msg, sizeof(res.msg));
    }
    ssize_t w = write(resfd, &res, sizeof(res));
    _exit(w == (ssize_t)sizeof(res) && res.status == 0 ? 0 : 1);
}

/* Wait for the child's result with an optional timeout.  Returns 0 when the
 * result is readable, 1 on timeout, 2 when a stop signal came, 3 when the
 * child exited without writing one.  The child's exit is watched through a
 * pidfd because the result pipe alone is not enough: a task the workload
 * forked holds a copy of its write end, so a crashed child would show no
 * end of file for as long as that task lives. */
static int wait_readable(int fd, int pidfd, double timeout)
{
    uint64_t deadline = timeout > 0 ? nf_now_ns() + (uint64_t)(timeout * 1e9) : 0;
    for (;;) {
        if (nf_stop_signal)
            return 2;
        int ms = -1;
        if (deadline) {
            uint64_t now = nf_now_ns();
            if (now >= deadline)
                return 1;
            ms = (int)((deadline - now) / 1000000) + 1;
        }
        struct pollfd p[2] = {{fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
        int r = poll(p, pidfd >= 0 ? 2 : 1, ms);
        if (r > 0 && p[0].revents)
            return 0;
        if (r > 0) {
            /* Exited: its result, if any, is in the pipe by now. */
            struct pollfd q = {fd, POLLIN, 0};
            return poll(&q, 1, 0) > 0 ? 0 : 3;
        }
        if (r < 0 && errno != EINTR)
            return 0;
    }
}

static enum nf_rep_status builtin_rep(const struct nf_runspec *spec, struct nf_run *run, int record,
                                      char *err, size_t errlen)
{
    int gop[2], resp[2];
    if (pipe2(gop, O_CLOEXEC) || pipe2(resp, O_CLOEXEC)) {
        snprintf(err, errlen, "cannot create pipes: %s", strerror(errno));
        return NF_REP_FAILED;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(gop[0]);
        close(gop[1]);
        close(resp[0]);
        close(resp[1]);
        return NF_REP_FAILED;
    }
    if (pid == 0) {
        setpgid(0, 0);
        close(gop[1]);
        close(resp[0]);
        child_main(spec, gop[0], resp[1]);
    }
    setpgid(pid, pid);
    close(gop[0]);
    close(resp[1]);

    char ready;
    while (read(resp[0], &ready, 1) < 0 && errno == EINTR)
        ;
    struct nf_counters cs = spec->counters;
    nf_counters_open(&cs, pid, 0);
    nf_counters_enable(&cs);
    enum nf_rep_status rc = NF_REP_OK;
    int hooked = 0;
    if (record && spec->hook) {
        if (spec->hook->attach(spec->hook->ctx, pid, 0, err, errlen) == 0)
            hooked = 1;
        else
            rc = NF_REP_FAILED; /* the child sees no "go" and exits */
    }
    if (rc == NF_REP_OK && write(gop[1], "g", 1) != 1) {
        snprintf(err, errlen, "cannot start the workload child");
        rc = NF_REP_FAILED;
    }
    close(gop[1]);

    struct child_result res;
    memset(&res, 0, sizeof(res));
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* -1 before Linux 5.3 */
    int w = rc == NF_REP_OK ? wait_readable(resp[0], pidfd, spec->timeout) : 0;
    if (pidfd >= 0)
        close(pidfd);
    if (w == 1) {
        snprintf(err, errlen, "repetition exceeded --timeout %gs; killed", spec->timeout);
        rc = NF_REP_FAILED;
    } else if (w == 2) {
        rc = NF_REP_STOPPED;
    } else if (w == 3) {
        rc = NF_REP_FAILED;
    } else if (rc == NF_REP_OK) {
        ssize_t r;
        while ((r = read(resp[0], &res, sizeof(res))) < 0 && errno == EINTR)
            ;
        if (r != (ssize_t)sizeof(res)) {
            w = 3; /* said after the child is reaped, with its status */
            rc = NF_REP_FAILED;
        } else if (res.status != 0) {
            snprintf(err, errlen, "%s", res.msg[0] ? res.msg : "the workload failed");
            rc = NF_REP_FAILED;
        }
    }
    if (rc != NF_REP_OK)
        kill(-pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    /* Anything the workload left in its group goes too: a stray task would
     * disturb the next repetition. */
    kill(-pid, SIGKILL);
    if (w == 3) {
        if (WIFSIGNALED(st))
            snprintf(err, errlen, "%s: the workload was killed by signal %d (%s)", spec->wl->name,
                     WTERMSIG(st), strsignal(WTERMSIG(st)));
        else
            snprintf(err, errlen, "%s: the workload died without a result (exit status %d)",
                     spec->wl->name, WEXITSTATUS(st));
    }
    if (hooked)
        spec->hook->detach(spec->hook->ctx, rc == NF_REP_OK);
    nf_counters_disable(&cs);
    nf_counters_read_close(&cs);
    close(resp[0]);
    if (rc == NF_REP_OK && record) {
        for (int i = 0; i < res.nvalues && i < (int)run->nmetrics; i++)
            nf_metric_push(&run->metrics[i], res.values[i], 100.0);
        nf_runner_record_counters(&cs, run);
    }
    return rc;
}

enum nf_rep_status nf_runner_rep(const struct nf_runspec *spec, struct nf_run *run, int record,
                                 char *err, size_t errlen)
{
    if (nf_stop_signal)
        return NF_REP_STOPPED;
    if (spec->wl)
        return builtin_rep(spec, run, record, err, errlen);
    return nf_runner_cmd_rep(spec, run, record, err, errlen);
}

void nf_runner_report_counters(const struct nf_runspec *spec, const struct nf_run *run)
{
    struct nf_counters cs = spec->counters;
    /* Probe once on ourselves to learn why a counter is missing. */
    nf_counters_open(&cs, 0, 0);
    int denied = 0;
    for (size_t i = 0; i < cs.n; i++)
        if (cs.c[i].state == NF_CTR_DENIED)
            denied = 1;
    nf_counters_close(&cs);
    if (denied)
        nf_warn("some counters were not permitted (EACCES): lower "
                "/proc/sys/kernel/perf_event_paranoid (e.g. sysctl kernel.perf_event_paranoid=1) "
                "or run as root");
    for (size_t i = 0; i < run->nmetrics; i++) {
        const struct nf_metric *m = &run->metrics[i];
        double lo = nf_metric_min_running(m);
        if (lo < 100.0)
            nf_warn("%s was multiplexed (counted %.2f%% of the time at worst) and scaled; "
                    "count fewer events for exact numbers",
                    m->name, lo);
    }
}
