/* PLT stubs in a profile's symbol table, on programs compiled here with the
 * linkers at hand (GNU ld's lazy .plt and .plt.got, its IBT layout with
 * .plt.sec, lld's): every stub objdump names "f@plt" (binutils' own
 * decoding, independent of ours) is found under that name, the rest of a
 * PLT section is "[.plt]"-like, and _init (size 0, just before .plt) ends
 * with its section .init. */
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
#include "elf/elfsym.h"
#include "elf/plt.h"
#include "profile/symbols.h"

static char dir[64];

/* Calls through the PLT (write, getpid, read, getppid) and, from the C
 * runtime, __cxa_finalize through .plt.got. */
static const char prog[] = "#include <unistd.h>\n"
                           "int main(void)\n"
                           "{\n"
                           "    char b[1];\n"
                           "    long r = write(1, \"\", 0) + read(0, b, 0);\n"
                           "    return (int)r + (getpid() == 1) + (getppid() == 0);\n"
                           "}\n";

/* A section's [start, end) by name: 0, or -1 when there is none. */
static int section(const char *path, const char *want, uint64_t *start, uint64_t *end)
{
    struct nf_elf e;
    char err[NF_ERR_LEN];
    size_t shstrndx;
    assert_int_equal(nf_elf_open(&e, path, err, sizeof(err)), 0);
    assert_int_equal(elf_getshdrstrndx(e.elf, &shstrndx), 0);
    int rc = -1;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e.elf, scn)) != NULL)
        if (gelf_getshdr(scn, &sh) && strcmp(elf_strptr(e.elf, shstrndx, sh.sh_name), want) == 0) {
            *start = sh.sh_addr;
            *end = sh.sh_addr + sh.sh_size;
            rc = 0;
        }
    nf_elf_close(&e);
    return rc;
}

/* The stubs objdump names "f@plt" in exe: their addresses and names. */
struct stub {
    uint64_t addr;
    char name[128];
};

static size_t objdump_stubs(const char *exe, struct stub *out, size_t max)
{
    char *cmd = nf_xasprintf("objdump -d '%s'", exe);
    FILE *p = popen(cmd, "r");
    free(cmd);
    assert_non_null(p);
    char line[512];
    size_t n = 0;
    while (fgets(line, sizeof(line), p)) {
        unsigned long long addr;
        char fn[128];
        size_t len;
        if (sscanf(line, "%llx <%127[^>]>:", &addr, fn) != 2 || (len = strlen(fn)) < 5 ||
            strcmp(fn + len - 4, "@plt") != 0)
            continue; /* not a stub (nor objdump's "write@plt-0x10" for the header) */
        assert_true(n < max);
        out[n].addr = addr;
        snprintf(out[n].name, sizeof(out[n].name), "%s", fn);
        n++;
    }
    assert_int_equal(pclose(p), 0);
    return n;
}

/* exe's table has every stub under its name (first and last byte), _init
 * ends with .init, the header of .plt is [.plt], and the ELF reader's
 * entries cover .plt whole. */
static void check_table(const char *exe, const struct stub *st, size_t nst)
{
    struct nf_symtab *t = nf_symtab_elf(exe);
    assert_true(t->ok);
    int seen_write = 0;
    for (size_t i = 0; i < nst; i++) {
        const struct nf_sym *s = nf_symtab_lookup(t, st[i].addr);
        if (!s || strcmp(s->name, st[i].name) != 0)
            fail_msg("%s: %s at %llx is '%s'", exe, st[i].name, (unsigned long long)st[i].addr,
                     s ? s->name : "(none)");
        assert_true(s->end - s->start >= 8 && s->end - s->start <= 16);
        assert_ptr_equal(nf_symtab_lookup(t, s->end - 1), s);
        seen_write |= strcmp(st[i].name, "write@plt") == 0;
    }
    assert_true(seen_write);

    /* _init ends with .init: the stubs after it are not its. */
    uint64_t a, b, pa, pb;
    assert_int_equal(section(exe, ".init", &a, &b), 0);
    const struct nf_sym *init = nf_symtab_lookup(t, a);
    assert_non_null(init);
    assert_string_equal(init->name, "_init");
    assert_true(init->end <= b);
    /* The start of .plt is the header of the lazy binding (GNU ld, lld):
     * no function's, the section's. */
    assert_int_equal(section(exe, ".plt", &pa, &pb), 0);
    const struct nf_sym *s = nf_symtab_lookup(t, pa);
    assert_non_null(s);
    assert_string_equal(s->name, "[.plt]");
    nf_symtab_free(t);

    struct nf_elf e;
    char err[NF_ERR_LEN];
    assert_int_equal(nf_elf_open(&e, exe, err, sizeof(err)), 0);
    struct nf_elf_plt *ent;
    size_t n = nf_elf_plt(&e, &ent);
    assert_true(n >= nst);
    uint64_t covered = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(ent[i].section, ".plt") == 0)
            covered += ent[i].size;
    assert_int_equal(covered, pb - pa);
    free(ent);
    nf_elf_close(&e);
}

