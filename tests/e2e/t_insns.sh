# insns: instruction counts of functions compiled here from
# tests/data/insns/mul.c, whose multiplications by non-constants are known,
# checked against the source and against objdump; side by side for two
# variants; stripped and linked files; one-line errors with exit 2.
. "$(dirname "$0")/lib.sh"

SRC="$ROOT/tests/data/insns/mul.c"
CC=${CC:-cc}
command -v "$CC" >/dev/null || skip "no $CC"
$CC -c -O2 "$SRC" -o a.o || fail "cannot compile $SRC"
$CC -c -O2 -DVARIANT=2 "$SRC" -o b.o || fail "cannot compile $SRC (variant 2)"

t_case "the counts the source promises"
# The counts the source promises (x86-64: every multiplication is imul).
expect_rc 0 "$NF" insns --json --match mul,imul,'^mul$' a.o
json_check 'd["files"][0]["arch"] == "x86-64" and d["files"][0]["type"] == "relocatable"'
json_check 'set(d["files"][0]) == {"path", "arch", "type", "symtab", "functions"}'
json_check 'set(d["files"][0]["functions"][0]) == {"name", "addr", "size", "insns", "bytes", "skipped_bytes", "undecodable", "unsure_from", "mnemonics", "matched", "matched_any"}'
# The total of the patterns counts each instruction once: imul matches
# both mul and imul.
json_check 'all(f["matched_any"] == sum(c for k, c in f["mnemonics"].items() if "mul" in k.lower()) for f in d["files"][0]["functions"])'
json_check 'any(f["matched_any"] < f["matched"]["mul"] + f["matched"]["imul"] for f in d["files"][0]["functions"])'
json_check '{f["name"]: f["matched"]["mul"] for f in d["files"][0]["functions"]} == {"nf_big": 2, "nf_mul3": 3, "nf_mul1": 1, "nf_nomul": 0, "nf_mla": 1}'
json_check 'all(f["mnemonics"].get("imul", 0) == f["matched"]["imul"] == f["matched"]["mul"] for f in d["files"][0]["functions"] if f["name"] != "nf_big")'
json_check 'all(f["matched"]["^mul$"] == f["mnemonics"].get("mul", 0) for f in d["files"][0]["functions"])'
json_check 'all(sum(f["mnemonics"].values()) == f["insns"] and f["bytes"] == f["size"] and f["skipped_bytes"] == 0 and f["undecodable"] == 0 and f["unsure_from"] is None for f in d["files"][0]["functions"])'
# .o: addresses are section offsets; largest function first.
json_check 'd["files"][0]["functions"][0]["name"] == "nf_big" and all(f["addr"].startswith("0x") for f in d["files"][0]["functions"])'

t_case "objdump agrees"
# objdump agrees on every function: instructions and imul.
if command -v objdump >/dev/null; then
    cp "$T/out" a.json
    for fn in nf_big nf_mul3 nf_mul1 nf_nomul nf_mla; do
        objdump -d -M intel --disassemble=$fn a.o >od.txt 2>/dev/null || fail "objdump --disassemble=$fn"
        # Lines "addr:<TAB>bytes<TAB>insn"; wrapped byte lines have no insn.
        n=$(awk -F'\t' 'NF >= 3 && $3 != ""' od.txt | wc -l)
        nimul=$(awk -F'\t' 'NF >= 3 && $3 ~ /^imul /' od.txt | wc -l)
        /usr/bin/python3 - a.json $fn $n $nimul <<'PY' || fail "$fn: objdump counts $n insns, $nimul imul; noisefloor differs"
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["files"][0]["functions"] if f["name"] == sys.argv[2]][0]
sys.exit(0 if f["insns"] == int(sys.argv[3]) and f["mnemonics"].get("imul", 0) == int(sys.argv[4]) else 1)
PY
    done
fi

