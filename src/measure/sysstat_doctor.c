/* doctor's finding "cpu-activity" (measure/sysstat.h): the readings of
 * every online CPU over a short sample, the busy ones named. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "measure/noise.h"
#include "measure/sysstat.h"

/* Busy above this share of a CPU, or interrupts above this rate, make a
 * CPU one to name. */
#define BUSY_SHARE 0.2
#define IRQ_RATE 2000.0

static void sleep_for(void *ctx, double seconds)
{
    (void)ctx;
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int nf_sys_doctor(const char *root, double seconds, struct nf_noise *out)
{
    return nf_sys_doctor_with(root, seconds, sleep_for, NULL, out);
}

int nf_sys_doctor_with(const char *root, double seconds, void (*wait)(void *ctx, double seconds),
                       void *ctx, struct nf_noise *out)
{
    struct nf_sys *all = nf_sys_new(root, NULL);
    nf_sys_read(all, 0);
    int cpus[CPU_SETSIZE];
    int ncpu = nf_sys_cpus(all, cpus);
    nf_sys_free(all);
    if (!ncpu)
        return 0;
    struct nf_sys **one = nf_xcalloc((size_t)ncpu, sizeof(*one));
    for (int i = 0; i < ncpu; i++) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpus[i], &set);
        one[i] = nf_sys_new(root, &set);
        nf_sys_read(one[i], 0);
        nf_sys_close(one[i]); /* three files a CPU, of hundreds of CPUs: not kept open */
    }
    wait(ctx, seconds);
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "cpu-activity");
    int quiet = -1, nbusy = 0, len = 0;
    double quiet_score = 0;
    char busy[160] = "";
    for (int i = 0; i < ncpu; i++) {
        nf_sys_read(one[i], 1);
        struct nf_sys_delta d;
        nf_sys_delta(one[i], &d);
        nf_sys_free(one[i]);
        double share = d.stat_ok ? d.busy_ms / (seconds * 1000) : 0;
        double rate = d.irq_ok ? (double)d.irq / seconds : 0;
        double score = share + rate / IRQ_RATE * BUSY_SHARE;
        if (quiet < 0 || score < quiet_score)
            quiet = cpus[i], quiet_score = score;
        if (share > BUSY_SHARE || rate > IRQ_RATE) {
            nbusy++;
            if (len >= 0 && (size_t)len < sizeof(busy))
                len += snprintf(busy + len, sizeof(busy) - (size_t)len,
                                "%sCPU %d %.0f%% busy, %.0f interrupts/s%s%s%s",
                                nbusy > 1 ? "; " : "", cpus[i], share * 100, rate,
                                d.nsrc ? " (" : "", d.nsrc ? d.src[0].name : "", d.nsrc ? ")" : "");
        }
    }
    free(one);
    out->level = nbusy ? NF_NOISE_WARN : NF_NOISE_OK;
    if (nbusy)
        snprintf(out->seen, sizeof(out->seen), "over %.2g s: %.140s", seconds, busy);
    else
        snprintf(out->seen, sizeof(out->seen),
                 "over %.2g s: no CPU busy with other tasks or interrupts", seconds);
    if (nbusy)
        snprintf(out->fix, sizeof(out->fix),
                 "--pin %d (the quietest CPU now); find what runs on the busy ones (top) and move "
                 "interrupts off them (/proc/irq/*/smp_affinity)",
                 quiet);
    return 1;
}
