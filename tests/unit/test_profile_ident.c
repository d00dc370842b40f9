/* Symbols only from the file that was mapped: the identity in mmap records
 * and /proc/PID/maps, the check of a file against it (build-id, inode and
 * generation), tables of a file replaced or deleted since, the pinned file
 * read instead, and pinning itself (by /proc/PID/map_files and by path).
 * The files are copies of this test's own executable, and /bin/true as
 * "another build". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/util.h"
#include "elf/elfsym.h"
#include "profile/events.h"
#include "profile/fileid.h"
#include "profile/pin.h"
#include "profile/profile.h"
#include "profile/resolve.h"
#include "profile/symbols.h"

static char dir[64];

__attribute__((noinline)) int nf_test_ident_target(int x);
__attribute__((noinline)) int nf_test_ident_target(int x)
{
    return x * 7 + 3;
}

static char *path_of(const char *name)
{
    return nf_xasprintf("%s/%s", dir, name);
}

static void sh(const char *fmt, const char *a, const char *b)
{
    char *cmd = nf_xasprintf(fmt, a, b);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

/* dir/name: a copy of this test's executable; its identities in *bid and
 * *ino (the device, inode and generation, as the kernel reports them). */
static char *copy_self(const char *name, struct nf_fileid *bid, struct nf_fileid *ino)
{
    char *p = path_of(name), self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    assert_true(n > 0);
    self[n] = 0;
    sh("cp '%s' '%s'", self, p);
    struct nf_elf e;
    char err[NF_ERR_LEN];
    assert_int_equal(nf_elf_open(&e, p, err, sizeof(err)), 0);
    memset(bid, 0, sizeof(*bid));
    bid->kind = NF_FILEID_BUILDID;
    bid->nbid = (uint32_t)nf_elf_build_id(&e, bid->bid, sizeof(bid->bid));
    assert_true(bid->nbid > 0); /* the toolchain writes one (--build-id) */
    struct stat st;
    assert_int_equal(fstat(e.fd, &st), 0);
    memset(ino, 0, sizeof(*ino));
    ino->kind = NF_FILEID_INODE;
    ino->maj = major(st.st_dev);
    ino->min = minor(st.st_dev);
    ino->ino = st.st_ino;
    int gen = 0;
    if (ioctl(e.fd, FS_IOC_GETVERSION, &gen) == 0)
        ino->gen = (uint32_t)gen;
    nf_elf_close(&e);
    return p;
}

/* Put another program where path was (rename over it, as a linker does). */
static void replace(const char *path)
{
    char *tmp = path_of("new");
    sh("cp \"$(readlink -f /bin/true)\" '%s'%s", tmp, "");
    assert_int_equal(rename(tmp, path), 0);
    free(tmp);
}

/* The file offset of the test's function in t: where a sample in it is. */
static uint64_t target_offset(const struct nf_symtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->syms[i].name, "nf_test_ident_target") == 0)
            for (size_t k = 0; k < t->nsegs; k++) {
                const struct nf_seg *g = &t->segs[k];
                if (t->syms[i].start >= g->vaddr && t->syms[i].start < g->vaddr + g->filesz)
                    return t->syms[i].start - g->vaddr + g->offset + 1;
            }
    fail_msg("nf_test_ident_target is not in %s", t->path);
    return 0;
}

static int names_target(const struct nf_symtab *t, uint64_t off)
{
    uint64_t v;
    const struct nf_sym *s =
        t->ok && nf_symtab_vaddr(t, off, &v) == 0 ? nf_symtab_lookup(t, v) : NULL;
    return s && strcmp(s->name, "nf_test_ident_target") == 0;
}

/* --- the identity in the records ----------------------------------------- */

