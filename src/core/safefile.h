/* Files in places others can write to.  noisefloor runs as root, and its
 * files may live in /tmp or /var/tmp, where any user can plant a symlink or
 * a file of their own under a name we are about to use.  So:
 *
 * - every file we create is written under a fresh temporary name next to
 *   its final path (created with O_CREAT|O_EXCL|O_NOFOLLOW, so a planted
 *   name or symlink is never opened), synced, and then renamed (or linked)
 *   into place: a reader sees the old file or the whole new one, and a
 *   symlink at the final path is replaced, never followed (nf_newfile_*);
 *
 * - a file we read back and act on as root (the tuning state file) is
 *   trusted only if nobody but us and root could have written it or put it
 *   where it is (nf_open_trusted, nf_dir_trusted; the rule is at
 *   nf_open_trusted and in noisefloor(1), FILES). */
#ifndef NF_CORE_SAFEFILE_H
#define NF_CORE_SAFEFILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* A file being written under a temporary name in its final directory. */
struct nf_newfile {
    FILE *f;    /* write here */
    char *path; /* where it goes */
    char *tmp;  /* "<path>.tmp.XXXXXX", created by us alone */
};

/* Create the temporary for path with permissions mode (less the umask).
 * 0, or -1 with err (nothing created). */
int nf_newfile_open(struct nf_newfile *nf, const char *path, mode_t mode, char *err, size_t errlen);

enum {
    NF_NEWFILE_REPLACE = 0,   /* rename over whatever path is (a symlink: replaced) */
    NF_NEWFILE_NOREPLACE = 1, /* fail if path exists, in any form (errno EEXIST) */
};
/* Flush, sync and close the temporary, then move it to its path (how, by
 * flags).  0; or -1 with err, the temporary removed and the path as it was;
 * with NF_NEWFILE_NOREPLACE and an existing path, errno is EEXIST after. */
int nf_newfile_commit(struct nf_newfile *nf, int flags, char *err, size_t errlen);
/* Close and remove the temporary (after a failure before commit). */
void nf_newfile_abort(struct nf_newfile *nf);

/* Open path for reading only if it can be trusted: it is a regular file,
 * not a symlink, owned by the effective uid and not writable by its group
 * or others; and its directory and every directory above it (after
 * symlinks are resolved) is owned by the effective uid or root and is
 * either not writable by group or others, or sticky.  In a sticky
 * directory (/tmp, /var/tmp) only an entry's owner, the directory's owner
 * and root can remove or rename it, so nobody else can swap our file.
 * Returns the descriptor, or -1 with err saying why (as "it is a symbolic
 * link": the caller names the file); errno is ENOENT after -1 when the
 * file (or its directory) does not exist. */
int nf_open_trusted(const char *path, char *err, size_t errlen);
/* The directory part of that rule, for a file about to be created in dir
 * (which must exist).  0, or -1 with err. */
int nf_dir_trusted(const char *dir, char *err, size_t errlen);

#endif
