/* A function in a fresh image of our own program (see spawn.h): the
 * parent's side, private to the spawn seam (measure/spawn*.c).  The
 * image's own side, nf_spawn_image_args and nf_spawn_image_go, is in
 * spawn.h. */
#ifndef NF_MEASURE_SPAWN_IMAGE_H
#define NF_MEASURE_SPAWN_IMAGE_H

#include <stddef.h>

#include "measure/spawn.h"

/* A function's image: c->image with the handshake (NF_SPAWN_IMAGE_ARG=R,G,
 * written into hs) after image[0]; NULL when the function runs in the
 * fork (an exec, or no image).  The caller frees it. */
char **nf_image_argv(const struct nf_spawn *c, int ready, int go, char *hs, size_t hslen);

/* Whether an exec from a file descriptor names the process after the
 * file (Linux 6.14 on): the kernel names a process by the last part of
 * the path it was exec'd by, "exe" for /proc/self/exe, and older kernels
 * name an exec from a descriptor by its number.  Asked once, by the
 * parent. */
int nf_image_by_fd(void);

/* In the fork child: exec the image (its argv from nf_image_argv) with
 * the fds it keeps, the handshake's (ready, go) and c->image_fds among
 * them.  Returns only when the exec failed, its errno, the fds as they
 * were: the function then runs in this fork.  The image is this program's
 * file (/proc/self/exe: the same file even when the path now names
 * another), exec'd from a descriptor (by_fd: nf_image_by_fd) where that
 * names it "noisefloor" from the exec on, and not "exe" until it names
 * itself. */
int nf_image_exec(const struct nf_spawn *c, char **image, int by_fd, int ready, int go);

#endif
