#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# --thread REGEX on a Ruby process (tests/ruby/fixtures/thread-filter.rb:
# job-spin and bg-spin spinning and sharing the GVL, job-wait and bg-wait
# asleep in Queue#pop, main asleep), in Ruby mode and with --native.
# Only the threads whose name or tid matches appear; those that do not
# are never stopped unless they hold the GVL. The evidence is --debug's
# count of PTRACE_INTERRUPTs per thread, first shown to count: without
# --thread, --native interrupts the sleepers in every tick. Then a
# pattern that matches nothing ends with a notice, a bad one is a usage
# error, and the target runs on untraced.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../ruby/lib-ruby.sh"
. "$(dirname "$0")/lib-native.sh"
require_root

FIXTURES=$(cd "$top_srcdir/tests/ruby/fixtures" && pwd -P)
FX=thread-filter.rb
start_fixture tf "$FX"
pid=$TPID
declare -A TID
for n in main job-spin job-wait bg-spin bg-wait; do
	TID[$n]=$(awk -v n="$n" '$1 == "thread" && $2 == n { print $3 }' \
		"$T/tf.log")
	[ -n "${TID[$n]}" ] || fail "the fixture printed no tid for thread $n"
done

# interrupts TAG NAME: the PTRACE_INTERRUPTs thread NAME got in run TAG.
interrupts() {
	local n
	n=$(sed -n "s/^rbflame: thread ${TID[$2]} of process $pid: \([0-9]*\) interrupts\$/\1/p" \
		"$T/$1.err")
	[ -n "$n" ] || fail "$1: --debug counted no interrupts of $2 (tid ${TID[$2]})"
	echo "$n"
}
# ticks TAG: the ticks run TAG's summary counts.
ticks() {
	sed -n 's/.* samples in [0-9.]* s (\([0-9]*\) ticks at .*/\1/p' "$T/$1.err"
}
# roots TAG: the thread names the stacks of run TAG are rooted at.
roots() {
	sed -n 's/^thread [0-9]* "\([^"]*\)";.*/\1/p' "$T/$1.folded" |
		sort -u | tr '\n' ' '
}

# The counter counts: --native without --thread interrupts every
# sleeper in every tick (seen: 98 of 98 ticks for main and bg-wait).
run_rbflame all 30 --native --threads --debug -p "$pid" -s 1 -r 100 \
	-o "$T/all.folded"
expect_rc 0 "rbflame --native --threads --debug -p PID -s 1 -r 100"
nt=$(ticks all)
[ -n "$nt" ] && [ "$nt" -ge 50 ] || fail "all: $nt ticks in 1 s at 100 Hz"
for n in main bg-wait job-wait; do
	k=$(interrupts all "$n")
	[ "$k" -ge $((nt / 2)) ] ||
		fail "without --thread, $n was interrupted $k times in $nt ticks"
done
[ "$(roots all)" = "bg-spin bg-wait job-spin job-wait main " ] ||
	fail "without --thread: roots $(roots all)"

# --native --thread '^job-': job-* alone; main and bg-wait never
# stopped, job-wait stopped for its native stack in every tick; bg-spin
# only when it holds the GVL (about half the ticks: not checked).
run_rbflame job 30 --native --threads --debug --thread '^job-' -p "$pid" \
	-s 1 -r 100 -o "$T/job.folded"
expect_rc 0 "rbflame --native --thread '^job-' -p PID -s 1 -r 100"
assert_collapsed "$T/job.folded" "--native --thread '^job-'"
[ "$(roots job)" = "job-spin job-wait " ] ||
	fail "--native --thread '^job-': roots $(roots job)"
nt=$(ticks job)
for n in main bg-wait; do
	k=$(interrupts job "$n")
	[ "$k" = 0 ] || fail "--native --thread '^job-': $n interrupted $k times"
done
k=$(interrupts job job-wait)
[ "$k" -ge $((nt / 2)) ] ||
	fail "--native --thread '^job-': job-wait interrupted $k times in $nt ticks"
assert_share "$T/job.folded" \
	"^thread ${TID[job-spin]} \"job-spin\";(?:[^;]+;)*$(qm "$(expand_stack 'Object#job_spin {job-spin}')")(?:;.*)?\$" \
	90 "job-spin in Object#job_spin" "^thread ${TID[job-spin]} "
assert_share "$T/job.folded" \
	"^thread ${TID[job-wait]} \"job-wait\";.*;Thread::Queue#pop \\([^;]*\\)(?:;.*)?\$" \
	90 "job-wait in Queue#pop" "^thread ${TID[job-wait]} "
say "--native --thread '^job-': $(total_samples "$T/job.folded") samples;" \
	"interrupts: job-wait $k, bg-wait 0, main 0, bg-spin" \
	"$(interrupts job bg-spin) (as GVL holder) in $nt ticks"

# Ruby mode, by tid: bg-wait alone; no sleeper stopped at all.
run_rbflame tid 30 --threads --debug --thread "^${TID[bg-wait]}\$" \
	-p "$pid" -s 1 -r 100 -o "$T/tid.folded"
expect_rc 0 "rbflame --thread '^TID\$' -p PID -s 1 -r 100"
assert_collapsed "$T/tid.folded" "--thread '^TID\$'"
[ "$(roots tid)" = "bg-wait " ] || fail "--thread '^TID\$': roots $(roots tid)"
assert_share "$T/tid.folded" \
	"^thread ${TID[bg-wait]} \"bg-wait\";.*;Thread::Queue#pop \\([^;]*\\);\\(blocked\\)\$" \
	95 "bg-wait in Queue#pop"
for n in main job-wait bg-wait; do
	k=$(interrupts tid "$n")
	[ "$k" = 0 ] || fail "--thread '^TID\$': $n interrupted $k times"
done

# Nothing matches: a notice saying so, the run ends as usual.
run_rbflame none 30 --thread 'no-such-thread' -p "$pid" -s 0.5 \
	-o "$T/none.folded"
expect_rc 0 "rbflame --thread 'no-such-thread' -p PID -s 0.5"
grep -q "^rbflame: no thread matched --thread 'no-such-thread' during the run" \
	"$T/none.err" || {
	cat "$T/none.err" >&2
	fail "no notice that --thread matched no thread"
}

# A pattern that does not compile: a usage error, nothing attached.
run_rbflame bad 30 --thread 'job-(' -p "$pid" -s 0.5 -o "$T/bad.folded"
expect_rc 2 "rbflame --thread 'job-('"
assert_usage_error "$T/bad.err" "--thread 'job-('"
grep -q "invalid --thread pattern 'job-('" "$T/bad.err" ||
	fail "bad --thread: $(head -n 1 "$T/bad.err")"
[ ! -e "$T/bad.folded" ] || fail "bad --thread: an output was written"

wait_untraced "$pid" 2
assert_running "$pid" 1 0
kill_tracee "$pid"
