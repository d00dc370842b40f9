/* The ELF symbol reader on this test's own executable (from the file and
 * from a copy in memory) and on files that are not ELF objects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/util.h"
#include "elf/demangle.h"
#include "elf/elfsym.h"

/* Symbols the walk must find: one global and one local function. */
int nf_test_elf_global(int x);
int nf_test_elf_global(int x)
{
    return x * 3 + 1;
}

static __attribute__((noipa)) int nf_test_elf_local(int x)
{
    return x * 5 + 2;
}

static void expect_open_error(const char *path, const char *want)
{
    struct nf_elf e;
    char err[NF_ERR_LEN] = "";
    assert_int_equal(nf_elf_open(&e, path, err, sizeof(err)), NF_EINPUT);
    if (!strstr(err, want) || strncmp(err, path, strlen(path)) != 0)
        fail_msg("%s: got '%s', want '%s'", path, err, want);
    assert_null(e.elf);
    assert_int_equal(e.fd, -1);
}

static void test_open_errors(void **state)
{
    (void)state;
    expect_open_error("/nonexistent/x", "No such file");
    expect_open_error("/tmp", "not a regular file");
    expect_open_error("/proc/self/maps", "not an ELF file");
    char path[] = "/tmp/nf-elf.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "!<arch>\n", 8), 8);
    close(fd);
    expect_open_error(path, "an ar archive");
    unlink(path);
}

/* Walk one table: the two functions above, and the count of symbols. */
static size_t walk(const struct nf_elf *e, enum nf_elf_table which, int *global, int *local,
                   int *undef)
{
    struct nf_elf_syms it;
    struct nf_elf_sym s;
    size_t n = 0;
    *global = *local = *undef = 0;
    if (nf_elf_syms_begin(e, which, &it))
        return 0;
    while (nf_elf_syms_next(&it, &s)) {
        n++;
        assert_true(s.name[0] != '\0');
        if (strcmp(s.name, "nf_test_elf_global") == 0)
            *global = nf_elf_sym_is_func(&s) && s.bind == STB_GLOBAL && s.in_section && s.size;
        if (strcmp(s.name, "nf_test_elf_local") == 0)
            *local = nf_elf_sym_is_func(&s) && s.bind == STB_LOCAL && s.in_section && s.size;
        /* A function of a shared library: undefined here. */
        if (strcmp(s.name, "cmocka_run_group_tests") == 0 ||
            strcmp(s.name, "_cmocka_run_group_tests") == 0)
            *undef = s.shndx == SHN_UNDEF && !s.in_section;
    }
    return n;
}

static void test_symbols_of_self(void **state)
{
    (void)state;
    assert_int_equal(nf_test_elf_global(1) + nf_test_elf_local(1), 11);
    struct nf_elf e;
    char err[NF_ERR_LEN] = "";
    if (nf_elf_open(&e, "/proc/self/exe", err, sizeof(err)))
        fail_msg("%s", err);
    assert_int_equal(e.eh.e_ident[EI_MAG1], 'E');
    int global, local, undef;
    size_t n = walk(&e, NF_ELF_SYMTAB, &global, &local, &undef);
    assert_true(n > 0);
    assert_true(global);
    assert_true(local);
    assert_true(undef);
    /* .dynsym holds the imports, not our local function. */
    assert_true(walk(&e, NF_ELF_DYNSYM, &global, &local, &undef) > 0);
    assert_false(local);
    assert_true(undef);

    /* The same image from memory reads the same. */
    FILE *f = fopen("/proc/self/exe", "rb");
    assert_non_null(f);
    size_t cap = 1 << 20, len = 0, r;
    char *img = nf_xmalloc(cap);
    while ((r = fread(img + len, 1, cap - len, f)) > 0)
        if ((len += r) == cap)
            img = nf_xrealloc(img, cap *= 2);
    fclose(f);
    struct nf_elf m;
    if (nf_elf_open_memory(&m, "[self]", img, len, err, sizeof(err)))
        fail_msg("%s", err);
    assert_int_equal(m.fd, -1);
    assert_int_equal(walk(&m, NF_ELF_SYMTAB, &global, &local, &undef), n);
    assert_true(global && local && undef);
    nf_elf_close(&m);
    char text[] = "hello, world";
    assert_int_equal(nf_elf_open_memory(&m, "[text]", text, strlen(text), err, sizeof(err)),
                     NF_EINPUT);
    assert_string_equal(err, "[text]: not an ELF file");
    /* Cut inside the header: said so when the ELF magic is there. */
    assert_int_equal(nf_elf_open_memory(&m, "[cut]", img, 40, err, sizeof(err)), NF_EINPUT);
    assert_string_equal(err, "[cut]: truncated ELF file: header cut at 40 bytes");
    assert_int_equal(nf_elf_open_memory(&m, "[cut]", img, 4, err, sizeof(err)), NF_EINPUT);
    assert_string_equal(err, "[cut]: truncated ELF file: header cut at 4 bytes");
    assert_int_equal(nf_elf_open_memory(&m, "[cut]", img, 3, err, sizeof(err)), NF_EINPUT);
    assert_string_equal(err, "[cut]: not an ELF file");
    free(img);
    nf_elf_close(&e);
}

/* C++ names demangled for display; others, and names that are not valid
 * mangled ones, left alone.  Needs libstdc++ (loaded as insns and
 * profile load it). */
static void test_demangle(void **state)
{
    (void)state;
    void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        skip(); /* no libstdc++ here: names stay mangled */
    dlclose(h);
    char *d = nf_demangle("_ZN2ns3HotImE3runEm");
    assert_non_null(d);
    assert_string_equal(d, "ns::Hot<unsigned long>::run(unsigned long)");
    free(d);
    d = nf_demangle("_Z3fooi.cold");
    assert_non_null(d);
    assert_string_equal(d, "foo(int) [clone .cold]");
    free(d);
    assert_null(nf_demangle("main"));
    assert_null(nf_demangle("_Z"));
    assert_null(nf_demangle("_Zbogus!"));
    char *tofree = (char *)1;
    assert_string_equal(nf_demangle_show("main", &tofree), "main");
    assert_null(tofree);
    assert_string_equal(nf_demangle_show("_Z3fooi", &tofree), "foo(int)");
    free(tofree);
}

static void test_bind_rank(void **state)
{
    (void)state;
    assert_true(nf_elf_bind_rank(STB_GLOBAL) < nf_elf_bind_rank(STB_WEAK));
    assert_true(nf_elf_bind_rank(STB_WEAK) < nf_elf_bind_rank(STB_LOCAL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_symbols_of_self),
        cmocka_unit_test(test_demangle),
        cmocka_unit_test(test_bind_rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
