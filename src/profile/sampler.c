/* perf_event_open sampling with one ring buffer per CPU and a drain thread.
 *
 * Ring buffer protocol (perf_event_open(2)): the kernel writes records at
 * data_head; we read from data_tail up to a head loaded with acquire
 * semantics, then publish the new tail with release semantics so the
 * kernel may reuse the space.  A record may wrap at the end of the buffer
 * and is then copied out in two pieces; its 8-byte header never wraps
 * (records are 8-byte aligned, the buffer a power-of-two size). */
#include "profile/sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "profile/pin.h"

#define DATA_PAGES 128 /* 512 KiB per CPU with 4 KiB pages: perf's default */
#define POLL_MS 100

struct ring {
    int fd;
    unsigned char *base; /* the control page, then the data */
    size_t size;         /* data bytes, a power of two */
    int hup;             /* poll said POLLHUP: no longer polled */
};

struct nf_sampler {
    struct ring *r;
    size_t nr;
    int stopfd; /* eventfd: tells the thread to finish */
    pthread_t thread;
    int thread_on;
    struct nf_prof_events *ev;
    unsigned char tmp[65536]; /* a record that wrapped (sizes are u16) */
};

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
    return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void fill_attr(struct perf_event_attr *a, const struct nf_sample_cfg *cfg, int on_exec,
                      size_t data_size)
{
    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    a->type = cfg->type;
    a->config = cfg->config;
    a->freq = 1;
    a->sample_freq = cfg->freq;
    a->sample_type = NF_PROF_SAMPLE_TYPE;
    a->inherit = 1;
    a->mmap = 1;
    a->mmap2 = 1;
    a->comm = 1;
    a->comm_exec = 1;
    a->build_id = cfg->build_id;
    a->task = 1;
    a->sample_id_all = 1;
    /* One clock for all CPUs' buffers: they are merged by time. */
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
    a->exclude_kernel = cfg->exclude_kernel;
    a->exclude_hv = 1;
    a->disabled = 1;
    a->enable_on_exec = on_exec;
    a->watermark = 1;
    a->wakeup_watermark = (uint32_t)(data_size / 4);
}

int *nf_sampler_cpus(size_t *n)
{
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    size_t cap = conf > 0 ? (size_t)conf : 1;
    int *cpus = NULL;
    *n = 0;
    char *s = nf_read_file("/sys/devices/system/cpu/online");
    if (s) {
        /* "0-3,8,10-11" */
        for (char *p = s; *p;) {
            char *end;
            long a = strtol(p, &end, 10), b = a;
            if (end == p)
                break;
            if (*end == '-')
                b = strtol(end + 1, &end, 10);
            for (long c = a; c <= b && c < 65536; c++) {
                if (*n % 64 == 0)
                    cpus = nf_xrealloc(cpus, (*n + 64) * sizeof(*cpus));
                cpus[(*n)++] = (int)c;
            }
            p = *end == ',' ? end + 1 : end;
            if (*end != ',')
                break;
        }
        free(s);
    }
    if (*n == 0) {
        cpus = nf_xrealloc(cpus, cap * sizeof(*cpus));
        for (size_t i = 0; i < cap; i++)
            cpus[i] = (int)i;
        *n = cap;
    }
    return cpus;
}

