#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Ruby frames, attached: for each hot spot of the fixtures, 'rbflame -p PID
# -s 2 -r 200' puts >= 95% of the samples in the exact expected stack,
# from <main> to the leaf, every frame 'LABEL (PATH:LINE)' with the label
# in Ruby 3.4's convention, the absolute path and the line the fixture's
# LINE-MARK comment names (C functions carry their caller's path and line).
# Where a fixture alternates between two stacks, each has samples and
# together they hold >= 95%. Covered: instance and singleton methods of a
# class in a module, blocks at one and two levels, a Ruby method that
# yields, module and class bodies, rescue and ensure clauses (a rescue
# in a block: "rescue in block in Handler#retrying"; an exception passing
# through ensure clauses, whose closing throw Ruby gives line 0), module
# methods (include, module_function, def self.), define_method, an
# anonymous class, a
# singleton method of a plain object, of an anonymous class, a
# refinement's method (their object's address checked), C
# functions (Integer#times, Array#each, Array#map, Kernel#sleep,
# Array#sort, Kernel#require_relative), a required file and a stack 1000
# frames deep. Then --function: every line becomes its method's (or
# block's) first line.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"
require_ruby_c_iterators
say "ruby $RUBY_VERSION ($(command -v "$RUBY")), fixtures in $FIXTURES"

# labels TAG MODE [--function] SPEC...: attaches to fixture $FX in MODE
# ('-' for none) for 2 s at 200 Hz; the stacks SPEC... (see lib-ruby.sh)
# hold >= 95% of the samples, each some. The target is left running and
# untraced.
labels() {
	local tag=$1 mode=$2 spec s i
	local -a want=() opts=()
	shift 2
	if [ "${1:-}" = --function ]; then
		opts=(--function)
		shift
	fi
	for spec; do
		s=$(expand_stack "$spec")
		want+=("$s")
	done
	if [ "$mode" = - ]; then
		start_fixture "$tag" "$FX"
	else
		start_fixture "$tag" "$FX" "$mode"
	fi
	for i in "${!want[@]}"; do
		want[i]=$(fill_addrs "$T/$tag.log" "${want[i]}") ||
			fail "labels/$tag: no address for ${want[i]}"
	done
	run_rbflame "$tag" 30 "${opts[@]}" -p "$TPID" -s 2 -r 200 \
		-o "$T/$tag.folded"
	expect_rc 0 "labels/$tag: rbflame ${opts[*]} -p PID -s 2 -r 200"
	assert_collapsed "$T/$tag.folded" "labels/$tag"
	assert_stacks "$T/$tag.folded" 95 "labels/$tag" "${want[@]}"
	# Enough samples for the share to mean something (a busy machine
	# runs fewer ticks: that is the sampler's business, tested in e2e).
	assert_total "$T/$tag.folded" 40 520 "labels/$tag, 2 s at 200 Hz"
	wait_untraced "$TPID" 2
	assert_running "$TPID" 1 0
	kill_tracee "$TPID"
}

FX=geometry.rb
labels area area \
	'<main> {main-area};Geometry::Shape#area {area}'
labels build build \
	'<main> {main-build};Geometry::Shape.build {build}'
labels perimeter perimeter \
	'<main> {main-perimeter};Geometry::Shape#perimeter {perimeter-each};Array#each {perimeter-each};block in Geometry::Shape#perimeter {perimeter-block}'

FX=blocks.rb
labels nested nested \
	'<main> {nested-each};Array#each {nested-each};block in <main> {nested-times};Integer#times {nested-times};block (2 levels) in <main> {nested-spin}'
labels yield yield \
	'<main> {yield-call};Object#relay {relay-yield};block in <main> {yield-spin}'
labels map map \
	'<main> {map-call};Array#map {map-call};block in <main> {map-spin}'

FX=bodies.rb
labels module module \
	'<main> {main-module};<module:Outer> {module-body}'
labels class class \
	'<main> {main-module};<module:Outer> {module-class};<class:Inner> {class-body}'

FX=modules.rb
labels helper helper \
	'<main> {main-helper};Util#helper {helper}'
labels fn fn \
	'<main> {main-fn};Util.fn {fn}'
labels tool tool \
	'<main> {main-tool};Util.tool {tool}'

