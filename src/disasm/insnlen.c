/* Instruction lengths (see insnlen.h).
 *
 * x86: an instruction is
 *   [legacy prefixes] [REX] opcode [ModRM [SIB] [displacement]] [immediate]
 * or, for the vector extensions,
 *   VEX (C5 + 1 byte, C4 + 2), EVEX (62 + 3) or XOP (8F + 2), opcode,
 *   ModRM [SIB] [displacement] [immediate].
 * Which opcodes have a ModRM byte and how large their immediate is comes
 * from the opcode map (Intel SDM vol. 2, appendix A); the VEX, EVEX and
 * XOP forms name their map in their payload and always have a ModRM byte
 * (but VEX 0F 77, vzeroupper/vzeroall).  The tables below say, per opcode,
 * only what the length needs. */
#include "disasm/insnlen.h"

/* What an opcode brings after it. */
enum {
    MR = 1 << 0,   /* a ModRM byte, with its SIB and displacement */
    I8 = 1 << 1,   /* an 8-bit immediate */
    I16 = 1 << 2,  /* a 16-bit immediate (ret imm16; with I8: enter) */
    IZ = 1 << 3,   /* 16 or 32 bits by operand size (66) */
    IV = 1 << 4,   /* 16, 32 or with REX.W 64 bits (mov r, imm: B8-BF) */
    AO = 1 << 5,   /* a memory offset of address size (mov al, [moffs]) */
    FAR = 1 << 6,  /* a far pointer: IZ and a 16-bit selector */
    TST = 1 << 7,  /* F6/F7: the immediate only for /0 and /1 (test) */
    REG = 1 << 8,  /* mod is ignored, the operand is a register (mov cr) */
    I32 = 1 << 9,  /* a 32-bit immediate whatever the operand size */
    BAD = 1 << 10, /* undefined in this mode, or not known here */
    X64 = 1 << 11, /* BAD in 64-bit mode only (else what the rest says) */
};

/* The one-byte map; prefixes (26 2E 36 3E 64-67 F0 F2 F3, and REX 40-4F in
 * 64-bit mode) and the escapes (0F, and C4 C5 62 8F where they start VEX,
 * EVEX or XOP) are handled before it is looked at. */
static unsigned map0(unsigned op)
{
    if (op < 0x40) {
        switch (op & 7) {
        case 0:
        case 1:
        case 2:
        case 3: return MR;
        case 4: return I8;
        case 5: return IZ;
        default:
            /* push/pop es cs ss ds, daa das aaa aas: 1 byte, not in
             * 64-bit mode (26 2E 36 3E are prefixes, 0F the escape). */
            return X64;
        }
    }
    if (op < 0x60)
        return 0; /* inc/dec (32-bit mode), push/pop r */
    if (op >= 0x70 && op <= 0x7f)
        return I8; /* jcc rel8 */
    if (op >= 0x90 && op <= 0x99)
        return 0;
    if (op >= 0xb0 && op <= 0xb7)
        return I8;
    if (op >= 0xb8 && op <= 0xbf)
        return IV;
    if (op >= 0xd8 && op <= 0xdf)
        return MR; /* x87 */
    if (op >= 0xe0 && op <= 0xe7)
        return I8; /* loop, jcxz, in, out */
    switch (op) {
    case 0x60:
    case 0x61: return X64;      /* pusha, popa */
    case 0x62: return MR | X64; /* bound (EVEX handled before) */
    case 0x63: return MR;       /* arpl, movsxd */
    case 0x68: return IZ;
    case 0x69: return MR | IZ;
    case 0x6a: return I8;
    case 0x6b: return MR | I8;
    case 0x80:
    case 0x82:
    case 0x83: return MR | I8 | (op == 0x82 ? X64 : 0);
    case 0x81: return MR | IZ;
    case 0x9a: return FAR | X64; /* call far ptr16:32 */
    case 0xa0:
    case 0xa1:
    case 0xa2:
    case 0xa3: return AO;
    case 0xa8: return I8;
    case 0xa9: return IZ;
    case 0xc0:
    case 0xc1: return MR | I8;
    case 0xc2:
    case 0xca: return I16;
    case 0xc4:
    case 0xc5: return MR | X64; /* les, lds (VEX before) */
    case 0xc6: return MR | I8;
    case 0xc7: return MR | IZ;
    case 0xc8: return I16 | I8; /* enter */
    case 0xcd: return I8;
    case 0xce: return X64; /* into */
    case 0xd4:
    case 0xd5: return I8 | X64; /* aam, aad (D5: APX REX2) */
    case 0xd6: return BAD;
    case 0xe8:
    case 0xe9: return IZ;
    case 0xea: return FAR | X64;
    case 0xeb: return I8;
    case 0xf6: return MR | I8 | TST;
    case 0xf7: return MR | IZ | TST;
    default:
        if ((op >= 0x84 && op <= 0x8f) || (op >= 0xd0 && op <= 0xd3) || op == 0xfe || op == 0xff)
            return MR;
        return 0; /* 6C-6F 9B-9F A4-A7 AA-AF C3 C9 CB CC CF D7 EC-EF F1 F4 F5 F8-FD */
    }
}

