#!/usr/bin/env bash
# Puts a real Linux kernel for the judge VM (tools/vm/vmjudge.py) at
# BUILD/vm/vmlinuz: Debian's x86_64 kernel (IA-32 emulation on), unpacked
# from its .deb; no root file system is needed.  Debian 13's (Linux 6.12)
# where apt knows it, as its auxiliary vector matches a current kernel's
# (6.1 lacks AT_RSEQ_*), else the default release's.
#   scripts/vm-kernel.sh [BUILD]       (default build)
set -euo pipefail
trap 'echo "vm-kernel: failed (line $LINENO: $BASH_COMMAND)" >&2' ERR
build=${1:-build}
dest="$build/vm"
if [ -s "$dest/vmlinuz" ]; then
    exit 0
fi
mkdir -p "$dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
meta=linux-image-amd64
policy=$(apt-cache policy linux-image-amd64 2>/dev/null || true)
codename=$(. /etc/os-release; echo "${VERSION_CODENAME:-}")
if ! grep -q ' 6\.12\.' <<<"$policy" && [ "$codename" = bookworm ] && [ "$(id -u)" -eq 0 ]; then
    # Debian 13's kernel from the mirror bookworm already uses, pinned low so
    # that nothing else on the host ever comes from trixie.
    # One-line sources (sources.list, *.list) or deb822 (*.sources, whose
    # URIs: lines new installs and container images have); only the files
    # that exist, so that a missing sources.list is no error under pipefail.
    sources=()
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && sources+=("$f")
    done
    mirror=
    if [ ${#sources[@]} -gt 0 ]; then
        mirror=$(grep -hoE 'https?://[^ ]+/debian/?( |$)' "${sources[@]}" | head -1 | tr -d ' ' || true)
    fi
    if [ -n "$mirror" ]; then
        echo "deb $mirror trixie main" > /etc/apt/sources.list.d/seccomp-emu-trixie.list
        printf 'Package: *\nPin: release n=trixie\nPin-Priority: 100\n' \
            > /etc/apt/preferences.d/seccomp-emu-trixie
        apt-get update -q >/dev/null 2>&1 || true
        policy=$(apt-cache policy linux-image-amd64 2>/dev/null || true)
    fi
fi
if grep -q ' 6\.12\.' <<<"$policy"; then
    meta=linux-image-amd64/trixie
fi
apt-get download "$meta" >/dev/null
image=$(dpkg-deb -f linux-image-amd64_*.deb Depends | sed -n 's/^\(linux-image-[^ ,]*\).*/\1/p')
apt-get download "$image" >/dev/null
dpkg-deb -x "$image"_*.deb x
kernel=$(ls x/boot/vmlinuz-* | head -1)
grep -q '^CONFIG_IA32_EMULATION=y' x/boot/config-* ||
    { echo "vm-kernel: $kernel has no IA-32 emulation" >&2; exit 1; }
cd - >/dev/null
cp "$work/$kernel" "$dest/vmlinuz.tmp"
mv "$dest/vmlinuz.tmp" "$dest/vmlinuz"
echo "vm-kernel: $(basename "$kernel") at $dest/vmlinuz"
