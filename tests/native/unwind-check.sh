#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The compiled CFI rows (src/unwind.c: struct crule) unwind as libunwind
# does. With RBFLAME_UNWIND_CHECK=1 every walk is done twice while the
# thread is held, by the compiled rows and by libunwind alone, and
# --debug counts the walks that differ. 'rbflame --native -p PID -s 2
# -r 200' (--native-all where said) on:
#
#   zlib     Zlib::Deflate.deflate: stripped zlib.so and libz, libruby
#   each     a C method calling back into Ruby (rb_yield, the VM
#            between), --native-all
#   yjit     the matrix's yjit.rb plus under 'ruby --yjit': JIT code has
#            no CFI (stepped by libunwind's frame-pointer guess) between
#            libruby's frames
#   fcall    a C program (tests/tracees/stack-fcall), -s 2
#
# each: >= 100 walks done both ways (of some 400 ticks: a loaded CI
# machine kept 278 of them for yjit, the ticks late), none differ, and
# the compiled rows stepped frames (the check would pass vacuously with
# nothing compiled).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../ruby/lib-ruby.sh"
. "$(dirname "$0")/lib-native.sh"
require_root

build_ext "$T/ext"
export RBFT_EXT=$T/ext

# checked TAG ARGS...: rbflame ARGS -p $TPID -s 2 -r 200 with the check
# on; the walks agree.
checked() {
	local tag=$1 line walks differ compiled
	shift
	export RBFLAME_UNWIND_CHECK=1
	run_rbflame "$tag" 30 --debug "$@" -p "$TPID" -s 2 -r 200 \
		-o "$T/$tag.folded"
	unset RBFLAME_UNWIND_CHECK
	expect_rc 0 "$tag: rbflame $* -p PID -s 2 -r 200 (RBFLAME_UNWIND_CHECK=1)"
	assert_collapsed "$T/$tag.folded" "$tag"
	line=$(grep -E 'unwind check: [0-9]+ walks done both ways' "$T/$tag.err") ||
		fail "$tag: no 'unwind check' line in --debug's output"
	walks=$(sed -n 's/.*unwind check: \([0-9]*\) walks.*/\1/p' <<<"$line")
	differ=$(sed -n 's/.*both ways, \([0-9]*\) differ.*/\1/p' <<<"$line")
	compiled=$(sed -n 's/.*unwind: \([0-9]*\) steps by compiled rows.*/\1/p' \
		"$T/$tag.err")
	say "$tag: $line; $(grep -o 'unwind: .*' "$T/$tag.err" | head -n 1)"
	[ "${walks:-0}" -ge 100 ] || fail "$tag: only ${walks:-0} walks checked"
	if [ "$differ" != 0 ]; then
		grep 'walks differ' "$T/$tag.err" >&2
		fail "$tag: $differ of $walks walks differ from libunwind's"
	fi
	[ "${compiled:-0}" -gt 0 ] || fail "$tag: no frame stepped by a compiled row"
}

start_fixture zlib native.rb zlib
checked zlib --native
kill_tracee "$TPID"

start_fixture each native.rb each
checked each --native-all
kill_tracee "$TPID"

if "$RUBY" --yjit -e 'exit(defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? 0 : 1)' 2>/dev/null; then
	# Beside the fixtures' common part, as the matrix runs it.
	mkdir -p "$T/yjit"
	cp "$top_srcdir/tests/matrix/fixtures/yjit.rb" \
		"$top_srcdir/tests/ruby/fixtures/fixture.rb" "$T/yjit/" ||
		fail "cannot copy the yjit fixture"
	"$RUBY" --yjit "$T/yjit/yjit.rb" plus >"$T/yjit.log" 2>&1 </dev/null &
	TPID=$!
	track "$TPID"
	wait_line "$T/yjit.log" '^ready$' 20 "$TPID"
	grep -q '^yjit on$' "$T/yjit.log" || fail "yjit: $(head -n 1 "$T/yjit.log")"
	checked yjit --native
	kill_tracee "$TPID"
else
	say "yjit: $RUBY has no YJIT: not checked"
fi

start_tracee stack-fcall -r "$T/ready"
wait_ready "$T/ready" 10 "$TPID"
checked fcall
kill_tracee "$TPID"
say "compiled rows and libunwind walked every stack alike"
