#include "measure/runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "measure/runner_cmd.h"
#include "measure/rusage.h"
#include "measure/spawn.h"
#include "stats/hist.h"
#include "workload/tasks.h"

/* The name of the result page's memfd (as /proc/PID/fd shows it). */
#define RESULT_MEMFD "noisefloor-result"

void nf_runner_declare(const struct nf_runspec *spec, struct nf_run *run)
{
    if (spec->wl) {
        struct nf_metric_decl decl[NF_MAX_METRICS];
        size_t n = spec->wl->metrics(spec->cfg, decl);
        for (size_t i = 0; i < n; i++)
            nf_run_metric(run, decl[i].name, decl[i].unit, decl[i].better, decl[i].primary);
    } else {
        nf_runner_cmd_declare(spec, run);
    }
    nf_rusage_declare(run);
    for (size_t i = 0; i < spec->counters.n; i++)
        nf_run_metric(run, spec->counters.c[i].name, spec->counters.c[i].unit, NF_BETTER_LOWER, 0);
    if (!spec->wl)
        nf_runner_cmd_declare_captures(spec, run);
    if (!spec->no_sysstat && spec->keep && !spec->keep->sys)
        spec->keep->sys = nf_sys_new(spec->sysfs_root, spec->pin ? &spec->cpus : NULL);
    if (!spec->no_sysstat)
        nf_sys_declare(spec->keep ? spec->keep->sys : NULL, run);
}

/* What a workload child leaves in the pages it shares with us: written
 * before it exits, read once it has been reaped.  base is its rusage at
 * go, which we take from what wait4 gives, so that the rusage metrics
 * count the work and not the child's start (an image's exec and dynamic
 * loading).  maxrss: an image's largest resident set (its own, since the
 * exec, and its children's), in KiB, or 0: wait4's is the copy of ours
 * the image was exec'd from.  A latency workload's
 * histogram comes as its non-zero buckets only (index, count), at most one
 * per bucket of stats/hist.h: the mapping is bounded, and pages the child
 * does not write cost nothing.  tasks: the counts of the workload's own
 * threads and child processes (workload/tasks.h), asked for by us. */
struct child_bucket {
    uint32_t index;
    uint64_t count;
};
struct child_result {
    int done; /* set last: the rest is whole */
    int status;
    struct rusage base;
    long maxrss;
    int nvalues;
    double values[NF_MAX_METRICS];
    char msg[NF_ERR_LEN];
    struct nf_wl_tasks tasks;
    uint32_t nbuckets;
    struct child_bucket buckets[NF_HIST_BUCKETS];
};

struct nf_rep_keep *nf_rep_keep_new(void)
{
    struct nf_rep_keep *k = nf_xcalloc(1, sizeof(*k));
    k->out.null = k->out.out = k->out.err = -1;
    k->result_fd[0] = k->result_fd[1] = -1;
    return k;
}

void nf_rep_keep_free(struct nf_rep_keep *k)
{
    if (!k)
        return;
    if (k->out_open)
        nf_output_close(&k->out);
    for (int i = 0; i < 2; i++) {
        if (k->result[i])
            munmap(k->result[i], sizeof(struct child_result));
        if (k->result_fd[i] >= 0)
            close(k->result_fd[i]);
    }
    nf_sys_free(k->sys);
    free(k->uncounted);
    free(k);
}

/* The shared page the child of run `which` (0, or 1: an interleaved
 * repetition's counted half) writes its result to; mapped at first use,
 * from a memfd, which the child's image maps in turn. */
