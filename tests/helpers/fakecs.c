/* A stand-in for capstone 5 (or, built with -DFAKE_MAJOR=6, a version
 * noisefloor does not know), for tests/e2e/t_insns_decode.sh: it decodes
 * every byte as a one-byte instruction named "fake5" ("fake5_ret" for
 * 0xc3) and lays out cs_insn as capstone 5 does (24 instruction bytes
 * before the mnemonic, 16 in capstone 4).  Built as libcapstone.so.5, it
 * shows which capstone insns loads and that it reads the mnemonic where
 * that version keeps it. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef FAKE_MAJOR
#define FAKE_MAJOR 5
#endif

struct insn5 {
    unsigned int id;
    uint64_t address;
    uint16_t size;
    uint8_t bytes[24];
    char mnemonic[32];
    char op_str[160];
    void *detail;
};

unsigned cs_version(int *major, int *minor)
{
    *major = FAKE_MAJOR;
    *minor = 0;
    return FAKE_MAJOR << 8;
}

bool cs_support(int query)
{
    (void)query;
    return true;
}

int cs_open(int arch, int mode, size_t *handle)
{
    (void)arch;
    (void)mode;
    *handle = 1;
    return 0;
}

int cs_close(size_t *handle)
{
    *handle = 0;
    return 0;
}

int cs_option(size_t handle, int type, size_t value)
{
    (void)handle;
    (void)type;
    (void)value;
    return 0;
}

const char *cs_strerror(int code)
{
    (void)code;
    return "fake capstone";
}

struct insn5 *cs_malloc(size_t handle)
{
    (void)handle;
    return calloc(1, sizeof(struct insn5));
}

void cs_free(struct insn5 *insn, size_t count)
{
    (void)count;
    free(insn);
}

bool cs_disasm_iter(size_t handle, const uint8_t **code, size_t *size, uint64_t *address,
                    struct insn5 *insn)
{
    (void)handle;
    if (*size == 0)
        return false;
    insn->size = 1;
    insn->address = *address;
    insn->bytes[0] = **code;
    strcpy(insn->mnemonic, **code == 0xc3 ? "fake5_ret" : "fake5");
    (*code)++;
    (*size)--;
    (*address)++;
    return true;
}
