#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Finding the VM without help, and refusing what cannot be read.
# - Debian's 3.3 and 3.4 export no ruby_current_vm_ptr: rbflame then
#   searches libruby's data for the VM. RBFLAME_NO_VM_EXPORT=1 makes it
#   ignore the export on this 3.1, so the search runs here for real: the
#   profile must be the same exact stack, and the VM found the same.
# - A Ruby version without a layout (RBFLAME_NO_LAYOUT hides 3.1; Debian's
#   build has no DWARF to build one from) is one error line naming the
#   version found, the versions supported and what to do, exit 1, target
#   untouched; never garbage frames. --force-version X.Y reads
#   it with that release's layout, after a warning.
# - A patch release without a layout of its own (RBFLAME_NO_LAYOUT hides
#   this very release's, here 3.1.7 or 3.1.2) is read with the nearest
#   release's, after one warning; the two place vm->objspace 8 bytes
#   apart, so the GC fields read through the wrong one must be found
#   implausible and dropped with a warning (dump --layout: 'check gc:
#   dropped'), never reported as a GC share; the frames stay exact.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"
require_ruby_c_iterators

FX=geometry.rb
want=$(expand_stack '<main> {main-area};Geometry::Shape#area {area}')
start_fixture area "$FX" area

# The VM from the export, then from the search: the same address.
RBFLAME_DEBUG=1 run_rbflame export 30 -p "$TPID" -s 0.3 -r 100 \
	-o "$T/export.folded"
expect_rc 0 "rbflame -p PID (ruby_current_vm_ptr exported)"
vm_export=$(sed -n 's/.*: vm \(0x[0-9a-f]*\) (exported).*/\1/p' "$T/export.err")
[ -n "$vm_export" ] || fail "export: no 'vm ADDR (exported)' debug line"

RBFLAME_NO_VM_EXPORT=1 RBFLAME_DEBUG=1 run_rbflame search 30 -p "$TPID" \
	-s 2 -r 200 -o "$T/search.folded"
expect_rc 0 "RBFLAME_NO_VM_EXPORT=1 rbflame -p PID -s 2 -r 200"
vm_search=$(sed -n 's/.*: vm \(0x[0-9a-f]*\) (found by search).*/\1/p' \
	"$T/search.err")
[ -n "$vm_search" ] || {
	cat "$T/search.err" >&2
	fail "search: no 'vm ADDR (found by search)' debug line"
}
[ "$vm_search" = "$vm_export" ] ||
	fail "search found vm $vm_search, the export says $vm_export"
say "search: found vm $vm_search, the same as ruby_current_vm_ptr"
assert_collapsed "$T/search.folded" "search"
assert_stacks "$T/search.folded" 95 "search/area" "$want"

# This release's own layout, and its checks.
mm=${RUBY_VERSION%.*}
run_rbflame ownlayout 30 dump -p "$TPID" --layout
expect_rc 0 "rbflame dump -p PID --layout"
grep -q "^# built-in layout: $RUBY_VERSION (.*), this release's own\$" \
	"$T/ownlayout.out" ||
	fail "dump --layout: no layout of Ruby $RUBY_VERSION's own: $(head -n 4 "$T/ownlayout.out")"
grep -q '^# check gc: passed, mode [0-9]*, GC count [0-9]*$' "$T/ownlayout.out" ||
	fail "dump --layout: the GC fields of $RUBY_VERSION's own layout did not pass: $(grep '^# check' "$T/ownlayout.out")"
say "own layout: $(sed -n 's/^# \(built-in layout\|check gc\): //p' "$T/ownlayout.out" | paste -sd ';')"

