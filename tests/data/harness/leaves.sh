#!/bin/sh
# A test that leaves a process running: detached (its own session), out of
# its directory; its environment still names the test.
cd / && setsid sleep 300 </dev/null >/dev/null 2>&1 &
echo "ok 1 - left a sleep behind"
echo "# done_checks"
