#!/bin/sh
# Compiles a freestanding C program into raw bytecode with gcc, ld and
# objcopy, as the cpushare client's jobs were built:
#   build-raw.sh i386|x86_64 SOURCE.c OUT [CFLAGS...]
# makes OUT.text.bin and OUT.data.bin (for `seccomp-emu --raw
# OUT.text.bin,OUT.data.bin --arch=...`) and OUT.elf, the same program as a
# static ELF at the same addresses.  CC, LD and OBJCOPY may be overridden.
set -eu
if [ $# -lt 3 ]; then
    echo "usage: $0 i386|x86_64 SOURCE.c OUT [CFLAGS...]" >&2
    exit 2
fi
arch=$1 src=$2 out=$3
shift 3
case $arch in
i386) m=-m32 emulation=elf_i386 ;;
x86_64) m=-m64 emulation=elf_x86_64 ;;
*) echo "$0: the architecture is i386 or x86_64, not $arch" >&2; exit 2 ;;
esac
here=$(dirname "$0")
# No libc and no helper calls: gcc must not turn loops into memset/memcpy.
${CC:-gcc} $m -ffreestanding -fno-builtin -fno-tree-loop-distribute-patterns -fno-pie \
    -fno-stack-protector -fno-asynchronous-unwind-tables -fcf-protection=none -O2 \
    "$@" -c "$src" -o "$out.o"
# --orphan-handling=error: a section raw.ld does not place would otherwise
# be put somewhere and silently missing from both images.
${LD:-ld} -m $emulation -static -nostdlib --build-id=none --orphan-handling=error \
    -T "$here/raw.ld" -o "$out.elf" "$out.o"
${OBJCOPY:-objcopy} -O binary -j .text "$out.elf" "$out.text.bin"
${OBJCOPY:-objcopy} -O binary -j .data "$out.elf" "$out.data.bin"
