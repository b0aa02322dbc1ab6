#!/bin/sh
# The engine's layers (issue 29 §1), measured from the code: no core/ or
# policy/ file includes engine/'s header; calls go down (engine -> policy ->
# core); no circle of calls crosses a folder; none within the engine's
# folders holds more than six objects. tests/tools/layers.py reads the
# includes of src/ and the calls of the objects make built (BUILD, default
# build) and prints the ok / not ok lines itself.
here=$(pwd)
exec python3 "$here/tests/tools/layers.py" "$here/src" "$here/${BUILD:-build}"
