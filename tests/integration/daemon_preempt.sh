#!/bin/sh
# OWNERPREEMPT in the daemon: one node of two processors lent by its owner
# (account owner) to account other. A job of other fills it; when a job of
# the owner comes, other's job is preempted:
#   PREEMPTPOLICY REQUEUE: it is queued again, its processes are gone, the
#     owner's job runs, and other's starts again from the beginning after;
#   PREEMPTPOLICY SUSPEND: its processes are stopped (SIGSTOP), the owner's
#     job runs, and other's resumes when the owner's has ended; a restart
#     while it is suspended queues it again.
. tests/integration/lib.sh

daemon_home
LOG=$H/log/maui.log

# config POLICY: maui.cfg with that PREEMPTPOLICY.
config() {
    cat >"$H/maui.cfg" <<CFG
RMPOLLINTERVAL 1
LOGLEVEL 2
NODECFG[n1] PROCS=2
PREEMPTPOLICY $1
SRCFG[own] PERIOD=INFINITY HOSTLIST=n1 ACCOUNTLIST=owner,other- OWNER=ACCOUNT:owner FLAGS=OWNERPREEMPT
CFG
}
start_daemon() {
    "$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    i=0
    while [ $i -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do
        sleep 0.1
        i=$((i + 1))
    done
}
crash_restart() {
    kill -9 "$pid"
    wait "$pid" 2>/dev/null
    pid=""
    start_daemon
}
trap 'touch "$W/go"; stop_daemon; lib_cleanup' EXIT

# pstate PID: the process state letter (R, S, T, ...), empty when gone.
pstate() { ps -o stat= -p "$1" 2>/dev/null | cut -c1; }
# wait_pstate PID LETTERS: until the process is in one of those states.
wait_pstate() {
    i=0
    while [ $i -lt 50 ]; do
        case "$(pstate "$1")" in [$2]) return 0 ;; esac
        sleep 0.1
        i=$((i + 1))
    done
    echo "process $1 is in state '$(pstate "$1")', not [$2]" >&2
    return 1
}
# pg_stopped PGID: the process group is stopped: a process of it stopped
# (T), none running or sleeping (R, S). Not the leader's letter alone: the
# job's shell forks its 'sleep 0.1' ten times a second with vfork (dash),
# and stopped in that window the child is T while the shell waits for it
# in the kernel (D) until SIGCONT: stopped all the same, never T itself.
pg_stopped() {
    _pgs=$(ps -e -o pgid=,stat= | awk -v g="$1" '$1 == g { printf "%s", substr($2, 1, 1) }')
    case $_pgs in *[RS]*) return 1 ;; *T*) return 0 ;; esac
    return 1
}
gone() {
    i=0
    while [ $i -lt 50 ] && kill -0 "$1" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
    ! kill -0 "$1" 2>/dev/null
}
# pid_of JOB RUN: the pid the RUN-th run of the job wrote (1 = first).
pid_of() {
    i=0
    # cat, not a redirection: the file is not there until the run writes
    # it, and dash prints a failed redirection's error before 2>/dev/null
    # applies, which run.sh rightly takes for the shell stopping.
    while [ $i -lt 50 ] && [ "$(cat "$W/$1.pids" 2>/dev/null | wc -l)" -lt "$2" ]; do
        sleep 0.1
        i=$((i + 1))
    done
    sed -n "${2}p" "$W/$1.pids" 2>/dev/null
}

