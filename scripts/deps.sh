#!/bin/sh
# Installs what moku needs to build and test on Debian 12: a C compiler, make,
# zlib (gzip-compressed traces), jansson (JSON), SQLite (the daemon's state),
# procps (ps, which the daemon's tests use to watch job processes) and tzdata
# (time zones: standing reservations follow a trace's or the daemon's local time),
# and clang with its libFuzzer runtime (make fuzz; make check needs only gcc).
# Does nothing when everything is there.
# Runs apt-get as root, or through sudo when that is available.
set -e
need=""
for pkg in gcc make libc6-dev zlib1g-dev libjansson-dev libsqlite3-dev gzip procps tzdata clang; do
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
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need >&2
