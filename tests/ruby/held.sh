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
# most frames served by the GC count, unchecked (see the end).
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
