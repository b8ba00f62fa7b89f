#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make check-long: the long tier. Runs each script listed below in turn
# (LONG_TESTS="a.sh b.sh" picks some) and fails if any fails:
#   soak.sh     the quick end-to-end checks for 20 s each at 1000 Hz
#   faults.sh   rbflame killed at random moments: the target is unharmed
#   target-dies.sh  the target exits, is killed, execs, forks 200
#               children, runs 1000 threads: rbflame ends cleanly
#   refused.sh  gdb or strace holds the target, no CAP_SYS_PTRACE: one
#               clear line, exit 1, the target untouched
#   accuracy.sh a known 60/30/10 CPU split comes out within 2 points
#   fuzz.sh     libFuzzer over rbflame's parsers of untrusted input (the
#               list: tests/fuzz/targets)
#   gcshare.sh  the (garbage collection) share matches GC.stat(:time)
#   gvlshare.sh two CPU-bound threads: each about half its samples waiting
#   weights.sh  time-weighted samples with rbflame delayed by busy loops on
#               its CPU (needs the machine: a parallel test on the
#               workload's CPU starves it)
#   ci-gate.sh  doc/ci-gate.md's recipe verbatim (tests/views/checkouts.sh):
#               on-CPU times, which tests running beside it skew
#   gate-noise.sh  12 pairs of the same code, three runs a side, under
#               CPU contention: rbflame diff --fail-above 5 always passes
#   memory.sh   2 minutes at 1000 Hz on a target making new code without
#               end: rbflame's RSS under 100 MiB and flat (bench/memory)
#   adversary.sh  a target that corrupts its own unused VM structures:
#               rbflame survives, bounded, and the target runs on
#   starved.sh  a Ruby launched at 0.4% of a CPU (nice 19 beside busy
#               loops): rbflame waits for its VM by its time, not ours
#   deb.sh      the Debian package: built, lintian clean, installed with
#               apt into a fresh bookworm chroot, profiling Ruby there
set -u
dir=$(cd "$(dirname "$0")" && pwd)
pass=0 failed=0
for t in ${LONG_TESTS:-soak.sh gcshare.sh gvlshare.sh faults.sh target-dies.sh refused.sh accuracy.sh weights.sh ci-gate.sh gate-noise.sh fuzz.sh memory.sh adversary.sh starved.sh deb.sh}; do
	t=$dir/$t
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
