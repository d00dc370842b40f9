/* The machine's readings around a repetition (measure/sysstat.h) over fake
 * /proc trees: the formats of 5.x and 6.x kernels, offline CPUs, counter
 * wrap, a CPU that goes offline between the readings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "faketree.h"
#include "measure/noise.h"
#include "measure/sysstat.h"
#include "stats/counter_delta.h"

static int setup(void **state)
{
    (void)state;
    return fake_tree_make("sysstat");
}

static int teardown(void **state)
{
    (void)state;
    return fake_tree_remove();
}

static size_t kind(const char *name)
{
    for (size_t k = 0; k < NF_SOFTIRQ_KINDS; k++)
        if (strcmp(nf_softirq_kinds[k], name) == 0)
            return k;
    fail();
    return 0;
}

/* A 5.x kernel (x86, 4 CPUs, all online), values as printed by 5.10. */
static const char irq5_a[] =
    "           CPU0       CPU1       CPU2       CPU3       \n"
    "  0:         36          0          0          0   IO-APIC   2-edge      timer\n"
    "  1:          0          9          0          0   IO-APIC   1-edge      i8042\n"
    " 24:       1000        200         30          4   PCI-MSI 49152-edge      virtio0-input.0\n"
    " 25:          5          5          5          5   PCI-MSI 49153-edge      "
    "ahci[0000:00:1f.2]\n"
    "NMI:          0          0          0          0   Non-maskable interrupts\n"
    "LOC:     100000     100000     100000     100000   Local timer interrupts\n"
    "ERR:          0\n"
    "MIS:          0\n";
static const char irq5_b[] =
    "           CPU0       CPU1       CPU2       CPU3       \n"
    "  0:         36          0          0          0   IO-APIC   2-edge      timer\n"
    "  1:          0         10          0          0   IO-APIC   1-edge      i8042\n"
    " 24:       3914        210         30          4   PCI-MSI 49152-edge      virtio0-input.0\n"
    " 25:          6          5          5          9   PCI-MSI 49153-edge      "
    "ahci[0000:00:1f.2]\n"
    "NMI:          0          0          0          0   Non-maskable interrupts\n"
    "LOC:     100250     100100     100000     100000   Local timer interrupts\n"
    "ERR:          7\n"
    "MIS:          0\n";

static void test_interrupts_5x(void **state)
{
    (void)state;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    struct nf_sys *s = nf_sys_new(fake_root, &set);
    fake_tree_put("/proc/interrupts", irq5_a);
    nf_sys_read(s, 0);
    fake_tree_put("/proc/interrupts", irq5_b);
    nf_sys_read(s, 1);
    struct nf_sys_delta d;
    nf_sys_delta(s, &d);
    assert_true(d.irq_ok);
    /* CPU 0 only: 2914 (virtio) + 1 (ahci) + 250 (LOC); ERR is no CPU's */
    assert_int_equal(d.irq, 2914 + 1 + 250);
    assert_int_equal(d.nsrc, 3);
    assert_string_equal(d.src[0].name, "virtio0-input.0");
    assert_int_equal(d.src[0].count, 2914);
    assert_string_equal(d.src[1].name, "LOC");
    assert_int_equal(d.src[1].count, 250);
    assert_string_equal(d.src[2].name, "ahci[0000:00:1f.2]");
    /* no files of softirqs or stat: not supported */
    assert_false(d.stat_ok);
    assert_false(d.softirq_ok[0]);
    nf_sys_free(s);

    /* all CPUs */
    s = nf_sys_new(fake_root, NULL);
    fake_tree_put("/proc/interrupts", irq5_a);
    nf_sys_read(s, 0);
    fake_tree_put("/proc/interrupts", irq5_b);
    nf_sys_read(s, 1);
    nf_sys_delta(s, &d);
    assert_int_equal(d.irq, 2914 + 10 + 1 + 1 + 4 + 250 + 100);
    nf_sys_free(s);
}

/* A 6.x kernel with CPU 1 offline: its column is left out of the header
 * and of every row (6.1 on x86; wider columns for large counts). */
