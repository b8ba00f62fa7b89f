#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# --native on six Ruby threads (tests/ruby/fixtures/threads.rb: five
# workers spinning in Ruby and sharing the GVL, the main thread asleep):
# every thread but the holder is stopped on its own (or, asleep in a
# non-restartable call, not at all) while the holder is stopped, and its
# stacks woven. 'rbflame --native --threads -p PID -s 2 -r 100': per
# thread, >= 90% of its samples are
#
#   thread TID "w-NAME";NATIVE...;block in Object#hire;Crew#NAME;NATIVE...
#   thread TID "main";NATIVE...;<main>;Kernel#sleep;NATIVE...;(blocked)
#
# (native root frames from clone3 or _start, the Ruby frames in order,
# then the libc frames of the GVL wait or of the sleep), and no stack is
# [unwoven]. The target keeps running and is left untraced.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../ruby/lib-ruby.sh"
. "$(dirname "$0")/lib-native.sh"
require_root
require_ruby_c_iterators

FIXTURES=$(cd "$top_srcdir/tests/ruby/fixtures" && pwd -P)
FX=threads.rb
start_fixture threads "$FX"
run_rbflame threads 30 --native --threads -p "$TPID" -s 2 -r 100 \
	-o "$T/threads.folded"
expect_rc 0 "rbflame --native --threads -p PID -s 2 -r 100"
assert_collapsed "$T/threads.folded" "threads"
n=$(grep -c '\[unwoven\]' "$T/threads.folded" || true)
[ "$n" = 0 ] || {
	grep '\[unwoven\]' "$T/threads.folded" | head -n 3 >&2
	fail "threads: $n stacks [unwoven]"
}
N='(?:;[^;:]+)*'
# Between two million-step runs a worker asks Fixture.done? (then
# Fixture.now, Process.clock_gettime): the GVL may change hands there.
D="(?:;$(qm "$(expand_stack 'Fixture.done? {fixture.rb:done}')")(?:;$(qm "$(expand_stack 'Fixture.now {fixture.rb:now}')")(?:;$(qm "$(expand_stack 'Process.clock_gettime {fixture.rb:now}')"))?)?)?"
while read -r _ name tid; do
	within="^thread $tid \""
	if [ "$name" = main ]; then
		s=$(expand_stack "<main> {main-sleep};Kernel#sleep {main-sleep}")
		# From its sleep on: before it, main may still be finishing
		# the write of "ready", waiting to take the GVL back from the
		# spinners (seen: 82.5% of its samples asleep).
		within="^thread $tid \"main\"$N;$(qm "$(expand_stack "<main> {main-sleep};Kernel#sleep {main-sleep}")");"
	else
		s=$(expand_stack "block in Object#hire {hire-${name#w-}};Crew#${name#w-} {${name#w-}}")
	fi
	assert_share "$T/threads.folded" \
		"^thread $tid \"$name\"$N;$(qm "$s")$D$N\$" 90 "thread $name" \
		"$within"
done < <(grep '^thread ' "$T/threads.log")

# Every stop of --native is unwound, so its registers are fetched whole
# at once (PTRACE_GETREGS), never orig_rax first (the PTRACE_PEEKUSER
# of a Ruby-mode hold, 1.5 us more). Under strace: one GETREGS at least
# for each PTRACE_CONT of a stop, and no PEEKUSER. (ASan's leak check
# cannot run under another tracer.)
require_cmd strace
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=ptrace -o "$T/strace.out" \
	"$RBFLAME" --native -p "$TPID" -s 1 -r 50 -o "$T/strace.folded" \
	2>"$T/strace.err" ||
	fail "rbflame --native under strace: $(tail -n 2 "$T/strace.err")"
read -r peeks regs conts <<<"$(perl -ne '
	$p++ if /ptrace\(PTRACE_PEEKUSER,/;
	$g++ if /ptrace\(PTRACE_GETREGS,/;
	$c++ if /ptrace\(PTRACE_CONT,/;
	END { printf "%d %d %d\n", $p, $g, $c }' "$T/strace.out")"
say "--native under strace: $regs PTRACE_GETREGS, $peeks PTRACE_PEEKUSER, $conts PTRACE_CONT"
[ "$conts" -ge 20 ] || fail "--native under strace: only $conts resumes in 1 s at 50 Hz"
[ "$peeks" = 0 ] || fail "--native under strace: $peeks PTRACE_PEEKUSER (want none)"
[ "$regs" -ge "$conts" ] ||
	fail "--native under strace: $regs PTRACE_GETREGS for $conts resumes"
wait_untraced "$TPID" 2
assert_running "$TPID" 1 0
kill_tracee "$TPID"
