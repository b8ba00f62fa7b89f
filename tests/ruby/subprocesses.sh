#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# --subprocesses on a pre-forking server (the forks fixture: a master and
# three workers forked with Kernel#fork):
#  - launch mode, 'rbflame --subprocesses -r 200 -- ruby forks.rb once 3':
#    all 4 processes are in the profile, every stack rooted at
#    'process PID "CMD"'; each worker's samples are >= 80% its exact
#    stack (Server#work under the fork), the master's >= 50% in
#    Process.waitall (blocked); the workers exit first and keep their
#    samples; rbflame ends on its own when the master, the last one,
#    exits, with the command's status;
#  - attach mode on a master that keeps forking short-lived workers
#    ('respawn'), -s 3: the children forked while attached are followed
#    (>= 4 processes in all), and at the deadline every process, the
#    master and its live workers, is left running and untraced;
#  - attach mode on a master whose workers were forked before ('once 8'),
#    one of them held by another tracer: the two others are profiled
#    (Server#work under each), the held one is a one-line notice naming
#    the other tracer, not an error, and stays with its tracer; nothing
#    of the tree is left traced by rbflame;
#  - --max-pause across processes: a worker is interrupted only at the
#    ticks the budget lets stop it;
#  - a zombie child (exited, not reaped) is no notice and no process.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

FX=forks.rb
run_rbflame fk 60 --subprocesses -r 200 -o "$T/fk.folded" -- \
	"$RUBY" "$FIXTURES/forks.rb" once 3
expect_rc 0 "rbflame --subprocesses -- ruby forks.rb once 3"
say "summary: $(tail -n 1 "$T/fk.err")"
assert_collapsed "$T/fk.folded" "--subprocesses (launch)"
assert_share "$T/fk.folded" '^process [0-9]+ "[^"]*";' 100 \
	"stacks rooted at process PID \"CMD\""

master=$(awk '$1 == "master" { print $2 }' "$T/fk.out")
workers=$(awk '$1 == "worker" { print $3 }' "$T/fk.out")
[ -n "$master" ] && [ "$(echo "$workers" | wc -w)" = 3 ] ||
	fail "the fixture did not print its master and 3 workers"
roots=$(sed -n 's/^process \([0-9]*\) .*/\1/p' "$T/fk.folded" | sort -u)
want=$(printf '%s\n' "$master" $workers | sort -u)
[ "$roots" = "$want" ] ||
	fail "processes in the profile: $(echo $roots), want $(echo $want)"
say "all 4 processes in the profile: master $master, workers" $workers

cmd="$RUBY $FIXTURES/forks.rb once 3"
for w in $workers; do
	s=$(expand_stack "process $w \"$cmd\";<main> {main-run};Server#run {first};Integer#times {first};block in Server#run {first};Server#spawn {fork};Kernel#fork {fork};block in Server#spawn {fork};Server#work {work}")
	assert_stacks "$T/fk.folded" 80 "worker $w" --within "process $w \"" \
		"$s@GC?@"
done
s=$(expand_stack "process $master \"$cmd\";<main> {main-run};Server#run {waitall};Process.waitall {waitall};(blocked)")
assert_stacks "$T/fk.folded" 50 "master $master" \
	--within "process $master \"" "$s"
# The master lingers after its workers are gone: sampling went on.
read -r n t <<<"$(share "$T/fk.folded" "^process $master .*;Server#linger \\(")"
say "master: $n/$t samples in Server#linger, after the workers exited"
[ "$n" -gt 0 ] || fail "no sample of the master after its workers exited"

# Attach to a master that keeps forking; leave everything running.
start_fixture rs forks.rb respawn
run_rbflame rs 30 --subprocesses -p "$TPID" -s 3 -r 200 -o "$T/rs.folded"
expect_rc 0 "rbflame --subprocesses -p PID -s 3 (respawn)"
say "summary: $(tail -n 1 "$T/rs.err")"
assert_collapsed "$T/rs.folded" "--subprocesses (attach)"
n=$(sed -n 's/^process \([0-9]*\) .*/\1/p' "$T/rs.folded" | sort -u | wc -l)
say "attach: $n processes in the profile"
[ "$n" -ge 4 ] || fail "attach: only $n processes followed in 3 s"
# Children forked after attach have Server#work; the master waits.
assert_share "$T/rs.folded" ';Server#work \(|;Process\.wait \(|;Server#spawn \(' \
	90 "attach: master waiting, workers working"
wait_untraced "$TPID" 5
assert_running "$TPID" 5 0.1
for c in $(cat "/proc/$TPID/task/$TPID/children" 2>/dev/null); do
	[ -d "/proc/$c" ] || continue	# a worker that just ended
	read_tracer "$c" || continue
	[ "$TRACER" = 0 ] || fail "worker $c still traced by $TRACER"
done
say "the master and its live workers are running and untraced"

