# Helpers for the tests of Torque's commands against the real daemon
# (sourced after lib.sh; POSIX sh): torque_serve writes the home's maui.cfg,
# links moku by the Torque commands' names, starts the daemon (ended by the
# script's EXIT trap) and waits until it answers (torque_start starts it
# again); t runs a command by its
# Torque name; state and is ask checkjob for a job's state.

# torque_serve CFG CMD...: the daemon with maui.cfg CFG (printf's format),
# the commands CMD... in $TMP/bin; then in $TMP/work, HOST the short name.
# The interactive tests' Python helper for qsub on a terminal (qsub_pty.py).
QSUB_PTY=$(pwd)/tests/integration
export QSUB_PTY
# qsub where an ordinary user may run it (qsub -I runs as that user, in
# $TMP/work): after torque_serve.
torque_user_qsub() {
    chmod 755 "$H" "$TMP/bin"
    chmod 777 "$TMP/work"
    cp "$MOKU" "$TMP/qsub.real" && chmod 755 "$TMP/qsub.real"
    rm "$TMP/bin/qsub" && ln -s "$TMP/qsub.real" "$TMP/bin/qsub"
}
torque_serve() {
    MOKU=$(cd "$(dirname "$MOKU")" && pwd)/$(basename "$MOKU")
    H=$TMP/home
    mkdir -p "$H" "$TMP/work" "$TMP/bin"
    # shellcheck disable=SC2059 # the configuration is the format
    printf "$1" >"$H/maui.cfg"
    shift
    export MOKU_HOME="$H"
    for c in "$@"; do ln -s "$MOKU" "$TMP/bin/$c"; done
    trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; lib_cleanup' EXIT
    torque_start
    HOST=$(hostname | cut -d. -f1)
    cd "$TMP/work" || exit 1
}
# torque_start: the daemon on $H (again, after a kill), its pid in $pid,
# answering.
torque_start() {
    "$MOKU" serve --home "$H" >>"$TMP/serve.log" 2>&1 &
    pid=$!
    wait_for 10 torque_up
}
torque_up() { timeout 5 "$MOKU" showq >/dev/null 2>&1; }
# t CMD ARGS...: a Torque command by its own name; output in $TMP/out, err, rc.
t() {
    c=$1
    shift
    timeout 10 "$TMP/bin/$c" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
}
is() { [ "$(state "$1")" = "$2" ]; }
