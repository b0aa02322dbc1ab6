#!/bin/sh
# No single user can fill the daemon's disk, and a full disk loses nothing
# acknowledged (issue 28, item 3). Real users, homes on small tmpfs mounts:
#   - a flood of held submissions from one user stops at the default per-user
#     cap (MAXSUBMITJOBS 5000, not in maui.cfg) with the store far from full,
#     while another user still submits and root still cancels;
#   - with the disk filled on purpose, new jobs are refused with the reason,
#     and cancels, a hold, a release and a job's end are recorded; after
#     kill -9 and a restart every one of them is there; once space is freed,
#     jobs are taken again.
# Run under flock /tmp/moku-users.lock (fixed user names).
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1; then
    echo "not ok 1 - daemon_disk.sh needs root, useradd and runuser (scripts/deps.sh)"
    done_checks
    exit 0
fi
MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
RAWSOCK=$(cd "$(dirname "${RAWSOCK:-build/tests/rawsock}")" && pwd)/rawsock
flood=mokuflood
other=mokuother
chmod 755 "$TMP"
cp "$MOKU" "$TMP/moku" && cp "$RAWSOCK" "$TMP/rawsock" && chmod 755 "$TMP/moku" "$TMP/rawsock"
pid=""
mounts=""
# The supervisors of jobs still running on the homes (they outlive the
# daemon), by their command lines.
supervisors() {
    ps -e -o pid=,args= | awk -v t="_supervise $TMP/" 'index($0, t) { print $1 }'
}
no_supervisors() { [ -z "$(supervisors)" ]; }
cleanup() {
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    for p in $(supervisors); do kill "$p" 2>/dev/null; done
    wait_for 5 no_supervisors
    for m in $mounts; do umount "$m" 2>/dev/null || umount -l "$m"; done
    userdel "$flood" 2>/dev/null
    userdel "$other" 2>/dev/null
    lib_cleanup
}
trap cleanup EXIT
for u in "$flood" "$other"; do add_user "$u"; done

# mount_home DIR SIZE: a tmpfs of its own.
mount_home() {
    mkdir -p "$1" && mount -t tmpfs -o "size=$2,mode=755" tmpfs "$1" && mounts="$1 $mounts"
}
start() {
    "$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    i=0
    while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do
        sleep 0.1
        i=$((i + 1))
    done
}
total() { timeout 5 "$MOKU" showq | sed -n 's/^Total Jobs: \([0-9]*\).*/\1/p'; }
free_kb() { df -k --output=avail "$H" | tail -n 1 | tr -d ' '; }

# ---- a flood from one user ----
H=$TMP/h1
mount_home "$H" 64m
export MOKU_HOME="$H"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\n' >"$H/maui.cfg"
start
req='{"cmd":"submit","job":{"name":"f","script":"true\n","cwd":"/tmp","hold":true}}'
t0=$(date +%s)
runuser -u "$flood" -- "$TMP/rawsock" "$H/moku.sock" flood 6000 "$req" >"$TMP/flood"
t1=$(date +%s)
check "a flood of held jobs from one user stops at 5000, the default cap ($(head -n 1 "$TMP/flood") taken in $((t1 - t0)) s)" \
    [ "$(head -n 1 "$TMP/flood")" = 5000 ]
check "... the refusal names it" grep -q "user $flood already has 5000 jobs queued or running (MAXSUBMITJOBS 5000)" "$TMP/flood"
used=$(du -sk --exclude=moku.reserve "$H" | cut -f1)
check "... with the store far from filling its disk (${used} kB of 64 MB)" [ "$used" -lt 32000 ]
j=$(cd /tmp && printf 'true\n' | runuser -u "$other" -- env MOKU_HOME="$H" timeout 5 "$TMP/moku" submit -h)
check "another user still submits (job $j)" [ -n "$j" ]
first=$(timeout 5 "$MOKU" showq | awk -v u="$flood" '$2 == u { print $1; exit }')
run canceljob "$first"
check "root still cancels the flooder's job $first" sh -c "[ $rc = 0 ] && grep -q \"job '$first' cancelled\" '$TMP/out'"
runuser -u "$flood" -- "$TMP/rawsock" "$H/moku.sock" flood 2 "$req" >"$TMP/flood"
check "... which makes room for one more of the flooder's, not two" [ "$(head -n 1 "$TMP/flood")" = 1 ]
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nUSERCFG[DEFAULT] MAXSUBMITJOBS=5002\n' >"$H/maui.cfg"
timeout 10 "$MOKU" schedctl -R >/dev/null
runuser -u "$flood" -- "$TMP/rawsock" "$H/moku.sock" flood 5 "$req" >"$TMP/flood"
check "an administrator raises the default in maui.cfg (USERCFG[DEFAULT] MAXSUBMITJOBS=5002)" \
    [ "$(head -n 1 "$TMP/flood")" = 2 ]
big=$(head -c 100000 /dev/zero | tr '\0' 'x')
printf '{"cmd":"submit","job":{"name":"b","script":"#%s\\n","cwd":"/tmp","hold":true}}' "$big" >"$TMP/bigreq"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nMAXSUBMITBYTES 250000\n' >"$H/maui.cfg"
timeout 10 "$MOKU" schedctl -R >/dev/null
runuser -u "$other" -- "$TMP/rawsock" "$H/moku.sock" flood 5 "$(cat "$TMP/bigreq")" >"$TMP/flood"
check "MAXSUBMITBYTES bounds one user's scripts and environments (two 100 kB scripts in 250 kB)" \
    sh -c "[ \"\$(head -n 1 '$TMP/flood')\" = 2 ] && grep -q 'MAXSUBMITBYTES 250000' '$TMP/flood'"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nMAXJOBCOUNT 5005\n' >"$H/maui.cfg"
