#!/bin/sh
# The engine's layers (issue 29 §1), measured from the code: no core/ or
# policy/ file includes engine/'s header, no driver the engine's inside;
# calls go down (engine -> policy -> core); no circle of calls crosses a
# folder; none within the engine's folders holds more than six objects.
# tests/tools/layers.py reads the includes of src/ and the calls of the
# objects make built (BUILD, default build) and prints those ok / not ok
# lines; the last check plants an include of the façade in a copy of a
# policy file and wants the tool to see it.
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
    echo "ok 6 - a policy file that includes engine/engine.h is seen"
else
    echo "not ok 6 - a policy file that includes engine/engine.h is seen"
    rc=1
fi
exit $rc