static void ring_drain(struct nf_sampler *s, struct ring *r)
{
    struct perf_event_mmap_page *mp = (struct perf_event_mmap_page *)r->base;
    unsigned char *data = r->base + sysconf(_SC_PAGESIZE);
    uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = mp->data_tail;
    while (tail < head) {
        size_t off = (size_t)(tail & (r->size - 1));
        struct perf_event_header h;
        memcpy(&h, data + off, sizeof(h));
        if (h.size < sizeof(h) || h.size > head - tail)
            break; /* cannot happen with a sane kernel */
        const unsigned char *rec = data + off;
        if (off + h.size > r->size) {
            size_t first = r->size - off;
            memcpy(s->tmp, data + off, first);
            memcpy(s->tmp + first, data, h.size - first);
            rec = s->tmp;
        }
        size_t nside = s->ev->nside;
        nf_prof_events_parse(s->ev, rec, h.size);
        if (s->ev->nside > nside) /* while the file is still there */
            nf_prof_pin(s->ev, &s->ev->side[s->ev->nside - 1]);
        tail += h.size;
    }
    __atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static void *drain_thread(void *arg)
{
    struct nf_sampler *s = arg;
    struct pollfd *p = nf_xcalloc(s->nr + 1, sizeof(*p));
    for (;;) {
        for (size_t i = 0; i < s->nr; i++) {
            p[i].fd = s->r[i].hup ? -1 : s->r[i].fd;
            p[i].events = POLLIN;
        }
        p[s->nr].fd = s->stopfd;
        p[s->nr].events = POLLIN;
        int n = poll(p, s->nr + 1, POLL_MS);
        if (n < 0 && errno != EINTR)
            break;
        for (size_t i = 0; i < s->nr; i++) {
            /* The task the event was opened on exited: the fd stays
             * readable (POLLHUP) for good; drain it, stop polling it. */
            if (n > 0 && (p[i].revents & POLLHUP))
                s->r[i].hup = 1;
            ring_drain(s, &s->r[i]);
        }
        if (n > 0 && p[s->nr].revents)
            break;
    }
    free(p);
    return NULL;
}

static void close_rings(struct nf_sampler *s)
{
    for (size_t i = 0; i < s->nr; i++) {
        if (s->r[i].base)
            munmap(s->r[i].base, s->r[i].size + (size_t)sysconf(_SC_PAGESIZE));
        if (s->r[i].fd >= 0)
            close(s->r[i].fd);
    }
    free(s->r);
    s->r = NULL;
    s->nr = 0;
}

static const char *open_hint(int e)
{
    return e == EACCES || e == EPERM ? " (lower /proc/sys/kernel/perf_event_paranoid, e.g. sysctl "
                                       "kernel.perf_event_paranoid=1, "
                                       "or run as root)"
                                     : "";
}

struct nf_sampler *nf_sampler_start(const struct nf_sample_cfg *cfg, pid_t pid, int on_exec,
                                    struct nf_prof_events *ev, char *err, size_t errlen)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t ncpu;
    int *cpus = nf_sampler_cpus(&ncpu);
    struct nf_sampler *s = nf_xcalloc(1, sizeof(*s));
    s->ev = ev;
    s->stopfd = -1;
    s->r = nf_xcalloc(ncpu, sizeof(*s->r));
    size_t pages = DATA_PAGES;
    for (size_t i = 0; i < ncpu; i++) {
        struct ring *r = &s->r[s->nr];
        struct perf_event_attr a;
        fill_attr(&a, cfg, on_exec, pages * page);
        r->fd = (int)perf_open(&a, pid, cpus[i]);
        if (r->fd < 0 && errno == ENODEV)
            continue; /* went offline since sysfs was read */
        if (r->fd < 0) {
            snprintf(err, errlen, "cannot sample %s on CPU %d: perf_event_open: %s%s", cfg->event,
                     cpus[i], strerror(errno), open_hint(errno));
            goto fail;
        }
        s->nr++;
        /* Past the locked-memory limit (perf_event_mlock_kb, per user)
         * with many CPUs: smaller buffers, drained more often. */
        for (;;) {
            r->base = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
            if (r->base != MAP_FAILED || (errno != EPERM && errno != ENOMEM) || pages <= 4)
                break;
            pages /= 2;
        }
        if (r->base == MAP_FAILED) {
            r->base = NULL;
            snprintf(err, errlen, "cannot map the sample buffer of CPU %d: %s", cpus[i],
                     strerror(errno));
            goto fail;
        }
        r->size = pages * page;
    }
    if (s->nr == 0) {
        snprintf(err, errlen, "cannot sample: no online CPU accepted the event");
        goto fail;
    }
    if (!on_exec) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
        char *maps = nf_read_file_max(path, NF_READ_FILE_LARGE);
        size_t from = ev->nside;
        if (maps)
            nf_prof_events_maps_text(ev, (uint32_t)pid, maps);
        for (size_t i = from; i < ev->nside; i++)
            nf_prof_pin(ev, &ev->side[i]);
        free(maps);
    }
    /* The reader blocks every signal: SIGINT must reach the main thread,
     * whose waits it interrupts (the runner's stop), not this one. */
    sigset_t all, old;
    sigfillset(&all);
    s->stopfd = eventfd(0, EFD_CLOEXEC);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int prc = s->stopfd < 0 ? errno : pthread_create(&s->thread, NULL, drain_thread, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (prc) {
        snprintf(err, errlen, "cannot start the sample reader: %s", strerror(prc));
        goto fail;
    }
    s->thread_on = 1;
    if (!on_exec)
        for (size_t i = 0; i < s->nr; i++)
            ioctl(s->r[i].fd, PERF_EVENT_IOC_ENABLE, 0);
    free(cpus);
    return s;
fail:
    free(cpus);
    nf_sampler_stop(s);
    return NULL;
}