static const char irq6_a[] =
    "           CPU0       CPU2       CPU3       \n"
    "  8:          0          0          0  IR-IO-APIC    8-edge      rtc0\n"
    "120:   4294967000          0          0  IR-PCI-MSIX-0000:00:14.3    0-edge      "
    "iwlwifi:default_queue\n"
    "NMI:          1          2          3   Non-maskable interrupts\n"
    "LOC:       5000       6000       7000   Local timer interrupts\n"
    "PIN:          0          0          0   Posted-interrupt notification event\n"
    "NPI:          0          0          0   Nested posted-interrupt event\n";
static const char irq6_b[] =
    "           CPU0       CPU2       CPU3       \n"
    "  8:          0          0          0  IR-IO-APIC    8-edge      rtc0\n"
    "120:        100          0          0  IR-PCI-MSIX-0000:00:14.3    0-edge      "
    "iwlwifi:default_queue\n"
    "NMI:          1          2          3   Non-maskable interrupts\n"
    "LOC:       5010       6020       7030   Local timer interrupts\n"
    "PIN:          0          0          0   Posted-interrupt notification event\n"
    "NPI:          0          0          0   Nested posted-interrupt event\n";

static void test_interrupts_6x_offline_wrap(void **state)
{
    (void)state;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    CPU_SET(1, &set); /* offline: not in the file */
    CPU_SET(2, &set);
    struct nf_sys *s = nf_sys_new(fake_root, &set);
    fake_tree_put("/proc/interrupts", irq6_a);
    nf_sys_read(s, 0);
    fake_tree_put("/proc/interrupts", irq6_b);
    nf_sys_read(s, 1);
    struct nf_sys_delta d;
    nf_sys_delta(s, &d);
    assert_true(d.irq_ok);
    /* 120 wrapped on CPU 0: 4294967296 - 4294967000 + 100 = 396 */
    assert_int_equal(d.irq, 396 + 10 + 20);
    assert_string_equal(d.src[0].name, "iwlwifi:default_queue");
    assert_int_equal(d.src[0].count, 396);
    nf_sys_free(s);
}

/* CPU 2 goes offline between the readings: only CPUs in both count
 * (pinned to both: unpinned, the intr line's sums count every CPU,
 * test_intr_line). */
static void test_cpu_goes_offline(void **state)
{
    (void)state;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    CPU_SET(2, &set);
    struct nf_sys *s = nf_sys_new(fake_root, &set);
    fake_tree_put("/proc/interrupts", "           CPU0       CPU2\n"
                                      "LOC:        100        100   Local timer interrupts\n");
    fake_tree_put("/proc/softirqs", "                    CPU0       CPU2\n"
                                    "          HI:          0          0\n"
                                    "       TIMER:         10         10\n");
    fake_tree_put("/proc/stat", "cpu  10 0 10 100 0 0 0 0 0 0\n"
                                "cpu0 5 0 5 50 0 0 0 0 0 0\n"
                                "cpu2 5 0 5 50 0 0 0 0 0 0\n"
                                "intr 12345\n");
    nf_sys_read(s, 0);
    fake_tree_put("/proc/interrupts", "           CPU0\n"
                                      "LOC:        110   Local timer interrupts\n");
    fake_tree_put("/proc/softirqs", "                    CPU0\n"
                                    "          HI:          0\n"
                                    "       TIMER:         13\n");
    fake_tree_put("/proc/stat", "cpu  10 0 10 100 0 0 0 0 0 0\n"
                                "cpu0 7 0 6 51 0 0 0 0 0 0\n"
                                "intr 12345\n");
    nf_sys_read(s, 1);
    struct nf_sys_delta d;
    nf_sys_delta(s, &d);
    assert_int_equal(d.irq, 10);
    assert_true(d.softirq_ok[kind("TIMER")]);
    assert_int_equal(d.softirq[kind("TIMER")], 3);
    /* a kind the file does not list */
    assert_false(d.softirq_ok[kind("NET_RX")]);
    assert_int_equal(d.cpus, 1);
    double tick = 1000.0 / (double)sysconf(_SC_CLK_TCK);
    assert_float_equal(d.busy_ms, 3 * tick, 1e-9);
    nf_sys_free(s);
}

/* Unpinned, the interrupts come from /proc/stat's intr line once the first
 * reading has named its IRQ numbers from /proc/interrupts, which is then
 * not read again (here it goes on disagreeing): each number's count over
 * every CPU (a sum of 32-bit counts, taken modulo 2^32), the
 * architecture's rows as one source, "arch", the total less the numbered;
 * a number that appears later is named by its number. */
