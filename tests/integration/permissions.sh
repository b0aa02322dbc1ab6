#!/bin/sh
# The permission matrix (issue 14 item 7), data-driven: every cell of
# tests/data/perm/matrix run through the real daemon by a real user —
# alice (a job's owner), bob (another ordinary user), carol (ADMIN3), dave
# (ADMIN2) and root (ADMIN1) — and checked: "deny" must answer "not
# authorized", "allow" must not. Needs root (useradd, runuser); skipped
# otherwise.
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1; then
    skip "the permission matrix needs root, useradd and runuser"
    done_checks
    exit 0
fi
MATRIX=${MATRIX:-tests/data/perm/matrix}
MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
for u in mokualice mokubob mokucarol mokudave; do
    add_user "$u"
done
H=$TMP/home
mkdir -p "$H" "$TMP/work"
chmod 755 "$TMP" "$H"
chmod 777 "$TMP/work"
cp "$MOKU" "$TMP/moku" && chmod 755 "$TMP/moku"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=64\nADMIN3 mokucarol\nADMIN2 mokudave\n' >"$H/maui.cfg"
"$MOKU" serve --home "$H" >"$TMP/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; lib_cleanup' EXIT
export MOKU_HOME="$H"
i=0
while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done

# as ROLE COMMAND...: run the client as the role's user.
as() {
    role=$1
    shift
    case $role in
    owner) u=mokualice ;;
    other) u=mokubob ;;
    admin3) u=mokucarol ;;
    admin2) u=mokudave ;;
    admin1) u=root ;;
    esac
    (cd "$TMP/work" && runuser -u "$u" -- env MOKU_HOME="$H" timeout 10 "$TMP/moku" "$@")
}

roles="owner other admin3 admin2 admin1"
k=0
while read -r line; do
    case $line in '#'* | '') continue ;; esac
    # The command is everything before the five verdicts.
    set -- $line
    nw=$#
    cmdw=$((nw - 5))
    words=$(echo "$line" | awk -v n="$cmdw" '{ s = $1; for (i = 2; i <= n; i++) s = s " " $i; print s }')
    verdicts=$(echo "$line" | awk -v n="$cmdw" '{ s = ""; for (i = n + 1; i <= NF; i++) s = s " " $i; print s }')
    r=0
    for role in $roles; do
        r=$((r + 1))
        want=$(echo $verdicts | cut -d' ' -f$r)
        k=$((k + 1))
        # A fresh job and reservation for the cell, when its command names them.
        J="" R=""
        case $words in *'$J'*) J=$(printf 'sleep 300\n' | as owner submit -h -l walltime=1:00:00) ;; esac
        case $words in *'$R'*) R=$(timeout 5 "$MOKU" setres -n perm$k -s +10:00:00 -d 1:00:00 n1 |
            sed -n "s/^reservation '\([^']*\)' created.*/\1/p") ;; esac
        cmd=$(echo "$words" | sed "s/\$J/$J/g; s/\$R/$R/g")
        # shellcheck disable=SC2086
        as "$role" $cmd >"$TMP/out" 2>&1
        if grep -q 'not authorized\|Unauthorized Request' "$TMP/out"; then got=deny; else got=allow; fi
        if [ "$got" = "$want" ]; then
            ok "$words as $role: $want"
        else
            fail "$words as $role: $want, but $got ($(head -c 200 "$TMP/out" | tr '\n' ' '))"
        fi
        timeout 5 "$MOKU" schedctl -r >/dev/null 2>&1
    done
done <"$MATRIX"
check "the matrix had its cells ($k)" [ "$k" -ge 100 ]

# Who a client is (its names, its ADMIN level) is kept PEER_CACHE_SECONDS
# (2 s; issue 31: the user and group files were read at every request): bob
# added to the group of the ADMIN3 list's mokucarol becomes ADMIN3 within
# that time, and stops being one when taken out.
bob_admin3() { as other showq -r >"$TMP/out" 2>&1 && ! grep -q 'not authorized' "$TMP/out"; }
bob_plain() { as other showq -r >"$TMP/out" 2>&1; grep -q 'not authorized' "$TMP/out"; }
if getent group mokucarol >/dev/null && command -v gpasswd >/dev/null 2>&1; then
    check "bob is no ADMIN3 to start with" bob_plain
    gpasswd -a mokubob mokucarol >/dev/null
    check "bob added to group mokucarol (ADMIN3 mokucarol): ADMIN3 within seconds" wait_for 4 bob_admin3
    gpasswd -d mokubob mokucarol >/dev/null
    check "... taken out: no longer, within seconds" wait_for 4 bob_plain
else
    fail "no group mokucarol (useradd made no user group) or no gpasswd"
fi

# changeparam of a parameter that names a program or a file the daemon uses
# as itself: an ADMIN1 who is not root (carol, made ADMIN1 here) may change
# weights but not MAILPROGRAM, which the daemon runs as root (found by a
# review); root may.
timeout 5 "$MOKU" changeparam ADMIN1 mokucarol >/dev/null
as admin3 changeparam QUEUETIMEWEIGHT 2 >"$TMP/out" 2>&1
check "a non-root ADMIN1 changes a weight" grep -q 'reloaded' "$TMP/out"
as admin3 changeparam MAILPROGRAM /tmp/mine >"$TMP/out" 2>&1
check "... but not MAILPROGRAM: not authorized" grep -q 'not authorized to change MAILPROGRAM' "$TMP/out"
check "... and maui.cfg does not have it" sh -c "! grep -q '^MAILPROGRAM' '$H/maui.cfg'"
as admin3 changeparam LOGDIR /tmp >"$TMP/out" 2>&1
check "... nor LOGDIR" grep -q 'not authorized to change LOGDIR' "$TMP/out"
# ... nor where the daemon listens (issue 28: a non-root ADMIN1 set
# WEBADDRESS 0.0.0.0; a WEBPORT another service holds would keep the
# daemon from its next start).
as admin3 changeparam WEBADDRESS 0.0.0.0 >"$TMP/out" 2>&1
check "... nor WEBADDRESS" grep -q 'not authorized to change WEBADDRESS' "$TMP/out"
as admin3 changeparam WEBPORT 22 >"$TMP/out" 2>&1
check "... nor WEBPORT" sh -c "grep -q 'not authorized to change WEBPORT' '$TMP/out' && ! grep -q '^WEB' '$H/maui.cfg'"
timeout 5 "$MOKU" changeparam MAILPROGRAM /usr/sbin/sendmail >"$TMP/out" 2>&1
check "root may change MAILPROGRAM" grep -q 'reloaded' "$TMP/out"
done_checks
