#!/bin/sh
# make deb: a Debian package from a `make install DESTDIR=ROOT PREFIX=/usr`.
#   mkdeb.sh ROOT BIN OUTDIR
# Depends: the packages that hold the libraries BIN links (objdump NEEDED,
# found with dpkg -S), and the two it loads when needed (dlopen: the web
# view's libmicrohttpd, libsystemd's sd_notify). The version is MOKU_VERSION
# (src/cli/help.h).
set -e
root=$1 bin=$2 out=$3
version=$(sed -n 's/^#define MOKU_VERSION "\(.*\)"/\1/p' src/cli/help.h)
arch=$(dpkg --print-architecture)
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
deps=""
for lib in $(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }') libmicrohttpd.so.12 libsystemd.so.0; do
    # This architecture's library, not a multilib copy (libc6-i386).
    pkg=$(dpkg -S "*/$multiarch/$lib" 2>/dev/null | grep -v -- '-dev' | head -n 1 | cut -d: -f1)
    [ -n "$pkg" ] && case " $deps " in *" $pkg,"* | *" $pkg "*) ;; *) deps="${deps:+$deps, }$pkg" ;; esac
done
mkdir -p "$root/DEBIAN"
size=$(du -sk "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CTL
Package: moku
Version: $version
Architecture: $arch
Maintainer: moku developers <moku@localhost>
Installed-Size: $size
Depends: $deps
Section: admin
Priority: optional
Description: Maui-compatible batch scheduler and workload simulator
 moku reads Maui's maui.cfg and answers Maui's commands (showq, checkjob,
 ...); moku serve runs it as a batch system (systemd unit moku.service),
 moku simulate replays workload traces.
CTL
dpkg-deb --root-owner-group --build "$root" "$out/moku_${version}_$arch.deb"
