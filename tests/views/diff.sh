#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# rbflame diff on real profiles: three runs of tests/views/fixtures/
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

# Attached after start-up, 2500 samples or more each: a third's share
# then varies by about 1.3 points between runs (the steps are short, so
# samples are nearly independent), and 5 points is far out of reach.
for run in base same slow; do
	arg=
	[ "$run" = slow ] && arg=slow
	profile_workload "$run" 3 $arg
done

# The same workload twice: no significant growth above 5 points.
RC=0
"$RBFLAME" diff --fail-above 5 "$T/base.folded" "$T/same.folded" \
	>"$T/same.diff" 2>"$T/same.diff.err" || RC=$?
cat "$T/same.diff"
[ "$RC" = 0 ] || fail "diff of two runs of the same workload: exit $RC, want 0"
grep -q '^PASS: ' "$T/same.diff" || fail "no PASS line"
grep -qE '^ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+.* Workload#tax \(' "$T/same.diff" ||
	fail "Workload#tax not in the table"

# Workload#tax four times slower: it fails, and only it.
RC=0
"$RBFLAME" diff --fail-above 5 --svg "$T/diff.svg" \
	--collapsed "$T/diff.folded" "$T/base.folded" "$T/slow.folded" \
	>"$T/slow.diff" 2>"$T/slow.diff.err" || RC=$?
cat "$T/slow.diff"
[ "$RC" = 1 ] || fail "diff against the slowed-down workload: exit $RC, want 1"
grep -qE '^FAIL: Workload#tax \(/.*workload\.rb\): total share .*significant at 99%' \
	"$T/slow.diff" || fail "the FAIL line does not name Workload#tax"
[ "$(grep -c '^FAIL: ' "$T/slow.diff")" = 1 ] ||
	fail "more than Workload#tax failed"
head -n 4 "$T/slow.diff" | grep -qE '^ +[0-9.]+ +[0-9.]+ +\+[0-9.]+\* .* Workload#tax \(' ||
	fail "Workload#tax is not the first row, marked significant"

# A raw recording compares like collapsed stacks.
"$RBFLAME" report -i "$T/base.folded" -o "$T/base.rbflame" ||
	fail "rbflame report -i base.folded -o base.rbflame failed"
RC=0
"$RBFLAME" diff --fail-above 5 "$T/base.rbflame" "$T/slow.folded" \
	>"$T/raw.diff" 2>&1 || RC=$?
[ "$RC" = 1 ] || fail "diff of a recording and the slow run: exit $RC, want 1"
grep -q '^FAIL: Workload#tax (' "$T/raw.diff" ||
	fail "diff of a recording: Workload#tax not named"
cmp -s <(tail -n +2 "$T/raw.diff") <(tail -n +2 "$T/slow.diff") ||
	fail "a recording's table differs from its collapsed stacks' table"
say "a raw recording as BASE: the same table and verdict"

# Without --fail-above it only reports.
RC=0
"$RBFLAME" diff "$T/base.folded" "$T/slow.folded" >"$T/report.diff" || RC=$?
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
