#!/bin/sh
# A test that hangs, with a child in the background: the time limit ends both.
echo "ok 1 - before the hang"
sleep 300 &
sleep 300
echo "ok 2 - never printed"
