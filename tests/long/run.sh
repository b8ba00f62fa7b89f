#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make check-long: the long tier (soak, the GC share, the GVL split;
# faults and fuzzing to come).
# Runs each script under tests/long/ in turn and fails if any fails.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
pass=0 failed=0
for t in "$dir"/soak.sh "$dir"/gcshare.sh "$dir"/gvlshare.sh; do
	name=${t##*/}
	start=$(date +%s)
	if bash "$t"; then
		pass=$((pass + 1))
		echo "PASS: long/$name ($(($(date +%s) - start)) s)"
	else
		failed=$((failed + 1))
		echo "FAIL: long/$name ($(($(date +%s) - start)) s)"
	fi
done
echo "check-long: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
