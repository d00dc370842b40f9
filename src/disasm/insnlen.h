/* The length of one machine instruction, known without naming it.
 *
 * Some capstone builds cannot decode all instructions (capstone 4.0.2
 * fails on many AVX-512 encodings: kmovd, vpcmpeqb with ymm16-31, ...).
 * Skipping one byte of such an instruction and decoding on would read its
 * middle as new instructions (a phantom `div` or `sti`), so the mix steps
 * over the whole of it instead, and needs its length.  On x86 that takes a
 * decoder of the instruction's format: prefixes, REX, VEX, EVEX and XOP,
 * the opcode maps, ModRM, SIB, displacement and immediate (Intel SDM vol. 2,
 * chapters 2 and 3, appendix A; AMD APM vol. 3, chapter 1).  The other
 * architectures have fixed lengths or say the length in the first bytes. */
#ifndef NF_DISASM_INSNLEN_H
#define NF_DISASM_INSNLEN_H

#include <stddef.h>
#include <stdint.h>

/* The length of the x86 instruction at p (at most n bytes there), in
 * 64-bit mode (mode64) or 32-bit mode; 0 when it is not known: an opcode
 * undefined in that mode or not in the tables (APX's REX2 and EVEX map 4,
 * for instance), more than 15 bytes, or longer than n. */
size_t nf_x86_insn_len(const uint8_t *p, size_t n, int mode64);

/* The length of the Thumb instruction at p (little-endian halfwords): 4
 * for a 32-bit Thumb-2 encoding, else 2; 0 when n is too short. */
size_t nf_thumb_insn_len(const uint8_t *p, size_t n, int big_endian);

/* The length of the s390x instruction at p: 2, 4 or 6 by the top two
 * bits of its first byte; 0 when n is too short. */
size_t nf_s390_insn_len(const uint8_t *p, size_t n);

#endif
