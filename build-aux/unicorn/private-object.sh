#!/bin/sh
# Turns Unicorn's static archive into one relocatable object whose only
# global symbols are uc_*, so that seccomp-emu links Unicorn statically with
# the same visibility the shared library has.  Why: libunicorn.a carries its
# own copies of glib functions (g_malloc, g_array_*, g_hash_table_*, ...) as
# global symbols, which would otherwise bind seccomp-emu's glib calls to
# Unicorn's partial copies and mix two implementations of one structure.
# The members are the ones an ordinary link pulls in (-u for every uc_ entry
# point, no --whole-archive: several architectures define the same names).
#
# usage: private-object.sh LD OBJCOPY NM libunicorn.a OUTPUT.o
set -eu
ld=$1 objcopy=$2 nm=$3 archive=$4 out=$5
undef=$("$nm" --defined-only "$archive" 2>/dev/null |
        awk '$2 == "T" && $3 ~ /^uc_/ { printf "-u %s ", $3 }')
[ -n "$undef" ] || { echo "private-object.sh: no uc_ symbols in $archive" >&2; exit 1; }
# shellcheck disable=SC2086 # one word per -u option
"$ld" -r $undef "$archive" -o "$out.tmp"
"$objcopy" --wildcard --keep-global-symbol='uc_*' "$out.tmp" "$out"
rm -f "$out.tmp"
