# What the grid's test pools (scripts/grid-pool.sh, scripts/grid-net.sh)
# share: the trixie chroot with HTCondor they run in, built once with
# debootstrap (about 4 minutes) and cached as a tarball under GRID_CACHE,
# keyed by GRID_ROOT_KEY; and wait_for.  Sourced; the caller defines say,
# fail and the MOUNTS array its tear-down undoes.
#
# HTCondor is packaged in Debian trixie, not bookworm, and installing it on
# bookworm would pull a newer libc, Python and systemd into the host: the
# pools live in the chroot and the host's packages stay as they are.

GRID_CACHE=${GRID_CACHE:-/var/tmp/seccomp-emu-grid}
# Bump when the package list below changes: a new tarball is built.
GRID_ROOT_KEY=trixie-condor-1
GRID_MIRROR=${GRID_MIRROR:-http://deb.debian.org/debian}
GRID_PACKAGES="condor minicondor python3"
GRID_USER=gridder
if command -v zstd >/dev/null; then   # 3x faster to unpack than gzip here
    GRID_TARBALL=$GRID_CACHE/$GRID_ROOT_KEY.tar.zst GRID_TAR_COMPRESS=(--use-compress-program="zstd -T0 -3")
else
    GRID_TARBALL=$GRID_CACHE/$GRID_ROOT_KEY.tar.gz GRID_TAR_COMPRESS=(--gzip)
fi

# grid_root_build DIR: a fresh trixie with HTCondor in DIR, cached as
# $GRID_TARBALL.
grid_root_build() {
    local root=$1
    command -v debootstrap >/dev/null || {
        say "installing debootstrap (host tool to build the chroot)"
        DEBIAN_FRONTEND=noninteractive quiet apt-get install -y -q debootstrap
    }
    mkdir -p "$GRID_CACHE"
    say "building the trixie chroot (once; cached afterwards as $GRID_TARBALL)"
    nice -n 10 debootstrap --variant=minbase trixie "$root" "$GRID_MIRROR" >"$GRID_CACHE/debootstrap.log" 2>&1 \
        || fail "debootstrap failed: see $GRID_CACHE/debootstrap.log"
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"   # no services started in the chroot
    chmod +x "$root/usr/sbin/policy-rc.d"
    mount -t proc proc "$root/proc"; MOUNTS+=("$root/proc")
    DEBIAN_FRONTEND=noninteractive nice -n 10 chroot "$root" sh -c \
        "apt-get update -q && apt-get install -y -q --no-install-recommends $GRID_PACKAGES && apt-get clean" \
        >"$GRID_CACHE/apt.log" 2>&1 || fail "installing $GRID_PACKAGES in the chroot failed: see $GRID_CACHE/apt.log"
    umount "$root/proc"; unset 'MOUNTS[-1]'
    chroot "$root" useradd -m -s /bin/sh "$GRID_USER"
    # Written aside and renamed: an interrupted run leaves no half tarball.
    tar -C "$root" "${GRID_TAR_COMPRESS[@]}" -cf "$GRID_TARBALL.part.$$" . && mv "$GRID_TARBALL.part.$$" "$GRID_TARBALL"
}

# grid_root_unpack DIR: the cached chroot unpacked into DIR (built first
# if there is no tarball yet).
grid_root_unpack() {
    if [ -f "$GRID_TARBALL" ]; then
        tar -C "$1" "${GRID_TAR_COMPRESS[@]}" -xf "$GRID_TARBALL"
    else
        grid_root_build "$1"
    fi
}

wait_for() {  # seconds, description, command...: until the command succeeds, or fail
    local t=$1 what=$2; shift 2
    for _ in $(seq 1 "$t"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
    fail "$what within $t s"
}
