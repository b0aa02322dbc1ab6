#!/bin/sh
# A private Slurm cluster on this machine for the tests (issue 15 §6):
# munged, slurmctld and NNODES slurmd (n1..nN, CPUS processors each) on
# localhost, private ports, every file under BASE; held jobs for moku
# (contrib/slurm/job_submit.lua). Stopped by PID, whatever happens.
#   cluster.sh up BASE [NNODES] [CPUS]   start; prints SLURM_CONF=...
#   cluster.sh down BASE                 stop every daemon it started
#   cluster.sh slurmd BASE NODE          (re)start one node's slurmd
#   cluster.sh slurmctld BASE            (re)start slurmctld (its state kept)
#   cluster.sh slurmctld-cold BASE       start slurmctld with its state wiped
# Partitions: batch (the default, every node), short (MaxTime 1 minute: a
# job asking for more stays pending in Slurm whatever moku says), half
# (the first half of the nodes) and cap (MaxCPUsPerNode=1, a limit moku
# does not model). Memory is booked (CR_Core_Memory, DefMemPerCPU 250 MB;
# SELECT_PARAMS and DEF_MEM_PER_CPU change them).
# Ports: slurmctld PORT0, slurmd PORT0+1.. (PORT0 from SLURM_PORT0,
# default 16817 + a number from BASE, the next ten free ones if those are
# taken, so two runs do not collide).
set -e
cmd=$1 B=$2
[ -n "$B" ] || { echo "usage: cluster.sh up|down|slurmd BASE ..." >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)

# port0: the first of ten ports, from BASE; past ten that something listens
# on (another cluster whose folder gave the same number: tests/run.sh runs
# two Slurm scripts at once, and other runs may share the machine).
port0() {
    if [ -n "$SLURM_PORT0" ]; then echo "$SLURM_PORT0"; return; fi
    k=$(($(printf '%s' "$B" | cksum | cut -d' ' -f1) % 2000))
    i=0
    while [ $i -lt 20 ] && [ -n "$(ss -Hltn "( sport >= :$((16817 + k * 10)) and sport <= :$((16826 + k * 10)) )" 2>/dev/null)" ]; do
        k=$(((k + 1) % 2000))
        i=$((i + 1))
    done
    echo $((16817 + k * 10))
}

start_slurmd() {
    slurmd -f "$B/etc/slurm.conf" -N "$1" >>"$B/log/slurmd-$1.out" 2>&1
}

