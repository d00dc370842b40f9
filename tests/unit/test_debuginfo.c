/* Separate debug files (elf/debuginfo.h): the CRC .gnu_debuglink keeps, the
 * places looked in and their order, and on a program compiled and split
 * here (objcopy --only-keep-debug, strip, --add-gnu-debuglink): its
 * debuglink read back, its debug file found and opened, a changed one
 * refused, and a profile's symbol table naming the stripped program's
 * functions from it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/util.h"
#include "elf/debuginfo.h"
#include "elf/elfsym.h"
#include "profile/symbols.h"

static void test_crc32(void **state)
{
    (void)state;
    /* The CRC-32 check value (zlib's crc32, which gdb and objcopy use). */
    assert_int_equal(nf_elf_debug_crc32(0, "123456789", 9), 0xcbf43926u);
    assert_int_equal(nf_elf_debug_crc32(0, "", 0), 0);
    /* Continued over pieces, as a file is read. */
    uint32_t c = nf_elf_debug_crc32(0, "1234", 4);
    assert_int_equal(nf_elf_debug_crc32(c, "56789", 5), 0xcbf43926u);
    assert_int_equal(nf_elf_debug_crc32(0, "a", 1), 0xe8b7be43u);
}

/* The candidates of (file, bid, link, dirs) are exactly want[] (NULL-ended;
 * a leading '@' marks one found by debuglink). */
static void expect_paths(const char *file, const unsigned char *bid, size_t nbid, const char *link,
                         const char *const *dirs, const char *const *want)
{
    struct nf_elf_debug_path *p;
    size_t n = nf_elf_debug_paths(file, bid, nbid, link, dirs, &p);
    size_t i = 0;
    for (; want[i]; i++) {
        if (i >= n)
            fail_msg("%s: %zu candidates, want more (%s)", file, n, want[i]);
        int by_link = want[i][0] == '@';
        if (strcmp(p[i].path, want[i] + by_link) != 0 || p[i].by_link != by_link)
            fail_msg("%s: candidate %zu is %s%s, want %s", file, i, p[i].by_link ? "@" : "",
                     p[i].path, want[i]);
    }
    if (n != i)
        fail_msg("%s: %zu candidates, want %zu (extra: %s)", file, n, i, p[i].path);
    if (n == 0)
        assert_null(p);
    nf_elf_debug_paths_free(p, n);
}

static void test_paths(void **state)
{
    (void)state;
    static const unsigned char bid[] = {0x93, 0xac, 0x61, 0x0e};
    /* The default directory: build-id first, then the debuglink in the
     * file's directory, its .debug/, and the debug directory. */
    expect_paths("/usr/lib/x86_64-linux-gnu/libc.so.6", bid, sizeof(bid), "libc.so.6.debug", NULL,
                 (const char *const[]){"/usr/lib/debug/.build-id/93/ac610e.debug",
                                       "@/usr/lib/x86_64-linux-gnu/libc.so.6.debug",
                                       "@/usr/lib/x86_64-linux-gnu/.debug/libc.so.6.debug",
                                       "@/usr/lib/debug/usr/lib/x86_64-linux-gnu/libc.so.6.debug",
                                       NULL});
    /* Directories in the order given, trailing slashes dropped; each
     * build-id candidate before any debuglink one. */
    expect_paths("/opt/bin/prog", bid, 2, "prog.dbg", (const char *const[]){"/d1/", "/d2", NULL},
                 (const char *const[]){"/d1/.build-id/93/ac.debug", "/d2/.build-id/93/ac.debug",
                                       "@/opt/bin/prog.dbg", "@/opt/bin/.debug/prog.dbg",
                                       "@/d1/opt/bin/prog.dbg", "@/d2/opt/bin/prog.dbg", NULL});
    /* No debug directory: only next to the file. */
    expect_paths("/opt/bin/prog", bid, sizeof(bid), "prog.dbg", (const char *const[]){NULL},
                 (const char *const[]){"@/opt/bin/prog.dbg", "@/opt/bin/.debug/prog.dbg", NULL});
    /* The root directory as debug directory, a file in the root. */
    expect_paths("/prog", NULL, 0, "prog.dbg", (const char *const[]){"/", NULL},
                 (const char *const[]){"@/prog.dbg", "@/.debug/prog.dbg", "@/prog.dbg", NULL});
    /* A relative path: nothing under the debug directories by path. */
    expect_paths("prog", bid, 2, "p.dbg", NULL,
                 (const char *const[]){"/usr/lib/debug/.build-id/93/ac.debug", "@./p.dbg",
                                       "@./.debug/p.dbg", NULL});
    /* No build-id (or one byte, no directory to put it in), no debuglink. */
    expect_paths("/bin/x", bid, 1, NULL, NULL, (const char *const[]){NULL});
    expect_paths("/bin/x", NULL, 0, "", NULL, (const char *const[]){NULL});
}

