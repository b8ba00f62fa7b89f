# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Helpers for the end-to-end tests: sourced by every tests/e2e/*.sh after
# its bash guard (and by the Ruby suite, tests/ruby: keep names and
# arguments stable). Owns the test's scratch directory ($T), the processes
# the test starts (killed on exit), waiting with time limits, /proc checks
# and the checks of collapsed output.
#
# Conventions: exit 0 pass, 1 fail, 77 skip. A missing prerequisite skips
# only outside CI: with CI=true it fails, because CI has everything.
# Environment (set by make check, defaulted here for running by hand):
# top_srcdir, top_builddir, RBFLAME. KEEP_T=1 keeps the scratch directory.

set -eu

ME=${0##*/}
ME=${ME%.sh}
if [ -z "${top_srcdir:-}" ]; then
	top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
fi
: "${top_builddir:=$top_srcdir}"
: "${RBFLAME:=$top_builddir/rbflame}"
# An ASan build (configure --enable-asan): about 3x the memory and 2-40x
# the CPU of a plain one; tests of RSS and of long searches scale by it.
ASAN_BUILD=0
if grep -q __asan_init "$RBFLAME" 2>/dev/null; then
	ASAN_BUILD=1
fi
TRACEES=$top_builddir/tests/tracees
export LC_ALL=C
# Tracees killed by SIGABRT and friends must not leave core files around.
ulimit -c 0

# The chain tracee's stack, anywhere in a line's stack (root frames from
# libc may precede main). Patterns here apply to the stack, count removed.
# shellcheck disable=SC2034 # used by the tests
CHAIN_RE='(^|;)main;f0;f1;f2;f3(;|$)'
# A frame in libc (named or not: libc's local symbols need its debug file).
# Right before main or a thread's start function, it shows the unwind went
# all the way up rather than stopping short.
# shellcheck disable=SC2034 # used by the tests
LIBC_FRAME='[^;]+ \(libc\.so\.6\)'

# ---- messages and exits ---------------------------------------------------

say() {
	printf '%s: %s\n' "$ME" "$*"
}

# Prints the scratch files that explain a failure (stderr captures, tracee
# output, the first lines of profiles).
dump_scratch() {
	local f
	[ -n "${T:-}" ] && [ -d "$T" ] || return 0
	for f in "$T"/*.err "$T"/*.log "$T"/*.out "$T"/*.folded; do
		[ -f "$f" ] || continue
		printf -- '--- %s (%s lines) ---\n' "${f##*/}" "$(wc -l <"$f")"
		head -n 20 "$f" | cut -c1-300
	done
}

fail() {
	printf 'FAIL: %s: %s\n' "$ME" "$*" >&2
	if [ -z "${IN_FAIL:-}" ]; then
		IN_FAIL=1
		dump_scratch >&2
		# Again after the dump, so that a log's tail shows why.
		printf 'FAIL: %s: %s\n' "$ME" "$*" >&2
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

require_root() {
	[ "$(id -u)" = 0 ] || skip_or_fail "needs root (runs as uid $(id -u))"
}

# require_syscalls_covered LOG: the syscalls tracee prints "NAME
# unavailable: WHY" for a call this kernel refuses (io_uring with
# kernel.io_uring_disabled or under a seccomp filter); that call went
# untested: a failure in CI, a notice elsewhere.
require_syscalls_covered() {
	local line
	while IFS= read -r line; do
		case $line in
		*" unavailable: "*)
			[ "${CI:-}" = true ] &&
				fail "prerequisite missing in CI: ${line#syscalls: }"
			say "not covered here: ${line#syscalls: }"
			;;
		esac
	done <"$1"
}

require_cmd() {
	local c
	for c; do
		command -v "$c" >/dev/null 2>&1 ||
			skip_or_fail "command not found: $c"
	done
}

# ---- scratch directory and processes --------------------------------------

T=$(mktemp -d "${TMPDIR:-/tmp}/rbflame-e2e-$ME.XXXXXX")
PIDS=
# Registers a process this test started: killed when the test exits.
track() {
	PIDS="$PIDS $1"
}