struct rec {
    unsigned char b[512];
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

/* An MMAP2 record of /x with the 24 bytes of identity given. */
static void mmap2(struct rec *r, uint16_t misc, const unsigned char id[24])
{
    struct perf_event_header h = {PERF_RECORD_MMAP2, misc, 0};
    r->n = 0;
    put(r, &h, sizeof(h));
    put32(r, 9);
    put32(r, 9);
    put64(r, 0x400000);
    put64(r, 0x1000);
    put64(r, 0);
    put(r, id, 24);
    put32(r, 5);
    put32(r, 2);
    put(r, "/x\0\0\0\0\0\0", 8);
    put32(r, 9);
    put32(r, 9);
    put64(r, 77); /* time */
    h.size = (uint16_t)r->n;
    memcpy(r->b, &h, sizeof(h));
}

static void test_record_ids(void **state)
{
    (void)state;
    struct nf_prof_events ev;
    nf_prof_events_init(&ev);
    struct rec r;
    unsigned char id[24] = {0};

    /* With MISC_MMAP_BUILD_ID: u8 size, 3 reserved bytes, 20 of build-id. */
    id[0] = 20;
    for (int i = 0; i < 20; i++)
        id[4 + i] = (unsigned char)(0xa0 + i);
    mmap2(&r, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID, id);
    assert_int_equal(nf_prof_events_parse(&ev, r.b, r.n), 0);
    assert_int_equal(ev.side[0].id.kind, NF_FILEID_BUILDID);
    assert_int_equal(ev.side[0].id.nbid, 20);
    assert_memory_equal(ev.side[0].id.bid, id + 4, 20);

    /* Without: u32 maj, min; u64 ino, ino_generation. */
    memset(id, 0, sizeof(id));
    uint32_t maj = 0xfe, min = 3;
    uint64_t ino = 123456789, gen = 42;
    memcpy(id, &maj, 4);
    memcpy(id + 4, &min, 4);
    memcpy(id + 8, &ino, 8);
    memcpy(id + 16, &gen, 8);
    mmap2(&r, PERF_RECORD_MISC_USER, id);
    assert_int_equal(nf_prof_events_parse(&ev, r.b, r.n), 0);
    const struct nf_fileid *f = &ev.side[1].id;
    assert_int_equal(f->kind, NF_FILEID_INODE);
    assert_true(f->maj == 0xfe && f->min == 3 && f->ino == 123456789 && f->gen == 42);

    /* All zero ([vdso], anonymous memory): nothing said. */
    memset(id, 0, sizeof(id));
    mmap2(&r, PERF_RECORD_MISC_USER, id);
    assert_int_equal(nf_prof_events_parse(&ev, r.b, r.n), 0);
    assert_int_equal(ev.side[2].id.kind, NF_FILEID_NONE);
    assert_false(nf_fileid_equal(&ev.side[2].id, &ev.side[2].id));
    assert_true(nf_fileid_equal(&ev.side[1].id, f));
    assert_false(nf_fileid_equal(&ev.side[0].id, f));

    /* /proc/PID/maps: the device (hex) and the inode. */
    nf_prof_events_clear(&ev);
    nf_prof_events_maps_text(&ev, 7,
                             "55d0c0a02000-55d0c0a21000 r-xp 00002000 fd:01 1234  /usr/bin/x\n"
                             "7ffd1e5f0000-7ffd1e5f2000 r-xp 00000000 00:00 0     [vdso]\n");
    assert_int_equal(ev.nside, 2);
    f = &ev.side[0].id;
    assert_true(f->kind == NF_FILEID_INODE && f->maj == 0xfd && f->min == 1 && f->ino == 1234 &&
                f->gen == 0);
    assert_int_equal(ev.side[1].id.kind, NF_FILEID_NONE);
    nf_prof_events_free(&ev);
}

/* --- a file checked against the identity --------------------------------- */

static void test_check(void **state)
{
    (void)state;
    struct nf_fileid bid, ino, bad;
    char *a = copy_self("a", &bid, &ino);
    struct nf_symtab *t = nf_symtab_elf(a);
    uint64_t off = target_offset(t);
    nf_symtab_free(t);

    /* The file itself, by either identity, or by none. */
    const struct nf_fileid *same[] = {&bid, &ino, NULL};
    for (size_t i = 0; i < 3; i++) {
        t = nf_symtab_elf_id(a, same[i], -1);
        assert_true(t->ok && !t->changed && names_target(t, off));
        nf_symtab_free(t);
    }

    /* Another build-id, inode, device or generation: not read. */
    for (int k = 0; k < 4; k++) {
        bad = k == 0 ? bid : ino;
        if (k == 0)
            bad.bid[0] ^= 1;
        else if (k == 1)
            bad.ino++;
        else if (k == 2)
            bad.min++;
        else if (bad.gen) /* the filesystem tells generations (ext4, xfs, btrfs) */
            bad.gen++;
        else
            continue;
        t = nf_symtab_elf_id(a, &bad, -1);
        if (!t->changed)
            fail_msg("case %d: a file with another identity was read", k);
        assert_false(t->ok);
        assert_int_equal(t->n, 0);
        char *want = nf_xasprintf("%s (replaced)", a);
        assert_string_equal(t->shown, want);
        free(want);
        nf_symtab_free(t);
    }

    /* Gone: "(deleted)"; without an identity, simply unreadable. */
    assert_int_equal(unlink(a), 0);
    t = nf_symtab_elf_id(a, &bid, -1);
    assert_true(t->changed && !t->ok);
    assert_non_null(strstr(t->shown, "/a (deleted)"));
    nf_symtab_free(t);
    t = nf_symtab_elf_id(a, NULL, -1);
    assert_true(!t->changed && !t->ok);
    nf_symtab_free(t);
    free(a);
}

/* --- the pinned file, read instead of the one at the path now ------------- */

static void test_pinned(void **state)
{
    (void)state;
    struct nf_fileid bid, ino;
    char *b = copy_self("b", &bid, &ino);
    struct nf_symtab *t = nf_symtab_elf(b);
    uint64_t off = target_offset(t);
    nf_symtab_free(t);
    int fd = open(b, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    replace(b); /* a rebuild, after the file was pinned */

    for (int k = 0; k < 2; k++) {
        const struct nf_fileid *id = k ? &ino : &bid;
        t = nf_symtab_elf_id(b, id, fd);
        assert_true(t->ok && !t->changed && names_target(t, off));
        nf_symtab_free(t);
        t = nf_symtab_elf_id(b, id, -1); /* not pinned: the path's is another */
        assert_true(t->changed && !t->ok);
        nf_symtab_free(t);
    }

    /* The cache: a table of a changed file is read again once a pinned
     * file comes along, and then kept. */
    struct nf_symcache c;
    nf_symcache_init(&c);
    t = nf_symcache_file(&c, b, &bid, -1);
    assert_true(t->changed);
    t->warned = 1;
    t = nf_symcache_file(&c, b, &bid, fd);
    assert_true(t->ok && !t->changed && t->warned);
    assert_ptr_equal(nf_symcache_file(&c, b, &bid, -1), t);
    assert_int_equal(c.n, 1);
    /* The same path with another identity is another table. */
    assert_ptr_not_equal(nf_symcache_file(&c, b, &ino, -1), t);
    assert_int_equal(c.n, 2);
    nf_symcache_free(&c);

    /* Through the resolver: a sample in a mapping of b is named from the
     * pinned file; without the pin it is [unknown] in "b (replaced)". */
    for (int pinned = 1; pinned >= 0; pinned--) {
        struct nf_prof_events ev;
        nf_prof_events_init(&ev);
        nf_prof_events_mmap(&ev, 10, 5, 0x10000000, 0x1000000, 0, b, &bid);
        if (pinned) {
            ev.pin = nf_xcalloc(1, sizeof(*ev.pin));
            ev.cappin = ev.npin = 1;
            ev.pin[0] = (struct nf_prof_pin){bid, dup(fd), 0, 1};
            assert_int_equal(nf_prof_pin_fd(&ev, &bid), ev.pin[0].fd);
        }
        assert_int_equal(nf_prof_pin_fd(&ev, &ino), -1);
        struct nf_prof_sample s = {20, 0x10000000 + off, 100, 5, 0, 0};
        ev.s = nf_xmalloc(sizeof(s));
        ev.s[0] = s;
        ev.ns = ev.caps = 1;
        nf_symcache_init(&c);
        struct nf_profile p;
        nf_profile_init(&p);
        nf_prof_resolve(&ev, &c, &p);
        char *rep = nf_xasprintf("%s (replaced)", b);
        const struct nf_prof_entry *e = pinned ? nf_profile_find(&p, "nf_test_ident_target", b)
                                               : nf_profile_find(&p, NF_PROF_UNKNOWN, rep);
        if (!e || p.n != 1)
            fail_msg("pinned %d: %zu entries, first '%s' in '%s'", pinned, p.n,
                     p.n ? p.e[0].symbol : "-", p.n ? p.e[0].dso : "-");
        assert_int_equal(c.n, 1);
        assert_int_equal(c.t[0]->changed, !pinned);
        free(rep);
        nf_profile_free(&p);
        nf_symcache_free(&c);
        nf_prof_events_free(&ev); /* closes the pin */
    }
    close(fd);
    free(b);
}

/* --- pinning -------------------------------------------------------------- */

static void test_pin(void **state)
{
    (void)state;
    struct nf_fileid bid, ino, id2, ino2;
    char *m = copy_self("m", &bid, &ino);
    int fd = open(m, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    size_t len = 4096;
    void *at = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    assert_true(at != MAP_FAILED);
    close(fd);
    replace(m); /* mapped here, renamed over */

    struct nf_prof_events ev;
    nf_prof_events_init(&ev);
    struct nf_prof_side *s =
        nf_prof_events_mmap(&ev, 1, (uint32_t)getpid(), (uint64_t)(uintptr_t)at, len, 0, m, &ino);
    nf_prof_pin(&ev, s);
    assert_int_equal(ev.npin, 1);
    int pfd = nf_prof_pin_fd(&ev, &ino);
    assert_true(pfd >= 0);
    struct stat st;
    assert_int_equal(fstat(pfd, &st), 0);
    if (ev.no_map_files) {
        /* Not ours to open (no CAP_SYS_ADMIN): the path's file, which the
         * resolver will find is another. */
        assert_false(ev.pin[0].exact);
        assert_true(st.st_ino != ino.ino);
    } else {
        assert_true(ev.pin[0].exact);
        assert_true(st.st_ino == ino.ino); /* the mapped file, renamed over */
    }
    /* Once per file: another mapping of it pins nothing new. */
    nf_prof_pin(&ev, s);
    assert_int_equal(ev.npin, 1);

    /* Without map_files: by path, at most a few tries per file; nothing for
     * records without an identity or a path. */
    nf_prof_events_clear(&ev);
    ev.no_map_files = 1;
    char *m2 = copy_self("m2", &id2, &ino2);
    s = nf_prof_events_mmap(&ev, 1, 999999999, 0x1000, 0x1000, 0, m2, &ino2);
    nf_prof_pin(&ev, s);
    pfd = nf_prof_pin_fd(&ev, &ino2);
    assert_true(pfd >= 0 && fstat(pfd, &st) == 0 && st.st_ino == ino2.ino);
    s = nf_prof_events_mmap(&ev, 1, 1, 0x1000, 0x1000, 0, "[vdso]", NULL);
    nf_prof_pin(&ev, s);
    s = nf_prof_events_mmap(&ev, 1, 1, 0x1000, 0x1000, 0, "/no/such/file", &id2);
    for (int i = 0; i < 10; i++)
        nf_prof_pin(&ev, s);
    assert_int_equal(ev.npin, 2);
    assert_int_equal(nf_prof_pin_fd(&ev, &id2), -1);
    assert_true(ev.pin[1].tries <= 4);
    nf_prof_events_free(&ev);
    munmap(at, len);
    free(m);
    free(m2);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/nf-ident.XXXXXX");
    assert_non_null(mkdtemp(dir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sh("rm -rf '%s'%s", dir, "");
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_ids),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_pinned),
        cmocka_unit_test(test_pin),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
