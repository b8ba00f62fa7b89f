#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Without privileges: a user profiles its own process (attach and launch)
# with the same result as root; attaching to another user's (root's)
# process fails with exit 1 and one "rbflame: " line that says why. With
# Yama ptrace_scope 1, attaching to a non-child fails and the message must
# name Yama/ptrace_scope; launch mode still works.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

require_root
require_cmd setpriv useradd

user=rbflame-test
if ! id -u "$user" >/dev/null 2>&1; then
	useradd --system --no-create-home --home-dir /nonexistent \
		--shell /usr/sbin/nologin "$user" ||
		fail "useradd $user failed"
	say "created user $user"
fi
as_user=(setpriv --reuid="$user" --regid="$user" --init-groups --)

# The binaries, where the user can run them: the build tree may not be
# reachable by other users.
chmod 755 "$T"
U=$T/u
mkdir "$U"
cp "$RBFLAME" "$U/rbflame"
cp "$TRACEES/stack-fcall" "$U/stack-fcall"
chown "$user:" "$U"
RBFLAME=$U/rbflame
"${as_user[@]}" test -x "$RBFLAME" || fail "user $user cannot run $RBFLAME"

# Yama: 0 or absent lets a user attach to its own processes. Where it is 1
# and can be changed, run the attach with 0 and check the diagnosis with 1.
yama=/proc/sys/kernel/yama/ptrace_scope
scope=0
if [ -e "$yama" ]; then
	scope=$(cat "$yama")
	say "Yama ptrace_scope is $scope"
	if [ "$scope" != 0 ] && [ "$scope" != 3 ] &&
		echo 0 2>/dev/null >"$yama"; then
		on_exit "echo $scope >$yama"
		yama_saved=$scope
		scope=0
	fi
else
	say "Yama is not present: ptrace_scope 0 rules"
fi

# Same user, attach mode.
"${as_user[@]}" "$U/stack-fcall" -r "$U/ready" >"$T/user-tracee.log" 2>&1 &
TPID=$!
track "$TPID"
wait_ready "$U/ready" 10 "$TPID"
RUN_AS=("${as_user[@]}")
if [ "$scope" = 0 ]; then
	run_rbflame attach 20 -p "$TPID" -s 2 -r 200 -o "$U/attach.folded"
	expect_rc 0 "unprivileged rbflame -p OWN-PID"
	assert_collapsed "$U/attach.folded" "unprivileged attach"
	assert_share "$U/attach.folded" "$CHAIN_RE" 95 "unprivileged attach"
else
	run_rbflame attach 20 -p "$TPID" -s 2 -r 200 -o "$U/attach.folded"
	expect_rc 1 "unprivileged rbflame -p OWN-PID under Yama ptrace_scope $scope"
	assert_error_line "$T/attach.err" "Yama ptrace_scope $scope"
	grep -Eqi 'yama|ptrace_scope' "$T/attach.err" ||
		fail "the error does not name Yama ptrace_scope: $(cat "$T/attach.err")"
	say "Yama ptrace_scope $scope: exit 1: $(cat "$T/attach.err")"
fi
if [ -n "${yama_saved:-}" ]; then
	echo "$yama_saved" >"$yama"
	run_rbflame yama 20 -p "$TPID" -s 1 -r 200 -o "$U/yama.folded"
	echo 0 >"$yama"
	expect_rc 1 "unprivileged rbflame -p OWN-PID under Yama ptrace_scope $yama_saved"
	assert_error_line "$T/yama.err" "Yama ptrace_scope $yama_saved"
	grep -Eqi 'yama|ptrace_scope' "$T/yama.err" ||
		fail "the error does not name Yama ptrace_scope: $(cat "$T/yama.err")"
	say "Yama ptrace_scope $yama_saved: exit 1: $(cat "$T/yama.err")"
fi
wait_untraced "$TPID" 2
assert_running "$TPID" 3 0.1
kill_tracee "$TPID"

# Same user, launch mode (Yama 1 allows tracing one's own children).
if [ "$scope" = 0 ] || [ "$scope" = 1 ]; then
	run_rbflame launch 30 -r 200 -o "$U/launch.folded" -- \
		"$U/stack-fcall" 1.5
	expect_rc 0 "unprivileged rbflame -- stack-fcall 1.5"
	assert_collapsed "$U/launch.folded" "unprivileged launch"
	assert_share "$U/launch.folded" "$CHAIN_RE" 95 "unprivileged launch"
fi

# Another user's process: root's.
RUN_AS=()
start_tracee stack-fcall -r "$T/root.ready"
wait_ready "$T/root.ready" 10 "$TPID"
RUN_AS=("${as_user[@]}")
run_rbflame eperm 20 -p "$TPID" -s 1 -o "$U/eperm.folded"
expect_rc 1 "unprivileged rbflame -p ROOT-PID"
assert_error_line "$T/eperm.err" "unprivileged rbflame -p ROOT-PID"
grep -Eqi 'another user|permission' "$T/eperm.err" ||
	fail "the error does not explain the permission problem: $(cat "$T/eperm.err")"
say "another user's process: exit 1: $(cat "$T/eperm.err")"
[ "$(tracer_of "$TPID")" = 0 ] || fail "root's process left traced"
assert_running "$TPID" 3 0.1
