#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Fork and thread churn at 1000 Hz: threads created and joined, children
# forked (also from non-main threads) and posix_spawn'ed, all the time.
# rbflame must keep up and exit 0, its output must parse, and the tracee
# must see every thread and child behave (exit status 0).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

# Attach mode: rbflame runs until the target exits.
profile_attached churn 3 attach -r 1000
say "attach: $(grep '^churn:' "$T/churn.log" || true)"
[ "$TRACEE_RC" = 0 ] || fail "attach: churn tracee exited $TRACEE_RC"
expect_rc 0 "attach: rbflame -r 1000 -p PID"
assert_collapsed "$T/attach.folded" "churn attach"
assert_share "$T/attach.folded" '(^|;)main(;|$)' 1 "churn attach: main"

# Launch mode: rbflame's status is the child's.
run_rbflame launch 40 -r 1000 -o "$T/launch.folded" -- \
	"$TRACEES/churn" 2
say "launch: $(grep '^churn:' "$T/launch.out" || true)"
expect_rc 0 "launch: rbflame -r 1000 -- churn 2"
assert_collapsed "$T/launch.folded" "churn launch"
