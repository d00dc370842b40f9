/* burn — spend measured CPU time in named functions, for the end-to-end
 * tests that profile it or compare its CPU time with another's.
 *
 *   burn MS [MS2]
 *   burn -x K MS
 *
 * spends MS milliseconds of its CPU time in burn_cpu, then MS2 (default
 * 0) in other_work, and exits 0.  Sized by CPU time, not by a count of
 * iterations (tests/helpers/burn.h says why): a profile's shares are
 * MS : MS2 on any machine, loaded or not.  With -x, at least MS and at
 * least K times the CPU time its parent (a shell) and the parent's
 * waited-for children have used so far (/proc/PPID/stat, in clock
 * ticks): a script whose one run burns and another does not then differs
 * K-fold in CPU time however fast the machine runs the shell. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "burn.h"

static double arg_ms(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0) || v > 1e7) {
        fprintf(stderr, "burn: '%s' is not a number of milliseconds\n", s);
        exit(2);
    }
    return v;
}

__attribute__((noinline)) int burn_cpu(double ms)
{
    return nf_burn_ms(ms);
}

__attribute__((noinline)) int other_work(double ms)
{
    return nf_burn_ms(ms);
}

/* The CPU time of our parent and its reaped children, in ms (-1: unread). */
static double parent_ms(void)
{
    char path[64], buf[4096];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)getppid());
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the name may hold spaces */
    unsigned long long v[4];
    /* After the name: state, then fields 4..13, then utime stime cutime
     * cstime (proc(5) fields 14-17). */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
                     &v[0], &v[1], &v[2], &v[3]) != 4)
        return -1;
    return (double)(v[0] + v[1] + v[2] + v[3]) * 1e3 / (double)sysconf(_SC_CLK_TCK);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "-x") == 0) {
        double k = arg_ms(argv[2]), ms = arg_ms(argv[3]), p = parent_ms();
        if (p < 0) {
            fprintf(stderr, "burn: cannot read the parent's CPU time\n");
            return 1;
        }
        return burn_cpu(ms > k * p ? ms : k * p) ? 1 : 0;
    }
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: burn MS [MS2] | burn -x K MS\n");
        return 2;
    }
    double a = arg_ms(argv[1]), b = argc > 2 ? arg_ms(argv[2]) : 0;
    if (burn_cpu(a) || other_work(b)) {
        fprintf(stderr, "burn: no thread CPU clock here\n");
        return 1;
    }
    return 0;
}
