/* netsend: a netperf-style stream over loopback (netperf UDP_STREAM /
 * TCP_STREAM, the way mmtests runs them: one test per message size).
 *
 * For each size, a sink child is started on a fresh socket bound to
 * 127.0.0.1 on an ephemeral port; this process streams messages of that
 * size at it for -d seconds and reports what it sent per second.  For UDP
 * the sink also counts what it received (datagrams can be dropped on a full
 * receive buffer, so recv <= send): when the time is up the sender sends
 * zero-length datagrams as the end marker (they queue behind the data, and
 * are repeated in case one is dropped), the sink answers with its count over
 * a pipe, and recv-SIZE is that count over the sender's time.  For TCP the
 * sender shuts down its side and the sink counts up to the end of file.
 *
 * Socket setup and the sink's start are outside the timed window, and so
 * is the reading of the sink's run delay and migrations (workload/tasks.h):
 * once it has answered, it exits, and is read as a zombie before it is
 * reaped. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "workload/tasks.h"
#include "workload/workload.h"

#define NS_MAX_SIZES 16
#define NS_UDP_MAX 65507 /* largest UDP payload over IPv4 */
#define NS_TCP_MAX (16L << 20)
#define NS_SINK_WAIT_S 10.0 /* how long a sink may take to answer */
/* The shortest stream: -d 1e-10 was a window of 0 ns and a rate of 0/0.
 * A millisecond is thousands of clock readings and, at loopback speeds,
 * hundreds of messages: a rate, if a noisy one. */
#define NS_MIN_SECS 0.001

struct ns_cfg {
    int tcp;
    long sizes[NS_MAX_SIZES];
    int nsizes;
    double secs;
};

#define NS_DEFAULT_SIZES "64,128,256,1024,2048,3312,4096,8192,16384"

static int parse_sizes(struct ns_cfg *cfg, const char *arg, char *err, size_t errlen)
{
    char *buf = nf_xstrdup(arg), *save = NULL;
    int rc = 0;
    cfg->nsizes = 0;
    if (!*buf || buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
        goto bad;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long v;
        if (nf_parse_long(tok, 1, NS_TCP_MAX, &v))
            goto bad;
        for (int i = 0; i < cfg->nsizes; i++)
            if (cfg->sizes[i] == v) {
                snprintf(err, errlen, "size %ld is given twice", v);
                rc = -1;
                goto out;
            }
        if (cfg->nsizes == NS_MAX_SIZES) {
            snprintf(err, errlen, "at most %d sizes", NS_MAX_SIZES);
            rc = -1;
            goto out;
        }
        cfg->sizes[cfg->nsizes++] = v;
    }
    goto out;
bad:
    snprintf(err, errlen, "-m wants sizes in bytes like 64,1024, not '%s'", arg);
    rc = -1;
out:
    free(buf);
    return rc;
}

static int take_sizes(const struct nf_option *o, void *cfg, const char *arg, char *err,
                      size_t errlen)
{
    (void)o;
    return parse_sizes(cfg, arg, err, errlen);
}

/* The sizes as -m takes them, in their order (the first is the primary
 * metric's): "64,1024" for `-m 064,1024` too. */
static int show_sizes(const struct nf_option *o, const void *cfgv, char *buf, size_t len)
{
    const struct ns_cfg *cfg = cfgv;
    size_t k = 0;
    (void)o;
    buf[0] = '\0';
    for (int i = 0; i < cfg->nsizes; i++) {
        k += (size_t)snprintf(buf + k, len - k, "%s%ld", i ? "," : "", cfg->sizes[i]);
        if (k >= len)
            return -1;
    }
    return 0;
}

static const struct nf_opt_choice ns_protos[] = {{"udp", 0}, {"tcp", 1}, {NULL, 0}};