# Shell code run at exit before processes are killed (e.g. restoring a
# sysctl); append with on_exit.
ON_EXIT=
on_exit() {
	ON_EXIT="$ON_EXIT$1;"
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

[ -x "$RBFLAME" ] || fail "rbflame not built: $RBFLAME"
for _t in stack-fcall threads churn signals syscalls ptrace-hold; do
	[ -x "$TRACEES/$_t" ] ||
		fail "tracee not built: $TRACEES/$_t (make check builds it)"
done
unset _t

# dead_pid: the pid of a process that has just exited: no such process
# (pids are not reused until they wrap around).
dead_pid() {
	local p
	p=$(sh -c 'echo $$')
	while [ -e "/proc/$p" ]; do
		p=$(sh -c 'echo $$')
	done
	echo "$p"
}

# ---- time -----------------------------------------------------------------

now() {
	date +%s.%N
}

# elapsed START: seconds since START (from now), two decimals.
elapsed() {
	perl -e 'printf "%.2f\n", $ARGV[1] - $ARGV[0]' "$1" "$(now)"
}

# ---- /proc ----------------------------------------------------------------

# The helpers below poll /proc often, on machines kept busy by spinning
# tracees: they read with builtins (no cat, awk or subshell per check).

# read_state PATH: sets STATE to the state letter of /proc/PID/stat or
# /proc/PID/task/TID/stat (field 3, after the last ')' of comm); returns 1
# when the file cannot be read.
read_state() {
	local l=
	STATE=
	{ read -r l <"$1"; } 2>/dev/null || [ -n "$l" ] || return 1
	l=${l##*) }
	STATE=${l%% *}
	[ -n "$STATE" ]
}

# stat_state PATH: prints the state letter (see read_state).
stat_state() {
	read_state "$1" && printf '%s\n' "$STATE"
}

# alive PID: exists and is not a zombie.
alive() {
	read_state "/proc/$1/stat" && [ "$STATE" != Z ] && [ "$STATE" != X ]
}

# read_tracer PID_OR_TASK_DIR: sets TRACER to the TracerPid of /proc/PID
# (or of a /proc/PID/task/TID directory); returns 1 if unreadable.
read_tracer() {
	local d=$1 k v
	case $d in /*) ;; *) d=/proc/$d ;; esac
	TRACER=
	{ exec 9<"$d/status"; } 2>/dev/null || return 1
	while read -r k v <&9; do
		if [ "$k" = TracerPid: ]; then
			TRACER=$v
			break
		fi
	done
	exec 9<&-
	[ -n "$TRACER" ]
}

# tracer_of PID_OR_TASK_DIR: prints the TracerPid (see read_tracer).
tracer_of() {
	read_tracer "$1" && printf '%s\n' "$TRACER"
}

# wait_ready FILE SECS [PID]: waits for FILE to be non-empty; fails early
# when PID (the tracee writing it) dies.
wait_ready() {
	local file=$1 n pid=${3:-}
	n=$(perl -e 'print int($ARGV[0] * 50)' "$2")
	while [ ! -s "$file" ]; do
		# It may have written the file and exited since the test.
		if [ -n "$pid" ] && ! alive "$pid" && [ ! -s "$file" ]; then
			fail "process $pid died before writing ${file##*/}"
		fi
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "no ${file##*/} after $2 s"
		sleep 0.02
	done
}

# wait_traced PID SECS [TRACER]: waits until PID has a tracer (rbflame
# attached); fails early if PID or TRACER dies.
wait_traced() {
	local n
	n=$(perl -e 'print int($ARGV[0] * 100)' "$2")
	for (( ; ; )); do
		# A /proc read cut short (a signal to this shell) says
		# nothing: only three misses in a row mean it died.
		alive "$1" || { sleep 0.01; alive "$1"; } ||
			{ sleep 0.01; alive "$1"; } ||
			fail "process $1 died while waiting for a tracer"
		if read_tracer "$1" && [ "$TRACER" != 0 ]; then
			return 0
		fi
		[ -z "${3:-}" ] || alive "$3" ||
			fail "rbflame exited before attaching to $1"
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "process $1 still has no tracer after $2 s"
		sleep 0.01
	done
}

# wait_untraced PID SECS: waits until no thread of PID has a tracer.
wait_untraced() {
	local n d bad
	n=$(perl -e 'print int($ARGV[0] * 50)' "$2")
	for (( ; ; )); do
		bad=
		for d in /proc/"$1"/task/*; do
			read_tracer "$d" || continue
			[ "$TRACER" = 0 ] || bad="$bad ${d##*/}:$TRACER"
		done
		[ -z "$bad" ] && return 0
		n=$((n - 1))
		[ "$n" -gt 0 ] ||
			fail "threads of $1 still traced after $2 s (tid:tracer$bad)"
		sleep 0.02
	done
}

