#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Remakes the seeds of fuzz_diff: each is BASE's length (4 bytes,
# little-endian), BASE, NEW. Usage: mkdiff.sh BASE NEW diff/NAME.
[ $# = 3 ] || { echo "usage: $0 BASE NEW OUT" >&2; exit 2; }
perl -e 'print pack("V", -s $ARGV[0])' "$1" >"$3"
cat "$1" "$2" >>"$3"
