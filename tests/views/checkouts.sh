#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# rbflame diff across two checkouts, as doc/ci-gate.md's recipe runs it:
# tests/views/fixtures/checkout copied to base/ and new/, its benchmark
# profiled in launch mode to completion from new/ (../base/bench/... and
# bench/...). The files differ only by their directory: diff finds the
# two roots, says so, and the same code passes --fail-above 5 (it failed
# with every frame "0.0% -> N%"); --root gives them too. A third checkout
# where Shop#tax does four times the work fails, naming it by its path
# in the checkout. Profiles of another program and too few samples exit
# 2 with one line. --markdown writes the verdict for a CI summary.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-views.sh"

require_ruby
T=$(cd "$T" && pwd -P)	# the paths Ruby records are resolved

for co in base new slow; do
	cp -r "$VFIX/checkout" "$T/$co" || fail "cp -r checkout $co"
done
sed -i 's/TAX_WORK = 4_000/TAX_WORK = 16_000/' "$T/slow/lib/shop.rb"
grep -q 'TAX_WORK = 16_000' "$T/slow/lib/shop.rb" || fail "sed of slow/"
cd "$T/new" || fail "cd new"

for co in base new slow; do
	script=../$co/bench/checkout.rb
	[ "$co" = new ] && script=bench/checkout.rb
	run_rbflame "$co" 120 -q -r 499 -o "$T/$co.rbflame" \
		-o "$T/$co.folded" -- "$RUBY" "$script"
	expect_rc 0 "rbflame -o $co.rbflame -- ruby $script"
	say "$co: $(wc -l <"$T/$co.folded") stacks"
done

# The same code in two checkouts: roots detected, no failure.
for ext in rbflame folded; do
	RC=0
	"$RBFLAME" diff --fail-above 5 --limit 1000 "$T/base.$ext" "$T/new.$ext" \
		>"$T/same.$ext.out" 2>"$T/same.$ext.err" || RC=$?
	cat "$T/same.$ext.out"
	[ "$RC" = 0 ] || fail "diff of one program in two checkouts ($ext): exit $RC, want 0"
	grep -qxF "roots: base $T/base, new $T/new (detected: 2 files differ only by them; --root sets them)" \
		"$T/same.$ext.out" || fail "no roots line ($ext)"
	grep -q '^PASS: ' "$T/same.$ext.out" || fail "no PASS line ($ext)"
	grep -qE '^ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+.* Shop#tax \(lib/shop\.rb\)$' \
		"$T/same.$ext.out" || fail "Shop#tax (lib/shop.rb) not in the table ($ext)"
done
say "two checkouts of the same code: PASS ($(grep -c . "$T/same.rbflame.out") lines)"

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
[ "$RC" = 1 ] || fail "diff against Shop#tax four times slower: exit $RC, want 1"
grep -qE '^FAIL: (block in )?Shop#tax \(lib/shop\.rb\): total share' \
	"$T/slow.out" || fail "the FAIL line does not name Shop#tax (lib/shop.rb)"
! grep -E '^FAIL: ' "$T/slow.out" | grep -qv 'Shop#tax' ||
	fail "more than Shop#tax failed"
head -n 1 "$T/slow.md" | grep -qx '### rbflame diff: FAIL' ||
	fail "slow.md: no FAIL heading"
grep -qE '^\| \*\*FAIL\*\* (block in )?Shop\\#tax \(lib/shop\.rb\) \| [0-9.]+% \| [0-9.]+% \| \+[0-9.]+\\\* \|' \
	"$T/slow.md" || fail "slow.md: no FAIL row for Shop#tax"
say "Shop#tax four times slower: FAIL naming it, in slow.md too"

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
run_rbflame other 120 -q -r 499 -o "$T/other.rbflame" -- "$RUBY" "$T/other.rb"
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
