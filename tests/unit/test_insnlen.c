/* Instruction lengths (src/disasm/insnlen.c) and how the instruction mix
 * uses them: an encoding capstone cannot decode is stepped over whole.
 *
 * The x86 lengths are checked against GNU objdump's, for the instructions
 * of tests/ref/x86len/ (tests/data/x86len.txt, written by
 * tests/ref/gen_x86len.sh): AVX-512 (EVEX, the k-register VEX forms that
 * capstone 4.0.2 cannot decode), AVX512-FP16 (EVEX maps 5 and 6), AMX,
 * XOP, 3DNow!, CET, the legacy oddities (moffs, far pointers, enter, test
 * with and without its immediate, 16-bit addressing) in 64- and 32-bit
 * mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfbuild.h"
#include "refdata.h"

#include "core/util.h"
#include "disasm/disasm.h"
#include "disasm/insnlen.h"

static size_t parse_hex(const char *hex, uint8_t *out, size_t max)
{
    size_t n = 0;
    for (; hex[0] && hex[1] && n < max; hex += 2) {
        unsigned b;
        if (sscanf(hex, "%2x", &b) != 1)
            fail_msg("bad hex '%s'", hex);
        out[n++] = (uint8_t)b;
    }
    return n;
}

static void test_x86_objdump(void **state)
{
    (void)state;
    struct ref_file r;
    assert_int_equal(ref_open(&r, "tests/data/x86len.txt"), 0);
    size_t checked = 0, failures = 0;
    const char *kw;
    while ((kw = ref_next(&r)) != NULL) {
        int mode64 = strcmp(kw, "len64") == 0;
        if (!mode64 && strcmp(kw, "len32") != 0)
            fail_msg("unknown line '%s'", kw);
        const char *hex = ref_word(&r);
        uint8_t b[32];
        size_t n = parse_hex(hex, b, 15);
        /* Followed by other bytes, as in a function: the length is the
         * instruction's.  Cut one byte short: not known. */
        uint8_t buf[32];
        memcpy(buf, b, n);
        memset(buf + n, 0x0f, sizeof(buf) - n);
        size_t got = nf_x86_insn_len(buf, sizeof(buf), mode64);
        size_t cut = nf_x86_insn_len(b, n - 1, mode64);
        if (got != n || cut != 0) {
            fprintf(stderr, "%s %s: length %zu (with a byte less: %zu), objdump %zu\n", kw, hex,
                    got, cut, n);
            failures++;
        }
        checked++;
    }
    ref_close(&r);
    fprintf(stderr, "x86 lengths: %zu instructions checked against objdump\n", checked);
    assert_true(checked > 300);
    assert_int_equal(failures, 0);
}

static void test_x86_unknown(void **state)
{
    (void)state;
    static const struct {
        const char *hex;
        int mode64;
        size_t want;
    } cases[] = {
        {"06c3", 1, 0},                               /* push es: not in 64-bit mode */
        {"06c3", 0, 1},                               /* ... but in 32-bit mode */
        {"d5104801c0", 1, 0},                         /* APX REX2: not known */
        {"62f47c0801c0", 1, 0},                       /* APX EVEX map 4: not known */
        {"66c5f877", 1, 0},                           /* 66 before VEX: #UD */
        {"48c5f877", 1, 0},                           /* REX before VEX: #UD */
        {"c5f877", 1, 3},                             /* vzeroupper */
        {"c4e77bf8c078563412", 1, 9},                 /* urdmsr rax, imm32 (VEX map 7) */
        {"0f04", 1, 0},                               /* undefined two-byte opcode */
        {"c4c27d", 1, 0},                             /* cut before the opcode */
        {"6666666666666666666666666666669090", 1, 0}, /* 15 prefixes */
        {"c5fb93c0c3", 0, 4},                         /* kmovd eax, k0 in 32-bit mode */
        {"c500", 0, 2},                               /* lds eax, [eax] (not VEX: mod 0) */
        {"c4c0", 0, 0},                               /* VEX, cut short */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t b[32];
        size_t n = parse_hex(cases[i].hex, b, sizeof(b));
        size_t got = nf_x86_insn_len(b, n, cases[i].mode64);
        if (got != cases[i].want)
            fail_msg("%s (%d-bit): length %zu, want %zu", cases[i].hex, cases[i].mode64 ? 64 : 32,
                     got, cases[i].want);
    }
}

static void test_thumb_s390(void **state)
{
    (void)state;
    static const uint8_t t16[] = {0x00, 0x46}, t32[] = {0x00, 0xe8, 0x00, 0x46};
    static const uint8_t t32be[] = {0xe8, 0x00, 0x46, 0x00};
    assert_int_equal(nf_thumb_insn_len(t16, 2, 0), 2);
    assert_int_equal(nf_thumb_insn_len(t32, 4, 0), 4);
    assert_int_equal(nf_thumb_insn_len(t32, 2, 0), 0);
    assert_int_equal(nf_thumb_insn_len(t32be, 4, 1), 4);
    assert_int_equal(nf_thumb_insn_len(t32be, 4, 0), 2);
    static const uint8_t s2[] = {0x07, 0xfe}, s4[] = {0x41, 0, 0, 0},
                         s6[] = {0xc1, 0, 7, 0xfe, 7, 0xfe};
    assert_int_equal(nf_s390_insn_len(s2, 2), 2);
    assert_int_equal(nf_s390_insn_len(s4, 4), 4);
    assert_int_equal(nf_s390_insn_len(s6, 6), 6);
    assert_int_equal(nf_s390_insn_len(s6, 5), 0);
}

