#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# clause-lines.pl FOLDED LABEL FRAME...: of the collapsed profile FOLDED,
# the samples with a frame labelled LABEL that is none of FRAME... ("LABEL
# (PATH:LINE)", exact), the samples whose leaf is one of FRAME..., and all
# samples: prints "BAD LEAF TOTAL". Used for the frames of a clause that
# must stay on its lines (tests/ruby/labels.sh, tests/matrix/run.sh).
use strict;
use warnings;

my ($folded, $label, @frames) = @ARGV;
die "usage: clause-lines.pl FOLDED LABEL FRAME...\n" if !@frames;
my %ok = map { $_ => 1 } @frames;
my ($bad, $leaf, $total) = (0, 0, 0);
open(my $fh, "<", $folded) or die "open $folded: $!\n";
while (<$fh>) {
	chomp;
	next unless /^(.*) (\d+)$/;
	my ($s, $n) = ($1, $2);
	my @f = split /;/, $s;
	$total += $n;
	$bad += $n if grep { index($_, "$label (") == 0 && !$ok{$_} } @f;
	$leaf += $n if $ok{$f[-1]};
}
print "$bad $leaf $total\n";
