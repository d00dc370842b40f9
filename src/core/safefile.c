#include "core/safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

/* Six characters no other process can guess ahead of us; a guess would
 * only cost a retry anyway, since the name is created with O_EXCL. */
static void random_suffix(char out[7], unsigned attempt)
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char r[6];
    if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
        uint64_t x = nf_now_ns() ^ ((uint64_t)getpid() << 20) ^ attempt;
        for (size_t i = 0; i < sizeof(r); i++, x >>= 7)
            r[i] = (unsigned char)x;
    }
    for (size_t i = 0; i < sizeof(r); i++)
        out[i] = chars[r[i] % (sizeof(chars) - 1)];
    out[6] = 0;
}

int nf_newfile_open(struct nf_newfile *nf, const char *path, mode_t mode, char *err, size_t errlen)
{
    memset(nf, 0, sizeof(*nf));
    int e = EEXIST;
    for (unsigned attempt = 0; attempt < 100 && e == EEXIST; attempt++) {
        char suffix[7];
        random_suffix(suffix, attempt);
        char *tmp = nf_xasprintf("%s.tmp.%s", path, suffix);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0) {
            nf->f = fdopen(fd, "w");
            if (!nf->f) {
                e = errno;
                close(fd);
                unlink(tmp);
                free(tmp);
                break;
            }
            nf->tmp = tmp;
            nf->path = nf_xstrdup(path);
            return 0;
        }
        e = errno;
        if (e != EEXIST)
            snprintf(err, errlen, "cannot write %s: %s (creating %s)", path, strerror(e), tmp);
        free(tmp);
    }
    if (e == EEXIST)
        snprintf(err, errlen, "cannot create a temporary file next to %s", path);
    errno = e;
    return -1;
}

static void newfile_free(struct nf_newfile *nf)
{
    free(nf->tmp);
    free(nf->path);
    memset(nf, 0, sizeof(*nf));
}

void nf_newfile_abort(struct nf_newfile *nf)
{
    if (nf->f)
        fclose(nf->f);
    if (nf->tmp)
        unlink(nf->tmp);
    newfile_free(nf);
}

/* Make the rename itself durable (best effort: some file systems refuse). */
static void sync_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? nf_xasprintf("%.*s", (int)(slash == path ? 1 : slash - path), path)
                      : nf_xstrdup(".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

int nf_newfile_commit(struct nf_newfile *nf, int flags, char *err, size_t errlen)
{
    int e = 0;
    if (fflush(nf->f) != 0)
        e = errno;
    else if (ferror(nf->f))
        e = EIO;
    else if (fsync(fileno(nf->f)) != 0)
        e = errno;
    if (fclose(nf->f) != 0 && !e)
        e = errno;
    nf->f = NULL;
    if (e) {
        snprintf(err, errlen, "cannot write %s: %s", nf->path, strerror(e));
    } else if (flags & NF_NEWFILE_NOREPLACE) {
        /* link() fails on any existing name, a dangling symlink included. */
        if (link(nf->tmp, nf->path) != 0) {
            e = errno;
            snprintf(err, errlen, "cannot create %s: %s", nf->path, strerror(e));
        }
    } else if (rename(nf->tmp, nf->path) != 0) {
        e = errno;
        snprintf(err, errlen, "cannot replace %s: %s", nf->path, strerror(e));
    }
    if (e || (flags & NF_NEWFILE_NOREPLACE))
        unlink(nf->tmp);
    if (!e)
        sync_dir_of(nf->path);
    newfile_free(nf);
    errno = e;
    return e ? -1 : 0;
}

/* nf_dir_trusted on dir; the directory's resolved path in *canon. */
static int dir_trusted(const char *dir, char **canon, char *err, size_t errlen)
{
    char *p = realpath(dir, NULL);
    if (!p) {
        int e = errno;
        snprintf(err, errlen, "cannot resolve the directory %s: %s", dir, strerror(e));
        errno = e;
        return -1;
    }
    uid_t me = geteuid();
    char *walk = nf_xstrdup(p);
    int rc = 0;
    for (;;) {
        struct stat sb;
        if (lstat(walk, &sb) != 0) {
            snprintf(err, errlen, "cannot inspect %s: %s", walk, strerror(errno));
            rc = -1;
        } else if (!S_ISDIR(sb.st_mode)) {
            snprintf(err, errlen, "%s is not a directory", walk);
            rc = -1;
        } else if (sb.st_uid != me && sb.st_uid != 0) {
            snprintf(err, errlen, "the directory %s belongs to uid %ld, not to uid %ld or root",
                     walk, (long)sb.st_uid, (long)me);
            rc = -1;
        } else if ((sb.st_mode & (S_IWGRP | S_IWOTH)) && !(sb.st_mode & S_ISVTX)) {
            snprintf(err, errlen, "the directory %s is writable by %s and not sticky", walk,
                     sb.st_mode & S_IWOTH ? "everyone" : "its group");
            rc = -1;
        }
        if (rc || strcmp(walk, "/") == 0)
            break;
        char *slash = strrchr(walk, '/');
        slash[slash == walk ? 1 : 0] = 0;
    }
    free(walk);
    if (rc) {
        free(p);
        errno = EPERM;
        return -1;
    }
    *canon = p;
    return 0;
}

int nf_dir_trusted(const char *dir, char *err, size_t errlen)
{
    char *canon;
    if (dir_trusted(dir, &canon, err, errlen))
        return -1;
    free(canon);
    return 0;
}

int nf_open_trusted(const char *path, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        snprintf(err, errlen, "it does not name a file");
        errno = EINVAL;
        return -1;
    }
    char *dir = slash ? nf_xasprintf("%.*s", (int)(slash == path ? 1 : slash - path), path)
                      : nf_xstrdup(".");
    char *canon;
    int rc = dir_trusted(dir, &canon, err, errlen);
    free(dir);
    if (rc)
        return -1;
    char *real = nf_xasprintf("%s/%s", strcmp(canon, "/") == 0 ? "" : canon, base);
    free(canon);
    /* O_NONBLOCK: a FIFO at the name must not hang us before fstat says
     * it is not a regular file. */
    int fd = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    int e = errno;
    struct stat sb;
    if (fd < 0) {
        if (e == ELOOP)
            snprintf(err, errlen, "it is a symbolic link");
        else
            snprintf(err, errlen, "cannot open it: %s", strerror(e));
    } else if (fstat(fd, &sb) != 0) {
        e = errno;
        snprintf(err, errlen, "cannot inspect it: %s", strerror(e));
    } else if (!S_ISREG(sb.st_mode)) {
        e = EPERM;
        snprintf(err, errlen, "it is not a regular file");
    } else if (sb.st_uid != geteuid()) {
        e = EPERM;
        snprintf(err, errlen, "it belongs to uid %ld, not to uid %ld", (long)sb.st_uid,
                 (long)geteuid());
    } else if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
        e = EPERM;
        snprintf(err, errlen, "it is writable by %s",
                 sb.st_mode & S_IWOTH ? "everyone" : "its group");
    } else {
        e = 0;
    }
    free(real);
    if (e) {
        if (fd >= 0)
            close(fd);
        errno = e;
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}
