/* The insides of a reader (measure/sysstat.h), private to sysstat.c (the
 * readings and their delta), sysstat_stat.c (/proc/stat's part of them)
 * and sysstat_record.c (the metrics they become). */
#ifndef NF_MEASURE_SYSSTAT_IMPL_H
#define NF_MEASURE_SYSSTAT_IMPL_H

#include "measure/sysstat.h"

#define MAX_SRC 512
#define MAX_COLS CPU_SETSIZE
#define NSTAT 8 /* user nice system idle iowait irq softirq steal */

/* One reading of /proc/interrupts or /proc/softirqs: a header of CPU
 * columns, then rows "ID: n1 n2 ... text". */
struct table {
    int ok;
    unsigned char *on; /* [nsel]: the file listed the CPU */
    int hi;            /* 1 + the highest index listed, 0: none */
    size_t nrow, maxrow;
    char (*id)[16];   /* [MAX_SRC] "24", "LOC", "NET_RX" */
    char (*name)[48]; /* [MAX_SRC] the handler's name (interrupts only) */
    uint64_t *cnt;    /* [MAX_SRC * nsel] */
};

struct reading {
    struct table irq, soft;
    int stat_ok, stat_hi;
    /* /proc/stat's "softirq" line, the kinds summed over every CPU: what
     * an unpinned reader takes instead of /proc/softirqs (sysstat.c) */
    int soft_tot_ok;
    uint64_t soft_tot[NF_SOFTIRQ_KINDS];
    unsigned char *stat_on; /* [nsel] */
    uint64_t *stat;         /* [nsel * NSTAT] */
    /* /proc/stat's "intr" line, unpinned: every interrupt over every CPU
     * the kernel may have, and each IRQ number's, what an unpinned reader
     * takes instead of /proc/interrupts once it has their names */
    int intr_ok;
    uint64_t intr_total;
    uint64_t *intr; /* [nintr] by IRQ number */
    size_t nintr, intr_cap;
};

/* The metrics a repetition appends, by slot (sysstat_record.c): the
 * fixed ones, one per softirq kind, one per named source. */
#define NFIXED 7
#define SLOT_SOFT NFIXED
#define SLOT_NAMED (SLOT_SOFT + NF_SOFTIRQ_KINDS)
#define NSLOTS (SLOT_NAMED + NF_SYS_TOP)
#define NFILES 3
enum { F_IRQ, F_SOFT, F_STAT };

/* Whether a row of /proc/interrupts is a numbered IRQ's ("24"), not one
 * the architecture counts itself ("LOC", "IPI0"). */
static inline int nf_sys_numbered(const char *id)
{
    return *id >= '0' && *id <= '9';
}

struct nf_sys {
    char *root;
    int nsel;
    int *sel;   /* [CPU_SETSIZE]: CPU id -> its index in the set, or -1 */
    int all;    /* no set: every CPU listed, indices given as met */
    int *cpuid; /* [CPU_SETSIZE]: index -> CPU id */
    long hz;
    struct reading r[2];
    int fd[NFILES]; /* open from the first reading on; -1: not (yet) */
    char *buf;
    size_t bufcap;
    struct nf_sys_source *tot; /* [MAX_SRC]: per source over every recorded delta */
    size_t ntot;
    struct nf_sys_source *pend; /* [MAX_SRC]: the last delta's sources, not yet recorded */
    size_t npend;
    char named[NF_SYS_TOP][48];        /* the sources of metrics cpu.irq.NAME */
    char named_metric[NF_SYS_TOP][80]; /* "cpu.irq.NAME" */
    size_t nnamed;
    /* Where each slot's metric was in the run last recorded into: an
     * index to check (its name) before a search. */
    const struct nf_run *mrun;
    size_t midx[NSLOTS];
    int col[MAX_COLS]; /* a header's columns as set indices */
    /* Unpinned, once the first reading had /proc/interrupts and an intr
     * line with a column for each of its numbered rows (nf_sys_intr_try):
     * the interrupts come from the intr line, named by that reading. */
    int intr_tried, intr_mode;
    char (*irq_names)[48]; /* [nirq_names] by IRQ number; "": none listed */
    size_t nirq_names;
};

/* File f (F_IRQ, ...) read again from its start into s->buf, NUL-ended:
 * its end, or NULL when it cannot be read. */
char *nf_sys_slurp(struct nf_sys *s, int f);
char *nf_sys_skip_blank(char *q);
/* A count at *q (past blanks): 1 and *q past it, or 0 (nf_scan_count). */
int nf_sys_number(char **q, uint64_t *v);
/* count interrupts of source name in d: its top sources, its named
 * metrics' counts, and the sources pending for the run's totals. */
void nf_sys_count_source(struct nf_sys *s, struct nf_sys_delta *d, const char *name,
                         uint64_t count);

/* /proc/stat into r (sysstat_stat.c): the CPUs' lines; unpinned, the
 * softirq and intr lines too. */
void nf_sys_read_stat(struct nf_sys *s, struct reading *r);
/* Whether r (a first reading) lets an unpinned reader take its
 * interrupts from the intr line: sets s->intr_mode and the names. */
void nf_sys_intr_try(struct nf_sys *s, const struct reading *r);
/* The interrupts of reading 1 less reading 0 from their intr lines. */
void nf_sys_intr_delta(struct nf_sys *s, struct nf_sys_delta *d);
/* /proc/stat's times, and unpinned its softirq totals, into d. */
void nf_sys_stat_delta(const struct nf_sys *s, struct nf_sys_delta *d);

/* A source's name (at most 47 bytes and a NUL) into char[48]. */
void nf_sys_copy_name(char *out, const char *name);
/* count for source name into d's top sources (kept most first). */
void nf_sys_add_top(struct nf_sys_delta *d, const char *name, uint64_t count);

#endif