static void put_stat_intr(const char *intr)
{
    char *st = nf_xasprintf("cpu  10 0 10 100 0 0 0 0 0 0\n"
                            "cpu0 5 0 5 50 0 0 0 0 0 0\n"
                            "cpu1 5 0 5 50 0 0 0 0 0 0\n"
                            "%s\n"
                            "ctxt 99\n",
                            intr);
    fake_tree_put("/proc/stat", st);
    free(st);
}

static void test_intr_line(void **state)
{
    (void)state;
    /* rows 0, 1, 24, 25 of irq5_a; arch since boot: LOC 400000 */
    fake_tree_put("/proc/interrupts", irq5_a);
    put_stat_intr("intr 401288 36 9 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1234 20 0");
    struct nf_sys *s = nf_sys_new(fake_root, NULL);
    struct nf_run *run = nf_run_new("x", "pipe");
    nf_sys_declare(s, run);
    assert_non_null(nf_run_find(run, "cpu.irq.arch"));
    assert_non_null(nf_run_find(run, "cpu.irq.virtio0-input.0"));
    assert_non_null(nf_run_find(run, "cpu.irq.timer"));
    assert_null(nf_run_find(run, "cpu.irq.LOC"));
    nf_sys_read(s, 0);
    fake_tree_put("/proc/interrupts", "garbage\n");
    /* i8042 +1, virtio +2914; ahci's sum went down from 20 to 6, a
     * CPU's count wrapped: 6 + 2^32 - 20; IRQ 26 +3 */
    put_stat_intr("intr 404500 36 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 4148 6 3");
    nf_sys_read(s, 1);
    struct nf_sys_delta d;
    nf_sys_delta(s, &d);
    assert_true(d.irq_ok);
    uint64_t ahci = 6 + ((uint64_t)1 << 32) - 20;
    /* the numbered: 1 + 2914 + ahci + 3 (IRQ 26, new); the total's 3212
     * is fewer (printed first): never below the numbered */
    assert_int_equal(d.irq, 1 + 2914 + ahci + 3);
    assert_string_equal(d.src[0].name, "ahci[0000:00:1f.2]");
    assert_string_equal(d.src[1].name, "virtio0-input.0");
    assert_int_equal(d.src[1].count, 2914);
    assert_string_equal(d.src[2].name, "26");
    nf_sys_again(s);
    put_stat_intr("intr 405500 36 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 4150 6 3");
    nf_sys_read(s, 1);
    nf_sys_delta(s, &d);
    /* 1000 in all, 2 of them virtio's: 998 the architecture's */
    assert_int_equal(d.irq, 1000);
    assert_int_equal(d.nsrc, 2);
    assert_string_equal(d.src[0].name, "arch");
    assert_int_equal(d.src[0].count, 998);
    struct nf_sys_task t = {0};
    nf_sys_record(s, run, &d, &t, 0);
    assert_float_equal(nf_run_find(run, "cpu.irq.arch")->values[0], 998, 0);
    assert_float_equal(nf_run_find(run, "cpu.irq.virtio0-input.0")->values[0], 2, 0);
    assert_float_equal(nf_run_find(run, "cpu.irq")->values[0], 1000, 0);
    nf_run_free(run);
    nf_sys_free(s);

    /* an intr line without a column for row 25: /proc/interrupts, always */
    fake_tree_put("/proc/interrupts", irq5_a);
    put_stat_intr("intr 401288 36 9 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1234");
    s = nf_sys_new(fake_root, NULL);
    nf_sys_read(s, 0);
    fake_tree_put("/proc/interrupts", irq5_b);
    put_stat_intr("intr 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1");
    nf_sys_read(s, 1);
    nf_sys_delta(s, &d);
    assert_int_equal(d.irq, 2914 + 10 + 1 + 1 + 4 + 250 + 100);
    nf_sys_free(s);
    /* pinned: /proc/interrupts's columns, whatever the intr line says */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    fake_tree_put("/proc/interrupts", irq5_a);
    put_stat_intr("intr 401288 36 9 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1234 20");
    s = nf_sys_new(fake_root, &one);
    nf_sys_read(s, 0);
    fake_tree_put("/proc/interrupts", irq5_b);
    nf_sys_read(s, 1);
    nf_sys_delta(s, &d);
    assert_int_equal(d.irq, 2914 + 1 + 250);
    nf_sys_free(s);
}

