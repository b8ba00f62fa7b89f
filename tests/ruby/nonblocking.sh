#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# --nonblocking on a recursion whose depth changes all the time (the deep
# fixture: random paths of 20 to 300 frames through Deep#a, Deep#b and
# Deep#c, each call on a line of its own): 'rbflame --nonblocking -p PID
# -s 12 -r 1000' never stops a thread (no stop recorded), prints its torn
# rate on the summary line, exits 0 and leaves the target running and
# untraced; and no stack in the profile is impossible: each is
#   <main> -> Deep#run -> Deep#a|b|c ... -> Deep#spin
# where every frame's line is the call of the frame under it (a frame at
# line 'a-b' has Deep#b under it), Deep#spin is only ever a leaf, and the
# leaf lies inside its method; a stack cut to the part two reads agreed
# on ends in a [torn] leaf under a frame at a call (at most 1 sample in
# 2000 under a frame whose line calls nothing: see the check). Depths must spread
# over the fixture's range, so stacks torn between two moments would be
# caught.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

start_fixture deep deep.rb
run_rbflame nb 60 --nonblocking -p "$TPID" -s 12 -r 1000 -o "$T/nb.folded"
expect_rc 0 "rbflame --nonblocking -p PID -s 12 -r 1000 (deep fixture)"
summary=$(tail -n 1 "$T/nb.err")
say "summary: $summary"
assert_collapsed "$T/nb.folded" "--nonblocking"
wait_untraced "$TPID" 5
assert_running "$TPID" 5 0.1

torn=$(printf '%s\n' "$summary" |
	sed -n 's/.*; torn reads \([0-9]* of [0-9]* ([0-9.]*%)\).*/\1/p')
[ -n "$torn" ] || fail "no torn rate on the summary line"
say "torn reads: $torn"
printf '%s\n' "$summary" | grep -q 'threads stopped 0\.0 us p50, 0\.0 us p99; held 0\.0 us p50' ||
	fail "--nonblocking stopped a thread: $summary"

n=$(total_samples "$T/nb.folded")
[ "$n" -ge 3000 ] || fail "only $n samples in 12 s at 1000 Hz"

