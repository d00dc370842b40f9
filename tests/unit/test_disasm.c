/* The instruction mix (src/disasm): mnemonic patterns, and ELF files built
 * here byte by byte with libelf, so that every count is known in advance:
 * relocatable and executable addressing, .dynsym fallback, aliases and
 * duplicate names, invalid encodings, AArch64 data in code, ARM and Thumb,
 * big-endian ARM, and the one-line errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfbuild.h"

#include "cmd/insns_select.h"
#include "core/util.h"
#include "disasm/disasm.h"

static char dir[64];

static char *tpath(const char *name)
{
    return nf_xasprintf("%s/%s", dir, name);
}

/* --- building ELF files: elfbuild.h ------------------------------------ */

static struct nf_delf *open_ok(const char *name)
{
    char *p = tpath(name), err[512] = "";
    struct nf_delf *e = NULL;
    int rc = nf_delf_open(p, &e, err, sizeof(err));
    if (rc)
        fail_msg("open %s: %s", p, err);
    free(p);
    return e;
}

static long mn_count(const struct nf_mix *m, const char *mnemonic)
{
    for (size_t i = 0; i < m->nmn; i++)
        if (strcmp(m->mn[i].mnemonic, mnemonic) == 0)
            return m->mn[i].count;
    return 0;
}

static void mix_ok(const struct nf_delf *e, const char *name, int dup, const char *const *pats,
                   size_t npats, struct nf_mix *m)
{
    const struct nf_dfunc *f = nf_delf_find(e, name, dup);
    assert_non_null(f);
    char err[512] = "";
    int rc = nf_delf_mix(e, f, pats, npats, m, err, sizeof(err));
    if (rc)
        fail_msg("mix %s: %s", name, err);
}

/* x86-64 code: f = imul rax,rsi; imul rdx,rcx; add rax,rdx; ret (4 insns,
 * 12 bytes); g = xor eax,eax; ret; bad = an invalid byte (0x06 is not an
 * instruction in 64-bit mode), then ret. */
static const uint8_t x86_text[] = {
    0x48, 0x0f, 0xaf, 0xc6, 0x48, 0x0f, 0xaf, 0xd1, 0x48,
    0x01, 0xd0, 0xc3, 0x31, 0xc0, 0xc3, 0x06, 0xc3,
};
/* A second code section: h = endbr64; ret. */
static const uint8_t x86_text2[] = {0xf3, 0x0f, 0x1e, 0xfa, 0xc3};

static const struct tsec x86_secs[] = {
    {".text", SHT_PROGBITS, 0, x86_text, sizeof(x86_text)},
    {".text.h", SHT_PROGBITS, 0, x86_text2, sizeof(x86_text2)},
    {".bss", SHT_NOBITS, 0, NULL, 64},
};

static const struct tsym x86_syms[] = {
    {"f", 1, 0, 12, STT_FUNC, STB_GLOBAL},     {"f_alias", 1, 0, 12, STT_FUNC, STB_WEAK},
    {"g", 1, 12, 3, STT_FUNC, STB_LOCAL},      {"bad", 1, 15, 2, STT_FUNC, STB_LOCAL},
    {"h", 2, 0, 5, STT_FUNC, STB_GLOBAL},      {"s", 1, 12, 3, STT_FUNC, STB_LOCAL},
    {"s", 2, 0, 5, STT_FUNC, STB_LOCAL},       {"nosize", 1, 12, 0, STT_FUNC, STB_GLOBAL},
    {"in_bss", 3, 0, 8, STT_FUNC, STB_GLOBAL}, {"toolong", 1, 12, 100, STT_FUNC, STB_GLOBAL},
    {"data", 1, 0, 4, STT_OBJECT, STB_GLOBAL}, {"undef", 0, 0, 0, STT_FUNC, STB_GLOBAL},
};

