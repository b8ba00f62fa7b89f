#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Soak: the quick end-to-end checks again, for 20 s each at 1000 Hz.
# Signals with a handshake must all be handled and every child reaped;
# threads in restartable syscalls must never see EINTR and those in
# non-restartable ones must never be interrupted; thread and process
# churn must not trip the tracer; rbflame must exit 0 every time.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"

SECS=${SOAK_SECONDS:-20}

profile_attached signals "$SECS" signals -r 1000
grep '^signals:' "$T/signals.log" | sed "s/^/$ME: signals: /" || true
[ "$TRACEE_RC" = 0 ] ||
	fail "signals: tracee exited $TRACEE_RC (signals lost, late or altered)"
expect_rc 0 "signals: rbflame -r 1000 -p PID for $SECS s"
assert_collapsed "$T/signals.folded" "soak signals"

profile_attached syscalls "$SECS" syscalls -r 1000
grep '^syscalls:' "$T/syscalls.log" | sed "s/^/$ME: syscalls: /" || true
require_syscalls_covered "$T/syscalls.log"
[ "$TRACEE_RC" = 0 ] ||
	fail "syscalls: tracee exited $TRACEE_RC (EINTR, early return or a lost signal)"
expect_rc 0 "syscalls: rbflame -r 1000 -p PID for $SECS s"
assert_collapsed "$T/syscalls.folded" "soak syscalls" allow-empty

profile_attached churn "$SECS" churn -r 1000
[ "$TRACEE_RC" = 0 ] || fail "churn: tracee exited $TRACEE_RC"
expect_rc 0 "churn: rbflame -r 1000 -p PID for $SECS s"
assert_collapsed "$T/churn.folded" "soak churn"
say "soak: signals, syscalls and churn held for $SECS s each at 1000 Hz"