/* Unpinned, the softirqs are /proc/stat's totals of every CPU, taken
 * modulo 2^32 (a CPU's count wrapped); /proc/softirqs is not read, so it
 * may disagree here.  A line with a kind this reader does not know, or no
 * line, sends it back to /proc/softirqs; pinned, it always reads that. */
static void put_stat_soft(const char *soft)
{
    char *st = nf_xasprintf("cpu  10 0 10 100 0 0 0 0 0 0\n"
                            "cpu0 5 0 5 50 0 0 0 0 0 0\n"
                            "cpu1 5 0 5 50 0 0 0 0 0 0\n"
                            "intr 12345 0 0\n"
                            "ctxt 99\n"
                            "%s",
                            soft);
    fake_tree_put("/proc/stat", st);
    free(st);
}

static void test_softirq_totals(void **state)
{
    (void)state;
    fake_tree_put("/proc/interrupts", "           CPU0       CPU1\n"
                                      "LOC:        100        100   Local timer interrupts\n");
    fake_tree_put("/proc/softirqs", "                    CPU0       CPU1\n"
                                    "          HI:          1          1\n"
                                    "       TIMER:          1          1\n");
    struct nf_sys *s = nf_sys_new(fake_root, NULL);
    /* TIMER: one CPU's count wrapped, the sum fell by 2^32 - 40 */
    put_stat_soft("softirq 8589934690 0 8589934590 0 7 0 0 0 3 0 90\n");
    nf_sys_read(s, 0);
    put_stat_soft("softirq 4294967386 2 4294967336 0 9 0 0 0 3 0 96\n");
    nf_sys_read(s, 1);
    struct nf_sys_delta d;
    nf_sys_delta(s, &d);
    for (int k = 0; k < NF_SOFTIRQ_KINDS; k++)
        assert_true(d.softirq_ok[k]);
    assert_int_equal(d.softirq[kind("HI")], 2);
    assert_int_equal(d.softirq[kind("TIMER")], 42);
    assert_int_equal(d.softirq[kind("NET_RX")], 2);
    assert_int_equal(d.softirq[kind("SCHED")], 0);
    assert_int_equal(d.softirq[kind("RCU")], 6);
    /* an eleventh kind: /proc/softirqs's rows instead (0 each here) */
    put_stat_soft("softirq 4294967386 2 4294967336 0 9 0 0 0 3 0 96 5\n");
    nf_sys_again(s);
    nf_sys_read(s, 1);
    nf_sys_delta(s, &d);
    assert_false(d.softirq_ok[kind("TIMER")]); /* reading 0 had no table */
    nf_sys_again(s);
    nf_sys_read(s, 1);
    nf_sys_delta(s, &d);
    assert_true(d.softirq_ok[kind("TIMER")]);
    assert_int_equal(d.softirq[kind("TIMER")], 0);
    assert_false(d.softirq_ok[kind("RCU")]);
    nf_sys_free(s);
    /* pinned: /proc/softirqs's column of the CPU */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(1, &one);
    s = nf_sys_new(fake_root, &one);
    put_stat_soft("softirq 10 0 5 0 0 0 0 0 0 0 5\n");
    nf_sys_read(s, 0);
    fake_tree_put("/proc/softirqs", "                    CPU0       CPU1\n"
                                    "          HI:          1          1\n"
                                    "       TIMER:          9          4\n");
    put_stat_soft("softirq 99 0 50 0 0 0 0 0 0 0 49\n");
    nf_sys_read(s, 1);
    nf_sys_delta(s, &d);
    assert_int_equal(d.softirq[kind("TIMER")], 3);
    assert_false(d.softirq_ok[kind("RCU")]);
    nf_sys_free(s);
}

