#include "measure/counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/util.h"

const char nf_default_events[] = NF_DEFAULT_EVENTS;

static const struct {
    const char *name, *unit;
    unsigned type;
    unsigned long long config;
} known[] = {
    {"task-clock", "msec", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"cpu-clock", "msec", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"context-switches", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"page-faults", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"major-faults", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"minor-faults", "", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"cycles", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"branches", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"cache-references", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", "", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
};

/* Add one event by name (a repeat is dropped).  0, or -1 with err. */
static int add_event(struct nf_counters *cs, const char *name, char *err, size_t errlen)
{
    size_t k;
    for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
        if (strcmp(known[k].name, name) == 0)
            break;
    if (k == sizeof(known) / sizeof(known[0])) {
        snprintf(err, errlen,
                 "unknown event '%s' (known: default, task-clock, context-switches, "
                 "cpu-migrations, page-faults, major-faults, minor-faults, cpu-clock, cycles, "
                 "instructions, branches, branch-misses, cache-references, cache-misses)",
                 name);
        return -1;
    }
    for (size_t i = 0; i < cs->n; i++)
        if (strcmp(cs->c[i].name, name) == 0)
            return 0;
    if (cs->n == NF_MAX_EVENTS) {
        snprintf(err, errlen, "too many events (at most %d)", NF_MAX_EVENTS);
        return -1;
    }
    struct nf_counter *c = &cs->c[cs->n++];
    c->name = known[k].name;
    c->unit = known[k].unit;
    c->type = known[k].type;
    c->config = known[k].config;
    c->fd = -1;
    return 0;
}

/* Each event of a comma-separated list; "default" stands for the set. */
static int add_list(struct nf_counters *cs, const char *list, int nested, char *err, size_t errlen)
{
    /* Names separated by single commas: an empty name (",", "a,,b", a
     * trailing comma) is a typo, as perf stat says too. */
    char *buf = nf_xstrdup(list), *rest = buf;
    int rc = 0;
    while (rc == 0 && rest) {
        char *tok = strsep(&rest, ",");
        if (!*tok) {
            snprintf(err, errlen, "-e: an empty event name in '%s'", list);
            rc = -1;
        } else if (strcmp(tok, "default") == 0 && !nested) {
            rc = add_list(cs, nf_default_events, 1, err, errlen);
        } else {
            rc = add_event(cs, tok, err, errlen);
        }
    }
    free(buf);
    return rc;
}

int nf_counters_parse(struct nf_counters *cs, const char *list, char *err, size_t errlen)
{
    memset(cs, 0, sizeof(*cs));
    if (!list || !*list)
        return 0;
    return add_list(cs, list, 0, err, errlen);
}

int nf_counters_open(struct nf_counters *cs, pid_t pid, int on_exec)
{
    int opened = 0;
    for (size_t i = 0; i < cs->n; i++) {
        struct nf_counter *c = &cs->c[i];
        struct perf_event_attr attr;
        memset(&attr, 0, sizeof(attr));
        attr.size = sizeof(attr);
        attr.type = c->type;
        attr.config = c->config;
        attr.disabled = 1;
        attr.inherit = 1;
        attr.enable_on_exec = on_exec ? 1 : 0;
        attr.exclude_guest = 1;
        attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        c->fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (c->fd < 0 && errno == EACCES) {
            /* perf_event_paranoid may forbid kernel counting; retry user-only. */
            attr.exclude_kernel = 1;
            attr.exclude_hv = 1;
            c->fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
        }
        if (c->fd >= 0) {
            c->state = NF_CTR_OK;
            opened++;
            continue;
        }
        c->err = errno;
        switch (errno) {
        case ENOENT:
        case EOPNOTSUPP:
        case ENODEV:
        case EINVAL: c->state = NF_CTR_UNSUPPORTED; break;
        case EACCES:
        case EPERM: c->state = NF_CTR_DENIED; break;
        default: c->state = NF_CTR_FAILED;
        }
    }
    return opened;
}

void nf_counters_enable(struct nf_counters *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        if (cs->c[i].fd >= 0)
            ioctl(cs->c[i].fd, PERF_EVENT_IOC_ENABLE, 0);
}

void nf_counters_disable(struct nf_counters *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        if (cs->c[i].fd >= 0)
            ioctl(cs->c[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

void nf_counters_read_close(struct nf_counters *cs)
{
    for (size_t i = 0; i < cs->n; i++) {
        struct nf_counter *c = &cs->c[i];
        if (c->fd < 0)
            continue;
        uint64_t buf[3] = {0, 0, 0};
        ssize_t r = read(c->fd, buf, sizeof(buf));
        if (r != (ssize_t)sizeof(buf)) {
            c->state = NF_CTR_FAILED;
            c->err = r < 0 ? errno : EIO;
        } else {
            double count = (double)buf[0];
            double enabled = (double)buf[1], running = (double)buf[2];
            c->running_pct = 100.0;
            c->enabled_ms = enabled / 1e6;
            if (running > 0 && running < enabled) {
                /* Multiplexed: scale to the whole enabled time, as perf does. */
                count = count * enabled / running;
                c->running_pct = 100.0 * running / enabled;
            }
            if (c->type == PERF_TYPE_SOFTWARE &&
                (c->config == PERF_COUNT_SW_TASK_CLOCK || c->config == PERF_COUNT_SW_CPU_CLOCK))
                count /= 1e6; /* nanoseconds → msec, perf stat's unit */
            c->value = count;
        }
        close(c->fd);
        c->fd = -1;
    }
}

void nf_counters_close(struct nf_counters *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        if (cs->c[i].fd >= 0) {
            close(cs->c[i].fd);
            cs->c[i].fd = -1;
        }
}

int nf_counters_exec_stops(const char *path, char *why, size_t whylen)
{
    struct stat st;
    struct statvfs vfs;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    if ((statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)) ||
        prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
        return 0;
    if ((st.st_mode & S_ISUID) && st.st_uid != getuid()) {
        snprintf(why, whylen, "'%s' is set-user-ID (owner uid %u; we run as uid %u)", path,
                 (unsigned)st.st_uid, (unsigned)getuid());
        return 1;
    }
    /* Set-group-ID without group execute is a mandatory-locking mark. */
    if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getgid()) {
        snprintf(why, whylen, "'%s' is set-group-ID (group gid %u; we run as gid %u)", path,
                 (unsigned)st.st_gid, (unsigned)getgid());
        return 1;
    }
    if (geteuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0) {
        snprintf(why, whylen, "'%s' has file capabilities and we are not root (uid %u)", path,
                 (unsigned)getuid());
        return 1;
    }
    return 0;
}

size_t nf_counters_mark_stopped(struct nf_counters *cs, double cpu_ms)
{
    size_t n = 0;
    for (size_t i = 0; i < cs->n; i++) {
        struct nf_counter *c = &cs->c[i];
        if (c->state == NF_CTR_OK && c->enabled_ms < cpu_ms / 10) {
            c->state = NF_CTR_NOT_COUNTED;
            n++;
        }
    }
    return n;
}

void nf_counters_mark_not_counted(struct nf_counters *cs)
{
    for (size_t i = 0; i < cs->n; i++) {
        cs->c[i].state = NF_CTR_NOT_COUNTED;
        cs->c[i].fd = -1;
    }
}
