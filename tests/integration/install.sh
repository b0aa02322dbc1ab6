#!/bin/sh
# make install as an administrator runs it: into DESTDIR with PREFIX=/usr,
# the files, symlinks, man pages (rendered; maui.cfg(5), moku(8)),
# the systemd unit (systemd-analyze verify, when there), the completion;
# an installed showq with no MOKU_HOME finds a daemon at the compiled-in
# default home (built pointing into $TMP: nothing is written to /var);
# make uninstall removes what install put.
. tests/integration/lib.sh

D=$TMP/dest
SPOOL=$TMP/spool
# A build of its own (the default home differs), from a copy of the
# project's objects so that only what includes moku_config.h is rebuilt.
B=$TMP/build
# The copied .d files name build/'s objects, not $B's: the objects that
# include moku_config.h (src/cli's) are removed so that they are rebuilt.
# Only the objects and the library: not the tests', crash or sanitizer
# builds under build/ (make asan's is 270 MB).
if [ -d build/src ]; then
    mkdir -p "$B" && cp -a build/src build/libmoku.a "$B"/ && rm -f "$B"/src/cli/*.o "$B"/src/cli/*.d
fi
# Not the calling make's flags (make asan's OPT, its jobserver): a plain build. GNU make
# puts a command line's variables (make asan's OPT=...) in its recipes' environment
# too, and build/'s copied objects carry link-time code (-flto): with asan's OPT
# the tools were linked through it without the link's warning options.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u OPT -u LTO make --no-print-directory BUILD="$B" BIN="$B/moku" PREFIX=/usr MOKU_HOME_DEFAULT="$SPOOL" "$@"; }
mk -j2 install DESTDIR="$D" >"$TMP/make.log" 2>&1
check "make install DESTDIR=... PREFIX=/usr" [ $? -eq 0 ]
[ $? -eq 0 ] || tail -n 20 "$TMP/make.log"

U=$D/usr
check "bin/moku installed, executable" [ -x "$U/bin/moku" ]
bad=""
for c in showq checkjob checknode showstats showres setres releaseres diagnose showconfig \
    canceljob sethold releasehold setspri setqos runjob schedctl mjobctl showbf showstart \
    changeparam qsub msub; do
    [ "$(readlink "$U/bin/$c")" = moku ] || bad="$bad $c"
    [ -f "$U/share/man/man1/$c.1" ] || bad="$bad $c.1"
    [ "$(readlink "$U/share/bash-completion/completions/$c")" = moku ] || bad="$bad $c-completion"
done
check "every command name: a symlink to moku, a man page, a completion link${bad:+ (not:$bad)}" [ -z "$bad" ]
# The symlinks are the command table's: every one answers --help under its
# own name, and the man pages (bar moku's faces) are the same set of names.
links=$(cd "$U/bin" && for f in *; do [ -L "$f" ] && echo "$f"; done | sort)
pages=$(cd "$U/share/man/man1" && ls | sed -n 's/\.1$//p' | grep -v '^moku' | sort)
check "the symlinks installed are the man pages' commands" test -n "$links" -a "$links" = "$pages"
bad=""
for c in $links; do
    "$U/bin/$c" --help 2>/dev/null | head -n 1 | grep -q "^usage: $c\( \|$\)" || bad="$bad $c"
done
check "every symlink answers --help as itself${bad:+ (not:$bad)}" [ -z "$bad" ]
check "moku.1 and moku-serve.8" sh -c "[ -f '$U/share/man/man1/moku.1' ] && [ -f '$U/share/man/man8/moku-serve.8' ]"
check "the systemd unit" grep -q "^ExecStart=/usr/bin/moku serve --home $SPOOL\$" "$U/lib/systemd/system/moku.service"
check "... Type=notify" grep -q '^Type=notify$' "$U/lib/systemd/system/moku.service"
bad=""
for f in maui.cfg maui.cfg.local maui.cfg.slurm; do
    cmp -s "examples/$f" "$U/share/doc/moku/examples/$f" || bad="$bad $f"
done
cmp -s contrib/slurm/job_submit.lua "$U/share/doc/moku/examples/job_submit.lua" || bad="$bad job_submit.lua"
check "the examples: maui.cfg for the simulator, one machine and Slurm; job_submit.lua${bad:+ (not:$bad)}" [ -z "$bad" ]
bad=""
for f in README.md docs/*.md docs/*.png; do
    cmp -s "$f" "$U/share/doc/moku/$(basename "$f")" || bad="$bad $f"
done
check "the documents under share/doc/moku (README.md, docs/)${bad:+ (not:$bad)}" [ -z "$bad" ]
check "the default home made" [ -d "$D$SPOOL" ]

check "maui.cfg.5, and moku.8 the daemon's page" sh -c "[ -f '$U/share/man/man5/maui.cfg.5' ] && [ \"\$(readlink '$U/share/man/man8/moku.8')\" = moku-serve.8 ]"
# Every installed page renders without warnings (tests/integration/man.sh
# checks what they say against --help and the parameter table).
if command -v groff >/dev/null 2>&1; then
    bad=""
    for p in "$U"/share/man/man1/*.1 "$U"/share/man/man5/*.5 "$U"/share/man/man8/*.8; do
        groff -man -Tutf8 -ww -z "$p" 2>"$TMP/groff.err" && [ ! -s "$TMP/groff.err" ] || bad="$bad $(basename "$p")"
    done
    check "every man page renders (groff -man, no warnings)${bad:+ (not:$bad)}" [ -z "$bad" ]
else
    fail "groff absent (scripts/deps.sh installs groff-base)"
fi

if command -v systemd-analyze >/dev/null 2>&1; then
    # verify runs the ExecStart binary's path and the Documentation= pages:
    # point them at the installed tree.
    sed "s|/usr/bin/moku|$U/bin/moku|" "$U/lib/systemd/system/moku.service" >"$TMP/moku.service"
    MANPATH=$U/share/man systemd-analyze verify "$TMP/moku.service" >"$TMP/verify.log" 2>&1
    check "systemd-analyze verify moku.service" [ $? -eq 0 ]
    [ -s "$TMP/verify.log" ] && cat "$TMP/verify.log"
else
    skip "systemd-analyze absent (scripts/deps.sh installs systemd)"
fi

if command -v bash >/dev/null 2>&1; then
    comp=$U/share/bash-completion/completions/moku
    got=$(bash -c ". '$comp'; COMP_WORDS=(showq -); COMP_CWORD=1; _moku; echo \${COMPREPLY[*]}")
    check "bash completion of showq's options ($got)" sh -c "echo '$got' | grep -q -- '-r' && echo '$got' | grep -q -- '--home'"
    got=$(bash -c ". '$comp'; COMP_WORDS=(moku sim); COMP_CWORD=1; _moku; echo \${COMPREPLY[*]}")
    check "bash completion of moku's commands ($got)" [ "$got" = simulate ]
    got=$(bash -c ". '$comp'; COMP_WORDS=(moku serve --f); COMP_CWORD=2; _moku; echo \${COMPREPLY[*]}")
    check "bash completion of moku serve's options ($got)" [ "$got" = --fresh ]
else
    skip "bash absent: the completion is not tried"
fi

# The installed commands find the daemon at the default home, with no
# MOKU_HOME and no --home.
unset MOKU_HOME
# Never a daemon in the real default home: the build must point into $TMP.
if ! "$U/bin/moku" serve --help | grep -q "$SPOOL"; then
    fail "the installed moku's default home is $SPOOL"
    done_checks
    exit 0
fi
mkdir -p "$SPOOL"
chmod 755 "$TMP" "$SPOOL"
printf 'RMPOLLINTERVAL 1\nNODECFG[n1] PROCS=1\n' >"$SPOOL/maui.cfg"
"$U/bin/moku" serve >"$TMP/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; lib_cleanup' EXIT
i=0
while [ $i -lt 50 ] && ! timeout 5 "$U/bin/showq" >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
timeout 5 "$U/bin/showq" >"$TMP/out" 2>&1
check "installed showq, no MOKU_HOME: answered by the daemon at the default home" sh -c "[ $? -eq 0 ] && grep -q 'Active Jobs' $TMP/out"
[ -S "$SPOOL/moku.sock" ] || { cat "$TMP/serve.log" "$TMP/out"; ls -la "$SPOOL"; }
check "moku serve with no --home served the default home" [ -S "$SPOOL/moku.sock" ]
check "the pidfile names the daemon" [ "$(cat "$SPOOL/moku.pid" 2>/dev/null)" = "$pid" ]
check "the log's stamps carry the time zone" grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} [+-][0-9]{4} 0 moku serving' "$SPOOL/log/maui.log"
MOKU_HOME=$TMP/elsewhere timeout 5 "$U/bin/showq" >/dev/null 2>&1
check "MOKU_HOME still wins over the default" [ $? -ne 0 ]
timeout 5 "$U/bin/showq" --home "$TMP/elsewhere" >/dev/null 2>&1
check "--home still wins over the default" [ $? -ne 0 ]
timeout 5 "$U/bin/schedctl" -k >/dev/null 2>&1
i=0
while [ $i -lt 50 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
check "stopped: the pidfile is removed" [ ! -e "$SPOOL/moku.pid" ]

mk uninstall DESTDIR="$D" >"$TMP/make.log" 2>&1
check "make uninstall" [ $? -eq 0 ]
left=$(find "$D" ! -type d | grep -v "^$D$SPOOL" | head -n 5)
check "... removes every file install put${left:+ (left: $left)}" [ -z "$left" ]
done_checks
