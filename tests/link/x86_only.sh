#!/bin/sh
# The start-up figures in the README assume seccomp-emu links Unicorn and
# Capstone with their x86 target only (build-aux/x86-object.sh).  That
# script falls back to every target, with a warning, when an archive is not
# shaped as it expects; this test is where such a fallback turns red.
#
# usage: x86_only.sh NM SECCOMP-EMU unicorn|capstone...
set -eu
nm=$1 exe=$2; shift 2
syms=$("$nm" "$exe" | awk 'NF == 3 { print $3 }')
[ -n "$syms" ] || { echo "x86_only: no symbols in $exe (stripped?)" >&2; exit 1; }
status=0
for lib in "$@"; do
    case $lib in
    unicorn)  # per-target copies of QEMU, e.g. tcg_optimize_arm; stubs excepted,
              # and the arm64 host code generator's file-local condition table
              # (tcg/aarch64/tcg-target.inc.c), whose name only looks like a target's
        stray=$(printf '%s\n' "$syms" |
                grep -E '_(aarch64|arm|m68k|mips|mipsel|mips64|mips64el|ppc|ppc64|riscv32|riscv64|s390x|sparc|sparc64|tricore)$' |
                grep -Ev '^(uc_init|reg_read|reg_write)_|^tcg_cond_to_aarch64$' || true) ;;
    capstone)  # per-target decoders, e.g. ARM_getInstruction; stubs excepted
        stray=$(printf '%s\n' "$syms" |
                grep -E '^(AArch64|ARM|EVM|M680X|M68K|Mips|PPC|Sparc|SystemZ|TMS320C64x|XCore)_' |
                grep -Ev '_(global_init|option)$' || true) ;;
    *) echo "x86_only: unknown library $lib" >&2; exit 2 ;;
    esac
    if [ -n "$stray" ]; then
        echo "x86_only: $lib links other targets: $(printf '%s\n' "$stray" | wc -l) symbols, e.g. $(printf '%s\n' "$stray" | head -n 3 | paste -sd ' ' -)" >&2
        status=1
    elif ! printf '%s\n' "$syms" | grep -qx only_x86; then
        echo "x86_only: $lib: no only_x86 stub in $exe" >&2
        status=1
    else
        echo "$lib: x86 target only"
    fi
done
exit $status
