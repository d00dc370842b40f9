/* The spawn seam: how a wait ends (exit, a watched fd, the timeout, the
 * stop flag), that the end of a child takes its whole process group and
 * whatever left it, the start's failures in one line, and a function
 * child's exit status and rusage; the helper's captured run
 * (nf_run_capture), and a child that keeps our group, environment and
 * file of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "measure/spawn.h"

#include "burn.h"

/* 20 ms of CPU time (not a count of additions, which on a fast machine
 * took less than the rusage shows): its rusage is not zero. */
static int burn(void *arg)
{
    burn_cpu_ms(20);
    return *(int *)arg;
}

/* A function child: its return is its exit status; its CPU time is in
 * the rusage of the reap. */
static void test_function_child(void **state)
{
    (void)state;
    int code = 7;
    struct nf_spawn c = {.fn = burn, .arg = &code, .name = "burn", .out = -1, .err = -1};
    char err[NF_ERR_LEN] = "";
    assert_int_equal(nf_spawn_start(&c, err, sizeof(err)), 0);
    assert_int_equal(nf_spawn_wait(&c, NULL, 0, NULL, NULL, err, sizeof(err)), NF_SPAWN_EXITED);
    assert_true(c.reaped && WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 7);
    assert_true(c.ru.ru_utime.tv_sec > 0 || c.ru.ru_utime.tv_usec > 0);
    assert_true(c.t_end >= c.t_start);
    nf_spawn_end(&c, 0);
    nf_spawn_release(&c, 1);
}

/* Processes of group pgid that are not zombies (a zombie is dead; who
 * reaps it is up to init). */
static int alive_in_group(pid_t pgid)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char path[300], buf[512];
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[len] = 0;
        char *close_paren = strrchr(buf, ')'), state;
        int ppid, pgrp;
        if (close_paren && sscanf(close_paren + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 &&
            pgrp == pgid && state != 'Z')
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* The timeout ends the wait; the end kills the child and what it started
 * in its group (a background sleep). */
static void test_timeout_kills_the_group(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "sleep 30 & sleep 30", NULL};
    struct nf_spawn c = {.argv = argv, .out = -1, .err = -1, .timeout = 0.2};
    char err[NF_ERR_LEN] = "";
    assert_int_equal(nf_spawn_start(&c, err, sizeof(err)), 0);
    assert_int_equal(nf_spawn_wait(&c, NULL, 0, NULL, NULL, err, sizeof(err)), NF_SPAWN_TIMEOUT);
    assert_true(alive_in_group(c.pid) >= 1); /* the group lives until the end */
    nf_spawn_end(&c, 1);
    assert_true(c.reaped && WIFSIGNALED(c.status));
    assert_int_equal(WTERMSIG(c.status), SIGKILL);
    /* SIGKILL is delivered before kill() returns, but the background
     * sleep's exit may take a moment to show. */
    int left = 1;
    for (int i = 0; i < 500 && left; i++) {
        left = alive_in_group(c.pid);
        if (left)
            usleep(10000);
    }
    assert_int_equal(left, 0);
    nf_spawn_release(&c, 0);
}

/* The stop flag ends the wait at once. */
static void test_stop_flag(void **state)
{
    (void)state;
    volatile sig_atomic_t stop = SIGINT;
    char *argv[] = {"/bin/sleep", "30", NULL};
    struct nf_spawn c = {.argv = argv, .out = -1, .err = -1, .stop = &stop};
    char err[NF_ERR_LEN] = "";
    assert_int_equal(nf_spawn_start(&c, err, sizeof(err)), 0);
    assert_int_equal(nf_spawn_wait(&c, NULL, 0, NULL, NULL, err, sizeof(err)), NF_SPAWN_STOPPED);
    nf_spawn_end(&c, 1);
    assert_true(WIFSIGNALED(c.status));
    nf_spawn_release(&c, 0);
}

static int woken(void *ctx, int *fd)
{
    char buf[64];
    ssize_t n = read(*fd, buf, sizeof(buf));
    *(int *)ctx += n > 0;
    return 1;
}

