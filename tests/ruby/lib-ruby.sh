# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Helpers for the Ruby end-to-end tests (tests/ruby/*.sh), sourced after
# ../e2e/lib.sh: the interpreter, starting fixtures and waiting until they
# are in their hot spot, exact expected stacks written with line markers,
# and parsing 'rbflame dump'.
#
# Expected stacks are written as frames 'LABEL {FILE:MARK}' joined by ';',
# e.g.
#
#   '<main> {geometry.rb:main-area};Geometry::Shape#area {geometry.rb:area}'
#
# where {FILE:MARK} becomes '(/abs/path/FILE:LINE)', LINE being the one
# line of tests/ruby/fixtures/FILE that carries the comment
# '# LINE-MARK: MARK' (a MARK made of digits is the line itself); {MARK}
# alone means {$FX:MARK}. '@HEX@' stands for the hex digits of an
# anonymous class (#<Class:0x@HEX@>).
# Nothing else is a pattern: a stack matches only if equal, character for
# character.

RUBY=${RUBY:-ruby}
command -v "$RUBY" >/dev/null 2>&1 ||
	skip_or_fail "Ruby interpreter not found: $RUBY (scripts/deps installs it)"
# Physical path (no symlink, no ..): Ruby reports the files it runs by
# their real path, and so must the expected stacks.
FIXTURES=$(cd "$top_srcdir/tests/ruby/fixtures" && pwd -P)
RUBY_VERSION=$("$RUBY" -e 'print RUBY_VERSION') ||
	fail "cannot run $RUBY"

# require_ruby_c_iterators: the expected stacks show Integer#times and
# Array#each as C functions, which they are up to Ruby 3.2 (3.3 rewrote
# Integer#times in Ruby, 3.4 Array#each). CI runs Debian 12's 3.1.
require_ruby_c_iterators() {
	case $RUBY_VERSION in
	3.[012].*) ;;
	*)
		skip_or_fail "expected stacks are written for Ruby 3.0-3.2" \
			"(Integer#times, Array#each in C); $RUBY is $RUBY_VERSION"
		;;
	esac
}

# wait_line FILE REGEX SECS [PID]: waits until a line of FILE matches the
# extended regex REGEX; fails early when PID dies.
wait_line() {
	local file=$1 re=$2 n pid=${4:-}
	n=$(perl -e 'print int($ARGV[0] * 50)' "$3")
	until grep -qE -- "$re" "$file" 2>/dev/null; do
		if [ -n "$pid" ] && ! alive "$pid"; then
			fail "process $pid died before printing /$re/ in ${file##*/}"
		fi
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "no /$re/ in ${file##*/} after $3 s"
		sleep 0.02
	done
}

# start_fixture TAG FIXTURE [ARGS...]: runs 'ruby FIXTURES/FIXTURE ARGS'
# in the background, output in $T/TAG.log, and waits (20 s at most) for
# its "ready" line; sets TPID.
start_fixture() {
	local tag=$1 fx=$2
	shift 2
	"$RUBY" "$FIXTURES/$fx" "$@" >"$T/$tag.log" 2>&1 </dev/null &
	TPID=$!
	track "$TPID"
	wait_line "$T/$tag.log" '^ready$' 20 "$TPID"
}

# line_of FILE MARK: the line of fixture FILE marked 'LINE-MARK: MARK'.
line_of() {
	expand_stack "x {$1:$2}" | sed 's/.*://; s/)$//'
}

# expand_stack SPEC: the exact stack SPEC describes (see the top).
expand_stack() {
	SPEC=$1 FIXTURES=$FIXTURES FX=${FX:-} perl -e '
		my %lines;
		sub line_of {
			my ($file, $mark) = @_;
			return $mark if $mark =~ /^\d+$/;
			my $path = "$ENV{FIXTURES}/$file";
			my @hits;
			open(my $fh, "<", $path) or die "open $path: $!\n";
			while (<$fh>) {
				push @hits, $. if /# LINE-MARK: \Q$mark\E\s*$/;
			}
			die "marker \"$mark\" found " . scalar(@hits) .
			    " times in $file, want once\n" if @hits != 1;
			return $hits[0];
		}
		my $s = $ENV{SPEC};
		$s =~ s{\{(?:([^{}:]+):)?([^{}:]+)\}}{
			my $f = $1 // $ENV{FX};
			die "no file for marker $2 (set FX)\n" if !$f;
			"($ENV{FIXTURES}/$f:" . line_of($f, $2) . ")";
		}ge;
		die "unexpanded braces in [$s]\n" if $s =~ /[{}]/;
		print "$s\n";
	' || fail "bad expected stack: $1"
}

