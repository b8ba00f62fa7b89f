#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Launch mode on Ruby: 'rbflame -s 2 -r 200 -- ruby FIXTURE MODE 3' shows
# the same exact stacks as attaching does (see labels.sh). The profile
# starts at the interpreter's first instruction, so Ruby's start-up
# (<internal:gem_prelude> loading rubygems, stopped at every sample) takes
# its share too, larger the busier the machine, and so does the fixture's
# own set-up: every stack is rooted at <main> or at Ruby's prelude, and
# of the (at least 20) samples taken once <main> is at the hot spot's
# call >= 90% are in the hot spot's exact stack (not 95% as attached: what
# the fixture does under that call before its hot spot, e.g. compiling
# the required file and printing "ready", counts against it, more so on a
# busy machine). Threads are exact at 95%. rbflame exits with the
# fixture's status (0) once it ends, after its 3 s. With --threads (4 s),
# each named thread of the threads fixture is there with its own stack.
# Thirteen launches of a program of some 0.3 s: every profile names its
# class and methods (Shop#tax, Integer#times), the VM found as Ruby
# starts, its symbol table not yet filled (19 of 30 launches named none
# before rbflame waited for the table); the last three with a search
# starved of time (RBFLAME_PROBE_BUDGET_US=40). Unnamed counts in the
# script's own stacks: Ruby's start-up has classes with no name
# (rubygems' Struct.new(:for_lockfile).new: '#<Class:0x...>.new', as
# stackprof names it too) and RubyVM::FrozenCore's methods, which
# rbflame names '#<Class:0x...>.core#set_method_alias' (14 of 1252
# launches had one of them).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"
require_ruby_c_iterators

# run_launch TAG SECS [OPTION...] -- ARGS...: 'rbflame OPTION... -s SECS
# -r 200 -o $T/TAG.folded -- ruby $FX ARGS... SECS+1': exit status 0,
# the fixture's "ready" on stdout, rbflame ending when the fixture does.
run_launch() {
	local tag=$1 secs=$2 child
	local -a opts=()
	shift 2
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	child=$((secs + 1))
	run_rbflame "$tag" 60 "${opts[@]}" -s "$secs" -r 200 \
		-o "$T/$tag.folded" -- "$RUBY" "$FIXTURES/$FX" "$@" "$child"
	expect_rc 0 "launch/$tag: rbflame ${opts[*]} -s $secs -- ruby $FX $* $child"
	grep -qx ready "$T/$tag.out" ||
		fail "launch/$tag: the fixture did not print ready on its stdout"
	perl -e 'exit !($ARGV[0] >= $ARGV[1] - 0.1 && $ARGV[0] < $ARGV[1] + 20)' \
		"$ELAPSED" "$child" ||
		fail "launch/$tag: rbflame exited after $ELAPSED s, not when" \
			"its $child s child ended"
	assert_collapsed "$T/$tag.folded" "launch/$tag"
}