/* /proc/softirqs and /proc/stat of a 6.x kernel, pinned to CPU 1. */
static void test_softirqs_stat(void **state)
{
    (void)state;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(1, &set);
    struct nf_sys *s = nf_sys_new(fake_root, &set);
    fake_tree_put("/proc/softirqs", "                    CPU0       CPU1       \n"
                                    "          HI:          0          0\n"
                                    "       TIMER:     258870     247415\n"
                                    "      NET_TX:          4          0\n"
                                    "      NET_RX:     283475 4294967290\n"
                                    "       BLOCK:          0     778432\n"
                                    "    IRQ_POLL:          0          0\n"
                                    "     TASKLET:         15          0\n"
                                    "       SCHED:      85448      86786\n"
                                    "     HRTIMER:        648       1014\n"
                                    "         RCU:     768384     883323\n");
    fake_tree_put("/proc/stat", "cpu  207482 209377 288981 49149 641 0 1725 0 0 0\n"
                                "cpu0 106242 104091 142650 25468 99 0 119 0 0 0\n"
                                "cpu1 101240 105285 146331 23680 542 10 1606 3 0 0\n"
                                "intr 1 2 3\nctxt 99\n");
    nf_sys_read(s, 0);
    fake_tree_put("/proc/softirqs", "                    CPU0       CPU1       \n"
                                    "          HI:          0          0\n"
                                    "       TIMER:     258870     247500\n"
                                    "      NET_TX:          4          0\n"
                                    "      NET_RX:     283475         20\n"
                                    "       BLOCK:          0     778432\n"
                                    "    IRQ_POLL:          0          0\n"
                                    "     TASKLET:         15          0\n"
                                    "       SCHED:      85448      86790\n"
                                    "     HRTIMER:        648       1014\n"
                                    "         RCU:     768384     883323\n");
    fake_tree_put("/proc/stat", "cpu  207482 209377 288981 49149 641 0 1725 0 0 0\n"
                                "cpu0 106999 104091 142650 25468 99 0 119 0 0 0\n"
                                "cpu1 101250 105285 146336 23690 542 12 1610 9 0 0\n"
                                "intr 1 2 3\nctxt 99\n");
    nf_sys_read(s, 1);
    struct nf_sys_delta d;
    nf_sys_delta(s, &d);
    assert_int_equal(d.softirq[kind("TIMER")], 85);
    assert_int_equal(d.softirq[kind("NET_RX")], 26); /* wrapped at 2^32 */
    assert_int_equal(d.softirq[kind("SCHED")], 4);
    assert_int_equal(d.softirq[kind("RCU")], 0);
    assert_true(d.softirq_ok[kind("RCU")]);
    double tick = 1000.0 / (double)sysconf(_SC_CLK_TCK);
    assert_float_equal(d.irq_ms, 2 * tick, 1e-9);
    assert_float_equal(d.softirq_ms, 4 * tick, 1e-9);
    assert_float_equal(d.steal_ms, 6 * tick, 1e-9);
    /* user 10 + system 5 + irq 2 + softirq 4; not idle, not steal */
    assert_float_equal(d.busy_ms, 21 * tick, 1e-9);
    nf_sys_free(s);
}

static void test_missing_files(void **state)
{
    (void)state;
    struct nf_sys *s = nf_sys_new(fake_root, NULL);
    nf_sys_read(s, 0);
    nf_sys_read(s, 1);
    struct nf_sys_delta d;
    nf_sys_delta(s, &d);
    assert_false(d.irq_ok);
    assert_false(d.stat_ok);
    struct nf_run *run = nf_run_new("x", "pipe");
    nf_sys_declare(s, run);
    struct nf_sys_task t = {0};
    nf_sys_task_read(fake_root, 4242, &t);
    assert_false(t.ok);
    nf_sys_record(s, run, &d, &t, 0);
    for (size_t i = 0; i < run->nmetrics; i++) {
        assert_false(run->metrics[i].supported);
        assert_true(nf_metric_is_machine(run->metrics[i].name));
    }
    nf_run_free(run);
    nf_sys_free(s);
}

/* The sources busiest since boot on the set's CPUs get metrics of their
 * own, cpu.irq.NAME, one value per repetition; a repetition that starts
 * where the last ended (nf_sys_again) takes its reading from there. */
