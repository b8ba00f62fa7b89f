#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The summary's hold, apart from the stop: each thread is held from
# waitpid reporting its stop to PTRACE_CONT returning, a part of the
# sample's stop, which begins before the interrupt (at the GVL-holder
# lookup) and takes the interrupt's latency too. deep.rb (one thread,
# spinning in Ruby: the GVL holder every tick stops) profiled '-s 2 -r
# 200', then again with --native (its native stack unwound inside the
# hold): each summary shows held p50 > 0 and an interrupt latency p50 >
# 0, held p50 <= stopped p50 and held p99 <= stopped p99. With one thread
# each hold lies inside its own sample's stop, so every quantile of the
# holds is at most the same quantile of the stops. Then, with --debug:
# most frames served by the GC count, unchecked, and on churn.rb (minor
# GCs all the time) by the count of major GCs (see the end); and with
# the host's CPUs contended, the holds' fetches not warmed.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

# check_held TAG WHAT: TAG's summary as above.
check_held() {
	read_summary "$T/$1.err"
	say "$2: stopped $SUM_STOP50 / $SUM_STOP99 us, held $SUM_HELD50 /" \
		"$SUM_HELD99 us (p50 / p99), interrupt latency $SUM_LATENCY50" \
		"us p50, in $SUM_TICKS ticks"
	perl -e 'exit !($ARGV[0] > 0 && $ARGV[1] > 0)' "$SUM_HELD50" \
		"$SUM_LATENCY50" ||
		fail "$2: held $SUM_HELD50 us, latency $SUM_LATENCY50 us p50: want > 0"
	perl -e 'exit !($ARGV[0] <= $ARGV[1])' "$SUM_HELD50" "$SUM_STOP50" ||
		fail "$2: held $SUM_HELD50 us p50 > stopped $SUM_STOP50 us p50"
	perl -e 'exit !($ARGV[0] <= $ARGV[1])' "$SUM_HELD99" "$SUM_STOP99" ||
		fail "$2: held $SUM_HELD99 us p99 > stopped $SUM_STOP99 us p99"
}

start_fixture held deep.rb 60
run_rbflame ruby 30 -p "$TPID" -s 2 -r 200 -o "$T/ruby.folded"
expect_rc 0 "rbflame -p PID -s 2 -r 200"
assert_collapsed "$T/ruby.folded" "held"
check_held ruby "Ruby stacks"

run_rbflame native 30 --native -p "$TPID" -s 2 -r 200 \
	-o "$T/native.folded"
expect_rc 0 "rbflame --native -p PID -s 2 -r 200"
assert_collapsed "$T/native.folded" "held --native"
check_held native "--native"

# A frame the GC's count vouches for is served without reading its iseq
# (struct frame_slot in src/ruby/reader.c): deep.rb's loop allocates
# nothing, so the count stands still and most frames of most samples
# are served so; the stacks stay whole (assert_collapsed, and
# consistency.sh checks their chains on this fixture).
run_rbflame vouch 30 --debug -p "$TPID" -s 2 -r 200 -o "$T/vouch.folded"
expect_rc 0 "rbflame --debug -p PID -s 2 -r 200"
assert_collapsed "$T/vouch.folded" "held --debug"
vouched=$(grep -o 'frames the GC count vouched for [0-9]*' "$T/vouch.err" |
	grep -o '[0-9]*$')
frames=$(awk '{ s += (gsub(/;/, ";") + 1) * $NF } END { print s + 0 }' \
	"$T/vouch.folded")
say "frames the GC count vouched for: ${vouched:-none} of $frames"
[ -n "$vouched" ] && [ "$frames" -gt 0 ] && [ $((vouched * 2)) -ge "$frames" ] ||
	fail "frames vouched for by the GC count: ${vouched:-none} of $frames, want at least half"
# So is the type of the object each frame's ep names (its method entry,
# a cref), which resolves the frame's method entry (struct type_slot):
# deep.rb left its last GC sweeping (nothing allocates to finish the
# sweep), where no compaction is under way (its flag), and a type is
# kept for every stopped read with the same count. At least half the
# frames: without the flag (<= 3.1), none in a sweep.
kept=$(grep -o "method entries' types kept [0-9]*" "$T/vouch.err" |
	grep -o '[0-9]*$')
