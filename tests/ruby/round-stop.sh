#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# A round of several processes begins by interrupting every process's GVL
# holder, then waits for each (run.c's tick_all()): a stop request that
# lands inside a round must leave none of those interrupts behind. Two
# forks.rb masters (8 processes, 6 of them spinning workers) profiled
# with '-p A,B --subprocesses -r 500', SIGINT at a varied moment, 12
# times (each after the attach line): each run exits 0 with its profile
# written (a few empty ones, with no sample before the SIGINT, on a slow
# machine), and after each every thread of the 8 processes is untraced
# and neither in a tracing stop nor stopped.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

start_fixture a forks.rb once 60
A=$TPID
start_fixture b forks.rb once 60
B=$TPID
procs="$A $B $(awk '$1 == "worker" { print $3 }' "$T/a.log" "$T/b.log" |
	tr '\n' ' ')"
[ "$(echo $procs | wc -w)" = 8 ] || fail "want 8 processes, got: $procs"

empty=0
for i in $(seq 12); do
	start_rbflame r$i -p "$A,$B" --subprocesses -r 500 -o "$T/r$i.folded"
	# Attached: then 0.8 to 1.35 s, past the first round (each process's
	# symbols read: 0.4 s for the 8 under ASan), somewhere in a round.
	wait_line "$T/r$i.err" '^rbflame: following ' 30 "$RBPID"
	sleep "$(perl -e "printf '%.3f', 0.8 + (($i * 47) % 550) / 1000")"
	kill -INT "$RBPID"
	wait_rbflame 20 || fail "run $i: rbflame still running 20 s after SIGINT"
	expect_rc 0 "run $i: rbflame -p A,B --subprocesses, SIGINT"
	# A machine slow enough to take no sample before the SIGINT (ASan
	# under a loaded make check) writes an empty profile and says so;
	# a few such runs are its slowness, more are a fault.
	if [ ! -s "$T/r$i.folded" ]; then
		grep -q '^rbflame: no samples were collected' "$T/r$i.err" ||
			fail "run $i: no profile written"
		empty=$((empty + 1))
		[ "$empty" -le 3 ] || fail "$empty of $i runs took no sample"
	fi
	for p in $procs; do
		wait_untraced "$p" 2
		assert_running "$p" 1 0
	done
done
n=$(grep -c '^process ' "$T/r12.folded" || true)
say "12 runs stopped by SIGINT mid-run ($empty before their first sample);" \
	"every one of the 8 processes untraced and running after each;" \
	"last profile: $n stacks, $(total_samples "$T/r12.folded") samples"
