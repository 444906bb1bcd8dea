#!/usr/bin/env bash
# Puts a real Linux kernel for the judge VM (tools/vm/vmjudge.py) at
# BUILD/vm/vmlinuz: Debian's x86_64 kernel (IA-32 emulation on), unpacked
# from its .deb; no root file system is needed.  Debian 13's (Linux 6.12)
# where apt knows it, as its auxiliary vector matches a current kernel's
# (6.1 lacks AT_RSEQ_*), else the default release's.
#   scripts/vm-kernel.sh [BUILD]       (default build)
. "$(dirname "$0")/lib/fail-loudly.bash"
build=${1:-build}
dest="$build/vm"
if [ -s "$dest/vmlinuz" ]; then
    exit 0
fi
mkdir -p "$dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod a+rwx "$work"   # apt's download user (_apt) writes here
cd "$work"
meta=linux-image-amd64
policy=$(apt-cache policy linux-image-amd64 2>/dev/null || true)
codename=$(. /etc/os-release; echo "${VERSION_CODENAME:-}")
if ! grep -q ' 6\.12\.' <<<"$policy" && [ "$codename" = bookworm ] && [ "$(id -u)" -eq 0 ]; then
    # Debian 13's kernel from the mirror bookworm already uses, pinned low so
    # that nothing else on the host ever comes from trixie.
    # The mirror from the host's sources, one-line or deb822 (fail-loudly.bash).
    mirror=$(debian_mirror)
    if [ -n "$mirror" ]; then
        echo "deb $mirror trixie main" > /etc/apt/sources.list.d/seccomp-emu-trixie.list
        printf 'Package: *\nPin: release n=trixie\nPin-Priority: 100\n' \
            > /etc/apt/preferences.d/seccomp-emu-trixie
        quiet apt-get update -q ||
            echo "vm-kernel: apt-get update with trixie failed; taking the kernel apt already knows" >&2
        policy=$(apt-cache policy linux-image-amd64 2>/dev/null || true)
    fi
fi
if grep -q ' 6\.12\.' <<<"$policy"; then
    meta=linux-image-amd64/trixie
fi
quiet apt-get download "$meta"
image=$(dpkg-deb -f linux-image-amd64_*.deb Depends | sed -n 's/^\(linux-image-[^ ,]*\).*/\1/p')
[ -n "$image" ] || { echo "vm-kernel: $meta names no kernel image" >&2; exit 1; }
quiet apt-get download "$image"
dpkg-deb -x "$image"_*.deb x
kernel=$(ls x/boot/vmlinuz-* | head -1)
grep -q '^CONFIG_IA32_EMULATION=y' x/boot/config-* ||
    { echo "vm-kernel: $kernel has no IA-32 emulation" >&2; exit 1; }
cd - >/dev/null
cp "$work/$kernel" "$dest/vmlinuz.tmp"
mv "$dest/vmlinuz.tmp" "$dest/vmlinuz"
echo "vm-kernel: $(basename "$kernel") at $dest/vmlinuz"