static char dir[64];

/* Run a shell command in dir; its exit status. */
static int sh(const char *what)
{
    char *cmd = nf_xasprintf("cd '%s' && { %s; } >/dev/null 2>&1", dir, what);
    int rc = system(cmd);
    free(cmd);
    return rc;
}

static char *in_dir(const char *name)
{
    return nf_xasprintf("%s/%s", dir, name);
}

/* The CRC of the file at path, read in pieces of 1000 bytes. */
static uint32_t crc_of(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char buf[1000];
    size_t got;
    uint32_t crc = 0;
    while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
        crc = nf_elf_debug_crc32(crc, buf, got);
    fclose(f);
    return crc;
}

static void test_split_program(void **state)
{
    (void)state;
    if (sh("objcopy --version && strip --version") != 0)
        skip();
    assert_int_equal(sh("printf '%s\\n' 'static volatile int s;'"
                        " '__attribute__((noinline)) void nf_dbg_hot(int n)'"
                        " '{ for (int i = 0; i < n; i++) s += i; }'"
                        " 'int main(void) { nf_dbg_hot(10); return 0; }' >p.c && "
                        "cc -O1 -g -Wl,--build-id -o p p.c && "
                        "objcopy --only-keep-debug p p.debug && strip p && "
                        "objcopy --add-gnu-debuglink=p.debug p"),
                     0);
    char *prog = in_dir("p"), *debug = in_dir("p.debug");
    char err[NF_ERR_LEN];
    struct nf_elf e, d;
    assert_int_equal(nf_elf_open(&e, prog, err, sizeof(err)), 0);

    /* The debuglink: the name, and the CRC of the whole debug file. */
    char name[64];
    uint32_t crc = 0;
    assert_int_equal(nf_elf_debuglink(&e, name, sizeof(name), &crc), 1);
    assert_string_equal(name, "p.debug");
    assert_int_equal(crc, crc_of(debug));
    assert_int_equal(nf_elf_debuglink(&e, name, 4, &crc), 0); /* no room: none */

    /* Found next to the program (no debug directory). */
    char *found = NULL;
    static const char *const none[] = {NULL};
    assert_int_equal(nf_elf_debug_open(&e, prog, none, &d, &found), 1);
    assert_string_equal(found, debug);
    free(found);
    nf_elf_close(&d);

    /* A copy under a debug directory by build-id, then the one next to the
     * program changed (one byte more): its CRC is not the debuglink's. */
    unsigned char bid[64];
    size_t nbid = nf_elf_build_id(&e, bid, sizeof(bid));
    assert_true(nbid >= 2);
    char hex[129];
    for (size_t i = 0; i < nbid; i++)
        snprintf(hex + 2 * i, 3, "%02x", bid[i]);
    char *cmd = nf_xasprintf(
        "mkdir -p dbg/.build-id/%.2s && cp p.debug dbg/.build-id/%.2s/%s.debug", hex, hex, hex + 2);
    assert_int_equal(sh(cmd), 0);
    free(cmd);
    assert_int_equal(sh("printf x >>p.debug"), 0);
    found = NULL;
    assert_int_equal(nf_elf_debug_open(&e, prog, none, &d, &found), 0);
    assert_null(found);
    assert_null(d.elf);
    char *dbgdir = in_dir("dbg");
    const char *dirs[] = {dbgdir, NULL};
    assert_int_equal(nf_elf_debug_open(&e, prog, dirs, &d, &found), 1);
    assert_non_null(strstr(found, "/dbg/.build-id/"));
    free(found);
    nf_elf_close(&d);
    nf_elf_close(&e);

    /* A profile's symbol table: stripped, the function is not there;
     * with the debug file, it is, at the same address. */
    struct nf_symtab *bare = nf_symtab_elf_debug(prog, NULL, -1, none);
    assert_true(bare->ok);
    assert_null(bare->debug);
    for (size_t i = 0; i < bare->n; i++)
        assert_string_not_equal(bare->syms[i].name, "nf_dbg_hot");
    struct nf_symtab *t = nf_symtab_elf_debug(prog, NULL, -1, dirs);
    assert_true(t->ok);
    assert_non_null(t->debug);
    const struct nf_sym *hot = NULL;
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->syms[i].name, "nf_dbg_hot") == 0)
            hot = &t->syms[i];
    assert_non_null(hot);
    assert_ptr_equal(nf_symtab_lookup(t, hot->start + (hot->end - hot->start) / 2), hot);
    assert_null(nf_symtab_lookup(bare, hot->start));
    nf_symtab_free(t);
    nf_symtab_free(bare);
    free(dbgdir);
    free(prog);
    free(debug);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/nf-dbg.XXXXXX");
    assert_non_null(mkdtemp(dir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char *cmd = nf_xasprintf("rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_split_program),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