/* Build prog with cc (a compiler and its flags) as dir/name; 0 when this
 * toolchain is not here. */
static int build(const char *cc, const char *name)
{
    char *cmd = nf_xasprintf("cd '%s' && %s -O1 -o '%s' prog.c >/dev/null 2>&1", dir, cc, name);
    int built = system(cmd) == 0;
    free(cmd);
    return built;
}

/* Rewrite the IBT stubs of .plt.sec in src (endbr64; jmp *disp(%rip); nop)
 * into another linker's form of the same jump, as dst: with a bnd prefix
 * (binutils before 2.40) or mold's `mov $index, %r11d` in between. */
static void rewrite_plt_sec(const char *src, const char *dst, int mold)
{
    uint64_t start, end, off = 0;
    assert_int_equal(section(src, ".plt.sec", &start, &end), 0);
    struct nf_elf e;
    char err[NF_ERR_LEN];
    assert_int_equal(nf_elf_open(&e, src, err, sizeof(err)), 0);
    size_t shstrndx;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    assert_int_equal(elf_getshdrstrndx(e.elf, &shstrndx), 0);
    while ((scn = elf_nextscn(e.elf, scn)) != NULL)
        if (gelf_getshdr(scn, &sh) &&
            strcmp(elf_strptr(e.elf, shstrndx, sh.sh_name), ".plt.sec") == 0)
            off = sh.sh_offset;
    nf_elf_close(&e);
    FILE *f = fopen(src, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    size_t len = (size_t)ftell(f);
    rewind(f);
    char *img = nf_xmalloc(len);
    assert_int_equal(fread(img, 1, len, f), len);
    fclose(f);
    for (uint64_t a = 0; a + 16 <= end - start; a += 16) {
        unsigned char *b = (unsigned char *)img + off + a;
        static const unsigned char ibt[] = {0xf3, 0x0f, 0x1e, 0xfa, 0xff, 0x25};
        assert_memory_equal(b, ibt, sizeof(ibt));
        int32_t disp;
        memcpy(&disp, b + 6, 4);
        size_t at = mold ? 10 : 5; /* where the jmp goes */
        disp -= (int32_t)(at - 4);
        memset(b + 4, 0x90, 12);
        if (mold) {
            b[4] = 0x41;
            b[5] = 0xbb;
            memset(b + 6, 0, 4);
        } else {
            b[4] = 0xf2;
        }
        b[at] = 0xff;
        b[at + 1] = 0x25;
        memcpy(b + at + 2, &disp, 4);
    }
    f = fopen(dst, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(img, 1, len, f), len);
    fclose(f);
    free(img);
}

static void test_plt_stubs(void **state)
{
    (void)state;
#ifndef __x86_64__
    skip(); /* stubs are named on x86-64 only (elf/plt.h) */
#endif
    if (system("objdump --version >/dev/null 2>&1") != 0)
        skip();
    struct stub st[64];
    char *path;
    /* GNU ld's lazy .plt and .plt.got: cc must work, the build needs it. */
    assert_true(build("cc", "gnu"));
    path = nf_xasprintf("%s/gnu", dir);
    size_t n = objdump_stubs(path, st, 64);
    assert_true(n >= 4);
    check_table(path, st, n);
    free(path);
    /* lld, where it is installed. */
    if (build("clang -fuse-ld=lld", "lld")) {
        path = nf_xasprintf("%s/lld", dir);
        n = objdump_stubs(path, st, 64);
        assert_true(n >= 4);
        check_table(path, st, n);
        free(path);
    }
    /* GNU ld's IBT stubs in .plt.sec, and the same stubs in the forms of
     * older binutils and of mold (whose names objdump does not know: the
     * stubs stay where they were). */
    if (build("cc -fcf-protection=full -Wl,-z,ibtplt", "ibt")) {
        path = nf_xasprintf("%s/ibt", dir);
        n = objdump_stubs(path, st, 64);
        assert_true(n >= 4);
        check_table(path, st, n);
        for (int mold = 0; mold < 2; mold++) {
            char *other = nf_xasprintf("%s/%s", dir, mold ? "mold" : "bnd");
            rewrite_plt_sec(path, other, mold);
            check_table(other, st, n);
            free(other);
        }
        free(path);
    }
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/nf-plt.XXXXXX");
    assert_non_null(mkdtemp(dir));
    char *path = nf_xasprintf("%s/prog.c", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(prog, f);
    fclose(f);
    free(path);
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
        cmocka_unit_test(test_plt_stubs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