t_case "text, one file, one function"
# Text, one file, one function.
expect_rc 0 "$NF" insns --func nf_mul3 --match mul a.o
expect_in out "^a.o: x86-64, relocatable, [0-9]+ function symbols \(symtab\)$"
expect_in out "^nf_mul3 +a.o$"
expect_in out "^  match 'mul' +3$"
expect_in out "^    imul +3$"
expect_not_in out "nf_mul1"
expect_not_in out " +$"

t_case "side by side"
# Side by side: variant 2 has one multiplication fewer.
expect_rc 0 "$NF" insns --func nf_mul3 --match mul a.o b.o
expect_in out "^nf_mul3 +a.o +b.o$"
expect_in out "^  match 'mul' +3 +2 \(-1\)$"
expect_in out "^    imul +3 +2 \(-1\)$"
# Several patterns: their total, each instruction once (imul is both).
expect_rc 0 "$NF" insns --func nf_mul3 --match mul,imul a.o b.o
expect_in out "^  match 'imul' +3 +2 \(-1\)$"
expect_in out "^  match any \(total\) +3 +2 \(-1\)$"
expect_rc 0 "$NF" insns --json --func nf_mul3 --func nf_mul1 --match mul a.o b.o
json_check '[len(f["functions"]) for f in d["files"]] == [2, 2]'
json_check '[f["functions"][0]["matched"]["mul"] for f in d["files"]] == [3, 2]'
json_check '[f["functions"][1]["matched"]["mul"] for f in d["files"]] == [1, 1]'

t_case "--top without --func"
# Without --func: the largest, --top of them.
expect_rc 0 "$NF" insns --top 2 a.o b.o
[ "$(grep -c '^nf_' "$T/out")" -eq 2 ] || fail "--top 2 shows $(grep -c '^nf_' "$T/out") functions"
expect_in out "^nf_big "

t_case "executables and stripped shared objects"
# Executables (virtual addresses) and stripped shared objects (.dynsym).
$CC -O2 -DNF_MAIN "$SRC" -o exe || fail "cannot link $SRC"
expect_rc 0 "$NF" insns --json --func nf_mul3 --func main --match mul exe
json_check 'd["files"][0]["symtab"] == "symtab" and d["files"][0]["functions"][0]["matched"]["mul"] == 3'
json_check 'int(d["files"][0]["functions"][0]["addr"], 16) > 0'
if $CC -O2 -shared -fPIC "$SRC" -o lib.so 2>/dev/null && strip lib.so; then
    expect_rc 0 "$NF" insns --json --func nf_mul3 --match mul lib.so
    json_check 'd["files"][0]["symtab"] == "dynsym" and d["files"][0]["type"] == "shared object"'
    json_check 'd["files"][0]["functions"][0]["matched"]["mul"] == 3'
fi
# Stripped but for a symbol kept: a .symtab without functions, so .dynsym.
if $CC -O2 -shared -fPIC "$SRC" -o libk.so 2>/dev/null &&
    objcopy --strip-all --keep-symbol=_DYNAMIC libk.so 2>/dev/null; then
    readelf -S libk.so | grep -q '\.symtab' || fail "objcopy --keep-symbol left no .symtab"
    expect_rc 0 "$NF" insns --json --func nf_mul3 --match mul libk.so
    json_check 'd["files"][0]["symtab"] == "dynsym"'
    json_check 'd["files"][0]["functions"][0]["matched"]["mul"] == 3'
fi

t_case "x86 (i386)"
# x86 (i386), when the compiler can target it.
if $CC -m32 -c -O2 "$SRC" -o m32.o 2>/dev/null; then
    expect_rc 0 "$NF" insns --json --func nf_mul3 --match mul m32.o
    json_check 'd["files"][0]["arch"] == "x86" and d["files"][0]["functions"][0]["matched"]["mul"] == 3'
fi

