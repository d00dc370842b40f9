/* Profiles without the kernel: aggregation, difference, record parsing,
 * symbol tables (kallsyms text, this test's own ELF file), and the
 * time-ordered replay of mappings, forks and execs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/util.h"
#include "profile/events.h"
#include "profile/profile.h"
#include "profile/resolve.h"
#include "profile/symbols.h"

static void test_aggregate(void **state)
{
    (void)state;
    struct nf_profile p;
    nf_profile_init(&p);
    for (int i = 0; i < 1000; i++) { /* many distinct keys: the index grows */
        char name[32];
        snprintf(name, sizeof(name), "f%d", i);
        nf_profile_add(&p, name, "/bin/x", 1, 10);
    }
    nf_profile_add(&p, "hot", "/bin/x", 3, 3000);
    nf_profile_add(&p, "hot", "/lib/y", 1, 500); /* same name, other dso */
    nf_profile_add(&p, "hot", "/bin/x", 1, 1000);
    assert_int_equal(p.n, 1002);
    assert_int_equal(p.samples, 1005);
    assert_int_equal(p.period, 14500);
    nf_profile_sort(&p);
    assert_string_equal(p.e[0].symbol, "hot");
    assert_string_equal(p.e[0].dso, "/bin/x");
    assert_int_equal(p.e[0].samples, 4);
    assert_true(nf_profile_pct(&p, &p.e[0]) > 27.58 && nf_profile_pct(&p, &p.e[0]) < 27.59);
    assert_string_equal(p.e[1].dso, "/lib/y");
    const struct nf_prof_entry *e = nf_profile_find(&p, "f999", "/bin/x");
    assert_non_null(e);
    assert_int_equal(e->period, 10);
    assert_null(nf_profile_find(&p, "f999", "/lib/y"));

    /* Merge sums entries, totals and lost records. */
    struct nf_profile q;
    nf_profile_init(&q);
    q.lost = 7;
    nf_profile_add(&q, "hot", "/bin/x", 1, 500);
    nf_profile_add(&q, "new", "/bin/x", 1, 1);
    nf_profile_merge(&p, &q);
    assert_int_equal(nf_profile_find(&p, "hot", "/bin/x")->period, 4500);
    assert_non_null(nf_profile_find(&p, "new", "/bin/x"));
    assert_int_equal(p.lost, 7);
    assert_int_equal(p.n, 1003);
    nf_profile_free(&q);
    nf_profile_free(&p);
}

static void test_not_utf8(void **state)
{
    (void)state;
    struct nf_profile p;
    nf_profile_init(&p);
    nf_profile_add(&p,
                   "bad\xff"
                   "name",
                   "/x/\xc3(", 1, 1);
    nf_profile_add(&p, "bad?name", "/x/?(", 1, 1); /* the same, once cleaned */
    assert_int_equal(p.n, 1);
    assert_string_equal(p.e[0].symbol, "bad?name");
    assert_int_equal(p.e[0].samples, 2);
    nf_profile_add(&p, "caf\xc3\xa9", "[k]", 1, 1); /* valid UTF-8 stays */
    assert_non_null(nf_profile_find(&p, "caf\xc3\xa9", "[k]"));
    nf_profile_free(&p);
}

static const struct nf_profdiff_row *row(const struct nf_profdiff *d, const char *sym)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->rows[i].symbol, sym) == 0)
            return &d->rows[i];
    return NULL;
}

/* The events of a label's runs, each once, a whole name at a time. */
static void test_add_event(void **state)
{
    (void)state;
    struct nf_profile p;
    nf_profile_init(&p);
    nf_profile_add_event(&p, "ref-cycles");
    nf_profile_add_event(&p, "cycles");
    nf_profile_add_event(&p, "cpu-clock");
    nf_profile_add_event(&p, "cycles");
    nf_profile_add_event(&p, "ref-cycles");
    assert_string_equal(p.event, "ref-cycles,cycles,cpu-clock");
    nf_profile_free(&p);
}

