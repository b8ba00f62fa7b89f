#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Stopping rbflame mid-run. SIGINT and SIGTERM: it stops sampling,
# detaches, writes a complete profile and exits 0. SIGKILL: the kernel
# detaches. Either way the target keeps running, no thread is left in
# t/T state, and TracerPid returns to 0; INT and TERM are acted on within
# 3 s. Done on the single-threaded chain tracee and the multi-threaded one,
# then on a busy machine; SIGKILL again several times at random moments on
# the same target, to hit a tick in progress; SIGTERM in launch mode.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

# stop_run TRACEE-PID SIG TAG DELAY: attach at 1000 Hz, send SIG to rbflame
# after DELAY s, check rbflame and the target.
stop_run() {
	local pid=$1 sig=$2 tag=$3 delay=$4 t0 dt
	start_rbflame "$tag" -p "$pid" -r 1000 -o "$T/$tag.folded"
	wait_traced "$pid" 10 "$RBPID"
	sleep "$delay"
	alive "$RBPID" || fail "$tag: rbflame exited before SIG$sig"
	t0=$(now)
	kill -s "$sig" "$RBPID"
	wait_rbflame 10 || fail "$tag: rbflame still running 10 s after SIG$sig"
	dt=$(elapsed "$t0")
	case $sig in
	INT | TERM)
		expect_rc 0 "$tag: rbflame after SIG$sig"
		# Ctrl-C must stop the run promptly, even when ticks run late.
		perl -e 'exit !($ARGV[0] <= 3)' "$dt" ||
			fail "$tag: rbflame took $dt s to exit after SIG$sig"
		assert_collapsed "$T/$tag.folded" "$tag: profile written on SIG$sig"
		grep -qi 'sample' "$T/$tag.err" ||
			fail "$tag: no summary line on stderr after SIG$sig"
		;;
	KILL)
		expect_rc 137 "$tag: rbflame after SIGKILL"
		;;
	esac
	wait_untraced "$pid" 2
	assert_running "$pid" 5 0.1
	say "$tag: SIG$sig after $delay s: rbflame exit $RC in $dt s;" \
		"target running, untraced, no thread in t/T"
}

for tracee in stack-fcall threads; do
	start_tracee "$tracee" -r "$T/$tracee.ready"
	wait_ready "$T/$tracee.ready" 10 "$TPID"
	for sig in INT TERM KILL; do
		stop_run "$TPID" "$sig" "$tracee-$sig" 0.5
	done
	kill_tracee "$TPID"
done

# The same on a busy machine (two more spinning processes): ticks run late
# all the time, and Ctrl-C must still be taken at once.
start_tracee stack-fcall
load1=$TPID
start_tracee stack-fcall
load2=$TPID
start_tracee threads -r "$T/busy.ready"
wait_ready "$T/busy.ready" 10 "$TPID"
for sig in INT TERM; do
	stop_run "$TPID" "$sig" "busy-$sig" 0.5
done
kill_tracee "$TPID"
kill_tracee "$load1"
kill_tracee "$load2"

start_tracee threads -r "$T/again.ready"
wait_ready "$T/again.ready" 10 "$TPID"
for i in 1 2 3 4; do
	stop_run "$TPID" KILL "again-$i" "0.$((RANDOM % 3 + 1))$((RANDOM % 10))"
done
kill_tracee "$TPID"

# Launch mode, SIGTERM to rbflame: the profile is still written, and the
# status is the child's (143 if rbflame passed SIGTERM on, 4 if it let the
# child finish); the child is not left stopped or traced either way.
start_rbflame launch -r 500 -- "$TRACEES/stack-fcall" -r "$T/launch.ready" -e 4 2
wait_ready "$T/launch.ready" 10
child=$(cat "$T/launch.ready")
sleep 0.5
kill -TERM "$RBPID"
wait_rbflame 10 || fail "launch: rbflame still running 10 s after SIGTERM"
case $RC in
143 | 4) ;;
*) fail "launch: rbflame exited $RC after SIGTERM, want the child's (143 or 4)" ;;
esac
assert_collapsed "$T/launch.out" "launch: profile written on SIGTERM"
if alive "$child"; then
	wait_untraced "$child" 2
	assert_running "$child" 3 0.1
	kill -KILL "$child"
fi
say "launch: SIGTERM: rbflame exit $RC, profile written, child not left stopped"