t_case "other architectures (clang)"
# Other architectures, with clang's cross compilation (no sysroot needed).
if command -v clang >/dev/null; then
    cross() {   # cross TARGET ARCH FLAGS...: nf_mul3 has 3 mul, nf_mla the given count
        target=$1; arch=$2; pat=$3; shift 3
        clang --target=$target "$@" -O2 -c "$SRC" -o x.o 2>/dev/null || return 0
        expect_rc 0 "$NF" insns --json --func nf_mul3 --func nf_mla --match mul,"$pat" x.o
        json_check "d['files'][0]['arch'] == '$arch'"
        json_check "d['files'][0]['functions'][0]['matched']['mul'] == 3"
        json_check "d['files'][0]['functions'][1]['matched']['$pat'] == 1"
        json_check "d['files'][0]['functions'][0]['skipped_bytes'] == 0"
    }
    cross aarch64-linux-gnu aarch64 madd
    cross armv7a-linux-gnueabihf arm mla
    cross armv7a-linux-gnueabihf arm mla -mthumb
    cross mips64el-linux-gnuabi64 mips64 mul
    # ARMv5 loads constants from a literal pool inside the function ($d).
    if clang --target=armv5te-linux-gnueabi -O2 -c "$SRC" -o v5.o 2>/dev/null; then
        expect_rc 0 "$NF" insns --json --func nf_big v5.o
        json_check 'd["files"][0]["functions"][0]["skipped_bytes"] % 4 == 0'
        json_check 'd["files"][0]["functions"][0]["insns"] * 4 + d["files"][0]["functions"][0]["skipped_bytes"] == d["files"][0]["functions"][0]["size"]'
    fi
fi

t_case "names that are not UTF-8: cleaned in JSON, not dropped"
# A symbol and a file name with the byte 0xff: JSON strings must be
# UTF-8, so that byte becomes '?' (as profile stores such names).
if command -v objcopy >/dev/null; then
    bad=$(printf 'x\377')
    objcopy --redefine-sym "nf_mul3=nf_$(printf '\377')mul3" a.o "$bad.o" ||
        fail "objcopy --redefine-sym"
    expect_rc 0 "$NF" insns --json --top 0 --match "mul,$(printf '\377')" "$bad.o"
    json_check 'd["files"][0]["path"] == "x?.o"'
    json_check 'sorted(f["name"] for f in d["files"][0]["functions"]) == ["nf_?mul3", "nf_big", "nf_mla", "nf_mul1", "nf_nomul"]'
    json_check '[f["matched"] for f in d["files"][0]["functions"] if f["name"] == "nf_?mul3"] == [{"mul": 3, "?": 0}]'
fi

t_case "bad input: one line, exit 2"
# Bad input: one line, exit 2.
expect_rc 2 "$NF" insns --func nf_mul3 missing.o
expect_one_line_err; expect_in err "missing.o: No such file or directory"
echo "not an ELF" >text.o
expect_rc 2 "$NF" insns text.o
expect_one_line_err; expect_in err "text.o: not an ELF file"
head -c 40 a.o >cut.o
expect_rc 2 "$NF" insns cut.o
expect_one_line_err; expect_in err "cut.o: truncated ELF file: header cut at 40 bytes$"
expect_rc 2 "$NF" insns .
expect_one_line_err; expect_in err "not a regular file"
expect_rc 2 "$NF" insns --func nosuchfunction a.o b.o
expect_one_line_err; expect_in err "a.o: no function 'nosuchfunction'"
# e_machine (bytes 18-19) set to 243, RISC-V.
/usr/bin/python3 -c '
import sys; b = bytearray(open("a.o", "rb").read()); b[18:20] = (243).to_bytes(2, "little")
open("riscv.o", "wb").write(b)'
expect_rc 2 "$NF" insns riscv.o
expect_one_line_err; expect_in err "riscv.o: unsupported architecture RISC-V \(e_machine 243\); insns knows x86-64"
expect_rc 2 "$NF" insns
expect_one_line_err; expect_in err "no ELF file given"
expect_rc 2 "$NF" insns --match '' a.o
expect_one_line_err; expect_in err "--match wants"
expect_rc 2 "$NF" insns --match mul,,mla a.o
expect_one_line_err
expect_rc 2 "$NF" insns --top -1 a.o
expect_one_line_err; expect_in err "--top"
expect_rc 2 "$NF" insns --bogus a.o
expect_one_line_err; expect_in err "unknown option '--bogus'"
expect_rc 2 "$NF" insns a.o --func
expect_one_line_err; expect_in err "needs a value"
t_case "capstone: not loaded at start-up"
# Starting noisefloor loads no capstone (the loader's own list, as ldd's);
# insns loads it when it disassembles (src/disasm/cs.h).
expect_rc 0 env LD_TRACE_LOADED_OBJECTS=1 "$NF"
expect_in out "libc\.so"
expect_not_in out "capstone"
if command -v readelf >/dev/null; then
    readelf -d "$NF" >needed.txt || fail "readelf -d $NF"
    grep -q 'NEEDED.*libc\.so' needed.txt || fail "readelf -d lists no libc: $(head -c 400 needed.txt)"
    ! grep -q 'NEEDED.*capstone' needed.txt || fail "$NF needs libcapstone: $(grep capstone needed.txt)"