static struct child_result *result_page(struct nf_rep_keep *k, int which, char *err, size_t errlen)
{
    if (!k->result[which]) {
        int fd = memfd_create(RESULT_MEMFD, MFD_CLOEXEC);
        void *p = MAP_FAILED;
        if (fd >= 0 && ftruncate(fd, sizeof(struct child_result)) == 0)
            p = mmap(NULL, sizeof(struct child_result), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED && fd < 0) { /* no memfd (a seccomp filter): no image either */
            p = mmap(NULL, sizeof(struct child_result), PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        }
        if (p == MAP_FAILED) {
            snprintf(err, errlen, "cannot map a page: %s", strerror(errno));
            if (fd >= 0)
                close(fd);
            return NULL;
        }
        k->result[which] = p;
        k->result_fd[which] = fd;
    }
    return k->result[which];
}

/* In the child, once spawn has pinned it and told it to go; arg is the
 * page to fill (the spec is the process-wide one: the child is a fork). */
struct child_arg {
    const struct nf_runspec *spec;
    struct child_result *res;
};

/* The repetition, told to go: in the fork, or in the image. */
static int child_run(const struct nf_workload *wl, const void *cfg, struct child_result *res)
{
    getrusage(RUSAGE_SELF, &res->base);
    struct nf_metric_decl decl[NF_MAX_METRICS];
    res->nvalues = (int)wl->metrics(cfg, decl);
    res->nbuckets = 0;
    nf_wl_tasks = res->tasks.want ? &res->tasks : NULL;
    if (wl->run_hist) {
        struct nf_hist *h = nf_xcalloc(1, sizeof(*h));
        res->status = wl->run_hist(cfg, res->values, h, res->msg, sizeof(res->msg));
        for (uint32_t i = 0; res->status == 0 && i < NF_HIST_BUCKETS; i++)
            if (h->bucket[i])
                res->buckets[res->nbuckets++] = (struct child_bucket){i, h->bucket[i]};
        free(h);
    } else {
        res->status = wl->run_once(cfg, res->values, res->msg, sizeof(res->msg));
    }
    __atomic_store_n(&res->done, 1, __ATOMIC_RELEASE);
    return res->status == 0 ? 0 : 1;
}

static int wl_child_main(void *p)
{
    const struct child_arg *a = p;
    return child_run(a->spec->wl, a->spec->cfg, a->res);
}

/* An image's largest resident set since its exec (VmHWM: the exec'd-from
 * copy of us does not count) and its reaped children's, in KiB; 0 if
 * unknown. */
static long image_maxrss(void)
{
    long hwm = 0;
    FILE *f = fopen("/proc/self/status", "re");
    char line[128];
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "VmHWM: %ld", &hwm) == 1)
            break;
    if (f)
        fclose(f);
    struct rusage ch;
    if (hwm > 0 && getrusage(RUSAGE_CHILDREN, &ch) == 0 && ch.ru_maxrss > hwm)
        hwm = ch.ru_maxrss;
    return hwm;
}

/* Whether fd is the memfd result_page made: the image writes only there,
 * never into a file a mistyped command line hands it. */
static int is_result_page(int fd)
{
    static const char want[] = "/memfd:" RESULT_MEMFD " ";
    char path[64], link[128];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof(link));
    if (n < (ssize_t)sizeof(want) - 1 || memcmp(link, want, sizeof(want) - 1) != 0) {
        errno = EBADF;
        return 0;
    }
    return 1;
}

/* Whether this program is one that starts as an image when asked (its main
 * called nf_runner_image): a test program is not, and its workloads run
 * in the fork. */
static int image_entry;

int nf_runner_image(int argc, char **argv, char *err, size_t errlen)
{
    int ready, go;
    int r = nf_spawn_image_args(argc, argv, &ready, &go, err, errlen);
    /* /proc/self/exe is this program only when the kernel exec'd it,
     * which loaded its interpreter (AT_BASE); run as
     * `ld-linux.so noisefloor ...`, it is the loader. */
    image_entry = r == 0 && getauxval(AT_BASE) != 0;
    if (r <= 0)
        return r < 0 ? NF_EINPUT : 0;
    /* argv: NAME HANDSHAKE RESULT-FD WORKLOAD WORDS... */
    prctl(PR_SET_NAME, "noisefloor");
    int fd = -1, end = 0;
    struct child_result *res = MAP_FAILED;
    if (argc >= 4 && sscanf(argv[2], "%d%n", &fd, &end) == 1 && !argv[2][end] && fd >= 0 &&
        is_result_page(fd))
        res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (res == MAP_FAILED) { /* the parent sees the child die before it was ready */
        snprintf(err, errlen, "%s: no result page to write (%s)", NF_SPAWN_IMAGE_ARG,
                 argc < 4 ? "too few arguments" : strerror(errno));
        return NF_EINPUT;
    }
    close(fd);
    const struct nf_workload *wl = nf_workload_find(argv[3]);
    void *cfg = NULL;
    res->msg[0] = 0;
    int bad = !wl ? (snprintf(res->msg, sizeof(res->msg), "no workload '%s'", argv[3]), 1)
                  : wl->parse(argc - 3, argv + 3, &cfg, res->msg, sizeof(res->msg)) != 0;
    if (nf_spawn_image_go(ready, go))
        _exit(127);
    if (bad) {
        res->status = 1;
        __atomic_store_n(&res->done, 1, __ATOMIC_RELEASE);
        _exit(1);
    }
    int rc = child_run(wl, cfg, res);
    res->maxrss = image_maxrss();
    /* No exit handlers, no destructors of the libraries: the image ends as
     * the fork would. */
    _exit(rc);
}

