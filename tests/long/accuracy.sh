#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Accuracy: a Ruby workload (accuracy.rb) splits its thread's CPU time
# 60/30/10 between Object#a, #b and #c, measured by the thread's own CPU
# clock around every call; rbflame -r 1000 launches it for 15 s, again
# until at least ACCURACY_SAMPLES (default 10000) samples fall in the
# three methods (one run, unless the machine is too busy for 1000 Hz). Each method's share of those samples (a sample counts
# for a method when its stack holds that method's frame) must be within
# 2 points of the share the workload measured. The workload's own split
# must be within 2 points of 60/30/10 too (its calibration held).
# Then the same with --nonblocking on the call-heavy workload (each loop
# step a call of Object#step, the stack never still): reads that tear
# must not bias the split (stacks cut to their settled part still hold
# a, b or c), and at most 5% of the ticks may lose their sample. Then
# the plain workload with --max-pause 1: at 1000 Hz stops of ~0.1 ms
# would take ~10% of the time, so most ticks are read without stopping;
# the split must still hold, and each run be stopped at most 1.1% of
# the time (the budget, and the one stop it may overrun by).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
# shellcheck source=tests/ruby/lib-ruby.sh
. "$(dirname "$0")/../ruby/lib-ruby.sh"

WANT=${ACCURACY_SAMPLES:-10000}
WL=$top_srcdir/tests/long/accuracy.rb

