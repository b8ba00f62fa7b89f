#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# --threads on a Ruby process with five named threads (Thread#name=), each
# spinning in its own method on different work, and a sleeping main
# thread: every stack is rooted at 'thread TID "NAME"'; each thread's
# root carries its Thread#name ("main" for the main thread) and its
# Thread#native_thread_id, a task of the process (whose comm, for the
# workers, is that name);
# >= 95% of each thread's samples are its exact expected stack, its own
# method (Crew#alpha ... Crew#echo) the leaf. Without --threads there is
# no thread root and the same stacks appear.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

FX=threads.rb
start_fixture threads threads.rb
pid=$TPID
tid_of() {
	awk -v n="$1" '$1 == "thread" && $2 == n { print $3 }' "$T/threads.log"
}
declare -A TID
for n in main w-alpha w-bravo w-charlie w-delta w-echo; do
	TID[$n]=$(tid_of "$n")
	[ -n "${TID[$n]}" ] || fail "the fixture printed no tid for thread $n"
done
[ "${TID[main]}" = "$pid" ] ||
	fail "main thread's native_thread_id ${TID[main]} is not the pid $pid"

run_rbflame thr 30 --threads -p "$pid" -s 2 -r 200 -o "$T/thr.folded"
expect_rc 0 "rbflame --threads -p PID -s 2 -r 200"
assert_collapsed "$T/thr.folded" "--threads"
assert_share "$T/thr.folded" '^thread [0-9]+ "[^"]*";' 100 \
	"--threads: stacks rooted at thread TID \"NAME\""

# Every root names a real task of the process.
sed -n 's/^thread \([0-9]*\) .*/\1/p' "$T/thr.folded" | sort -u >"$T/roots"
while read -r root; do
	[ -d "/proc/$pid/task/$root" ] ||
		fail "root 'thread $root': no task $root in /proc/$pid/task"
done <"$T/roots"

# check_thread NAME SPEC: thread NAME's samples: >= 95% in its exact stack.
check_thread() {
	local name=$1 tid=${TID[$1]} s comm root d
	s=$(expand_stack "thread $tid \"$name\";$2")
	[ -d "/proc/$pid/task/$tid" ] ||
		fail "thread $name: no task $tid in /proc/$pid/task"
	# Thread#name= names the native thread too (the main thread keeps
	# the process's comm).
	if [ "$name" != main ]; then
		comm=$(cat "/proc/$pid/task/$tid/comm")
		[ "$comm" = "${name:0:15}" ] ||
			fail "thread $name: task $tid is named '$comm'"
	fi
	if [ "$name" = main ]; then
		# From its sleep on: before it, main may still be finishing
		# the write of "ready", waiting to take the GVL back from the
		# five spinners (seen: 93 of 399 samples in IO#write), or in
		# Fixture.remaining on its sleep line: judged inside Kernel#sleep.
		root=$(expand_stack "thread $tid \"$name\";<main> {main-sleep};Kernel#sleep {main-sleep}")
		assert_stacks "$T/thr.folded" 95 "threads/$name (tid $tid)" \
			--within "$root;" "$s"
	else
		# Five workers share one GVL: each runs, or waits for it.
		mapfile -t d < <(done_stacks "$s")
		assert_stacks "$T/thr.folded" 95 "threads/$name (tid $tid)" \
			--within "thread $tid \"$name\";" "$s@GC?@" \
			"$s;(waiting for GVL)" \
			"${d[@]}"
	fi
}
check_thread main '<main> {main-sleep};Kernel#sleep {main-sleep};(blocked)'
for w in alpha bravo charlie delta echo; do
	check_thread "w-$w" "block in Object#hire {hire-$w};Crew#$w {$w}"
done
say "threads: $(sed -n 's/^thread \([0-9]*\) "\([^"]*\)".*/\1 \2/p' \
	"$T/thr.folded" | sort -u | tr '\n' ',' | sed 's/,$//; s/,/, /g')"

# Without --threads: no roots, the same stacks.
run_rbflame plain 30 -p "$pid" -s 1 -r 200 -o "$T/plain.folded"
expect_rc 0 "rbflame -p PID -s 1 -r 200 (threads fixture)"
assert_collapsed "$T/plain.folded" "threads without --threads"
if grep -q '^thread ' "$T/plain.folded"; then
	fail "stacks rooted at 'thread ...' without --threads"
fi
s=$(expand_stack '<main> {main-sleep};Kernel#sleep {main-sleep};(blocked)')
want=("$s")
for w in alpha bravo charlie delta echo; do
	s=$(expand_stack "block in Object#hire {hire-$w};Crew#$w {$w}")
	want+=("$s@GC?@" "$s;(waiting for GVL)")
done
assert_stacks "$T/plain.folded" 95 "threads without --threads" "${want[@]}"

wait_untraced "$pid" 2
assert_running "$pid" 3 0.1

# A thread that renames itself while it runs (renames.rb: a new name
# every 50 ms, never asleep) has each name in the profile soon after it
# set it: a thread that ran is taken from the last walk of the thread
# list with its tid, and its name's VALUE is compared, not trusted, so a
# new name is read at once. Of the names between the first and the last
# one the profile shows (2 s at 200 Hz: some 10 ticks a name), at least
# 80% are there, under that thread's tid.
start_fixture renames renames.rb 6
rtid=$(awk '$1 == "renamer" { print $2 }' "$T/renames.log")
[ -n "$rtid" ] || fail "renames.rb printed no tid"
run_rbflame renames 30 --threads -p "$TPID" -s 2 -r 200 \
	-o "$T/renames.folded"
expect_rc 0 "rbflame --threads -p PID -s 2 -r 200 (renames.rb)"
assert_collapsed "$T/renames.folded" "renames.rb with --threads"
read -r first last seen others < <(RTID=$rtid perl -ne '
	$o++ if /^thread (\d+) "r-/ && $1 ne $ENV{RTID};
	$n{$1} = 1 if /^thread \d+ "r-(\d+)"/;
	END {
		my @k = sort { $a <=> $b } keys %n;
		printf "%d %d %d %d\n", $k[0] // -1, $k[-1] // -1,
			scalar(@k), $o // 0;
	}' "$T/renames.folded")
say "renames.rb: names r-$first .. r-$last, $seen of them in the profile; stacks under another tid: $others"
[ "$others" = 0 ] || fail "renames.rb: $others stacks named r-N under a tid not the renamer's ($rtid)"
[ "$first" -ge 0 ] && [ $((last - first)) -ge 20 ] ||
	fail "renames.rb: names r-$first .. r-$last in 2 s, want 20 and more"
[ $((seen * 10)) -ge $(((last - first + 1) * 8)) ] ||
	fail "renames.rb: $seen of the names r-$first .. r-$last, want 80%"