# The fixture's call structure, from its line markers.
FIXTURE=$FIXTURES/deep.rb perl -e '
	my ($folded) = @ARGV;
	my $fx = $ENV{FIXTURE};
	my (%mark, %range, $def);
	open(my $f, "<", $fx) or die "open $fx: $!\n";
	while (<$f>) {
		$mark{$1} = $. if /# LINE-MARK: (\S+)\s*$/;
		$def = $1, $range{$def} = [$., $.] if /^  def (\w+)/;
		$range{$def}[1] = $., undef $def if $def && /^  end\b/;
	}
	# The callee each call line names.
	my %callee = (
	    $mark{"run-a"} => "Deep#a", $mark{"run-b"} => "Deep#b",
	    $mark{"run-c"} => "Deep#c",
	);
	for my $m (qw(a b c)) {
		$callee{$mark{"$m-$_"}} = "Deep#$_" for qw(a b c);
		$callee{$mark{"$m-spin"}} = "Deep#spin";
	}
	my $done = $mark{"run-until"};
	my $state = qr/^\((?:garbage collection|marking|sweeping|waiting for GVL|blocked|running without GVL)\)$/;
	my ($samples, @bad, %depth, $min, $max, $sum, $torns);
	my ($noncall, @noncall) = (0);
	open(my $p, "<", $folded) or die "open $folded: $!\n";
	while (my $line = <$p>) {
		chomp $line;
		my ($stack, $n) = $line =~ /^(.*) (\d+)$/ or next;
		$samples += $n;
		my @f = split /;/, $stack;
		pop @f while @f && $f[-1] =~ $state;
		# A stack still changing after every re-read: the part two
		# reads agreed on, under a [torn] leaf; its last frame is
		# not a leaf, its line a call.
		my $torn = @f && $f[-1] eq "[torn]";
		pop @f if $torn;
		$torns += $n if $torn;
		my @lf;
		my $why;
		for (@f) {
			my ($label, $path, $l) = /^(.+) \(([^()]+):(\d+)\)$/
			    or ($why = "not LABEL (PATH:LINE): $_", last);
			push @lf, [$label, $path, $l];
		}
		$why //= "not rooted at <main> (deep.rb:main-run)"
		    if !@lf || $lf[0][0] ne "<main>" || $lf[0][1] ne $fx ||
		    $lf[0][2] != $mark{"main-run"};
		$why //= "no Deep#run under <main>"
		    if @lf > 1 && $lf[1][0] ne "Deep#run";
		my $d = 0;
		for my $i (1 .. $#lf) {
			last if $why;
			my ($label, $path, $l) = @{$lf[$i]};
			my $next = $i < $#lf ? $lf[$i + 1][0] : undef;
			$d++ if $label =~ /^Deep#[abc]$/;
			if ($label eq "Deep#run" && $l == $done) {
				# Fixture.done? and what it calls: not ours.
				last;
			}
			if ($path ne $fx) {
				$why = "frame $i [$label] outside deep.rb";
			} elsif ($label !~ /^Deep#(?:run|a|b|c|spin)$/) {
				$why = "frame $i: unknown label $label";
			} elsif ($label eq "Deep#run" && $i != 1) {
				$why = "Deep#run at depth $i";
			} elsif (!defined $next && $torn) {
				# Counted apart, and bounded below: see there.
				if (!$callee{$l} || $label eq "Deep#spin") {
					$noncall += $n;
					push @noncall, "frame $i [$label at $l] above [torn] is not at a call\n  in " .
					    substr($line, 0, 400);
					last;
				}
			} elsif (defined $next) {
				my $want = $callee{$l};
				$why = "frame $i [$label at $l] calls $next, " .
				    "its line calls " . ($want // "nothing")
				    if !$want || $want ne $next ||
				    $label eq "Deep#spin";
			} else {
				my ($m) = $label =~ /#(\w+)$/;
				$why = "leaf $label at line $l, outside " .
				    "$range{$m}[0]-$range{$m}[1]"
				    if $l < $range{$m}[0] || $l > $range{$m}[1];
			}
		}
		if ($why) {
			push @bad, "$why\n  in " . substr($line, 0, 400);
			next;
		}
		next if !$d;
		$depth{$d} += $n;
		$min = $d if !defined $min || $d < $min;
		$max = $d if !defined $max || $d > $max;
	}
	# A [torn] above a frame whose line calls nothing: a control-frame
	# array copied without a stop while the thread returns holds frames
	# of two moments, and two such reads can agree on the root part
	# with the caller already past its call. Not yet ruled out by the
	# reader (known, issue #17 item 3): at most 1 in 2000 samples, where
	# a cut that ignored lines would give hundreds.
	if ($noncall * 2000 > $samples) {
		push @bad, @noncall;
	} elsif ($noncall) {
		printf STDERR "%d samples under [torn] above a line that calls nothing (allowed: 1 in 2000)\n%s\n",
		    $noncall, $noncall[0];
	}
	if (@bad) {
		print STDERR "$_\n" for @bad[0 .. ($#bad > 9 ? 9 : $#bad)];
		printf STDERR "%d impossible stacks of %d\n", scalar @bad,
		    $samples;
		exit 1;
	}
	die "recursion depths $min..$max: the fixture did not vary its " .
	    "depth (want below 60 and above 250)\n"
	    if !defined $min || $min > 60 || $max < 250;
	printf "%d samples, 0 impossible stacks (%d under [torn]); " .
	    "recursion depth %d..%d over %d depths\n", $samples,
	    $torns // 0, $min, $max, scalar keys %depth;
' "$T/nb.folded" >"$T/verdict.txt" ||
	fail "--nonblocking: impossible stacks in the profile (above)"
say "$(cat "$T/verdict.txt")"
