#!/usr/bin/env bash
# libseccomp's own source, for the libseccomp-suite test: the tag of the
# installed library, as Debian's archive keeps it (its .orig tarball holds
# the regression tests no binary package ships), checked against the
# checksum below and unpacked into BUILD/libseccomp-src.
#   scripts/libseccomp-src.sh [BUILD]
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
build=${1:-build}
version=$(pkg-config --modversion libseccomp)
case $version in
    2.5.4) sha256=d82902400405cf0068574ef3dc1fe5f5926207543ba1ae6f8e7a1576351dcbdb ;;
    *) echo "libseccomp-src: no checksum known for libseccomp $version (add it here)" >&2
       exit 1 ;;
esac
dest=$build/libseccomp-src
[ -f "$dest/.version" ] && [ "$(cat "$dest/.version")" = "$version" ] && exit 0
url=http://deb.debian.org/debian/pool/main/libs/libseccomp/libseccomp_$version.orig.tar.gz
tarball=$build/libseccomp_$version.orig.tar.gz
mkdir -p "$build"
if ! python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' \
        "$url" "$tarball" 2>/dev/null; then
    echo "libseccomp-src: cannot download $url" >&2
    exit 1
fi
if [ "$(sha256sum "$tarball" | cut -d' ' -f1)" != "$sha256" ]; then
    echo "libseccomp-src: $tarball does not have the expected checksum" >&2
    exit 1
fi
rm -rf "$dest" && mkdir -p "$dest"
tar xzf "$tarball" -C "$dest" --strip-components=1
echo "$version" > "$dest/.version"