# assert_running PID CHECKS INTERVAL: PID stays alive and none of its
# threads is in t (tracing stop) or T (stopped) state, CHECKS times.
assert_running() {
	local i d
	for ((i = 0; i < $2; i++)); do
		alive "$1" || fail "process $1 is gone"
		for d in /proc/"$1"/task/*; do
			read_state "$d/stat" || continue
			case $STATE in
			t | T)
				fail "thread ${d##*/} of $1 left in state $STATE" \
					"(check $((i + 1)) of $2)"
				;;
			esac
		done
		sleep "$3"
	done
}

# wait_gone PID SECS: waits until PID has exited (zombie or reaped);
# returns 1 on timeout.
wait_gone() {
	local n
	n=$(perl -e 'print int($ARGV[0] * 50)' "$2")
	while alive "$1"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.02
	done
}

# wait_exit PID SECS: waits for background job PID, sets RC to its exit
# status. On timeout kills it (SIGKILL), sets RC=timeout and returns 1.
# (A traced child can only be reaped once its tracer lets go of it: wait
# for the tracer first.)
wait_exit() {
	if ! wait_gone "$1" "$2"; then
		kill -KILL "$1" 2>/dev/null || true
		wait "$1" 2>/dev/null || true
		RC=timeout
		return 1
	fi
	RC=0
	wait "$1" || RC=$?
}

# ---- running rbflame and tracees -------------------------------------------

# start_tracee NAME ARGS...: starts $TRACEES/NAME in the background, output
# in $T/NAME.log; sets TPID. Pass -r FILE to get a readiness file.
start_tracee() {
	local name=$1
	shift
	"$TRACEES/$name" "$@" >"$T/$name.log" 2>&1 &
	TPID=$!
	track "$TPID"
}

# A command prefix for rbflame (e.g. setpriv to run it as another user).
RUN_AS=()

# kill_tracee PID: SIGKILL and reap a process this test started.
kill_tracee() {
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# run_rbflame TAG SECS ARGS...: runs rbflame in the foreground under
# timeout(1), stdout in $T/TAG.out, stderr in $T/TAG.err; sets RC and
# ELAPSED (seconds). Fails if it had to be timed out.
run_rbflame() {
	local tag=$1 secs=$2 t0
	shift 2
	t0=$(now)
	RC=0
	timeout -k 5 "$secs" "${RUN_AS[@]}" "$RBFLAME" "$@" \
		>"$T/$tag.out" 2>"$T/$tag.err" </dev/null || RC=$?
	ELAPSED=$(elapsed "$t0")
	case $RC in
	124 | 137)
		if perl -e 'exit !($ARGV[0] >= $ARGV[1] - 0.1)' \
			"$ELAPSED" "$secs"; then
			fail "$tag: rbflame still running after $secs s" \
				"(killed by timeout): rbflame $*"
		fi
		;;
	esac
	return 0
}

# start_rbflame TAG ARGS...: starts rbflame in the background with SIGINT
# and SIGQUIT at their defaults (as at a terminal; a non-interactive shell
# would ignore them in background jobs). Sets RBPID, rbflame's pid, and
# RBJOB, a wrapper job that exits with rbflame's status (so bash does not
# print "Killed" when rbflame dies of SIGKILL); see wait_rbflame.
start_rbflame() {
	local tag=$1 n=500
	shift
	rm -f "$T/$tag.pid"
	(
		env --default-signal=INT,QUIT "${RUN_AS[@]}" "$RBFLAME" "$@" \
			>"$T/$tag.out" 2>"$T/$tag.err" </dev/null &
		echo $! >"$T/$tag.pid"
		wait $!
	) 2>/dev/null &
	RBJOB=$!
	track "$RBJOB"
	until [ -s "$T/$tag.pid" ]; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "rbflame did not start"
		sleep 0.01
	done
	RBPID=$(cat "$T/$tag.pid")
	track "$RBPID"
}

# wait_rbflame SECS: waits for the rbflame of start_rbflame to exit, sets
# RC to its exit status. On timeout kills it, sets RC=timeout, returns 1.
wait_rbflame() {
	if ! wait_gone "$RBPID" "$1"; then
		kill -KILL "$RBPID" 2>/dev/null || true
		wait "$RBJOB" 2>/dev/null || true
		RC=timeout
		return 1
	fi
	RC=0
	wait "$RBJOB" || RC=$?
}

