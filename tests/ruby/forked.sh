#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Thread ids in forked children (the forked fixture). Ruby 3.0 to 3.2 keep
# a thread's tid as it was when the thread started, so in a forked child
# the VM's copy names a thread of the parent; rbflame must use the
# kernel's, or it roots every sample at the parent and never stops the
# child's GVL holder:
#  - attached to a child forked by the main thread ('forked.rb main') and
#    to one forked by a second thread ('forked.rb thread'), --threads -s 2:
#    every stack rooted at 'thread CHILD "main"', >= 80% the exact stack
#    down to Child#spin; threads were stopped (p50 > 0) and < 1% of the
#    ticks failed; 'rbflame dump -p CHILD' heads its one thread
#    'thread CHILD "main"';
#  - --subprocesses --threads -s 3 attached to a parent that keeps forking
#    children living 0.3 s ('respawn'): >= 4 processes, and in each every
#    stack is rooted at 'process PID "CMD";thread PID "main"' (the
#    parent's main thread too); children's samples >= 80% in
#    Child#spin_for; threads were stopped and < 1% of the ticks failed
#    (the reads of a child's exit, its VM torn down, counted apart);
#    'rbflame report -f summary' from the run's recording gives the run's
#    summary byte for byte, naming those reads when there were any.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

FX=forked.rb
for mode in main thread; do
	start_fixture "$mode" forked.rb "$mode" 60
	parent=$TPID
	child=$(awk '$1 == "child" { print $2 }' "$T/$mode.log")
	[ -n "$child" ] || fail "$mode: the fixture printed no child pid"
	track "$child"
	run_rbflame "$mode" 30 -p "$child" --threads -s 2 -r 200 \
		-o "$T/$mode.folded"
	expect_rc 0 "rbflame -p CHILD --threads -s 2 ($mode)"
	say "$mode: summary: $(tail -n 1 "$T/$mode.err")"
	assert_collapsed "$T/$mode.folded" "$mode"
	assert_share "$T/$mode.folded" "^thread $child \"main\";" 100 \
		"$mode: stacks rooted at the child's tid (child $child, parent $parent)"
	case $mode in
	main) root='<main> {main-run};Parent#run {run-main}' ;;
	*) root='block in Parent#run {run-thread}' ;;
	esac
	s=$(expand_stack "thread $child \"main\";$root;Parent#fork_child {fork};Kernel#fork {fork};block in Parent#fork_child {fork};Child#spin {spin}")
	assert_stacks "$T/$mode.folded" 80 "$mode: child $child" "$s@GC?@"
	assert_gvl_stopped "$T/$mode.err" "$mode"

	run_rbflame "dump-$mode" 30 dump -p "$child"
	expect_rc 0 "rbflame dump -p CHILD ($mode)"
	r=$(check_dump "$T/dump-$mode.out") || fail "$mode: malformed dump"
	say "$mode: dump: $r"
	head -n 1 "$T/dump-$mode.out" |
		grep -qxE "thread $child \"main\"( gvl)?" ||
		fail "$mode: dump heads with '$(head -n 1 "$T/dump-$mode.out")'," \
			"want 'thread $child \"main\"'"
	say "$mode: dump: $(head -n 1 "$T/dump-$mode.out")"
	kill -KILL "$child" 2>/dev/null || true
	kill_tracee "$parent"
done

# Children forked after attach, followed with --subprocesses.
start_fixture rs forked.rb respawn 60
parent=$TPID
run_rbflame rs 30 --subprocesses --threads -p "$parent" -s 3 -r 200 \
	-o "$T/rs.folded" -f raw -o "$T/rs.rbflame" -f summary -o "$T/rs.sum"
expect_rc 0 "rbflame --subprocesses --threads -p PID -s 3 (respawn)"
say "respawn: summary: $(tail -n 1 "$T/rs.err")"
assert_collapsed "$T/rs.folded" "respawn"
read -r n bad <<<"$(perl -ne '
	/^process (\d+) "[^"]*";thread (\d+) "main";.* (\d+)$/ or
	    ($bad += (/ (\d+)$/)[0], print(STDERR "bad root: $_"), next);
	$p{$1} = 1;
	$1 == $2 or ($bad += $3, print STDERR "bad root: $_");
	END { printf "%d %d\n", scalar(keys %p), $bad }
' "$T/rs.folded" 2>"$T/rs.bad")"
head -n 5 "$T/rs.bad" >&2
say "respawn: $n processes, $bad samples not rooted at" \
	"'process PID \"CMD\";thread PID \"main\"'"
[ "$bad" = 0 ] || fail "respawn: $bad samples rooted at another tid"
[ "$n" -ge 4 ] || fail "respawn: only $n processes followed in 3 s"
assert_share "$T/rs.folded" ';Child#spin_for \(' 80 \
	"respawn: children in Child#spin_for" "^process (?!$parent )"
# Each child that exits while followed may fail the reads of its exit's
# last milliseconds (its VM torn down): 3 per exit under load in CI
# (32 of 269 ticks with 10 exits). The summary counts those apart.
assert_gvl_stopped "$T/rs.err" "respawn" "$((n - 1))"
# The reads of those exits are kept in the recording: 'rbflame report'
# writes the summary the run wrote, which names them.
run_rbflame rsreport 30 report -i "$T/rs.rbflame" -f summary \
	-o "$T/rs.sum2"
expect_rc 0 "rbflame report -i rs.rbflame -f summary"
cmp -s "$T/rs.sum" "$T/rs.sum2" ||
	fail "respawn: the summary from the recording differs from the run's"
l=$(grep -m 1 '^  Samples: ' "$T/rs.sum")
say "respawn: summary from the recording = the run's: $l"
if [ "$SUM_EXIT_FAILED" -gt 0 ]; then
	[[ $l == *"; $SUM_EXIT_FAILED more as processes exited)" ]] ||
		fail "respawn: $SUM_EXIT_FAILED reads at exits, not in: $l"
else
	[[ $l != *"as processes exited"* ]] ||
		fail "respawn: no read failed at an exit, yet: $l"
fi
