#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Launch mode exit status: the child's own status, 128+N when a signal N
# killed it, 127 when the command is not found, 126 when it cannot be
# executed; errors are one "rbflame: " line.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

fcall=$TRACEES/stack-fcall

# status WANT TAG ARGS...: rbflame -q ARGS exits WANT with a valid profile.
status() {
	local want=$1 tag=$2
	shift 2
	run_rbflame "$tag" 30 -q -r 200 -o "$T/$tag.folded" "$@"
	expect_rc "$want" "rbflame $*"
	assert_collapsed "$T/$tag.folded" "$tag" allow-empty
	say "exit status $RC: rbflame -q -r 200 -o FILE $*"
}

status 0 exit0 -- "$fcall" 0.3
assert_share "$T/exit0.folded" "$CHAIN_RE" 80 "exit 0 child"
status 3 exit3 -- "$fcall" -e 3 0.3
assert_share "$T/exit3.folded" "$CHAIN_RE" 80 "exit 3 child"
status 143 sigterm -- "$fcall" -k 15 0.3
assert_share "$T/sigterm.folded" "$CHAIN_RE" 80 "child killed by SIGTERM"
status 137 sigkill -- "$fcall" -k 9 0.3
status 134 sigabrt -- "$fcall" -k 6 0.3
# Children that exit before (almost) any sample.
status 1 false -- false
status 5 sh-exit5 -- sh -c 'exit 5'

# A child that execs and exits at once, many times over: the exec and the
# exit can reach rbflame together (more often when rbflame is preempted:
# two spinning tracees keep the CPUs busy), and every run must still
# report the child's status, not a failed exec.
start_tracee stack-fcall 10
spin1=$TPID
start_tracee stack-fcall 10
spin2=$TPID
bad=0
for i in $(seq 60); do
	rc=0
	timeout -k 5 10 "$RBFLAME" -q -r 200 -o "$T/quick.folded" -- false \
		2>"$T/quick.err" </dev/null || rc=$?
	if [ "$rc" != 1 ]; then
		bad=$((bad + 1))
		say "run $i of rbflame -- false: exit $rc: $(cat "$T/quick.err")"
	fi
done
[ "$bad" = 0 ] ||
	fail "rbflame -- false: $bad of 60 runs did not exit with the child's status 1"
say "rbflame -- false, 60 runs: exit status 1 every time"
kill_tracee "$spin1"
kill_tracee "$spin2"

# Command not found: 127, one error line, by path and by PATH search.
run_rbflame enoent 10 -o "$T/enoent.folded" -- "$T/no-such-program"
expect_rc 127 "rbflame -- /nonexistent/program"
assert_error_line "$T/enoent.err" "rbflame -- /nonexistent/program"
say "not found by path: 127: $(cat "$T/enoent.err")"
run_rbflame enoent-path 10 -- "rbflame-e2e-no-such-command-$$"
expect_rc 127 "rbflame -- no-such-command (PATH search)"
assert_error_line "$T/enoent-path.err" "rbflame -- no-such-command"
say "not found in PATH: 127: $(cat "$T/enoent-path.err")"

# Not executable: 126.
printf '#!/bin/sh\nexit 0\n' >"$T/not-executable"
chmod 644 "$T/not-executable"
run_rbflame eacces 10 -- "$T/not-executable"
if [ "$(id -u)" = 0 ] && [ "$RC" = 0 ]; then
	fail "root could execute a mode 644 file?"
fi
expect_rc 126 "rbflame -- mode-644-file"
assert_error_line "$T/eacces.err" "rbflame -- mode-644-file"
say "not executable: 126: $(cat "$T/eacces.err")"
