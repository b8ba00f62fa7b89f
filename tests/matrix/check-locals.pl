#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# check-locals.pl DUMP [corrupt]: checks the text of 'rbflame dump -p PID
# --locals' of tests/matrix/fixtures/locals.rb against the values the
# fixture holds, on any Ruby from 2.7 to 3.4 (tests/ruby/locals.sh, the
# matrix-locals check of tests/matrix/run.sh):
#
#  - thread "lx-hold": LocalsFixture#hold shows its self, its ten
#    arguments and its locals, in the order of the local table, exactly;
#    'block in LocalsFixture#hold' its block parameter and block local;
#  - the GVL holder's Ruby frames, and only its, say their values may be
#    stale (the fixture runs no JIT);
#  - with "yjit": thread "lx-yjit"'s Object#hot, entered from YJIT code,
#    shows its values marked stale though its thread is parked;
#  - with "corrupt": thread "lx-victim"'s Object#victim shows '?' for the
#    String whose pointer is garbage, and 64 bytes with the claimed length
#    for the one whose length is.
#
# Prints what differs and exits 1; prints a summary and exits 0.
use strict;
use warnings;

my ($file, $mode) = @ARGV;
open(my $fh, '<', $file) or die "check-locals: $file: $!\n";
my (%threads, $th, $fr, @errs);
while (my $l = <$fh>) {
	chomp $l;
	if ($l =~ /^thread (\d+) "((?:[^"\\]|\\.)*)"( gvl)?$/) {
		$th = { name => $2, gvl => !!$3, frames => [] };
		$threads{$2} = $th;
		$fr = undef;
	} elsif ($l =~ /^  (\S.*) \((.*):(\d+)\)$/ && $th) {
		$fr = { label => $1, lines => [] };
		push @{ $th->{frames} }, $fr;
	} elsif ($l =~ /^    (.*)$/ && $fr) {
		push @{ $fr->{lines} }, $1;
	} elsif ($l ne '') {
		push @errs, "unexpected line: $l";
	}
}

my $stale = '(values may be stale: JIT code or the running thread may hold newer ones in registers)';
my $x64 = 'x' x 64;
my %want = (
	'LocalsFixture#hold' => [
		'self = #<LocalsFixture>',
		'count = 42',
		'ratio = 1.5',
		'name = "hello \"world\"\x0a" (14 bytes)',
		'tag = :tag',
		'list = #<Array size=3>',
		'table = #<Hash size=2>',
		'obj = #<LocalsFixture>',
		'big = #<Integer>',
		'nothing = nil',
		'yes = true',
		"text = \"$x64...\" (100 bytes)",
		'huge = 1e+300',
		'dyn = :dyn_hello \"world\"\x0a',
		'neg = -7',
		'wide = #<Hash size=20>',
	],
	'block in LocalsFixture#hold' => [
		'self = #<LocalsFixture>',
		'item = 5',
		'inner = :block_local',
	],
);
if (($mode // '') eq 'yjit') {
	$want{'Object#hot'} = [
		'self = #<Object>', $stale,
		'i = 199', 's = "ab" (2 bytes)', 't = "abab" (4 bytes)',
	];
}
if (($mode // '') eq 'corrupt') {
	$want{'Object#victim'} = [
		'self = #<Object>',
		'bad = ?',
		'long = "' . ('l' x 64) . '..." (9223372036854775807 bytes)',
	];
}

sub frame_of {
	my ($tname, $label) = @_;
	my $t = $threads{$tname} or return;
	for my $f (@{ $t->{frames} }) {
		return $f if $f->{label} eq $label;
	}
	return;
}

my $checked = 0;
for my $label (sort keys %want) {
	my $tname = $label eq 'Object#victim' ? 'lx-victim'
		  : $label eq 'Object#hot'  ? 'lx-yjit' : 'lx-hold';
	my $f = frame_of($tname, $label);
	if (!$f) {
		push @errs, "thread $tname: no frame $label";
		next;
	}
	my $got = join("\n", @{ $f->{lines} });
	my $exp = join("\n", @{ $want{$label} });
	if ($got ne $exp) {
		push @errs, "thread $tname, $label:\n--- want\n$exp\n--- got\n$got";
	}
	$checked += @{ $want{$label} };
}

# Stale marks: on every Ruby frame of the GVL holder, on no other (YJIT
# frames aside).
my ($holder, $ruby_frames) = ('none', 0);
for my $t (values %threads) {
	$holder = $t->{name} if $t->{gvl};
	next if $t->{name} eq 'lx-yjit';
	for my $f (@{ $t->{frames} }) {
		my @l = @{ $f->{lines} };
		next unless @l;		# a C frame
		$ruby_frames++;
		my $has = grep { $_ eq $stale } @l;
		push @errs, "thread $t->{name}, $f->{label}: "
		    . ($t->{gvl} ? 'no stale mark on the GVL holder'
				 : 'stale mark off the GVL holder')
		    if $t->{gvl} xor $has;
	}
}
for my $n (qw(main lx-hold lx-spin)) {
	push @errs, "no thread \"$n\"" unless $threads{$n};
}

if (@errs) {
	print "$_\n" for @errs;
	exit 1;
}
printf "%d threads, %d Ruby frames with locals, %d lines exact, GVL holder %s\n",
    scalar(keys %threads), $ruby_frames, $checked, $holder;
exit 0;