static const struct nf_opts ns_opts = {
    .usage = "noisefloor run [OPTIONS] netsend",
    .about = "netperf-style stream (UDP_STREAM, TCP_STREAM) to a sink child on 127.0.0.1.",
    .flags = NF_OPTS_STOP | NF_OPTS_LETTERS | NF_OPTS_SYNOPSIS,
    .options =
        (const struct nf_option[]){
            NF_OPT_CHOICE('P', "proto", struct ns_cfg, tcp, ns_protos, NULL, "protocol",
                          NF_DEF("udp")),
            NF_OPT_CALLBACK_SHOW('m', "sizes", take_sizes, show_sizes, "SIZES",
                                 "message sizes in bytes, comma-separated",
                                 NF_DEF(NS_DEFAULT_SIZES)),
            NF_OPT_DOUBLE('d', "duration", struct ns_cfg, secs, NS_MIN_SECS, 86400, 0, "seconds",
                          "SEC",
                          "seconds per size (fractions allowed, at least\n"
                          "0.001)",
                          NF_DEF("5")),
            NF_OPT_END,
        },
    .footer = "Metrics: send-SIZE per size and, for UDP, recv-SIZE (what the sink received),\n"
              "in Mbit/s (10^6 bits per second), higher is better; the first size's send\n"
              "is primary.",
};

extern const struct nf_workload nf_workload_netsend;

static int ns_parse(int argc, char **argv, void **cfgp, char *err, size_t errlen)
{
    static const struct ns_cfg defaults = {0}; /* the table's */
    if (nf_workload_parse_opts(&nf_workload_netsend, &defaults, sizeof(defaults), argc, argv, cfgp,
                               err, errlen))
        return -1;
    struct ns_cfg *cfg = *cfgp;
    for (int i = 0; i < cfg->nsizes; i++)
        if (!cfg->tcp && cfg->sizes[i] > NS_UDP_MAX) {
            snprintf(err, errlen, "netsend: a UDP message holds at most %d bytes, not %ld",
                     NS_UDP_MAX, cfg->sizes[i]);
            free(cfg);
            *cfgp = NULL;
            return -1;
        }
    return 0;
}

static size_t ns_metrics(const void *cfgv, struct nf_metric_decl *out)
{
    const struct ns_cfg *cfg = cfgv;
    size_t n = 0;
    for (int pass = 0; pass < (cfg->tcp ? 1 : 2); pass++)
        for (int i = 0; i < cfg->nsizes; i++, n++) {
            memset(&out[n], 0, sizeof(out[n]));
            snprintf(out[n].name, sizeof(out[n].name), "%s-%ld", pass ? "recv" : "send",
                     cfg->sizes[i]);
            snprintf(out[n].unit, sizeof(out[n].unit), "Mbit/s");
            out[n].better = NF_BETTER_HIGHER;
            out[n].primary = n == 0;
        }
    return n;
}

/* ---- the sink ----------------------------------------------------------- */

struct sink_result {
    int status; /* 0 or errno */
    uint64_t bytes;
    char what[120];
};

static void sink_main(int sock, int tcp, long size, int resfd)
{
    struct sink_result res;
    memset(&res, 0, sizeof(res));
    size_t len = tcp ? 128 * 1024 : (size_t)size;
    char *buf = malloc(len);
    int fd = sock;
    if (!buf) {
        res.status = ENOMEM;
        snprintf(res.what, sizeof(res.what), "malloc");
        goto out;
    }
    if (tcp) {
        while ((fd = accept(sock, NULL, NULL)) < 0 && errno == EINTR)
            ;
        if (fd < 0) {
            res.status = errno;
            snprintf(res.what, sizeof(res.what), "accept");
            goto out;
        }
    }
    for (;;) {
        ssize_t r = recv(fd, buf, len, 0);
        if (r > 0) {
            res.bytes += (uint64_t)r;
        } else if (r == 0) {
            break; /* TCP: end of file; UDP: the end marker */
        } else if (errno != EINTR) {
            res.status = errno;
            snprintf(res.what, sizeof(res.what), "recv");
            break;
        }
    }
out:
    if (write(resfd, &res, sizeof(res)) != (ssize_t)sizeof(res))
        _exit(1);
    _exit(0);
}