static void test_diff(void **state)
{
    (void)state;
    struct nf_profile a, b;
    nf_profile_init(&a);
    nf_profile_init(&b);
    /* base: burn 25%, work 50%, gone 20%, tiny 5% */
    nf_profile_add(&a, "burn_cpu", "/tmp/a/burn", 25, 250);
    nf_profile_add(&a, "work", "/tmp/a/burn", 50, 500);
    nf_profile_add(&a, "gone", "[kernel.kallsyms]", 20, 200);
    nf_profile_add(&a, "tiny", "/lib/libc.so.6", 5, 50);
    /* other, built elsewhere: burn 40%, work 40%, new 15%, tiny 5% */
    nf_profile_add(&b, "burn_cpu", "/tmp/b/burn", 40, 400);
    nf_profile_add(&b, "work", "/tmp/b/burn", 40, 400);
    nf_profile_add(&b, "new", "/tmp/b/burn", 15, 150);
    nf_profile_add(&b, "tiny", "/usr/lib/libc.so.6", 5, 50);
    struct nf_profdiff d;
    nf_profile_diff(&a, &b, 0, &d);
    assert_int_equal(d.n, 5);
    /* By baseline overhead; "new" (only in other) placed by its own 15%. */
    const char *order[] = {"work", "burn_cpu", "gone", "new", "tiny"};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(d.rows[i].symbol, order[i]);
    const struct nf_profdiff_row *r = row(&d, "burn_cpu");
    assert_string_equal(r->dso, "burn"); /* paired by file name */
    assert_true(r->in_base && r->in_other);
    assert_true(r->base_pct > 24.99 && r->base_pct < 25.01);
    assert_true(r->delta > 14.99 && r->delta < 15.01);
    assert_int_equal(r->base_samples, 25);
    assert_int_equal(r->other_samples, 40);
    r = row(&d, "gone");
    assert_true(r->in_base && !r->in_other);
    assert_true(r->delta < -19.99 && r->delta > -20.01);
    r = row(&d, "new");
    assert_true(!r->in_base && r->in_other);
    assert_true(r->other_pct > 14.99 && r->other_pct < 15.01);
    assert_true(row(&d, "tiny")->delta < 1e-9 && row(&d, "tiny")->delta > -1e-9);
    nf_profdiff_free(&d);

    /* --min: below 10% on both sides goes. */
    nf_profile_diff(&a, &b, 10, &d);
    assert_int_equal(d.n, 4);
    assert_null(row(&d, "tiny"));
    nf_profdiff_free(&d);

    /* An empty side: every row has a blank there. */
    struct nf_profile empty;
    nf_profile_init(&empty);
    nf_profile_diff(&empty, &b, 0, &d);
    assert_int_equal(d.n, 4);
    for (size_t i = 0; i < d.n; i++)
        assert_true(!d.rows[i].in_base && d.rows[i].in_other);
    nf_profdiff_free(&d);
    assert_string_equal(nf_prof_dso_short("[vdso]"), "[vdso]");
    assert_string_equal(nf_prof_dso_short("/a/b/c.so"), "c.so");
    assert_string_equal(nf_prof_dso_short("plain"), "plain");
    nf_profile_free(&empty);
    nf_profile_free(&a);
    nf_profile_free(&b);
}

/* Rows ordered and cut by the shares shown: a long repetition makes
 * burn_cpu the larger summed share (61%), the mean over the repetitions
 * makes work the larger (60%); --min goes by the same shares. */
static void test_diff_order(void **state)
{
    (void)state;
    struct nf_profile a, b;
    nf_profile_init(&a);
    nf_profile_init(&b);
    nf_profile_add(&a, "burn_cpu", "/x/burn", 1, 610);
    nf_profile_add(&a, "work", "/x/burn", 1, 390);
    nf_profile_add(&b, "work", "/x/burn", 1, 700);
    nf_profile_add(&b, "burn_cpu", "/x/burn", 1, 300);
    nf_profile_add(&b, "new", "/x/burn", 1, 0);
    struct nf_profdiff d;
    nf_profile_diff(&a, &b, 0, &d);
    assert_string_equal(d.rows[0].symbol, "burn_cpu");
    size_t iburn = 0, iwork = 1, inew = 2;
    assert_string_equal(d.rows[inew].symbol, "new");
    double base[3], other[3];
    base[iburn] = 40, other[iburn] = 30;
    base[iwork] = 60, other[iwork] = 70;
    base[inew] = 0, other[inew] = 0.5;
    nf_profdiff_order(&d, base, other, 0);
    assert_int_equal(d.n, 3);
    assert_string_equal(d.rows[0].symbol, "work");
    assert_string_equal(d.rows[1].symbol, "burn_cpu");
    assert_true(d.rows[0].means && d.rows[0].mean_base_pct == 60 && d.rows[0].mean_other_pct == 70);
    /* the summed shares stay for JSON */
    assert_true(d.rows[1].base_pct > 60.99 && d.rows[1].base_pct < 61.01);
    nf_profdiff_free(&d);

    /* --min 50 by the means: burn_cpu (61% summed) goes, work stays. */
    nf_profile_diff(&a, &b, 0, &d);
    nf_profdiff_order(&d, base, other, 50);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.rows[0].symbol, "work");
    nf_profdiff_free(&d);
    /* Without means: by the summed shares, as nf_profile_diff. */
    nf_profile_diff(&a, &b, 0, &d);
    nf_profdiff_order(&d, NULL, NULL, 50);
    assert_int_equal(d.n, 2);
    assert_string_equal(d.rows[0].symbol, "burn_cpu");
    assert_int_equal(d.rows[0].means, 0);
    nf_profdiff_free(&d);
    nf_profile_free(&a);
    nf_profile_free(&b);
}

