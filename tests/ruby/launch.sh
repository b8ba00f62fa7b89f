#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Launch mode on Ruby: 'rbflame -s 2 -r 200 -- ruby FIXTURE MODE 3' shows
# the same exact stacks as attaching does (see labels.sh). The profile
# starts at the interpreter's first instruction, so Ruby's start-up
# (<internal:gem_prelude> loading rubygems, stopped at every sample) takes
# its share too: of the samples rooted at <main> >= 95% are in the hot
# spot's stack, and >= 80% of all samples; every stack is rooted at
# <main> or at Ruby's prelude. rbflame exits with the fixture's status (0)
# once it ends, after its 3 s. With --threads, each named thread of the
# threads fixture is there with its own stack.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"
require_ruby_c_iterators

# launch TAG MODE SPEC...: runs fixture $FX in MODE ('-' for none) for
# 3 s under 'rbflame -s 2 -r 200'; the stacks SPEC... have samples and
# hold the shares above.
launch() {
	local tag=$1 mode=$2 spec s n t
	local -a want=() args=()
	shift 2
	for spec; do
		s=$(expand_stack "$spec")
		want+=("$s")
	done
	[ "$mode" = - ] || args=("$mode")
	run_rbflame "$tag" 40 -s 2 -r 200 -o "$T/$tag.folded" \
		-- "$RUBY" "$FIXTURES/$FX" "${args[@]}" 3
	expect_rc 0 "launch/$tag: rbflame -s 2 -- ruby $FX ${args[*]} 3"
	grep -qx ready "$T/$tag.out" ||
		fail "launch/$tag: the fixture did not print ready on its stdout"
	perl -e 'exit !($ARGV[0] >= 2.9 && $ARGV[0] < 20)' "$ELAPSED" ||
		fail "launch/$tag: rbflame exited after $ELAPSED s, not when" \
			"its 3 s child ended"
	assert_collapsed "$T/$tag.folded" "launch/$tag"
	read -r n t <<<"$(share "$T/$tag.folded" '^<main> \(|^<internal:')"
	[ "$n" = "$t" ] || {
		top_stacks "$T/$tag.folded" 8 >&2
		fail "launch/$tag: $((t - n)) samples in stacks rooted" \
			"neither at <main> nor at Ruby's prelude"
	}
	read -r n t <<<"$(share "$T/$tag.folded" '^<internal:')"
	say "launch/$tag: $n/$t samples in Ruby's start-up (<internal:...>)"
	assert_stacks "$T/$tag.folded" 95 "launch/$tag, after the start-up" \
		--within '<main> (' "${want[@]}"
	assert_stacks "$T/$tag.folded" 80 "launch/$tag, all samples" "${want[@]}"
	say "launch/$tag: rbflame exited 0 after $ELAPSED s"
}

FX=geometry.rb
launch area area \
	'<main> {main-area};Geometry::Shape#area {area}'
FX=blocks.rb
launch nested nested \
	'<main> {nested-each};Array#each {nested-each};block in <main> {nested-times};Integer#times {nested-times};block (2 levels) in <main> {nested-spin}'
FX=required.rb
launch required - \
	'<main> {main-require};Kernel#require_relative {main-require};<top (required)> {required-body.rb:top-required}'
FX=cfuncs.rb
launch sort sort \
	'<main> {main-sort};Object#crunch {crunch};Array#sort {crunch}' \
	'<main> {main-sort};Object#crunch {crunch}'

# --threads: the stacks are rooted at each thread; the tids are those the
# fixture printed.
FX=threads.rb
run_rbflame threads 40 --threads -s 2 -r 200 -o "$T/threads.folded" \
	-- "$RUBY" "$FIXTURES/threads.rb" 3
expect_rc 0 "launch/threads: rbflame --threads -s 2 -- ruby threads.rb 3"
assert_collapsed "$T/threads.folded" "launch/threads"
for n in main w-alpha w-bravo w-charlie w-delta w-echo; do
	tid=$(awk -v n="$n" '$1 == "thread" && $2 == n { print $3 }' \
		"$T/threads.out")
	[ -n "$tid" ] || fail "launch/threads: no tid printed for $n"
	case $n in
	main) spec='<main> {main-sleep};Kernel#sleep {main-sleep}' ;;
	*) spec="block in Object#hire {hire-${n#w-}};Crew#${n#w-} {${n#w-}}" ;;
	esac
	s=$(expand_stack "thread $tid \"$n\";$spec")
	# The main thread also ran the start-up: count it from <main>.
	within="thread $tid \"$n\";"
	[ "$n" != main ] || within="$within<main> ("
	assert_stacks "$T/threads.folded" 95 "launch/threads/$n (tid $tid)" \
		--within "$within" "$s"
done
