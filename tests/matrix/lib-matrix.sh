# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Helpers for the version matrix (tests/matrix/run.sh), sourced by it:
# messages, the scratch directory and the processes started (killed on
# exit), running a fixture under one Ruby (in its chroot or on the host),
# exact expected stacks written with line markers, and the checks of
# collapsed output and of 'rbflame dump'.
#
# Self-contained on purpose: 'make check-matrix' needs only 'make all',
# not the test programs of 'make check' that tests/e2e/lib.sh insists on.
#
# Expected stacks are frames 'LABEL {FILE:MARK}' joined by ';', as in
# tests/ruby/lib-ruby.sh: {FILE:MARK} becomes '(DIR/FILE:LINE)', LINE the
# one line of FILE carrying '# LINE-MARK: MARK' (digits: the line itself)
# and DIR the fixtures' directory *as the target sees it* (inside its
# chroot); {MARK} alone means {$FX:MARK}. One version-dependent form:
# {times@FILE:MARK} is the location of an Integer#times frame: the caller's
# {FILE:MARK} where Integer#times is a C function (Ruby <= 3.2), else
# $TIMES_LOC, its place in <internal:numeric> (3.3+); {loop@FILE:MARK}
# the same for Kernel#loop ($LOOP_LOC, <internal:kernel>); '@REFINEMENT@' is
# $REFINEMENT, the class of a refinement module (Module on 2.7,
# Refinement from 3.1). '@HEX@' stands for the hex digits of an anonymous
# class; '@ADDR:NAME@' for the address the fixture logged as NAME
# (fill_addrs). Nothing else is a pattern.

set -eu
export LC_ALL=C
ulimit -c 0

ME=matrix
if [ -z "${top_srcdir:-}" ]; then
	top_srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fi
: "${top_builddir:=$PWD}"
if [ -z "${RBFLAME:-}" ]; then
	RBFLAME=$top_builddir/rbflame
	[ -x "$RBFLAME" ] || RBFLAME=$top_srcdir/rbflame
fi

# ---- messages and exits ---------------------------------------------------

say() {
	printf '%s: %s\n' "$ME" "$*"
}

# Prints the scratch files of the current check (stderr captures, fixture
# output, first lines of profiles) after a failure.
dump_scratch() {
	local f
	[ -n "${CT:-}" ] && [ -d "$CT" ] || return 0
	for f in "$CT"/*.err "$CT"/*.log "$CT"/*.out "$CT"/*.folded; do
		[ -f "$f" ] || continue
		printf -- '--- %s (%s lines) ---\n' "${f##*/}" "$(wc -l <"$f")"
		head -n 20 "$f" | cut -c1-400
	done
}

fail() {
	printf 'FAIL: %s: %s\n' "$ME" "$*" >&2
	if [ -z "${IN_FAIL:-}" ]; then
		IN_FAIL=1
		dump_scratch >&2
	fi
	exit 1
}

# A prerequisite is missing: skip, except in CI where it is a failure.
skip_or_fail() {
	if [ "${CI:-}" = true ]; then
		fail "prerequisite missing in CI: $*"
	fi
	printf 'SKIP: %s: %s\n' "$ME" "$*"
	exit 77
}

# ---- time -----------------------------------------------------------------

now() {
	date +%s.%N
}

# elapsed START: seconds since START, one decimal.
elapsed() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f\n", b - a }'
}

# ---- scratch directory and processes --------------------------------------

T=$(mktemp -d "${TMPDIR:-/tmp}/rbflame-matrix.XXXXXX")
T=$(cd "$T" && pwd -P)
PIDS=
# Paths removed at exit (fixture directories copied into chroots).
REMOVE=
# Shell code run first at exit (on_exit appends).
ON_EXIT=
on_exit() {
	ON_EXIT="$ON_EXIT$1;"
}

# track PID: a process this script started, killed at exit.
track() {
	PIDS="$PIDS $1"
}

