#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Attach mode failures: exit status 1 and one "rbflame: " line on stderr,
# for a pid that does not exist, a target another tracer holds (the
# message must say so), and an output file that cannot be created; the
# target is left running and untraced (by us) every time.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

# No such process: the pid of a process that just exited (pids are not
# reused until they wrap).
dead=$(dead_pid)
run_rbflame nopid 10 -p "$dead" -s 1 -o "$T/nopid.folded"
expect_rc 1 "rbflame -p NONEXISTENT"
assert_error_line "$T/nopid.err" "rbflame -p NONEXISTENT"
[ ! -s "$T/nopid.out" ] || fail "rbflame -p NONEXISTENT: output on stdout"
say "no such pid: exit 1: $(cat "$T/nopid.err")"

# Another tracer holds the main thread of the threads tracee. rbflame must
# fail, and leave none of the worker threads traced by it or stopped.
start_tracee threads -r "$T/threads.ready"
tracee=$TPID
wait_ready "$T/threads.ready" 10 "$tracee"
"$TRACEES/ptrace-hold" -r "$T/hold.ready" "$tracee" >"$T/hold.log" 2>&1 &
holder=$!
track "$holder"
wait_ready "$T/hold.ready" 10 "$holder"
run_rbflame traced 10 -p "$tracee" -s 1 -o "$T/traced.folded"
expect_rc 1 "rbflame -p PID-traced-by-another"
assert_error_line "$T/traced.err" "rbflame -p PID-traced-by-another"
grep -Eqi 'trac(er|ed)|debugger' "$T/traced.err" ||
	fail "the error does not say another tracer holds the target:" \
		"$(cat "$T/traced.err")"
say "already traced: exit 1: $(cat "$T/traced.err")"
[ "$(tracer_of "$tracee")" = "$holder" ] ||
	fail "the other tracer lost the target (TracerPid $(tracer_of "$tracee"))"
for d in /proc/"$tracee"/task/*; do
	[ "${d##*/}" = "$tracee" ] && continue
	[ "$(tracer_of "$d")" = 0 ] ||
		fail "worker ${d##*/} left traced by $(tracer_of "$d")"
done
assert_running "$tracee" 4 0.1
kill_tracee "$holder"
wait_untraced "$tracee" 2

# Unwritable output: a runtime failure (1), and the target is let go.
run_rbflame badout 10 -p "$tracee" -s 1 -o "$T/no-such-dir/out.folded"
expect_rc 1 "rbflame -o UNWRITABLE"
assert_error_line "$T/badout.err" "rbflame -o UNWRITABLE"
say "unwritable output: exit 1: $(cat "$T/badout.err")"
wait_untraced "$tracee" 2
assert_running "$tracee" 4 0.1
