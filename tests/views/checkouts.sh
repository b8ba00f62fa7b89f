#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# rbflame diff across two checkouts, as doc/ci-gate.md's recipe runs it:
# tests/views/fixtures/checkout copied to base/, new/ and slow/ (where
# Shop#tax does twice the work), its benchmark profiled three times each
# in launch mode to completion from new/ (../base/bench/... and
# bench/...). The files differ only by their directory: diff finds the
# two roots and says so (it failed with every frame "0.0% -> N%"); one
# profile under the other checkout's paths matches with no change at
# all; --root gives the roots too. Three runs a side of the same code
# pass; Shop#tax twice as slow fails, one run a side and three, named by
# its path in the checkout. Profiles of another program and too few
# samples exit 2 with one line. --markdown writes the verdict for a CI
# summary.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-views.sh"

require_ruby
T=$(cd "$T" && pwd -P)	# the paths Ruby records are resolved

for co in base new slow; do
	cp -r "$VFIX/checkout" "$T/$co" || fail "cp -r checkout $co"
done
sed -i 's/TAX_WORK = 4_000/TAX_WORK = 8_000/' "$T/slow/lib/shop.rb"
grep -q 'TAX_WORK = 8_000' "$T/slow/lib/shop.rb" || fail "sed of slow/"
cd "$T/new" || fail "cd new"

# Three runs of each checkout; the first is the one of the one-run
# diffs.
for i in 1 2 3; do
	for co in base new slow; do
		script=../$co/bench/checkout.rb
		[ "$co" = new ] && script=bench/checkout.rb
		run_rbflame "$co$i" 120 -q --mode cpu -r 499 \
			-o "$T/$co$i.rbflame" -o "$T/$co$i.folded" -- \
			"$RUBY" "$script"
		expect_rc 0 "rbflame -o $co$i.rbflame -- ruby $script"
	done
done
for co in base new slow; do
	ln -s "$co"1.rbflame "$T/$co.rbflame"
	ln -s "$co"1.folded "$T/$co.folded"
done

# The same data under the other checkout's paths: roots detected, every
# function matched, no change at all (exact, whatever the machine's load).
sed "s|$T/base/|$T/new/|g" "$T/base.folded" >"$T/moved.folded"
RC=0
"$RBFLAME" diff --fail-above 5 --limit 1000 "$T/base.folded" \
	"$T/moved.folded" >"$T/moved.out" 2>"$T/moved.err" || RC=$?
[ "$RC" = 0 ] || fail "diff of one profile under two checkouts' paths: exit $RC, want 0"
grep -qxF "roots: base $T/base, new $T/new (detected: 2 files differ only by them; --root sets them)" \
	"$T/moved.out" || fail "no roots line (moved)"
grep -qE '^ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+.* Shop#tax \(lib/shop\.rb\)$' \
	"$T/moved.out" || fail "Shop#tax (lib/shop.rb) not in the table (moved)"
! grep -E '^ +[0-9.]+ +[0-9.]+ ' "$T/moved.out" |
	grep -qvE '^ +[0-9.]+ +[0-9.]+ +[-+]0\.0 ' ||
	fail "one profile under two checkouts' paths: a change"
say "one profile under two checkouts' paths: every change 0.0, PASS"

# The same code run in two checkouts, one run each: the roots, the
# table and a verdict (0 on a quiet machine; on a loaded one a run's
# noise can exceed 5 points, which the three-run recipe below is for).
for ext in rbflame folded; do
	RC=0
	"$RBFLAME" diff --fail-above 5 --limit 1000 "$T/base.$ext" "$T/new.$ext" \
		>"$T/same.$ext.out" 2>"$T/same.$ext.err" || RC=$?
	cat "$T/same.$ext.out"
	[ "$RC" = 0 ] || [ "$RC" = 1 ] ||
		fail "diff of one program in two checkouts ($ext): exit $RC"
	grep -qxF "roots: base $T/base, new $T/new (detected: 2 files differ only by them; --root sets them)" \
		"$T/same.$ext.out" || fail "no roots line ($ext)"
	grep -qE '^(PASS|FAIL): ' "$T/same.$ext.out" || fail "no verdict ($ext)"
	grep -qE '^ +[1-9][0-9.]* +[1-9][0-9.]* +[-+][0-9.]+.* Shop#tax \(lib/shop\.rb\)$' \
		"$T/same.$ext.out" || fail "Shop#tax (lib/shop.rb) not on both sides ($ext)"
	say "two checkouts of the same code, one run each ($ext): exit $RC"
done

# Given, in either order with the profiles.
RC=0
"$RBFLAME" diff "$T/base.rbflame" --root "$T/base/" ../new --fail-above 5 \
	"$T/new.rbflame" >"$T/given.out" 2>"$T/given.err" || RC=$?
[ "$RC" = 0 ] || fail "diff --root BASE_DIR NEW_DIR: exit $RC, want 0"
grep -qxF "roots: base $T/base, new $T/new (--root)" "$T/given.out" ||
	fail "no --root line: $(head -n 1 "$T/given.out")"
