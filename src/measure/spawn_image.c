/* A function in a fresh image of our own program (see spawn.h): its argv
 * with the handshake and its exec, in the parent's fork child
 * (spawn_image.h); and in the image, the handshake's argument and the
 * ready/go that start its work (nf_spawn_image_args, nf_spawn_image_go). */
#include "measure/spawn_image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/util.h"

char **nf_image_argv(const struct nf_spawn *c, int ready, int go, char *hs, size_t hslen)
{
    if (c->argv || !c->image || !c->image[0])
        return NULL;
    size_t n = 0;
    while (c->image[n])
        n++;
    char **v = nf_xcalloc(n + 2, sizeof(*v));
    snprintf(hs, hslen, "%s=%d,%d", NF_SPAWN_IMAGE_ARG, ready, go);
    v[0] = c->image[0];
    v[1] = hs;
    for (size_t i = 1; i < n; i++)
        v[i + 1] = c->image[i];
    return v;
}

int nf_image_by_fd(void)
{
    static int known = -1;
    if (known < 0) {
        struct utsname u;
        int major = 0, minor = 0;
        known = uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
                (major > 6 || (major == 6 && minor >= 14));
    }
    return known;
}

int nf_image_exec(const struct nf_spawn *c, char **image, int by_fd, int ready, int go)
{
    extern char **environ;
    int fds[2 + 8], n = 0;
    fds[n++] = ready;
    fds[n++] = go;
    for (int i = 0; i < c->nimage_fds && n < (int)(sizeof(fds) / sizeof(fds[0])); i++)
        fds[n++] = c->image_fds[i];
    for (int i = 0; i < n; i++)
        fcntl(fds[i], F_SETFD, 0);
    int self = by_fd ? open("/proc/self/exe", O_PATH | O_CLOEXEC) : -1;
    if (self >= 0) {
        syscall(SYS_execveat, self, "", image, environ, AT_EMPTY_PATH);
        close(self); /* refused (a seccomp filter): by the path, then */
    }
    execv("/proc/self/exe", image);
    int e = errno;
    for (int i = 0; i < n; i++)
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    return e;
}

int nf_spawn_image_args(int argc, char **argv, int *ready, int *go, char *err, size_t errlen)
{
    size_t len = strlen(NF_SPAWN_IMAGE_ARG);
    if (argc < 2 || strncmp(argv[1], NF_SPAWN_IMAGE_ARG, len) != 0 ||
        (argv[1][len] && argv[1][len] != '='))
        return 0;
    int r = -1, g = -1, end = 0;
    if (argv[1][len] != '=' || sscanf(argv[1] + len + 1, "%d,%d%n", &r, &g, &end) != 2 ||
        argv[1][len + 1 + end] || r < 0 || g < 0 || fcntl(r, F_GETFD) < 0 ||
        fcntl(g, F_GETFD) < 0) {
        snprintf(err, errlen, "%s is how a workload's repetition starts, not an option",
                 NF_SPAWN_IMAGE_ARG);
        return -1;
    }
    *ready = r;
    *go = g;
    return 1;
}

int nf_spawn_image_go(int ready, int go)
{
    char c;
    ssize_t n = 0;
    int ok = write(ready, "r", 1) == 1;
    while (ok && (n = read(go, &c, 1)) < 0 && errno == EINTR)
        ;
    ok = ok && n == 1;
    close(ready);
    close(go);
    return ok ? 0 : -1;
}
