#!/bin/sh
# Help and usage errors everywhere: every command of the help table (the
# list `moku --help` prints) answers --help (and -h where -h is not one of
# its options) and --version on stdout, exit 0, without a daemon; a usage
# error exits 2 with one line and a hint; `canceljob --help` with a daemon
# running cancels nothing.
. tests/integration/lib.sh

MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
mkdir -p "$TMP/bin"
# Nothing answers here: a command that asked a daemon would fail.
export MOKU_HOME="$TMP/nodaemon"

names=$("$MOKU" --help | awk '/^commands/ { f = 1; next } f { sub(/^  /, ""); sub(/  +.*/, ""); print }')
count=$(echo "$names" | grep -c .)
check "moku --help lists the commands ($count)" [ "$count" -ge 27 ]

# The words that run command NAME: moku's subcommands as they are, the
# others through a symlink named after the command (as installed).
cmdline() {
    case $1 in
    moku*) echo "$MOKU ${1#moku}" ;;
    *) ln -sf "$MOKU" "$TMP/bin/$1"; echo "$TMP/bin/$1" ;;
    esac
}
# -h is an option of these (Torque's qsub hold; sethold's hold type).
own_h() { case $1 in sethold | releasehold | qhold | qrls | qsub | msub | "moku submit") return 0 ;; esac; return 1; }

bad=""
badh=""
badv=""
nl='
'
IFS_SAVED=$IFS
IFS=$nl
for name in moku $names; do
    IFS=$IFS_SAVED
    c=$(cmdline "$name")
    $c --help >"$TMP/out" 2>"$TMP/err"
    rc=$?
    head -n 1 "$TMP/out" | grep -q "^usage: $name" && [ $rc -eq 0 ] && [ ! -s "$TMP/err" ] &&
        grep -q '^options:' "$TMP/out" || bad="$bad $name"
    if ! own_h "$name"; then
        $c -h >"$TMP/out2" 2>"$TMP/err"
        [ $? -eq 0 ] && cmp -s "$TMP/out" "$TMP/out2" || badh="$badh $name"
    fi
    $c --version >"$TMP/out" 2>"$TMP/err"
    [ $? -eq 0 ] && grep -qx 'moku [0-9][0-9.]*' "$TMP/out" || badv="$badv $name"
    IFS=$nl
done
IFS=$IFS_SAVED
check "every command answers --help on stdout, exit 0, no daemon${bad:+ (not:$bad)}" [ -z "$bad" ]
check "every command without an -h of its own answers -h the same${badh:+ (not:$badh)}" [ -z "$badh" ]
check "every command answers --version${badv:+ (not:$badv)}" [ -z "$badv" ]
"$MOKU" showq --help | grep -q -- '--home DIR' && "$MOKU" showq --help | grep -q -- '--format'
check "a client command's help has --home and --format" [ $? -eq 0 ]
"$MOKU" help checkjob | head -n 1 | grep -q '^usage: checkjob'
check "moku help COMMAND" [ $? -eq 0 ]
"$TMP/bin/sethold" -h user 1 >"$TMP/out" 2>"$TMP/err"
check "sethold -h is its hold type, not help (asks the daemon)" sh -c "[ $? -eq 1 ] && grep -q 'no answer from the daemon' $TMP/err"

# one_usage_error: exit 2, one line naming the problem and at most a hint.
one_usage_error() {
    [ "$rc" -eq 2 ] || { echo "exit $rc" >&2; return 1; }
    lines=$(wc -l <"$TMP/err")
    [ "$lines" -ge 1 ] && [ "$lines" -le 2 ] || { cat "$TMP/err" >&2; return 1; }
    [ "$lines" -eq 1 ] || sed -n 2p "$TMP/err" | grep -q "^try '.* --help'$"
}
uerr() { "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }
uerr "$MOKU"
check "moku alone: a usage error, one line" one_usage_error
uerr "$MOKU" frobnicate
check "moku frobnicate: a usage error naming it" sh -c "$(one_usage_error && echo true || echo false) && grep -q frobnicate $TMP/err"
uerr "$MOKU" serve --bogus
check "moku serve --bogus: one line" one_usage_error
uerr "$MOKU" serve --log
check "moku serve --log (no value): one line" one_usage_error
uerr "$MOKU" serve --log=paper
check "moku serve --log=paper: one line" one_usage_error
uerr "$MOKU" simulate --bogus x.swf
check "moku simulate --bogus: one line" one_usage_error
uerr "$MOKU" validate --bogus
check "moku validate --bogus: one line" one_usage_error
uerr "$MOKU" web extra
check "moku web extra: one line" one_usage_error
uerr "$TMP/bin/qsub" -Z
check "qsub -Z: one line, before any daemon is asked" one_usage_error
uerr "$TMP/bin/qsub" -N
check "qsub -N (no value): one line" one_usage_error

# With a daemon: the command layer's usage errors come back as exit 2.
H=$TMP/home
mkdir -p "$H" "$TMP/work"
chmod 755 "$TMP" "$H" "$TMP/work"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=1\nLOGLEVEL 2\n' >"$H/maui.cfg"
export MOKU_HOME="$H"
"$MOKU" serve --home "$H" >"$TMP/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; lib_cleanup' EXIT
i=0
while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done

# The message names the option, except for commands whose words are all
# operands (they say their usage instead).
bad=""
for name in $(echo "$names" | grep -v '^moku'); do
    case $name in qsub | msub) continue ;; esac
    c=$(cmdline "$name")
    uerr timeout 10 $c --bogus-option
    case $name in setspri | setqos | mjobctl | changeparam) named=: ;; *) named="grep -q -- --bogus-option $TMP/err" ;; esac
    one_usage_error 2>/dev/null && $named || bad="$bad $name"