# counts FOLDED: "A B C": the samples whose stack holds Object#a, #b, #c.
counts() {
	perl -ne '
		chomp;
		next unless /^(.*) (\d+)$/;
		my ($s, $n) = ($1, $2);
		for my $m (qw(a b c)) {
			$c{$m} += $n if $s =~ /(^|;)Object#$m \(/;
		}
		END { printf "%d %d %d\n", map { $c{$_} // 0 } qw(a b c) }
	' "$1"
}

SECS=${ACCURACY_SECONDS:-15}

# accuracy NAME WORKLOAD_MODE [OPTION...]: runs of SECS seconds of
# 'rbflame OPTION... -r 1000 -- ruby accuracy.rb SECS WORKLOAD_MODE', until
# the samples in a, b and c reach WANT (8 runs at most): both splits are
# summed over the runs, samples on one side, the workload's CPU seconds
# on the other, and must agree within 2 points. The ticks and the
# samples dropped are summed too (DROPPED, TICKS); with --max-pause, the
# ticks read without stopping (UNSTOPPED) and each run's stopped share
# of the time (PAUSED, percentages).
accuracy() {
	local me=$1 wmode=$2 run a b c m sa=0 sb=0 sc=0 ca=0 cb=0 cc=0
	shift 2
	DROPPED=0 TICKS=0 PAUSED= UNSTOPPED=0
	for ((run = 1; ; run++)); do
		run_rbflame $me$run $((SECS + 120)) "$@" -r 1000 \
			-o "$T/$me$run.folded" -- "$RUBY" "$WL" "$SECS" $wmode
		expect_rc 0 "rbflame $* -r 1000 -- ruby accuracy.rb $SECS $wmode"
		assert_collapsed "$T/$me$run.folded" "$me run $run"
		read -r a b c <<<"$(counts "$T/$me$run.folded")"
		sa=$((sa + a)) sb=$((sb + b)) sc=$((sc + c))
		m=$(sed -n 's/^measured: .*(CPU seconds: a \([0-9.]*\) b \([0-9.]*\) c \([0-9.]*\),.*/\1 \2 \3/p' \
			"$T/$me$run.out")
		[ -n "$m" ] || fail "the workload printed no measured split: $(cat "$T/$me$run.out")"
		# shellcheck disable=SC2086 # $m is three numbers
		read -r ca cb cc <<<"$(perl -e 'printf "%.6f %.6f %.6f", $ARGV[0] + $ARGV[3],
			$ARGV[1] + $ARGV[4], $ARGV[2] + $ARGV[5]' $m "$ca" "$cb" "$cc")"
		say "run $run: $((a + b + c)) samples in a, b or c; $(grep '^measured:' "$T/$me$run.out")"
		say "  $(tail -n 1 "$T/$me$run.err")"
		read -r m <<<"$(sed -n 's/^rbflame: [0-9]* samples in [0-9.]* s (\([0-9]*\) ticks.* \([0-9]*\) failed reads.*/\1 \2/p' \
			"$T/$me$run.err")"
		[ -n "$m" ] || fail "$me: no summary line: $(tail -n 1 "$T/$me$run.err")"
		TICKS=$((TICKS + ${m% *})) DROPPED=$((DROPPED + ${m#* }))
		m=$(sed -n 's/.*; stopped \([0-9.]*\)% of the time (--max-pause [0-9.]*%), \([0-9]*\) ticks read without stopping.*/\1 \2/p' \
			"$T/$me$run.err")
		if [ -n "$m" ]; then
			PAUSED="$PAUSED ${m% *}" UNSTOPPED=$((UNSTOPPED + ${m#* }))
		fi
		[ $((sa + sb + sc)) -lt "$WANT" ] || break
		[ "$run" -lt 8 ] ||
			fail "only $((sa + sb + sc)) samples in a, b or c in 8 runs of $SECS s, want $WANT"
	done

	perl -e '
		my ($sa, $sb, $sc, $ca, $cb, $cc, $me) = @ARGV;
		my $n = $sa + $sb + $sc;
		my $t = $ca + $cb + $cc;
		my %p = (a => 100 * $sa / $n, b => 100 * $sb / $n, c => 100 * $sc / $n);
		my %m = (a => 100 * $ca / $t, b => 100 * $cb / $t, c => 100 * $cc / $t);
		my %want = (a => 60, b => 30, c => 10);
		printf "%s: measured by the workload (thread CPU time, %.2f s): " .
		    "a %.2f%% b %.2f%% c %.2f%%\n", $me, $t, @m{qw(a b c)};
		printf "%s: sampled by rbflame (%d samples):%s a %.2f%% b %.2f%% c %.2f%%\n",
		    $me, $n, " " x 14, @p{qw(a b c)};
		my @bad;
		for my $k (qw(a b c)) {
			push @bad, sprintf("%s: sampled %.2f%%, measured %.2f%% " .
			    "(%.2f points apart, 2 allowed)", $k, $p{$k}, $m{$k},
			    abs($p{$k} - $m{$k}))
			    if abs($p{$k} - $m{$k}) > 2;
			push @bad, sprintf("%s: the workload measured %.2f%%, not " .
			    "%d%% +- 2: its calibration failed", $k, $m{$k}, $want{$k})
			    if abs($m{$k} - $want{$k}) > 2;
		}
		print STDERR "$_\n" for @bad;
		exit(@bad ? 1 : 0);
	' "$sa" "$sb" "$sc" "$ca" "$cb" "$cc" "$ME" ||
		fail "$me: the sampled split is not within 2 points of the measured one"
}

accuracy acc ""
say "each method's share of samples is within 2 points of its share of CPU time"

accuracy nb calls --nonblocking
say "--nonblocking, call-heavy: each method's share within 2 points;" \
	"$DROPPED of $TICKS ticks dropped their sample"
[ $((DROPPED * 100)) -le $((TICKS * 5)) ] ||
	fail "--nonblocking, call-heavy: $DROPPED of $TICKS ticks dropped their sample, 5% allowed"

accuracy mp "" --max-pause 1
[ -n "$PAUSED" ] || fail "--max-pause 1: no stopped share on the summary line"
say "--max-pause 1: each method's share within 2 points; stopped" \
	"$PAUSED% of the time; $UNSTOPPED of $TICKS ticks read without stopping"
for p in $PAUSED; do
	# The budget, and the one stop it may overrun by.
	perl -e 'exit($ARGV[0] <= 1.1 ? 0 : 1)' "$p" ||
		fail "--max-pause 1: stopped $p% of the time"
done
[ "$UNSTOPPED" -gt 0 ] ||
	fail "--max-pause 1 at 1000 Hz: no tick read without stopping"
