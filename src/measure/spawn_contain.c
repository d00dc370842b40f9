/* Containment (see spawn.h): we are a child subreaper, so whatever a
 * repetition leaves alive is in our tree; the sweep kills and reaps it.
 * The guardian covers our own death.
 *
 * Why not a cgroup per repetition: it would see every descendant too, but
 * it needs a writable cgroup2 (not every machine has one; the subreaper
 * works everywhere) and costs a mkdir, a write and an rmdir per
 * repetition, where the subreaper costs one wait4 when nothing is left. */
#include "measure/spawn_contain.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static int subreaper;
static volatile sig_atomic_t running; /* the process group now running */
static pid_t *guard_page;             /* shared with the guardian */
static int guard_fd = -1;             /* its pipe: end of file when we are gone */

void nf_contain_init(void)
{
    if (!subreaper && prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
        subreaper = 1;
}

void nf_contain_running(pid_t pgid)
{
    running = pgid;
    if (guard_page)
        __atomic_store_n(guard_page, pgid, __ATOMIC_SEQ_CST);
}

void nf_spawn_interrupt(void)
{
    pid_t pgid = running;
    if (pgid > 0)
        kill(-pgid, SIGKILL);
}

void nf_contain_forked(void)
{
    if (guard_fd >= 0)
        close(guard_fd);
}

static void add_rusage(struct rusage *to, const struct rusage *r)
{
    timeradd(&to->ru_utime, &r->ru_utime, &to->ru_utime);
    timeradd(&to->ru_stime, &r->ru_stime, &to->ru_stime);
    if (r->ru_maxrss > to->ru_maxrss)
        to->ru_maxrss = r->ru_maxrss;
    to->ru_minflt += r->ru_minflt;
    to->ru_majflt += r->ru_majflt;
    to->ru_inblock += r->ru_inblock;
    to->ru_oublock += r->ru_oublock;
    to->ru_nvcsw += r->ru_nvcsw;
    to->ru_nivcsw += r->ru_nivcsw;
}

/* SIGKILL to pid and to the group it leads, if it leads one (a group's id
 * is the pid of the process that made it, and no other process can have
 * that pid while the group exists). */
static void kill_one(pid_t pid)
{
    kill(pid, SIGKILL);
    kill(-pid, SIGKILL);
}

/* Each pid in a /proc/.../children file ("12 34 "): killed.  The count,
 * or -1 when the file cannot be read (a kernel without
 * CONFIG_PROC_CHILDREN). */
static int kill_listed(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    int n = 0, pid;
    while (fscanf(f, "%d", &pid) == 1)
        if (pid > 0) {
            kill_one(pid);
            n++;
        }
    fclose(f);
    return n;
}

/* The slow way: every process whose parent is us. */
static int kill_by_scan(void)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    pid_t self = getpid();
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (len <= 0)
            continue;
        buf[len] = 0;
        char *paren = strrchr(buf, ')'), state;
        int ppid;
        if (paren && sscanf(paren + 1, " %c %d", &state, &ppid) == 2 && ppid == self) {
            kill_one((pid_t)atoi(e->d_name));
            n++;
        }
    }
    closedir(d);
    return n;
}

/* Kill every child of ours: those of each of our threads (an orphan goes
 * to a live thread of its subreaper). */
static int kill_children(void)
{
    int n = 0, unreadable = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char path[300];
        snprintf(path, sizeof(path), "/proc/self/task/%s/children", e->d_name);
        int k = kill_listed(path);
        if (k < 0)
            unreadable = 1;
        else
            n += k;
    }
    if (d)
        closedir(d);
    if (!d || unreadable || n == 0)
        n += kill_by_scan();
    return n;
}

void nf_contain_sweep(pid_t pgid, struct rusage *ru, int *strays)
{
    int group_killed = 0;
    for (;;) {
        int st;
        struct rusage r;
        pid_t w = wait4(-1, &st, WNOHANG | __WALL, &r);
        if (w > 0) {
            add_rusage(ru, &r);
            ++*strays;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return; /* ECHILD: nothing of ours is left */
        /* Some are alive: the child's group at once, then every child of
         * ours (each kill makes the killed one's children ours). */
        if (!group_killed && pgid > 0)
            kill(-pgid, SIGKILL);
        group_killed = 1;
        if (kill_children() == 0)
            return; /* none to be found: left for the next sweep */
        while ((w = wait4(-1, &st, __WALL, &r)) < 0 && errno == EINTR)
            ;
        if (w < 0)
            return;
        add_rusage(ru, &r);
        ++*strays;
    }
}

/* ---- the guardian ------------------------------------------------------- */

/* Close every fd from `from` on. */
static void close_from(int from)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)from, ~0U, 0) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = from; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
        close((int)fd);
}

/* The guardian's life: hold nothing of ours but the pipe, wait for its
 * end of file (we exited or were killed), kill the group we were running,
 * go. */
__attribute__((noreturn)) static void guardian(int rfd, const pid_t *page)
{
    setsid(); /* out of our terminal's signals and job control */
    prctl(PR_SET_NAME, "nf-guard");
    int fd = fcntl(rfd, F_DUPFD_CLOEXEC, 10);
    int null = open("/dev/null", O_RDWR);
    for (int i = 0; i < 3 && null >= 0; i++)
        dup2(null, i);
    if (fd < 0)
        _exit(1);
    if (fd > 10)
        dup2(fd, 10);
    close_from(11);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    char b;
    while (read(10, &b, 1) < 0 && errno == EINTR)
        ;
    pid_t pgid = __atomic_load_n(page, __ATOMIC_SEQ_CST);
    if (pgid > 0)
        kill(-pgid, SIGKILL);
    _exit(0);
}

int nf_spawn_guard(char *err, size_t errlen)
{
    if (guard_fd >= 0)
        return 0;
    pid_t *page =
        mmap(NULL, sizeof(pid_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int p[2];
    if (page == MAP_FAILED || pipe2(p, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot start the guardian: %s", strerror(errno));
        if (page != MAP_FAILED)
            munmap(page, sizeof(pid_t));
        return -1;
    }
    *page = 0;
    /* Born of a child that exits at once, the guardian is not ours: it
     * would be, as our orphan, were we a subreaper just then. */
    if (subreaper)
        prctl(PR_SET_CHILD_SUBREAPER, 0);
    fflush(NULL);
    pid_t mid = fork();
    if (mid == 0) {
        close(p[1]);
        pid_t g = fork();
        if (g == 0)
            guardian(p[0], page);
        _exit(g < 0 ? 1 : 0);
    }
    int e = errno, st = 0;
    close(p[0]);
    if (mid > 0)
        while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
            ;
    if (subreaper)
        prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (mid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(err, errlen, "cannot start the guardian: %s",
                 mid < 0 ? strerror(e) : "fork failed");
        close(p[1]);
        munmap(page, sizeof(pid_t));
        return -1;
    }
    guard_fd = p[1];
    guard_page = page;
    if (running > 0)
        *page = running;
    return 0;
}

void nf_spawn_unguard(void)
{
    if (guard_fd < 0)
        return;
    __atomic_store_n(guard_page, 0, __ATOMIC_SEQ_CST);
    close(guard_fd);
    guard_fd = -1;
    munmap(guard_page, sizeof(pid_t));
    guard_page = NULL;
}