static void test_named_sources_again(void **state)
{
    (void)state;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    struct nf_sys *s = nf_sys_new(fake_root, &set);
    fake_tree_put("/proc/interrupts", irq5_a);
    struct nf_run *run = nf_run_new("x", "pipe");
    nf_sys_declare(s, run);
    /* on CPU 0 since boot: LOC 100000, virtio 1000, timer 36 (i8042 none
     * there, ahci 5) */
    assert_non_null(nf_run_find(run, "cpu.irq.LOC"));
    assert_non_null(nf_run_find(run, "cpu.irq.virtio0-input.0"));
    assert_non_null(nf_run_find(run, "cpu.irq.timer"));
    assert_null(nf_run_find(run, "cpu.irq.ahci[0000:00:1f.2]"));
    struct nf_sys_task t = {0};
    struct nf_sys_delta d;
    nf_sys_read(s, 0);
    fake_tree_put("/proc/interrupts", irq5_b);
    nf_sys_read(s, 1);
    nf_sys_delta(s, &d);
    nf_sys_record(s, run, &d, &t, 0);
    /* the next repetition from the last one's end: the files as they were */
    nf_sys_again(s);
    nf_sys_read(s, 1);
    nf_sys_delta(s, &d);
    assert_true(d.irq_ok);
    assert_int_equal(d.irq, 0);
    nf_sys_record(s, run, &d, &t, 0);
    struct nf_metric *m = nf_run_find(run, "cpu.irq.virtio0-input.0");
    assert_int_equal(m->n, 2);
    assert_float_equal(m->values[0], 2914, 0);
    assert_float_equal(m->values[1], 0, 0);
    m = nf_run_find(run, "cpu.irq.LOC");
    assert_float_equal(m->values[0], 250, 0);
    assert_true(nf_metric_is_machine("cpu.irq.LOC"));
    /* the run's top sources over what was recorded */
    struct nf_sys_source top[2];
    assert_int_equal(nf_sys_top(s, top, 2), 2);
    assert_string_equal(top[0].name, "virtio0-input.0");
    assert_int_equal(top[0].count, 2914);
    nf_run_free(run);
    nf_sys_free(s);
}

/* Pinned to CPU 1 of 4: the columns after it are not parsed, yet a row
 * of one total (ERR) is still told from a row of every CPU's counts. */
static void test_columns_before_the_last(void **state)
{
    (void)state;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(1, &set);
    struct nf_sys *s = nf_sys_new(fake_root, &set);
    fake_tree_put("/proc/interrupts", irq5_a);
    nf_sys_read(s, 0);
    fake_tree_put("/proc/interrupts", irq5_b);
    nf_sys_read(s, 1);
    struct nf_sys_delta d;
    nf_sys_delta(s, &d);
    /* CPU 1: i8042 1, virtio 10, LOC 100; ERR's 7 is no CPU's */
    assert_int_equal(d.irq, 1 + 10 + 100);
    assert_string_equal(d.src[0].name, "LOC");
    assert_string_equal(d.src[2].name, "i8042");
    nf_sys_free(s);
    /* CPU 0 alone, with ERR of one number: left out as well */
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    s = nf_sys_new(fake_root, &set);
    fake_tree_put("/proc/interrupts", "           CPU0       CPU1\n"
                                      "LOC:        100        100   Local timer interrupts\n"
                                      "ERR:          5\n");
    nf_sys_read(s, 0);
    fake_tree_put("/proc/interrupts", "           CPU0       CPU1\n"
                                      "LOC:        101        100   Local timer interrupts\n"
                                      "ERR:         90\n");
    nf_sys_read(s, 1);
    nf_sys_delta(s, &d);
    assert_int_equal(d.irq, 1);
    nf_sys_free(s);
}

