#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# rbflame diff on real profiles: three recordings of tests/views/fixtures/
# workload.rb, profiled once it is ready (three steps of a third each), two plain and one where
# Workload#tax does four times the work. Two plain runs pass
# --fail-above 5 (exit 0); plain against slow fails (exit 1) naming
# Workload#tax and nothing else. --svg is well-formed, red on
# Workload#tax; --collapsed is flamegraph.pl's differential input. Bad
# input exits 2.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-views.sh"

require_ruby
require_cmd xmllint

# Recordings of 5 s at 999 Hz, attached after start-up. A busy machine
# (make -j, other jobs) preempts the workload for milliseconds at a time
# and its samples then cluster; the recordings' order lets diff count
# them for what they are worth (effective samples), so two runs of the
# same code stay apart from a real slowdown. Collapsed copies too.
for run in base same slow; do
	arg=
	[ "$run" = slow ] && arg=slow
	"$RUBY" "$VFIX/workload.rb" 600 $arg >"$T/$run.log" 2>&1 </dev/null &
	pid=$!
	track "$pid"
	wait_ready "$T/$run.log" 20 "$pid"
	run_rbflame "$run" 40 -p "$pid" -s 5 -r 999 -o "$T/$run.rbflame"
	expect_rc 0 "rbflame -p PID -s 5 -o $run.rbflame (workload.rb $arg)"
	{ kill -KILL "$pid" && wait "$pid"; } 2>/dev/null || true
	"$RBFLAME" report -i "$T/$run.rbflame" -o "$T/$run.folded" ||
		fail "rbflame report -i $run.rbflame -o $run.folded failed"
	say "$run: $(tail -n 1 "$T/$run.err")"
done

# The same workload twice: no significant growth above 5 points.
RC=0
"$RBFLAME" diff --fail-above 5 "$T/base.rbflame" "$T/same.rbflame" \
	>"$T/same.diff" 2>"$T/same.diff.err" || RC=$?
cat "$T/same.diff"
[ "$RC" = 0 ] || fail "diff of two runs of the same workload: exit $RC, want 0"
grep -q '^PASS: ' "$T/same.diff" || fail "no PASS line"
grep -qE '^ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+.* Workload#tax \(' "$T/same.diff" ||
	fail "Workload#tax not in the table"

# Workload#tax four times slower: it fails, and only it (the first row,
# after the roots and compared lines and the three lines of headers).
RC=0
"$RBFLAME" diff --fail-above 5 --svg "$T/diff.svg" \
	--collapsed "$T/diff.folded" "$T/base.rbflame" "$T/slow.rbflame" \
	>"$T/slow.diff" 2>"$T/slow.diff.err" || RC=$?
cat "$T/slow.diff"
[ "$RC" = 1 ] || fail "diff against the slowed-down workload: exit $RC, want 1"
grep -qE '^FAIL: Workload#tax \(/.*workload\.rb\): total share .*significant at 99%' \
	"$T/slow.diff" || fail "the FAIL line does not name Workload#tax"
[ "$(grep -c '^FAIL: ' "$T/slow.diff")" = 1 ] ||
	fail "more than Workload#tax failed"
head -n 6 "$T/slow.diff" | grep -qE '^ +[0-9.]+ +[0-9.]+ +\+[0-9.]+\* .* Workload#tax \(' ||
	fail "Workload#tax is not the first row, marked significant"

# Collapsed stacks (no order: every sample counts as independent) give
# the same verdict on the slowdown.
RC=0
"$RBFLAME" diff --fail-above 5 "$T/base.folded" "$T/slow.folded" \
	>"$T/collapsed.diff" 2>&1 || RC=$?
[ "$RC" = 1 ] || fail "diff of collapsed stacks: exit $RC, want 1"
grep -q '^FAIL: Workload#tax (' "$T/collapsed.diff" ||
	fail "diff of collapsed stacks: Workload#tax not named"
say "collapsed stacks: the same verdict"

# Without --fail-above it only reports.
RC=0
"$RBFLAME" diff "$T/base.rbflame" "$T/slow.folded" >"$T/report.diff" || RC=$?
[ "$RC" = 0 ] || fail "diff without --fail-above: exit $RC, want 0"
! grep -qE '^(PASS|FAIL): ' "$T/report.diff" ||
	fail "a verdict without --fail-above"

# The differential flamegraph and flamegraph.pl's input.
xmllint --noout "$T/diff.svg" || fail "diff.svg is not well-formed"
grep -qE '<g class="f"[^>]*><title>Workload#tax \([^)]*\)&#10;[^<]*base [0-9.]+% -> new [0-9.]+% \(\+[0-9.]+ points\)</title><rect [^>]*fill="rgb\(255,' \
	"$T/diff.svg" || fail "Workload#tax is not red in diff.svg"
grep -qE '<title>Workload#parse \([^<]*\(-[0-9.]+ points\)</title><rect [^>]*fill="rgb\([0-9]+,[0-9]+,255\)' \
	"$T/diff.svg" || fail "Workload#parse is not blue in diff.svg"
perl -ne 'exit 1 unless /^(.+) (\d+) (\d+)$/ && $1 !~ / \d+$/' \
	"$T/diff.folded" || fail "diff.folded: a line is not 'stack BASE NEW'"
perl -ne '
	next unless /;Workload#tax \([^;]*\) (\d+) (\d+)$/;
	$b += $1; $n += $2;
	END { exit !($n > 1.5 * $b) }
' "$T/diff.folded" || fail "diff.folded: Workload#tax did not grow"
say "diff.svg well-formed with Workload#tax red; diff.folded $(wc -l <"$T/diff.folded") lines"

# Errors: exit 2 with one line.
for args in "$T/base.folded" "$T/base.folded $T/nonexistent" \
	"--fail-above x $T/base.folded $T/same.folded" \
	"--bogus $T/base.folded $T/same.folded"; do
	RC=0
	# shellcheck disable=SC2086 # the words are the arguments
	"$RBFLAME" diff $args >"$T/err.out" 2>"$T/err.err" || RC=$?
	[ "$RC" = 2 ] || fail "rbflame diff $args: exit $RC, want 2"
	grep -q '^rbflame: diff: ' "$T/err.err" ||
		fail "rbflame diff $args: no error line: $(cat "$T/err.err")"
done
printf 'a;b 1\nnot a profile line\n' >"$T/bad.folded"
RC=0
"$RBFLAME" diff "$T/base.folded" "$T/bad.folded" >/dev/null 2>"$T/bad.err" || RC=$?
[ "$RC" = 2 ] || fail "diff of an invalid profile: exit $RC, want 2"
grep -q 'line 2' "$T/bad.err" || fail "the error does not name line 2: $(cat "$T/bad.err")"
say "errors exit 2 with a message"
