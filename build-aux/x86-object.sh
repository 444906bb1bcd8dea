#!/bin/sh
# Turns the static archive of Unicorn or Capstone into one relocatable
# object that holds only the x86 target and exports only the library's API
# (uc_* or cs_*), for a static link into seccomp-emu.  Unicorn's archive is
# our own build of subprojects/unicorn, which has the x86 target only
# already: for it the script only makes the one object with the API
# visible.  Capstone's is the host's, with every target.
#
# Why x86 only: both archives hold every target they support, and both
# reach each target from their core through a few names per target
# (Unicorn's uc.c: uc_init_ARCH, reg_read_ARCH, reg_write_ARCH; Capstone's
# cs.c: ARCH_global_init, ARCH_option), so an ordinary link pulls in all of
# them: Unicorn 14.4 MB of text and 61,000 absolute pointers, Capstone 3.0 MB
# and 77,000.  In a PIE each pointer is a relocation and each page holding
# one is written at every start; a one-line job spent most of its start-up
# there (README, Performance).  Those names get stubs that abort, since
# seccomp-emu opens only x86, and the other targets' own entry points are
# not asked for; what is left is Unicorn 0.9 MB / 3,500 pointers and
# Capstone 1.3 MB / 2,000.
#
# Why only the API visible (Unicorn): libunicorn.a carries its own copies of
# glib functions (g_malloc, g_array_*, g_hash_table_*, ...) as global
# symbols, which would otherwise bind seccomp-emu's glib calls to Unicorn's
# partial copies and mix two implementations of one structure.
#
# If an archive does not have the shape this expects (another release), the
# object keeps every target, with a warning, rather than failing the build.
#
# usage: CC='cc ...' x86-object.sh unicorn|capstone LD OBJCOPY NM ARCHIVE OUTPUT.o
set -eu
lib=$1 ld=$2 objcopy=$3 nm=$4 archive=$5 out=$6
: "${CC:?x86-object.sh: CC must name the C compiler}"

defined=$("$nm" --defined-only "$archive" 2>/dev/null | awk '$2 == "T" { print $3 }' | sort -u)
has() { printf '%s\n' "$defined" | grep -qx "$1"; }

# Per library: the API prefix, the other targets' names (from the symbol
# that every target has once), and the stubs those names need.
case $lib in
unicorn)
    api=uc_ x86_init=uc_init_x86_64
    others=$(printf '%s\n' "$defined" | sed -n 's/^uc_init_//p' | grep -vx x86_64 || true)
    has uc_init_x86_64 || others=""
    stub_names() { for a in $others; do echo "uc_init_$a reg_read_$a reg_write_$a"; done; }
    ;;
capstone)
    api=cs_ x86_init=X86_global_init
    others=$(printf '%s\n' "$defined" | sed -n 's/_global_init$//p' | grep -vx X86 || true)
    has X86_global_init || others=""
    stub_names() { for a in $others; do echo "${a}_global_init ${a}_option"; done; }
    ;;
*)
    echo "x86-object.sh: unknown library '$lib'" >&2; exit 2 ;;
esac
entries=$(printf '%s\n' "$defined" | grep "^$api" || true)
[ -n "$entries" ] || { echo "x86-object.sh: no $api symbols in $archive" >&2; exit 1; }

link() {  # link ENTRY... [-- OBJECT]: the members those entry points need
    us=""
    while [ $# -gt 0 ] && [ "$1" != -- ]; do us="$us -u $1"; shift; done
    [ $# -gt 0 ] && shift
    # shellcheck disable=SC2086 # one word per option
    "$ld" -r $us "$@" "$archive" -o "$out.tmp"
}

x86_only() {
    [ -n "$others" ] || return 1
    stubs=$(stub_names)
    for s in $stubs; do has "$s" || return 1; done
    {
        cat <<'EOF'
#include <stdio.h>
#include <stdlib.h>
/* noinline: tests/link/x86_only.sh looks for this name (clang inlines it) */
__attribute__((noinline, noreturn)) static void only_x86(void)
{
    fputs("seccomp-emu: this library was linked with its x86 target only\n", stderr);
    abort();
}
EOF
        for s in $stubs; do printf 'void %s(void); void %s(void) { only_x86(); }\n' "$s" "$s"; done
    } > "$out.stubs.c"
    # shellcheck disable=SC2086 # CC may carry its own arguments
    $CC -O2 -fPIC -c "$out.stubs.c" -o "$out.stubs.o" || return 1
    alt=$(printf '%s\n' "$others" | paste -sd '|' -)
    # shellcheck disable=SC2046 # one word per entry point
    link $(printf '%s\n' "$entries" | grep -Ev "_($alt)\$") -- "$out.stubs.o" || return 1
    # A global symbol of another target beyond the stubs means some member
    # still reaches that target, and the saving above is not what it claims.
    # Global only: file-local names of the host's code generator look like a
    # target's (tcg_cond_to_aarch64 on an arm64 host) and are no such thing;
    # a target's members always define global ones.
    # shellcheck disable=SC2086 # one stub name per line
    stray=$("$nm" --defined-only "$out.tmp" | awk '$2 ~ /^[A-Z]$/ { print $3 }' | grep -E "^($alt)_|_($alt)\$" |
            grep -vxF "$(printf '%s\n' $stubs)" | head -n 3 | paste -sd ' ' - || true)
    [ -z "$stray" ] || { echo "x86-object.sh: $lib: other targets still linked ($stray)" >&2; return 1; }
}

if [ -z "$others" ] && has "$x86_init"; then
    # shellcheck disable=SC2086 # one word per entry point
    link $entries   # built with its x86 target only: nothing to leave out
elif ! x86_only; then
    echo "x86-object.sh: warning: $lib keeps all of its targets (the x86-only selection failed)" >&2
    # shellcheck disable=SC2086 # one word per entry point
    link $entries
fi
rm -f "$out.stubs.c" "$out.stubs.o"
"$objcopy" --wildcard --keep-global-symbol="$api*" "$out.tmp" "$out"
rm -f "$out.tmp"
