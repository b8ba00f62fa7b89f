#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Caps on what the target drives (issue #20): fixture evals.rb's 50
# threads make every sample's frames new. 'rbflame -p PID -s 8 -r 1000'
# stays under 100 MiB of peak RSS (300 under ASan; polled every 0.1 s;
# the issue measured 771 MB with no cap) and writes its profile; with --max-frames 1000 the
# cap is hit within 2 s, the summary counts the frames past it, stacks
# end in a '[frame limit]' leaf and the profile holds at most 1001
# distinct frames;
# --max-frames 0 is accepted (no cap), a bad value is one usage line. The
# target is left running and untraced.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"
say "ruby $RUBY_VERSION ($(command -v "$RUBY")), fixtures in $FIXTURES"

start_fixture evals evals.rb

# peak_rss TAG SECS ARGS...: runs rbflame ARGS in the background, polls its
# VmRSS every 0.1 s until it exits (at most SECS); sets PEAK_KB and RC.
peak_rss() {
	local tag=$1 secs=$2 kb
	shift 2
	PEAK_KB=0
	start_rbflame "$tag" "$@"
	for _ in $(seq $((secs * 10))); do
		kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$RBPID/status" \
			2>/dev/null) || kb=
		[ -n "$kb" ] || break
		[ "$kb" -le "$PEAK_KB" ] || PEAK_KB=$kb
		sleep 0.1
	done
	wait_rbflame 10 || fail "$tag: rbflame still running after $secs s"
}

peak_rss default 30 -p "$TPID" -s 8 -r 1000 -o "$T/default.folded"
expect_rc 0 "caps/default: rbflame -p PID -s 8 -r 1000"
# ASan's shadow memory and quarantine triple a process's RSS.
cap_mib=100
[ "$ASAN_BUILD" = 1 ] && cap_mib=300
say "default cap: peak RSS $((PEAK_KB / 1024)) MiB (want < $cap_mib)"
[ "$PEAK_KB" -gt 0 ] || fail "caps/default: no RSS read"
[ "$PEAK_KB" -lt $((cap_mib * 1024)) ] ||
	fail "caps/default: peak RSS $((PEAK_KB / 1024)) MiB, want < $cap_mib"
assert_collapsed "$T/default.folded" caps/default
grep -q 'evals-' "$T/default.folded" ||
	fail "caps/default: no eval'd frame in the profile"
tail -n 1 "$T/default.err" >&2
wait_untraced "$TPID" 2

run_rbflame small 30 --max-frames 1000 -p "$TPID" -s 2 -r 200 \
	-o "$T/small.folded"
expect_rc 0 "caps/small: rbflame --max-frames 1000 -p PID -s 2 -r 200"
assert_collapsed "$T/small.folded" caps/small
grep -Eq '; [0-9]+ frames past the cap of 1000 distinct' "$T/small.err" ||
	fail "caps/small: the summary does not count frames past the cap: $(tail -n 1 "$T/small.err")"
grep -Eq '\[frame limit\] [0-9]+$' "$T/small.folded" ||
	fail "caps/small: no stack ends in [frame limit]"
grep -Eq '\[frame limit\];' "$T/small.folded" &&
	fail "caps/small: [frame limit] is not a leaf"
n=$(sed 's/ [0-9]*$//' "$T/small.folded" | tr ';' '\n' | sort -u | wc -l)
say "--max-frames 1000: $n distinct frames"
[ "$n" -le 1001 ] || fail "caps/small: $n distinct frames, cap 1000"
wait_untraced "$TPID" 2

run_rbflame nocap 30 --max-frames 0 -p "$TPID" -s 0.5 -r 100 \
	-o "$T/nocap.folded"
expect_rc 0 "caps/nocap: rbflame --max-frames 0"
grep -q 'frame limit' "$T/nocap.folded" &&
	fail "caps/nocap: [frame limit] with no cap"
wait_untraced "$TPID" 2

run_rbflame bad 10 --max-frames -3 -p "$TPID" -s 1
expect_rc 2 "caps/bad: rbflame --max-frames -3"
assert_usage_error "$T/bad.err" "caps/bad"
grep -q 'max-frames' "$T/bad.err" || fail "caps/bad: $(cat "$T/bad.err")"
assert_running "$TPID" 3 0.1
say "ok"
