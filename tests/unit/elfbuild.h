/* ELF files built byte by byte with libelf, for the disassembler's unit
 * tests: every section, symbol and byte is the test's own, so every count
 * is known in advance (tests/unit/elfbuild.c, linked into the unit tests;
 * not a library). */
#ifndef NF_TESTS_ELFBUILD_H
#define NF_TESTS_ELFBUILD_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct tsec {
    const char *name;
    unsigned type; /* SHT_PROGBITS or SHT_NOBITS */
    uint64_t addr;
    const void *bytes;
    size_t size;
};

struct tsym {
    const char *name;
    int sec; /* 1-based index into the sections; 0: undefined */
    uint64_t value, size;
    int type, bind;
};

struct telf {
    int cls, data, machine, type;
    unsigned flags;
    int dynsym; /* the symbols go to .dynsym, no .symtab */
    const struct tsec *secs;
    size_t nsecs;
    const struct tsym *syms;
    size_t nsyms;
};

/* Write t to path: its sections, then .symtab (or .dynsym) and the string
 * tables.  A failure fails the test (cmocka). */
void write_elf(const char *path, const struct telf *t);

#endif