/* The two-byte map (0F xx); 0F 38 and 0F 3A lead to maps 2 and 3.  pfx is
 * the last of 66, F2 and F3 given (0 for none). */
static unsigned map1(unsigned op, unsigned pfx)
{
    if ((op >= 0x10 && op <= 0x1f) || (op >= 0x28 && op <= 0x2f) || (op >= 0x40 && op <= 0x6f) ||
        (op >= 0x90 && op <= 0x9f) || (op >= 0xd0 && op <= 0xff))
        return MR;
    if (op >= 0x80 && op <= 0x8f)
        return IZ; /* jcc rel */
    if (op >= 0xc8 && op <= 0xcf)
        return 0; /* bswap */
    if (op >= 0x30 && op <= 0x37)
        return 0; /* wrmsr rdtsc rdmsr rdpmc sysenter sysexit getsec */
    switch (op) {
    case 0x00:
    case 0x01:
    case 0x02:
    case 0x03:
    case 0x0d: return MR;
    case 0x05:
    case 0x06:
    case 0x07:
    case 0x08:
    case 0x09:
    case 0x0b:
    case 0x0e: return 0;
    case 0x0f: return MR | I8; /* 3DNow!: the immediate is the opcode */
    case 0x20:
    case 0x21:
    case 0x22:
    case 0x23: return MR | REG;
    case 0x24:
    case 0x26: return MR | REG | X64; /* mov tr */
    case 0x70:
    case 0x71:
    case 0x72:
    case 0x73: return MR | I8;
    case 0x74:
    case 0x75:
    case 0x76:
    case 0x79:
    case 0x7c:
    case 0x7d:
    case 0x7e:
    case 0x7f: return MR;
    case 0x77: return 0; /* emms */
    case 0x78:           /* vmread; 66: extrq xmm, ib, ib; F2: insertq xmm, xmm, ib, ib */
        return pfx == 0x66 || pfx == 0xf2 ? MR | I16 : MR;
    case 0xa0:
    case 0xa1:
    case 0xa2:
    case 0xa8:
    case 0xa9:
    case 0xaa: return 0;
    case 0xa3:
    case 0xa5:
    case 0xab:
    case 0xad:
    case 0xae:
    case 0xaf: return MR;
    case 0xa4:
    case 0xac: return MR | I8;
    case 0xb0:
    case 0xb1:
    case 0xb2:
    case 0xb3:
    case 0xb4:
    case 0xb5:
    case 0xb6:
    case 0xb7:
    case 0xb8:
    case 0xb9:
    case 0xbb:
    case 0xbc:
    case 0xbd:
    case 0xbe:
    case 0xbf: return MR;
    case 0xba: return MR | I8;
    case 0xc0:
    case 0xc1:
    case 0xc3:
    case 0xc7: return MR;
    case 0xc2:
    case 0xc4:
    case 0xc5:
    case 0xc6: return MR | I8;
    default: return BAD; /* 04 0A 0C 25 27 39 3B-3F 7A 7B A6 A7 */
    }
}

/* Maps reached through VEX, EVEX or XOP: map 1 is 0F, 2 is 0F 38, 3 is
 * 0F 3A; EVEX adds maps 5 and 6 (AVX512-FP16), VEX map 7 holds urdmsr and
 * uwrmsr (imm32), XOP has maps 8 (imm8), 9 and 10 (imm32).  Every opcode
 * there has a ModRM byte but VEX 0F 77 (vzeroupper, vzeroall). */
enum vform { VEX, EVEX, XOP };

static unsigned vmap(enum vform form, unsigned map, unsigned op)
{
    if (form == XOP)
        return map == 8 ? MR | I8 : map == 9 ? MR : map == 10 ? MR | I32 : BAD;
    switch (map) {
    case 1:
        if (op == 0x77)
            return form == VEX ? 0 : BAD;
        if ((op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6))
            return MR | I8;
        return MR;
    case 2: return MR;
    case 3: return MR | I8;
    case 5:
    case 6: return form == EVEX ? MR : BAD;
    case 7: return form == VEX && op == 0xf8 ? MR | I32 : BAD;
    default: return BAD;
    }
}

/* The bytes of ModRM (at p[0]), SIB and displacement; 0 when n is short. */
static size_t modrm_len(const uint8_t *p, size_t n, int addr16, unsigned flags)
{
    if (n < 1)
        return 0;
    unsigned mod = p[0] >> 6, rm = p[0] & 7;
    if (mod == 3 || (flags & REG))
        return 1;
    if (addr16) {
        if (mod == 0)
            return rm == 6 ? 3 : 1;
        return mod == 1 ? 2 : 3;
    }
    size_t len = 1;
    if (rm == 4) {
        if (n < 2)
            return 0;
        len++;
        if (mod == 0 && (p[1] & 7) == 5)
            return len + 4;
    }
    if (mod == 0)
        return rm == 5 ? len + 4 : len;
    return len + (mod == 1 ? 1 : 4);
}