cleanup() {
	local rc=$? p
	trap - EXIT
	eval "$ON_EXIT" || true
	for p in $PIDS; do
		kill -KILL "$p" 2>/dev/null || true
	done
	for p in $PIDS; do
		wait "$p" 2>/dev/null || true
	done
	for p in $REMOVE; do
		rm -rf --one-file-system "$p"
	done
	if [ -n "${KEEP_T:-}" ]; then
		say "scratch kept in $T"
	else
		rm -rf "$T"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# alive PID: exists and is not a zombie.
alive() {
	local l=
	{ read -r l <"/proc/$1/stat"; } 2>/dev/null || return 1
	l=${l##*) }
	case ${l%% *} in Z | X | '') return 1 ;; esac
	return 0
}

# wait_untraced PID SECS: no thread of PID has a tracer any more.
wait_untraced() {
	local n=$(($2 * 50)) d k v bad
	for (( ; ; )); do
		bad=
		for d in /proc/"$1"/task/*; do
			while read -r k v; do
				if [ "$k" = TracerPid: ]; then
					[ "$v" = 0 ] || bad="$bad ${d##*/}"
					break
				fi
			done <"$d/status" 2>/dev/null || true
		done
		[ -z "$bad" ] && return 0
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "threads of $1 still traced after $2 s:$bad"
		sleep 0.02
	done
}

# ---- one Ruby: where it is, starting fixtures -------------------------------

# The Ruby under test, set by use_ruby: ROOT (its chroot, empty for the
# host), RUBYBIN (its path inside ROOT), TDIR (the fixtures' directory as
# the target sees it; ROOT$TDIR from the host).
ROOT=
RUBYBIN=
TDIR=
RUBYCMD=()

# use_ruby ROOT RUBYBIN: copies the fixtures into ROOT (a directory of
# its own, removed at exit) and selects that Ruby.
use_ruby() {
	ROOT=$1
	RUBYBIN=$2
	if [ -n "$ROOT" ]; then
		TDIR=/rbflame-matrix.$$
		REMOVE="$REMOVE $ROOT$TDIR"
	else
		TDIR=$T/fixtures
	fi
	rm -rf "$ROOT$TDIR"
	mkdir -p "$ROOT$TDIR"
	cp "$top_srcdir"/tests/ruby/fixtures/*.rb \
		"$top_srcdir"/tests/matrix/fixtures/*.rb \
		"$top_srcdir"/tests/native/fixtures/*.rb "$ROOT$TDIR/"
	if [ -z "$ROOT" ]; then
		# Ruby reports the files it runs by their real path.
		TDIR=$(cd "$TDIR" && pwd -P)
		RUBYCMD=("$RUBYBIN")
	else
		RUBYCMD=(chroot "$ROOT" "$RUBYBIN")
	fi
}

# in_ruby ARGS...: runs the selected Ruby with ARGS, in its chroot.
in_ruby() {
	"${RUBYCMD[@]}" "$@"
}

# wait_line FILE REGEX SECS [PID]: a line of FILE matches REGEX; fails
# early when PID dies.
wait_line() {
	local file=$1 re=$2 n=$(($3 * 50)) pid=${4:-}
	until grep -qE -- "$re" "$file" 2>/dev/null; do
		# It may have printed the line and exited since the grep.
		if [ -n "$pid" ] && ! alive "$pid" &&
			! grep -qE -- "$re" "$file" 2>/dev/null; then
			fail "process $pid died before printing /$re/ in ${file##*/}"
		fi
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "no /$re/ in ${file##*/} after $3 s"
		sleep 0.02
	done
}

# start_fixture TAG FIXTURE [ARGS...]: runs the fixture (chroot(8) execs
# the Ruby, so the pid is Ruby's), output in $CT/TAG.log; waits 30 s at
# most for "ready". Sets TPID.
start_fixture() {
	local tag=$1 fx=$2
	shift 2
	# Not through a function: $! must be the process itself.
	"${RUBYCMD[@]}" "$TDIR/$fx" "$@" >"$CT/$tag.log" 2>&1 </dev/null &
	TPID=$!
	track "$TPID"
	wait_line "$CT/$tag.log" '^ready$' 30 "$TPID"
}

