#!/bin/sh
# Generate tests/data/x86len.txt: the length of each instruction of
# tests/ref/x86len/x86len64.s and x86len32.s as GNU objdump decodes them,
# checked by tests/unit/test_insnlen.c against nf_x86_insn_len.
#
# Run once from the repository root with GNU binutils (as, objdump):
#
#     sh tests/ref/gen_x86len.sh > tests/data/x86len.txt
#
# Line format: "len64 HEX" or "len32 HEX", HEX the bytes of one
# instruction as objdump -d -w printed them; the instruction's length is
# the number of bytes.  Lines objdump could not decode ("(bad)") are left
# out.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# noisefloor x86 instruction lengths -- generated, do not edit."
echo "# command: sh tests/ref/gen_x86len.sh > tests/data/x86len.txt"
echo "# $(as --version | head -1); $(objdump --version | head -1)"
for bits in 64 32; do
    as --"$bits" -o "$tmp/x.o" "tests/ref/x86len/x86len$bits.s" 2>"$tmp/as.err" ||
        { cat "$tmp/as.err" >&2; exit 1; }
    objdump -d -w "$tmp/x.o" |
        awk -F'\t' -v bits="$bits" '
            /^ *[0-9a-f]+:\t/ && NF >= 3 && $3 !~ /\(bad\)/ {
                b = $2; gsub(/ /, "", b); print "len" bits, b
            }'
done
