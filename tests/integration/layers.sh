#!/bin/sh
# The engine's layers (issue 29 §1), measured from the code: no core/ or
# policy/ file includes engine/'s header, no driver the engine's inside;
# calls go down (engine -> policy -> core); no circle of calls crosses a
# folder; none within a folder holds more than six objects; calls and
# includes follow the folders' order of docs/architecture.md (none up).
# tests/tools/layers.py reads the includes of src/ and the calls of the
# objects make built (BUILD, default build) and prints those ok / not ok
# lines; the last checks plant an include of the façade in a copy of a
# policy file, one of cmd/'s header in a copy of a util/ file and one of a
# policy header in a copy of core/sched.h, and want the tool to see them.
here=$(pwd)
build="$here/${BUILD:-build}"
python3 "$here/tests/tools/layers.py" "$here/src" "$build"
rc=$?
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$here/src" "$tmp/src"
printf '#include "engine/engine.h"\n' >>"$tmp/src/policy/plan.c"
python3 "$here/tests/tools/layers.py" "$tmp/src" "$build" >"$tmp/planted" 2>&1
if grep -q "^# policy/plan.c includes engine/engine.h" "$tmp/planted"; then
    echo "ok 9 - a policy file that includes engine/engine.h is seen"
else
    echo "not ok 9 - a policy file that includes engine/engine.h is seen"
    rc=1
fi
rm -rf "$tmp/src"
cp -r "$here/src" "$tmp/src"
printf '#include "cmd/cmd.h"\n' >>"$tmp/src/util/sbuf.c"
python3 "$here/tests/tools/layers.py" "$tmp/src" "$build" >"$tmp/planted" 2>&1
if grep -q "^not ok 7 " "$tmp/planted" && grep -q "^# util/sbuf.c includes cmd/cmd.h" "$tmp/planted"; then
    echo "ok 10 - a util/ file that includes cmd/cmd.h (an include up) fails"
else
    echo "not ok 10 - a util/ file that includes cmd/cmd.h (an include up) fails"
    rc=1
fi
rm -rf "$tmp/src"
cp -r "$here/src" "$tmp/src"
printf '#include "policy/prio.h"\n' >>"$tmp/src/core/sched.h"
python3 "$here/tests/tools/layers.py" "$tmp/src" "$build" >"$tmp/planted" 2>&1
if grep -q "^not ok 7 " "$tmp/planted" && grep -q "^# core/sched.h includes policy/prio.h" "$tmp/planted"; then
    echo "ok 11 - core/sched.h that includes a policy header fails"
else
    echo "not ok 11 - core/sched.h that includes a policy header fails"
    rc=1
fi
echo "# done_checks"
exit $rc