static void write_x86(const char *name, int type, uint64_t base, int dynsym)
{
    struct tsec secs[3];
    struct tsym syms[sizeof(x86_syms) / sizeof(x86_syms[0])];
    memcpy(secs, x86_secs, sizeof(secs));
    memcpy(syms, x86_syms, sizeof(syms));
    if (type != ET_REL) {
        /* Virtual addresses: .text at base, .text.h at base + 0x1000. */
        for (size_t i = 0; i < 3; i++)
            secs[i].addr = base + 0x1000 * i;
        for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
            if (syms[i].sec)
                syms[i].value += base + 0x1000 * (uint64_t)(syms[i].sec - 1);
    }
    struct telf t = {ELFCLASS64, ELFDATA2LSB, EM_X86_64, type, 0,
                     dynsym,     secs,        3,         syms, sizeof(syms) / sizeof(syms[0])};
    char *p = tpath(name);
    write_elf(p, &t);
    free(p);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/nf-disasm.XXXXXX");
    assert_non_null(mkdtemp(dir));
    write_x86("x86.o", ET_REL, 0, 0);
    write_x86("x86.exe", ET_EXEC, 0x401000, 0);
    write_x86("x86.so", ET_DYN, 0x1000, 1);
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

/* --- tests -------------------------------------------------------------- */

static void test_match(void **state)
{
    (void)state;
    static const struct {
        const char *pat, *mn;
        int want;
    } cases[] = {
        {"mul", "mul", 1},
        {"mul", "imul", 1},
        {"mul", "mulx", 1},
        {"mul", "vpmulld", 1},
        {"mul", "smull", 1},
        {"mul", "umulh", 1},
        {"MUL", "imul", 1},
        {"mul", "IMUL", 1},
        {"mul", "mla", 0},
        {"mul", "mu", 0},
        {"mla", "mla", 1},
        {"mla", "vmla.f32", 1},
        {"^mul", "mul", 1},
        {"^mul", "mulx", 1},
        {"^mul", "imul", 0},
        {"mul$", "imul", 1},
        {"mul$", "mulx", 0},
        {"^mul$", "mul", 1},
        {"^mul$", "imul", 0},
        {"^mul$", "mulx", 0},
        {"^mul$", "mu", 0},
        {"lock", "lock xadd", 1},
        {"xadd$", "lock xadd", 1},
        /* As the man page says: anchors see capstone's prefixes; madd
         * counts AArch64's widening multiply-adds. */
        {"^add$", "lock add", 0},
        {"^stos", "rep stosq", 0},
        {"madd", "smaddl", 1},
        {"madd", "umaddl", 1},
        {"msub", "umsubl", 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (nf_mnemonic_match(cases[i].pat, cases[i].mn) != cases[i].want)
            fail_msg("'%s' vs '%s': want %d", cases[i].pat, cases[i].mn, cases[i].want);
}

static void test_symbols_rel(void **state)
{
    (void)state;
    struct nf_delf *e = open_ok("x86.o");
    assert_string_equal(e->arch, "x86-64");
    assert_string_equal(e->type, "relocatable");
    assert_string_equal(e->symtab, "symtab");
    /* Functions defined in a section: not undef, not the OBJECT. */
    assert_int_equal(e->nfuncs, 10);
    /* Largest first; equal sizes by name. */
    assert_string_equal(e->funcs[0].name, "toolong");
    assert_string_equal(e->funcs[1].name, "f");
    assert_string_equal(e->funcs[2].name, "f_alias");
    assert_int_equal(e->funcs[1].alias, 0); /* global beats weak */
    assert_int_equal(e->funcs[2].alias, 1);
    assert_null(nf_delf_find(e, "undef", 1));
    assert_null(nf_delf_find(e, "data", 1));
    /* Two static functions named s, numbered by address (section-relative
     * here: 0 in .text.h before 12 in .text). */
    const struct nf_dfunc *s1 = nf_delf_find(e, "s", 1), *s2 = nf_delf_find(e, "s", 2);
    assert_non_null(s1);
    assert_non_null(s2);
    assert_int_equal(s1->shndx, 2);
    assert_int_equal(s1->addr, 0);
    assert_int_equal(s2->shndx, 1);
    assert_int_equal(s2->addr, 12);
    assert_null(nf_delf_find(e, "s", 3));
    /* Both are aliases: of h (global beats local), of g (both local: the
     * name order decides). */
    assert_int_equal(s1->alias, 1);
    assert_int_equal(s2->alias, 1);
    assert_int_equal(nf_delf_find(e, "g", 1)->alias, 0);
    assert_int_equal(nf_delf_find(e, "h", 1)->alias, 0);
    nf_delf_close(e);
}

static void check_x86_mix(const char *file, uint64_t f_addr, uint64_t h_addr)
{
    struct nf_delf *e = open_ok(file);
    static const char *const pats[] = {"mul", "^mul", "imul$", "add", "ret"};
    struct nf_mix m;
    mix_ok(e, "f", 1, pats, 5, &m);
    assert_int_equal(nf_delf_find(e, "f", 1)->addr, f_addr);
    assert_int_equal(m.insns, 4);
    assert_int_equal(m.bytes, 12);
    assert_int_equal(m.skipped, 0);
    assert_int_equal(m.nmn, 3);
    assert_string_equal(m.mn[0].mnemonic, "imul"); /* by count, then name */
    assert_int_equal(m.mn[0].count, 2);
    assert_string_equal(m.mn[1].mnemonic, "add");
    assert_string_equal(m.mn[2].mnemonic, "ret");
    assert_int_equal(m.matched[0], 2);
    assert_int_equal(m.matched[1], 0);
    assert_int_equal(m.matched[2], 2);
    assert_int_equal(m.matched[3], 1);
    assert_int_equal(m.matched[4], 1);
    nf_mix_free(&m);

    /* Section-relative 0 in the second section of the .o; its own
     * virtual address in the executable. */
    mix_ok(e, "h", 1, NULL, 0, &m);
    assert_int_equal(nf_delf_find(e, "h", 1)->addr, h_addr);
    assert_int_equal(m.insns, 2);
    assert_int_equal(mn_count(&m, "endbr64"), 1);
    assert_int_equal(mn_count(&m, "ret"), 1);
    nf_mix_free(&m);

    mix_ok(e, "g", 1, NULL, 0, &m);
    assert_int_equal(m.insns, 2);
    assert_int_equal(mn_count(&m, "xor"), 1);
    nf_mix_free(&m);

    /* An invalid byte is skipped, decoding goes on after it; of unknown
     * length, it makes the function's counts unsure from its address. */
    mix_ok(e, "bad", 1, NULL, 0, &m);
    assert_int_equal(m.insns, 1);
    assert_int_equal(m.skipped, 1);
    assert_int_equal(m.undecodable, 0);
    assert_int_equal(m.unsure, 1);
    assert_int_equal(m.unsure_at, nf_delf_find(e, "bad", 1)->addr);
    assert_int_equal(mn_count(&m, "ret"), 1);
    nf_mix_free(&m);
    mix_ok(e, "f", 1, NULL, 0, &m);
    assert_int_equal(m.unsure, 0);
    nf_mix_free(&m);
    nf_delf_close(e);
}

static void test_mix_rel(void **state)
{
    (void)state;
    check_x86_mix("x86.o", 0, 0);
}

static void test_mix_exec(void **state)
{
    (void)state;
    check_x86_mix("x86.exe", 0x401000, 0x402000);
    struct nf_delf *e = open_ok("x86.exe");
    assert_string_equal(e->type, "executable");
    nf_delf_close(e);
}

static void test_dynsym_fallback(void **state)
{
    (void)state;
    check_x86_mix("x86.so", 0x1000, 0x2000);
    struct nf_delf *e = open_ok("x86.so");
    assert_string_equal(e->symtab, "dynsym");
    assert_string_equal(e->type, "shared object");
    nf_delf_close(e);
}

static void expect_mix_error(const char *name, const char *want)
{
    struct nf_delf *e = open_ok("x86.o");
    char err[512] = "";
    struct nf_mix m;
    const struct nf_dfunc *f = nf_delf_find(e, name, 1);
    assert_non_null(f);
    assert_int_equal(nf_delf_mix(e, f, NULL, 0, &m, err, sizeof(err)), NF_EINPUT);
    if (!strstr(err, want))
        fail_msg("'%s' lacks '%s'", err, want);
    assert_null(strchr(err, '\n'));
    nf_mix_free(&m);
    nf_delf_close(e);
}

static void test_bad_functions(void **state)
{
    (void)state;
    expect_mix_error("nosize", "has size 0");
    expect_mix_error("in_bss", "no contents");
    expect_mix_error("toolong", "outside its section");
}

static void expect_open_error(const char *path, int want_rc, const char *want)
{
    struct nf_delf *e = (struct nf_delf *)1;
    char err[512] = "";
    assert_int_equal(nf_delf_open(path, &e, err, sizeof(err)), want_rc);
    assert_null(e);
    if (!strstr(err, want))
        fail_msg("'%s' lacks '%s'", err, want);
    assert_null(strchr(err, '\n'));
}

static void test_open_errors(void **state)
{
    (void)state;
    char *missing = tpath("missing.o"), *text = tpath("text.o"), *riscv = tpath("riscv.o");
    expect_open_error(missing, NF_EINPUT, "No such file");
    expect_open_error(dir, NF_EINPUT, "not a regular file");
    FILE *f = fopen(text, "w");
    fputs("not an elf\n", f);
    fclose(f);
    expect_open_error(text, NF_EINPUT, "not an ELF file");
    struct telf t = {ELFCLASS64, ELFDATA2LSB, EM_RISCV, ET_REL, 0, 0, x86_secs, 1, x86_syms, 1};
    write_elf(riscv, &t);
    expect_open_error(riscv, NF_EINPUT, "unsupported architecture RISC-V (e_machine 243)");
    free(missing);
    free(text);
    free(riscv);
}

/* A file cut short, or whose headers point past its end, is said to be
 * so, not taken for one without a symbol table. */
static void test_cut_short(void **state)
{
    (void)state;
    char *whole = tpath("x86.exe"), *cut = tpath("cut.exe"), *far = tpath("far.exe");
    FILE *f = fopen(whole, "rb");
    char buf[16384];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    assert_true(n < sizeof(buf));
    Elf64_Ehdr eh;
    memcpy(&eh, buf, sizeof(eh));
    assert_true(eh.e_shoff > 0 && eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize == n);
    /* the last section header cut off */
    f = fopen(cut, "wb");
    fwrite(buf, 1, n - 1, f);
    fclose(f);
    char want[256];
    snprintf(want, sizeof(want),
             ": truncated or malformed ELF file: its section headers (%u bytes at offset %llu) "
             "reach past the end of the file (%zu bytes)",
             (unsigned)eh.e_shnum * eh.e_shentsize, (unsigned long long)eh.e_shoff, n - 1);
    expect_open_error(cut, NF_EINPUT, want);
    /* the headers whole, the symbol table's contents placed past the end */
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, buf + eh.e_shoff + (size_t)i * eh.e_shentsize, sizeof(sh));
        if (sh.sh_type == SHT_SYMTAB) {
            sh.sh_offset = n + 64;
            memcpy(buf + eh.e_shoff + (size_t)i * eh.e_shentsize, &sh, sizeof(sh));
        }
    }
    f = fopen(far, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    expect_open_error(far, NF_EINPUT, "the contents of section .symtab (");
    expect_open_error(far, NF_EINPUT, ") reach past the end of the file");
    free(whole);
    free(cut);
    free(far);
}

/* AArch64: mul x0,x0,x1; madd x0,x1,x0,x2; a literal word ($d); ret. */
static void test_aarch64_data_in_code(void **state)
{
    (void)state;
    static const uint8_t text[] = {
        0x00, 0x7c, 0x01, 0x9b, 0x20, 0x08, 0x00, 0x9b,
        0xef, 0xbe, 0xad, 0xde, 0xc0, 0x03, 0x5f, 0xd6,
    };
    static const struct tsec secs[] = {{".text", SHT_PROGBITS, 0x400000, text, sizeof(text)}};
    static const struct tsym syms[] = {
        {"$x", 1, 0x400000, 0, STT_NOTYPE, STB_LOCAL},
        {"$d.1", 1, 0x400008, 0, STT_NOTYPE, STB_LOCAL},
        {"$x.2", 1, 0x40000c, 0, STT_NOTYPE, STB_LOCAL},
        {"fn", 1, 0x400000, 16, STT_FUNC, STB_GLOBAL},
    };
    struct telf t = {ELFCLASS64, ELFDATA2LSB, EM_AARCH64, ET_EXEC, 0, 0, secs, 1, syms, 4};
    char *p = tpath("a64");
    write_elf(p, &t);
    free(p);
    struct nf_delf *e = open_ok("a64");
    assert_string_equal(e->arch, "aarch64");
    assert_int_equal(e->nfuncs, 1); /* mapping symbols are not functions */
    static const char *const pats[] = {"mul", "madd", "^m"};
    struct nf_mix m;
    mix_ok(e, "fn", 1, pats, 3, &m);
    assert_int_equal(m.insns, 3);
    assert_int_equal(m.skipped, 4);
    assert_int_equal(mn_count(&m, "mul"), 1);
    assert_int_equal(mn_count(&m, "madd"), 1);
    assert_int_equal(mn_count(&m, "ret"), 1);
    assert_int_equal(m.matched[0], 1);
    assert_int_equal(m.matched[1], 1);
    assert_int_equal(m.matched[2], 2);
    nf_mix_free(&m);
    nf_delf_close(e);
}

/* ARM: an ARM-mode function (mla; bx lr) and a Thumb one (muls; bx lr),
 * little- and big-endian (BE32: every word byte-swapped). */
static void check_arm(int data)
{
    static const uint8_t le[] = {0x91, 0x20, 0x20, 0xe0, 0x1e, 0xff,
                                 0x2f, 0xe1, 0x48, 0x43, 0x70, 0x47};
    static const uint8_t be[] = {0xe0, 0x20, 0x20, 0x91, 0xe1, 0x2f,
                                 0xff, 0x1e, 0x43, 0x48, 0x47, 0x70};
    struct tsec secs[] = {{".text", SHT_PROGBITS, 0, data == ELFDATA2LSB ? le : be, sizeof(le)}};
    static const struct tsym syms[] = {
        {"$a", 1, 0, 0, STT_NOTYPE, STB_LOCAL},
        {"armfn", 1, 0, 8, STT_FUNC, STB_GLOBAL},
        {"$t", 1, 8, 0, STT_NOTYPE, STB_LOCAL},
        {"thumbfn", 1, 8 | 1, 4, STT_FUNC, STB_GLOBAL},
    };
    struct telf t = {ELFCLASS32, data, EM_ARM, ET_REL, 0, 0, secs, 1, syms, 4};
    char *p = tpath("arm.o");
    write_elf(p, &t);
    free(p);
    struct nf_delf *e = open_ok("arm.o");
    assert_string_equal(e->arch, "arm");
    static const char *const pats[] = {"mul", "mla"};
    struct nf_mix m;
    mix_ok(e, "armfn", 1, pats, 2, &m);
    assert_int_equal(m.insns, 2);
    assert_int_equal(m.skipped, 0);
    assert_int_equal(mn_count(&m, "mla"), 1);
    assert_int_equal(mn_count(&m, "bx"), 1);
    assert_int_equal(m.matched[0], 0);
    assert_int_equal(m.matched[1], 1);
    nf_mix_free(&m);
    const struct nf_dfunc *tf = nf_delf_find(e, "thumbfn", 1);
    assert_int_equal(tf->thumb, 1);
    assert_int_equal(tf->addr, 8); /* the Thumb bit cleared */
    mix_ok(e, "thumbfn", 1, pats, 2, &m);
    assert_int_equal(m.insns, 2);
    assert_int_equal(m.skipped, 0);
    assert_int_equal(mn_count(&m, "muls"), 1);
    assert_int_equal(mn_count(&m, "bx"), 1);
    assert_int_equal(m.matched[0], 1);
    nf_mix_free(&m);
    nf_delf_close(e);
}

static void test_arm_thumb(void **state)
{
    (void)state;
    check_arm(ELFDATA2LSB);
    check_arm(ELFDATA2MSB);
}

static void test_select(void **state)
{
    (void)state;
    struct nf_delf *files[2] = {open_ok("x86.o"), open_ok("x86.exe")};
    struct nf_insns_key *k;
    size_t nk;
    char err[512] = "";
    /* Top 3, aliases and size-0 left out, ranked by size: toolong (100),
     * f (12), in_bss (8); then h (5), whose alias s#2 is left out. */
    assert_int_equal(nf_insns_select(files, 2, NULL, 0, 3, &k, &nk, err, sizeof(err)), 0);
    assert_int_equal(nk, 3);
    assert_string_equal(k[0].name, "toolong");
    assert_string_equal(k[1].name, "f");
    assert_string_equal(k[2].name, "in_bss");
    free(k);
    /* All of them: no f_alias, no s (alias of g), no nosize. */
    assert_int_equal(nf_insns_select(files, 2, NULL, 0, 0, &k, &nk, err, sizeof(err)), 0);
    assert_int_equal(nk, 6);
    for (size_t i = 0; i < nk; i++) {
        assert_string_not_equal(k[i].name, "f_alias");
        assert_string_not_equal(k[i].name, "nosize");
        assert_string_not_equal(k[i].name, "s");
    }
    free(k);
    /* By name: every function of that name. */
    const char *names[] = {"s", "f"};
    assert_int_equal(nf_insns_select(files, 2, names, 2, 20, &k, &nk, err, sizeof(err)), 0);
    assert_int_equal(nk, 3);
    assert_string_equal(k[0].name, "s");
    assert_int_equal(k[0].dup, 1);
    assert_string_equal(k[1].name, "s");
    assert_int_equal(k[1].dup, 2);
    assert_string_equal(k[2].name, "f");
    free(k);
    const char *missing[] = {"f", "nope"};
    assert_int_equal(nf_insns_select(files, 2, missing, 2, 20, &k, &nk, err, sizeof(err)),
                     NF_EINPUT);
    assert_null(k);
    assert_non_null(strstr(err, "no function 'nope'"));
    nf_delf_close(files[0]);
    nf_delf_close(files[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_symbols_rel),
        cmocka_unit_test(test_mix_rel),
        cmocka_unit_test(test_mix_exec),
        cmocka_unit_test(test_dynsym_fallback),
        cmocka_unit_test(test_bad_functions),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_cut_short),
        cmocka_unit_test(test_aarch64_data_in_code),
        cmocka_unit_test(test_arm_thumb),
        cmocka_unit_test(test_select),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