kill_fixture() {
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# run_rbflame TAG SECS ARGS...: rbflame under timeout(1), stdout in
# $CT/TAG.out, stderr in $CT/TAG.err; sets RC.
run_rbflame() {
	local tag=$1 secs=$2
	shift 2
	RC=0
	timeout -k 5 "$secs" "$RBFLAME" "$@" \
		>"$CT/$tag.out" 2>"$CT/$tag.err" </dev/null || RC=$?
	case $RC in
	124 | 137) fail "$tag: rbflame killed after $secs s: rbflame $*" ;;
	esac
	return 0
}

# expect_rc WANT WHAT
expect_rc() {
	[ "$RC" = "$1" ] || fail "$2: exit status $RC, want $1"
}

# ---- expected stacks --------------------------------------------------------

# expand SPEC: the exact stack SPEC describes (see the top).
expand() {
	SPEC=$1 MARKS=$ROOT$TDIR SEEN=$TDIR FX=${FX:-} \
		TIMES_LOC=${TIMES_LOC:-} LOOP_LOC=${LOOP_LOC:-} \
		REFINEMENT=${REFINEMENT:-} perl -e '
		my %cache;
		sub line_of {
			my ($file, $mark) = @_;
			return $mark if $mark =~ /^\d+$/;
			return $cache{"$file:$mark"} //= find_line($file, $mark);
		}
		sub find_line {
			my ($file, $mark) = @_;
			my $path = "$ENV{MARKS}/$file";
			my @hits;
			open(my $fh, "<", $path) or die "open $path: $!\n";
			while (<$fh>) {
				push @hits, $. if /# LINE-MARK: \Q$mark\E\s*$/;
			}
			die "marker \"$mark\" found " . scalar(@hits) .
			    " times in $file, want once\n" if @hits != 1;
			return $hits[0];
		}
		sub loc {
			my ($kind, $f, $mark) = @_;
			$kind //= "";
			return "($ENV{TIMES_LOC})"
			    if $kind eq "times@" && $ENV{TIMES_LOC};
			return "($ENV{LOOP_LOC})"
			    if $kind eq "loop@" && $ENV{LOOP_LOC};
			$f //= $ENV{FX};
			die "no file for marker $mark (set FX)\n" if !$f;
			return "($ENV{SEEN}/$f:" . line_of($f, $mark) . ")";
		}
		my $s = $ENV{SPEC};
		$s =~ s{\{(times\@|loop\@)?(?:([^{}:\@]+):)?([^{}:\@]+)\}}{
			loc($1, $2, $3)
		}ge;
		if ($s =~ /\@REFINEMENT\@/) {
			die "no REFINEMENT for [$s]\n" if !$ENV{REFINEMENT};
			$s =~ s/\@REFINEMENT\@/$ENV{REFINEMENT}/g;
		}
		die "unexpanded braces in [$s]\n" if $s =~ /[{}]/;
		print "$s\n";
	' || fail "bad expected stack: $1"
}

# fill_addrs LOG STACK: STACK with each '@ADDR:NAME@' replaced by the
# address in the fixture's log line 'NAME #<C:0xADDR>' (the object's
# Kernel#to_s, whose %p is the address as stackprof prints it: 0x and 16
# hex digits). Fails when LOG has no such line.
fill_addrs() {
	LOG=$1 perl -e '
		my %addr;
		open(my $fh, "<", $ENV{LOG}) or die "open $ENV{LOG}: $!\n";
		while (<$fh>) {
			$addr{$1} = $2 if /^(\S+) #<.+:(0x[0-9a-f]{16})>$/;
		}
		my $s = $ARGV[0];
		$s =~ s{\@ADDR:([^\@]+)\@}{
			$addr{$1} // die "no line \"$1 #<...:0x(16 hex digits)>\" " .
			    "in $ENV{LOG}\n"
		}ge;
		print "$s\n";
	' "$2"
}

# line_of FILE MARK: the line of FILE marked 'LINE-MARK: MARK'.
line_of() {
	expand "x {$1:$2}" | sed 's/.*://; s/)$//'
}