/* The rusage of a workload's repetition from go (res->base on), with an
 * image's own largest resident set. */
static void rusage_since_go(struct rusage *ru, const struct child_result *res)
{
    const struct rusage *b = &res->base;
    timersub(&ru->ru_utime, &b->ru_utime, &ru->ru_utime);
    timersub(&ru->ru_stime, &b->ru_stime, &ru->ru_stime);
    ru->ru_minflt -= b->ru_minflt;
    ru->ru_majflt -= b->ru_majflt;
    ru->ru_nvcsw -= b->ru_nvcsw;
    ru->ru_nivcsw -= b->ru_nivcsw;
    ru->ru_inblock -= b->ru_inblock;
    ru->ru_oublock -= b->ru_oublock;
    if (res->maxrss > 0)
        ru->ru_maxrss = res->maxrss;
}

/* Whether the child's buckets are whole: at least one, each index within
 * stats/hist.h's and above the one before, no empty count. */
static int hist_check(const char *wl, const struct child_result *res, char *err, size_t errlen)
{
    uint32_t n = res->nbuckets;
    int ok = n > 0 && n <= NF_HIST_BUCKETS;
    for (uint32_t i = 0; ok && i < n; i++)
        ok = res->buckets[i].index < NF_HIST_BUCKETS && res->buckets[i].count > 0 &&
             (i == 0 || res->buckets[i].index > res->buckets[i - 1].index);
    if (!ok)
        snprintf(err, errlen, "%s: the workload's histogram came back malformed (%u buckets)", wl,
                 n);
    return ok ? 0 : -1;
}

/* The child's buckets (checked by hist_check) as the run keeps them
 * (core/run.h): each bucket's smallest value and its count, for the
 * repetition about to be appended. */
static int record_hist(const char *name, const struct child_result *res, struct nf_run *run,
                       char *err, size_t errlen)
{
    uint32_t n = res->nbuckets;
    struct nf_bucket *b = nf_xcalloc(n ? n : 1, sizeof(*b));
    for (uint32_t i = 0; i < n; i++) {
        uint64_t hi;
        nf_hist_bucket_bounds(res->buckets[i].index, &b[i].lo, &hi);
        b[i].count = res->buckets[i].count;
    }
    size_t rep = run->nmetrics ? run->metrics[0].n : 0;
    int ok = nf_run_hist_add(run, name, rep, b, n) == 0;
    free(b);
    if (!ok)
        snprintf(err, errlen, "%s: the workload's histogram came back malformed (%u buckets)",
                 run->workload, n);
    return ok ? 0 : -1;
}

/* One run of the workload in a fresh child: what it measured in res, its
 * rusage in *ru, the counters of cs (NULL: none) read and closed, the
 * hook (or NULL) attached.  hist: its histogram must be whole for the run
 * to count. */
