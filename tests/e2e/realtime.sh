#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The sampling thread's priority (doc/profiling.md, "Ticks on time"):
# while rbflame samples, exactly one of its threads runs SCHED_FIFO at
# priority 1, never inherited by a fork; the target's threads stay as
# they were, during the run and after it; what rbflame launches, and
# what that forks, runs SCHED_OTHER. --no-realtime and
# RBFLAME_NO_REALTIME=1 keep every thread at normal priority, and so
# does a kernel that refuses (CAP_SYS_NICE dropped), which --debug says.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

require_root
require_cmd chrt
require_cmd setpriv

start_tracee threads -r "$T/ready"
wait_ready "$T/ready" 10 "$TPID"

# policies PID: one line per thread, "TID POLICY PRIORITY" (chrt -p).
policies() {
	local t tid
	for t in /proc/"$1"/task/*; do
		tid=${t##*/}
		chrt -p "$tid" 2>/dev/null |
			sed -n "s/.*policy: \(.*\)/\1/p; s/.*priority: \(.*\)/\1/p" |
			tr '\n' ' ' | sed "s/^/$tid /; s/ \$//"
		echo
	done
}

# target_untouched WHEN: every thread of the tracee is SCHED_OTHER.
target_untouched() {
	policies "$TPID" >"$T/target.pol"
	[ -s "$T/target.pol" ] || fail "$1: no threads of the tracee"
	if grep -v ' SCHED_OTHER 0$' "$T/target.pol" | grep -q .; then
		fail "$1: a tracee thread is not SCHED_OTHER: $(cat "$T/target.pol")"
	fi
}

# fifo_seen TAG SECS: polls rbflame's threads until one runs SCHED_FIFO
# (its line in $T/TAG.fifo) or SECS pass; false when none did.
fifo_seen() {
	local n=$(($2 * 20))
	while [ "$n" -gt 0 ]; do
		policies "$RBPID" >"$T/$1.pol"
		if grep 'SCHED_FIFO' "$T/$1.pol" >"$T/$1.fifo"; then
			return 0
		fi
		n=$((n - 1))
		sleep 0.05
	done
	return 1
}

# By default: one thread SCHED_FIFO|SCHED_RESET_ON_FORK at priority 1.
target_untouched "before"
start_rbflame rt --debug -p "$TPID" -s 3 -r 100 -o "$T/rt.folded"
fifo_seen rt 3 || fail "no thread of rbflame ran SCHED_FIFO while it sampled: $(cat "$T/rt.pol")"
[ "$(wc -l <"$T/rt.fifo")" = 1 ] ||
	fail "more than one thread of rbflame runs SCHED_FIFO: $(cat "$T/rt.fifo")"
grep -qE '^[0-9]+ SCHED_FIFO\|SCHED_RESET_ON_FORK 1$' "$T/rt.fifo" ||
	fail "the sampling thread is not SCHED_FIFO|SCHED_RESET_ON_FORK at 1: $(cat "$T/rt.fifo")"
grep -q ' SCHED_OTHER ' "$T/rt.pol" ||
	fail "rbflame's other threads are not at normal priority: $(cat "$T/rt.pol")"
target_untouched "while sampling"
wait_rbflame 20 || fail "rbflame -p PID -s 3 did not exit"
expect_rc 0 "rbflame --debug -p PID -s 3"
grep -q '^rbflame: sampling thread SCHED_FIFO, priority 1$' "$T/rt.err" ||
	fail "--debug does not say the sampling thread ran SCHED_FIFO"
target_untouched "after"
say "default: the sampling thread SCHED_FIFO 1, the tracee untouched"

# Opted out, or refused: normal priority throughout.
for how in option env refused; do
	args=(--debug -p "$TPID" -s 1.5 -r 100 -o "$T/$how.folded")
	RUN_AS=()
	case $how in
	option) args=(--no-realtime "${args[@]}") ;;
	env) RUN_AS=(env RBFLAME_NO_REALTIME=1) ;;
	refused) RUN_AS=(setpriv --bounding-set=-sys_nice --inh-caps=-sys_nice) ;;
	esac
	start_rbflame "$how" "${args[@]}"
	if fifo_seen "$how" 1; then
		fail "$how: a thread of rbflame ran SCHED_FIFO: $(cat "$T/$how.fifo")"
	fi
	wait_rbflame 20 || fail "$how: rbflame did not exit"
	expect_rc 0 "$how: rbflame -p PID -s 1.5"
	[ "$how" != refused ] ||
		grep -q '^rbflame: sampling at normal priority: SCHED_FIFO refused: ' "$T/$how.err" ||
		fail "refused: --debug does not say why it sampled at normal priority: $(grep -v 'thread .* interrupts' "$T/$how.err" | head -5)"
	say "$how: normal priority"
done
RUN_AS=()
kill_tracee "$TPID"

# Launched, and what the launched command forks: normal priority.
run_rbflame launch 20 -s 5 -o "$T/launch.folded" -- \
	sh -c 'sleep 0.5; chrt -p $$; sh -c "chrt -p \$\$"'
expect_rc 0 "rbflame -- sh -c 'chrt -p'"
[ "$(grep -c 'policy: SCHED_OTHER$' "$T/launch.out")" = 2 ] ||
	fail "the launched command or its child is not SCHED_OTHER: $(cat "$T/launch.out")"
say "launched: the command and its child SCHED_OTHER"
