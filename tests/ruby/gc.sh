#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Sampling through garbage collection and compaction: the gc fixture
# allocates strings, arrays and hashes without pause, runs GC.start and
# GC.compact (which moves iseqs, strings and method entries under a
# reader's caches). 'rbflame -p PID -s 20 -r 1000' must exit 0, leave the
# target running (alive, not stopped, untraced), and write nothing
# impossible: every stack starts at <main> (once); every frame is
# 'LABEL (PATH:LINE)' where LABEL is a method, block or body of the
# fixture (or GC.start/GC.compact of <internal:gc>) and LINE lies inside
# its code, or LABEL has the shape of a C function (Word#word, Word.word,
# Word::Word#word, Word#+) and carries its caller's PATH:LINE, a real line
# of an existing file.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

# Where each of the fixture's frames may be (see ranges.rb; check_frames
# adds GC.start and GC.compact, Ruby code of <internal:gc>).
"$RUBY" "$top_srcdir/tests/ruby/ranges.rb" \
	"$FIXTURES/gc.rb" "$FIXTURES/fixture.rb" >"$T/known.tsv" ||
	fail "ranges.rb failed"
say "$(wc -l <"$T/known.tsv") known frames (methods, blocks, bodies)"

start_fixture gc gc.rb
run_rbflame gc 60 -p "$TPID" -s 20 -r 1000 -o "$T/gc.folded"
expect_rc 0 "rbflame -p PID -s 20 -r 1000 (gc fixture)"
say "$(tail -n 1 "$T/gc.err")"
assert_collapsed "$T/gc.folded" "gc"
wait_untraced "$TPID" 5
assert_running "$TPID" 5 0.1
say "the target is alive, running and untraced after 20 s at 1000 Hz"

assert_share "$T/gc.folded" '^<main> \(' 100 "stacks rooted at <main>"
check_frames "$T/gc.folded" "$T/known.tsv" >"$T/verdict.txt" ||
	fail "gc: impossible frames in the profile (above)"
say "every frame possible: $(cat "$T/verdict.txt")"

# The run did sample the collector at work, not only the allocations.
for m in 'GC\.start' 'GC\.compact' 'Churn#collect'; do
	read -r n t <<<"$(share "$T/gc.folded" "(^|;)$m \\(")"
	say "$n/$t samples in ${m/\\/}"
	[ "$n" -gt 0 ] || fail "gc: no sample in ${m/\\/}: the fixture did" \
		"not exercise the collector"
done