/* Each repetition's shares of the rows shown: the matrix profdiff's
 * intervals rest on; repetitions kept through a merge. */
static void test_rep_shares(void **state)
{
    (void)state;
    struct nf_profile a, b, label;
    nf_profile_init(&a);
    nf_profile_init(&b);
    nf_profile_init(&label);
    struct nf_profile *r = nf_profile_add_rep(&a);
    nf_profile_add(r, "burn_cpu", "/tmp/a/burn", 1, 300);
    nf_profile_add(r, "work", "/tmp/a/burn", 1, 100);
    r = nf_profile_add_rep(&a);
    nf_profile_add(r, "work", "/tmp/a/burn", 1, 200);
    nf_profile_add(r, "burn_cpu", "/tmp/a/burn", 1, 200);
    nf_profile_add(r, "other", "/tmp/b/other", 1, 100);
    nf_profile_add_rep(&a); /* a repetition without samples */
    for (size_t k = 0; k < a.nreps; k++)
        nf_profile_merge(&b, &a.reps[k]);
    nf_profile_add(nf_profile_add_rep(&b), "burn_cpu", "/tmp/b/burn", 1, 100);
    struct nf_profdiff d;
    nf_profile_diff(&a, &b, 0, &d); /* a has no entries: the rows come from b */
    assert_int_equal(d.n, 3);
    double *m;
    /* two rows shown: burn_cpu then work (by b's overhead) */
    assert_string_equal(d.rows[0].symbol, "burn_cpu");
    assert_string_equal(d.rows[1].symbol, "work");
    assert_int_equal(nf_profile_rep_shares(&a, &d, 2, &m), 2);
    assert_true(m[0] == 75.0 && m[1] == 25.0); /* 300/400, 100/400 */
    assert_true(m[2] == 40.0 && m[3] == 40.0); /* 200/500 each */
    free(m);
    assert_int_equal(nf_profile_rep_shares(&b, &d, 2, &m), 1);
    assert_true(m[0] == 100.0 && m[1] == 0.0); /* paired by the dso's file name */
    free(m);
    assert_int_equal(nf_profile_rep_shares(&label, &d, 2, &m), 0);
    assert_null(m);
    /* a merge appends the repetitions (a label's runs, one after another) */
    nf_profile_merge(&label, &a);
    nf_profile_merge(&label, &b);
    assert_int_equal(label.nreps, 4);
    assert_int_equal(label.reps[3].n, 1);
    assert_int_equal(label.reps[1].period, 500);
    nf_profdiff_free(&d);
    nf_profile_free(&a);
    nf_profile_free(&b);
    nf_profile_free(&label);
}

/* ---- records ------------------------------------------------------------ */

struct rec {
    unsigned char b[256];
    size_t n;
};

static void put(struct rec *r, const void *p, size_t n)
{
    memcpy(r->b + r->n, p, n);
    r->n += n;
}

static void put32(struct rec *r, uint32_t v)
{
    put(r, &v, 4);
}
static void put64(struct rec *r, uint64_t v)
{
    put(r, &v, 8);
}

static void begin(struct rec *r, uint32_t type, uint16_t misc)
{
    struct perf_event_header h = {type, misc, 0};
    r->n = 0;
    put(r, &h, sizeof(h));
}