/* ---- the sender --------------------------------------------------------- */

struct stream {
    int tcp;
    int sock, snd; /* the sink's socket, the sender's */
    int res[2];    /* the sink's answer */
    pid_t sink;
    struct sockaddr_in addr;
};

static void stream_close(struct stream *s)
{
    int *fds[] = {&s->sock, &s->snd, &s->res[0], &s->res[1]};
    for (size_t i = 0; i < 4; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
    if (s->sink > 0) {
        kill(s->sink, SIGKILL);
        while (waitpid(s->sink, NULL, 0) < 0 && errno == EINTR)
            ;
        s->sink = 0;
    }
}

static int stream_open(struct stream *s, long size, char *err, size_t errlen)
{
    const char *proto = s->tcp ? "TCP" : "UDP";
    int type = s->tcp ? SOCK_STREAM : SOCK_DGRAM;
    socklen_t alen = sizeof(s->addr);
    memset(&s->addr, 0, sizeof(s->addr));
    s->addr.sin_family = AF_INET;
    s->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->sock = socket(AF_INET, type | SOCK_CLOEXEC, 0);
    if (s->sock < 0) {
        snprintf(err, errlen, "netsend: cannot create a %s socket: %s", proto, strerror(errno));
        return -1;
    }
    if (bind(s->sock, (struct sockaddr *)&s->addr, sizeof(s->addr)) ||
        getsockname(s->sock, (struct sockaddr *)&s->addr, &alen) ||
        (s->tcp && listen(s->sock, 1))) {
        snprintf(err, errlen, "netsend: cannot bind a %s port on 127.0.0.1: %s", proto,
                 strerror(errno));
        return -1;
    }
    if (pipe2(s->res, O_CLOEXEC)) {
        snprintf(err, errlen, "netsend: cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    s->sink = fork();
    if (s->sink < 0) {
        snprintf(err, errlen, "netsend: cannot start the sink: %s", strerror(errno));
        s->sink = 0;
        return -1;
    }
    if (s->sink == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the repetition */
        if (getppid() != parent)
            _exit(1);
        close(s->res[0]);
        sink_main(s->sock, s->tcp, size, s->res[1]);
    }
    close(s->res[1]);
    s->res[1] = -1;
    close(s->sock); /* the sink's now */
    s->sock = -1;
    s->snd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
    if (s->snd < 0) {
        snprintf(err, errlen, "netsend: cannot create a %s socket: %s", proto, strerror(errno));
        return -1;
    }
    /* UDP too, as iperf3 and netperf do: a connected socket keeps its
     * route, where every sendto() to an address looks it up again (at
     * 1024 bytes that was a quarter of the sender's time). */
    {
        int r;
        while ((r = connect(s->snd, (struct sockaddr *)&s->addr, sizeof(s->addr))) < 0 &&
               errno == EINTR)
            ;
        if (r) {
            snprintf(err, errlen, "netsend: cannot connect to the sink on 127.0.0.1:%d: %s",
                     ntohs(s->addr.sin_port), strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Wait for the sink's answer; for UDP keep sending end markers meanwhile. */
static int sink_answer(struct stream *s, struct sink_result *res, char *err, size_t errlen)
{
    uint64_t deadline = nf_now_ns() + (uint64_t)(NS_SINK_WAIT_S * 1e9);
    struct pollfd p = {s->res[0], POLLIN, 0};
    for (;;) {
        if (!s->tcp)
            send(s->snd, "", 0, 0);
        int r = poll(&p, 1, s->tcp ? 100 : 10);
        if (r > 0)
            break;
        if (r < 0 && errno != EINTR) {
            snprintf(err, errlen, "netsend: poll: %s", strerror(errno));
            return -1;
        }
        if (nf_now_ns() > deadline) {
            snprintf(err, errlen, "netsend: the sink did not answer within %gs", NS_SINK_WAIT_S);
            return -1;
        }
    }
    ssize_t n;
    while ((n = read(s->res[0], res, sizeof(*res))) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof(*res)) {
        snprintf(err, errlen, "netsend: the sink died without a count");
        return -1;
    }
    if (res->status) {
        snprintf(err, errlen, "netsend: sink: %s: %s", res->what, strerror(res->status));
        return -1;
    }
    return 0;
}

static int stream_size(const struct ns_cfg *cfg, long size, const char *data, double *send_mbps,
                       double *recv_mbps, char *err, size_t errlen)
{
    struct stream s = {.tcp = cfg->tcp, .sock = -1, .snd = -1, .res = {-1, -1}};
    int rc = -1;
    if (stream_open(&s, size, err, errlen))
        goto out;
    uint64_t sent = 0;
    uint64_t t0 = nf_now_ns(), now = t0;
    uint64_t end = t0 + (uint64_t)(cfg->secs * 1e9);
    /* The clock is read every 16 messages (and after a failed send), not
     * after each: a reading costs 100-200 ns on a KVM guest, some 5% of a
     * small datagram's send.  The rate divides by the time last read, just
     * after a send, so the stream may run a few messages past -d, never
     * short of it, and the rate is exact. */
    for (unsigned k = 1; now < end; k++) {
        ssize_t r = send(s.snd, data, (size_t)size, MSG_NOSIGNAL);
        if (r > 0) {
            sent += (uint64_t)r;
        } else if (r < 0 && errno != EINTR && errno != ENOBUFS && errno != EAGAIN) {
            snprintf(err, errlen, "netsend: send of %ld bytes: %s", size, strerror(errno));
            goto out;
        }
        if ((k & 15) == 0 || r <= 0)
            now = nf_now_ns();
    }
    if (now <= t0) { /* not with -d >= NS_MIN_SECS; never a rate of 0/0 */
        snprintf(err, errlen, "netsend: the %ld-byte stream measured no time", size);
        goto out;
    }
    double secs = (double)(now - t0) / 1e9;
    if (s.tcp)
        shutdown(s.snd, SHUT_WR);
    struct sink_result res;
    if (sink_answer(&s, &res, err, errlen))
        goto out;
    if (nf_wl_tasks_on()) { /* it exits once it has answered */
        siginfo_t si;
        while (waitid(P_PID, (id_t)s.sink, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
            ;
        nf_wl_tasks_add(s.sink, s.sink);
    }
    *send_mbps = (double)sent * 8 / secs / 1e6;
    *recv_mbps = (double)res.bytes * 8 / secs / 1e6;
    rc = 0;
out:
    stream_close(&s);
    return rc;
}

static int ns_run(const void *cfgv, double *values, char *err, size_t errlen)
{
    const struct ns_cfg *cfg = cfgv;
    long maxsize = 0;
    for (int i = 0; i < cfg->nsizes; i++)
        if (cfg->sizes[i] > maxsize)
            maxsize = cfg->sizes[i];
    char *data = nf_xmalloc((size_t)maxsize);
    memset(data, 'N', (size_t)maxsize);
    int rc = 0;
    for (int i = 0; i < cfg->nsizes && rc == 0; i++) {
        double snd = 0, rcv = 0;
        rc = stream_size(cfg, cfg->sizes[i], data, &snd, &rcv, err, errlen);
        values[i] = snd;
        if (!cfg->tcp)
            values[cfg->nsizes + i] = rcv;
    }
    free(data);
    return rc;
}

/* Each size streams for -d seconds, one after another. */
static double ns_expected(const void *cfgv)
{
    const struct ns_cfg *cfg = cfgv;
    return cfg->secs * cfg->nsizes;
}

const struct nf_workload nf_workload_netsend = {
    .name = "netsend",
    .summary = "netperf-style UDP/TCP stream by message size over loopback",
    .opts = &ns_opts,
    .parse = ns_parse,
    .metrics = ns_metrics,
    .run_once = ns_run,
    .free_cfg = free,
    .expected_seconds = ns_expected,
};
