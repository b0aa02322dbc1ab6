#!/bin/sh
# A property of moku on Slurm (issue 27): random mixed jobs -- sizes,
# tasks of several CPUs, tasks per node, exclusive nodes, memory per CPU
# and per node, time limits -- submitted by two users over a minute or so,
# on a private cluster of four nodes of four CPUs and 1000 MB (memory
# booked). Checked throughout:
#   - every start moku decides, Slurm carries out within its grace (moku's
#     log has no "start failed" or "start not carried out");
#   - moku's books are Slurm's: at every check, each job Slurm has run for
#     a poll or more holds in moku the CPUs and memory it holds in Slurm,
#     node by node (checkjob's allocation against scontrol -d show job);
#   - every job ends, none is left queued.
# SLURM_PROP_N jobs (30), from seed SLURM_PROP_SEED (1); make soak runs a
# longer one. As root; the users' lock when run by hand.
. tests/integration/lib.sh

if [ "$(id -u)" != 0 ] || ! command -v slurmctld >/dev/null 2>&1 || ! command -v useradd >/dev/null 2>&1; then
    fail "slurm_prop: needs root, useradd and Slurm (scripts/deps.sh installs it)"
    exit 0
fi
N=${SLURM_PROP_N:-30}
SEED=${SLURM_PROP_SEED:-1}
MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
chmod 755 "$TMP"
B=$TMP/slurm
H=$TMP/home
mkdir -p "$H" "$TMP/out"
chmod 1777 "$TMP/out"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; sh tests/slurm/cluster.sh down "$B" 2>/dev/null; [ -n "$KEEP_TMP" ] || rm -rf "$TMP"' EXIT
if ! sh tests/slurm/cluster.sh up "$B" 4 4 >"$TMP/up" 2>&1; then
    fail "slurm_prop: the private cluster came up"
    cat "$TMP/up"
    exit 0
fi
export SLURM_CONF="$B/etc/slurm.conf" MOKU_HOME="$H"
for u in mokusa mokusb; do
    id "$u" >/dev/null 2>&1 || useradd -M -s /bin/sh "$u" 2>/dev/null
done
printf 'RMCFG[s] TYPE=SLURM\nRMPOLLINTERVAL 1\nLOGLEVEL 2\nBACKFILLPOLICY FIRSTFIT\n' >"$H/maui.cfg"
"$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
pid=$!
t=0
while [ $t -lt 50 ] && ! timeout 5 "$MOKU" showq >/dev/null 2>&1; do sleep 0.1; t=$((t + 1)); done

# The jobs: one line each, "user delay sleep sbatch-options", from the seed.
awk -v n="$N" -v seed="$SEED" 'BEGIN {
    srand(seed)
    for (i = 0; i < n; i++) {
        r = rand(); opt = ""
        if (r < 0.35)      opt = "-n " int(1 + rand() * 8)
        else if (r < 0.55) opt = "-n " int(1 + rand() * 2) " -c " int(2 + rand() * 3)
        else if (r < 0.70) { k = int(1 + rand() * 3); opt = "-N " k " --ntasks-per-node=" int(1 + rand() * 4) }
        else if (r < 0.80) opt = "-n " int(1 + rand() * 4) " --exclusive"
        else               opt = "-n " int(1 + rand() * 6)
        m = rand()
        if (m < 0.3)       opt = opt " --mem-per-cpu=" (50 * int(1 + rand() * 5))
        else if (m < 0.55) opt = opt " --mem=" (100 * int(1 + rand() * 9))
        # A few over their time limit: Slurm kills them at the minute.
        s = int(2 + rand() * 10); if (rand() < 0.05) s = 200
        printf "%s %.1f %d -t 1 %s\n", rand() < 0.5 ? "mokusa" : "mokusb", rand() * 1.5, s, opt
    }
}' >"$TMP/jobs"