/* The sample_id trailer (pid, tid, time), then the header's size. */
static void end(struct rec *r, uint32_t pid, uint64_t time)
{
    put32(r, pid);
    put32(r, pid);
    put64(r, time);
    uint16_t size = (uint16_t)r->n;
    memcpy(r->b + 6, &size, 2);
}

static void test_parse(void **state)
{
    (void)state;
    struct nf_prof_events ev;
    nf_prof_events_init(&ev);
    struct rec r;

    begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
    put64(&r, 0xffffffff81001234ull);
    put32(&r, 42);
    put32(&r, 43);
    put64(&r, 1000);
    put64(&r, 250000);
    uint16_t size = (uint16_t)r.n;
    memcpy(r.b + 6, &size, 2);
    assert_int_equal(nf_prof_events_parse(&ev, r.b, r.n), 0);
    assert_int_equal(ev.ns, 1);
    assert_int_equal(ev.s[0].pid, 42);
    assert_int_equal(ev.s[0].time, 1000);
    assert_int_equal(ev.s[0].period, 250000);
    assert_int_equal(ev.s[0].kernel, 1);
    assert_true(ev.s[0].ip == 0xffffffff81001234ull);

    begin(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
    put32(&r, 42);
    put32(&r, 42);
    put64(&r, 0x400000);
    put64(&r, 0x2000);
    put64(&r, 0x1000);
    for (int i = 0; i < 3; i++)
        put64(&r, 0); /* maj, min, ino, ino_generation */
    put32(&r, 5);
    put32(&r, 2); /* prot, flags */
    put(&r, "/usr/bin/x\0\0\0\0\0\0", 16);
    end(&r, 42, 900);
    assert_int_equal(nf_prof_events_parse(&ev, r.b, r.n), 0);
    assert_int_equal(ev.nside, 1);
    assert_int_equal(ev.side[0].type, NF_SIDE_MMAP);
    assert_string_equal(ev.side[0].file, "/usr/bin/x");
    assert_true(ev.side[0].start == 0x400000 && ev.side[0].len == 0x2000 &&
                ev.side[0].pgoff == 0x1000 && ev.side[0].time == 900);

    /* An unterminated file name is malformed, not read past the record. */
    memset(r.b + r.n - 16 - 16, 'x', 16);
    assert_int_equal(nf_prof_events_parse(&ev, r.b, r.n), -1);
    assert_int_equal(ev.nside, 1);

    begin(&r, PERF_RECORD_FORK, 0);
    put32(&r, 50);
    put32(&r, 42);
    put32(&r, 50);
    put32(&r, 43);
    put64(&r, 1100);
    end(&r, 50, 1100);
    assert_int_equal(nf_prof_events_parse(&ev, r.b, r.n), 0);
    /* A new thread (pid == ppid) is no new process. */
    begin(&r, PERF_RECORD_FORK, 0);
    put32(&r, 42);
    put32(&r, 42);
    put32(&r, 51);
    put32(&r, 43);
    put64(&r, 1150);
    end(&r, 42, 1150);
    assert_int_equal(nf_prof_events_parse(&ev, r.b, r.n), 0);
    assert_int_equal(ev.nside, 2);
    assert_int_equal(ev.side[1].type, NF_SIDE_FORK);
    assert_int_equal(ev.side[1].pid, 50);
    assert_int_equal(ev.side[1].ppid, 42);

    begin(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
    put32(&r, 50);
    put32(&r, 50);
    put(&r, "sh\0\0\0\0\0\0", 8);
    end(&r, 50, 1200);
    assert_int_equal(nf_prof_events_parse(&ev, r.b, r.n), 0);
    begin(&r, PERF_RECORD_COMM, 0); /* prctl(PR_SET_NAME): no exec */
    put32(&r, 50);
    put32(&r, 50);
    put(&r, "sh\0\0\0\0\0\0", 8);
    end(&r, 50, 1250);
    assert_int_equal(nf_prof_events_parse(&ev, r.b, r.n), 0);
    assert_int_equal(ev.nside, 3);
    assert_int_equal(ev.side[2].type, NF_SIDE_EXEC);
    assert_int_equal(ev.side[2].time, 1200);

    begin(&r, PERF_RECORD_LOST, 0);
    put64(&r, 1);
    put64(&r, 17);
    end(&r, 0, 1300);
    assert_int_equal(nf_prof_events_parse(&ev, r.b, r.n), 0);
    assert_int_equal(ev.lost, 17);

    /* Sizes that do not match are refused. */
    assert_int_equal(nf_prof_events_parse(&ev, r.b, r.n - 8), -1);
    assert_int_equal(nf_prof_events_parse(&ev, r.b, 4), -1);
    nf_prof_events_free(&ev);
}

static void test_maps_text(void **state)
{
    (void)state;
    struct nf_prof_events ev;
    nf_prof_events_init(&ev);
    nf_prof_events_maps_text(
        &ev, 7,
        "55d0c0a00000-55d0c0a02000 r--p 00000000 fd:01 1234       /usr/bin/x\n"
        "55d0c0a02000-55d0c0a21000 r-xp 00002000 fd:01 1234       /usr/bin/x\n"
        "7f0000000000-7f0000001000 rwxp 00000000 00:00 0 \n"
        "7ffd1e5f0000-7ffd1e5f2000 r-xp 00000000 00:00 0          [vdso]\n"
        "7f1000000000-7f1000010000 r-xp 00003000 fd:01 99         /opt/with space/lib.so");
    assert_int_equal(ev.nside, 4); /* executable mappings only */
    assert_string_equal(ev.side[0].file, "/usr/bin/x");
    assert_true(ev.side[0].start == 0x55d0c0a02000ull && ev.side[0].pgoff == 0x2000 &&
                ev.side[0].len == 0x1f000);
    assert_string_equal(ev.side[1].file, "//anon");
    assert_string_equal(ev.side[2].file, "[vdso]");
    assert_string_equal(ev.side[3].file, "/opt/with space/lib.so");
    assert_int_equal(ev.side[3].pid, 7);
    assert_int_equal(ev.side[3].time, 0);
    nf_prof_events_free(&ev);
}

static void test_kallsyms(void **state)
{
    (void)state;
    struct nf_symtab *t = nf_symtab_kallsyms("ffffffff81000000 T _stext\n"
                                             "ffffffff81000000 T real_start\n"
                                             "ffffffff81000100 t local_fn\n"
                                             "ffffffff81000200 D some_data\n"
                                             "ffffffff81000300 T last_fn\n"
                                             "ffffffffc0000000 t mod_fn\t[mymod]\n");
    assert_true(t->ok);
    const struct nf_sym *s = nf_symtab_lookup(t, 0xffffffff81000050ull);
    assert_non_null(s);
    assert_string_equal(s->name, "real_start"); /* preferred to _stext */
    assert_string_equal(s->dso, "[kernel.kallsyms]");
    s = nf_symtab_lookup(t, 0xffffffff81000250ull); /* data is no symbol */
    assert_string_equal(s->name, "local_fn");
    s = nf_symtab_lookup(t, 0xffffffffc0000010ull);
    assert_string_equal(s->name, "mod_fn");
    assert_string_equal(s->dso, "[mymod]");
    assert_null(nf_symtab_lookup(t, 0xffffffff80000000ull));
    nf_symtab_free(t);

    /* kptr_restrict: every address 0. */
    t = nf_symtab_kallsyms("0000000000000000 T _stext\n0000000000000000 t f\n");
    assert_false(t->ok);
    assert_null(nf_symtab_lookup(t, 0));
    nf_symtab_free(t);
}

/* A function of this test's own (PIE) executable, found through the real
 * mapping, the PT_LOAD segments and .symtab. */
__attribute__((noinline)) int nf_test_spin_target(int x)
{
    return x * 3 + 1;
}

static void sample(struct nf_prof_events *ev, uint64_t time, uint32_t pid, uint64_t ip)
{
    struct nf_prof_sample s = {time, ip, 100, pid, ev->seq++, 0};
    if (ev->ns == ev->caps) {
        ev->caps = ev->caps ? ev->caps * 2 : 16;
        ev->s = nf_xrealloc(ev->s, ev->caps * sizeof(*ev->s));
    }
    ev->s[ev->ns++] = s;
}

static void test_resolve(void **state)
{
    (void)state;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    assert_true(n > 0);
    exe[n] = 0;
    char *maps = nf_read_file("/proc/self/maps");
    assert_non_null(maps);
    uint64_t ip = (uint64_t)(uintptr_t)&nf_test_spin_target + 2;

    struct nf_prof_events ev;
    nf_prof_events_init(&ev);
    nf_prof_events_maps_text(&ev, 100, maps);
    free(maps);
    /* Records out of time order, as several CPUs' buffers deliver them. */
    sample(&ev, 50, 101, ip); /* after the child's exec: unknown */
    sample(&ev, 10, 100, ip); /* the parent: resolved */
    sample(&ev, 30, 101, ip); /* the forked child: inherited maps */
    sample(&ev, 60, 102, ip); /* before 102's mapping */
    sample(&ev, 80, 102, ip); /* after it */
    struct nf_prof_side *s;
    ev.side = nf_xrealloc(ev.side, (ev.nside + 8) * sizeof(*ev.side));
    ev.capside = ev.nside + 8;
    s = &ev.side[ev.nside++];
    *s = (struct nf_prof_side){
        .time = 20, .type = NF_SIDE_FORK, .pid = 101, .ppid = 100, .seq = ev.seq++};
    s = &ev.side[ev.nside++];
    *s = (struct nf_prof_side){.time = 40, .type = NF_SIDE_EXEC, .pid = 101, .seq = ev.seq++};
    /* 102 maps the executable page holding ip, at the same address. */
    uint64_t page = ip & ~(uint64_t)4095;
    maps = nf_read_file("/proc/self/maps");
    struct nf_prof_events tmp;
    nf_prof_events_init(&tmp);
    nf_prof_events_maps_text(&tmp, 102, maps);
    free(maps);
    for (size_t i = 0; i < tmp.nside; i++)
        if (ip >= tmp.side[i].start && ip < tmp.side[i].start + tmp.side[i].len) {
            nf_prof_events_mmap(&ev, 70, 102, page, 4096,
                                tmp.side[i].pgoff + (page - tmp.side[i].start), exe,
                                &tmp.side[i].id);
        }
    nf_prof_events_free(&tmp);
    ev.lost = 3;

    struct nf_symcache c;
    nf_symcache_init(&c);
    struct nf_profile p;
    nf_profile_init(&p);
    nf_prof_resolve(&ev, &c, &p);
    const struct nf_prof_entry *e = nf_profile_find(&p, "nf_test_spin_target", exe);
    assert_non_null(e);
    assert_int_equal(e->samples, 3); /* 100 at 10, 101 at 30, 102 at 80 */
    e = nf_profile_find(&p, NF_PROF_UNKNOWN, NF_PROF_UNKNOWN);
    assert_non_null(e);
    assert_int_equal(e->samples, 2);
    assert_int_equal(p.samples, 5);
    assert_int_equal(p.lost, 3);

    /* A kernel sample without kallsyms: one [kernel] symbol. */
    nf_prof_events_clear(&ev);
    sample(&ev, 1, 100, 0xffffffff81000000ull);
    ev.s[0].kernel = 1;
    c.kallsyms_path = "/nonexistent/kallsyms";
    nf_prof_resolve(&ev, &c, &p);
    assert_non_null(nf_profile_find(&p, NF_PROF_KERNEL, "[kernel.kallsyms]"));
    nf_profile_free(&p);
    nf_symcache_free(&c);
    nf_prof_events_free(&ev);
}

static void test_elf_symtab(void **state)
{
    (void)state;
    struct nf_symtab *t = nf_symtab_elf("/proc/self/exe");
    assert_true(t->ok);
    assert_true(t->nsegs > 0);
    const struct nf_sym *found = NULL;
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->syms[i].name, "nf_test_spin_target") == 0)
            found = &t->syms[i];
    assert_non_null(found);
    assert_true(found->end > found->start);
    assert_ptr_equal(nf_symtab_lookup(t, found->start), found);
    nf_symtab_free(t);
    t = nf_symtab_elf("/nonexistent");
    assert_false(t->ok);
    assert_null(nf_symtab_lookup(t, 0x1000));
    nf_symtab_free(t);
    t = nf_symtab_elf("/proc/self/maps"); /* not ELF */
    assert_false(t->ok);
    nf_symtab_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aggregate),  cmocka_unit_test(test_not_utf8),
        cmocka_unit_test(test_diff),       cmocka_unit_test(test_diff_order),
        cmocka_unit_test(test_rep_shares), cmocka_unit_test(test_parse),
        cmocka_unit_test(test_maps_text),  cmocka_unit_test(test_kallsyms),
        cmocka_unit_test(test_resolve),    cmocka_unit_test(test_elf_symtab),
        cmocka_unit_test(test_add_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
