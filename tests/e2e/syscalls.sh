#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Blocking system calls during 1000 Hz sampling: threads sit in read,
# accept, futex, wait4 (restartable; SIGUSR2 with SA_RESTART hits them
# too), nanosleep, select, poll (restarted after a stop) and epoll_wait,
# sigtimedwait, io_uring_enter (never restarted: a profiler must not stop
# them there; doc/syscalls.md).
# None may see EINTR or return early; the tracee exits 0 when so. Then the
# blocked threads' stacks must be whole, however rbflame read them.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

profile_attached syscalls 3 attach -r 1000
grep '^syscalls:' "$T/syscalls.log" | sed "s/^/$ME: attach: /" || true
require_syscalls_covered "$T/syscalls.log"
[ "$TRACEE_RC" = 0 ] ||
	fail "attach: syscalls tracee exited $TRACEE_RC (EINTR or early return)"
expect_rc 0 "attach: rbflame -r 1000 -p PID"
assert_collapsed "$T/attach.folded" "syscalls attach" allow-empty

run_rbflame launch 40 -r 1000 -o "$T/launch.folded" -- \
	"$TRACEES/syscalls" 2
grep '^syscalls:' "$T/launch.out" | sed "s/^/$ME: launch: /" || true
expect_rc 0 "launch: rbflame -r 1000 -- syscalls 2 (the child's status)"
assert_collapsed "$T/launch.folded" "syscalls launch" allow-empty

# Whole stacks: main's reaches main, each worker's goes from libc's thread
# start into its blocked_* function (or the ticker), whether rbflame
# stopped the thread or read it while blocked.
WHOLE_RE="(^|;)main(;|\$)|(^|;)$LIBC_FRAME;(blocked_[a-z0-9_]+|ticker)(;|\$)"
for mode in attach launch; do
	[ -s "$T/$mode.folded" ] || continue
	assert_share "$T/$mode.folded" "$WHOLE_RE" 98 \
		"syscalls $mode: whole stacks"
done
