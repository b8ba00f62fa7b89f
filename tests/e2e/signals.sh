#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Signals during 1000 Hz sampling: the signals tracee sends itself SIGUSR1
# and SIGRTMIN..+7 one at a time with a handshake (process- and
# thread-directed, with si_value), and forks children reaped from its
# SIGCHLD handler. Every signal must be handled exactly once with its
# siginfo intact, and every child reaped (the tracee exits 0 when so).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

profile_attached signals 3 attach -r 1000
grep '^signals:' "$T/signals.log" | sed "s/^/$ME: attach: /" || true
[ "$TRACEE_RC" = 0 ] ||
	fail "attach: signals tracee exited $TRACEE_RC (signals lost, late or altered)"
expect_rc 0 "attach: rbflame -r 1000 -p PID"
assert_collapsed "$T/attach.folded" "signals attach"
assert_share "$T/attach.folded" '(^|;)spin_signals(;|$)' 1 \
	"signals attach: spin_signals"

run_rbflame launch 40 -r 1000 -o "$T/launch.folded" -- \
	"$TRACEES/signals" 2
grep '^signals:' "$T/launch.out" | sed "s/^/$ME: launch: /" || true
expect_rc 0 "launch: rbflame -r 1000 -- signals 2 (the child's status)"
assert_collapsed "$T/launch.folded" "signals launch"