fi

t_case "capstone: commands that do not disassemble run without it"
export NOISEFLOOR_LIBCAPSTONE="$T/no-capstone.so"
# The command reads the maps of its parent, noisefloor.
expect_rc 0 "$NF" run -r 1 --warmup 0 -- sh -c "cat /proc/\$PPID/maps >'$T/maps'"
grep -q 'libc\.so' maps || fail "the maps of noisefloor were not read"
! grep -q capstone maps || fail "noisefloor run has capstone mapped: $(grep -m1 capstone maps)"
expect_rc 0 "$NF" run -r 2 --warmup 0 pipe -l 1
expect_rc 0 "$NF" list
expect_in out "pipe"
# Reading ELF files needs no capstone either: an error in one comes first.
expect_rc 2 "$NF" insns text.o
expect_one_line_err; expect_in err "text.o: not an ELF file"

t_case "capstone: missing, one line naming it, exit 1"
expect_rc 1 "$NF" insns --func nf_mul3 a.o
expect_one_line_err
expect_in err "^noisefloor: insns: cannot load capstone \($T/no-capstone.so\) to disassemble: .*No such file"
expect_not_in out "."
# A library that is not capstone 4 or 5: named with what it lacks or is.
cat >stub.c <<'C'
int cs_close(void) { return 0; }
int cs_disasm_iter(void) { return 0; }
int cs_free(void) { return 0; }
int cs_malloc(void) { return 0; }
int cs_open(void) { return 0; }
int cs_option(void) { return 0; }
int cs_strerror(void) { return 0; }
unsigned cs_version(int *major, int *minor) { *major = 6; *minor = 0; return 0x600; }
#ifndef LACKS_SUPPORT
int cs_support(void) { return 1; }
#endif
C
$CC -shared -fPIC stub.c -o stub6.so || fail "cannot build stub6.so"
$CC -shared -fPIC -DLACKS_SUPPORT stub.c -o stubx.so || fail "cannot build stubx.so"
expect_rc 1 env NOISEFLOOR_LIBCAPSTONE="$T/stub6.so" "$NF" insns a.o
expect_one_line_err
expect_in err "cannot load capstone \($T/stub6.so\) to disassemble: it is capstone 6\.0; noisefloor knows capstone 4 and 5$"
expect_rc 1 env NOISEFLOOR_LIBCAPSTONE="$T/stubx.so" "$NF" insns a.o
expect_one_line_err
expect_in err "cannot load capstone \($T/stubx.so\) to disassemble: it has no cs_support$"
unset NOISEFLOOR_LIBCAPSTONE
expect_rc 0 env NOISEFLOOR_LIBCAPSTONE= "$NF" insns --func nf_mul3 a.o
expect_in out "^    imul +3$"

t_case "--help"
expect_rc 0 "$NF" insns --help
expect_in out "usage: noisefloor insns"
expect_in out "contains"
pass
