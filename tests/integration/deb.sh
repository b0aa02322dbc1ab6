#!/bin/sh
# make deb as a Debian administrator gets it: lintian finds no error or
# warning; the package depends on no Slurm (libslurm, the web view's and
# systemd's libraries are Recommends: moku loads them when used) and its
# binary replays a trace and serves the local resource manager with
# libslurm absent, saying what to install when RMCFG TYPE=SLURM asks for
# it; Conflicts with the packages that ship the same Torque command names;
# a DEP-5 copyright, a changelog, the man pages compressed (maui.cfg(5),
# moku(8) a link to moku-serve(8)), docs and examples; the maintainer
# scripts make the service user and the daemon's home and purge removes
# the home (run for real, /var/spool a private tmpfs; the user removed
# after). As root, under flock /tmp/moku-users.lock: it makes the user moku
# (postinst's adduser; tests/run.sh keeps it in lane a, as a useradd test).
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v lintian >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1; then
    fail "deb: needs root, lintian and unshare (scripts/deps.sh installs lintian)"
    done_checks
    exit 0
fi
# A build of its own, from a copy of the project's objects (as install.sh).
B=$TMP/build
if [ -d build/src ]; then
    mkdir -p "$B" && cp -a build/src build/libmoku.a "$B"/ && rm -f "$B"/src/cli/*.o "$B"/src/cli/*.d
fi
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u OPT -u LTO make --no-print-directory BUILD="$B" BIN="$B/moku" deb >"$TMP/make.log" 2>&1
check "make deb" [ $? -eq 0 ]
deb=$(ls "$B"/moku_*.deb 2>/dev/null | head -n 1)
[ -f "$deb" ] || { tail -n 20 "$TMP/make.log"; done_checks; exit 0; }

dpkg-deb -f "$deb" Depends >"$TMP/depends"
dpkg-deb -f "$deb" Recommends >"$TMP/recommends"
dpkg-deb -f "$deb" Conflicts >"$TMP/conflicts"
check "Depends: no Slurm, no libmicrohttpd ($(cat "$TMP/depends"))" \
    sh -c "! grep -Eq 'slurm|microhttpd' '$TMP/depends' && grep -q adduser '$TMP/depends'"
check "Recommends: libslurm38, libmicrohttpd12 ($(cat "$TMP/recommends"))" \
    sh -c "grep -q libslurm38 '$TMP/recommends' && grep -q libmicrohttpd12 '$TMP/recommends'"
bad=""
for p in torque-client slurm-wlm-torque gridengine-client; do
    grep -q "$p" "$TMP/conflicts" || bad="$bad $p"
done
check "Conflicts with the packages that ship qsub, qstat, ...${bad:+ (not:$bad)}" [ -z "$bad" ]

X=$TMP/x
dpkg-deb -x "$deb" "$X"
dpkg-deb -e "$deb" "$X/DEBIAN"
bad=""
for f in usr/bin/moku usr/share/man/man5/maui.cfg.5.gz usr/share/man/man8/moku-serve.8.gz \
    usr/share/man/man1/qsub.1.gz usr/share/doc/moku/copyright usr/share/doc/moku/changelog.gz \
    usr/share/doc/moku/examples/maui.cfg.local usr/share/doc/moku/examples/maui.cfg.slurm \
    lib/systemd/system/moku.service DEBIAN/postinst DEBIAN/prerm DEBIAN/postrm DEBIAN/md5sums; do
    [ -e "$X/$f" ] || bad="$bad $f"
done
[ "$(readlink "$X/usr/bin/qsub")" = moku ] || bad="$bad qsub-link"
[ "$(readlink "$X/usr/share/man/man8/moku.8.gz")" = moku-serve.8.gz ] || bad="$bad moku.8.gz-link"
[ -e "$X/var" ] && bad="$bad var(shipped)"
check "its files: binary, links, man pages (compressed), docs, unit, maintainer scripts${bad:+ (not:$bad)}" [ -z "$bad" ]
check "the copyright file is machine-readable (DEP-5)" \
    sh -c "head -n 1 '$X/usr/share/doc/moku/copyright' | grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' && grep -q '^License: ' '$X/usr/share/doc/moku/copyright'"
bad=""
for s in postinst prerm postrm; do sh -n "$X/DEBIAN/$s" || bad="$bad $s"; done
check "the maintainer scripts parse${bad:+ (not:$bad)}" [ -z "$bad" ]

# lintian: no error, no warning. Its information tags are printed here.
lintian -I --pedantic --fail-on error,warning "$deb" >"$TMP/lintian" 2>&1
check "lintian: no error or warning" [ $? -eq 0 ]
cat "$TMP/lintian"

# Without libslurm: a private mount namespace where its file is empty.
lib=$(readlink -f "$(gcc -print-file-name=libslurm.so.38)")
printf '1 0 0 60 1 -1 -1 1 120 -1 1 1 1 1 1 -1 -1 -1\n' >"$TMP/one.swf"
mkdir -p "$TMP/sh"
printf 'RMCFG[s] TYPE=SLURM CONFIGFILE=%s\n' "$TMP/one.swf" >"$TMP/sh/maui.cfg"
if [ -f "$lib" ]; then
    unshare -m sh -c "mount --bind /dev/null '$lib' &&
        '$X/usr/bin/moku' simulate --procs 2 '$TMP/one.swf' >'$TMP/sim' 2>&1; echo \$? >'$TMP/sim.rc';
        timeout 20 '$X/usr/bin/moku' serve --home '$TMP/sh' >'$TMP/serve' 2>&1; echo \$? >'$TMP/serve.rc'"
    check "libslurm absent: the packaged moku replays a trace" sh -c "[ \"\$(cat '$TMP/sim.rc')\" = 0 ] && grep -q 'moku simulate' '$TMP/sim'"
    check "... and RMCFG TYPE=SLURM says what to install" \
        sh -c "[ \"\$(cat '$TMP/serve.rc')\" = 1 ] && grep -q 'needs libslurm.so.38 (Debian.s libslurm38 package)' '$TMP/serve'"
    cat "$TMP/serve"
else
    fail "libslurm.so.38 is not installed here (scripts/deps.sh installs libslurm-dev)"
fi

# The maintainer scripts, run: /var/spool a private tmpfs; the user moku
# is real and removed after.
if id moku >/dev/null 2>&1; then
    fail "a user moku exists already: the postinst cannot be tried"
    done_checks
    exit 0
fi
made_user moku
unshare -m sh -c "mount -t tmpfs tmpfs /var/spool &&
    sh '$X/DEBIAN/postinst' configure >'$TMP/postinst' 2>&1; echo \$? >'$TMP/postinst.rc';
    stat -c '%U:%G %a' /var/spool/moku >'$TMP/stat' 2>&1;
    sh '$X/DEBIAN/postinst' configure 0.1.0 >>'$TMP/postinst' 2>&1; echo \$? >>'$TMP/postinst.rc';
    sh '$X/DEBIAN/prerm' remove && sh '$X/DEBIAN/postrm' remove && [ -d /var/spool/moku ] && echo kept >'$TMP/removed';
    sh '$X/DEBIAN/postrm' purge; [ -e /var/spool/moku ] || echo gone >'$TMP/purged'"
check "postinst configure (twice): exit 0" [ "$(cat "$TMP/postinst.rc" | tr '\n' ' ')" = "0 0 " ]
cat "$TMP/postinst"
check "... the service user moku, a system user without a login" \
    sh -c "id -u moku >/dev/null 2>&1 && [ \$(id -u moku) -lt 1000 ] && getent passwd moku | grep -q ':/var/spool/moku:/usr/sbin/nologin\$'"
check "... the daemon's home /var/spool/moku, moku's, 755 ($(cat "$TMP/stat"))" [ "$(cat "$TMP/stat")" = "moku:moku 755" ]
check "remove keeps the home" [ -f "$TMP/removed" ]
check "purge removes it" [ -f "$TMP/purged" ]
done_checks