void nf_sampler_stop(struct nf_sampler *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nr; i++)
        ioctl(s->r[i].fd, PERF_EVENT_IOC_DISABLE, 0);
    if (s->thread_on) {
        uint64_t one = 1;
        while (write(s->stopfd, &one, sizeof(one)) < 0 && errno == EINTR)
            ;
        pthread_join(s->thread, NULL);
    }
    for (size_t i = 0; i < s->nr; i++)
        if (s->r[i].base)
            ring_drain(s, &s->r[i]);
    close_rings(s);
    if (s->stopfd >= 0)
        close(s->stopfd);
    free(s);
}

/* Open cfg's event on ourselves, per task, without a buffer: does the
 * machine have it, and may we?  Returns 0 or an errno. */
static int try_event(const struct nf_sample_cfg *cfg)
{
    struct perf_event_attr a;
    fill_attr(&a, cfg, 0, 4096);
    a.inherit = 0;
    long fd = perf_open(&a, 0, -1);
    if (fd < 0)
        return errno;
    close((int)fd);
    return 0;
}

int nf_sampler_probe(struct nf_sample_cfg *cfg, unsigned freq, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        uint32_t type;
        uint64_t config;
    } ev[] = {
        {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    };
    int e = 0;
    for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
        *cfg = (struct nf_sample_cfg){freq, ev[i].name, ev[i].type, ev[i].config, 0, 1};
        e = try_event(cfg);
        if (e == EINVAL) { /* before Linux 5.12: no build-ids in mmap records */
            cfg->build_id = 0;
            e = try_event(cfg);
        }
        if (e == EACCES || e == EPERM) {
            cfg->exclude_kernel = 1; /* perf_event_paranoid >= 2: user only */
            e = try_event(cfg);
        }
        /* No PMU (ENOENT), or one that cannot sample (EOPNOTSUPP, ENODEV). */
        if (e != ENOENT && e != EOPNOTSUPP && e != ENODEV)
            break;
    }
    if (e == EINVAL) {
        char *max = nf_read_file("/proc/sys/kernel/perf_event_max_sample_rate");
        snprintf(err, errlen,
                 "cannot sample at %u Hz: the kernel allows at most %s Hz "
                 "(kernel.perf_event_max_sample_rate); use a lower -F",
                 freq, max ? max : "?");
        free(max);
        return -1;
    }
    if (e) {
        snprintf(err, errlen, "cannot sample with %s: perf_event_open: %s%s", cfg->event,
                 strerror(e), open_hint(e));
        return -1;
    }
    /* The per-CPU events and their buffers, for real, on ourselves. */
    struct nf_prof_events scratch;
    nf_prof_events_init(&scratch);
    struct nf_sampler *s = nf_sampler_start(cfg, getpid(), 1, &scratch, err, errlen);
    int rc = s ? 0 : -1;
    nf_sampler_stop(s);
    nf_prof_events_free(&scratch);
    return rc;
}