# stack_counts FOLDED PREFIX STACK...: the samples whose stack is exactly
# each STACK (exact strings from expand_stack; @HEX@ as above), then the
# total, counting only stacks that start with PREFIX (a literal; empty for
# all). Prints "N1 N2 ... TOTAL".
stack_counts() {
	local folded=$1
	PREFIX=$2 perl -e '
		my ($folded, @want) = @ARGV;
		my @re = map {
			my $q = quotemeta($_);
			$q =~ s/\\\@HEX\\\@/[0-9a-f]+/g;
			qr/^$q$/;
		} @want;
		my @n = (0) x @want;
		my $total = 0;
		open(my $fh, "<", $folded) or die "open $folded: $!\n";
		while (<$fh>) {
			chomp;
			/^(.*) (\d+)$/ or next;
			my ($s, $c) = ($1, $2);
			next if index($s, $ENV{PREFIX}) != 0;
			$total += $c;
			for my $i (0 .. $#re) {
				$n[$i] += $c if $s =~ $re[$i];
			}
		}
		print join(" ", @n, $total), "\n";
	' "$folded" "${@:3}"
}

# leaf_of STACK: the leaf frame's label, for messages.
leaf_of() {
	local f=${1##*;}
	printf '%s\n' "${f% (*}"
}

# assert_stacks FOLDED MINPCT WHAT [--within PREFIX] STACK...: every STACK
# (exact, from expand_stack) has samples, and together they hold at least
# MINPCT percent of the samples (of the stacks starting with PREFIX).
# Prints the figures either way.
assert_stacks() {
	local folded=$1 min=$2 what=$3 prefix= counts sum=0 total i pct
	local -a n
	shift 3
	if [ "${1:-}" = --within ]; then
		prefix=$2
		shift 2
	fi
	counts=$(stack_counts "$folded" "$prefix" "$@") ||
		fail "$what: cannot read $folded"
	read -r -a n <<<"$counts"
	total=${n[$#]}
	[ "$total" -gt 0 ] ||
		fail "$what: no samples${prefix:+ starting with $prefix}"
	for ((i = 0; i < $#; i++)); do
		sum=$((sum + n[i]))
	done
	pct=$(perl -e 'printf "%.1f", 100 * $ARGV[0] / $ARGV[1]' "$sum" "$total")
	if [ $# = 1 ]; then
		say "$what: $sum/$total = $pct% exact stack ...;$(leaf_of "$1")" \
			"(need >= $min%)"
	else
		say "$what: $sum/$total = $pct% in $# exact stacks" \
			"(need >= $min%, each > 0)"
	fi
	for ((i = 0; i < $#; i++)); do
		local s=${@:i+1:1}
		[ $# = 1 ] || say "  $what: ${n[i]} ...;$(leaf_of "$s")"
		if [ "${n[i]}" = 0 ]; then
			echo "expected stack (no sample): $s" >&2
			echo "heaviest stacks:" >&2
			top_stacks "$folded" 8 >&2
			fail "$what: stack ending in $(leaf_of "$s") never sampled"
		fi
	done
	if ! perl -e 'exit !($ARGV[0] >= $ARGV[1])' "$pct" "$min"; then
		for ((i = 0; i < $#; i++)); do
			echo "expected: ${@:i+1:1}" >&2
		done
		echo "heaviest stacks:" >&2
		top_stacks "$folded" 8 >&2
		fail "$what: only $pct% of samples in the expected stack(s)"
	fi
}

# check_dump FILE: FILE is 'rbflame dump' output: blocks separated by one
# blank line, each a header 'thread TID "NAME"' (plus ' gvl') then one or
# more frames '  LABEL (PATH:LINE)'; at most one thread holds the GVL.
# Prints "N threads".
check_dump() {
	perl -e '
		my $file = $ARGV[0];
		open(my $fh, "<", $file) or die "open $file: $!\n";
		my @l = <$fh>;
		die "empty dump\n" if !@l;
		die "no newline at end\n" if $l[-1] !~ /\n\z/;
		chomp @l;
		my ($threads, $gvl, $frames, $state) = (0, 0, 0, "start");
		for my $i (0 .. $#l) {
			my $x = $l[$i];
			my $at = "line " . ($i + 1) . ": [$x]";
			if ($x =~ /^thread \d+ "(?:[^"\\]|\\.)*"( gvl)?$/) {
				die "$at: header not after a blank line\n"
				    if $state ne "start" && $state ne "blank";
				$threads++;
				$gvl++ if $1;
				$frames = 0;
				$state = "header";
			} elsif ($x =~ /^  \S.* \(.+:\d+\)$/) {
				die "$at: frame outside a thread block\n"
				    if $state ne "header" && $state ne "frame";
				$state = "frame";
			} elsif ($x eq "") {
				die "$at: blank line not after a frame\n"
				    if $state ne "frame";
				$state = "blank";
			} else {
				die "$at: neither header, frame nor blank\n";
			}
		}
		die "ends with a thread without frames or a blank line\n"
		    if $state ne "frame";
		die "$gvl threads hold the GVL\n" if $gvl > 1;
		print "$threads threads", ($gvl ? ", one holds the GVL" : ""), "\n";
	' "$1"
}

# dump_block FILE TID: thread TID's block of a dump, without " gvl".
dump_block() {
	perl -e '
		my ($file, $tid) = @ARGV;
		local $/ = "";
		open(my $fh, "<", $file) or die "open $file: $!\n";
		while (my $b = <$fh>) {
			$b =~ s/\n+\z/\n/;
			next unless $b =~ /^thread \Q$tid\E "/;
			$b =~ s/^(thread [^\n]*") gvl\n/$1\n/;
			print $b;
		}
	' "$1" "$2"
}
