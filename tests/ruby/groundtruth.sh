#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# 'rbflame dump -p PID' against Ruby's own account: the groundtruth fixture
# parks three threads deep in methods, blocks and C functions and writes,
# from Thread#backtrace_locations, what the dump of each must say (labels
# turned into Ruby 3.4's convention with the owners Ruby reports). The
# dump must agree frame for frame: label, absolute path, line (a C
# function with its caller's path and line), thread id and name; only the
# hex digits of an anonymous class may differ. The dump has the documented
# shape (blocks separated by blank lines, root first), rbflame exits 0 and
# the target runs on, untraced. Then a spinning process: its one thread
# holds the GVL and its stack is exactly <main> -> Geometry::Shape#area.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"
require_ruby_c_iterators

# Anonymous classes: any hex digits.
normalize() {
	sed -E 's/#<Class:0x[0-9a-f]+>/#<Class:0x@HEX@>/g'
}

start_fixture gt groundtruth.rb "$T/expected.txt"
[ -s "$T/expected.txt" ] || fail "the fixture wrote no expected.txt"
run_rbflame dump 30 dump -p "$TPID"
expect_rc 0 "rbflame dump -p PID (parked threads)"
r=$(check_dump "$T/dump.out" 2>&1) ||
	fail "dump output malformed: $r"
say "dump: $r"

# Every thread the fixture describes, frame for frame.
tids=$(sed -n 's/^thread \([0-9]*\) .*/\1/p' "$T/expected.txt")
[ "$(printf '%s\n' "$tids" | wc -l)" = 3 ] ||
	fail "expected.txt does not describe 3 threads"
for tid in $tids; do
	perl -00 -ne "print if /^thread $tid \"/" "$T/expected.txt" |
		sed '/^$/d' | normalize >"$T/want.$tid"
	dump_block "$T/dump.out" "$tid" | normalize >"$T/got.$tid"
	name=$(sed -n '1s/^thread [0-9]* "\(.*\)"$/\1/p' "$T/want.$tid")
	nf=$(($(wc -l <"$T/want.$tid") - 1))
	[ -s "$T/got.$tid" ] ||
		fail "thread $tid \"$name\": not in the dump"
	if ! diff -u "$T/want.$tid" "$T/got.$tid" >"$T/diff.$tid"; then
		cat "$T/diff.$tid" >&2
		fail "thread $tid \"$name\": the dump differs from" \
			"backtrace_locations (diff above: - Ruby, + rbflame)"
	fi
	[ -d "/proc/$TPID/task/$tid" ] ||
		fail "thread $tid \"$name\": no task $tid in /proc/$TPID/task"
	say "groundtruth/$name: thread $tid, $nf frames agree with" \
		"backtrace_locations, leaf $(tail -n 1 "$T/want.$tid" | sed 's/^  //')"
done
wait_untraced "$TPID" 2
assert_running "$TPID" 3 0.1
kill_tracee "$TPID"

# A spinning process: one thread, holding the GVL, the exact stack.
FX=geometry.rb
start_fixture area geometry.rb area
want=$(expand_stack '<main> {main-area};Geometry::Shape#area {area}')
printf 'thread %s "main" gvl\n' "$TPID" >"$T/want.area"
printf '%s\n' "$want" | tr ';' '\n' | sed 's/^/  /' >>"$T/want.area"
run_rbflame area-dump 30 dump -p "$TPID"
expect_rc 0 "rbflame dump -p PID (spinning)"
r=$(check_dump "$T/area-dump.out" 2>&1) ||
	fail "dump output malformed: $r"
if ! diff -u "$T/want.area" "$T/area-dump.out" >"$T/diff.area"; then
	cat "$T/diff.area" >&2
	fail "dump of the spinning geometry fixture: want (-), got (+)"
fi
say "groundtruth/spinning: dump is exactly 'thread $TPID \"main\" gvl'" \
	"+ <main> + Geometry::Shape#area ($r)"
wait_untraced "$TPID" 2
assert_running "$TPID" 3 0.1