# Submitted over time, while a checker compares the books.
(
    while read -r u delay s opts; do
        sleep "$delay"
        # shellcheck disable=SC2086
        (cd "$TMP/out" && runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" \
            sbatch --parsable -o /dev/null $opts --wrap "sleep $s" 2>>"$TMP/sberr") |
            cut -d';' -f1 >>"$TMP/ids"
    done <"$TMP/jobs"
) &
subpid=$!

moku_books() {
    timeout 5 "$MOKU" checkjob --format=json "$1" 2>/dev/null | awk '
        /"allocation"/ { in_a = 1 }
        in_a && /"node"/ { gsub(/[",]/, "", $2); n = $2 }
        in_a && /"procs"/ { gsub(/,/, "", $2); p = $2 }
        in_a && /"mem"/ { gsub(/,/, "", $2); print n, p, $2 }' | sort
}
slurm_books() { # $1: the job's scontrol -d show job text
    printf '%s\n' "$1" | sed -n 's/^ *Nodes=\([^ ]*\) CPU_IDs=\([^ ]*\) Mem=\([0-9]*\).*/\1 \2 \3/p' |
        while read -r hl ids mem; do
            cpus=$(echo "$ids" | tr ',' '\n' | awk -F- '{ c += NF == 2 ? $2 - $1 + 1 : 1 } END { print c }')
            for h in $(scontrol show hostnames "$hl"); do echo "$h $cpus $mem"; done
        done | sort
}
# One check: every job Slurm has run for two seconds or more.
check_books() {
    now=$(date +%s)
    for j in $(squeue -h -t R -o %i 2>/dev/null); do
        text=$(scontrol -d show job "$j" 2>/dev/null)
        st=$(printf '%s\n' "$text" | sed -n 's/.*StartTime=\([^ ]*\).*/\1/p' | head -1)
        [ -n "$st" ] && [ $((now - $(date -d "$st" +%s))) -ge 2 ] || continue
        m=$(moku_books "$j")
        s=$(slurm_books "$text")
        [ "$(printf '%s\n' "$text" | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p')" = RUNNING ] || continue
        if [ "$m" != "$s" ]; then
            echo "job $j: moku [$(echo "$m" | tr '\n' ';')] slurm [$(echo "$s" | tr '\n' ';')]" >>"$TMP/mismatch"
        fi
        echo "$j" >>"$TMP/checked"
    done
}
checks=0
t=0
while kill -0 "$subpid" 2>/dev/null || [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do
    check_books
    checks=$((checks + 1))
    sleep 1.5
    t=$((t + 1))
    [ $t -lt 200 ] || break # five minutes at most
done
wait "$subpid"
njobs=$(grep -c . "$TMP/ids" 2>/dev/null || echo 0)
nrefused=$(grep -c 'Requested node configuration' "$TMP/sberr" 2>/dev/null || echo 0)
check "slurm_prop: $N random jobs (seed $SEED) submitted ($njobs taken, $nrefused refused at sbatch), all ended" \
    sh -c "[ $njobs -gt 0 ] && [ -z \"\$(squeue -h -o %i)\" ]"
nchecked=$(sort -u "$TMP/checked" 2>/dev/null | grep -c .)
check "... moku's books equal Slurm's at every check ($checks checks, $nchecked jobs looked at)" \
    sh -c "[ ! -s '$TMP/mismatch' ] && [ $nchecked -gt 0 ]"
[ -s "$TMP/mismatch" ] && head -5 "$TMP/mismatch"
nstarts=$(grep -c ' started on ' "$H/log/maui.log")
check "... every one of moku's $nstarts starts carried out by Slurm within its grace" \
    sh -c "! grep -q 'start failed\|start not carried out' '$H/log/maui.log'"
grep 'start failed\|start not carried out' "$H/log/maui.log" | head -5
ncompleted=0
for j in $(cat "$TMP/ids"); do
    grep -q " job $j ended" "$H/log/maui.log" && ncompleted=$((ncompleted + 1))
done
check "... moku recorded every job's end ($ncompleted of $njobs)" [ "$ncompleted" = "$njobs" ]
