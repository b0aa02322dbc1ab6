# Helpers for the tests of moku on a private Slurm cluster (sourced after
# lib.sh; POSIX sh; as root): slurm_prepare sets out the test's places and
# the EXIT trap that ends the daemon ($pid) and the cluster; slurm_users
# exports the cluster's and moku's settings and makes the two real users;
# as, sub, state, field and wait_state speak to Slurm as they do.

# slurm_prepare: MOKU absolute, B the cluster's folder, H moku's home,
# $TMP/out open to the users (the jobs' folder).
slurm_prepare() {
    MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
    chmod 755 "$TMP"
    B=$TMP/slurm
    H=$TMP/home
    mkdir -p "$H" "$TMP/out"
    chmod 1777 "$TMP/out"
    pid=""
    trap 'stop_all; lib_cleanup' EXIT
}
stop_all() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    sh tests/slurm/cluster.sh down "$B" 2>/dev/null
}
# slurm_users USER1 USER2: after the cluster is up. Each Slurm script has
# users of its own names (slurm.sh mokusa and mokusb, slurm_shape.sh mokusc
# and mokusd): tests/run.sh runs the Slurm scripts two at a time.
slurm_users() {
    export SLURM_CONF="$B/etc/slurm.conf" MOKU_HOME="$H"
    for u in "$1" "$2"; do
        add_user "$u"
    done
}
# as USER CMD...: the command as the user. (TMPDIR: the test's own
# directory is not the users'; Slurm would say so at the top of each job's
# output, before the lines the checks read.)
as() { u=$1; shift; runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" TMPDIR=/tmp "$@"; }
# sub USER ARGS...: the Slurm job id; the job's output to SUB_OUT (sbatch's
# -o pattern, default /dev/null), sbatch's errors in $TMP/sberr.
sub() {
    u=$1; shift
    (cd "$TMP/out" && as "$u" sbatch --parsable -o "${SUB_OUT:-/dev/null}" "$@" 2>"$TMP/sberr") | cut -d';' -f1
}
state() { scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p'; }
field() { scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# wait_state JOB STATE [TENTHS]: until Slurm says so.
wait_state() {
    t=0
    while [ "$(state "$1")" != "$2" ] && [ $t -lt "${3:-300}" ]; do sleep 0.1; t=$((t + 1)); done
    [ "$(state "$1")" = "$2" ]
}
