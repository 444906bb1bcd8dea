#!/bin/sh
# What seccomp-emu links as its CPU and disassembler, read from the binary.
#
# unicorn: the engine must be our vendored build (subprojects/unicorn), not
# a host library: its marker symbol uc_seccomp_emu_vendored is defined, no
# uc_* function is left for the dynamic loader to find elsewhere, and no
# code of another guest target is in (QEMU's per-target copies carry the
# target in their names, e.g. tcg_optimize_arm).
# capstone: the start-up figures in docs/performance.md assume it is linked with its
# x86 target only (build-aux/x86-object.sh); that script falls back to
# every target, with a warning, when the archive is not shaped as it
# expects, and this is where such a fallback turns red.
#
# usage: x86_only.sh NM SECCOMP-EMU unicorn|capstone...
set -eu
nm=$1 exe=$2; shift 2
syms=$("$nm" "$exe" | awk 'NF == 3 { print $3 }')
[ -n "$syms" ] || { echo "x86_only: no symbols in $exe (stripped?)" >&2; exit 1; }
undefined=$("$nm" -u "$exe" | awk '{ print $NF }')
status=0
fail() { echo "x86_only: $*" >&2; status=1; }
for lib in "$@"; do
    case $lib in
    unicorn)  # the arm64 host code generator's file-local condition table
              # (tcg/aarch64/tcg-target.inc.c) only looks like a target's
        stray=$(printf '%s\n' "$syms" |
                grep -E '_(aarch64|arm|m68k|mips|mipsel|mips64|mips64el|ppc|ppc64|riscv32|riscv64|s390x|sparc|sparc64|tricore)$' |
                grep -vx tcg_cond_to_aarch64 || true)
        if ! printf '%s\n' "$syms" | grep -qx uc_seccomp_emu_vendored; then
            fail "unicorn: no uc_seccomp_emu_vendored in $exe: not the vendored engine"
            continue
        fi
        imported=$(printf '%s\n' "$undefined" | grep -E '^uc_' || true)
        [ -z "$imported" ] || fail "unicorn: $exe takes $(printf '%s\n' "$imported" | head -n 3 | paste -sd ' ' -) from a shared library"
        ;;
    capstone)  # per-target decoders, e.g. ARM_getInstruction; stubs excepted
        stray=$(printf '%s\n' "$syms" |
                grep -E '^(AArch64|ARM|EVM|M680X|M68K|Mips|PPC|Sparc|SystemZ|TMS320C64x|XCore)_' |
                grep -Ev '_(global_init|option)$' || true)
        printf '%s\n' "$syms" | grep -qx only_x86 || fail "capstone: no only_x86 stub in $exe"
        ;;
    *) echo "x86_only: unknown library $lib" >&2; exit 2 ;;
    esac
    if [ -n "$stray" ]; then
        fail "$lib links other targets: $(printf '%s\n' "$stray" | wc -l) symbols, e.g. $(printf '%s\n' "$stray" | head -n 3 | paste -sd ' ' -)"
    else
        echo "$lib: x86 target only"
    fi
done
exit $status