/* A watched fd's callback ends the wait while the child still runs. */
static void test_watched_fd(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    char *argv[] = {"/bin/sh", "-c", "echo hi; exec sleep 30", NULL};
    struct nf_spawn c = {.argv = argv, .out = p[1], .err = -1, .timeout = 20};
    char err[NF_ERR_LEN] = "";
    int reads = 0;
    assert_int_equal(nf_spawn_start(&c, err, sizeof(err)), 0);
    close(p[1]);
    assert_int_equal(nf_spawn_wait(&c, &p[0], 1, woken, &reads, err, sizeof(err)), NF_SPAWN_WOKEN);
    assert_int_equal(reads, 1);
    assert_false(c.reaped);
    nf_spawn_end(&c, 1);
    nf_spawn_release(&c, 0);
    close(p[0]);
}

/* What left the group (setsid) after the child exited is killed and
 * reaped by the end, and counted; then we have no child at all. */
static void test_strays_are_swept(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "setsid sleep 30 & setsid sleep 31 & exit 0", NULL};
    struct nf_spawn c = {.argv = argv, .out = -1, .err = -1};
    char err[NF_ERR_LEN] = "";
    assert_int_equal(nf_spawn_start(&c, err, sizeof(err)), 0);
    assert_int_equal(nf_spawn_wait(&c, NULL, 0, NULL, NULL, err, sizeof(err)), NF_SPAWN_EXITED);
    assert_true(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0);
    nf_spawn_end(&c, 0);
    assert_int_equal(c.strays, 2);
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
    nf_spawn_release(&c, 1);
}

/* A command that cannot be exec'd: one line, and nothing left running. */
static void test_exec_failure(void **state)
{
    (void)state;
    char *argv[] = {"/nonexistent/nf-spawn", NULL};
    struct nf_spawn c = {.argv = argv, .out = -1, .err = -1};
    char err[NF_ERR_LEN] = "";
    assert_int_equal(nf_spawn_start(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "cannot run '/nonexistent/nf-spawn': No such file or directory");
    nf_spawn_end(&c, 1);
    nf_spawn_release(&c, 0);
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* no child left to reap */
}

/* A hook that kills the child between its "ready" and our "go", as a stop
 * signal can, and waits until it is dead. */
static int kill_at_attach(void *ctx, pid_t pid, int on_exec, char *err, size_t errlen)
{
    (void)ctx, (void)on_exec, (void)err, (void)errlen;
    kill(pid, SIGKILL);
    siginfo_t si;
    waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
    return 0;
}

static void no_detach(void *ctx, int keep)
{
    (void)ctx, (void)keep;
}

/* The child dies before "go": writing it into a pipe nobody reads is
 * EPIPE and a failed start, not a SIGPIPE that kills us (SIGPIPE is at
 * its default here, as in noisefloor). */
static void test_child_dead_before_go(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_DFL);
    int code = 0;
    struct nf_rep_hook hook = {kill_at_attach, no_detach, NULL};
    struct nf_spawn c = {
        .fn = burn, .arg = &code, .name = "burn", .out = -1, .err = -1, .hook = &hook};
    char err[NF_ERR_LEN] = "";
    assert_int_equal(nf_spawn_start(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "cannot start 'burn'");
    nf_spawn_end(&c, 1);
    nf_spawn_release(&c, 0);
    sigset_t pending;
    sigpending(&pending);
    assert_false(sigismember(&pending, SIGPIPE)); /* none left to strike later */
}

/* The helper's child: stdout captured, run in the directory asked for,
 * its exit status and the last line of its stderr. */
static void test_run_capture(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "pwd; echo first >&2; echo oops >&2; exit 3", NULL};
    char out[64], err[NF_ERR_LEN] = "";
    int st = -1;
    assert_int_equal(nf_run_capture(argv, "/", 5, out, sizeof(out), &st, err, sizeof(err)), 0);
    assert_string_equal(out, "/\n");
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 3);
    assert_string_equal(err, "'/bin/sh' exited with status 3: oops");
    char here[4096], still[4096];
    assert_non_null(getcwd(here, sizeof(here)));
    assert_int_equal(nf_run_capture(argv, "/tmp", 5, out, sizeof(out), &st, err, sizeof(err)), 0);
    assert_string_equal(out, "/tmp\n");
    assert_non_null(getcwd(still, sizeof(still)));
    assert_string_equal(here, still); /* the child's directory, not ours */
    char *ok[] = {"/bin/sh", "-c", "echo fine", NULL};
    snprintf(err, sizeof(err), "untouched");
    assert_int_equal(nf_run_capture(ok, NULL, 0, out, sizeof(out), &st, err, sizeof(err)), 0);
    assert_string_equal(out, "fine\n");
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_string_equal(err, "untouched");
}

