#!/bin/sh
# Job arrays on the local resource manager (qsub -t, Torque's), a real
# daemon running as root and a real user (useradd): -t 1-6%2 never runs more
# than 2 tasks at once and runs each once, every task's PBS_ARRAYID,
# SLURM_ARRAY_TASK_ID and PBS_JOBID in its own output file <name>.oA-i; the
# ids A[i] and A[] in qstat (one line, -t the tasks), checkjob, qhold/qrls
# of one task and qdel of a whole array; a kill -9 of the daemon while
# tasks run and wait loses none and runs none twice. Run under flock
# /tmp/moku-users.lock (a fixed user name).
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1; then
    echo "not ok 1 - torque_array.sh needs root, useradd and runuser (scripts/deps.sh)"
    done_checks
    exit 0
fi
. tests/integration/lib_torque.sh
u=mokuarr
add_user "$u"
chmod 755 "$TMP"
torque_serve 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=4\nLOGLEVEL 3\n' qstat
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; lib_cleanup' EXIT
chmod 755 "$H"
cp "$MOKU" "$TMP/moku-client" && chmod 755 "$TMP/moku-client"
mkdir -p "$TMP/ubin" && for c in qsub qstat qdel qhold qrls qalter; do ln -s "$TMP/moku-client" "$TMP/ubin/$c"; done
W=$TMP/work
R=$TMP/running # the tasks running now: one directory each
chown "$u" "$W" && mkdir -p "$R" && chown "$u" "$R"
# ut CMD ARGS...: a Torque command as the user, in $W; $TMP/out, err, rc.
ut() {
    c=$1
    shift
    (cd "$W" && runuser -u "$u" -- env MOKU_HOME="$H" timeout 10 "$TMP/ubin/$c" "$@") \
        >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
# A task: counts the tasks running beside it (more than 2 is an error left
# in $R/over), says who it is, and logs its run in $R/runs.
cat >"$W/arr.sh" <<EOS
#!/bin/sh
mkdir "$R/\$PBS_ARRAYID"
n=\$(ls "$R" | grep -c '^[0-9]*\$')
[ "\$n" -le 2 ] || echo "task \$PBS_ARRAYID saw \$n running" >>"$R/over"
echo "\$PBS_ARRAYID" >>"$R/runs"
echo "task \$PBS_ARRAYID \$SLURM_ARRAY_TASK_ID \$PBS_JOBID"
sleep 3
rmdir "$R/\$PBS_ARRAYID"
EOS
chmod 755 "$W/arr.sh"

ut qsub -t 1-6%2 arr.sh
a=$(sed -n 's/^\([0-9]*\)\[\]\..*/\1/p' "$TMP/out")
check "qsub -t 1-6%2: the array's id answered as Torque's A[].host" \
    sh -c "[ $rc = 0 ] && grep -q '^$a\\[\\]\\.$HOST\$' $TMP/out"
check "two tasks run, the others wait for a slot" wait_for 20 is "$a[2]" Running
check "... task 3 waits, held for its slot, checkjob says so" \
    sh -c "[ '$(state "$a[3]")' = SystemHold ] && timeout 5 '$MOKU' checkjob '$a[3]' | grep -q 'array slot limit'"
ut qstat
check "qstat: the array on one line A[].host, running" \
    sh -c "grep -q '^$a\\[\\]\\.$HOST  *arr.sh  *$u  .* R DEFAULT\$' $TMP/out && ! grep -q '^$a\\[1\\]' $TMP/out"
ut qstat -t
check "qstat -t: each task on its line" \
    sh -c "[ \$(grep -c '^$a\\[[1-6]\\]\\.$HOST ' $TMP/out) = 6 ]"
ut qstat -t "$a[].$HOST"
check "qstat -t A[].host: the tasks of that array" \
    sh -c "[ $rc = 0 ] && [ \$(grep -c '^$a\\[[1-6]\\]\\.$HOST ' $TMP/out) = 6 ]"
# holds TASK: its Torque hold types (qstat -f's Hold_Types: u user, s system).
holds() { timeout 5 "$MOKU" qstat -f "$1" | sed -n 's/^    Hold_Types = //p'; }
ut qhold "$a[6].$HOST"
check "qhold of one task A[6].host: a user hold on it alone" \
    sh -c "[ $rc = 0 ] && [ '$(holds "$a[6]")' = us ] && [ '$(holds "$a[5]")' = s ]"

# kill -9 while two tasks run and the rest wait: nothing lost, none run twice.
kill -9 "$pid"
wait "$pid" 2>/dev/null
torque_start
check "after kill -9 and a restart: every task still there" \
    sh -c "for i in 1 2 3 4 5 6; do [ -n \"\$(timeout 5 '$MOKU' checkjob '$a['\$i']' | sed -n 's/^State: //p')\" ] || exit 1; done"
check "... task 6 keeps its user hold" [ "$(holds "$a[6]")" = us ]
ut qrls "$a[6]"
check "qrls of task A[6]" [ "$rc" = 0 ]
check "all six tasks run to their end" \
    wait_for 90 sh -c "for i in 1 2 3 4 5 6; do [ \"\$(timeout 5 '$MOKU' checkjob '$a['\$i']' | sed -n 's/^State: //p')\" = Completed ] || exit 1; done"
check "never more than 2 running at once" sh -c "[ ! -e '$R/over' ] || { cat '$R/over' >&2; exit 1; }"
check "each task ran once" [ "$(sort -n "$R/runs" | tr '\n' ' ')" = "1 2 3 4 5 6 " ]
ok_files=1
for i in 1 2 3 4 5 6; do
    [ "$(cat "$W/arr.sh.o$a-$i" 2>/dev/null)" = "task $i $i $a[$i].$HOST" ] || ok_files=0
done
check "every task's output file arr.sh.oA-i: PBS_ARRAYID, SLURM_ARRAY_TASK_ID, PBS_JOBID A[i].host" [ $ok_files = 1 ]
check "... owned by the user" [ "$(stat -c %U "$W/arr.sh.o$a-1")" = "$u" ]

# qdel of a whole array: every task that has not ended.
printf '#!/bin/sh\nsleep 60\n' >"$W/long.sh" && chmod 755 "$W/long.sh"
ut qsub -t 0-3 long.sh
b=$(sed -n 's/^\([0-9]*\)\[\]\..*/\1/p' "$TMP/out")
check "a second array, four tasks without a limit: all run" wait_for 20 is "$b[3]" Running
ut qdel "$b[].$HOST"
check "qdel A[].host: accepted" [ "$rc" = 0 ]
check "... every task removed" \
    wait_for 20 sh -c "for i in 0 1 2 3; do [ \"\$(timeout 5 '$MOKU' checkjob '$b['\$i']' | sed -n 's/^State: //p')\" = Removed ] || exit 1; done"
ut qdel "99[]"
check "qdel of an array the daemon does not have: refused" [ "$rc" != 0 ]
ut qsub -t 1-20000 long.sh
check "more tasks than MAXJOBARRAYSIZE: refused, nothing made" \
    sh -c "[ $rc != 0 ] && grep -q MAXJOBARRAYSIZE $TMP/err && [ ! -s $TMP/out ]"

# MAXJOBCOUNT counts an array's tasks as jobs, as Maui counts them: an
# array that would pass it is refused whole, one that fits is made.
printf 'MAXJOBCOUNT 8\n' >>"$H/maui.cfg"
timeout 10 "$MOKU" schedctl -R >/dev/null 2>&1
ut qsub -h -t 1-9 long.sh
check "an array of 9 tasks under MAXJOBCOUNT 8 (nothing queued): refused, naming it, nothing made" \
    sh -c "[ $rc != 0 ] && grep -q 'MAXJOBCOUNT 8' $TMP/err && [ ! -s $TMP/out ] && ! timeout 5 '$MOKU' showq | grep -q ' Hold '"
ut qsub -h -t 1-8 long.sh
check "... an array of 8 tasks: made" sh -c "[ $rc = 0 ] && grep -q '^[0-9]*\[\]\.' $TMP/out"
# An option's value is not a job: qalter -N C[] J names J, and leaves the
# tasks of C alone (every task of C was renamed).
held=$(sed -n 's/^\([0-9]*\)\[\]\..*/\1/p' "$TMP/out")
printf 'MAXJOBCOUNT 9\n' >>"$H/maui.cfg"
timeout 10 "$MOKU" schedctl -R >/dev/null 2>&1
ut qsub -h long.sh
j=$(sed 's/\..*//' "$TMP/out")
ut qalter -N "$held[]" "$j"
check "qalter -N 'C[]' J: J renamed, the array's tasks keep their name" \
    sh -c "[ $rc = 0 ] && timeout 5 '$MOKU' qstat -f '$j' | grep -q 'Job_Name = $held\[\]\$' && timeout 5 '$MOKU' qstat -f '$held[2]' | grep -q 'Job_Name = long.sh\$'"

# After a restart, ended tasks are still their array's: qstat -c folds the
# first array into one line, and an ended task's output path is Torque's.
kill -9 "$pid"
wait "$pid" 2>/dev/null
torque_start
ut qstat -c
check "after a restart, the ended array is one line A[].host in qstat -c" \
    sh -c "grep -q '^$a\\[\\]\\.$HOST ' $TMP/out && ! grep -q '^$a\\[1\\]' $TMP/out"
check "... and an ended task's output path is arr.sh.oA-i" \
    sh -c "timeout 5 '$MOKU' qstat -f '$a[1]' | grep -q 'Output_Path = .*arr.sh.o$a-1\$'"
done_checks
