#!/bin/sh
# A test that leaves a user behind (run as root).
useradd -M -s /bin/sh mokuharness
echo "ok 1 - made a user"
echo "# done_checks"
