# The property phase of moku on Slurm (issue 27), sourced by
# tests/integration/slurm_shape.sh once its cluster (four nodes of four
# CPUs and 1000 MB, memory booked) and moku run: random mixed jobs --
# sizes, tasks of several CPUs, tasks per node, exclusive nodes, memory per
# CPU and per node, time limits, a few killed at theirs -- submitted by two
# users over a while. Checked throughout:
#   - every start moku decides, Slurm carries out within its grace (moku's
#     log has no "start failed" or "start not carried out");
#   - moku's books are Slurm's: at every check (every 1.5 s), each job Slurm
#     has run for two seconds or more holds in moku the CPUs and memory it
#     holds in Slurm, node by node (checkjob's allocation against scontrol
#     -d show job);
#     A checkjob that does not answer (tried 3 times, 5 s each) is not
#     "no allocation": it fails a check of its own, naming the job;
#   - every job ends, and moku records each end.
# prop_run N SEED USER1 USER2: N jobs from seed SEED (make check: 30; make
# soak: 200), each the one user's or the other's. Uses the caller's TMP, H,
# MOKU, SLURM_CONF and check().

prop_moku_books() {
    # A query that does not answer is not "no allocation": it is retried,
    # and a job moku never answered for is reported as such.
    tries=0
    while :; do
        if out=$(timeout 5 "$MOKU" checkjob --format=json "$1" 2>/dev/null); then
            printf '%s\n' "$out" | awk '
                /"allocation"/ { in_a = 1 }
                in_a && /"node"/ { gsub(/[",]/, "", $2); n = $2 }
                in_a && /"procs"/ { gsub(/,/, "", $2); p = $2 }
                in_a && /"mem"/ { gsub(/,/, "", $2); print n, p, $2 }' | sort
            return 0
        fi
        tries=$((tries + 1))
        [ $tries -lt 3 ] || { echo "(checkjob gave no answer, 3 tries)"; return 1; }
    done
}
prop_slurm_books() { # $1: the job's scontrol -d show job text
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
        [ "$(printf '%s\n' "$text" | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p')" = RUNNING ] || continue
        if ! m=$(prop_moku_books "$j"); then
            # No answer is not "no allocation": named apart, not as books
            # that differ.
            echo "job $j: $m" >>"$P/noanswer"
            continue
        fi
        # Slurm's side is read again after moku's: a job that ended in
        # between (the jobs are short) cannot be compared, and is not a
        # difference of the books.
        text=$(scontrol -d show job "$j" 2>/dev/null)
        [ "$(printf '%s\n' "$text" | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p')" = RUNNING ] || continue
        s=$(prop_slurm_books "$text")
        if [ "$m" != "$s" ]; then
            echo "job $j: moku [$(echo "$m" | tr '\n' ';')] slurm [$(echo "$s" | tr '\n' ';')]" >>"$P/mismatch"
        fi
        echo "$j" >>"$P/checked"
    done
}
prop_run() {
N=$1
SEED=$2
PROP_USER1=$3
PROP_USER2=$4
mkdir -p "$TMP/prop"
P=$TMP/prop
# The jobs: one line each, "user delay sleep sbatch-options", from the seed.
awk -v n="$N" -v seed="$SEED" -v ua="$PROP_USER1" -v ub="$PROP_USER2" 'BEGIN {
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
        printf "%s %.1f %d -t 1 %s\n", rand() < 0.5 ? ua : ub, rand() * 1.5, s, opt
    }
}' >"$P/jobs"

# Submitted over time, while a checker compares the books.
(
    while read -r u delay s opts; do
        sleep "$delay"
        # shellcheck disable=SC2086
        (cd "$TMP/out" && runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" \
            sbatch --parsable -o /dev/null $opts --wrap "sleep $s" 2>>"$P/sberr") |
            cut -d';' -f1 >>"$P/ids"
    done <"$P/jobs"
) &
subpid=$!

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
njobs=$(cat "$P/ids" 2>/dev/null | grep -c .)
nrefused=$(cat "$P/sberr" 2>/dev/null | grep -c 'Requested node configuration')
check "property: $N random jobs (seed $SEED) submitted ($njobs taken, $nrefused refused at sbatch), all ended" \
    sh -c "[ $njobs -gt 0 ] && [ -z \"\$(squeue -h -o %i)\" ]"
nchecked=$(sort -u "$P/checked" 2>/dev/null | grep -c .)
check "... moku's books equal Slurm's at every check ($checks checks, $nchecked jobs looked at)" \
    sh -c "[ ! -s '$P/mismatch' ] && [ $nchecked -gt 0 ]"
[ -s "$P/mismatch" ] && head -5 "$P/mismatch"
nnoanswer=$(cat "$P/noanswer" 2>/dev/null | grep -c .)
check "... moku answered checkjob at every check ($nnoanswer jobs with no answer in 3 tries of 5 s)" \
    [ "$nnoanswer" = 0 ]
[ -s "$P/noanswer" ] && head -5 "$P/noanswer"
nstarts=$(grep -c ' started on ' "$H/log/maui.log")
check "... every one of moku's $nstarts starts carried out by Slurm within its grace" \
    sh -c "! grep -q 'start failed\|start not carried out' '$H/log/maui.log'"
grep 'start failed\|start not carried out' "$H/log/maui.log" | head -5
# moku reads the last ends at its next poll: ten seconds at most.
t=0
while :; do
    ncompleted=0
    for j in $(cat "$P/ids"); do
        grep -q " job $j ended" "$H/log/maui.log" && ncompleted=$((ncompleted + 1))
    done
    [ "$ncompleted" = "$njobs" ] || [ $t -ge 100 ] && break
    sleep 0.1
    t=$((t + 1))
done
check "... moku recorded every job's end ($ncompleted of $njobs)" [ "$ncompleted" = "$njobs" ]
}