say "--root BASE_DIR NEW_DIR: PASS"

# A real slowdown in the other checkout still fails, by its relative path.
RC=0
"$RBFLAME" diff --fail-above 5 --markdown "$T/slow.md" "$T/base.rbflame" \
	"$T/slow.rbflame" >"$T/slow.out" 2>"$T/slow.err" || RC=$?
cat "$T/slow.out"
[ "$RC" = 1 ] || fail "diff against Shop#tax twice as slow: exit $RC, want 1"
grep -qE '^FAIL: (block in )?Shop#tax \(lib/shop\.rb\): total share' \
	"$T/slow.out" || fail "the FAIL line does not name Shop#tax (lib/shop.rb)"
! grep -E '^FAIL: ' "$T/slow.out" | grep -qv 'Shop#tax' ||
	fail "more than Shop#tax failed"
head -n 1 "$T/slow.md" | grep -qx '### rbflame diff: FAIL' ||
	fail "slow.md: no FAIL heading"
grep -qE '^\| \*\*FAIL\*\* (block in )?Shop\\#tax \(lib/shop\.rb\) \| [0-9.]+% \| [0-9.]+% \| \+[0-9.]+\\\* \|' \
	"$T/slow.md" || fail "slow.md: no FAIL row for Shop#tax"
say "Shop#tax twice as slow: FAIL naming it, in slow.md too"

# The recipe with three runs a side: the run-to-run spread decides.
RC=0
"$RBFLAME" diff --fail-above 5 --limit 1000 "$T"/base[123].rbflame -- \
	"$T"/new[123].rbflame >"$T/runs.out" 2>"$T/runs.err" || RC=$?
[ "$RC" = 0 ] || fail "diff of 3 + 3 runs of the same code: exit $RC, want 0"
grep -q '^runs: base 3, new 3: ' "$T/runs.out" || fail "no runs line"
grep -q '^PASS: ' "$T/runs.out" || fail "3 + 3 runs: no PASS line"
RC=0
"$RBFLAME" diff --fail-above 5 "$T"/base[123].rbflame -- \
	"$T"/slow[123].rbflame >"$T/runs-slow.out" 2>&1 || RC=$?
cat "$T/runs-slow.out"
[ "$RC" = 1 ] || fail "3 + 3 runs, Shop#tax twice as slow: exit $RC, want 1"
grep -qE '^FAIL: (block in )?Shop#tax \(lib/shop\.rb\): mean total share .* spread [0-9.]+, [0-9.]+ points over 3, 3 runs; t = ' \
	"$T/runs-slow.out" || fail "3 + 3 runs: the FAIL line does not name Shop#tax"
! grep -E '^FAIL: ' "$T/runs-slow.out" | grep -qv 'Shop#tax' ||
	fail "3 + 3 runs: more than Shop#tax failed"
say "3 + 3 runs: the same code passes, Shop#tax twice as slow fails"

# The same code: a PASS heading.
RC=0
"$RBFLAME" diff --fail-above 5 --markdown "$T/same.md" "$T/base.rbflame" \
	"$T/new.rbflame" >/dev/null 2>&1 || RC=$?
[ "$RC" = 0 ] || fail "diff --markdown of the same code: exit $RC, want 0"
head -n 1 "$T/same.md" | grep -qx '### rbflame diff: PASS' ||
	fail "same.md: no PASS heading"

# Another program: exit 2, one line.
cat >"$T/other.rb" <<'RUBY'
def spin = 200_000.times { |i| i * i }
100.times { spin }
RUBY
run_rbflame other 120 -q --mode cpu -r 499 -o "$T/other.rbflame" -- \
	"$RUBY" "$T/other.rb"
expect_rc 0 "rbflame -- ruby other.rb"
run_rbflame otherdiff 30 diff --fail-above 5 --markdown "$T/other.md" \
	"$T/base.rbflame" "$T/other.rbflame"
expect_rc 2 "diff of two different programs"
assert_error_line "$T/otherdiff.err" "diff of two different programs"
grep -q 'different programs' "$T/otherdiff.err" ||
	fail "the error does not say why: $(cat "$T/otherdiff.err")"
head -n 1 "$T/other.md" | grep -qx '### rbflame diff: no verdict' ||
	fail "other.md: no 'no verdict' heading"
say "another program: $(cat "$T/otherdiff.err")"

# Too few samples to decide: exit 2, one line.
sort -t ' ' -k 2 -n "$T/base.folded" | head -n 3 >"$T/few.folded"
run_rbflame few 30 diff --fail-above 5 "$T/few.folded" "$T/new.folded"
expect_rc 2 "diff of a profile of a few samples"
assert_error_line "$T/few.err" "diff of a profile of a few samples"
grep -q 'too few samples to decide' "$T/few.err" ||
	fail "the error does not say why: $(cat "$T/few.err")"
say "a few samples: $(cat "$T/few.err")"