# ---- collapsed output ---------------------------------------------------------

# assert_collapsed FILE WHAT: every line is 'STACK COUNT', count > 0, no
# empty frame, each stack once, LF-terminated. Prints the figures.
assert_collapsed() {
	local r
	r=$(perl -e '
		open(my $fh, "<:raw", $ARGV[0]) or die "open: $!\n";
		my $d = do { local $/; <$fh> };
		die "empty profile\n" if $d eq "";
		die "no newline at end\n" if $d !~ /\n\z/;
		my (%seen, $n);
		for my $l (split /\n/, $d) {
			$l =~ /^(.+) ([1-9]\d*)$/ or die "bad line: $l\n";
			my ($s, $c) = ($1, $2);
			die "stack twice: $s\n" if $seen{$s}++;
			for (split /;/, $s, -1) {
				die "empty or padded frame in: $s\n"
				    if $_ eq "" || /^\s|\s$/;
			}
			$n += $c;
		}
		printf "%d stacks, %d samples\n", scalar(keys %seen), $n;
	' "$1" 2>"$CT/check.msg") || {
		cat "$CT/check.msg" >&2
		fail "$2: ${1##*/} is not valid collapsed output"
	}
	# shellcheck disable=SC2034 # read by run.sh
	COLLAPSED_SUMMARY=$r
}

# top_stacks FILE [N]: the N heaviest stacks, for failure reports.
top_stacks() {
	sort -t' ' -k2,2nr -s "$1" 2>/dev/null |
		perl -ne 'chomp; /^(.*) (\d+)$/ or next; print "  $2  $1\n"' |
		head -n "${2:-5}" | cut -c1-400
}