static enum nf_rep_status builtin_once(const struct nf_runspec *spec, struct child_result *res,
                                       struct nf_counters *cs, const struct nf_rep_hook *hook,
                                       int hist, struct rusage *ru, struct nf_rep_sys *sys,
                                       char *err, size_t errlen)
{
    res->done = 0;
    res->maxrss = 0;
    /* The workload's own tasks are read when the repetition's are. */
    const char *root = sys && sys->root ? sys->root : "";
    memset(&res->tasks, 0, sizeof(res->tasks));
    res->tasks.want = sys && sys->sys && strlen(root) < sizeof(res->tasks.root);
    if (res->tasks.want)
        memcpy(res->tasks.root, root, strlen(root) + 1);
    struct child_arg arg = {spec, res};
    static int warned; /* once a process: the image could not be exec'd */
    /* The image (when this program starts as one and the page has a
     * memfd): noisefloor RESULT-FD WORKLOAD WORDS... */
    int fd = spec->keep->result_fd[res == spec->keep->result[0] ? 0 : 1];
    char fdstr[16];
    char **image = NULL;
    if (image_entry && fd >= 0) {
        snprintf(fdstr, sizeof(fdstr), "%d", fd);
        image = nf_xcalloc((size_t)spec->wl_argc + 4, sizeof(*image));
        image[0] = "noisefloor";
        image[1] = fdstr;
        image[2] = (char *)spec->wl->name;
        for (int i = 0; i < spec->wl_argc; i++)
            image[3 + i] = spec->wl_argv[i];
    }
    struct nf_spawn c = {.fn = wl_child_main,
                         .arg = &arg,
                         .image = image,
                         .image_fds = &fd,
                         .nimage_fds = 1,
                         .name = spec->wl->name};
    int w = nf_rep_spawn(&c, spec, cs, hook, sys, err, errlen);
    if (c.image_errno && !warned++)
        nf_warn("%s: cannot re-execute noisefloor for the repetition (%s); it runs in a copy "
                "of this process, whose libraries and memory its tasks carry",
                spec->wl->name, strerror(c.image_errno));
    nf_spawn_end(&c, w != NF_SPAWN_EXITED);
    if (sys)
        nf_rep_sys_end(sys);
    enum nf_rep_status rc = NF_REP_FAILED;
    int done = __atomic_load_n(&res->done, __ATOMIC_ACQUIRE);
    if (done && res->tasks.want) { /* the main task's, read before reaping, and its tasks' */
        sys->task.run_delay_ns += res->tasks.run_delay_ns;
        sys->task.migrations += res->tasks.migrations;
    }
    if (w == NF_SPAWN_STOPPED) {
        rc = NF_REP_STOPPED;
    } else if (w == NF_SPAWN_TIMEOUT) {
        snprintf(err, errlen, "repetition exceeded --timeout %gs; killed", spec->timeout);
    } else if (w == NF_SPAWN_EXITED && done && res->status != 0) {
        res->msg[sizeof(res->msg) - 1] = 0;
        snprintf(err, errlen, "%s", res->msg[0] ? res->msg : "the workload failed");
    } else if (w == NF_SPAWN_EXITED && done) {
        rc = NF_REP_OK;
    } else if (w == NF_SPAWN_EXITED && WIFSIGNALED(c.status)) {
        snprintf(err, errlen, "%s: the workload was killed by signal %d (%s)", spec->wl->name,
                 WTERMSIG(c.status), strsignal(WTERMSIG(c.status)));
    } else if (w == NF_SPAWN_EXITED) {
        snprintf(err, errlen, "%s: the workload died without a result (exit status %d)",
                 spec->wl->name, WEXITSTATUS(c.status));
    }
    if (rc == NF_REP_OK && hist && hist_check(spec->wl->name, res, err, errlen))
        rc = NF_REP_FAILED;
    nf_spawn_release(&c, rc == NF_REP_OK);
    free(image);
    if (cs) {
        nf_counters_disable(cs);
        nf_counters_read_close(cs);
    }
    *ru = c.ru;
    if (rc == NF_REP_OK)
        rusage_since_go(ru, res);
    return rc;
}

static enum nf_rep_status builtin_rep(const struct nf_runspec *spec, struct nf_run *run, int record,
                                      char *err, size_t errlen)
{
    struct child_result *res = result_page(spec->keep, 0, err, errlen);
    if (!res)
        return NF_REP_FAILED;
    struct nf_counters cs = spec->counters;
    const struct nf_rep_hook *hook = record ? spec->hook : NULL;
    int hist = record && spec->wl->run_hist;
    struct rusage ru, cru;
    struct nf_rep_sys sys;
    enum nf_rep_status rc;
    nf_rep_sys_begin(spec, record, &sys);
    if (!nf_runner_interleaved(spec)) {
        rc = builtin_once(spec, res, &cs, hook, hist, &ru, &sys, err, errlen);
    } else {
        /* Uncounted, then counted (with the hook): its own page, so that
         * the first half's values and histogram stay. */
        rc = builtin_once(spec, res, NULL, NULL, hist, &ru, &sys, err, errlen);
        struct child_result *res2 = NULL;
        if (rc == NF_REP_OK && nf_stop_signal)
            rc = NF_REP_STOPPED;
        if (rc == NF_REP_OK && !(res2 = result_page(spec->keep, 1, err, errlen)))
            rc = NF_REP_FAILED;
        if (rc == NF_REP_OK)
            rc = builtin_once(spec, res2, &cs, hook, 0, &cru, NULL, err, errlen);
    }
    if (rc != NF_REP_OK || !record)
        return rc;
    if (hist && record_hist(spec->wl->hist, res, run, err, errlen))
        return NF_REP_FAILED;
    for (int i = 0; i < res->nvalues && i < (int)run->nmetrics; i++)
        nf_metric_push(&run->metrics[i], res->values[i], 100.0);
    nf_rusage_record(run, &ru);
    nf_runner_record_counters(&cs, run);
    nf_rep_sys_record(&sys, run, &ru);
    return rc;
}