/* A task: run delay from schedstat, migrations from sched. */
static void test_task(void **state)
{
    (void)state;
    fake_tree_put("/proc/77/schedstat", "62173947 3000000 23\n");
    fake_tree_put("/proc/77/sched", "pipe (77, #threads: 1)\n"
                                    "-------------------------------------------------------\n"
                                    "se.exec_start                                :     1.0\n"
                                    "se.nr_migrations                             :     3\n"
                                    "nr_switches                                  :    40\n");
    struct nf_sys_task t = {0};
    nf_sys_task_read(fake_root, 77, &t);
    assert_true(t.ok);
    assert_true(t.migr_ok);
    assert_int_equal(t.run_delay_ns, 3000000);
    assert_int_equal(t.migrations, 3);
    /* a kernel without sched (no CONFIG_SCHED_DEBUG): run delay only */
    fake_tree_put("/proc/78/schedstat", "1 2 3\n");
    struct nf_sys_task u = {0};
    nf_sys_task_read(fake_root, 78, &u);
    assert_true(u.ok);
    assert_false(u.migr_ok);
    assert_int_equal(u.run_delay_ns, 2);
    /* malformed: no second number, a migration count that is no number */
    fake_tree_put("/proc/79/schedstat", "62173947\n");
    fake_tree_put("/proc/79/sched", "se.exec_start :  1.0\nse.nr_migrations : x\n");
    struct nf_sys_task v = {0};
    nf_sys_task_read(fake_root, 79, &v);
    assert_false(v.ok);
    assert_false(v.migr_ok);
    /* large counts, blanks before the first */
    fake_tree_put("/proc/80/schedstat", "  18446744073709551615 18446744073709551614 1\n");
    fake_tree_put("/proc/80/sched", "x\nse.nr_migrations\t:\t12345678901\n");
    struct nf_sys_task w = {0};
    nf_sys_task_read(fake_root, 80, &w);
    assert_true(w.ok && w.migr_ok);
    assert_true(w.run_delay_ns == 18446744073709551614ull);
    assert_true(w.migrations == 12345678901ull);
}

/* doctor's sample: CPU 0 busy and serving interrupts between the
 * readings (the files rewritten there), CPU 1 idle: CPU 0 named, --pin 1. */
static void busy_cpu0(void *ctx, double seconds)
{
    (void)ctx;
    /* seconds * USER_HZ ticks in all: CPU 0 busy three quarters of them */
    long ticks = (long)(seconds * (double)sysconf(_SC_CLK_TCK));
    char *st = nf_xasprintf("cpu  0 0 0 0 0 0 0 0 0 0\n"
                            "cpu0 %ld 0 100 %ld 0 0 0 0 0 0\n"
                            "cpu1 100 0 100 %ld 0 0 0 0 0 0\n",
                            100 + ticks * 3 / 4, 1000 + ticks / 4, 1000 + ticks);
    fake_tree_put("/proc/stat", st);
    free(st);
    fake_tree_put("/proc/interrupts",
                  "           CPU0       CPU1\n"
                  " 24:       3000        101   PCI-MSI 1-edge      virtio0-input.0\n");
}

static void nothing(void *ctx, double seconds)
{
    (void)ctx;
    (void)seconds;
}

static void test_doctor_sample(void **state)
{
    (void)state;
    fake_tree_put("/proc/stat", "cpu  0 0 0 0 0 0 0 0 0 0\n"
                                "cpu0 100 0 100 1000 0 0 0 0 0 0\n"
                                "cpu1 100 0 100 1000 0 0 0 0 0 0\n");
    fake_tree_put("/proc/interrupts",
                  "           CPU0       CPU1\n"
                  " 24:       1000        100   PCI-MSI 1-edge      virtio0-input.0\n");
    struct nf_noise f;
    assert_int_equal(nf_sys_doctor_with(fake_root, 0.2, nothing, NULL, &f), 1);
    assert_int_equal(f.level, NF_NOISE_OK);
    assert_string_equal(f.name, "cpu-activity");
    assert_int_equal(nf_sys_doctor_with(fake_root, 0.2, busy_cpu0, NULL, &f), 1);
    assert_int_equal(f.level, NF_NOISE_WARN);
    assert_non_null(strstr(f.seen, "CPU 0 75% busy, 10000 interrupts/s (virtio0-input.0)"));
    assert_null(strstr(f.seen, "CPU 1"));
    assert_non_null(strstr(f.fix, "--pin 1 "));
    /* the real sleep, on files that do not change */
    assert_int_equal(nf_sys_doctor(fake_root, 0.01, &f), 1);
    assert_int_equal(f.level, NF_NOISE_OK);
    /* no /proc/stat: no finding */
    char *p = nf_xasprintf("%s/proc/stat", fake_root);
    unlink(p);
    free(p);
    assert_int_equal(nf_sys_doctor(fake_root, 0.01, &f), 0);
}

