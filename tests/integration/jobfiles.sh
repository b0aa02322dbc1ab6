#!/bin/sh
# A job's files cannot be aimed by another local user (issue 28, item 2):
# in a shared sticky directory, with the kernel's fs.protected_symlinks and
# fs.protected_regular turned off for the test (as on many hosts; restored
# after), a planted symbolic link and a planted 0666 file are left as they
# were (not written, not truncated, and the planter reads nothing of the
# victim's), a planted error file fails the job with a clear reason, and
# planted working directories (a link, a directory) are not entered; the
# victim is told why (checkjob, the job's error file). The victim's own
# files still work, Torque's -o DIR included. Real users (useradd), a real
# daemon running as root. Run under flock /tmp/moku-users.lock (fixed user
# names).
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1 ||
    ! command -v sysctl >/dev/null 2>&1; then
    echo "not ok 1 - jobfiles.sh needs root, useradd, runuser and sysctl (scripts/deps.sh)"
    done_checks
    exit 0
fi
MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
H=$TMP/home
S=$TMP/shared
V=$TMP/victim
E=$TMP/evil
vic=mokujfv
evil=mokujfe
mkdir -p "$H" "$S" "$V" "$E"
chmod 755 "$TMP" "$H"
chmod 1777 "$S"
pid=""
sym0=$(sysctl -n fs.protected_symlinks)
reg0=$(sysctl -n fs.protected_regular)
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    sysctl -q -w fs.protected_symlinks="$sym0" fs.protected_regular="$reg0" >/dev/null
    userdel "$vic" 2>/dev/null
    userdel "$evil" 2>/dev/null
    lib_cleanup
}
trap cleanup EXIT
for u in "$vic" "$evil"; do add_user "$u"; done
chown "$vic" "$V" && chmod 700 "$V"
chown "$evil" "$E" && chmod 755 "$E"
sysctl -q -w fs.protected_symlinks=0 fs.protected_regular=0 >/dev/null
check "the kernel's protections are off for the test" \
    [ "$(sysctl -n fs.protected_symlinks)$(sysctl -n fs.protected_regular)" = 00 ]

printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nLOGLEVEL 1\n' >"$H/maui.cfg"
export MOKU_HOME="$H"
cp "$MOKU" "$TMP/moku-client" && chmod 755 "$TMP/moku-client"
"$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
pid=$!
i=0
while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do
    sleep 0.1
    i=$((i + 1))
done

as() {
    u=$1
    shift
    runuser -u "$u" -- env MOKU_HOME="$H" timeout 5 "$@"
}
# vsub ARGS...: the victim submits held, from the shared directory; the id in $j.
vsub() { j=$(cd "$S" && as "$vic" "$TMP/moku-client" submit -h "$@" 2>"$TMP/err"); }
release() { as "$vic" "$TMP/moku-client" releasehold "$1" >/dev/null 2>&1; }
wait_done() {
    i=0
    while [ $i -lt 100 ]; do
        case $(state "$1") in Completed | Removed | Vacated) return 0 ;; esac
        sleep 0.1
        i=$((i + 1))
    done
    echo "job $1 is $(state "$1")" >&2
    return 1
}
messages() { timeout 5 "$MOKU" checkjob "$1" | sed -n 's/^Messages: *//p'; }
evil_do() { runuser -u "$evil" -- sh -c "$1"; }

printf 'echo "victim secret output"\n' >"$S/job.sh"
chown "$vic" "$S/job.sh" && chmod 644 "$S/job.sh"
printf 'the victim notes\n' >"$V/notes"
chown "$vic" "$V/notes" && chmod 600 "$V/notes"

# ---- a planted symbolic link as the output file ----
vsub job.sh
evil_do "ln -s '$V/notes' '$S/job.sh.o$j'"
release "$j"
wait_done "$j"
check "a planted link as the output file: the victim's file it points to is untouched" \
    [ "$(cat "$V/notes")" = "the victim notes" ]
