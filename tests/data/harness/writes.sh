#!/bin/sh
# A test that writes a file into the checkout (the directory it runs in).
echo stray >harness-stray.out
echo "ok 1 - wrote a file"
echo "# done_checks"
