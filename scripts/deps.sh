#!/bin/sh
# Installs what moku needs to build and test on Debian 12: a C compiler, make,
# zlib (gzip-compressed traces), jansson (JSON), SQLite (the daemon's state),
# procps (ps, which the daemon's tests use to watch job processes), iproute2
# (ss: a test waits for a listening socket's queue to fill) and tzdata
# (time zones: standing reservations follow a trace's or the daemon's local time),
# clang with its libFuzzer runtime (make fuzz; make check needs only gcc), and
# Slurm: libslurm-dev (moku drives Slurm through it: RMCFG TYPE=SLURM), and
# slurmctld, slurmd, slurm-client and munge for the tests, which start a
# private Slurm cluster of their own (tests/slurm/cluster.sh); libmicrohttpd
# (the daemon's web view; loaded when it starts), and for the web view's tests python3 with Selenium, Chromium
# and its driver (a real headless browser) and a font to draw text with;
# systemd (systemd-analyze checks the unit; no systemd needs to run) and
# groff and man-db (the man pages are rendered in the tests: groff -ww, man -l),
# lintian (make deb's package is checked by it: tests/integration/deb.sh),
# clang-format (the sources keep .clang-format's layout: tests/integration/format.sh),
# strace (its fault injection puts a signal or a failed rename where the
# streamed run's temporaries are made and renamed: tests/integration/stream.sh).
# The packages' own services are not started: policy-rc.d refuses them while
# installing.
# Does nothing when everything is there.
# Runs apt-get as root, or through sudo when that is available.
set -e
need=""
for pkg in gcc make libc6-dev zlib1g-dev libjansson-dev libsqlite3-dev gzip procps iproute2 tzdata clang \
    libslurm-dev slurmctld slurmd slurm-client munge libmicrohttpd-dev python3 python3-selenium \
    chromium chromium-driver fonts-dejavu-core systemd groff-base man-db lintian clang-format strace; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
        need="$need $pkg"
done
[ -z "$need" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "deps.sh: need root (or sudo) to install:$need" >&2
    exit 1
fi
echo "deps.sh: installing$need" >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
# No service starts while installing (the tests run their own daemons; a
# system slurmctld would find no slurm.conf and fail). An existing
# policy-rc.d is left as it is.
rc_policy=/usr/sbin/policy-rc.d
own_policy=""
if [ ! -e "$rc_policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$rc_policy" >/dev/null
    $sudo chmod 755 "$rc_policy"
    own_policy=1
fi
rc=0
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need >&2 || rc=$?
[ -n "$own_policy" ] && $sudo rm -f "$rc_policy"
exit $rc