/* --- the mix steps over an undecodable encoding whole ------------------- */

static char dir[64];

static long mn_count(const struct nf_mix *m, const char *mnemonic)
{
    for (size_t i = 0; i < m->nmn; i++)
        if (strcmp(m->mn[i].mnemonic, mnemonic) == 0)
            return m->mn[i].count;
    return 0;
}

/* The mix of the only function of a file holding code (one section). */
static void mix_of(int cls, int data, int machine, const uint8_t *code, size_t size, int thumb,
                   struct nf_mix *m)
{
    struct tsec secs[] = {{".text", SHT_PROGBITS, 0, code, size}};
    struct tsym syms[] = {
        {thumb ? "$t" : "$a", 1, 0, 0, STT_NOTYPE, STB_LOCAL},
        {"fn", 1, (uint64_t)thumb, size, STT_FUNC, STB_GLOBAL},
    };
    struct telf t = {cls,
                     data,
                     machine,
                     ET_REL,
                     0,
                     0,
                     secs,
                     1,
                     machine == EM_ARM ? syms : syms + 1,
                     machine == EM_ARM ? 2 : 1};
    char *p = nf_xasprintf("%s/f.o", dir), err[512] = "";
    write_elf(p, &t);
    struct nf_delf *e = NULL;
    if (nf_delf_open(p, &e, err, sizeof(err)))
        fail_msg("open: %s", err);
    if (nf_delf_mix(e, nf_delf_find(e, "fn", 1), NULL, 0, m, err, sizeof(err)))
        fail_msg("mix: %s", err);
    nf_delf_close(e);
    free(p);
}

static void test_mix_steps_whole(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/nf-insnlen.XXXXXX");
    assert_non_null(mkdtemp(dir));
    struct nf_mix m;

    /* x86-64: kmovd eax, k0; vpcmpeqb k0, ymm16, [rdi]; ret.  capstone
     * 4.0.2 decodes neither AVX-512 instruction; stepping one byte read
     * sti, xchg, int1, je, jge out of their middles.  capstone 5 decodes
     * both: either way no phantom, and every byte is accounted for. */
    static const uint8_t avx512[] = {0xc5, 0xfb, 0x93, 0xc0, 0x62, 0xf1,
                                     0x7d, 0x20, 0x74, 0x07, 0xc3};
    mix_of(ELFCLASS64, ELFDATA2LSB, EM_X86_64, avx512, sizeof(avx512), 0, &m);
    assert_int_equal(m.insns + m.undecodable, 3);
    assert_int_equal(mn_count(&m, "ret"), 1);
    assert_int_equal(m.insns, 1 + mn_count(&m, "kmovd") + mn_count(&m, "vpcmpeqb"));
    if (m.undecodable == 1)
        assert_true(m.skipped == 4 || m.skipped == 6);
    else
        assert_int_equal(m.skipped, m.undecodable == 2 ? 10 : 0);
    assert_int_equal(m.unsure, 0);
    nf_mix_free(&m);

    /* Thumb: a 32-bit encoding capstone cannot decode (e800 4600), then
     * bx lr.  Its second halfword alone is mov r0, r0: not counted. */
    static const uint8_t thumb[] = {0x00, 0xe8, 0x00, 0x46, 0x70, 0x47};
    mix_of(ELFCLASS32, ELFDATA2LSB, EM_ARM, thumb, sizeof(thumb), 1, &m);
    assert_int_equal(m.insns + m.undecodable, 2);
    assert_int_equal(mn_count(&m, "mov"), 0);
    assert_int_equal(mn_count(&m, "bx"), 1);
    nf_mix_free(&m);

    /* s390x: a 6-byte encoding capstone cannot decode (c1 00 07fe 07fe),
     * then br %r14.  Its middle alone reads as br %r14 twice. */
    static const uint8_t s390[] = {0xc1, 0x00, 0x07, 0xfe, 0x07, 0xfe, 0x07, 0xfe};
    mix_of(ELFCLASS64, ELFDATA2MSB, EM_S390, s390, sizeof(s390), 0, &m);
    assert_int_equal(m.insns + m.undecodable, 2);
    assert_int_equal(mn_count(&m, "br"), 1);
    nf_mix_free(&m);

    char *cmd = nf_xasprintf("rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_x86_objdump),
        cmocka_unit_test(test_x86_unknown),
        cmocka_unit_test(test_thumb_s390),
        cmocka_unit_test(test_mix_steps_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
