#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Attach mode on the chain tracee (main -> f0 -> f1 -> f2 -> f3, f3 spinning):
# nearly every sample is main;f0;f1;f2;f3, the sample count follows -r and
# -s, the summary goes to stderr (not with -q), the profile to stdout by
# default, long options work, a target that exits ends the run with status
# 0, and a run too short for a single sample still exits 0.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

start_tracee stack-fcall -r "$T/ready"
wait_ready "$T/ready" 10 "$TPID"

# -p PID -s 3 -r 200: about 600 samples, >= 95% in the chain.
run_rbflame attach 20 -p "$TPID" -s 3 -r 200 -o "$T/attach.folded"
expect_rc 0 "rbflame -p PID -s 3 -r 200"
[ ! -s "$T/attach.out" ] || fail "-o FILE: the profile also went to stdout"
assert_collapsed "$T/attach.folded" "chain attach"
assert_share "$T/attach.folded" "$CHAIN_RE" 95 "chain attach"
assert_share "$T/attach.folded" "(^|;)$LIBC_FRAME;main;f0;f1;f2;f3(;|\$)" 95 \
	"chain attach, unwound past main into libc"
assert_total "$T/attach.folded" 120 780 "chain attach, 3 s at 200 Hz"
say "chain attach: -s 3 took $ELAPSED s"
perl -e 'exit !($ARGV[0] >= 2.9 && $ARGV[0] <= 8)' "$ELAPSED" ||
	fail "-s 3 run took $ELAPSED s"
if grep -q '^thread ' "$T/attach.folded"; then
	fail "stacks rooted at 'thread ...' without --threads"
fi
tail -n 1 "$T/attach.err" | grep -i 'sample' | grep -i 'late' |
	grep -qi 'fail' ||
	fail "no summary line (samples, late ticks, failed reads) at the" \
		"end of stderr without -q"
say "chain attach: summary: $(tail -n 1 "$T/attach.err")"

# The target is left running and untraced.
wait_untraced "$TPID" 2
assert_running "$TPID" 5 0.1

# -q, profile on stdout by default.
run_rbflame quiet 20 -q -p "$TPID" -s 1 -r 200
expect_rc 0 "rbflame -q -p PID -s 1 -r 200"
[ ! -s "$T/quiet.err" ] || fail "-q: stderr not empty"
assert_collapsed "$T/quiet.out" "chain attach, stdout"
assert_share "$T/quiet.out" "$CHAIN_RE" 95 "chain attach, stdout"

# Long options, fractional duration.
run_rbflame long 20 --pid="$TPID" --duration=1.5 --rate=300 \
	--output="$T/long.folded" --format=collapsed --quiet
expect_rc 0 "long options"
assert_collapsed "$T/long.folded" "long options"
assert_share "$T/long.folded" "$CHAIN_RE" 95 "long options, 1.5 s at 300 Hz"
assert_total "$T/long.folded" 90 585 "long options, 1.5 s at 300 Hz"
perl -e 'exit !($ARGV[0] >= 1.4 && $ARGV[0] < 6)' "$ELAPSED" ||
	fail "--duration=1.5 took $ELAPSED s"

# Too short for a sample: exit 0, an empty (or tiny) profile, and a notice
# when it is empty.
run_rbflame tiny 20 -p "$TPID" -s 0.01 -r 1 -o "$T/tiny.folded"
expect_rc 0 "-s 0.01 -r 1"
assert_collapsed "$T/tiny.folded" "-s 0.01 -r 1" allow-empty
if [ ! -s "$T/tiny.folded" ]; then
	[ -s "$T/tiny.err" ] || fail "zero samples but no notice on stderr"
	say "zero samples: notice: $(head -n 1 "$T/tiny.err")"
fi
wait_untraced "$TPID" 2
assert_running "$TPID" 3 0.1
kill_tracee "$TPID"

# A target that exits during the run: rbflame exits 0 when it does.
start_tracee stack-fcall -r "$T/ready2" 1.5
wait_ready "$T/ready2" 10 "$TPID"
run_rbflame exits 30 -p "$TPID" -s 20 -r 200 -o "$T/exits.folded"
expect_rc 0 "target exiting during the run"
perl -e 'exit !($ARGV[0] < 10)' "$ELAPSED" ||
	fail "rbflame ran $ELAPSED s after its target exited"
assert_collapsed "$T/exits.folded" "target exits"
assert_share "$T/exits.folded" "$CHAIN_RE" 95 "target exits after 1.5 s"
wait_exit "$TPID" 10 || fail "tracee did not exit"
expect_rc 0 "the tracee"
say "target exiting during the run: rbflame exited 0 after $ELAPSED s"
