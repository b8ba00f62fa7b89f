#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Launch mode on the chain tracee: rbflame -- COMMAND samples the program
# from its start until it exits, >= 95% main;f0;f1;f2;f3; a short-lived
# child is sampled too; with -s shorter than the child, sampling stops but
# the child runs on in the foreground and its status is rbflame's.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

run_rbflame launch 30 -r 200 -o "$T/launch.folded" -- \
	"$TRACEES/stack-fcall" 3
expect_rc 0 "rbflame -r 200 -- stack-fcall 3"
assert_collapsed "$T/launch.folded" "chain launch"
assert_share "$T/launch.folded" "$CHAIN_RE" 95 "chain launch"
assert_share "$T/launch.folded" "(^|;)$LIBC_FRAME;main;f0;f1;f2;f3(;|\$)" 95 \
	"chain launch, unwound past main into libc"
assert_total "$T/launch.folded" 120 780 "chain launch, 3 s at 200 Hz"
grep -qi 'sample' "$T/launch.err" ||
	fail "no summary line (samples, ...) on stderr without -q"

# The same with the duration given to rbflame too (-s longer than the run).
run_rbflame launch-s 30 -s 10 -r 200 -o "$T/launch-s.folded" -- \
	"$TRACEES/stack-fcall" 1
expect_rc 0 "rbflame -s 10 -r 200 -- stack-fcall 1"
perl -e 'exit !($ARGV[0] < 6)' "$ELAPSED" ||
	fail "-s 10 with a 1 s child took $ELAPSED s"
assert_collapsed "$T/launch-s.folded" "chain launch, -s 10"
assert_share "$T/launch-s.folded" "$CHAIN_RE" 95 "chain launch, -s 10"

# A short-lived child is sampled from its start.
run_rbflame brief 30 -q -r 200 -o "$T/brief.folded" -- \
	"$TRACEES/stack-fcall" 0.3
expect_rc 0 "rbflame -r 200 -- stack-fcall 0.3"
assert_collapsed "$T/brief.folded" "0.3 s child"
assert_share "$T/brief.folded" "$CHAIN_RE" 80 "0.3 s child at 200 Hz"
assert_total "$T/brief.folded" 12 80 "0.3 s child at 200 Hz"

# -s shorter than the child: the profile covers 1 s, the child runs its
# 2.5 s to the end and rbflame exits with its status.
run_rbflame short 30 -q -s 1 -r 200 -o "$T/short.folded" -- \
	"$TRACEES/stack-fcall" -e 0 2.5
expect_rc 0 "rbflame -s 1 -- stack-fcall 2.5"
say "-s 1 with a 2.5 s child: rbflame exited after $ELAPSED s"
perl -e 'exit !($ARGV[0] >= 2.3)' "$ELAPSED" ||
	fail "-s 1 with a 2.5 s child: rbflame exited after $ELAPSED s," \
		"before its child"
assert_collapsed "$T/short.folded" "-s 1, 2.5 s child"
assert_share "$T/short.folded" "$CHAIN_RE" 95 "-s 1, 2.5 s child"
assert_total "$T/short.folded" 40 260 "-s 1 at 200 Hz"
