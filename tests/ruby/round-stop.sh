#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# A round of several processes begins by interrupting every process's GVL
# holder, then waits for each (run.c's tick_all()): a stop request that
# lands inside a round must leave none of those interrupts behind. Two
# forks.rb masters (8 processes, 6 of them spinning workers) profiled
# with '-p A,B --subprocesses -r 500', SIGINT at a varied moment, 12
# times: each run exits 0 with its profile written, and after each every
# thread of the 8 processes is untraced and neither in a tracing stop nor
# stopped.
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

for i in $(seq 12); do
	start_rbflame r$i -p "$A,$B" --subprocesses -r 500 -o "$T/r$i.folded"
	# 0.3 to 0.85 s: past the attach, somewhere in a round.
	sleep "$(perl -e "printf '%.3f', 0.3 + (($i * 47) % 550) / 1000")"
	kill -INT "$RBPID"
	wait_rbflame 20 || fail "run $i: rbflame still running 20 s after SIGINT"
	expect_rc 0 "run $i: rbflame -p A,B --subprocesses, SIGINT"
	[ -s "$T/r$i.folded" ] || fail "run $i: no profile written"
	for p in $procs; do
		wait_untraced "$p" 2
		assert_running "$p" 1 0
	done
done
n=$(grep -c '^process ' "$T/r12.folded" || true)
say "12 runs stopped by SIGINT mid-run; every one of the 8 processes" \
	"untraced and running after each; last profile: $n stacks," \
	"$(total_samples "$T/r12.folded") samples"
