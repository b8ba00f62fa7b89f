#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Ruby in its own PID namespace (a container's shape): the VM and glibc
# hold the namespace's thread ids (the main thread is 1), ptrace and /proc
# take ours. rbflame must map one to the other, or it roots samples at
# the namespace's ids and never stops the GVL holder:
#  - 'unshare --pid --fork --mount-proc ruby threads.rb', attached by the
#    host pid of the ruby inside, --threads -s 2: every stack rooted at
#    'thread TID "NAME"', TID the host tid of the thread the fixture calls
#    NAME (its Thread#native_thread_id, a namespace id, mapped here
#    through the NSpid lines of /proc/PID/task/*/status), main at the
#    host pid; >= 95% of each thread's samples its exact stack; threads
#    stopped (p50 > 0), < 1% of the ticks failed; 'rbflame dump' heads
#    each thread with its host tid;
#  - launched, 'rbflame --subprocesses --threads -- unshare --pid --fork
#    --mount-proc ruby forked.rb respawn 3': the ruby inside and the
#    children it forks (>= 4 processes) have every stack rooted at
#    'process PID "CMD";thread PID "main"' with our PID; threads stopped,
#    < 1% of the ticks failed (reads of a process's exit counted apart).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

require_root
require_cmd unshare
unshare --pid --fork --mount-proc true 2>"$T/unshare.err" ||
	skip_or_fail "unshare --pid --fork --mount-proc fails here:" \
		"$(head -n 1 "$T/unshare.err")"

# ns_to_host PID: "NSTID HOSTTID" for each thread of PID, from NSpid.
ns_to_host() {
	perl -e '
		my $pid = shift;
		for my $d (glob "/proc/$pid/task/*") {
			open(my $f, "<", "$d/status") or next;
			while (<$f>) {
				next unless /^NSpid:\s+(.*)$/;
				my @ids = split /\s+/, $1;
				print "$ids[-1] $ids[0]\n";
			}
		}
	' "$1"
}

FX=threads.rb
unshare --pid --fork --mount-proc --kill-child \
	"$RUBY" "$FIXTURES/threads.rb" 60 >"$T/ns.log" 2>&1 </dev/null &
upid=$!
track "$upid"
wait_line "$T/ns.log" '^ready$' 20 "$upid"
read -r pid _ <"/proc/$upid/task/$upid/children" || true
[ -n "$pid" ] && [ -d "/proc/$pid" ] ||
	fail "no ruby process under unshare $upid"
track "$pid"
ns_to_host "$pid" >"$T/map"
[ "$(awk '$1 == 1 { print $2 }' "$T/map")" = "$pid" ] ||
	fail "ruby $pid is not pid 1 of its namespace: $(tr '\n' ' ' <"$T/map")"
declare -A TID
for n in main w-alpha w-bravo w-charlie w-delta w-echo; do
	nstid=$(awk -v n="$n" '$1 == "thread" && $2 == n { print $3 }' \
		"$T/ns.log")
	[ -n "$nstid" ] || fail "the fixture printed no tid for thread $n"
	TID[$n]=$(awk -v t="$nstid" '$1 == t { print $2 }' "$T/map")
	[ -n "${TID[$n]}" ] || fail "thread $n: no task with namespace tid $nstid"
	say "thread $n: tid $nstid in the namespace, ${TID[$n]} here"
done

run_rbflame thr 30 --threads -p "$pid" -s 2 -r 200 -o "$T/thr.folded"
expect_rc 0 "rbflame --threads -p PID -s 2 (in a PID namespace)"
say "summary: $(tail -n 1 "$T/thr.err")"
assert_collapsed "$T/thr.folded" "pidns --threads"
want="^thread (${TID[main]}|${TID[w-alpha]}|${TID[w-bravo]}|${TID[w-charlie]}|${TID[w-delta]}|${TID[w-echo]}) \""
assert_share "$T/thr.folded" "$want" 100 "stacks rooted at a host tid"
check_thread() {
	local name=$1 tid=${TID[$1]} s root d
	s=$(expand_stack "thread $tid \"$name\";$2")
	if [ "$name" = main ]; then
		# From its sleep on: before it, main may still be finishing
		# the write of "ready", waiting for the GVL (named-threads.sh).
		root=$(expand_stack "thread $tid \"$name\";<main> {main-sleep};Kernel#sleep {main-sleep}")
		assert_stacks "$T/thr.folded" 95 "$name (tid $tid)" \
			--within "$root;" "$s"
	else
		mapfile -t d < <(done_stacks "$s")
		assert_stacks "$T/thr.folded" 95 "$name (tid $tid)" \
			--within "thread $tid \"$name\";" "$s@GC?@" \
			"$s;(waiting for GVL)" \
			"${d[@]}"
	fi
}
check_thread main '<main> {main-sleep};Kernel#sleep {main-sleep};(blocked)'
for w in alpha bravo charlie delta echo; do
	check_thread "w-$w" "block in Object#hire {hire-$w};Crew#$w {$w}"
done
assert_gvl_stopped "$T/thr.err" "pidns"

run_rbflame dump 30 dump -p "$pid"
expect_rc 0 "rbflame dump -p PID (in a PID namespace)"
r=$(check_dump "$T/dump.out") || fail "malformed dump"
say "dump: $r"
for n in main w-alpha w-bravo w-charlie w-delta w-echo; do
	grep -qxE "thread ${TID[$n]} \"$n\"( gvl)?" "$T/dump.out" ||
		fail "dump: no header 'thread ${TID[$n]} \"$n\"':" \
			"$(grep '^thread' "$T/dump.out" | tr '\n' ' ')"
done
say "dump: $(grep '^thread' "$T/dump.out" | tr '\n' ' ')"
kill -KILL "$pid" 2>/dev/null || true
kill_tracee "$upid"

# Launched, following the ruby inside and its forked children.
FX=forked.rb
run_rbflame sub 60 --subprocesses --threads -r 200 -o "$T/sub.folded" -- \
	unshare --pid --fork --mount-proc --kill-child \
	"$RUBY" "$FIXTURES/forked.rb" respawn 3
expect_rc 0 "rbflame --subprocesses -- unshare ... ruby forked.rb respawn 3"
say "launched: summary: $(tail -n 1 "$T/sub.err")"
assert_collapsed "$T/sub.folded" "launched in a PID namespace"
read -r n bad <<<"$(perl -ne '
	/^process (\d+) "[^"]*";thread (\d+) "[^"]*";.* (\d+)$/ or
	    ($bad += (/ (\d+)$/)[0], print(STDERR "bad root: $_"), next);
	$p{$1} = 1;
	$1 == $2 or ($bad += $3, print STDERR "bad root: $_");
	END { printf "%d %d\n", scalar(keys %p), $bad }
' "$T/sub.folded" 2>"$T/sub.bad")"
head -n 5 "$T/sub.bad" >&2
say "launched: $n processes, $bad samples not rooted at" \
	"'process PID \"CMD\";thread PID \"...\"'"
[ "$bad" = 0 ] || fail "launched: $bad samples rooted at another tid"
[ "$n" -ge 5 ] || fail "launched: only $n processes (unshare, ruby and" \
	"its children) in the profile"
assert_share "$T/sub.folded" ';Child#spin_for \(' 80 \
	"launched: children in Child#spin_for" \
	';block in Parent#fork_child \('
assert_gvl_stopped "$T/sub.err" "launched" "$n"