# launch TAG MODE SPEC...: runs fixture $FX in MODE ('-' for none) for
# 3 s under 'rbflame -s 2 -r 200'; the stacks SPEC... have samples and
# hold the shares above. A machine so busy that the start-up leaves fewer
# than 20 samples gets a second run, for 6 s.
launch() {
	local tag=$1 mode=$2 spec s n t root secs
	local -a want=() args=()
	shift 2
	for spec; do
		s=$(expand_stack "$spec")
		want+=("$s")
	done
	[ "$mode" = - ] || args=("$mode")
	# Once <main> is at the hot spot's call (the start-up and the
	# fixture's own set-up are over).
	root=${want[0]%%;*}
	for secs in 2 6; do
		run_launch "$tag" "$secs" -- "${args[@]}"
		n=$(stack_counts "$T/$tag.folded" "$root;")
		if [ "$n" -ge 20 ] || [ "$secs" != 2 ]; then
			break
		fi
		say "launch/$tag: only $n samples from $root on (a busy" \
			"machine): again, for 6 s"
	done
	read -r n t <<<"$(share "$T/$tag.folded" '^<main> \(|^<internal:')"
	[ "$n" = "$t" ] || {
		top_stacks "$T/$tag.folded" 8 >&2
		fail "launch/$tag: $((t - n)) samples in stacks rooted" \
			"neither at <main> nor at Ruby's prelude"
	}
	read -r n t <<<"$(share "$T/$tag.folded" '^<internal:')"
	say "launch/$tag: $n/$t samples in Ruby's start-up (<internal:...>)"
	assert_stacks "$T/$tag.folded" 90 "launch/$tag, from $root on" \
		--within "$root;" "${want[@]}"
	n=$(stack_counts "$T/$tag.folded" "$root;")
	[ "$n" -ge 20 ] || fail "launch/$tag: only $n samples from $root on" \
		"(of $t): too few to tell"
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
# fixture printed. The main thread also ran the start-up and started the
# workers (waiting in Queue#pop while each worker waits for the GVL to
# start: about half a second): it counts from its sleep on, and the run
# lasts 4 s.
FX=threads.rb
for secs in 4 8; do
	run_launch threads "$secs" --threads --
	tid=$(awk '$1 == "thread" && $2 == "main" { print $3 }' "$T/threads.out")
	[ -n "$tid" ] || fail "launch/threads: no tid printed for main"
	root=$(expand_stack "thread $tid \"main\";<main> {main-sleep};Kernel#sleep {main-sleep}")
	c=$(stack_counts "$T/threads.folded" "$root;")
	if [ "$c" -ge 20 ] || [ "$secs" != 4 ]; then
		break
	fi
	say "launch/threads: only $c samples of main from its sleep on (a" \
		"busy machine): again, for 8 s"
done
for n in main w-alpha w-bravo w-charlie w-delta w-echo; do
	tid=$(awk -v n="$n" '$1 == "thread" && $2 == n { print $3 }' \
		"$T/threads.out")
	[ -n "$tid" ] || fail "launch/threads: no tid printed for $n"
	within="thread $tid \"$n\";"
	if [ "$n" = main ]; then
		root=$(expand_stack "$within<main> {main-sleep};Kernel#sleep {main-sleep}")
		s=$(expand_stack "$within<main> {main-sleep};Kernel#sleep {main-sleep};(blocked)")
		assert_stacks "$T/threads.folded" 95 "launch/threads/main (tid $tid)" \
			--within "$root;" "$s"
		c=$(stack_counts "$T/threads.folded" "$root;")
		[ "$c" -ge 20 ] || fail "launch/threads/main: only $c samples" \
			"from its sleep on: too few to tell"
	else
		w=${n#w-}
		root=$(expand_stack "${within}block in Object#hire {hire-$w}")
		s=$(expand_stack "${within}block in Object#hire {hire-$w};Crew#$w {$w}")
		# From the worker's block on: in launch mode its samples also
		# include its start-up (waiting to be hired), which on a busy
		# machine or an ASan build took more than a tenth of them.
		mapfile -t d < <(done_stacks "$s")
		assert_stacks "$T/threads.folded" 90 "launch/threads/$n (tid $tid)" \
			--within "$root;" "$s@GC?@" "$s;(waiting for GVL)" \
			"${d[@]}"
	fi
done

# Names from the first instant: the VM can be there before its symbol
# table is filled. The last three runs give the search for the VM 40 us
# a call, less than what comes before its scans takes (0.7-1.9 ms here),
# as on a host too slow for its 10 ms: each call still moves the scan on
# (before, none did, and the program ran to its end unsampled: 0 of 0
# samples in one of CI's launches, and in every one so starved).
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do
	budget=
	[ "$i" -le 10 ] || budget=40
	RBFLAME_PROBE_BUDGET_US=$budget run_rbflame "startup$i" 60 -r 997 \
		-o "$T/startup$i.folded" -- "$RUBY" "$FIXTURES/startup.rb"
	expect_rc 0 "launch/startup: rbflame -r 997 -- ruby startup.rb"
	read -r m t <<<"$(share "$T/startup$i.folded" \
		';Integer#times \([^)]*\);block in Shop#tax \(')"
	read -r a t <<<"$(share "$T/startup$i.folded" \
		'#<Class:0x|unknown C function' 'fixtures/startup\.rb')"
	say "launch/startup $i${budget:+ (search budget $budget us)}:" \
		"$m of $t samples of startup.rb in Shop#tax's loop, $a unnamed"
	[ "$a" = 0 ] && [ "$m" -gt 0 ] ||
		fail "launch/startup $i${budget:+ (search budget $budget us)}:" \
			"$a of $t samples of startup.rb unnamed," \
			"$m in Shop#tax's loop;" \
			"rbflame said: $(tr '\n' ' ' <"$T/startup$i.err")"
done