enum nf_rep_status nf_runner_rep(const struct nf_runspec *spec, struct nf_run *run, int record,
                                 char *err, size_t errlen)
{
    if (nf_stop_signal)
        return NF_REP_STOPPED;
    if (spec->keep) {
        if (spec->wl)
            return builtin_rep(spec, run, record, err, errlen);
        return nf_runner_cmd_rep(spec, &spec->keep->out, &spec->keep->out_open, run, record, err,
                                 errlen);
    }
    /* A spec made by hand, without nf_runspec_parse: a keep of its own. */
    struct nf_runspec own = *spec;
    own.keep = nf_rep_keep_new();
    enum nf_rep_status rc = nf_runner_rep(&own, run, record, err, errlen);
    nf_rep_keep_free(own.keep);
    return rc;
}

/* text after the run's note, "; " between. */
static void note_add(struct nf_run *run, const char *text)
{
    char *note =
        run->note && run->note[0] ? nf_xasprintf("%s; %s", run->note, text) : nf_xstrdup(text);
    free(run->note);
    run->note = note;
}

void nf_runner_notes(const struct nf_runspec *spec, struct nf_run *run)
{
    if (spec->keep && spec->keep->uncounted) {
        char *text = nf_xasprintf("counters <not counted>, stored without values: %s",
                                  spec->keep->uncounted);
        note_add(run, text);
        free(text);
        /* The flag the store keeps, of every counter the note speaks of:
         * each metric without values, a machine metric aside. */
        for (size_t i = 0; i < run->nmetrics; i++) {
            struct nf_metric *m = &run->metrics[i];
            m->not_counted = !m->supported && !nf_metric_is_machine(m->name);
        }
    }
    if (spec->no_sysstat || !spec->keep || !spec->keep->sys)
        return;
    struct nf_sys_source top[5];
    size_t n = nf_sys_top(spec->keep->sys, top, 5);
    if (n == 0)
        return;
    char text[512];
    int len = !spec->pin ? snprintf(text, sizeof(text), "interrupts on all CPUs:")
                         : snprintf(text, sizeof(text),
                                    "interrupts on CPU%s %s:", strpbrk(spec->pin, ",-") ? "s" : "",
                                    spec->pin);
    for (size_t i = 0; i < n && len > 0 && (size_t)len < sizeof(text); i++)
        len += snprintf(text + len, sizeof(text) - (size_t)len, "%s %s %llu", i ? "," : "",
                        top[i].name, (unsigned long long)top[i].count);
    note_add(run, text);
}

void nf_runner_report_counters(const struct nf_runspec *spec, const struct nf_run *run)
{
    struct nf_counters cs = spec->counters;
    /* Probe once on ourselves to learn why a counter is missing. */
    nf_counters_open(&cs, 0, 0);
    int denied = 0;
    for (size_t i = 0; i < cs.n; i++)
        if (cs.c[i].state == NF_CTR_DENIED)
            denied = 1;
    nf_counters_close(&cs);
    if (denied)
        nf_warn("some counters were not permitted (EACCES): lower "
                "/proc/sys/kernel/perf_event_paranoid (e.g. sysctl kernel.perf_event_paranoid=1) "
                "or run as root");
    for (size_t i = 0; i < run->nmetrics; i++) {
        const struct nf_metric *m = &run->metrics[i];
        double lo = nf_metric_min_running(m);
        if (lo < 100.0)
            nf_warn("%s was multiplexed (counted %.2f%% of the time at worst) and scaled; "
                    "count fewer events, or one group per run",
                    m->name, lo);
    }
}