static void test_counter_delta(void **state)
{
    (void)state;
    assert_int_equal(nf_counter_delta(5, 9), 4);
    assert_int_equal(nf_counter_delta(4294967290u, 4), 10);
    assert_int_equal(nf_counter_delta(UINT32_MAX, 0), 1);
    /* a 64-bit counter that went back was reset: nothing counted */
    assert_int_equal(nf_counter_delta((uint64_t)1 << 40, 5), 0);
    /* a sum of two CPUs' counts, one of which wrapped */
    assert_int_equal(nf_counter_sum_delta(7, 7), 0);
    assert_int_equal(nf_counter_sum_delta(((uint64_t)1 << 33) + 10, ((uint64_t)1 << 32) + 15), 5);
    assert_int_equal(nf_counter_sum_delta(UINT32_MAX, (uint64_t)UINT32_MAX + 3), 3);
}

/* One reader appending to two runs in turn, whose metrics are in other
 * orders (each metric is found again by where it was, checked by name):
 * every value lands in its own metric.  And a /proc/stat longer than the
 * reader's buffer is read whole (the short read that ends a file of one
 * record comes only at its end). */
static void test_record_two_runs_long_file(void **state)
{
    (void)state;
    struct nf_sys *s = nf_sys_new(fake_root, NULL);
    fake_tree_put("/proc/interrupts", irq5_a);
    struct nf_run *a = nf_run_new("a", "pipe"), *b = nf_run_new("b", "pipe");
    nf_run_metric(b, "seconds", "s", NF_BETTER_LOWER, 1);
    nf_run_metric(b, "cpu.softirq.RCU", "count", NF_BETTER_LOWER, 0);
    nf_sys_declare(s, a);
    nf_sys_declare(s, b);
    size_t pad = 200000;
    char *soft = nf_xcalloc(pad + 256, 1), stat[256];
    for (int rep = 0; rep < 3; rep++) {
        for (int which = 0; which < 2; which++) {
            snprintf(stat, sizeof(stat), "cpu0 %d 0 0 0 0 0 0 %d\nintr 1\n", 100 + rep * which,
                     7 * rep * which);
            fake_tree_put("/proc/stat", stat);
            /* the header's blanks make it longer than any one read */
            int n = snprintf(soft, 64, "    CPU0");
            memset(soft + n, ' ', pad);
            snprintf(soft + n + pad, 64, "%s", which ? "\nHI: 3\nRCU: 14\n" : "\nHI: 1\nRCU: 4\n");
            fake_tree_put("/proc/softirqs", soft);
            nf_sys_read(s, which);
        }
        struct nf_sys_delta d;
        nf_sys_delta(s, &d);
        struct nf_sys_task t = {.ok = 1, .run_delay_ns = (uint64_t)rep * 1000000};
        nf_sys_record(s, rep % 2 ? b : a, &d, &t, 0);
        nf_sys_record(s, rep % 2 ? a : b, &d, &t, 0);
    }
    for (int i = 0; i < 2; i++) {
        struct nf_run *run = i ? b : a;
        struct nf_metric *m = nf_run_find(run, "cpu.steal");
        assert_int_equal(m->n, 3);
        double tick = 1000.0 / (double)sysconf(_SC_CLK_TCK);
        for (int rep = 0; rep < 3; rep++) {
            assert_float_equal(m->values[rep], 7 * rep * tick, 1e-9);
            assert_float_equal(nf_run_find(run, "cpu.other-busy")->values[rep], rep * tick, 1e-9);
            assert_float_equal(nf_run_find(run, "sched.run-delay")->values[rep], rep, 1e-9);
            assert_float_equal(nf_run_find(run, "cpu.softirq.RCU")->values[rep], 10, 0);
            assert_float_equal(nf_run_find(run, "cpu.softirq.HI")->values[rep], 2, 0);
            assert_float_equal(nf_run_find(run, "cpu.irq")->values[rep], 0, 0);
        }
    }
    assert_int_equal(nf_run_find(b, "seconds")->n, 0);
    free(soft);
    nf_run_free(a);
    nf_run_free(b);
    nf_sys_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_interrupts_5x, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interrupts_6x_offline_wrap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cpu_goes_offline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_intr_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_softirqs_stat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_softirq_totals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_named_sources_again, setup, teardown),
        cmocka_unit_test_setup_teardown(test_columns_before_the_last, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_two_runs_long_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_task, setup, teardown),
        cmocka_unit_test_setup_teardown(test_doctor_sample, setup, teardown),
        cmocka_unit_test(test_counter_delta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