FX=rescues.rb
labels rescue rescue \
	'<main> {main-rescue};Handler#retrying {retrying-each};Array#each {retrying-each};block in Handler#retrying {retrying-begin};rescue in block in Handler#retrying {rescue-spin}'
labels ensure ensure \
	'<main> {main-ensure};Handler#cleanup {ensure-spin};ensure in Handler#cleanup {ensure-spin}'

# An exception passing through 100 ensure clauses, again and again: each
# clause's frame ends in the throw that passes the exception on, which
# Ruby's compiler gives line 0 up to 3.3 (36 of 398 samples had
# "ensure in Handler#unwind (rescues.rb:0)" before rbflame looked past
# it), the line of 'ensure' in 3.4. Every clause's frame is on a line of
# the clause, and some samples end in one.
start_fixture unwind "$FX" unwind
run_rbflame unwind 30 -p "$TPID" -s 2 -r 200 -o "$T/unwind.folded"
expect_rc 0 "labels/unwind: rbflame -p PID -s 2 -r 200"
assert_collapsed "$T/unwind.folded" "labels/unwind"
in=$(expand_stack 'ensure in Handler#unwind {unwind-ensure}')
at=$(expand_stack 'ensure in Handler#unwind {unwind-at}')
read -r bad leaf t <<<"$(perl "$top_srcdir/tests/ruby/clause-lines.pl" \
	"$T/unwind.folded" 'ensure in Handler#unwind' "$in" "$at")"
say "labels/unwind: $leaf/$t samples end in the ensure clause, $bad put it off its lines"
if [ "$bad" != 0 ]; then
	grep -o 'ensure in Handler#unwind ([^)]*)' "$T/unwind.folded" |
		sort | uniq -c >&2
	fail "labels/unwind: $bad samples put the ensure clause's frame off its lines"
fi
[ "$leaf" -gt 0 ] || fail "labels/unwind: no sample ends in the ensure clause"
kill_tracee "$TPID"

FX=dynamic.rb
labels define define \
	'<main> {main-define};block in <class:Robot> {walk}'
labels anon anon \
	'<main> {main-anon};#<Class:0x@HEX@>#an {an}'

# Owners without a name, as stackprof prints them: the class and address
# of the object a singleton method is defined on, of a refinement module
# (a Refinement from Ruby 3.1, a plain Module in 3.0), of an anonymous
# class.
case $RUBY_VERSION in
3.0.*) refinement=Module ;;
*) refinement=Refinement ;;
esac
FX=meta.rb
labels solo solo \
	'<main> {main-solo};#<Object:@ADDR:solo@>.solo {solo}'
labels refine refine \
	"<main> {main-refine};#<$refinement:@ADDR:refinement@>#twice {twice}"
labels anon-self anon-self \
	'<main> {main-anon-self};#<Class:@ADDR:anon@>.make {make}'

FX=cfuncs.rb
labels sleep sleep \
	'<main> {main-sleep};Object#nap {nap};Kernel#sleep {nap};(blocked)'
labels sort sort \
	'<main> {main-sort};Object#crunch {crunch};Array#sort {crunch}' \
	'<main> {main-sort};Object#crunch {crunch}'

FX=required.rb
labels required - \
	'<main> {main-require};Kernel#require_relative {main-require};<top (required)> {required-body.rb:top-required}'

# A deep stack, whole: <main> then DEPTH frames of Object#down.
FX=recursion.rb
depth=$(sed -n 's/^DEPTH = \([0-9]*\)$/\1/p' "$FIXTURES/$FX")
[ -n "$depth" ] || fail "no DEPTH in $FX"
spec='<main> {main-down}'
for ((d = 1; d < depth; d++)); do
	spec="$spec;Object#down {recurse}"
done
labels "recursion-$depth" - "$spec;Object#down {bottom}"

# --function: a method's line is its def line, a block's the line it
# starts on, <main>'s the first line of the file.
FX=geometry.rb
labels function-area area --function \
	'<main> {1};Geometry::Shape#area {def-area}'
labels function-build build --function \
	'<main> {1};Geometry::Shape.build {def-build}'
FX=blocks.rb
labels function-yield yield --function \
	'<main> {1};Object#relay {def-relay};block in <main> {yield-call}'