# Attach to a tree that exists already, one worker held by another tracer.
start_fixture tr forks.rb once 8
master=$TPID
workers=$(awk '$1 == "worker" { print $3 }' "$T/tr.log")
[ "$(echo "$workers" | wc -w)" = 3 ] || fail "tree: want 3 workers"
held=$(echo "$workers" | head -n 1)
"$TRACEES/ptrace-hold" -r "$T/hold.ready" "$held" >"$T/hold.log" 2>&1 &
holder=$!
track "$holder"
wait_ready "$T/hold.ready" 10 "$holder"
run_rbflame tr 30 --subprocesses -p "$master" -s 2 -r 200 -o "$T/tr.folded"
expect_rc 0 "rbflame --subprocesses -p PID -s 2 (existing workers)"
say "summary: $(tail -n 1 "$T/tr.err")"
assert_collapsed "$T/tr.folded" "--subprocesses (existing tree)"
grep -Ex "rbflame: not following process $held \\(child of $master\\): it is traced by process $holder already .*" \
	"$T/tr.err" >/dev/null ||
	fail "no notice about worker $held held by $holder"
grep -Ex "rbflame: following 2 running processes under $master: [0-9 ]+" \
	"$T/tr.err" >/dev/null || fail "no line naming the workers found"
for w in $workers; do
	[ "$w" = "$held" ] && continue
	read -r n t <<<"$(share "$T/tr.folded" "^process $w .*;Server#work \\(")"
	say "worker $w, running before the attach: $n/$t samples in Server#work"
	[ "$n" -gt 0 ] || fail "no sample of existing worker $w in Server#work"
done
! grep -q "^process $held " "$T/tr.folded" ||
	fail "worker $held, held by another tracer, is in the profile"
[ "$(tracer_of "$held")" = "$holder" ] ||
	fail "the other tracer lost worker $held (TracerPid $(tracer_of "$held"))"
for p in $master $workers; do
	[ "$p" = "$held" ] && continue
	read_tracer "$p" || continue	# a worker that just ended
	[ "$TRACER" = 0 ] || fail "process $p left traced by $TRACER"
done
say "existing workers profiled, the held one told and left to its tracer"

# --max-pause across processes: a round interrupts every process's GVL
# holder before it waits for any, so the budget must decide before the
# interrupt. It decided after: every worker was interrupted at every
# tick (2975 interrupts in 2978 ticks, 3 s at 1000 Hz, 2 workers) while
# the summary counted 5272 of the ticks as read without stopping. Each
# worker's interrupts now are about its stopped ticks (ticks less those
# read without stopping; a tick may take a second stop, hence twice).
start_fixture mp forks.rb once 8
run_rbflame mp 30 --debug --subprocesses --max-pause 1 -r 1000 -s 2 \
	-p "$TPID" -o "$T/mp.folded"
expect_rc 0 "rbflame --subprocesses --max-pause 1 -r 1000 -p PID -s 2"
assert_collapsed "$T/mp.folded" "--subprocesses --max-pause 1"
read -r ticks unstopped <<<"$(sed -n 's/.*(\([0-9]*\) ticks at .*, \([0-9]*\) ticks read without stopping.*/\1 \2/p' "$T/mp.err")"
[ -n "$ticks" ] && [ -n "$unstopped" ] ||
	fail "--max-pause: no ticks or unstopped count: $(tail -n 1 "$T/mp.err")"
irq=$(awk '/^rbflame: thread [0-9]+ of process [0-9]+: [0-9]+ interrupts$/ { n += $(NF - 1) } END { print n + 0 }' "$T/mp.err")
stopped=$((3 * ticks - unstopped))
say "--max-pause 1, master and 3 workers: $ticks ticks, $unstopped read without stopping, $irq interrupts in all"
[ "$unstopped" -gt 0 ] ||
	fail "--max-pause 1 at 1000 Hz: every tick stopped (the budget never bound)"
[ "$irq" -le $((2 * stopped + 30)) ] ||
	fail "--max-pause 1: $irq interrupts for about $stopped stopped ticks: stops begun that the budget refused"

# A zombie in the tree: nothing to follow, nothing to say.
"$RUBY" -e 'fork { exit 0 }; fork { loop { } }; puts "ready"; $stdout.flush; sleep 30' \
	>"$T/zb.log" 2>&1 </dev/null &
zb=$!
track "$zb"
wait_line "$T/zb.log" '^ready$' 20 "$zb"
n=100
until ps -o stat= --ppid "$zb" | grep -q Z; do
	n=$((n - 1))
	[ "$n" -gt 0 ] || fail "zombie: the fixture has no zombie child"
	sleep 0.05
done
for c in $(ps -o pid= --ppid "$zb"); do track "$c"; done
run_rbflame zb 30 --subprocesses -p "$zb" -s 1 -o "$T/zb.folded"
expect_rc 0 "rbflame --subprocesses -p PID (a zombie child)"
! grep -q 'not following' "$T/zb.err" ||
	fail "zombie: a notice: $(grep 'not following' "$T/zb.err")"
grep -q '; 2 processes$' "$T/zb.err" ||
	fail "zombie: want 2 processes: $(tail -n 1 "$T/zb.err")"
say "a zombie child: no notice, 2 processes profiled"