# assert_stacks FOLDED MINPCT WHAT [--within PREFIX] STACK...: each exact
# STACK has samples ('?STACK': may have none) and together they hold at
# least MINPCT percent of the samples (of those starting with PREFIX).
# Sets SHARE to "SUM/TOTAL = PCT%".
assert_stacks() {
	local folded=$1 min=$2 what=$3 prefix='' out
	shift 3
	if [ "${1:-}" = --within ]; then
		prefix=$2
		shift 2
	fi
	out=$(PREFIX=$prefix MIN=$min perl -e '
		my ($folded, @want) = @ARGV;
		my (@re, @opt);
		for (@want) {
			my $w = $_;
			push @opt, ($w =~ s/^\?//) ? 1 : 0;
			my $q = quotemeta($w);
			$q =~ s/\\\@HEX\\\@/[0-9a-f]+/g;
			$q =~ s/\\\@GC\\\?\\\@/(?:;\\(garbage collection\\)(?:;\\((?:marking|sweeping)\\))?)?/g;
			push @re, qr/^$q$/;
		}
		my @n = (0) x @want;
		my ($total, $sum) = (0, 0);
		open(my $fh, "<", $folded) or die "open $folded: $!\n";
		while (<$fh>) {
			chomp;
			/^(.*) (\d+)$/ or next;
			my ($s, $c) = ($1, $2);
			next if index($s, $ENV{PREFIX}) != 0;
			$total += $c;
			for my $i (0 .. $#re) {
				if ($s =~ $re[$i]) { $n[$i] += $c; $sum += $c; last }
			}
		}
		if (!$total) { print "no samples\n"; exit 1 }
		my $pct = 100 * $sum / $total;
		printf "%d/%d = %.1f%%\n", $sum, $total, $pct;
		my $bad = $pct < $ENV{MIN};
		for my $i (0 .. $#want) {
			next if $n[$i] || $opt[$i];
			print "never sampled: $want[$i]\n";
			$bad = 1;
		}
		exit $bad;
	' "$folded" "$@") || {
		printf '%s\n' "$out" >&2
		for s; do echo "expected: $s" >&2; done
		echo "heaviest stacks${prefix:+ (all threads)}:" >&2
		top_stacks "$folded" 8 >&2
		fail "$what: ${out%%$'\n'*} in the expected stack(s), need >= $min%"
	}
	# shellcheck disable=SC2034 # read by run.sh
	SHARE=$out
}

# assert_share_re FOLDED REGEX MINPCT WHAT: the stacks matching the Perl
# REGEX hold at least MINPCT percent of the samples. Sets SHARE.
assert_share_re() {
	local out
	out=$(RE=$2 MIN=$3 perl -e '
		my ($total, $sum) = (0, 0);
		my $re = qr/$ENV{RE}/;
		open(my $fh, "<", $ARGV[0]) or die "open $ARGV[0]: $!\n";
		while (<$fh>) {
			chomp;
			/^(.*) (\d+)$/ or next;
			my ($s, $c) = ($1, $2);
			$total += $c;
			$sum += $c if $s =~ $re;
		}
		if (!$total) { print "no samples\n"; exit 1 }
		printf "%d/%d = %.1f%%\n", $sum, $total, 100 * $sum / $total;
		exit(100 * $sum / $total < $ENV{MIN});
	' "$1") || {
		printf '%s\n' "$out" >&2
		echo "expected (regex): $2" >&2
		echo "heaviest stacks:" >&2
		top_stacks "$1" 8 >&2
		fail "$4: ${out%%$'\n'*} match, need >= $3%"
	}
	# shellcheck disable=SC2034 # read by run.sh
	SHARE=$out
}

# share FOLDED REGEX [WITHIN]: "MATCHED TOTAL": the samples of the stacks
# matching the Perl REGEX, and of all stacks (or of those matching WITHIN).
share() {
	RE=$2 WITHIN=${3:-} perl -ne '
		BEGIN { $re = qr/$ENV{RE}/; $in = qr/$ENV{WITHIN}/; $m = $t = 0 }
		chomp;
		next unless /^(.*) (\d+)$/;
		my ($s, $n) = ($1, $2);
		next unless $s =~ $in;
		$t += $n;
		$m += $n if $s =~ $re;
		END { print "$m $t\n" }
	' "$1"
}

# pct N TOTAL: 100 * N / TOTAL, one decimal (0 when TOTAL is 0).
pct() {
	perl -e 'printf "%.1f\n", $ARGV[1] ? 100 * $ARGV[0] / $ARGV[1] : 0' \
		"$1" "$2"
}

# qm TEXT: TEXT quoted for a Perl regex.
qm() {
	perl -e 'print quotemeta($ARGV[0])' "$1"
}

# ---- rbflame dump ---------------------------------------------------------------

# check_dump FILE: FILE is 'rbflame dump' output: blocks separated by one
# blank line, each 'thread TID "NAME"' (M:N: 'thread mnN "NAME"', plus
# ' on TID' while a native thread runs it; plus ' gvl') then frames
# '  LABEL (PATH:LINE)'; at most one thread holds the GVL.
check_dump() {
	perl -e '
		open(my $fh, "<", $ARGV[0]) or die "open: $!\n";
		my @l = <$fh>;
		die "empty dump\n" if !@l;
		die "no newline at end\n" if $l[-1] !~ /\n\z/;
		chomp @l;
		my ($gvl, $state) = (0, "blank");
		for my $i (0 .. $#l) {
			my $x = $l[$i];
			my $at = "line " . ($i + 1) . ": [$x]";
			if ($x =~ /^thread (?:\d+|mn\d+) "(?:[^"\\]|\\.)*"(?: on \d+)?( gvl)?$/) {
				die "$at: header not after a blank line\n"
				    if $state ne "blank";
				$gvl++ if $1;
				$state = "header";
			} elsif ($x =~ /^  \S.* \(.+:\d+\)$/) {
				die "$at: frame outside a thread block\n"
				    if $state eq "blank";
				$state = "frame";
			} elsif ($x eq "") {
				die "$at: blank line not after a frame\n"
				    if $state ne "frame";
				$state = "blank";
			} else {
				die "$at: neither header, frame nor blank\n";
			}
		}
		die "ends without a frame\n" if $state ne "frame";
		die "$gvl threads hold the GVL\n" if $gvl > 1;
	' "$1"
}

# dump_block FILE TID: thread TID's block of a dump, without ' gvl'.
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