size_t nf_x86_insn_len(const uint8_t *p, size_t n, int mode64)
{
    size_t i = 0;
    int opsize16 = 0, addrsize = 0;
    unsigned pfx = 0;
    /* Legacy prefixes, then (64-bit mode) REX.  A REX counts only right
     * before the opcode: a prefix after it voids it. */
    for (;; i++) {
        if (i >= n || i >= 15)
            return 0;
        unsigned b = p[i];
        if (b == 0x66 || b == 0xf2 || b == 0xf3) {
            opsize16 |= b == 0x66;
            pfx = b;
        } else if (b == 0x67) {
            addrsize = 1;
        } else if (!(b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 || b == 0x65 ||
                     b == 0xf0 || (mode64 && (b & 0xf0) == 0x40))) {
            break;
        }
    }
    int rex = mode64 && i > 0 && (p[i - 1] & 0xf0) == 0x40;
    int rexw = rex && (p[i - 1] & 8);
    /* 16-bit addressing: 32-bit mode with 67; 64-bit mode with 67 uses
     * 32-bit addresses, laid out as 64-bit ones. */
    int addr16 = !mode64 && addrsize;
    unsigned op = p[i], flags;
    size_t at; /* where the ModRM byte, or what follows the opcode, is */
    if ((op == 0xc4 || op == 0xc5 || op == 0x62 || op == 0x8f) && i + 1 < n &&
        (mode64 || (p[i + 1] & 0xc0) == 0xc0 || op == 0x8f) &&
        (op != 0x8f || (p[i + 1] & 0x1f) >= 8)) {
        /* VEX, EVEX or XOP; none takes a REX or 66/F2/F3 before it. */
        if (rex || pfx)
            return 0;
        size_t payload = op == 0xc5 ? 1 : op == 0x62 ? 3 : 2;
        if (i + 1 + payload >= n)
            return 0;
        unsigned map = op == 0xc5 ? 1 : op == 0x62 ? p[i + 1] & 7 : p[i + 1] & 0x1f;
        if (op == 0x62 && (p[i + 1] & 8))
            return 0; /* APX's extended EVEX: not known here */
        at = i + 1 + payload + 1;
        flags = vmap(op == 0x62 ? EVEX : op == 0x8f ? XOP : VEX, map, p[at - 1]);
    } else if (op == 0x0f) {
        if (i + 1 >= n)
            return 0;
        unsigned op2 = p[i + 1];
        if (op2 == 0x38 || op2 == 0x3a) {
            if (i + 2 >= n)
                return 0;
            at = i + 3;
            flags = op2 == 0x38 ? MR : MR | I8;
        } else {
            at = i + 2;
            flags = map1(op2, pfx);
        }
    } else {
        at = i + 1;
        flags = map0(op);
    }
    if ((flags & BAD) || (mode64 && (flags & X64)))
        return 0;
    size_t len = at;
    if (flags & MR) {
        size_t m = modrm_len(p + at, n - at, addr16, flags);
        if (!m)
            return 0;
        len += m;
    }
    size_t z = opsize16 && !rexw ? 2 : 4;
    if (flags & TST)
        flags = ((p[at] >> 3) & 7) < 2 ? flags : flags & ~(unsigned)(I8 | IZ);
    len += (flags & I8 ? 1 : 0) + (flags & I16 ? 2 : 0) + (flags & I32 ? 4 : 0);
    if (flags & IZ)
        len += z;
    if (flags & FAR)
        len += (opsize16 ? 2 : 4) + 2;
    if (flags & IV)
        len += rexw ? 8 : opsize16 ? 2 : 4;
    if (flags & AO)
        len += mode64 ? (addrsize ? 4 : 8) : (addrsize ? 2 : 4);
    if (len > 15 || len > n)
        return 0;
    return len;
}

size_t nf_thumb_insn_len(const uint8_t *p, size_t n, int big_endian)
{
    if (n < 2)
        return 0;
    unsigned hw = big_endian ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0];
    /* First halfwords 0b11101, 0b11110 and 0b11111 start 32-bit encodings. */
    size_t len = (hw >> 11) >= 0x1d ? 4 : 2;
    return len <= n ? len : 0;
}

size_t nf_s390_insn_len(const uint8_t *p, size_t n)
{
    if (n < 1)
        return 0;
    size_t len = (p[0] >> 6) == 0 ? 2 : (p[0] >> 6) == 3 ? 6 : 4;
    return len <= n ? len : 0;
}
