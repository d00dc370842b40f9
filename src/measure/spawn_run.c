/* Running a helper's child to its end with its output captured (see
 * nf_run_capture in spawn.h): a struct nf_spawn with two pipes, watched
 * while it runs so that a child that writes more than a pipe holds is
 * never blocked, and drained once nothing of it is left. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/spawn.h"

/* What is read from the child: stdout into the caller's buffer, the last
 * line of stderr into a small one of ours. */
struct sink {
    char *out;
    size_t outlen, nout;
    char line[256], last[256]; /* stderr's line being read, its last whole one */
    size_t nline;
    int fds[2]; /* stdout's read end, stderr's: -1 once at end of file */
};

/* The line read so far of stderr becomes the last one, unless empty. */
static void end_line(struct sink *k)
{
    if (!k->nline)
        return;
    memcpy(k->last, k->line, k->nline);
    k->last[k->nline] = 0;
    k->nline = 0;
}

static void take_err(struct sink *k, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] == '\n')
            end_line(k);
        else if (k->nline + 1 < sizeof(k->line))
            k->line[k->nline++] = b[i];
}

/* Read what is there on *fd: 0, and *fd closed and -1 at end of file. */
static int readable(void *ctx, int *fd)
{
    struct sink *k = ctx;
    char buf[4096];
    ssize_t n = read(*fd, buf, sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n <= 0) {
        close(*fd);
        *fd = -1;
        return 0;
    }
    if (fd == &k->fds[0]) {
        size_t room = k->outlen > k->nout + 1 ? k->outlen - k->nout - 1 : 0;
        size_t take = (size_t)n < room ? (size_t)n : room;
        memcpy(k->out + k->nout, buf, take);
        k->nout += take;
    } else {
        take_err(k, buf, (size_t)n);
    }
    return 0;
}

int nf_run_capture(char *const *argv, const char *dir, double timeout, char *out, size_t outlen,
                   int *status, char *err, size_t errlen)
{
    char discard[1];
    struct sink k = {.out = outlen ? out : discard, .outlen = outlen ? outlen : 1, .fds = {-1, -1}};
    int po[2], pe[2] = {-1, -1};
    k.out[0] = 0;
    *status = 0;
    if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot run '%s': cannot create pipes: %s", argv[0], strerror(errno));
        if (pe[0] < 0) {
            close(po[0]);
            close(po[1]);
        }
        return -1;
    }
    k.fds[0] = po[0];
    k.fds[1] = pe[0];
    struct nf_spawn c = {.argv = argv, .dir = dir, .out = po[1], .err = pe[1], .timeout = timeout};
    int w = -1;
    if (nf_spawn_start(&c, err, errlen) == 0)
        w = nf_spawn_wait(&c, k.fds, 2, readable, &k, err, errlen);
    close(po[1]);
    close(pe[1]);
    nf_spawn_end(&c, w != NF_SPAWN_EXITED);
    nf_spawn_release(&c, 0);
    /* Nothing of it is left: what it wrote is there, and then end of file. */
    for (int i = 0; i < 2; i++)
        while (k.fds[i] >= 0)
            readable(&k, &k.fds[i]);
    k.out[k.nout] = 0;
    end_line(&k);
    if (w == NF_SPAWN_TIMEOUT) {
        snprintf(err, errlen, "'%s' exceeded its timeout of %gs; it and all it started were killed",
                 argv[0], timeout);
        return -1;
    }
    if (w != NF_SPAWN_EXITED)
        return -1; /* err says why */
    *status = c.status;
    if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0)
        return 0;
    char how[64];
    if (WIFSIGNALED(c.status))
        snprintf(how, sizeof(how), "was killed by signal %d", WTERMSIG(c.status));
    else
        snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(c.status));
    snprintf(err, errlen, "'%s' %s%s%s", argv[0], how, k.last[0] ? ": " : "", k.last);
    return 0;
}
