#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Several targets in one run (two forks.rb masters, 'once 12', unrelated):
#  - '-p A,B -s 1.5': both in the profile and nothing else (their workers
#    are not followed without --subprocesses), every stack rooted at
#    'process PID "CMD"' without asking, each master in Process.waitall;
#  - '-p A -p B --subprocesses': both trees, 8 processes, every worker in
#    Server#work;
#  - a PID that names no process, or a thread rather than a process, in
#    the list: one error line naming it, exit 1, the output file not
#    written and the other target never seized;
#  - a second target held by another tracer: the attach error names it
#    (exit 1), and the first target, seized already, is let go;
#  - afterwards no process of either tree is traced.
# The masters live as long as their workers spin (12 s): the errors are
# checked on two other targets that live until killed (quiet.rb still:
# asleep after 1.5 s), since on a loaded host (make check -j2 on a cold
# CI run: 18-25 ticks a second at 100 Hz, 6-8 ms interrupt latency) the
# first part outlasted the masters and the last check found them gone.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

start_fixture a forks.rb once 12
A=$TPID
start_fixture b forks.rb once 12
B=$TPID
wa=$(awk '$1 == "worker" { print $3 }' "$T/a.log")
wb=$(awk '$1 == "worker" { print $3 }' "$T/b.log")

run_rbflame ab 30 -p "$A,$B" -s 1.5 -r 100 -o "$T/ab.folded"
expect_rc 0 "rbflame -p A,B"
say "summary: $(tail -n 1 "$T/ab.err")"
assert_collapsed "$T/ab.folded" "-p A,B"
assert_share "$T/ab.folded" '^process [0-9]+ "[^"]*";' 100 \
	"stacks rooted at process PID \"CMD\""
roots=$(sed -n 's/^process \([0-9]*\) .*/\1/p' "$T/ab.folded" | sort -u)
[ "$roots" = "$(printf '%s\n' "$A" "$B" | sort -u)" ] ||
	fail "-p A,B: processes in the profile: $(echo $roots), want $A $B"
for p in $A $B; do
	read -r n t <<<"$(share "$T/ab.folded" "^process $p .*;Process\\.waitall \\(")"
	say "master $p: $n/$t samples in Process.waitall"
	[ "$n" -gt 0 ] || fail "-p A,B: no sample of $p in Process.waitall"
done
grep -q '; 2 processes$' "$T/ab.err" ||
	fail "-p A,B: the summary does not count 2 processes"

run_rbflame ab2 30 -p "$A" -p "$B" --subprocesses -s 1.5 -r 100 \
	-o "$T/ab2.folded"
expect_rc 0 "rbflame -p A -p B --subprocesses"
say "summary: $(tail -n 1 "$T/ab2.err")"
roots=$(sed -n 's/^process \([0-9]*\) .*/\1/p' "$T/ab2.folded" | sort -u)
want=$(printf '%s\n' "$A" "$B" $wa $wb | sort -u)
[ "$roots" = "$want" ] ||
	fail "-p A -p B --subprocesses: processes $(echo $roots), want $(echo $want)"
for w in $wa $wb; do
	read -r n t <<<"$(share "$T/ab2.folded" "^process $w .*;Server#work \\(")"
	[ "$n" -gt 0 ] || fail "worker $w: no sample in Server#work"
done
say "both trees: $(echo "$roots" | wc -l) processes, every worker in Server#work"

# Bad PIDs in the list: said before anything is seized.
start_fixture c quiet.rb still
C=$TPID
start_fixture d quiet.rb still
D=$TPID
dead=$(dead_pid)
run_rbflame dead 10 -p "$C,$dead" -s 1 -o "$T/dead.folded"
expect_rc 1 "rbflame -p A,NONEXISTENT"
assert_error_line "$T/dead.err" "rbflame -p A,NONEXISTENT"
grep -q "^rbflame: attach $dead: no such process" "$T/dead.err" ||
	fail "the error does not name $dead: $(cat "$T/dead.err")"
[ ! -e "$T/dead.folded" ] || fail "-p A,NONEXISTENT wrote its output"
say "no such pid: exit 1: $(cat "$T/dead.err")"

start_tracee threads -r "$T/threads.ready"
wait_ready "$T/threads.ready" 10 "$TPID"
tid=
for d in /proc/"$TPID"/task/*; do
	[ "${d##*/}" = "$TPID" ] || tid=${d##*/}
done
[ -n "$tid" ] || fail "the threads tracee has no second thread"
run_rbflame tid 10 -p "$C,$tid" -s 1 -o "$T/tid.folded"
expect_rc 1 "rbflame -p A,TID"
assert_error_line "$T/tid.err" "rbflame -p A,TID"
grep -q "^rbflame: attach $tid: not a process but a thread of process $TPID (give -p $TPID)$" \
	"$T/tid.err" || fail "the error does not name thread $tid: $(cat "$T/tid.err")"
say "a thread id: exit 1: $(cat "$T/tid.err")"

# The second target refused: the first one, seized by then, is let go.
"$TRACEES/ptrace-hold" -r "$T/hold.ready" "$D" >"$T/hold.log" 2>&1 &
holder=$!
track "$holder"
wait_ready "$T/hold.ready" 10 "$holder"
run_rbflame held 10 -p "$C,$D" -s 1 -o "$T/held.folded"
expect_rc 1 "rbflame -p C,D-traced-by-another"
assert_error_line "$T/held.err" "rbflame -p C,D-traced-by-another"
grep -q "^rbflame: attach $D: .*trac" "$T/held.err" ||
	fail "the error does not name $D and its tracer: $(cat "$T/held.err")"
[ ! -e "$T/held.folded" ] || fail "-p C,D-held wrote its output"
wait_untraced "$C" 5
assert_running "$C" 2 0.1
say "second target held: exit 1: $(cat "$T/held.err")"
kill_tracee "$holder"
wait_untraced "$D" 5

for p in $A $B $wa $wb $C $D; do
	read_tracer "$p" || continue	# a process that ended
	[ "$TRACER" = 0 ] || fail "process $p left traced by $TRACER"
done
assert_running "$D" 2 0.1
say "no target of the run is left traced"
