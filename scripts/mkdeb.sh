#!/bin/sh
# make deb: a Debian package from a `make install DESTDIR=ROOT PREFIX=/usr
# UNITDIR=/lib/systemd/system`.
#   mkdeb.sh ROOT BIN OUTDIR [SLURM_SONAME]
# Depends: the packages of the libraries BIN links (objdump NEEDED, found
# with dpkg -S), and adduser for the maintainer scripts (packaging/deb;
# deb-systemd-invoke is essential's init-system-helpers). Recommends: the libraries moku loads only when
# a part of it is used (dlopen): libslurm for RMCFG TYPE=SLURM, the web
# view's libmicrohttpd, libsystemd's sd_notify; a simulator-only install
# needs none of them. Conflicts: the packages whose qsub, qstat, qdel, ...
# would be the same files. The version is MOKU_VERSION (src/cli/help.h);
# the date of the changelog SOURCE_DATE_EPOCH's, else the last commit's.
# lintian is clean on the result (tests/integration/deb.sh).
set -e
root=$1 bin=$2 out=$3 slurm_soname=${4:-libslurm.so.38}
version=$(sed -n 's/^#define MOKU_VERSION "\(.*\)"/\1/p' src/cli/help.h)
arch=$(dpkg --print-architecture)
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
maintainer=${MOKU_MAINTAINER:-"moku maintainers <maintainers@users.noreply.a-seed-6a0e80f8.example>"}
doc=$root/usr/share/doc/moku

# The packages holding these libraries, comma-separated.
packages_of() {
    list=""
    for lib in "$@"; do
        # This architecture's library, not a multilib copy (libc6-i386).
        pkg=$(dpkg -S "*/$multiarch/$lib" 2>/dev/null | grep -v -- '-dev' | head -n 1 | cut -d: -f1)
        [ -n "$pkg" ] || { echo "mkdeb: no package holds $lib" >&2; exit 1; }
        case ", $list," in *", $pkg,"*) ;; *) list="${list:+$list, }$pkg" ;; esac
    done
    echo "$list"
}
depends="$(packages_of $(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }')), adduser"
recommends=$(packages_of "$slurm_soname" libmicrohttpd.so.12 libsystemd.so.0)
case "$depends" in *slurm*) echo "mkdeb: $bin links libslurm: it must load it (src/rm/slurm_dl.c)" >&2; exit 1 ;; esac

# The daemon's home is made by postinst (and removed on purge), not shipped.
rmdir "$root/var/spool/moku" "$root/var/spool" "$root/var" 2>/dev/null || true
# Debian ships binaries stripped (the debug information is a -dbgsym's).
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/moku"
# Man pages compressed, their links following.
for l in $(find "$root/usr/share/man" -type l); do
    t=$(readlink "$l")
    rm "$l"
    ln -s "$t.gz" "$l.gz"
done
find "$root/usr/share/man" -type f -exec gzip -9n {} +
# The copyright and the changelog; documents over 4 kB compressed, as
# Debian's policy asks (not the examples, which are copied as they are).
install -m 0644 packaging/deb/copyright "$doc/copyright"
date=$(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")
printf 'moku (%s) unstable; urgency=medium\n\n  * Built from the moku sources (make deb).\n\n -- %s  %s\n' \
    "$version" "$maintainer" "$date" | gzip -9n >"$doc/changelog.gz"
find "$doc" -maxdepth 1 -type f -size +4k -name '*.md' -exec gzip -9n {} +
chmod 0644 "$doc/changelog.gz"

# The lintian tags that are justified (each with its reason in the file).
install -D -m 0644 packaging/deb/lintian-overrides "$root/usr/share/lintian/overrides/moku"

mkdir -p "$root/DEBIAN"
for s in postinst prerm postrm; do
    install -m 0755 "packaging/deb/$s" "$root/DEBIAN/$s"
done
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CTL
Package: moku
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Recommends: $recommends
Conflicts: gridengine-client, slurm-wlm-torque, torque-client, torque-client-x11
Section: admin
Priority: optional
Description: Maui-compatible batch scheduler and workload simulator
 moku reads Maui's maui.cfg and answers Maui's commands (showq, checkjob,
 diagnose, ...) and Torque's (qsub, qstat, qdel, pbsnodes, ...); moku serve
 runs it as a batch system on this machine or as the scheduler of a Slurm
 cluster (systemd unit moku.service), moku simulate replays workload traces
 under a configuration.
 .
 It installs Torque's command names, so it conflicts with the packages that
 install the same ones (Slurm's Torque wrappers, Grid Engine's client).
 libslurm is needed only for a Slurm cluster, libmicrohttpd only for the
 web view.
CTL
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort |
    xargs md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out/moku_${version}_$arch.deb"