timeout 10 "$MOKU" schedctl -R >/dev/null
j=$(cd /tmp && printf 'true\n' | runuser -u "$other" -- env MOKU_HOME="$H" timeout 5 "$TMP/moku" submit -h 2>"$TMP/err")
check "MAXJOBCOUNT bounds the jobs of all users together" \
    sh -c "[ -z '$j' ] && grep -q 'the daemon holds 5005 jobs already (MAXJOBCOUNT 5005)' '$TMP/err'"
kill "$pid" && wait "$pid" 2>/dev/null
pid=""

# ---- a full disk ----
H=$TMP/h2
mount_home "$H" 24m
export MOKU_HOME="$H"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=2\nDISKRESERVE 4194304\nLOGLEVEL 1\n' >"$H/maui.cfg"
mkdir -p "$TMP/w" && chmod 755 "$TMP/w"
cd "$TMP/w" || exit 1
printf 'sleep 60\n' >long.sh
printf 'sleep 3\n' >short.sh
start
check "the daemon keeps a reserve of DISKRESERVE bytes" [ "$(stat -c %s "$H/moku.reserve")" = 4194304 ]
sub() { timeout 5 "$MOKU" submit "$@"; }
jlong=$(sub -l walltime=600 long.sh)
jq1=$(sub -l nodes=1:ppn=2,walltime=600 long.sh) # waits: n1 has one processor left
jq2=$(sub -h long.sh)
jq3=$(sub -l walltime=60 long.sh)                # takes the last processor, before jq1
jq4=$(sub -l walltime=60 long.sh)                # waits for a processor
wait_state "$jlong" Running
wait_state "$jq3" Running
# Fill the file system: as much as it takes, then the last bytes.
dd if=/dev/zero of="$H/filler" bs=1M >/dev/null 2>&1
head -c 100000000 /dev/zero >"$H/filler2" 2>/dev/null
check "the disk is full ($(free_kb) kB free)" [ "$(free_kb)" -lt 64 ]
sub short.sh >"$TMP/out" 2>"$TMP/err"
rc=$?
check "a new job is refused, saying why" \
    sh -c "[ $rc = 1 ] && grep -q 'submit: refused: the disk of the daemon.s state is nearly full' '$TMP/err'"
run canceljob "$jq1"
check "a cancel is recorded on the full disk" sh -c "[ $rc = 0 ] && grep -q \"job '$jq1' cancelled\" '$TMP/out'"
check "... the reserve was given up for it" [ ! -e "$H/moku.reserve" ]
run releasehold "$jq2"
check "a release is recorded" sh -c "[ $rc = 0 ] && grep -q 'holds modified' '$TMP/out'"
run canceljob "$jq3"
check "a running job's cancel is recorded" sh -c "[ $rc = 0 ] && grep -q \"job '$jq3' cancelled\" '$TMP/out'"
check "... and its end" wait_state "$jq3" Removed
# Two iterations (RMPOLLINTERVAL 1) to start it, were anything to start: a
# fixed wait, as the log on this full disk cannot record them (iterated).
sleep 2
check "nothing starts while the disk is full (job $jq4 waits on a free processor)" \
    sh -c "[ \"\$(timeout 5 '$MOKU' checkjob $jq4 | sed -n 's/^State: //p')\" = Idle ]"
run sethold "$jq4"
check "a hold is recorded" sh -c "[ $rc = 0 ] && grep -q 'holds modified' '$TMP/out'"
kill -TERM "$(cat "$H/spool/$jlong/job.pgid")" 2>/dev/null # the job ends by itself
check "a job's end on the full disk is recorded" wait_state "$jlong" Completed
check "... with its exit status" sh -c "timeout 5 '$MOKU' checkjob $jlong | grep -q 'Completion Code: 271'"
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=""
start
check "after kill -9, a restart on the full disk answers" sh -c "timeout 5 '$MOKU' showq >/dev/null"
check "... job $jq1's cancel is there" sh -c "[ \"\$(timeout 5 '$MOKU' checkjob $jq1 | sed -n 's/^State: //p')\" = Removed ]"
check "... job $jq2's release is there" sh -c "[ \"\$(timeout 5 '$MOKU' checkjob $jq2 | sed -n 's/^State: //p')\" = Idle ]"
check "... job $jq4's hold is there" sh -c "[ \"\$(timeout 5 '$MOKU' checkjob $jq4 | sed -n 's/^State: //p')\" = UserHold ]"
check "... job $jq3's end is there" sh -c "[ \"\$(timeout 5 '$MOKU' checkjob $jq3 | sed -n 's/^State: //p')\" = Removed ]"
check "... job $jlong's end is there" sh -c "timeout 5 '$MOKU' checkjob $jlong | grep -q 'Completion Code: 271'"
rm -f "$H/filler" "$H/filler2"
i=0
while [ $i -lt 50 ] && [ ! -e "$H/moku.reserve" ]; do
    sleep 0.1
    i=$((i + 1))
done
check "space freed: the reserve is made again" [ "$(stat -c %s "$H/moku.reserve" 2>/dev/null)" = 4194304 ]
j=$(sub short.sh 2>"$TMP/err")
check "... and jobs are taken again (job $j)" [ -n "$j" ]
check "... and started (job $jq2, released on the full disk, first)" wait_state "$jq2" Running
grep -q "its reserve of 4194304 bytes was released" "$H/log/maui.log"
check "the log says when the reserve was released and made again" \
    sh -c "grep -q 'its reserve of 4194304 bytes was released' '$H/log/maui.log' && grep -q 'has room again' '$H/log/maui.log'"
done_checks
