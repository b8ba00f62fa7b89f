#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Job control survives profiling: a target stopped (SIGSTOP, Ctrl-Z) before
# the attach stays stopped through and after the run; a target stopped and
# continued while traced does stop and continue; detaching from a stopped
# target leaves it stopped (T), and SIGCONT then resumes it. rbflame never
# resumes what the user stopped, nor leaves stopped what was running.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

state() {
	stat_state "/proc/$1/stat"
}

# wait_state PID LETTERS SECS: until PID's state is one of LETTERS.
wait_state() {
	local n s
	n=$(perl -e 'print int($ARGV[0] * 50)' "$3")
	for (( ; ; )); do
		s=$(state "$1") || fail "process $1 is gone"
		case $s in [$2]) return 0 ;; esac
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "process $1 in state $s, want one of $2"
		sleep 0.02
	done
}

start_tracee stack-fcall -r "$T/ready"
wait_ready "$T/ready" 10 "$TPID"

# Stopped before the attach.
kill -STOP "$TPID"
wait_state "$TPID" T 5
run_rbflame stopped 20 -p "$TPID" -s 1 -r 200 -o "$T/stopped.folded"
expect_rc 0 "rbflame -p STOPPED-PID -s 1"
assert_collapsed "$T/stopped.folded" "stopped target" allow-empty
wait_untraced "$TPID" 2
sleep 0.3
[ "$(state "$TPID")" = T ] ||
	fail "a stopped target was left in state $(state "$TPID"), want T"
say "stopped before the attach: still T after the run" \
	"($(total_samples "$T/stopped.folded") samples)"
kill -CONT "$TPID"
wait_state "$TPID" R 5
assert_running "$TPID" 3 0.1

# Stopped and continued while traced, then detached while stopped.
start_rbflame traced -p "$TPID" -r 500 -o "$T/traced.folded"
wait_traced "$TPID" 10 "$RBPID"
sleep 0.3
kill -STOP "$TPID"
wait_state "$TPID" tT 5
sleep 0.3
[ "$(state "$TPID")" != R ] || fail "SIGSTOP while traced: target runs on"
say "SIGSTOP while traced: state $(state "$TPID")"
kill -CONT "$TPID"
wait_state "$TPID" R 5
say "SIGCONT while traced: running again"
kill -STOP "$TPID"
wait_state "$TPID" tT 5
kill -INT "$RBPID"
wait_rbflame 10 || fail "rbflame still running 10 s after SIGINT"
expect_rc 0 "rbflame after SIGINT"
assert_collapsed "$T/traced.folded" "stop/continue while traced"
wait_untraced "$TPID" 2
sleep 0.3
[ "$(state "$TPID")" = T ] ||
	fail "detached from a stopped target, it is in state $(state "$TPID"), want T"
say "detached while stopped: still T"
kill -CONT "$TPID"
wait_state "$TPID" R 5
assert_running "$TPID" 3 0.1
say "SIGCONT after the detach: running"
