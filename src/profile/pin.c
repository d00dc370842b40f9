/* Pinning mapped files (see pin.h). */
#include "profile/pin.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "core/util.h"

/* Tries for one file: a file mapped by many short-lived processes (a shell
 * loop) is not looked for again and again when it cannot be found. */
#define MAX_TRIES 4

static struct nf_prof_pin *pin_get(struct nf_prof_events *ev, const struct nf_fileid *id)
{
    for (size_t i = 0; i < ev->npin; i++)
        if (nf_fileid_equal(&ev->pin[i].id, id))
            return &ev->pin[i];
    if (ev->npin >= NF_PROF_MAX_PINS)
        return NULL;
    if (ev->npin == ev->cappin) {
        ev->cappin = ev->cappin ? ev->cappin * 2 : 16;
        ev->pin = nf_xrealloc(ev->pin, ev->cappin * sizeof(*ev->pin));
    }
    struct nf_prof_pin *p = &ev->pin[ev->npin++];
    *p = (struct nf_prof_pin){*id, -1, 0, 0};
    return p;
}

/* O_NONBLOCK: the path may be a FIFO by now; opening it must not wait. */
static int open_file(const char *path)
{
    return open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
}

void nf_prof_pin(struct nf_prof_events *ev, const struct nf_prof_side *s)
{
    if (s->type != NF_SIDE_MMAP || s->id.kind == NF_FILEID_NONE || s->file[0] != '/')
        return;
    struct nf_prof_pin *p = pin_get(ev, &s->id);
    if (!p || p->exact || p->tries >= MAX_TRIES)
        return;
    p->tries++;
    if (!ev->no_map_files) {
        char path[96];
        snprintf(path, sizeof(path), "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64, s->pid,
                 s->start, s->start + s->len);
        int fd = open_file(path);
        if (fd >= 0) {
            if (p->fd >= 0)
                close(p->fd);
            p->fd = fd;
            p->exact = 1;
            return;
        }
        if (errno == EPERM || errno == EACCES)
            ev->no_map_files = 1; /* no need to ask again */
    }
    if (p->fd < 0)
        p->fd = open_file(s->file);
}

int nf_prof_pin_fd(const struct nf_prof_events *ev, const struct nf_fileid *id)
{
    for (size_t i = 0; i < ev->npin; i++)
        if (nf_fileid_equal(&ev->pin[i].id, id))
            return ev->pin[i].fd;
    return -1;
}