up() {
    n=${1:-4} cpus=${2:-4}
    p=$(port0)
    # NO_HOLD_PLUGIN=1: a Slurm that does not hold new jobs (moku refuses it);
    # SCHEDULER=sched/backfill with it: Slurm scheduling by itself (make bench).
    plugin="JobSubmitPlugins=lua"
    [ -n "$NO_HOLD_PLUGIN" ] && plugin="# JobSubmitPlugins: none"
    mkdir -p "$B/etc" "$B/munge" "$B/state" "$B/log" "$B/run"
    chmod 755 "$B" "$B/munge"
    i=1
    while [ $i -le "$n" ]; do mkdir -p "$B/spool/n$i"; i=$((i + 1)); done
    dd if=/dev/urandom of="$B/munge/munge.key" bs=1 count=1024 2>/dev/null
    chmod 600 "$B/munge/munge.key"
    munged --key-file="$B/munge/munge.key" --socket="$B/munge/munge.socket" \
        --pid-file="$B/run/munged.pid" --log-file="$B/log/munged.log" \
        --seed-file="$B/munge/munged.seed" --force
    cat >"$B/etc/slurm.conf" <<CONF
ClusterName=moku
SlurmctldHost=localhost
SlurmctldPort=$p
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$B/munge/munge.socket
StateSaveLocation=$B/state
SlurmdSpoolDir=$B/spool/%n
SlurmctldPidFile=$B/run/slurmctld.pid
SlurmdPidFile=$B/run/slurmd-%n.pid
SlurmctldLogFile=$B/log/slurmctld.log
SlurmdLogFile=$B/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=${SCHEDULER:-sched/builtin}
SchedulerParameters=${SCHED_PARAMS:-batch_sched_delay=0}
SelectType=select/cons_tres
SelectTypeParameters=${SELECT_PARAMS:-CR_Core_Memory}
DefMemPerCPU=${DEF_MEM_PER_CPU:-250}
SlurmdParameters=config_overrides
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=${SLURMD_TIMEOUT:-10}
InactiveLimit=0
MinJobAge=600
KillWait=5
Waittime=0
$plugin
NodeName=n[1-$n] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$((p + 1))-$((p + n))] CPUs=$cpus Sockets=1 CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
PartitionName=batch Nodes=n[1-$n] Default=YES MaxTime=INFINITE State=UP
PartitionName=short Nodes=n[1-$n] MaxTime=1 State=UP
PartitionName=half Nodes=n[1-$(((n + 1) / 2))] MaxTime=INFINITE State=UP
PartitionName=cap Nodes=n[1-$n] MaxCPUsPerNode=1 MaxTime=INFINITE State=UP
CONF
    cp "$here/contrib/slurm/job_submit.lua" "$B/etc/job_submit.lua"
    export SLURM_CONF="$B/etc/slurm.conf"
    slurmctld -f "$SLURM_CONF" -c -i >>"$B/log/slurmctld.out" 2>&1
    i=1
    while [ $i -le "$n" ]; do start_slurmd "n$i"; i=$((i + 1)); done
    # Every node idle and responding (or the start failed: say so). sinfo -N
    # lists a node once per partition; "idle*" is a node not responding yet.
    t=0
    while [ $t -lt 100 ]; do
        # One line a node and partition: each node once.
        idle=$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u | awk '$2 == "idle"' | wc -l)
        [ "$idle" -ge "$n" ] && { echo "SLURM_CONF=$SLURM_CONF"; return 0; }
        sleep 0.2
        t=$((t + 1))
    done
    echo "cluster.sh: the nodes did not come up idle:" >&2
    sinfo -N >&2 || true
    tail -5 "$B/log/slurmctld.log" >&2 || true
    return 1
}

# kill the daemon in PIDFILE and wait (bounded) for it to go.
stop_pid() {
    [ -f "$1" ] || return 0
    pid=$(cat "$1")
    kill "$pid" 2>/dev/null || return 0
    t=0
    while kill -0 "$pid" 2>/dev/null && [ $t -lt 50 ]; do sleep 0.2; t=$((t + 1)); done
    kill -9 "$pid" 2>/dev/null || true
}

# The job steps of this cluster still running: slurmstepd processes that
# keep its SLURM_CONF (they outlive slurmd, waiting to report to it). Only
# slurmstepd: the scripts driving the cluster have that SLURM_CONF too.
steps() {
    for p in $(ps -e -o pid=,comm= | awk '$2 == "slurmstepd" { print $1 }'); do
        { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qx "SLURM_CONF=$B/etc/slurm.conf" &&
            echo "$p"
    done
}

down() {
    # Jobs first, while slurmctld can still end them: nothing of this
    # cluster must run on after it.
    # (slurmctld may be down already: the daemons are stopped all the same.)
    ids=$(SLURM_CONF=$B/etc/slurm.conf timeout 5 squeue -h -o %i 2>/dev/null || true)
    [ -n "$ids" ] && SLURM_CONF=$B/etc/slurm.conf timeout 5 scancel $ids 2>/dev/null || true
    i=0
    while [ $i -lt 20 ] && [ -n "$(steps)" ]; do sleep 0.25; i=$((i + 1)); done
    for f in "$B"/run/slurmd-*.pid; do stop_pid "$f" & done
    wait
    stop_pid "$B/run/slurmctld.pid"
    stop_pid "$B/run/munged.pid"
    for p in $(steps); do kill -9 "$p" 2>/dev/null; done
}

case $cmd in
up) shift 2; up "$@" ;;
down) down ;;
slurmd) SLURM_CONF=$B/etc/slurm.conf; export SLURM_CONF; start_slurmd "$3" ;;
slurmctld) slurmctld -f "$B/etc/slurm.conf" >>"$B/log/slurmctld.out" 2>&1 ;;
slurmctld-cold) slurmctld -f "$B/etc/slurm.conf" -c -i >>"$B/log/slurmctld.out" 2>&1 ;;
*) echo "cluster.sh: unknown command $cmd" >&2; exit 2 ;;
esac