check "... the link is still a link, to the same place" [ "$(readlink "$S/job.sh.o$j")" = "$V/notes" ]
messages "$j" >"$TMP/m"
check "... the job failed, and checkjob says why" \
    grep -q "could not start: job $j: $S/job.sh.o$j: cannot open the output file: a symbolic link" "$TMP/m"
check "... so does the job's error file (the victim's own)" \
    grep -q "moku: job $j: .*a symbolic link: a job's file is never written through one" "$S/job.sh.e$j"

# ---- a planted 0666 file ----
vsub job.sh
evil_do "printf 'planted\n' >'$S/job.sh.o$j'; chmod 666 '$S/job.sh.o$j'"
release "$j"
wait_done "$j"
check "a planted 0666 output file: not written, not truncated (the planter reads nothing)" \
    [ "$(cat "$S/job.sh.o$j")" = planted ]
check "... still the planter's" [ "$(stat -c %U "$S/job.sh.o$j")" = "$evil" ]
messages "$j" >"$TMP/m"
check "... the job failed: exists and belongs to another user" \
    grep -q "cannot open the output file: exists and belongs to another user (uid $(id -u "$evil")): not used, not written, not truncated" "$TMP/m"

# ---- a planted error file the victim cannot write ----
vsub job.sh
evil_do "printf 'x\n' >'$S/job.sh.e$j'; chmod 644 '$S/job.sh.e$j'"
release "$j"
wait_done "$j"
messages "$j" >"$TMP/m"
check "a planted error file: the job fails with a clear reason" \
    grep -q "cannot open the error file: exists and belongs to another user" "$TMP/m"
check "... the planted file is as it was" [ "$(cat "$S/job.sh.e$j")" = x ]

# ---- planted working directories (-d) ----
mkdir -m 777 "$E/trap" && chown "$evil" "$E/trap"
vsub -d "$S/work" job.sh
evil_do "ln -s '$E/trap' '$S/work'"
release "$j"
wait_done "$j"
check "-d through a planted link: not entered, nothing written in the planter's directory" \
    [ -z "$(ls -A "$E/trap")" ]
messages "$j" >"$TMP/m"
check "... the job failed: the link is not followed" \
    grep -q "$S/work: cannot enter the working directory: $S/work: a symbolic link of another user's (uid $(id -u "$evil")) in a sticky directory: not followed" "$TMP/m"
vsub -d "$S/work2" job.sh
evil_do "mkdir -m 777 '$S/work2'"
release "$j"
wait_done "$j"
check "-d to a directory planted in the sticky directory: not used, left empty" [ -z "$(ls -A "$S/work2")" ]
messages "$j" >"$TMP/m"
check "... the job failed, saying so" grep -q "a directory of another user's (uid $(id -u "$evil")) in a sticky directory: not used" "$TMP/m"

# ---- the victim's own files still work ----
vsub job.sh
printf 'old run\n' >"$S/job.sh.o$j" && chown "$vic" "$S/job.sh.o$j"
release "$j"
wait_done "$j"
check "the victim's own earlier output file is emptied and written, as Torque does" \
    [ "$(cat "$S/job.sh.o$j")" = "victim secret output" ]
check "... a new error file is the victim's, 0600" \
    [ "$(stat -c '%U %a' "$S/job.sh.e$j")" = "$vic 600" ]
mkdir "$V/out" && chown "$vic" "$V/out"
vsub -o "$V/out" -N named job.sh
release "$j"
wait_done "$j"
check "Torque's -o DIR: the output in DIR/<name>.o<id>" [ "$(cat "$V/out/named.o$j" 2>/dev/null)" = "victim secret output" ]
vsub -o /dev/null job.sh
release "$j"
wait_done "$j"
m=$(messages "$j")
check "-o /dev/null (root's device) still works (no message: the job ran)" [ -z "$m" ]
done_checks
