/* Parsing perf records into samples and side-band events.  The layouts are
 * those of include/uapi/linux/perf_event.h for an event opened with
 * NF_PROF_SAMPLE_TYPE and sample_id_all: every non-sample record ends with
 * { u32 pid, tid; u64 time } (PERF_SAMPLE_TID, then PERF_SAMPLE_TIME). */
#include "profile/events.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

#define SAMPLE_ID_LEN 16 /* pid, tid, time */

void nf_prof_events_init(struct nf_prof_events *ev)
{
    memset(ev, 0, sizeof(*ev));
}

void nf_prof_events_clear(struct nf_prof_events *ev)
{
    for (size_t i = 0; i < ev->nside; i++)
        free(ev->side[i].file);
    for (size_t i = 0; i < ev->npin; i++)
        if (ev->pin[i].fd >= 0)
            close(ev->pin[i].fd);
    ev->npin = 0;
    ev->no_map_files = 0;
    ev->ns = 0;
    ev->nside = 0;
    ev->lost = 0;
    ev->seq = 0;
}

void nf_prof_events_free(struct nf_prof_events *ev)
{
    nf_prof_events_clear(ev);
    free(ev->s);
    free(ev->side);
    free(ev->pin);
    memset(ev, 0, sizeof(*ev));
}

static struct nf_prof_side *side_add(struct nf_prof_events *ev, enum nf_prof_side_type t,
                                     uint64_t time, uint32_t pid)
{
    if (ev->nside == ev->capside) {
        ev->capside = ev->capside ? ev->capside * 2 : 256;
        ev->side = nf_xrealloc(ev->side, ev->capside * sizeof(*ev->side));
    }
    struct nf_prof_side *s = &ev->side[ev->nside++];
    memset(s, 0, sizeof(*s));
    s->type = t;
    s->time = time;
    s->pid = pid;
    s->seq = ev->seq++;
    return s;
}

struct nf_prof_side *nf_prof_events_mmap(struct nf_prof_events *ev, uint64_t time, uint32_t pid,
                                         uint64_t start, uint64_t len, uint64_t pgoff,
                                         const char *file, const struct nf_fileid *id)
{
    struct nf_prof_side *s = side_add(ev, NF_SIDE_MMAP, time, pid);
    s->start = start;
    s->len = len;
    s->pgoff = pgoff;
    s->file = nf_xstrdup(file);
    if (id)
        s->id = *id;
    return s;
}

/* Fixed-size fields read without alignment assumptions. */
static uint32_t u32_at(const unsigned char *p, size_t off)
{
    uint32_t v;
    memcpy(&v, p + off, sizeof(v));
    return v;
}

static uint64_t u64_at(const unsigned char *p, size_t off)
{
    uint64_t v;
    memcpy(&v, p + off, sizeof(v));
    return v;
}

/* The NUL-terminated string at off, which must end before the sample_id. */
static const char *str_at(const unsigned char *p, size_t off, size_t len)
{
    if (len < off + SAMPLE_ID_LEN)
        return NULL;
    return memchr(p + off, 0, len - SAMPLE_ID_LEN - off) ? (const char *)p + off : NULL;
}

int nf_prof_events_parse(struct nf_prof_events *ev, const void *rec, size_t len)
{
    const unsigned char *p = rec;
    struct perf_event_header h;
    if (len < sizeof(h))
        return -1;
    memcpy(&h, p, sizeof(h));
    if (h.size != len)
        return -1;
    uint64_t time = len >= sizeof(h) + SAMPLE_ID_LEN ? u64_at(p, len - 8) : 0;
    switch (h.type) {
    case PERF_RECORD_SAMPLE: {
        if (len < 8 + 32)
            return -1;
        if (ev->ns == ev->caps) {
            ev->caps = ev->caps ? ev->caps * 2 : 4096;
            ev->s = nf_xrealloc(ev->s, ev->caps * sizeof(*ev->s));
        }
        struct nf_prof_sample *s = &ev->s[ev->ns++];
        s->ip = u64_at(p, 8);
        s->pid = u32_at(p, 16);
        s->time = u64_at(p, 24);
        s->period = u64_at(p, 32);
        s->seq = ev->seq++;
        unsigned mode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
        s->kernel = mode == PERF_RECORD_MISC_KERNEL ? 1 : mode == PERF_RECORD_MISC_USER ? 0 : 2;
        return 0;
    }
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2: {
        size_t name_off = h.type == PERF_RECORD_MMAP ? 8 + 32 : 8 + 32 + 24 + 8;
        const char *file = str_at(p, name_off, len);
        if (!file)
            return -1;
        /* MMAP2: after pgoff, the build-id (with MISC_MMAP_BUILD_ID) or
         * maj, min, ino, ino_generation. */
        struct nf_fileid id = {0};
        if (h.type == PERF_RECORD_MMAP2 && (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
            id.nbid = p[40];
            if (id.nbid && id.nbid <= NF_BUILD_ID_MAX) {
                id.kind = NF_FILEID_BUILDID;
                memcpy(id.bid, p + 44, id.nbid);
            }
        } else if (h.type == PERF_RECORD_MMAP2) {
            id.maj = u32_at(p, 40);
            id.min = u32_at(p, 44);
            id.ino = u64_at(p, 48);
            id.gen = u64_at(p, 56);
            if (id.ino || id.maj || id.min)
                id.kind = NF_FILEID_INODE;
        }
        nf_prof_events_mmap(ev, time, u32_at(p, 8), u64_at(p, 16), u64_at(p, 24), u64_at(p, 32),
                            file, &id);
        return 0;
    }
    case PERF_RECORD_FORK: {
        if (len < 8 + 24 + SAMPLE_ID_LEN)
            return -1;
        uint32_t pid = u32_at(p, 8), ppid = u32_at(p, 12);
        if (pid != ppid) /* a new process, not a thread */
            side_add(ev, NF_SIDE_FORK, u64_at(p, 24), pid)->ppid = ppid;
        return 0;
    }
    case PERF_RECORD_COMM:
        if (!str_at(p, 16, len))
            return -1;
        if (h.misc & PERF_RECORD_MISC_COMM_EXEC)
            side_add(ev, NF_SIDE_EXEC, time, u32_at(p, 8));
        return 0;
    case PERF_RECORD_LOST:
        if (len < 8 + 16)
            return -1;
        ev->lost += u64_at(p, 16);
        return 0;
    default: return 0; /* exit, throttle, ...: nothing we need */
    }
}

void nf_prof_events_maps_text(struct nf_prof_events *ev, uint32_t pid, const char *text)
{
    /* 55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 1234   /usr/bin/x */
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        char buf[4352];
        if (n < sizeof(buf)) {
            memcpy(buf, line, n);
            buf[n] = 0;
            uint64_t a, b, off, ino;
            unsigned maj, min;
            char perms[8];
            int pos = 0;
            if (sscanf(buf, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &a, &b,
                       perms, &off, &maj, &min, &ino, &pos) == 7 &&
                perms[2] == 'x' && b > a) {
                const char *file = pos > 0 ? buf + pos : "";
                struct nf_fileid id = {.maj = maj, .min = min, .ino = ino};
                id.kind = ino ? NF_FILEID_INODE : NF_FILEID_NONE;
                nf_prof_events_mmap(ev, 0, pid, a, b - a, off, *file ? file : "//anon", &id);
            }
        }
        line = nl ? nl + 1 : NULL;
    }
}
