#!/bin/sh
# Users made while this test runs (run as root). One that another lane's
# test said it made (that test's .made file, beside this one's directory):
# not put on this test, though its text names it (mokuharnessb). One this
# test said it made, under a name its text does not spell: put on it.
run=${MOKU_TEST_RUN%/}
echo mokuharnessb >>"${run%/*}/other.made"
useradd -M -s /bin/sh mokuharnessb
u=mokuharness
echo "${u}c" >>"$run.made"
useradd -M -s /bin/sh "${u}c"
echo "ok 1 - made two users"
echo "# done_checks"