# expect_rc WANT WHAT: RC must be WANT.
expect_rc() {
	[ "$RC" = "$1" ] || fail "$2: exit status $RC, want $1"
}

# ---- stderr checks ---------------------------------------------------------

# assert_error_line FILE WHAT: FILE (stderr) is exactly one line starting
# with "rbflame: ".
assert_error_line() {
	local n
	n=$(wc -l <"$1")
	[ "$n" = 1 ] || fail "$2: want one line on stderr, got $n"
	grep -q '^rbflame: ' "$1" ||
		fail "$2: stderr does not start with 'rbflame: '"
}

# assert_usage_error FILE WHAT: "rbflame: ..." then "Try 'rbflame --help'".
assert_usage_error() {
	local n
	n=$(wc -l <"$1")
	if [ "$n" -lt 1 ] || [ "$n" -gt 2 ]; then
		fail "$2: want 1-2 lines on stderr, got $n"
	fi
	head -n 1 "$1" | grep -q '^rbflame: ' ||
		fail "$2: stderr does not start with 'rbflame: '"
	grep -qF "Try 'rbflame --help'" "$1" ||
		fail "$2: no \"Try 'rbflame --help'\" on stderr"
}

# ---- collapsed output ------------------------------------------------------

# check_collapsed FILE [allow-empty]: every line is "STACK COUNT" as both
# flamegraph.pl (^(.*)\s+?(\d+(?:\.\d*)?)$) and speedscope (^(.*) (\d+)$)
# read it, the count is a positive integer, the stack does not end in a
# number (flamegraph.pl would read a differential profile), no frame is
# empty, padded or ends in " NUMBER", each stack appears once, the file is
# UTF-8 with LF endings. Prints "N stacks, M samples".
check_collapsed() {
	perl -e '
		my ($file, $allow_empty) = @ARGV;
		open(my $fh, "<:raw", $file) or die "open $file: $!\n";
		my $data = do { local $/; <$fh> };
		close $fh;
		my (@err, %seen, $lines, $total);
		if ($data eq "") {
			if ($allow_empty) { print "0 stacks, 0 samples\n"; exit 0 }
			print STDERR "empty profile\n";
			exit 1;
		}
		push @err, "no newline at end of file" if $data !~ /\n\z/;
		push @err, "CR in file" if $data =~ /\r/;
		my $copy = $data;
		push @err, "invalid UTF-8" if !utf8::decode($copy);
		$lines = 0;
		$total = 0;
		(my $body = $data) =~ s/\n\z//;
		for my $line (split /\n/, $body, -1) {
			$lines++;
			my $why;
			if ($line !~ /^(.*)\s+?(\d+(?:\.\d*)?)$/) {
				$why = "does not match flamegraph.pl regex";
			} elsif ($line !~ /^(.*) (\d+)$/) {
				$why = "does not match speedscope regex";
			} else {
				my ($stack, $n) = ($1, $2);
				if ($n == 0) {
					$why = "zero count";
				} elsif ($stack eq "") {
					$why = "empty stack";
				} elsif ($stack =~ /\s\d+(?:\.\d*)?$/) {
					$why = "stack ends in a number " .
					    "(differential input to flamegraph.pl)";
				} elsif ($seen{$stack}++) {
					$why = "stack appears twice";
				} else {
					for my $f (split /;/, $stack, -1) {
						if ($f eq "") {
							$why = "empty frame"; last;
						}
						if ($f =~ /^\s|\s$/) {
							$why = "frame padded with space: [$f]";
							last;
						}
						if ($f =~ /\s\d+$/) {
							$why = "frame ends in \" NUMBER\": [$f]";
							last;
						}
					}
				}
				$total += $n if !$why;
			}
			push @err, "line $lines: $why: " . substr($line, 0, 200)
			    if $why;
		}
		if (@err) {
			print STDERR "$_\n" for @err[0 .. ($#err > 9 ? 9 : $#err)];
			print STDERR scalar(@err) . " problems\n";
			exit 1;
		}
		printf "%d stacks, %d samples\n", scalar(keys %seen), $total;
	' "$1" "${2:+1}"
}

# assert_collapsed FILE WHAT [allow-empty]: check_collapsed or fail.
assert_collapsed() {
	local r
	r=$(check_collapsed "$1" "${3:-}" 2>"$T/check.msg") || {
		cat "$T/check.msg" >&2
		fail "$2: ${1##*/} is not valid collapsed output"
	}
	say "$2: ${1##*/} is valid collapsed output ($r)"
}

# share FILE PATTERN [WITHIN]: "MATCHED TOTAL": the sum of the counts of
# stacks matching the Perl regex PATTERN, and of all stacks (or only those
# matching WITHIN).
share() {
	PAT=$2 WITHIN=${3:-} perl -ne '
		BEGIN { $re = qr/$ENV{PAT}/; $in = qr/$ENV{WITHIN}/ }
		chomp;
		next unless /^(.*) (\d+)$/;
		my ($s, $n) = ($1, $2);
		next unless $s =~ $in;
		$t += $n;
		$m += $n if $s =~ $re;
		END { printf "%d %d\n", $m, $t }
	' "$1"
}

# total_samples FILE
total_samples() {
	share "$1" '' | cut -d' ' -f2
}

# top_stacks FILE [N]: the N (default 5) heaviest stacks, for failure
# reports.
top_stacks() {
	perl -ne '
		BEGIN { $max = shift @ARGV }
		chomp;
		push @s, [$2, $1] if /^(.*) (\d+)$/;
		END {
			@s = sort { $b->[0] <=> $a->[0] } @s;
			splice(@s, $max) if @s > $max;
			printf "  %6d  %s\n", $_->[0], substr($_->[1], 0, 300)
			    for @s;
		}
	' "${2:-5}" "$1"
}

# assert_share FILE PATTERN MINPCT LABEL [WITHIN]: at least MINPCT percent
# of the samples (of those matching WITHIN) match PATTERN. Prints the
# figures either way.
assert_share() {
	local m t pct
	read -r m t <<<"$(share "$1" "$2" "${5:-}")"
	if [ "$t" = 0 ]; then
		fail "$4: no samples${5:+ matching $5} in ${1##*/}"
	fi
	pct=$(perl -e 'printf "%.1f", 100 * $ARGV[0] / $ARGV[1]' "$m" "$t")
	say "$4: $m/$t samples = $pct% match $2 (need >= $3%)"
	if ! perl -e 'exit !($ARGV[0] >= $ARGV[1])' "$pct" "$3"; then
		echo "heaviest stacks:" >&2
		top_stacks "$1" 8 >&2
		fail "$4: only $pct% of samples match $2"
	fi
}

# assert_total FILE MIN MAX LABEL: the sample count is within [MIN, MAX].
assert_total() {
	local n
	n=$(total_samples "$1")
	say "$4: $n samples (want $2..$3)"
	if [ "$n" -lt "$2" ] || [ "$n" -gt "$3" ]; then
		fail "$4: $n samples, want $2..$3"
	fi
}

# ---- a profiled timed phase -------------------------------------------------

# profile_attached TRACEE SECS TAG RBFLAME-ARGS...: starts TRACEE -r READY
# -g GO SECS, attaches "rbflame RBFLAME-ARGS -p PID -o $T/TAG.folded", lets
# the tracee's timed phase start once it is traced, and waits for the
# tracee, then rbflame (which must end on its own when its target exits).
# Sets TRACEE_RC (the tracee's exit status) and RC (rbflame's).
profile_attached() {
	local name=$1 secs=$2 tag=$3 pid
	shift 3
	start_tracee "$name" -r "$T/$tag.ready" -g "$T/$tag.go" "$secs"
	pid=$TPID
	wait_ready "$T/$tag.ready" 10 "$pid"
	start_rbflame "$tag" "$@" -p "$pid" -o "$T/$tag.folded"
	wait_traced "$pid" 10 "$RBPID"
	touch "$T/$tag.go"
	wait_gone "$pid" $((${secs%.*} + 30)) ||
		fail "$name: still running $((${secs%.*} + 30)) s after its $secs s phase"
	wait_rbflame 15 ||
		fail "rbflame still running 15 s after its target exited"
	RBRC=$RC
	wait_exit "$pid" 5 || fail "$name: could not reap it"
	# shellcheck disable=SC2034 # read by the tests
	TRACEE_RC=$RC
	RC=$RBRC
}
