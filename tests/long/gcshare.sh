#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The (garbage collection) share against Ruby's own account: the gcshare
# fixture (tests/ruby/fixtures) collects about half its time and prints,
# on SIGUSR1, GC.stat(:time) and its CPU time. Rounds of 'rbflame -p PID
# -s 12 -r RATE', each between two such lines, until the profile has >=
# 10,000 samples: the share of samples ending in (garbage collection)
# (with a phase under it or not) must be within 5 points of the share of
# the fixture's CPU time that GC.stat(:time) gives to the collector.
# Ruby measures GC time in CPU time; wall-clock samples see the same split
# as long as the target is descheduled evenly across phases.
#
# Only rounds where rbflame kept its schedule count (late ticks under 5%
# of the ticks due): a sampler that cannot keep up samples as fast as it
# can, and a stop that costs more in one phase than another then thins
# that phase's samples (seen here: GC 38% against 54% when rbflame was
# 80% late on a machine with a load of 11). A late round halves the rate
# (1000 Hz first, 125 Hz at least). On a busy machine that takes minutes
# (no round starts after 6), so it lives in the long tier.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../ruby/lib-ruby.sh"

FX=gcshare.rb
start_fixture gcs gcshare.rb
pid=$TPID

# gc_line N: waits for the fixture's Nth "gc" line and prints it.
gc_line() {
	local n=200
	until [ "$(grep -c '^gc ' "$T/gcs.log")" -ge "$1" ]; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "no answer to SIGUSR1 from the fixture"
		sleep 0.05
	done
	grep '^gc ' "$T/gcs.log" | sed -n "${1}p"
}

rate=1000 gc_ms=0 cpu=0 k=0 kept=0 files=() t0=$SECONDS
for round in $(seq 1 40); do
	[ $((SECONDS - t0)) -lt 360 ] || break
	kill -USR1 "$pid"
	k=$((k + 1))
	read -r _ g0 _ c0 <<<"$(gc_line $k)"
	run_rbflame "r$round" 40 -p "$pid" -s 12 -r "$rate" \
		-o "$T/r$round.folded"
	kill -USR1 "$pid"
	k=$((k + 1))
	read -r _ g1 _ c1 <<<"$(gc_line $k)"
	expect_rc 0 "rbflame -p PID -s 12 -r $rate (round $round)"
	sum=$(tail -n 1 "$T/r$round.err")
	read -r ticks late <<<"$(printf '%s\n' "$sum" |
		sed -n 's/.*(\([0-9]*\) ticks at [^)]*), \([0-9]*\) late ticks.*/\1 \2/p')"
	[ -n "$late" ] || fail "no tick counts on the summary line: $sum"
	if [ $((late * 20)) -gt $((ticks + late)) ]; then
		say "round $round at $rate Hz: $late late ticks of" \
			"$((ticks + late)): not counted; $sum"
		[ "$rate" -gt 125 ] && rate=$((rate / 2))
		continue
	fi
	say "round $round at $rate Hz: $sum"
	gc_ms=$((gc_ms + g1 - g0))
	cpu=$(perl -e 'print $ARGV[0] + $ARGV[2] - $ARGV[1]' "$cpu" "$c0" "$c1")
	files+=("$T/r$round.folded")
	cat "${files[@]}" >"$T/all.folded"
	kept=$(total_samples "$T/all.folded")
	[ "$kept" -ge 10000 ] && break
done
[ "$kept" -ge 10000 ] ||
	fail "only $kept samples from rounds on schedule in $round rounds"

assert_share "$T/all.folded" '^<main> \(' 100 "stacks rooted at <main>"
read -r g t <<<"$(share "$T/all.folded" \
	';\(garbage collection\)(;\((marking|sweeping)\))?$')"
verdict=$(perl -e '
	my ($g, $t, $ms, $cpu) = @ARGV;
	my $p = 100 * $g / $t;
	my $r = 100 * $ms / 1000 / $cpu;
	printf "%.1f %.1f %d\n", $p, $r, abs($p - $r) <= 5;
' "$g" "$t" "$gc_ms" "$cpu")
read -r prof ruby ok <<<"$verdict"
say "(garbage collection): $g/$t samples = $prof%;" \
	"GC.stat(:time): $gc_ms ms of $cpu s CPU = $ruby% (want within 5 points)"
[ "$g" -gt 0 ] || fail "no sample in the collector"
[ "$ok" = 1 ] || fail "GC share $prof% in the profile, $ruby% by GC.stat"

wait_untraced "$pid" 2
assert_running "$pid" 3 0.1
