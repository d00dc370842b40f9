/* Which way a metric is better, as the run model, the workloads and the
 * store speak of it: the direction (defined beside the verdict that needs
 * it, in the leaf header stats/better.h) and its names.  Including this
 * instead of stats/verdict.h keeps the verdict API out of the run model
 * and the workload interface. */
#ifndef NF_CORE_METRIC_H
#define NF_CORE_METRIC_H

#include <stddef.h>

#include "stats/better.h"

/* "lower" or "higher", as stored and shown. */
const char *nf_better_name(enum nf_better b);
/* "lower" or "higher"; 0, or -1 for anything else. */
int nf_better_parse(const char *s, enum nf_better *out);

/* The names of the metrics every repetition gets from wait4's rusage
 * (measure/rusage.h says what each counts), and whether name is one. */
#define NF_RUSAGE_NMETRICS 7
extern const char *const nf_rusage_names[NF_RUSAGE_NMETRICS];
int nf_metric_is_rusage(const char *name);

/* A metric's kind.  Machine metrics are the kernel's readings of what the
 * machine did during a repetition (measure/sysstat.h: cpu.irq,
 * cpu.softirq.NET_RX, sched.run-delay, ...); their kind is their name's
 * (a "cpu." or "sched." prefix), so it is stored, exported and imported
 * with the name.  compare leaves them out of its verdict table unless -m
 * names one, and the diagnosis reads them beside the primary metric. */
enum nf_metric_kind {
    NF_METRIC_MEASURED = 0, /* the workload's, rusage, counters, --metric */
    NF_METRIC_MACHINE,
};
enum nf_metric_kind nf_metric_kind(const char *name);
/* "measured" or "machine" */
const char *nf_metric_kind_name(enum nf_metric_kind k);
int nf_metric_is_machine(const char *name);
/* The machine metric of one interrupt source is NF_METRIC_IRQ_SOURCE and
 * its name ("cpu.irq.virtio0-input.0"); unpinned, the source
 * NF_METRIC_IRQ_ARCH stands for the interrupts the architecture counts
 * itself, the timer's and the IPIs (measure/sysstat.h). */
#define NF_METRIC_IRQ_SOURCE "cpu.irq."
#define NF_METRIC_IRQ_ARCH "arch"

/* A metric's name or unit as a user gives it (run --metric NAME=...,
 * --unit; import's): one word of printable text, as a label is one line
 * of it (nf_label_check): not empty, UTF-8, no control character (C0, DEL,
 * C1) and no blank, so that it stays one column of the tables and one
 * token of -m.  what names the option ("--metric", "--unit").  0, or -1
 * with one line in err showing the text escaped ('x\ty').  Names already
 * stored are not checked. */
int nf_metric_name_check(const char *what, const char *name, char *err, size_t errlen);
int nf_metric_unit_check(const char *what, const char *unit, char *err, size_t errlen);
/* The same rule for any such word; kind says what it is ("a workload
 * name"). */
int nf_word_check(const char *what, const char *kind, const char *s, char *err, size_t errlen);

#endif