say "method entries' types kept: ${kept:-none} for $frames frames"
[ -n "$kept" ] && [ $((kept * 2)) -ge "$frames" ] ||
	fail "method entries' types kept: ${kept:-none} for $frames frames, want at least half"

# An old iseq or method entry is vouched for by the count of major GCs
# alone, through any number of minor GCs (struct frame_slot): churn.rb
# keeps a 40-deep stack of code loaded before four minor GCs (old by
# then) under a minor GC every millisecond or so. Nearly every frame is
# served by that count: at least three a sample, the slots of <main>,
# Churn#run, Churn#down and its block, which the GC count alone serves
# only within the read that checked them. And the fixture's GCs were
# minor ones: more than 50 in the run (its last line, "gc COUNT MAJOR").
# The hold's warm fetch (prefetch_warm() in src/sample/stop.c) spends
# rbflame's CPU to shorten the hold, which pays while a CPU is free:
# with the host's CPUs contended (the kernel's CPU pressure, "some",
# over a second at 10% or more) it is left out. Two spinners more than
# the host has CPUs, and deep.rb profiled 3 s: most holds' fetches not
# warmed. (The fetches warmed when no CPU is contended are not asserted:
# make check -j runs other tests beside this one.)
if [ -r /proc/pressure/cpu ]; then
	for _ in $(seq $(($(nproc) + 2))); do
		perl -e '1 while 1' &
		track $!
	done
	sleep 1.5
	run_rbflame contended 30 --debug -p "$TPID" -s 3 -r 200 \
		-o "$T/contended.folded"
	expect_rc 0 "rbflame --debug -p PID -s 3 -r 200 (CPUs contended)"
	assert_collapsed "$T/contended.folded" "held --debug (CPUs contended)"
	warm=$(grep -o "holds' fetches warmed [0-9]*, not warmed as the CPUs were contended [0-9]*" \
		"$T/contended.err" | grep -o '[0-9]*' | tr '\n' ' ')
	say "CPUs contended: holds' fetches warmed, not warmed: ${warm:-none}"
	set -- $warm
	[ -n "${2:-}" ] && [ "$2" -gt 0 ] && [ $(($2 * 2)) -gt $(($1 + $2)) ] ||
		fail "CPUs contended: holds' fetches warmed ${1:-?}, not warmed ${2:-?}: want most not warmed"
	for p in $PIDS; do
		[ "$p" = "$TPID" ] && continue
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
else
	say "no /proc/pressure/cpu (a kernel without PSI): every fetch warms, not tested"
fi

start_fixture churn churn.rb 4
run_rbflame churn 30 --debug -p "$TPID" -s 2 -r 200 -o "$T/churn.folded"
expect_rc 0 "rbflame --debug -p PID -s 2 -r 200 (churn.rb)"
assert_collapsed "$T/churn.folded" "held --debug (churn.rb)"
grep -q 'Churn#down ([^)]*);Churn#down (' "$T/churn.folded" ||
	fail "churn.rb: no Churn#down under Churn#down in the profile"
major=$(grep -o "vouched for [0-9]* (the major GCs' alone [0-9]*)" \
	"$T/churn.err" | grep -o '[0-9]*)$' | tr -d ')')
samples=$(awk '{ s += $NF } END { print s + 0 }' "$T/churn.folded")
wait_exit "$TPID" 20 || fail "churn.rb did not end in 20 s"
gcs=$(sed -n 's/^gc \([0-9]*\) \([0-9]*\)$/\1 \2/p' "$T/churn.log")
say "churn.rb: frames the major GCs' count vouched for: ${major:-none}, $samples samples; GCs in the run (all, major): ${gcs:-none}"
set -- $gcs
[ -n "${1:-}" ] && [ "$1" -gt 50 ] ||
	fail "churn.rb ran ${1:-no} GCs, want more than 50 (it churns strings)"
[ -n "$major" ] && [ "$samples" -gt 0 ] && [ "$major" -ge $((samples * 3)) ] ||
	fail "frames the major GCs' count vouched for: ${major:-none} in $samples samples, want at least 3 a sample"