# other's job: writes its pid, then waits for the gate (at most 60 s of
# running time, so a stopped job does not count down).
cat >"$W/other.sh" <<SH
#!/bin/sh
echo \$\$ >>$W/\$MOKU_JOBID.pids
i=0
while [ ! -f $W/go ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
SH
printf '#!/bin/sh\nsleep 3\n' >"$W/owner.sh"
chmod 755 "$W"/*.sh
cd "$W" || exit 1

# ---- PREEMPTPOLICY REQUEUE ----
config REQUEUE
start_daemon
o1=$(timeout 5 "$MOKU" submit -A other -l nodes=1:ppn=2,walltime=5:00 other.sh)
check "REQUEUE: other's job runs on the owner's node" wait_state "$o1" Running
p1=$(pid_of "$o1" 1)
check "... its process is there" [ -n "$p1" ]
w1=$(timeout 5 "$MOKU" submit -A owner -l nodes=1:ppn=2,walltime=1:00 owner.sh)
check "the owner's job runs" wait_state "$w1" Running
check "... other's job is queued again" [ "$(state "$o1")" = Idle ]
timeout 5 "$MOKU" showq >"$TMP/out"
check "... showq shows it idle" grep -q "^$o1 .* Idle " "$TMP/out"
check "... its process is gone" gone "$p1"
check "... logged" grep -q "job $o1 preempted (requeue) for reservation owner" "$LOG"
check "the owner's job completes" wait_state "$w1" Completed
check "other's job then starts again" wait_state "$o1" Running
p2=$(pid_of "$o1" 2)
check "... a new run, a new process" sh -c "[ -n '$p2' ] && [ '$p2' != '$p1' ] && kill -0 $p2"
check "... the old run's end was not taken for the job's" sh -c "! grep -q 'job $o1 ended' '$LOG'"
check "... its spool directory was cleaned up for the new run" grep -q "job $o1: its preempted run ended" "$LOG"
touch "$W/go"
check "... and it completes" wait_state "$o1" Completed
timeout 5 "$MOKU" checkjob "$o1" >"$TMP/out"
check "... with exit 0" grep -q "Completion Code: 0" "$TMP/out"
rm -f "$W/go"
stop_daemon
rm -f "$W"/*.pids # a new home numbers its jobs from 1 again

# ---- PREEMPTPOLICY SUSPEND ----
rm -rf "$H"
mkdir -p "$H"
config SUSPEND
start_daemon
o2=$(timeout 5 "$MOKU" submit -A other -l nodes=1:ppn=2,walltime=5:00 other.sh)
check "SUSPEND: other's job runs" wait_state "$o2" Running
p3=$(pid_of "$o2" 1)
w2=$(timeout 5 "$MOKU" submit -A owner -l nodes=1:ppn=2,walltime=1:00 owner.sh)
check "the owner's job runs" wait_state "$w2" Running
check "... other's job is suspended" [ "$(state "$o2")" = Suspended ]
check "... its processes are stopped (state T)" wait_for 5 pg_stopped "$p3"
check "... logged" grep -q "job $o2 preempted (suspend) for reservation owner" "$LOG"
run mjobctl -r "$o2"
check "mjobctl -r of a job suspended by preemption is refused" sh -c "[ $rc = 1 ] && grep -q 'suspended by preemption' $TMP/err"
check "the owner's job completes" wait_state "$w2" Completed
check "other's job resumes" wait_state "$o2" Running
check "... the same process, running again" wait_pstate "$p3" RS
check "... logged" grep -q "job $o2 resumed after preemption" "$LOG"
touch "$W/go"
check "... and it completes" wait_state "$o2" Completed
check "... in one run" [ "$(wc -l <"$W/$o2.pids")" = 1 ]
rm -f "$W/go"

# A restart while a job is suspended by preemption: it is queued again.
o3=$(timeout 5 "$MOKU" submit -A other -l nodes=1:ppn=2,walltime=5:00 other.sh)
check "other's job runs" wait_state "$o3" Running
p4=$(pid_of "$o3" 1)
printf '#!/bin/sh\nsleep 4\n' >"$W/owner.sh"
w3=$(timeout 5 "$MOKU" submit -A owner -l nodes=1:ppn=2,walltime=1:00 owner.sh)
check "the owner's job runs, other's is suspended" wait_state "$o3" Suspended
crash_restart
check "after kill -9 and a restart, the suspended job is queued again" wait_state "$o3" Idle 5
check "... its old run is ended" gone "$p4"
check "... and it runs again once the owner's job is over" wait_state "$o3" Running 15
touch "$W/go"
check "... to completion" wait_state "$o3" Completed
check "the owner's job completed" [ "$(state "$w3")" = Completed ]

run schedctl -k
i=0
while [ $i -lt 50 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
pid=""
done_checks