/* More output than a pipe holds: read while it runs (the child is never
 * stuck on a full pipe), kept up to the buffer, the rest dropped. */
static void test_run_capture_large(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "yes | head -c 300000", NULL};
    char out[16], err[NF_ERR_LEN] = "";
    int st = -1;
    assert_int_equal(nf_run_capture(argv, NULL, 0, out, sizeof(out), &st, err, sizeof(err)), 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_string_equal(out, "y\ny\ny\ny\ny\ny\ny\ny");
}

/* Past its timeout the child is killed with all it started; one line;
 * nothing is left to reap. */
static void test_run_capture_timeout(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "sleep 30 & sleep 31", NULL};
    char out[16], err[NF_ERR_LEN] = "";
    int st = -1;
    assert_int_equal(nf_run_capture(argv, NULL, 0.2, out, sizeof(out), &st, err, sizeof(err)), -1);
    assert_string_equal(
        err, "'/bin/sh' exceeded its timeout of 0.2s; it and all it started were killed");
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

/* What cannot be started: one line each. */
static void test_run_capture_failures(void **state)
{
    (void)state;
    char *none[] = {"nf-no-such-command", NULL};
    char out[16], err[NF_ERR_LEN] = "";
    int st = -1;
    assert_int_equal(nf_run_capture(none, NULL, 0, out, sizeof(out), &st, err, sizeof(err)), -1);
    assert_string_equal(err, "cannot run 'nf-no-such-command': No such file or directory");
    char *sh[] = {"/bin/sh", "-c", "exit 0", NULL};
    assert_int_equal(
        nf_run_capture(sh, "/nonexistent/nf", 0, out, sizeof(out), &st, err, sizeof(err)), -1);
    assert_string_equal(err,
                        "cannot run '/bin/sh' in '/nonexistent/nf': No such file or directory");
}

/* A child that keeps our process group, with an environment and a file
 * of its own to exec; a tick ends a wait without ending the child, and a
 * signal sent to it ends it. */
static void test_group_env_tick(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    char *argv[] = {"nf-named", "-c", "echo $NF_T; cut -d' ' -f5 /proc/self/stat; exec sleep 30",
                    NULL};
    char *env[] = {"NF_T=42", "PATH=/bin:/usr/bin", NULL};
    struct nf_spawn c = {.argv = argv,
                         .exe = "/bin/sh",
                         .env = env,
                         .out = p[1],
                         .err = -1,
                         .keep_group = 1,
                         .uncontained = 1,
                         .tick = 0.05};
    char err[NF_ERR_LEN] = "";
    assert_int_equal(nf_spawn_start(&c, err, sizeof(err)), 0);
    close(p[1]);
    char buf[64] = "";
    size_t len = 0;
    ssize_t n;
    int lines = 0;
    while (lines < 2 && len < sizeof(buf) - 1 &&
           (n = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
        for (ssize_t i = 0; i < n; i++)
            lines += buf[len++] == '\n';
    buf[len] = 0;
    char want[64];
    snprintf(want, sizeof(want), "42\n%d\n", (int)getpgrp());
    assert_string_equal(buf, want);
    assert_int_equal(nf_spawn_wait(&c, NULL, 0, NULL, NULL, err, sizeof(err)), NF_SPAWN_TICK);
    assert_false(c.reaped);
    assert_int_equal(nf_spawn_signal(&c, SIGTERM), 0);
    int w;
    while ((w = nf_spawn_wait(&c, NULL, 0, NULL, NULL, err, sizeof(err))) == NF_SPAWN_TICK)
        ;
    assert_int_equal(w, NF_SPAWN_EXITED);
    assert_true(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGTERM);
    nf_spawn_end(&c, 0);
    nf_spawn_release(&c, 0);
    close(p[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_function_child),
        cmocka_unit_test(test_timeout_kills_the_group),
        cmocka_unit_test(test_stop_flag),
        cmocka_unit_test(test_watched_fd),
        cmocka_unit_test(test_exec_failure),
        cmocka_unit_test(test_strays_are_swept),
        cmocka_unit_test(test_child_dead_before_go),
        cmocka_unit_test(test_run_capture),
        cmocka_unit_test(test_run_capture_large),
        cmocka_unit_test(test_run_capture_timeout),
        cmocka_unit_test(test_run_capture_failures),
        cmocka_unit_test(test_group_env_tick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