# The nearest release's layout, when this X.Y has another.
RBFLAME_NO_LAYOUT=$RUBY_VERSION run_rbflame nearest 30 dump -p "$TPID" --layout
if grep -q "^# built-in layout: $mm\.[0-9]* " "$T/nearest.out"; then
	expect_rc 0 "RBFLAME_NO_LAYOUT=$RUBY_VERSION rbflame dump --layout"
	grep -q "^rbflame: warning: Ruby $RUBY_VERSION has no built-in layout of its own: reading it with $mm\.[0-9]*'s, the nearest release" \
		"$T/nearest.err" ||
		fail "nearest: no warning line: $(cat "$T/nearest.err")"
	own=$(sed -n 's/^vm_objspace - //p' "$T/ownlayout.out")
	near=$(sed -n 's/^vm_objspace - //p' "$T/nearest.out")
	if [ "$own" != "$near" ]; then
		# A wrong objspace must never pass: dropped, or still pending
		# when one read cannot decide (3.1.7's layout on a 3.1.2
		# process, as bookworm's 3.1.7+really3.1.2 makes it).
		! grep -q '^# check gc: passed' "$T/nearest.out" ||
			fail "nearest: vm->objspace at $near, not $own, yet the GC fields passed: $(grep '^# check' "$T/nearest.out")"
		! grep -q '^# check gc: dropped, ' "$T/nearest.out" ||
		grep -q "^rbflame: warning: Ruby $RUBY_VERSION: the GC state read with the $mm\.[0-9]* layout is implausible" \
			"$T/nearest.err" ||
			fail "nearest: no warning for the GC fields dropped: $(cat "$T/nearest.err")"
	fi
	RBFLAME_NO_LAYOUT=$RUBY_VERSION run_rbflame nearprof 30 -p "$TPID" \
		-s 1 -r 200 -o "$T/nearprof.folded"
	expect_rc 0 "RBFLAME_NO_LAYOUT=$RUBY_VERSION rbflame -p PID"
	assert_stacks "$T/nearprof.folded" 95 "nearest/area" "$want"
	! grep -q "garbage collection" "$T/nearprof.folded" ||
		[ "$own" = "$near" ] ||
		fail "nearest: (garbage collection) samples read through a dropped field"
	say "nearest: $(sed -n 's/^# \(built-in layout\|check gc\): //p' "$T/nearest.out" | paste -sd ';')"
else
	say "nearest: no other layout of $mm than $RUBY_VERSION's: not tested here"
fi

# No layout for the version: one line, exit 1, target untouched.
RBFLAME_NO_LAYOUT=$mm run_rbflame nolayout 30 -p "$TPID" -s 1 \
	-o "$T/nolayout.folded"
expect_rc 1 "RBFLAME_NO_LAYOUT=$mm rbflame -p PID"
assert_error_line "$T/nolayout.err" "no layout"
grep -q "Ruby $RUBY_VERSION" "$T/nolayout.err" ||
	fail "no layout: the error does not name Ruby $RUBY_VERSION: $(cat "$T/nolayout.err")"
grep -q "supported: " "$T/nolayout.err" ||
	fail "no layout: the error does not say what is supported"
grep -q "has no DWARF debug info.*install its debug info or use a Ruby built with -g, or try --force-version X.Y" \
	"$T/nolayout.err" ||
	fail "no layout: the error does not say what to do: $(cat "$T/nolayout.err")"
[ ! -s "$T/nolayout.folded" ] ||
	fail "no layout: frames written: $(head -n 1 "$T/nolayout.folded")"
say "no layout: $(head -n 1 "$T/nolayout.err")"

# --force-version: read it with a named release's layout, with a warning.
RBFLAME_NO_LAYOUT=$RUBY_VERSION run_rbflame forced 30 --force-version "$mm" \
	-p "$TPID" -s 1 -r 200 -o "$T/forced.folded"
expect_rc 0 "RBFLAME_NO_LAYOUT=$RUBY_VERSION rbflame --force-version $mm"
grep -q "^rbflame: warning: reading Ruby $RUBY_VERSION with the layout of $mm" \
	"$T/forced.err" || fail "forced: no warning line: $(cat "$T/forced.err")"
assert_stacks "$T/forced.folded" 95 "forced/area" "$want"
wait_untraced "$TPID" 2
assert_running "$TPID" 1 0
kill_tracee "$TPID"
