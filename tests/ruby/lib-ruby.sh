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
# anonymous class (#<Class:0x@HEX@>); '@GC?@' at the end of a stack for
# the GC state frames a GVL holder's sample may end in. '@ADDR:NAME@' is
# the address of the object the fixture logged as NAME (fill_addrs),
# filled in once the fixture runs.
# Nothing else is a pattern: a stack matches only if equal, character for
# character.

: "${top_srcdir:?source ../e2e/lib.sh first}"
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

# expand_stack SPEC: the exact stack SPEC describes (see the top).
expand_stack() {
	SPEC=$1 FIXTURES=$FIXTURES FX=${FX:-} perl -e '
		my %lines;
		sub line_of {
			my ($file, $mark) = @_;
			return $mark if $mark =~ /^\d+$/;
			return $lines{"$file:$mark"} if $lines{"$file:$mark"};
			my $path = "$ENV{FIXTURES}/$file";
			my @hits;
			open(my $fh, "<", $path) or die "open $path: $!\n";
			while (<$fh>) {
				push @hits, $. if /# LINE-MARK: \Q$mark\E\s*$/;
			}
			die "marker \"$mark\" found " . scalar(@hits) .
			    " times in $file, want once\n" if @hits != 1;
			return $lines{"$file:$mark"} = $hits[0];
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
			$q =~ s/\\\@GC\\\?\\\@/(?:;\\(garbage collection\\)(?:;\\((?:marking|sweeping)\\))?)?/g;
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

# done_stacks STACK: the optional ('?') stacks of a threads.rb worker whose
# own stack is STACK: between two million-step runs it asks
# Fixture.done? (then Fixture.now, Process.clock_gettime), and the GVL
# may change hands anywhere on that way.
done_stacks() {
	local d n c s
	d="$1;$(expand_stack 'Fixture.done? {fixture.rb:done}')"
	n="$d;$(expand_stack 'Fixture.now {fixture.rb:now}')"
	c="$n;$(expand_stack 'Process.clock_gettime {fixture.rb:now}')"
	for s in "$d" "$n" "$c"; do
		printf '%s\n' "?$s@GC?@" "?$s;(waiting for GVL)"
	done
}

# assert_stacks FOLDED MINPCT WHAT [--within PREFIX] STACK...: every STACK
# (exact, from expand_stack) has samples, and together they hold at least
# MINPCT percent of the samples (of the stacks starting with PREFIX). A
# STACK written '?STACK' counts towards MINPCT but may have none.
# Prints the figures either way.
assert_stacks() {
	local folded=$1 min=$2 what=$3 prefix='' counts sum=0 total i pct s
	local -a cnt opt=() args=()
	shift 3
	if [ "${1:-}" = --within ]; then
		prefix=$2
		shift 2
	fi
	for s; do
		if [ "${s:0:1}" = '?' ]; then
			opt+=(1)
			args+=("${s:1}")
		else
			opt+=(0)
			args+=("$s")
		fi
	done
	set -- "${args[@]}"
	local -a st=("$@")
	counts=$(stack_counts "$folded" "$prefix" "$@") ||
		fail "$what: cannot read $folded"
	read -r -a cnt <<<"$counts"
	total=${cnt[$#]}
	[ "$total" -gt 0 ] ||
		fail "$what: no samples${prefix:+ starting with $prefix}"
	for ((i = 0; i < $#; i++)); do
		sum=$((sum + cnt[i]))
	done
	pct=$(perl -e 'printf "%.1f", 100 * $ARGV[0] / $ARGV[1]' "$sum" "$total")
	if [ $# = 1 ]; then
		say "$what: $sum/$total = $pct% exact stack ...;$(leaf_of "$1")" \
			"(need >= $min%)"
	else
		say "$what: $sum/$total = $pct% in $# exact stacks" \
			"(need >= $min%, each > 0 but '?' ones)"
	fi
	for ((i = 0; i < $#; i++)); do
		s=${st[i]}
		[ $# = 1 ] || say "  $what: ${cnt[i]} ...;$(leaf_of "$s")"
		if [ "${cnt[i]}" = 0 ] && [ "${opt[i]}" = 0 ]; then
			echo "expected stack (no sample): $s" >&2
			echo "heaviest stacks:" >&2
			top_stacks "$folded" 8 >&2
			fail "$what: stack ending in $(leaf_of "$s") never sampled"
		fi
	done
	if ! perl -e 'exit !($ARGV[0] >= $ARGV[1])' "$pct" "$min"; then
		for ((i = 0; i < $#; i++)); do
			echo "expected: ${st[i]}" >&2
		done
		echo "heaviest stacks:" >&2
		top_stacks "$folded" 8 >&2
		fail "$what: only $pct% of samples in the expected stack(s)"
	fi
}

# check_dump FILE: FILE is 'rbflame dump' output: blocks separated by one
# blank line, each a header 'thread TID "NAME"' (plus ' gvl') then its
# frames '  LABEL (PATH:LINE)' (none for a thread that has not run Ruby
# code yet); at most one thread holds the GVL. Prints "N threads".
check_dump() {
	perl -e '
		my $file = $ARGV[0];
		open(my $fh, "<", $file) or die "open $file: $!\n";
		my @l = <$fh>;
		die "empty dump\n" if !@l;
		die "no newline at end\n" if $l[-1] !~ /\n\z/;
		chomp @l;
		my ($threads, $gvl, $state) = (0, 0, "start");
		for my $i (0 .. $#l) {
			my $x = $l[$i];
			my $at = "line " . ($i + 1) . ": [$x]";
			if ($x =~ /^thread \d+ "(?:[^"\\]|\\.)*"( gvl)?$/) {
				die "$at: header not after a blank line\n"
				    if $state ne "start" && $state ne "blank";
				$threads++;
				$gvl++ if $1;
				$state = "header";
			} elsif ($x =~ /^  \S.* \(.+:\d+\)$/) {
				die "$at: frame outside a thread block\n"
				    if $state ne "header" && $state ne "frame";
				$state = "frame";
			} elsif ($x eq "") {
				die "$at: blank line not after a thread\n"
				    if $state ne "frame" && $state ne "header";
				$state = "blank";
			} else {
				die "$at: neither header, frame nor blank\n";
			}
		}
		die "ends with a blank line\n"
		    if $state ne "frame" && $state ne "header";
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

# check_frames FOLDED KNOWN: nothing impossible in a Ruby profile. KNOWN
# is what ranges.rb prints (LABEL, PATH, FIRST, LAST per line) for the
# program's files; the methods Ruby itself defines in Ruby (Float#-@ and
# GC.start in <internal:numeric>, <internal:gc>) are added by asking the
# interpreter (ranges.rb -m). A leading 'thread TID "NAME"' frame is set
# aside; stacks rooted in Ruby's start-up (<internal:gem_prelude>, ...)
# are counted and skipped. In every other stack each frame is
# 'LABEL (PATH:LINE)' and either
#   - LABEL is known and LINE lies in one of its spans, in its file, or
#   - LABEL has the shape of a C function (Owner#name, Owner.name,
#     A::B#name, name an identifier or an operator such as + or []=) and
#     PATH:LINE is its caller's (the frame above): a known frame's, or a
#     real line of an existing file;
# the first frame is a known one and <main> appears nowhere else. Prints
# the figures; on failure the first bad frames on stderr, returns 1.
check_frames() {
	local known=$T/check_frames.known m
	local -a ms=()
	cp "$2" "$known"
	# Methods written in Ruby inside the interpreter, as the profile
	# names them (blocks in them count as the method).
	while read -r m; do
		ms+=(-m "$m")
	done < <(perl -ne '
		chomp;
		s/ \d+$//;
		s/^thread \d+ "(?:[^"\\]|\\.)*"(?:;|$)//;
		next if /^<internal:/;
		for (split /;/) {
			print "$1\n" if /^(?:block (?:\(\d+ levels\) )?in )?([A-Z]\S*[#.]\S+) \(<internal:[^>]+>:\d+\)$/;
		}
	' "$1" | sort -u)
	if [ ${#ms[@]} -gt 0 ]; then
		"$RUBY" "$top_srcdir/tests/ruby/ranges.rb" "${ms[@]}" >>"$known" ||
			return 1
	fi
	perl -e '
	my ($folded, $known) = @ARGV;
	my %known;	# label -> [[path, first, last], ...]
	open(my $k, "<", $known) or die "open $known: $!\n";
	while (<$k>) {
		chomp;
		my ($label, $path, $first, $last) = split /\t/;
		push @{$known{$label}}, [$path, $first, $last];
	}
	# Ruby operator methods (String#+ is a real call in 3.1: Ruby\x27s
	# own backtraces show it).
	my $op = qr{\[\]=?|[-+]@|\*\*|<=>|===?|=~|!=|![~]?|<<|>>|<=|>=|[-+*/%<>&|^~]};
	my $cfunc = qr/^[A-Z]\w*(?:::[A-Z]\w*)*[#.](?:[A-Za-z_]\w*[?!=]?|$op)$/;
	my $state = qr/^\((?:garbage collection|marking|sweeping|waiting for GVL|blocked|running without GVL)\)$/;
	my (%nlines, %seen, @err, $samples, $frames, $startup);
	sub nlines {
		my ($p) = @_;
		return $nlines{$p} if exists $nlines{$p};
		my $n;
		if (open(my $f, "<", $p)) { $n = 0; $n++ while <$f>; }
		return $nlines{$p} = $n;
	}
	open(my $fh, "<", $folded) or die "open $folded: $!\n";
	while (my $line = <$fh>) {
		chomp $line;
		my ($stack, $n) = $line =~ /^(.*) (\d+)$/ or next;
		$samples += $n;
		$stack =~ s/^thread \d+ "(?:[^"\\]|\\.)*"(?:;|$)//;
		if ($stack =~ /^<internal:/) {
			$startup += $n;
			next;
		}
		my @f = split /;/, $stack;
		# Thread states: leaf pseudo-frames, one or (GC) two, and only
		# at the leaf.
		my $states = 0;
		while (@f && $f[-1] =~ $state) {
			$states++;
			my $s = pop @f;
			push @err, "GC phase $s not under (garbage collection)\n  in $line"
			    if $s =~ /^\((marking|sweeping)\)$/ &&
			    !(@f && $f[-1] eq "(garbage collection)");
		}
		push @err, "more than two state frames\n  in $line" if $states > 2;
		if (@f && $f[-1] eq "(garbage collection)") { pop @f; }
		push @err, "a state frame inside the stack\n  in $line"
		    if grep { $_ =~ $state } @f;
		push @err, "no Ruby frame\n  in $line" if !@f;
		my ($ppath, $pline);
		for my $i (0 .. $#f) {
			$frames += $n;
			my $why;
			my ($label, $path, $l) =
			    $f[$i] =~ /^(.+) \(([^()]+):(\d+)\)$/;
			if (!defined $label) {
				$why = "not LABEL (PATH:LINE)";
			} elsif ($i == 0 && !$known{$label}) {
				$why = "the root is not a known frame";
			} elsif ($i > 0 && $label eq "<main>") {
				$why = "<main> below the root";
			} elsif ($known{$label}) {
				my $ok = grep {
					$_->[0] eq $path && $l >= $_->[1] &&
					    $l <= $_->[2]
				} @{$known{$label}};
				$why = "line $l outside $label (at " . join(", ",
				    map { "$_->[0]:$_->[1]-$_->[2]" }
				    @{$known{$label}}) . ")" if !$ok;
				$seen{$label} += $n if $ok;
			} elsif ($label =~ $cfunc) {
				my $max = $path =~ m{^/} ? nlines($path) : undef;
				if ("$path:$l" ne "$ppath:$pline") {
					$why = "C function not at its caller\x27s " .
					    "line ($ppath:$pline)";
				} elsif ($path =~ m{^/} && !defined $max) {
					$why = "no such file $path";
				} elsif (defined $max && ($l < 1 || $l > $max)) {
					$why = "line $l of a $max-line file";
				} elsif ($path !~ m{^/|^<internal:[^>]+>$}) {
					$why = "neither an absolute path nor " .
					    "<internal:...>";
				}
				$seen{"C functions"} += $n if !$why;
			} else {
				$why = "unknown label (neither a known frame " .
				    "nor a C function\x27s)";
			}
			push @err, "frame $i [$f[$i]]: $why\n  in $line" if $why;
			($ppath, $pline) = ($path, $l);
		}
	}
	if (@err) {
		print STDERR "$_\n" for @err[0 .. ($#err > 9 ? 9 : $#err)];
		printf STDERR "%d bad frames\n", scalar @err;
		exit 1;
	}
	printf "%d samples (%d in start-up, skipped), %d frames checked; " .
	    "samples per frame: %s\n", $samples, $startup // 0, $frames,
	    join(", ", map { "$_ $seen{$_}" }
	    sort { $seen{$b} <=> $seen{$a} || $a cmp $b } keys %seen);
	' "$1" "$known"
}

# frames_vs_ruby FOLDED WHAT MIN DIRS [ARGS...]: every frame of FOLDED in
# the files under DIRS (one directory a line), or called from them, is
# what a Ruby loading those files says of it (frames-vs-ruby.rb, ARGS its
# -r and -e; at least MIN frames checked). Says the figures.
frames_vs_ruby() {
	local folded=$1 what=$2 min=$3 d
	local -a dirs=()
	while read -r d; do
		[ -n "$d" ] && dirs+=(-d "$d")
	done <<<"$4"
	shift 4
	"$RUBY" "$top_srcdir/tests/ruby/frames-vs-ruby.rb" "$folded" "$@" \
		"${dirs[@]}" -n "$min" >"$T/verdict.txt" ||
		fail "$what: frames that Ruby disowns (above)"
	say "$what: $(cat "$T/verdict.txt")"
}

# read_summary FILE: from rbflame's summary line, the last line of FILE
# (its stderr), sets SUM_TICKS, SUM_FAILED (failed reads), SUM_STOP50 and
# SUM_STOP99 (how long threads were stopped per sample, us; 0.0 when
# nothing was), SUM_HELD50 and SUM_HELD99 (how long each thread was held,
# from its stop reported to its resume returning) and SUM_LATENCY50 (from
# the interrupt to the stop reported).
read_summary() {
	local re='\(([0-9]+) ticks at [^)]*\), [0-9]+ late ticks, ([0-9]+) failed reads; threads stopped ([0-9.]+) us p50, ([0-9.]+) us p99; held ([0-9.]+) us p50, ([0-9.]+) us p99 \(interrupt latency ([0-9.]+) us p50\)'
	local l
	l=$(tail -n 1 "$1")
	[[ $l =~ $re ]] || fail "no summary line at the end of ${1##*/}: $l"
	SUM_TICKS=${BASH_REMATCH[1]}
	SUM_FAILED=${BASH_REMATCH[2]}
	SUM_STOP50=${BASH_REMATCH[3]}
	SUM_STOP99=${BASH_REMATCH[4]}
	SUM_HELD50=${BASH_REMATCH[5]}
	SUM_HELD99=${BASH_REMATCH[6]}
	SUM_LATENCY50=${BASH_REMATCH[7]}
	SUM_EXIT_FAILED=0
	if [[ $l =~ \;\ ([0-9]+)\ reads\ failed\ as\ their\ process\ exited ]]; then
		SUM_EXIT_FAILED=${BASH_REMATCH[1]}
	fi
}

# assert_gvl_stopped FILE WHAT [EXITS]: the summary in FILE shows the
# GVL holder stopped (stop time p50 > 0) and fewer than 1% of the ticks
# failed. With EXITS (processes that exited while followed), reads that
# failed as a process exited (its VM torn down: the summary counts them
# apart) are none without an exit.
assert_gvl_stopped() {
	read_summary "$1"
	say "$2: threads stopped $SUM_STOP50 us p50, $SUM_FAILED failed" \
		"reads in $SUM_TICKS ticks (need > 0 us, < 1%)," \
		"$SUM_EXIT_FAILED more as${3:+ $3} processes exited"
	perl -e 'exit !($ARGV[0] > 0)' "$SUM_STOP50" ||
		fail "$2: no thread was ever stopped: the GVL holder's tid is" \
			"not one rbflame traces"
	[ "$((SUM_FAILED * 100))" -lt "$SUM_TICKS" ] ||
		fail "$2: $SUM_FAILED failed reads in $SUM_TICKS ticks (>= 1%)"
	[ "${3:-0}" -gt 0 ] || [ "$SUM_EXIT_FAILED" = 0 ] ||
		fail "$2: $SUM_EXIT_FAILED reads counted as exits, and no" \
			"process exited"
}