done
check "every daemon command: an unknown option is exit 2, one line and a hint${bad:+ (not:$bad)}" [ -z "$bad" ]
bad=""
for w in checkjob canceljob releaseres showstart; do
    uerr timeout 10 "$TMP/bin/$w"
    one_usage_error 2>/dev/null || bad="$bad $w"
done
uerr timeout 10 "$TMP/bin/setres" -d
one_usage_error 2>/dev/null || bad="$bad setres-d"
uerr timeout 10 "$TMP/bin/showq" -r -i
one_usage_error 2>/dev/null || bad="$bad showq-r-i"
uerr timeout 10 "$TMP/bin/showq" --format xml
one_usage_error 2>/dev/null || bad="$bad showq--format"
check "missing operands and values, exclusive options: exit 2${bad:+ (not:$bad)}" [ -z "$bad" ]
uerr timeout 10 "$TMP/bin/checkjob" 424242
check "a run-time error (no such job) stays exit 1, no hint" sh -c "[ $rc -eq 1 ] && ! grep -q 'try ' $TMP/err"

printf '#!/bin/sh\nsleep 30\n' >"$TMP/work/long.sh"
chmod 755 "$TMP/work/long.sh"
j=$(cd "$TMP/work" && timeout 10 "$TMP/bin/qsub" -h long.sh)
check "a held job submitted ($j)" [ -n "$j" ]
asked=$(grep -c ': canceljob' "$H/log/maui.log")
uerr timeout 10 "$TMP/bin/canceljob" --help
check "canceljob --help: its usage, exit 0" sh -c "[ $rc -eq 0 ] && grep -q '^usage: canceljob' $TMP/out"
uerr timeout 10 "$TMP/bin/canceljob" -h "$j"
check "canceljob -h JOB: help, not a cancel" sh -c "[ $rc -eq 0 ] && grep -q '^usage: canceljob' $TMP/out"
check "... the daemon never saw them" [ "$(grep -c ': canceljob' "$H/log/maui.log")" = "$asked" ]
uerr timeout 10 "$TMP/bin/canceljob" "$j" --bogus
check "canceljob JOB --bogus: a usage error" one_usage_error
st=$(timeout 10 "$TMP/bin/checkjob" "$j" | sed -n 's/^State: //p')
check "... the job is still there ($st)" sh -c "[ -n '$st' ] && [ '$st' != Removed ]"
timeout 10 "$TMP/bin/canceljob" "$j" >/dev/null 2>&1
st=$(timeout 10 "$TMP/bin/checkjob" "$j" | sed -n 's/^State: //p')
check "canceljob JOB still cancels ($st)" [ "$st" = Removed ]

# moku serve --log journal: the log's lines on standard error with their
# priorities, no maui.log; and the READY=1 a service manager waits for.
H2=$TMP/home2
mkdir -p "$H2"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=1\n' >"$H2/maui.cfg"
if command -v python3 >/dev/null 2>&1; then
    # A stand-in for systemd's notification socket: prints what it gets.
    python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(20)
open(sys.argv[1] + ".up", "w").close()
try:
    while True:
        m = s.recv(4096).decode()
        print(m.replace("\n", " "), flush=True)
        if "READY=1" in m:
            break
except socket.timeout:
    pass
' "$TMP/notify" >"$TMP/notified" 2>&1 &
    npid=$!
    i=0
    while [ $i -lt 50 ] && [ ! -e "$TMP/notify.up" ]; do sleep 0.1; i=$((i + 1)); done
fi
NOTIFY_SOCKET=$TMP/notify "$MOKU" serve --home "$H2" --log journal >"$TMP/journal.log" 2>&1 &
jpid=$!
i=0
while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq --home "$H2" >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
check "--log journal: the lines on stderr with a priority" grep -q '^<5>moku serving' "$TMP/journal.log"
check "... and no maui.log" sh -c "[ ! -e '$H2/log/maui.log' ] && [ ! -e '$H2/maui.log' ]"
if [ -n "$npid" ]; then
    wait "$npid"
    check "READY=1 on NOTIFY_SOCKET once serving (sd_notify)" grep -q "READY=1 MAINPID=$jpid" "$TMP/notified"
else
    skip "python3 absent: READY=1 on NOTIFY_SOCKET not checked"
fi
kill "$jpid" 2>/dev/null
wait "$jpid" 2>/dev/null
done_checks
