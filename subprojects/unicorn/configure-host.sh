#!/bin/sh
# Runs upstream's qemu/configure in the Meson build directory, as Unicorn's
# CMakeLists.txt does at cmake time, and turns its config-host.mak and
# x86_64-softmmu/config-target.mak into the headers the sources include.
# Prints the host ARCH configure found, so meson.build can check it against
# host_machine.cpu_family().
#
# usage: configure-host.sh SOURCE-DIR BUILD-DIR 'CC ARGS' 'EXTRA-CFLAGS' 'EXTRA-LDFLAGS'
set -eu
src=$1 build=$2 cc=$3 cflags=$4 ldflags=$5
mkdir -p "$build"
cd "$build"
if ! sh "$src/qemu/configure" --cc="$cc" --extra-cflags="$cflags" --extra-ldflags="$ldflags" \
        --target-list=x86_64-softmmu >configure.out 2>&1; then
    echo "unicorn: qemu/configure failed; see $build/configure.out and $build/config.log" >&2
    tail -n 5 configure.out >&2
    exit 1
fi
sh "$src/qemu/scripts/create_config" <config-host.mak >config-host.h.tmp
mv config-host.h.tmp config-host.h
sh "$src/qemu/scripts/create_config" <x86_64-softmmu/config-target.mak >x86_64-softmmu/config-target.h.tmp
mv x86_64-softmmu/config-target.h.tmp x86_64-softmmu/config-target.h
sed -n 's/^ARCH=//p' config-host.mak
