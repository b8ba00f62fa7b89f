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
#    master and its live workers, is left running and untraced.
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
