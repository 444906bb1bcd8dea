#!/usr/bin/env bash
# The self-sandbox on arm64, judged by a real arm64 kernel: qemu-user has no
# seccomp(2), so scripts/test-arm64.sh runs a build without it.  This
# cross-builds seccomp-emu with its self-sandbox (build-arm64-sandbox/),
# boots Debian's arm64 kernel (linux-image-arm64) under qemu-system-aarch64
# with an initramfs of seccomp-emu, its libraries, a few x86 guests and
# tests/arm64/vm_init.c, and compares each run's status with the same run of
# the x86 build (build/) on this host's kernel: guests that reach the arm64
# filter table's calls (timers, sleeps, signals, faults), and the self-sandbox
# test switch, whose forbidden calls must end in SIGSYS there as here.
# usage: scripts/vm-arm64-sandbox.sh
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
scripts/build.sh
scripts/test-arm64.sh --suite unit >/dev/null   # the arm64 toolchain, libraries and binfmt
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
for p in qemu-system-arm libseccomp-dev:arm64; do
    dpkg-query -W -f='${Status}' $p 2>/dev/null | grep -q 'install ok installed' ||
        DEBIAN_FRONTEND=noninteractive quiet $SUDO apt-get install -y -q --no-install-recommends $p
done
sb=build-arm64-sandbox
if [ ! -f $sb/build.ninja ]; then
    quiet meson setup $sb --cross-file build-aux/cross/aarch64-linux-gnu.ini -Dself_sandbox=enabled
fi
guests="examples/hello_strict64 examples/allowed_calls64 tests/guests/glibc_hello64 tests/guests/glibc_hello32
        tests/signals/sig_async64 tests/signals/sig_masks64 tests/signals/sig_faults64 tests/signals/sig_faults32
        tests/hostile/hostile_hostcalls64"
quiet meson compile -C $sb seccomp-emu

vm=$sb/vm
mkdir -p $vm
if [ ! -s $vm/vmlinuz ]; then
    work=$(mktemp -d)
    chmod a+rwx "$work"   # apt's download user writes here
    (cd "$work"
     quiet apt-get download linux-image-arm64:arm64
     image=$(dpkg-deb -f linux-image-arm64_*.deb Depends | sed -n 's/^\(linux-image-[^ ,]*\).*/\1/p')
     [ -n "$image" ] || { echo "vm-arm64-sandbox: linux-image-arm64 names no kernel image" >&2; exit 1; }
     quiet apt-get download "$image:arm64"
     dpkg-deb -x "$image"_*.deb x)
    cp "$(ls "$work"/x/boot/vmlinuz-* | head -1)" $vm/vmlinuz
    rm -rf "$work"
fi
root=$vm/root
rm -rf $root && mkdir -p $root/g $root/lib/aarch64-linux-gnu $root/proc $root/dev $root/tmp
clang --target=aarch64-linux-gnu -static -O1 tests/arm64/vm_init.c -o $root/init
cp $sb/seccomp-emu $root/seccomp-emu
for g in $guests; do cp build/$g $root/g/; done
cp -L /lib/ld-linux-aarch64.so.1 $root/lib/
for l in $(aarch64-linux-gnu-readelf -d $sb/seccomp-emu | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | grep -v ld-linux); do
    cp -L /lib/aarch64-linux-gnu/"$l" $root/lib/aarch64-linux-gnu/
done
python3 tests/arm64/mkcpio.py $root $vm/initrd.gz
# 3 GiB: each Unicorn engine reserves a 1 GiB code buffer, and the kernel
# refuses that much with less memory and no swap.
timeout 600 qemu-system-aarch64 -M virt -cpu cortex-a57 -m 3072 -nographic -no-reboot \
    -kernel $vm/vmlinuz -initrd $vm/initrd.gz \
    -append "console=ttyAMA0 panic=-1 quiet rdinit=/init" | tr -d '\r' > $vm/vm.log
grep -q '^== done' $vm/vm.log || { echo "vm-arm64-sandbox: the VM did not finish (see $vm/vm.log)" >&2; exit 1; }

# The same runs with the x86 build on this host's kernel.
sed -n 's/^    run("\([^"]*\)", (char \*\[\]){ E, \(.*\), NULL });$/\1 \2/p' tests/arm64/vm_init.c | tr -d '",' |
while read -r name prog args; do
    guest=$(for g in $guests; do case $g in */"${prog#/g/}") echo "$g";; esac; done)
    # shellcheck disable=SC2086 # the guest's arguments
    ( build/seccomp-emu "build/$guest" $args </dev/null >/dev/null 2>&1 ) 2>/dev/null && st="exit 0" || { s=$?; [ $s -gt 128 ] && st="signal $((s - 128))" || st="exit $s"; }
    echo "== $name: $st"
done > $vm/host.log 2>/dev/null   # (bash's own "Killed" lines for the deaths)
for c in open creat execve fork clone socket kill ptrace mount ioctl write; do
    ( build/seccomp-emu --self-sandbox-test=$c build/tests/hostile/hostile_hostcalls64 rdtsc </dev/null >/dev/null 2>&1 ) 2>/dev/null &&
        st="exit 0" || { s=$?; [ $s -gt 128 ] && st="signal $((s - 128))" || st="exit $s"; }
    echo "== self-sandbox-test-$c: $st"
done >> $vm/host.log 2>/dev/null
grep '^== kernel' $vm/vm.log
if diff <(cat $vm/host.log) <(grep '^== .*: ' $vm/vm.log); then
    echo "vm-arm64-sandbox: $(grep -c '^== .*: ' $vm/vm.log) runs, the same status on arm64 (self-sandbox on) as on this host"
else
    echo "vm-arm64-sandbox: statuses differ (< this host, > the arm64 VM)" >&2
    exit 1
fi
