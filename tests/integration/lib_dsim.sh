# The daemon half of the daemon-versus-simulator tests (daemon_sim.sh,
# daemon_sim_arrays.sh): sourced after lib.sh. Makes MOKU absolute, a home
# H and a work directory W (both readable by the jobs' users), and
# dsim_serve, which starts `moku serve` on H with two nodes of 4
# processors and a minute's RMPOLLINTERVAL (so that only the engine's own
# rules wake it while the workload runs), plus the config lines it reads
# on its input, and waits for it to answer. stop_daemon ends it; the exit
# trap ends it and cleans up whatever happens.
daemon_home
trap 'stop_daemon; lib_cleanup' EXIT

dsim_up() { timeout 5 "$MOKU" showq >/dev/null 2>&1; }
dsim_serve() {
    {
        printf 'RMPOLLINTERVAL 00:01:00\nLOGLEVEL 1\nNODECFG[n1] PROCS=4\nNODECFG[n2] PROCS=4\n'
        cat
    } >"$H/maui.cfg"
    "$MOKU" serve --home "$H" >"$TMP/serve.log" 2>&1 &
    pid=$!
    wait_for 10 dsim_up || fail "the daemon did not answer"
}
