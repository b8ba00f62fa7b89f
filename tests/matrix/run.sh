#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# make check-matrix: rbflame against live processes of every Debian Ruby it
# has a layout for, each profiled from the host:
#
#   2.7  bullseye                chroot (scripts/ruby-chroot 2.7)
#   3.1  bookworm, the host's    no chroot
#   3.3  trixie                  chroot
#   3.4  trixie + experimental   chroot; the exact version is recorded
#   selfbuilt                    Debian's 3.3 source built static with -g
#                                and YJIT (scripts/ruby-selfbuilt 3.3),
#                                read with the layout from its DWARF
#
# The chroots are built (or reused) by scripts/ruby-chroot under
# /var/cache/rbflame/chroots, and the self-built Ruby by
# scripts/ruby-selfbuilt under /var/cache/rbflame/selfbuilt, in parallel
# while the host's Ruby is tested (the build niced). A chroot or a Ruby
# that cannot be built is a failure, never a skip: CI is root on a Debian
# with the archive in reach. Chrooted targets also prove the
# container path: libruby and the fixtures are reached through
# /proc/PID/root, and the paths printed are the ones the target sees (what
# Ruby itself reports), not the host's.
#
# For each version, with the same expectations on every version, on
# tests/matrix/fixtures/matrix.rb (five named threads in steady spots: a
# namespaced instance method, a singleton method, a block two levels deep
# under Array#each and Integer#times, C functions at the leaf):
#
#   matrix-threads  'rbflame --threads -p PID -s 2 -r 200': per thread,
#                   >= 95% of its samples in its exact stack rooted at
#                   'thread TID "NAME"' (TID: the task the host sees with
#                   that comm; the main thread's is the pid).
#   matrix-dump     'rbflame dump -p PID': each thread's block, exactly.
#   matrix-locals   'rbflame dump -p PID --locals' on fixtures/locals.rb:
#                   every local's value exact (check-locals.pl), stale
#                   marks on the GVL holder's frames only; --json valid.
#   matrix-vm       how the VM was found: the exported ruby_current_vm_ptr
#                   (2.7, 3.1, the self-built Ruby's .symtab) or the
#                   structural search (Debian's 3.3 and 3.4 export
#                   nothing useful); then the structural search
#                   forced (RBFLAME_NO_VM_EXPORT=1) on every version, and
#                   the stacks of a dump made so.
#   matrix-forked   'rbflame --threads -p CHILD -s 2 -r 200' on a child
#                   forked by a second thread (forked.rb thread: the
#                   forking thread is the child's main thread, its tid
#                   the child's pid): >= 95% of the samples in the exact
#                   stack rooted at 'thread CHILD "main"', threads
#                   stopped (p50 > 0), < 1% of the ticks failed.
#
# and the thread states (the leaf pseudo-frames), on
# tests/matrix/fixtures/states.rb:
#
#   matrix-gc       'states.rb gc' collects about half its time. Rounds of
#                   'rbflame -p PID -s 3 -r RATE', each between two
#                   SIGUSR1 answers (the collector's milliseconds so far,
#                   the CPU time), until >= 1000 samples: the share of
#                   samples ending in (garbage collection) (phase or not)
#                   within 5 points of the collector's share of the CPU
#                   time by Ruby's own account, and both (marking) and
#                   (sweeping) seen. The account is GC.stat(:time) from
#                   3.1; Ruby 2.7 has no GC.stat(:time), and GC.start's
#                   time and the time, both on the wall clock, stand in
#                   (states.rb: on 2.7 that is the collector's time, and
#                   GC::Profiler's total, CPU time, read up to 7 points
#                   under the wall-time profile on a host where the
#                   collector loses wall time that is no CPU time).
#                   Only rounds where rbflame kept its schedule count (late
#                   ticks under 5% of the ticks due, as in
#                   tests/long/gcshare.sh): a late sampler samples as fast
#                   as it can, which thins the phases that cost more to
#                   stop. Seen over 76 rounds of 2.7, 3.3 and 3.4 with
#                   the machine's 2 CPUs saturated by other jobs (load
#                   6-9): the 20 rounds under 5% late within -1.8..+4.6
#                   points of Ruby's account; 2 of the 24 with 5-20% late
#                   beyond 5 points, 13 of the 32 later ones (up to
#                   +10.1). On schedule 2.7 read higher than 3.x against
#                   GC::Profiler's CPU time (mean +2.1 against +0.9;
#                   single 125 Hz rounds up to +4.8, and +7.2 in a cold
#                   CI run on a PVM guest), where GC.start lost wall time
#                   that was no CPU time (states.rb): hence its wall
#                   clock now.
#                   The first round runs at 500 Hz, the one round a quiet
#                   machine needs; a late round halves the rate, down to
#                   125 Hz (375 samples a round), straight to 125 Hz when
#                   rbflame kept under 375 ticks a second; the rounds on
#                   schedule add up; no round starts after 20 s. On a
#                   machine too busy to keep 125 Hz (CI builds the other
#                   Rubies meanwhile) every round is judged, late ones
#                   included, within 8 points (seen: -4.9 on 3.1.7 at
#                   load 5), and it says so;
#                   but first the samples of every round, late ones too,
#                   must hold the collector and both its phases (lateness
#                   skews the share by points; it never hides the
#                   collector): a wrong objspace fails as such however
#                   busy the machine.
#   matrix-gvl      'states.rb threads', 'rbflame --threads -p PID -s 3
#                   -r 500': two spinners contending for the GVL, each
#                   >= 95% in its exact stack, running or ending in
#                   (waiting for GVL), and waiting 30-70% of its samples,
#                   the two shares adding up to 90-110% (at any tick one
#                   of them holds the GVL). Ruby hands the GVL over every
#                   100 ms: half each in expectation, but 3 s hold only
#                   about 30 slices, and on a busy machine a slice
#                   stretches when its holder is descheduled, so one run
#                   may drift by several slices; tests/long/gvlshare.sh
#                   holds 35-65% over 10,000 samples. A reader that
#                   mistakes the holder or the thread's status gives 0%
#                   or 100%, or shares that do not add up.
#   matrix-blocked  the same fixture, 'rbflame --threads -p PID -s 1
#                   -r 400': the thread in Thread::Queue#pop and the one in
#                   Kernel#sleep >= 95% in their exact stack ending in
#                   (blocked), while the spinners contend. Queue#pop's
#                   location is Ruby's own (Thread#backtrace_locations): a
#                   C function at its caller's line up to 3.1, a method of
#                   <internal:thread_sync> from 3.2.
#
#   matrix-mn       (3.3 and 3.4) M:N threads: 'states.rb threads', then
#                   matrix.rb, run with RUBY_MN_THREADS=1 (matrix.rb's
#                   RUBY_DESCRIPTION says +MN), each profiled 'rbflame
#                   --threads -p PID -s 3 -r 200': each Ruby thread one
#                   root over the whole profile, 'thread mnN "NAME"' with
#                   N distinct (the main thread 'thread PID "main"'), no
#                   'thread 0', every thread >= 95% of the main thread's
#                   samples (none lost to another root); the sleepers
#                   (parked by the scheduler) >= 95% (blocked) and never
#                   running; the spinners never blocked, each running
#                   5-95% of its samples and waiting the rest, the
#                   running shares adding up to 90-110% (one holds the
#                   GVL at any tick). Before this check's fix each
#                   spinner was two roots (its shared native thread's
#                   tid, and 'thread 0'). Then 'rbflame dump -p PID'
#                   numbers each thread as the profile did, and
#                   --native on states.rb (2 s at 200 Hz) samples the
#                   parked sleepers, which have no native stack, as
#                   often as the main thread, (blocked), with under 1%
#                   of the reads failed. Seen: the
#                   sleepers 100% (blocked), states.rb's spinners
#                   running 47-53%, matrix.rb's three 31-38% (four runs
#                   on 3.3 and 3.4).
#
#   native-ext      --native on the test extension (tests/native/ext),
#                   built for that Ruby with its headers (the chroot's
#                   rubyX.Y-dev .deb, fetched once and cached): >= 90% of
#                   the samples in 'Ruby method -> C method -> its C
#                   functions' under native root frames.
#   native-zlib     --native on Zlib::Deflate.deflate: >= 75% of the
#                   samples with libz frames under the Ruby frames.
#
# and the adversarial target, tests/matrix/fixtures/adversary.rb (issue 20):
#
#   matrix-adversary  the fixture corrupts, through Fiddle, what it never
#                   uses again (17 parked threads' frames, an iseq, a class
#                   name: cycles, huge lengths, wild pointers, no
#                   terminators), with the layout 'rbflame dump --layout'
#                   gives; then 'rbflame -p PID -s 30 -r 1000': no crash,
#                   no hang (60 s timeout), peak RSS under 100 MiB, failed
#                   reads counted (>= one a tick), the profile written
#                   (>= 80% the main thread's Object#toil), every thread
#                   untraced and running after; the target still makes
#                   progress and counted the 7 SIGUSR1 sent.
#
# On the Rubies with YJIT, the host's 3.1 and the self-built 3.3 (Debian's
# 3.3 and 3.4 are built without it):
#
#   matrix-yjit     tests/matrix/fixtures/yjit.rb plus and mult, warmed
#                   up (every method called 100 times; YJIT compiles at
#                   the 10th call on 3.1, the 30th on 3.3), 'rbflame -p
#                   PID -s 2 -r 200' by the interpreter and under 'ruby
#                   --yjit': the interpreter's run >= 95% in its exact
#                   stack, and the stacks of >= 5% each the same in both
#                   runs but for the README's list (section YJIT), each
#                   difference asserted. 3.1: plus reads its def line
#                   under YJIT (a frame JIT code pushed, pc never
#                   written), mult gains Integer#* (YJIT 3.1 calls the C
#                   method where the interpreter's opt_mult has no
#                   frame). 3.3: none, lines included.
#   native-yjit     'rbflame --native -p PID -s 2 -r 200' on yjit.rb plus
#                   under --yjit: >= 80% of the samples have one [JIT]
#                   frame right under the Ruby frames (YJIT's code: an
#                   anonymous executable mapping), no frame anywhere is a
#                   bare address, no two [JIT] frames in a row.
#   native-yjit-perf (3.3) the same under 'ruby --yjit --yjit-perf':
#                   >= 80% end in '[yjit] Worker#plus', the name of the
#                   perf map the VM writes (/tmp/perf-PID.map, read
#                   through the target's root), no bare address.
#
# and on the reader's fixtures (tests/ruby/fixtures), the expected stacks of
# tests/ruby/labels.sh: >= 95% of the samples in the exact stack, lines
# included, one check each; and rescues.rb's unwind (an exception passing
# through ensure clauses: their frames on their clause's lines, where Ruby
# up to 3.3 gives the throw that ends each clause line 0).
#
# The self-built Ruby stands for the Rubies users build (rbenv,
# ruby-build): no libruby, the VM and its DWARF in the executable, and
# YJIT, which Debian leaves out of its 3.3 and 3.4. Every check above
# runs on it with RBFLAME_LAYOUT=dwarf (the DWARF layout or a failure),
# the YJIT ones included, plus
#
#   matrix-layout   'rbflame dump -p PID --layout': the DWARF layout
#                   equals the generated ruby_3_3_8 field for field (the
#                   build uses Debian's configure options; LAYOUT_DIFFS
#                   names any field allowed to differ, and why), rbflame
#                   says it reads with the DWARF, and warns of nothing.
#   matrix-debuglink the same Ruby stripped of its DWARF, which moved to a
#                   separate file named by .gnu_debuglink (as
#                   distributions ship debug info): the layout comes from
#                   that file, equal to the generated one, and a dump's
#                   stacks are exact.
#
# Where a version truly differs, the expectation says so: Integer#times is
# a C function up to Ruby 3.2 (its frame carries its caller's file and
# line, as Ruby's backtraces do) and a Ruby method of <internal:numeric>
# from 3.3, where its line is that of its 'yield' ({times@...} in the
# specs; the line is Ruby's own caller_locations answer, so that a patch
# release moving it breaks nothing); Kernel#loop likewise, from 3.3 a
# Ruby method of <internal:kernel> ({loop@...}). A refinement's method is
# '#<Module:0x...>#m' on 2.7 and '#<Refinement:0x...>#m' from 3.1, where
# refinements became instances of Refinement (@REFINEMENT@ in the specs).
#
# Environment: MATRIX_VERSIONS (default "2.7 3.1 3.3 3.4 selfbuilt"), RBFLAME,
# RBFLAME_CACHE (chroot cache, see scripts/ruby-chroot), KEEP_T=1,
# MATRIX_CHECKS (shell patterns of check names, e.g. "matrix-vm native-*":
# only those run; a pattern that matches no check fails).
# Exit: 0 all passed, 1 a failure, 77 skipped (not root, outside CI).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/matrix/lib-matrix.sh
. "$(dirname "$0")/lib-matrix.sh"

VERSIONS=${MATRIX_VERSIONS:-2.7 3.1 3.3 3.4 selfbuilt}
# The self-built Ruby: the release of Debian's source it is built from
# (scripts/ruby-selfbuilt, with YJIT), and the generated layout of that
# release, which its DWARF layout must equal.
SELF_VERSION=3.3
SELF_LAYOUT=ruby_3_3_8
T0=$(now)

[ "$(id -u)" = 0 ] || skip_or_fail "needs root (debootstrap, chroot)"
[ -x "$RBFLAME" ] || fail "rbflame not built: $RBFLAME"
for c in perl chroot timeout setsid flock objcopy readelf; do
	command -v "$c" >/dev/null 2>&1 || skip_or_fail "command not found: $c"
done

# ---- the chroots, built in the background ------------------------------------

declare -A BUILDER
for v in $VERSIONS; do
	case $v in
	3.1) ;;
	2.7 | 3.3 | 3.4)
		# Its own process group, so that an interrupted run ends
		# debootstrap too.
		setsid -w "$top_srcdir/scripts/ruby-chroot" "$v" \
			>"$T/chroot-$v.out" 2>"$T/chroot-$v.err" </dev/null &
		BUILDER[$v]=$!
		;;
	selfbuilt)
		# Niced: it compiles for minutes next to timed checks.
		setsid -w nice -n 19 "$top_srcdir/scripts/ruby-selfbuilt" \
			"$SELF_VERSION" >"$T/build-$v.out" 2>"$T/build-$v.err" </dev/null &
		BUILDER[$v]=$!
		;;
	*) fail "MATRIX_VERSIONS: unknown version $v (want 2.7 3.1 3.3 3.4 selfbuilt)" ;;
	esac
done
# shellcheck disable=SC2329 # called by the EXIT trap (cleanup)
kill_builders() {
	local v
	for v in "${!BUILDER[@]}"; do
		kill -TERM -- "-${BUILDER[$v]}" 2>/dev/null ||
			kill -TERM "${BUILDER[$v]}" 2>/dev/null || true
	done
}
on_exit kill_builders

# ---- checks -------------------------------------------------------------------

# Expected stacks of the matrix fixture, per thread ({times@...}: see above).
declare -A MX_STACK=(
	[main]='<main> {main-sleep};Kernel#sleep {main-sleep}'
	[mx-cruise]='block in Object#hire {hire-cruise};Fleet::Ship#cruise {cruise}'
	[mx-launch]='block in Object#hire {hire-launch};Fleet::Ship.launch {launch}'
	[mx-nested]='block in Object#hire {hire-nested};Fleet::Dock#nested {nested-each};Array#each {nested-each};block in Fleet::Dock#nested {nested-times};Integer#times {times@nested-times};block (2 levels) in Fleet::Dock#nested {nested-spin}'
	[mx-nap]='block in Object#hire {hire-nap};Fleet::Dock#nap {nap};Kernel#sleep {nap}'
)
MX_THREADS="main mx-cruise mx-launch mx-nested mx-nap"
# The state pseudo-frames of their samples: sleepers are (blocked); the
# three spinners share the GVL, so each also waits for it.
declare -A MX_STATE=(
	[main]=';(blocked)' [mx-nap]=';(blocked)'
	[mx-cruise]='' [mx-launch]='' [mx-nested]=''
)

# task_named PID NAME [SECS]: the task of PID whose comm is NAME, waiting
# SECS (default 5) at most; with SECS 0, prints nothing if there is none.
task_named() {
	local n=$((${3:-5} * 50)) d c
	for (( ; ; )); do
		for d in /proc/"$1"/task/*; do
			c=
			read -r c <"$d/comm" 2>/dev/null || continue
			if [ "$c" = "$2" ]; then
				echo "${d##*/}"
				return 0
			fi
		done
		[ "${3:-5}" != 0 ] || return 0
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "no task of $1 is named $2 (Thread#name=)"
		sleep 0.02
	done
}

# start_matrix: starts the matrix fixture; sets MXPID and TID[NAME], the
# task the host sees for each thread (Thread#name= names it; the main
# thread is the process).
declare -A TID
start_matrix() {
	local name got n=500
	FX=matrix.rb
	start_fixture matrix matrix.rb
	MXPID=$TPID
	got=$(sed -n 's/^version //p' "$CT/matrix.log")
	[ "$got" = "$RVERSION" ] || fail "fixture runs Ruby $got, want $RVERSION"
	TID[main]=$MXPID
	for name in $MX_THREADS; do
		[ "$name" = main ] || TID[$name]=$(task_named "$MXPID" "$name")
	done
	# The herald that printed "ready" ends: wait for it to be gone.
	while [ -n "$(task_named "$MXPID" mx-herald 0)" ]; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "thread mx-herald still there after 10 s"
		sleep 0.02
	done
}

# stop_matrix: rbflame left the fixture running and untraced; kill it.
stop_matrix() {
	wait_untraced "$MXPID" 2
	alive "$MXPID" || fail "the fixture died"
	kill_fixture "$MXPID"
}

# expected_block NAME TID: thread NAME's block in a dump.
expected_block() {
	printf 'thread %s "%s"\n' "$2" "$1"
	expand "${MX_STACK[$1]}" | tr ';' '\n' | sed 's/^/  /'
}

# by_name DUMP: the dump with 'thread TID "NAME"' headers reduced to the
# name (no ' gvl'), blocks in name order: compares stacks, not tids.
by_name() {
	perl -e '
		local $/ = "";
		open(my $fh, "<", $ARGV[0]) or die "open: $!\n";
		my %b;
		while (my $x = <$fh>) {
			$x =~ s/\n+\z/\n/;
			if ($x =~ s/^thread \d+ ("(?:[^"\\]|\\.)*")( gvl)?\n/thread $1\n/) {
				$b{$1} = $x;
			} else {
				$b{"~$x"} = $x;
			}
		}
		print map { $b{$_} } sort keys %b;
	' "$1"
}

# matrix-threads: 'rbflame --threads -p PID -s 2 -r 200': each thread's
# samples, rooted at 'thread TID "NAME"', >= 95% in its exact stack.
check_matrix_threads() {
	local name tid s shares=
	start_matrix
	run_rbflame thr 30 --threads -p "$MXPID" -s 2 -r 200 \
		-o "$CT/thr.folded"
	expect_rc 0 "rbflame --threads -p PID -s 2 -r 200"
	assert_collapsed "$CT/thr.folded" "--threads"
	# The profile line of the version: the deepest thread's heaviest.
	grep '^thread [0-9]* "mx-nested";' "$CT/thr.folded" |
		sort -t' ' -k2,2nr | head -n 1 >"$CT/../profile-line" || true
	for name in $MX_THREADS; do
		tid=${TID[$name]}
		s="thread $tid \"$name\";$(expand "${MX_STACK[$name]}")"
		if [ -n "${MX_STATE[$name]}" ]; then
			assert_stacks "$CT/thr.folded" 95 \
				"thread $name (tid $tid)" \
				--within "thread $tid \"$name\";" \
				"$s${MX_STATE[$name]}"
		else
			assert_stacks "$CT/thr.folded" 95 \
				"thread $name (tid $tid)" \
				--within "thread $tid \"$name\";" \
				"$s@GC?@" "$s;(waiting for GVL)"
		fi
		shares="$shares $name ${SHARE%% =*}"
	done
	sed -n 's/^thread \([0-9]*\) .*/\1/p' "$CT/thr.folded" | sort -u \
		>"$CT/roots"
	while read -r s; do
		[ -d "/proc/$MXPID/task/$s" ] ||
			fail "root 'thread $s': no task $s in /proc/$MXPID/task"
	done <"$CT/roots"
	say "  --threads: $COLLAPSED_SUMMARY; exact stack per thread:$shares"
	stop_matrix
}

# matrix-dump: 'rbflame dump -p PID': every thread's block, exactly.
check_matrix_dump() {
	local name tid got want
	start_matrix
	run_rbflame dump 30 dump -p "$MXPID"
	expect_rc 0 "rbflame dump -p PID"
	check_dump "$CT/dump.out" 2>"$CT/check.msg" || {
		cat "$CT/check.msg" >&2
		fail "rbflame dump: malformed output"
	}
	for name in $MX_THREADS; do
		tid=${TID[$name]}
		want=$(expected_block "$name" "$tid")
		got=$(dump_block "$CT/dump.out" "$tid")
		if [ "$got" != "$want" ]; then
			printf 'expected:\n%s\ngot:\n%s\n' "$want" \
				"${got:-(no block for tid $tid)}" >&2
			fail "rbflame dump: thread $name (tid $tid) differs"
		fi
	done
	say "  dump: $(grep -c '^thread ' "$CT/dump.out") threads, every block exact"
	stop_matrix
}

# matrix-locals: 'rbflame dump -p PID --locals' on locals.rb, whose threads
# park holding locals of every kind: each value exact
# (tests/matrix/check-locals.pl), the GVL holder's frames marked stale and
# no other's, the fixture left running and untraced; and the JSON of the
# same dump valid against doc/dump-json.schema.json.
check_matrix_locals() {
	start_fixture locals locals.rb
	run_rbflame locals 30 dump -p "$TPID" --locals
	expect_rc 0 "rbflame dump -p PID --locals"
	perl "$top_srcdir/tests/matrix/check-locals.pl" "$CT/locals.out" \
		>"$CT/check.txt" || {
		cat "$CT/check.txt" "$CT/locals.out" >&2
		fail "rbflame dump --locals: values differ from the fixture's"
	}
	run_rbflame json 30 dump -p "$TPID" --locals --json
	expect_rc 0 "rbflame dump -p PID --locals --json"
	python3 "$top_srcdir/tests/ruby/validate-json.py" \
		"$top_srcdir/doc/dump-json.schema.json" "$CT/json.out" \
		>"$CT/valid.txt" || {
		cat "$CT/valid.txt" >&2
		fail "rbflame dump --locals --json: not valid"
	}
	say "  locals: $(cat "$CT/check.txt"); JSON valid"
	wait_untraced "$TPID" 2
	alive "$TPID" || fail "the fixture died"
	kill_fixture "$TPID"
}

# matrix-vm: how the VM was found, exported ruby_current_vm_ptr (2.7, 3.1)
# or the structural search (Debian's 3.3 and 3.4 export nothing useful);
# then the structural search forced on every version
# (RBFLAME_NO_VM_EXPORT=1): a dump whose stacks are the expected ones
# (compared by thread name, so that this check is about the VM alone).
check_matrix_vm() {
	local vm want_vm lib name want=
	start_matrix
	# The self-built Ruby, static and unstripped, keeps the symbol in
	# its .symtab, whatever its version.
	case $tag:$RVERSION in
	selfbuilt:* | *:2.7.* | *:3.1.*) want_vm=exported ;;
	*) want_vm="found by search" ;;
	esac
	run_rbflame debug 30 --debug -p "$MXPID" -s 0.2 -r 50 \
		-o "$CT/debug.folded"
	expect_rc 0 "rbflame --debug -p PID"
	vm=$(sed -n 's/.*: vm 0x[0-9a-f]* (\([a-z ]*\)).*/\1/p' "$CT/debug.err")
	if [ "$vm" != "$want_vm" ]; then
		lib=$(grep -o '/[^ ]*libruby[^ ]*\.so[^ ]*' "/proc/$MXPID/maps" |
			head -n 1)
		fail "VM ${vm:-not found}, want $want_vm" \
			"(ruby_current_vm_ptr in $lib's dynsym:" \
			"$(readelf --dyn-syms -W "$lib" 2>/dev/null |
				grep -c ' ruby_current_vm_ptr$' || true))"
	fi
	export RBFLAME_NO_VM_EXPORT=1
	# 1 s: the self-built 3.3's DWARF (a 38 MB executable) takes 0.2 s
	# to read before the search starts; -s 0.2 ended before the VM was
	# found at load 13.
	run_rbflame search 30 --debug -p "$MXPID" -s 1 -r 50 \
		-o "$CT/search.folded"
	expect_rc 0 "RBFLAME_NO_VM_EXPORT=1 rbflame --debug -p PID"
	grep -q ': vm 0x[0-9a-f]* (found by search)' "$CT/search.err" ||
		fail "RBFLAME_NO_VM_EXPORT=1: the structural search found no VM"
	run_rbflame search-dump 30 dump -p "$MXPID"
	unset RBFLAME_NO_VM_EXPORT
	expect_rc 0 "RBFLAME_NO_VM_EXPORT=1 rbflame dump -p PID"
	for name in $(echo "$MX_THREADS" | tr ' ' '\n' | sort); do
		want="$want$(expected_block "$name" 0)"$'\n\n'
	done
	printf '%s' "$want" >"$CT/want.dump"
	by_name "$CT/want.dump" >"$CT/want.byname" ||
		fail "cannot build the expected stacks by name"
	[ "$(grep -c '^thread ' "$CT/want.byname")" = 5 ] ||
		fail "the expected stacks by name are not 5 threads"
	by_name "$CT/search-dump.out" >"$CT/got.byname" ||
		fail "cannot read the dump by name"
	if ! cmp -s "$CT/want.byname" "$CT/got.byname"; then
		diff -u "$CT/want.byname" "$CT/got.byname" >&2 || true
		fail "dump with the VM found by search: stacks differ"
	fi
	say "  VM $vm; structural search forced: found, every stack exact"
	stop_matrix
}

# matrix-forked: a forked child is read with its own thread ids (Ruby
# 3.0-3.2 keep the parent's in the VM; glibc's struct pthread has the
# child's).
check_matrix_forked() {
	local child s l
	local re='\(([0-9]+) ticks at [^)]*\), [0-9]+ late ticks, ([0-9]+) failed reads; threads stopped ([0-9.]+) us p50'
	FX=forked.rb
	start_fixture forked forked.rb thread 60
	child=$(sed -n 's/^child //p' "$CT/forked.log")
	[ -n "$child" ] || fail "forked.rb printed no child pid"
	track "$child"
	run_rbflame forked 30 --threads -p "$child" -s 2 -r 200 \
		-o "$CT/forked.folded"
	expect_rc 0 "rbflame --threads -p CHILD -s 2 -r 200"
	assert_collapsed "$CT/forked.folded" "forked child"
	s=$(expand "thread $child \"main\";block in Parent#run {run-thread};Parent#fork_child {fork};Kernel#fork {fork};block in Parent#fork_child {fork};Child#spin {spin}")
	assert_stacks "$CT/forked.folded" 95 "forked child $child" "$s@GC?@"
	l=$(tail -n 1 "$CT/forked.err")
	[[ $l =~ $re ]] || fail "no summary line: $l"
	perl -e 'exit !($ARGV[0] > 0)' "${BASH_REMATCH[3]}" ||
		fail "forked child: nothing stopped (the GVL holder's tid is not one of the child's)"
	[ "$((BASH_REMATCH[2] * 100))" -lt "${BASH_REMATCH[1]}" ] ||
		fail "forked child: ${BASH_REMATCH[2]} failed reads in ${BASH_REMATCH[1]} ticks"
	say "  forked: $SHARE at 'thread CHILD \"main\"'; stopped ${BASH_REMATCH[3]} us p50, ${BASH_REMATCH[2]} failed reads in ${BASH_REMATCH[1]} ticks"
	kill_fixture "$child"
}

# Fields of the self-built Ruby's DWARF layout allowed to differ from the
# generated $SELF_LAYOUT (Debian's configure options, on the same source):
# FIELD -> why. Identity fields (version, source) are not compared.
declare -A LAYOUT_DIFFS=(
	[yjit]="built with --enable-yjit, where Debian's 3.3 has --disable-yjit"
)

# layout_unexpected FILE: the fields of a 'dump --layout' output whose
# two columns differ and LAYOUT_DIFFS does not name, on one line.
layout_unexpected() {
	local f out=
	for f in $(awk '!/^#/ && $1 != "source" && $2 != $3 { print $1 }' "$1"); do
		[ -n "${LAYOUT_DIFFS[$f]:-}" ] || out="$out $f"
	done
	echo "${out# }"
}

# matrix-layout: the DWARF layout against the generated one.
check_matrix_layout() {
	local diffs n
	# Not forced: DWARF must win over the generated layout by itself.
	unset RBFLAME_LAYOUT
	start_matrix
	run_rbflame layout 30 dump -p "$MXPID" --layout
	expect_rc 0 "rbflame dump -p PID --layout"
	grep -q '^# Ruby [0-9.]* in process [0-9]*, read with the DWARF layout$' \
		"$CT/layout.out" ||
		fail "dump --layout: not read with the DWARF layout: $(head -n 2 "$CT/layout.out")"
	[ ! -s "$CT/layout.err" ] ||
		fail "dump --layout: messages (a disagreement?): $(cat "$CT/layout.err")"
	n=$(grep -vc '^#' "$CT/layout.out")
	[ "$n" -gt 200 ] || fail "dump --layout: only $n fields"
	# Every field: DWARF column = built-in column, identity excepted.
	diffs=$(awk '!/^#/ && $1 != "source" && $2 != $3 { print $1 }' \
		"$CT/layout.out")
	local f bad
	for f in $diffs; do
		[ -z "${LAYOUT_DIFFS[$f]:-}" ] ||
			say "  layout: $f differs, as expected: ${LAYOUT_DIFFS[$f]}"
	done
	bad=$(layout_unexpected "$CT/layout.out")
	if [ -n "$bad" ]; then
		grep -E "^($(echo $bad | tr ' ' '|')) " "$CT/layout.out" |
			sed 's/^/  field dwarf built-in: /' >&2
		fail "DWARF layout differs from the generated $SELF_LAYOUT at: $bad"
	fi
	grep -q ' - ' "$CT/layout.out" &&
		fail "dump --layout: a layout is missing: $(grep -m1 ' - ' "$CT/layout.out")"
	# The profile says which layout it used.
	run_rbflame debug 30 --debug -p "$MXPID" -s 0.2 -r 50 \
		-o "$CT/debug.folded"
	expect_rc 0 "rbflame --debug -p PID"
	grep -q ', layout DWARF of /' "$CT/debug.err" ||
		fail "--debug: no 'layout DWARF of ...' line: $(grep ': ruby ' "$CT/debug.err")"
	say "  layout: DWARF ($(sed -n 's/^source \(DWARF_of_[^ ]*\) .*/\1/p' "$CT/layout.out" | tr _ ' ')) = generated $SELF_LAYOUT, $n fields${diffs:+ (expected differences: $diffs)}"
	stop_matrix
}

# by_name_want: the expected stacks of the matrix fixture by thread name
# (see by_name), in $CT/want.byname.
by_name_want() {
	local name want=
	for name in $(echo "$MX_THREADS" | tr ' ' '\n' | sort); do
		want="$want$(expected_block "$name" 0)"$'\n\n'
	done
	printf '%s' "$want" >"$CT/want.dump"
	by_name "$CT/want.dump" >"$CT/want.byname" ||
		fail "cannot build the expected stacks by name"
}

# matrix-debuglink: the DWARF in a separate file found by .gnu_debuglink.
check_matrix_debuglink() {
	local d=$CT/bin diffs
	mkdir -p "$d"
	objcopy --only-keep-debug "$RUBYBIN" "$d/ruby.debug" ||
		fail "objcopy --only-keep-debug $RUBYBIN"
	objcopy --strip-debug --add-gnu-debuglink="$d/ruby.debug" \
		"$RUBYBIN" "$d/ruby" || fail "objcopy --strip-debug $RUBYBIN"
	if readelf -S "$d/ruby" | grep -q '\.debug_info'; then
		fail "the stripped copy still has .debug_info"
	fi
	RUBYCMD=("$d/ruby")
	start_matrix
	run_rbflame layout 30 dump -p "$MXPID" --layout
	expect_rc 0 "rbflame dump -p PID --layout (stripped, debuglink)"
	grep -q "^source DWARF_of_$d/ruby.debug " "$CT/layout.out" ||
		fail "layout not from $d/ruby.debug: $(grep '^#\|^source' "$CT/layout.out")"
	diffs=$(layout_unexpected "$CT/layout.out")
	[ -z "$diffs" ] ||
		fail "the debug file's layout differs from $SELF_LAYOUT at: $diffs"
	run_rbflame dump 30 dump -p "$MXPID"
	expect_rc 0 "rbflame dump -p PID (stripped, debuglink)"
	by_name_want
	by_name "$CT/dump.out" >"$CT/got.byname" ||
		fail "cannot read the dump by name"
	if ! cmp -s "$CT/want.byname" "$CT/got.byname"; then
		diff -u "$CT/want.byname" "$CT/got.byname" >&2 || true
		fail "dump of the stripped Ruby: stacks differ"
	fi
	say "  debuglink: stripped copy, layout from ${d##*/}/ruby.debug = generated $SELF_LAYOUT; every stack exact"
	stop_matrix
}

# ---- thread states: states.rb -------------------------------------------------

# start_states MODE: tests/matrix/fixtures/states.rb in MODE, output in
# $CT/states.log; sets SPID.
start_states() {
	local got
	FX=states.rb
	start_fixture states states.rb "$1"
	SPID=$TPID
	got=$(sed -n 's/^version //p' "$CT/states.log")
	[ "$got" = "$RVERSION" ] || fail "states.rb runs Ruby $got, want $RVERSION"
}

# stop_states: rbflame left the fixture running and untraced; kill it.
stop_states() {
	wait_untraced "$SPID" 2
	alive "$SPID" || fail "states.rb died"
	kill_fixture "$SPID"
}

# gc_line N: waits for the Nth 'gc MS S' line of 'states.rb gc' (its
# answer to the Nth SIGUSR1) and prints it.
gc_line() {
	local n=500
	until [ "$(grep -c '^gc ' "$CT/states.log")" -ge "$1" ]; do
		alive "$SPID" || fail "states.rb gc died"
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "no answer to SIGUSR1 from states.rb gc in 10 s"
		sleep 0.02
	done
	grep '^gc ' "$CT/states.log" | sed -n "${1}p"
}

# gc_figures FOLDED MS CPU: sets G, T (samples in the collector, all),
# MARK, SWEEP (those with that phase), PROF and RUBY (the collector's
# share in the profile, and of CPU seconds CPU by Ruby's MS milliseconds)
# and OK (1 when they are within TOL points, default 5).
gc_figures() {
	local tol=${4:-5}
	read -r G T <<<"$(share "$1" \
		';\(garbage collection\)(;\((marking|sweeping)\))?$')"
	read -r MARK _ <<<"$(share "$1" ';\(garbage collection\);\(marking\)$')"
	read -r SWEEP _ <<<"$(share "$1" ';\(garbage collection\);\(sweeping\)$')"
	read -r PROF RUBY OK <<<"$(perl -e '
		my ($g, $t, $ms, $cpu, $tol) = @ARGV;
		my $p = $t > 0 ? 100 * $g / $t : 0;
		my $r = $cpu > 0 ? 100 * $ms / 1000 / $cpu : -100;
		printf "%.1f %.1f %d\n", $p, $r, abs($p - $r) <= $tol;
	' "$G" "$T" "$2" "$3" "$tol")"
}

# matrix-gc: the (garbage collection) share against Ruby's own account.
check_matrix_gc() {
	local t0=$SECONDS rate=500 round=0 k=0 kept=0 gc_ms=0 cpu=0
	local all_ms=0 all_cpu=0 ref clock g0 c0 g1 c1 sum ticks late
	local rounds='' late_rounds=''
	local -a files=() all=()
	start_states gc
	ref=$(sed -n 's/^reference //p' "$CT/states.log")
	clock=$(sed -n 's/^clock //p' "$CT/states.log")
	[ -n "$ref" ] && [ -n "$clock" ] ||
		fail "states.rb gc named no reference or clock"
	while [ $((SECONDS - t0)) -lt 20 ]; do
		round=$((round + 1))
		kill -USR1 "$SPID"
		k=$((k + 1))
		read -r _ g0 c0 <<<"$(gc_line $k)"
		run_rbflame "gc$round" 30 -p "$SPID" -s 3 -r "$rate" \
			-o "$CT/gc$round.folded"
		kill -USR1 "$SPID"
		k=$((k + 1))
		read -r _ g1 c1 <<<"$(gc_line $k)"
		expect_rc 0 "rbflame -p PID -s 3 -r $rate (round $round)"
		all+=("$CT/gc$round.folded")
		all_ms=$((all_ms + g1 - g0))
		all_cpu=$(perl -e 'print $ARGV[0] + $ARGV[2] - $ARGV[1]' \
			"$all_cpu" "$c0" "$c1")
		sum=$(tail -n 1 "$CT/gc$round.err")
		read -r ticks late <<<"$(printf '%s\n' "$sum" |
			sed -n 's/.*(\([0-9]*\) ticks at [^)]*), \([0-9]*\) late ticks.*/\1 \2/p')"
		[ -n "$late" ] || fail "no tick counts on the summary line: $sum"
		if [ $((late * 20)) -gt $((ticks + late)) ]; then
			late_rounds="$late_rounds $rate Hz: $late of $((ticks + late)) ticks late;"
			# Half the rate; 125 Hz at once when rbflame kept under
			# 375 ticks a second, too few to keep 250 with a margin.
			if [ "$rate" -gt 250 ] && [ "$ticks" -ge 1125 ]; then
				rate=250
			else
				rate=125
			fi
		else
			rounds="$rounds $rate Hz,"
			gc_ms=$((gc_ms + g1 - g0))
			cpu=$(perl -e 'print $ARGV[0] + $ARGV[2] - $ARGV[1]' \
				"$cpu" "$c0" "$c1")
			files+=("$CT/gc$round.folded")
			cat "${files[@]}" >"$CT/gc.folded"
			read -r _ kept <<<"$(share "$CT/gc.folded" '')"
			[ "$kept" -lt 1000 ] || break
		fi
	done
	# Every round, late ones too: lateness skews the share by points
	# (see above), it never hides the collector or one of its phases.
	cat "${all[@]}" >"$CT/all.folded"
	gc_figures "$CT/all.folded" "$all_ms" "$all_cpu"
	if [ "$G" = 0 ]; then
		printf 'GC %s%% vs %s %s%%' "$PROF" "$ref" "$RUBY" \
			>"$CT/../state-gc"
		fail "no sample in the collector in $round round(s), $T" \
			"samples; $ref gives it $RUBY% of $(printf '%.2f' "$all_cpu") s $clock"
	fi
	if [ "$MARK" = 0 ] || [ "$SWEEP" = 0 ]; then
		fail "GC phases in $round round(s): $MARK samples marking," \
			"$SWEEP sweeping of $G in the collector; want both"
	fi
	if [ "$kept" -lt 1000 ]; then
		# Too busy a machine (CI builds the other Rubies meanwhile)
		# to sample on time: judge every round, late ones too,
		# within 8 points: lateness skews the share by a few (seen:
		# -4.9 on 3.1.7 at load 5), which must not fail a right
		# reader; a wrong objspace reads 0% or a constant, far off
		# (and the collector with both phases is checked above).
		gc_figures "$CT/all.folded" "$all_ms" "$all_cpu" 8
		printf 'GC %s%% vs %s %s%% (late rounds included, load %s)' \
			"$PROF" "$ref" "$RUBY" "$(cut -d' ' -f1 /proc/loadavg)" \
			>"$CT/../state-gc"
		say "  gc: only $kept samples from rounds on schedule (late" \
			"rounds:$late_rounds load $(cut -d' ' -f1-3 /proc/loadavg));" \
			"every round: (garbage collection) $G/$T samples =" \
			"$PROF% (marking $(pct "$MARK" "$T")%, sweeping" \
			"$(pct "$SWEEP" "$T")%); $ref: $(printf '%.2f' "$all_cpu")" \
			"s $clock, $RUBY% (want within 8 points, late rounds" \
			"included) (in $((SECONDS - t0)) s)"
		[ "$OK" = 1 ] ||
			fail "GC share $PROF% in the profile, $RUBY% by $ref" \
				"(every round, late ones included)"
		stop_states
		return
	fi
	gc_figures "$CT/gc.folded" "$gc_ms" "$cpu"
	printf 'GC %s%% vs %s %s%%' "$PROF" "$ref" "$RUBY" >"$CT/../state-gc"
	say "  gc: (garbage collection) $G/$T samples = $PROF% (marking" \
		"$(pct "$MARK" "$T")%, sweeping $(pct "$SWEEP" "$T")%); $ref:" \
		"$gc_ms ms of $(printf '%.2f' "$cpu") s $clock = $RUBY% (want" \
		"within 5 points); 3 s rounds counted:${rounds%,}${late_rounds:+; late:${late_rounds%;}}" \
		"(in $((SECONDS - t0)) s)"
	[ "$OK" = 1 ] || fail "GC share $PROF% in the profile, $RUBY% by $ref"
	stop_states
}

# states_tids: TID[NAME] for the threads of 'states.rb threads'.
states_tids() {
	local name
	for name in mx-spin-a mx-spin-b mx-pop mx-sleep; do
		TID[$name]=$(task_named "$SPID" "$name")
	done
}

# matrix-gvl: two spinners, each waiting for the GVL about half the time.
check_matrix_gvl() {
	local t0=$SECONDS name tid s n tot p sum=0 line=
	start_states threads
	states_tids
	run_rbflame gvl 30 --threads -p "$SPID" -s 3 -r 500 \
		-o "$CT/gvl.folded"
	expect_rc 0 "rbflame --threads -p PID -s 3 -r 500"
	assert_collapsed "$CT/gvl.folded" "--threads (states.rb threads)"
	s=$(expand 'block in Object#hire {hire-spin};Object#spin {spin}')
	for name in mx-spin-a mx-spin-b; do
		tid=${TID[$name]}
		assert_stacks "$CT/gvl.folded" 95 "thread $name (tid $tid)" \
			--within "thread $tid \"$name\";" \
			"thread $tid \"$name\";$s@GC?@" \
			"thread $tid \"$name\";$s;(waiting for GVL)"
		read -r n tot <<<"$(share "$CT/gvl.folded" \
			';\(waiting for GVL\)$' "^thread $tid \"")"
		[ "$tot" -ge 100 ] ||
			fail "thread $name: only $tot samples, want >= 100"
		p=$(pct "$n" "$tot")
		line="$line $name $n/$tot = $p%,"
		perl -e 'exit !($ARGV[0] >= 30 && $ARGV[0] <= 70)' "$p" ||
			fail "thread $name waits for the GVL $p% of its samples" \
				"($n/$tot), want 30-70%"
		sum=$(perl -e 'print $ARGV[0] + $ARGV[1]' "$sum" "$p")
	done
	printf 'GVL waiting%s' "${line%,}" | sed 's| [0-9]*/[0-9]* = | |g' \
		>"$CT/../state-gvl"
	say "  gvl: waiting for the GVL:${line%,}; together $sum% (want" \
		"30-70% each, 90-110% together);" \
		"$(sed -n 's/.* (\([0-9]* ticks at [^)]*\)), \([0-9]*\) late.*/\1, \2 late/p' "$CT/gvl.err")" \
		"(in $((SECONDS - t0)) s)"
	perl -e 'exit !($ARGV[0] >= 90 && $ARGV[0] <= 110)' "$sum" ||
		fail "the spinners wait for the GVL $sum% together, want 90-110%:" \
			"one of them holds it at any tick"
	stop_states
}

# matrix-blocked: a thread in Thread::Queue#pop and one in Kernel#sleep are
# (blocked), while two others contend for the GVL.
check_matrix_blocked() {
	local t0=$SECONDS e name label tid at s line=
	start_states threads
	states_tids
	run_rbflame blocked 30 --threads -p "$SPID" -s 1 -r 400 \
		-o "$CT/blocked.folded"
	expect_rc 0 "rbflame --threads -p PID -s 1 -r 400"
	assert_collapsed "$CT/blocked.folded" "--threads (states.rb threads)"
	for e in mx-pop:Thread::Queue#pop mx-sleep:Kernel#sleep; do
		name=${e%%:*} label=${e#*:}
		tid=${TID[$name]}
		at=$(sed -n "s/^at $name //p" "$CT/states.log")
		[ -n "$at" ] || fail "states.rb did not say where $name is"
		s="thread $tid \"$name\";$(expand "block in Object#hire {hire-${name#mx-}}");$label ($at);(blocked)"
		assert_stacks "$CT/blocked.folded" 95 "thread $name (tid $tid)" \
			--within "thread $tid \"$name\";" "$s"
		line="$line $label ${SHARE%%$'\n'*},"
	done
	printf 'blocked%s' "${line%,}" | sed 's| [0-9]*/[0-9]* = | |g' \
		>"$CT/../state-blocked"
	say "  blocked:${line%,} of their samples in their exact stack ending in (blocked) (in $((SECONDS - t0)) s)"
	stop_states
}

# ---- M:N threads: RUBY_MN_THREADS=1 on 3.3 and 3.4 ----------------------------

# mn_threads FOLDED NAME...: per thread NAME of a --threads profile, one
# line 'NAME ROOTS TOTAL RUN WAIT BLOCKED NOGVL' (tab-separated): ROOTS its distinct root
# frames ('|'-joined), then its samples by state (RUN: no state leaf).
# Fails on a root of no thread named, and on a 'thread 0' root.
mn_threads() {
	perl -e '
		my ($f, @names) = @ARGV;
		my %want = map { $_ => 1 } @names;
		my (%roots, %n);
		open(my $fh, "<", $f) or die "open $f: $!\n";
		while (<$fh>) {
			chomp;
			/^(.*) (\d+)$/ or die "bad line: $_\n";
			my ($s, $c) = ($1, $2);
			my ($root) = split /;/, $s;
			$root =~ /^thread (\S+) "((?:[^"\\]|\\.)*)"$/
			    or die "root not a thread: $root\n";
			my ($id, $name) = ($1, $2);
			die "root thread 0: $root\n" if $id eq "0";
			die "a thread not in the fixture: $root\n"
			    unless $want{$name};
			$roots{$name}{$root} = 1;
			my $st = $s =~ /;\(waiting for GVL\)$/ ? 1
			    : $s =~ /;\(blocked\)$/ ? 2
			    : $s =~ /;\(running without GVL\)$/ ? 3
			    : $s =~ /;\((garbage collection|marking|sweeping)\)$/ ? 0
			    : 0;
			$n{$name}[0] += $c;
			$n{$name}[1 + $st] += $c;
		}
		for my $name (@names) {
			my @r = sort keys %{ $roots{$name} || {} };
			my @c = map { $_ || 0 } @{ $n{$name} || [] }[0 .. 4];
			print join("\t", $name, join("|", @r) || "-", @c), "\n";
		}
	' "$@" >"$CT/mn.threads" 2>"$CT/mn.msg" || {
		cat "$CT/mn.msg" >&2
		fail "${1##*/}: $(cat "$CT/mn.msg")"
	}
}

# mn_judge FOLDED MAIN_ROOT SLEEPERS SPINNERS: each thread of the fixture
# one root over the whole profile ('thread mnN "NAME"', N distinct; the
# main thread MAIN_ROOT), every thread sampled at >= 95% of the main
# thread's samples (none lost to a second root), the sleepers (blocked)
# in >= 95% of their samples and never running, the spinners never
# blocked, each running 5-95% of its samples (the GVL's holder) and the
# spinners' running shares adding up to 90-110% (one holds it at any
# tick; the main thread sleeps). Sets MN_LINE.
mn_judge() {
	local f=$1 main=$2 sleepers=$3 spinners=$4 name roots tot run wait blk nogvl
	local mtot= ids=' ' sum=0 p
	mn_threads "$f" main $sleepers $spinners
	MN_LINE=
	while IFS=$'\t' read -r name roots tot run wait blk nogvl; do
		case $roots in
		*'|'*) fail "thread $name split into roots: $roots" ;;
		-) fail "thread $name: no samples" ;;
		esac
		if [ "$name" = main ]; then
			[ "$roots" = "$main" ] ||
				fail "main thread rooted at $roots, want $main"
			mtot=$tot
			continue
		fi
		[[ $roots =~ ^thread\ mn([0-9]+)\ \" ]] ||
			fail "thread $name rooted at $roots, want 'thread mnN \"$name\"'"
		case $ids in *" ${BASH_REMATCH[1]} "*)
			fail "thread $name: number ${BASH_REMATCH[1]} given twice" ;;
		esac
		ids="$ids${BASH_REMATCH[1]} "
		[ "$((tot * 100))" -ge "$((mtot * 95))" ] ||
			fail "thread $name: $tot samples, main $mtot: some went elsewhere"
		case " $sleepers " in
		*" $name "*)
			[ "$run" = 0 ] && [ "$nogvl" = 0 ] ||
				fail "parked thread $name running in $run samples," \
					"running without GVL in $nogvl, of $tot"
			[ "$((blk * 100))" -ge "$((tot * 95))" ] ||
				fail "parked thread $name (blocked) in $blk of $tot samples, want >= 95%"
			MN_LINE="$MN_LINE $name ${roots%% \"*} blocked $blk/$tot,"
			;;
		*)
			[ "$blk" = 0 ] && [ "$nogvl" = 0 ] ||
				fail "spinner $name blocked in $blk samples," \
					"running without GVL in $nogvl, of $tot"
			p=$(pct "$run" "$tot")
			perl -e 'exit !($ARGV[0] >= 5 && $ARGV[0] <= 95)' "$p" ||
				fail "spinner $name running $p% of its samples ($run/$tot)," \
					"want 5-95%: parked ones read as running, or never run"
			sum=$(perl -e 'print $ARGV[0] + $ARGV[1]' "$sum" "$p")
			MN_LINE="$MN_LINE $name ${roots%% \"*} running $run/$tot = $p%,"
			;;
		esac
	done <"$CT/mn.threads"
	perl -e 'exit !($ARGV[0] >= 90 && $ARGV[0] <= 110)' "$sum" ||
		fail "the spinners run $sum% together, want 90-110%:" \
			"one holds the GVL at any tick"
	MN_LINE="${MN_LINE%,}; spinners running $sum% together"
}

# mn_dump PID: 'rbflame dump -p PID' numbers each thread as the profile
# in $CT/mn-*.folded did (name for name), the main thread by its pid, no
# 'thread 0'.
mn_dump() {
	local f=$1 pid=$2 name n want
	run_rbflame mndump 30 dump -p "$pid"
	expect_rc 0 "rbflame dump -p PID (M:N)"
	check_dump "$CT/mndump.out"
	! grep -q '^thread 0 ' "$CT/mndump.out" ||
		fail "dump: a thread reads 'thread 0'"
	grep -q "^thread $pid \"main\"" "$CT/mndump.out" ||
		fail "dump: no 'thread $pid \"main\"'"
	while read -r n name; do
		want=$(sed -n "s/^\(thread mn[0-9]* \"$name\"\);.*/\1/p" "$f" | head -n 1)
		[ "thread $n \"$name\"" = "$want" ] ||
			fail "dump: thread $name is $n, the profile's root is '$want'"
	done < <(sed -n 's/^thread \(mn[0-9]*\) "\([^"]*\)".*/\1 \2/p' "$CT/mndump.out")
}

# mn_native: --native on 'states.rb threads' (M:N, $SPID): the parked
# sleepers have no native stack, yet each is sampled as often as the
# main thread, in one root, (blocked); under 1% of the reads fail.
# Sets MN_LINE.
mn_native() {
	local re='\(([0-9]+) ticks at [^)]*\), [0-9]+ late ticks, ([0-9]+) failed reads'
	local ticks failed name roots tot run wait blk nogvl mtot=
	run_rbflame mnnative 30 --threads --native -p "$SPID" -s 2 -r 200 \
		-o "$CT/mn-native.folded"
	expect_rc 0 "rbflame --threads --native -p PID -s 2 -r 200 (M:N)"
	assert_collapsed "$CT/mn-native.folded" "--threads --native (M:N)"
	[[ $(cat "$CT/mnnative.err") =~ $re ]] ||
		fail "--native: no summary line in mnnative.err"
	ticks=${BASH_REMATCH[1]} failed=${BASH_REMATCH[2]}
	[ "$((failed * 100))" -lt "$ticks" ] ||
		fail "--native: $failed failed reads in $ticks ticks, want < 1%"
	mn_threads "$CT/mn-native.folded" main mx-pop mx-sleep mx-spin-a mx-spin-b
	MN_LINE="$failed failed reads in $ticks ticks"
	while IFS=$'\t' read -r name roots tot run wait blk nogvl; do
		case $roots in
		*'|'*) fail "--native: thread $name split into roots: $roots" ;;
		-) fail "--native: thread $name: no samples" ;;
		esac
		[ "$name" = main ] && { mtot=$tot; continue; }
		[ "$((tot * 100))" -ge "$((mtot * 95))" ] ||
			fail "--native: thread $name: $tot samples, main $mtot"
		case $name in
		mx-pop | mx-sleep)
			[ "$((blk * 100))" -ge "$((tot * 95))" ] ||
				fail "--native: parked $name (blocked) in $blk of $tot samples"
			MN_LINE="$MN_LINE, $name blocked $blk/$tot"
			;;
		esac
	done <"$CT/mn.threads"
}

# matrix-mn: states.rb threads and matrix.rb with RUBY_MN_THREADS=1.
check_matrix_mn() {
	local t0=$SECONDS line
	RUBYCMD=(env RUBY_MN_THREADS=1 "${RUBYCMD[@]}")
	start_states threads
	run_rbflame mnstates 30 --threads -p "$SPID" -s 3 -r 200 \
		-o "$CT/mn-states.folded"
	expect_rc 0 "rbflame --threads -p PID -s 3 -r 200 (states.rb, M:N)"
	assert_collapsed "$CT/mn-states.folded" "--threads (states.rb threads, M:N)"
	mn_judge "$CT/mn-states.folded" "thread $SPID \"main\"" \
		"mx-pop mx-sleep" "mx-spin-a mx-spin-b"
	line="states.rb:$MN_LINE"
	mn_dump "$CT/mn-states.folded" "$SPID"
	mn_native
	line="$line; --native: $MN_LINE"
	stop_states
	FX=matrix.rb
	start_fixture matrix matrix.rb
	MXPID=$TPID
	grep -q '^description .* +MN ' "$CT/matrix.log" ||
		fail "matrix.rb does not run M:N: $(grep '^description' "$CT/matrix.log")"
	# The herald that printed "ready" ends; under M:N it has no task of
	# its own for start_matrix's wait, so it was still printing in one
	# CI run's profile: wait until a dump no longer lists it.
	local n=50
	for (( ; ; )); do
		run_rbflame mnherald 30 dump -p "$MXPID"
		expect_rc 0 "rbflame dump -p PID (M:N, the herald's end)"
		grep -q '"mx-herald"' "$CT/mnherald.out" || break
		n=$((n - 1))
		[ "$n" -gt 0 ] || fail "thread mx-herald still there after 10 s"
		sleep 0.2
	done
	run_rbflame mnmatrix 30 --threads -p "$MXPID" -s 3 -r 200 \
		-o "$CT/mn-matrix.folded"
	expect_rc 0 "rbflame --threads -p PID -s 3 -r 200 (matrix.rb, M:N)"
	assert_collapsed "$CT/mn-matrix.folded" "--threads (matrix.rb, M:N)"
	mn_judge "$CT/mn-matrix.folded" "thread $MXPID \"main\"" \
		"mx-nap" "mx-cruise mx-launch mx-nested"
	line="$line; matrix.rb:$MN_LINE"
	mn_dump "$CT/mn-matrix.folded" "$MXPID"
	wait_untraced "$MXPID" 2
	alive "$MXPID" || fail "matrix.rb died"
	kill_fixture "$MXPID"
	say "  mn: $line (in $((SECONDS - t0)) s)"
}

# ---- the adversarial target: adversary.rb ------------------------------------

# usr1_line N: waits for adversary.rb's answer to its Nth SIGUSR1 ('usr1 N
# progress ROUNDS') and prints ROUNDS.
usr1_line() {
	wait_line "$CT/adv.log" "^usr1 $1 progress [0-9]+\$" 10 "$TPID"
	sed -n "s/^usr1 $1 progress \([0-9]*\)\$/\1/p" "$CT/adv.log" | tail -n 1
}

# adv_block DUMP N: the frames of the Nth thread of a dump (in the VM's
# order, main first: the parked threads' names are corrupted too).
adv_block() {
	awk -v n="$2" '/^thread / { k++; next } /^$/ { next } k == n' "$1"
}

# matrix-adversary: adversary.rb corrupts, through Fiddle, the frames of
# 17 parked threads, an iseq and a class name it never uses again (see
# the fixture), and each parked thread's block in a dump changes (all 18
# threads read whole before); dump --locals and --locals --json read all
# 18 threads, the JSON parses; then 'rbflame -p PID -s 30 -r 1000' on it,
# under timeout(1) (60 s) and /usr/bin/time: exit 0, peak RSS under 100 MiB, failed reads
# counted on the summary line (at least one a tick: every tick meets the
# unreadable threads), a profile whose samples not (blocked) are the main
# thread's Object#toil (>= 80%), no thread left traced or stopped; the target
# alive, counting SIGUSR1 (5 sent during the run, one after) and making
# progress after rbflame left. Then 3 s with --nonblocking: failed reads
# counted the same (at least one a tick).
check_matrix_adversary() {
	local lay=$TDIR/adversary.layout col k tot got sent p0 p1 rc sum rss unread
	local re='\(([0-9]+) ticks at ([0-9.]+) Hz\), ([0-9]+) late ticks, ([0-9]+) failed reads'
	command -v /usr/bin/time >/dev/null || fail "no /usr/bin/time (scripts/deps installs time)"
	rm -f "$ROOT$lay"
	FX=adversary.rb
	start_fixture adv adversary.rb "$lay"
	got=$(sed -n 's/^version //p' "$CT/adv.log")
	[ "$got" = "$RVERSION" ] || fail "adversary.rb runs Ruby $got, want $RVERSION"
	# Before: every thread's stack read (18 blocks, none unreadable).
	run_rbflame advbefore 30 dump -p "$TPID"
	expect_rc 0 "rbflame dump -p PID (before the corruption)"
	if [ "$(grep -c '^thread ' "$CT/advbefore.out")" != 18 ] ||
		grep -q '(unreadable)' "$CT/advbefore.out"; then
		fail "before the corruption: want 18 readable threads, got: $(grep -A1 '^thread ' "$CT/advbefore.out")"
	fi
	# The fixture corrupts with the layout rbflame reads it with.
	run_rbflame advlayout 30 dump -p "$TPID" --layout
	expect_rc 0 "rbflame dump -p PID --layout"
	col=3
	head -n 1 "$CT/advlayout.out" | grep -q 'read with the DWARF layout$' && col=2
	{ awk -v c=$col '!/^#/ { print $1, $c }' "$CT/advlayout.out"; echo end; } \
		>"$ROOT$lay.tmp" || fail "cannot write $ROOT$lay.tmp"
	mv "$ROOT$lay.tmp" "$ROOT$lay" || fail "cannot write $ROOT$lay"
	wait_line "$CT/adv.log" '^corrupted [0-9]+$' 30 "$TPID"
	# After: the corruptions are where rbflame reads: each parked
	# thread's block changed (unreadable, or descend_a's hostile label).
	run_rbflame advafter 30 dump -p "$TPID"
	expect_rc 0 "rbflame dump -p PID (after the corruption)"
	[ "$(grep -c '^thread ' "$CT/advafter.out")" = 18 ] ||
		fail "after the corruption: $(grep -c '^thread ' "$CT/advafter.out") threads in a dump, want 18"
	grep -q "^thread $TPID \"main\" gvl\$" "$CT/advafter.out" ||
		fail "after the corruption: the main thread is not the first, holding the GVL"
	for k in $(seq 2 18); do
		got=$(adv_block "$CT/advafter.out" "$k")
		[ -n "$got" ] || fail "after the corruption: no frames for thread $k"
		[ "$got" != "$(adv_block "$CT/advbefore.out" "$k")" ] ||
			fail "after the corruption: thread $k (adv-$((k - 2))) reads as before"
	done
	unread=$(grep -c '^  (unreadable)$' "$CT/advafter.out" || true)
	# dump --locals over the same garbage (issue 24): every thread, and
	# its --json a document that parses.
	run_rbflame advlocals 30 dump -p "$TPID" --locals
	expect_rc 0 "rbflame dump -p PID --locals (after the corruption)"
	[ "$(grep -c '^thread ' "$CT/advlocals.out")" = 18 ] ||
		fail "dump --locals after the corruption: $(grep -c '^thread ' "$CT/advlocals.out") threads, want 18"
	run_rbflame advjson 30 dump -p "$TPID" --locals --json
	expect_rc 0 "rbflame dump -p PID --locals --json (after the corruption)"
	perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
		@{$j->{threads}} == 18 or die scalar(@{$j->{threads}}) . " threads\n"' \
		<"$CT/advjson.out" ||
		fail "dump --locals --json after the corruption: not a document of 18 threads"
	kill -USR1 "$TPID"
	sent=1
	p0=$(usr1_line 1) || exit 1
	# 30 s at 1000 Hz; its peak RSS from /usr/bin/time (the maximum over
	# timeout and rbflame, its child).
	/usr/bin/time -v -o "$CT/adv.time" timeout -k 5 60 "$RBFLAME" \
		-p "$TPID" -s 30 -r 1000 -o "$CT/adv.folded" \
		>"$CT/adv.out" 2>"$CT/adv.err" </dev/null &
	RBPID=$!
	track "$RBPID"
	for k in 1 2 3 4 5; do
		sleep 5
		kill -USR1 "$TPID" || fail "the target is gone (SIGUSR1 $k)"
		sent=$((sent + 1))
		usr1_line "$sent" >/dev/null || exit 1
	done
	rc=0
	wait "$RBPID" || rc=$?
	case $rc in
	0) ;;
	124 | 137) fail "rbflame -p PID -s 30 -r 1000: still running after 60 s (killed)" ;;
	*) fail "rbflame -p PID -s 30 -r 1000: exit status $rc: $(tail -n 3 "$CT/adv.err")" ;;
	esac
	wait_untraced "$TPID" 2
	alive "$TPID" || fail "adversary.rb died"
	case $(cut -d' ' -f3 "/proc/$TPID/stat") in
	t | T) fail "adversary.rb left stopped" ;;
	esac
	kill -USR1 "$TPID"
	sent=$((sent + 1))
	p1=$(usr1_line "$sent") || exit 1
	[ "$p1" -gt "$p0" ] ||
		fail "adversary.rb made no progress: $p0 rounds at the first SIGUSR1, $p1 at the last"
	[ "$(grep -c '^usr1 ' "$CT/adv.log")" = "$sent" ] ||
		fail "adversary.rb counted $(grep -c '^usr1 ' "$CT/adv.log") SIGUSR1 lines, $sent sent"
	rss=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$CT/adv.time")
	[ -n "$rss" ] || fail "no peak RSS in $CT/adv.time"
	[ "$rss" -lt $((100 * 1024)) ] ||
		fail "rbflame's peak RSS $rss KiB, want under 100 MiB"
	sum=$(grep '^rbflame: [0-9]* samples' "$CT/adv.err" | tail -n 1)
	[[ $sum =~ $re ]] || fail "no summary line: $(tail -n 1 "$CT/adv.err")"
	[ "${BASH_REMATCH[4]}" -ge "${BASH_REMATCH[1]}" ] ||
		fail "${BASH_REMATCH[4]} failed reads in ${BASH_REMATCH[1]} ticks: $unread unreadable threads, want one a tick at least"
	assert_collapsed "$CT/adv.folded" "adversary.rb"
	# The parked threads that still read are sampled (blocked) too; the
	# rest is the main thread, spinning in Object#toil.
	read -r k tot <<<"$(share "$CT/adv.folded" '(^|;)Object#toil ' \
		'^(?!.*;\(blocked\)$)')"
	if [ "$tot" = 0 ] || [ "$((k * 100))" -lt "$((tot * 80))" ]; then
		fail "adversary.rb: $k of $tot samples not (blocked) in Object#toil, want >= 80%"
	fi
	say "  adversary: $(grep -c '^corrupt ' "$CT/adv.log") corruptions," \
		"$unread of 17 parked threads unreadable in a dump, the others changed;" \
		"${BASH_REMATCH[1]} ticks at ${BASH_REMATCH[2]} Hz (${BASH_REMATCH[3]} late)," \
		"${BASH_REMATCH[4]} failed reads; peak RSS $((rss / 1024)) MiB;" \
		"Object#toil $k/$tot samples not (blocked); target alive, untraced, $sent/$sent" \
		"SIGUSR1 counted, rounds $p0 -> $p1"
	# Read without stopping, an unreadable frame looks like one popped
	# under the read; one that stays so at the same control frame is
	# counted failed too, not kept as a stack cut under [torn].
	run_rbflame advnb 30 -p "$TPID" -s 3 -r 1000 --nonblocking \
		-o "$CT/advnb.folded"
	expect_rc 0 "rbflame -p PID -s 3 -r 1000 --nonblocking"
	wait_untraced "$TPID" 2
	sum=$(grep '^rbflame: [0-9]* samples' "$CT/advnb.err" | tail -n 1)
	[[ $sum =~ $re ]] || fail "--nonblocking: no summary line: $(tail -n 1 "$CT/advnb.err")"
	[ "${BASH_REMATCH[4]}" -ge "${BASH_REMATCH[1]}" ] ||
		fail "--nonblocking: ${BASH_REMATCH[4]} failed reads in ${BASH_REMATCH[1]} ticks: $unread unreadable threads, want one a tick at least"
	assert_collapsed "$CT/advnb.folded" "adversary.rb, --nonblocking"
	say "  adversary, --nonblocking: ${BASH_REMATCH[1]} ticks," \
		"${BASH_REMATCH[4]} failed reads;" \
		"$(grep -cE ';\[torn\](;\([^;]*\))* [0-9]+$' "$CT/advnb.folded" || true) stacks under [torn]"
	kill_fixture "$TPID"
}

# ---- --native: native frames woven into the Ruby stacks ---------------------

# ext_headers: the directory under which this Ruby's headers are (RbConfig's
# rubyhdrdir): its chroot when it has rubyX.Y-dev, else rubyX.Y-dev of the
# interpreter's exact version unpacked under $T (its .deb fetched by the
# chroot's apt-get download once, kept in $RBFLAME_CACHE/debs); "" for the
# host. Prints it.
ext_headers() {
	local hdr v pkg ver cache deb
	hdr=$(in_ruby -e 'print RbConfig::CONFIG["rubyhdrdir"]') ||
		fail "cannot ask $RUBYBIN for its headers"
	if [ -f "$ROOT$hdr/ruby.h" ]; then
		printf '%s\n' "$ROOT"
		return 0
	fi
	[ -n "$ROOT" ] || fail "no $hdr/ruby.h on the host: install ruby-dev (scripts/deps)"
	v=$(in_ruby -e 'print RUBY_VERSION[/\A\d+\.\d+/]')
	pkg=ruby$v-dev
	ver=$(chroot "$ROOT" dpkg-query -W -f '${Version}' "libruby$v") ||
		fail "no libruby$v package in $ROOT"
	cache=${RBFLAME_CACHE:-/var/cache/rbflame}/debs
	deb=$cache/${pkg}_${ver//:/%3a}_amd64.deb
	if [ ! -f "$deb" ]; then
		mkdir -p "$cache"
		rm -f "$ROOT"/tmp/"$pkg"_*.deb
		chroot "$ROOT" sh -c \
			"cd /tmp && apt-get -o Acquire::Check-Valid-Until=false download $pkg=$ver" \
			>"$CT/apt-download.log" 2>&1 ||
			fail "cannot fetch $pkg $ver (see apt-download.log)"
		mv "$ROOT"/tmp/"$pkg"_*.deb "$deb" ||
			fail "apt-get download left no $pkg .deb"
	fi
	rm -rf "$T/hdr-$v"
	dpkg-deb -x "$deb" "$T/hdr-$v" || fail "cannot unpack $deb"
	printf '%s\n' "$T/hdr-$v"
}

# native-ext: the test extension (tests/native/ext) built for this Ruby
# with its own headers, by the host's compiler; 'rbflame --native -p PID
# -s 2 -r 200' on native.rb crunch: >= 90% of the samples in
# '...;<main>;Object#work;RbflameTestExt.crunch;rbft_crunch;
# rbft_crunch_inner;rbft_crunch_leaf' under native root frames only.
check_native_ext() {
	local hroot s x='(rbflame_test_ext.so)'
	hroot=$(ext_headers)
	sh "$top_srcdir/tests/native/build-ext.sh" "${RUBYCMD[*]}" \
		"$ROOT$TDIR/ext" "$hroot" >"$CT/build-ext.log" 2>&1 ||
		fail "cannot build the test extension (see build-ext.log)"
	export RBFT_EXT=$TDIR/ext
	FX=native.rb
	start_fixture ext native.rb crunch
	run_rbflame ext 30 --native -p "$TPID" -s 2 -r 200 -o "$CT/ext.folded"
	expect_rc 0 "rbflame --native -p PID -s 2 -r 200"
	assert_collapsed "$CT/ext.folded" "--native ext"
	s=$(expand "<main> {main-ext};Object#work {work};RbflameTestExt.crunch {work};rbft_crunch $x;rbft_crunch_inner $x;rbft_crunch_leaf $x")
	assert_share_re "$CT/ext.folded" "^(?:[^;:]+;)*$(qm "$s")\$" 90 \
		"--native ext"
	say "  native ext: $SHARE ...;Object#work;RbflameTestExt.crunch;rbft_crunch;rbft_crunch_inner;rbft_crunch_leaf (headers: ${hroot:-host})"
	perl -ne '/ (\d+)$/ and $1 > $n and ($n, $l) = ($1, $_);
		END { print $l }' "$CT/ext.folded" >"$CT/../native-line"
	wait_untraced "$TPID" 2
	alive "$TPID" || fail "the fixture died"
	kill_fixture "$TPID"
}

# native-zlib: 'rbflame --native -p PID -s 2 -r 200' on native.rb zlib:
# >= 75% of the samples in '...;<main>;Object#squeeze;
# Zlib::Deflate.deflate;(zlib.so frames);deflate (libz.so...);...'.
check_native_zlib() {
	local s
	FX=native.rb
	start_fixture zlib native.rb zlib
	run_rbflame zlib 30 --native -p "$TPID" -s 2 -r 200 -o "$CT/zlib.folded"
	expect_rc 0 "rbflame --native -p PID -s 2 -r 200 (zlib)"
	assert_collapsed "$CT/zlib.folded" "--native zlib"
	s=$(expand "<main> {main-zlib};Object#squeeze {squeeze};Zlib::Deflate.deflate {squeeze}")
	assert_share_re "$CT/zlib.folded" \
		"^(?:[^;:]+;)*$(qm "$s")(?:;[^;:]+\\(zlib\\.so\\))+;deflate \\(libz\\.so[^;:]*\\)(?:;[^;:]+)*\$" \
		75 "--native zlib"
	say "  native zlib: $SHARE ...;Zlib::Deflate.deflate;(zlib.so);deflate (libz.so);..."
	wait_untraced "$TPID" 2
	alive "$TPID" || fail "the fixture died"
	kill_fixture "$TPID"
}

# major_stacks FOLDED PCT: the stacks of FOLDED holding >= PCT% of its
# samples each, sorted, one a line.
major_stacks() {
	perl -e '
		my ($f, $min) = @ARGV;
		my (%n, $total);
		open(my $fh, "<", $f) or die "open $f: $!\n";
		while (<$fh>) {
			chomp;
			/^(.*) (\d+)$/ or next;
			$n{$1} += $2;
			$total += $2;
		}
		die "no samples in $f\n" if !$total;
		print "$_\n" for sort grep { 100 * $n{$_} / $total >= $min } keys %n;
	' "$1" "$2" || fail "cannot read $1"
}

# yjit_run TAG MODE on|off [OPTION...]: yjit.rb MODE under this Ruby,
# with --yjit or without (the fixture says which it got), rounds of
# 'rbflame OPTION... -p PID -s 2 -r 200' until 300 samples, at most 20
# (a machine busy with other jobs gives a few a second at nice 19: 2 to
# 28 a round, 80 in 15 rounds, at load 10-12 on 2 CPUs); all of them in
# $CT/TAG.folded, fewer than 60 a failure (5% is then 3 samples); the
# stacks of >= 5% each into $CT/TAG.set.
yjit_run() {
	local tag=$1 mode=$2 want=$3 r n=0
	local -a saved=("${RUBYCMD[@]}")
	shift 3
	# shellcheck disable=SC2206 # YJIT_EXTRA: more options, split
	[ "$want" = off ] || RUBYCMD+=(--yjit ${YJIT_EXTRA:-})
	start_fixture "$tag" yjit.rb "$mode"
	RUBYCMD=("${saved[@]}")
	grep -qx "yjit $want" "$CT/$tag.log" ||
		fail "$tag: the fixture should run with YJIT $want: $(head -n 1 "$CT/$tag.log")"
	: >"$CT/$tag.folded"
	for ((r = 1; r <= 20 && n < 300; r++)); do
		run_rbflame "$tag" 30 "$@" -p "$TPID" -s 2 -r 200 \
			-o "$CT/$tag.$r.folded"
		expect_rc 0 "rbflame $* -p PID -s 2 -r 200 ($tag, round $r)"
		assert_collapsed "$CT/$tag.$r.folded" "$tag round $r"
		cat "$CT/$tag.$r.folded" >>"$CT/$tag.folded"
		n=$(awk '{ n += $NF } END { print n + 0 }' "$CT/$tag.folded")
	done
	[ "$n" -ge 60 ] ||
		fail "$tag: $n samples in $((r - 1)) rounds of 2 s, need 60: the machine is too busy"
	wait_untraced "$TPID" 2
	alive "$TPID" || fail "$tag: the fixture died"
	kill_fixture "$TPID"
	major_stacks "$CT/$tag.folded" 5 >"$CT/$tag.set"
}

# yjit_plus_mark: the line mark Worker#plus reads at under --yjit (see
# check_matrix_yjit): its def line on 3.1, the loop's from 3.3.
yjit_plus_mark() {
	case $RVERSION in
	3.1.*) echo def-plus ;;
	*) echo plus ;;
	esac
}

# matrix-yjit (a Ruby with YJIT: the host's 3.1, the self-built 3.3):
# yjit.rb plus and mult, each warmed up (every method called 100 times,
# YJIT compiling at the 10th call on 3.1, the 30th on 3.3), profiled by
# the interpreter and under --yjit. The interpreter's run holds >= 95%
# in its exact stack; the stacks of >= 5% each are then the same in both
# runs, but for the differences the README lists (section "YJIT"), each
# asserted here so that a Ruby that stops making it fails the check.
# On 3.3 there are none: both stacks are the interpreter's, lines too
# (YJIT 3.3 multiplies fixnums in its own code, and Worker#plus reads
# the loop's line, the last the VM recorded in the frame). On 3.1:
#   plus  Worker#plus reads its def line under YJIT, the loop's line in
#         the interpreter: YJIT pushed the frame from JIT code and writes
#         its pc only before a call out, which the loop never makes; the
#         pc is 0 and the reader shows the method's first line.
#   mult  under YJIT, Integer#* below Worker#mult in >= 5% of the
#         samples: YJIT 3.1 compiles opt_mult as a call of the method
#         Integer#*, a C function that pushes a frame, where the
#         interpreter multiplies two fixnums in the instruction itself.
#         Worker#mult's line is the loop's in both runs: YJIT writes the
#         pc before that call, and rbflame shows the last line written.
check_matrix_yjit() {
	local base spec mode a b want
	in_ruby --yjit -e 'exit(RubyVM::YJIT.enabled? ? 0 : 1)' 2>/dev/null ||
		fail "$RUBYBIN --yjit does not enable YJIT"
	FX=yjit.rb
	base="<main> {main};Kernel#loop {loop@main};block in <main> {main};Worker#run {run};Integer#times {times@run};block in Worker#run {run};Worker#scale {scale}"
	for mode in plus mult; do
		spec=$(expand "$base;Worker#$mode {$mode}")
		yjit_run "interp-$mode" "$mode" off
		assert_stacks "$CT/interp-$mode.folded" 95 "yjit.rb $mode" "$spec"
		a=$SHARE
		yjit_run "yjit-$mode" "$mode" on
		case $RVERSION:$mode in
		3.[2-9].*:* | [4-9].*:*)
			cp "$CT/interp-$mode.set" "$CT/want-$mode.set"
			;;
		*:plus)
			# The one line that differs, as the reader shows it.
			want=$(expand "$base;Worker#plus {def-plus}")
			perl -pe 'BEGIN { ($a, $b) = splice(@ARGV, 0, 2) }
				s/^\Q$a\E$/$b/' "$spec" "$want" \
				"$CT/interp-$mode.set" >"$CT/want-$mode.set"
			grep -qxF -- "$want" "$CT/yjit-$mode.set" ||
				fail "yjit.rb plus --yjit: Worker#plus not at its def line in >= 5% of the samples (see yjit-plus.folded)"
			;;
		*:mult)
			grep -q ';Integer#\* ([^;]*)$' "$CT/yjit-$mode.set" ||
				fail "yjit.rb mult --yjit: no Integer#* in >= 5% of the samples: YJIT no longer calls it? (the README lists it)"
			cp "$CT/interp-$mode.set" "$CT/want-$mode.set"
			# Integer#* taken out, the stacks merged.
			perl -ne 's/;Integer#\* \([^;]*\)$//;
				print unless $seen{$_}++' "$CT/yjit-$mode.set" |
				sort >"$CT/yjit-$mode.set.mapped"
			mv "$CT/yjit-$mode.set.mapped" "$CT/yjit-$mode.set"
			;;
		esac
		diff -u "$CT/want-$mode.set" "$CT/yjit-$mode.set" \
			>"$CT/diff-$mode.out" ||
			fail "yjit.rb $mode: the stacks under --yjit differ from the interpreter's beyond the README's list (diff-$mode.out)"
		b=$(wc -l <"$CT/yjit-$mode.set")
		case $RVERSION in
		3.1.*) want="the listed difference seen" ;;
		*) want="no difference, as listed" ;;
		esac
		say "  yjit $mode: interpreter $a exact; --yjit the same $b stack(s) of >= 5%, $want"
	done
}

# native-yjit: 'rbflame --native -p PID -s 2 -r 200' on yjit.rb plus under
# --yjit, warmed up (rounds as yjit_run runs them): >= 80% of the samples end in the Ruby frames then one
# [JIT] frame (YJIT's code, an anonymous r-x mapping), no frame anywhere
# is a bare address, no two [JIT] frames are next to each other. Before
# rbflame named it, the leaf was the ip itself (0x7f74d968058e).
check_native_yjit() {
	local s bad
	FX=yjit.rb
	yjit_run jit plus on --native
	s=$(expand "<main> {main};Kernel#loop {loop@main};block in <main> {main};Worker#run {run};Integer#times {times@run};block in Worker#run {run};Worker#scale {scale};Worker#plus {$(yjit_plus_mark)}")
	assert_share_re "$CT/jit.folded" \
		"^(?:[^;:]+;)*$(qm "$s");\\[JIT\\]\$" 80 "--native --yjit"
	bad=$(grep -cE '(^|;)0x[0-9a-f]+( [0-9]+$|;)' "$CT/jit.folded" || true)
	[ "$bad" = 0 ] ||
		fail "--native --yjit: $bad stack(s) with a bare address (see jit.folded)"
	bad=$(grep -c '\[JIT\];\[JIT\]' "$CT/jit.folded" || true)
	[ "$bad" = 0 ] ||
		fail "--native --yjit: $bad stack(s) with [JIT] twice in a row"
	say "  native yjit: $SHARE ...;Worker#scale;Worker#plus;[JIT], no bare address"
}

# native-yjit-perf (3.3+: --yjit-perf): as native-yjit under 'ruby --yjit
# --yjit-perf', which writes /tmp/perf-PID.map in the target's root:
# >= 80% of the samples end in the Ruby frames then '[yjit] Worker#plus',
# the name the map gives the loop's machine code (YJIT's own "[JIT]
# Worker#plus"), read through /proc/PID/root with the target's rights;
# no bare address, the map removed after.
check_native_yjit_perf() {
	local s bad map
	FX=yjit.rb
	YJIT_EXTRA=--yjit-perf yjit_run jitperf plus on --native
	map=$ROOT/tmp/perf-$TPID.map
	[ -s "$map" ] || fail "--yjit-perf: no perf map at $map"
	rm -f "$map"
	s=$(expand "<main> {main};Kernel#loop {loop@main};block in <main> {main};Worker#run {run};Integer#times {times@run};block in Worker#run {run};Worker#scale {scale};Worker#plus {$(yjit_plus_mark)}")
	assert_share_re "$CT/jitperf.folded" \
		"^(?:[^;:]+;)*$(qm "$s");\\[yjit\\] Worker#plus\$" 80 \
		"--native --yjit-perf"
	bad=$(grep -cE '(^|;)0x[0-9a-f]+( [0-9]+$|;)' "$CT/jitperf.folded" || true)
	[ "$bad" = 0 ] ||
		fail "--native --yjit-perf: $bad stack(s) with a bare address (see jitperf.folded)"
	say "  native yjit-perf: $SHARE ...;Worker#scale;Worker#plus;[yjit] Worker#plus, no bare address"
}

# check_label MODE [--function] SPEC...: fixture $FX in MODE ('-' for
# none), 'rbflame -p PID -s 2 -r 200': the stacks SPEC... hold >= 95% of
# the samples, each some. The target is left running and untraced.
check_label() {
	local mode=$1 s i
	local -a want=() opts=()
	shift
	if [ "${1:-}" = --function ]; then
		opts=(--function)
		shift
	fi
	for s; do
		want+=("$(expand "$s")")
	done
	if [ "$mode" = - ]; then
		start_fixture fx "$FX"
	else
		start_fixture fx "$FX" "$mode"
	fi
	for i in "${!want[@]}"; do
		want[i]=$(fill_addrs "$CT/fx.log" "${want[i]}") ||
			fail "no address for ${want[i]}"
	done
	run_rbflame prof 30 "${opts[@]}" -p "$TPID" -s 2 -r 200 \
		-o "$CT/prof.folded"
	expect_rc 0 "rbflame ${opts[*]} -p PID -s 2 -r 200"
	assert_collapsed "$CT/prof.folded" "$FX $mode"
	assert_stacks "$CT/prof.folded" 95 "$FX $mode ${opts[*]}" "${want[@]}"
	wait_untraced "$TPID" 2
	alive "$TPID" || fail "the fixture died"
	kill_fixture "$TPID"
	say "  labels $FX $mode${opts:+ ${opts[*]}}: $SHARE exact ...;${want[0]##*;}"
}

# rescues.rb's unwind mode: an exception passing through 100 ensure
# clauses, again and again. Each clause's frame ends in the throw that
# passes the exception on, which Ruby's compiler gives line 0 up to 3.3
# and the line of 'ensure' in 3.4: every clause's frame is on a line of
# the clause, and some samples end in one (tests/ruby/labels.sh's check).
check_unwind() {
	local in at bad leaf t
	start_fixture fx rescues.rb unwind
	run_rbflame prof 30 -p "$TPID" -s 2 -r 200 -o "$CT/prof.folded"
	expect_rc 0 "rbflame -p PID -s 2 -r 200"
	assert_collapsed "$CT/prof.folded" "rescues.rb unwind"
	in=$(FX=rescues.rb expand 'ensure in Handler#unwind {unwind-ensure}')
	at=$(FX=rescues.rb expand 'ensure in Handler#unwind {unwind-at}')
	read -r bad leaf t <<<"$(perl "$top_srcdir/tests/ruby/clause-lines.pl" \
		"$CT/prof.folded" 'ensure in Handler#unwind' "$in" "$at")"
	if [ "$bad" != 0 ]; then
		grep -o 'ensure in Handler#unwind ([^)]*)' "$CT/prof.folded" |
			sort | uniq -c >&2
		fail "rescues.rb unwind: $bad samples put the ensure clause's frame off its lines"
	fi
	[ "$leaf" -gt 0 ] ||
		fail "rescues.rb unwind: no sample ends in the ensure clause"
	kill_fixture "$TPID"
	say "  unwind: $leaf/$t samples end in the ensure clause, none off its lines"
}

# The reader's fixtures and their stacks: the table of tests/ruby/labels.sh,
# Integer#times excepted ({times@...}).
LABELS=(
	"geometry.rb area|<main> {main-area};Geometry::Shape#area {area}"
	"geometry.rb build|<main> {main-build};Geometry::Shape.build {build}"
	"geometry.rb perimeter|<main> {main-perimeter};Geometry::Shape#perimeter {perimeter-each};Array#each {perimeter-each};block in Geometry::Shape#perimeter {perimeter-block}"
	"blocks.rb nested|<main> {nested-each};Array#each {nested-each};block in <main> {nested-times};Integer#times {times@nested-times};block (2 levels) in <main> {nested-spin}"
	"blocks.rb yield|<main> {yield-call};Object#relay {relay-yield};block in <main> {yield-spin}"
	"blocks.rb map|<main> {map-call};Array#map {map-call};block in <main> {map-spin}"
	"bodies.rb module|<main> {main-module};<module:Outer> {module-body}"
	"bodies.rb class|<main> {main-module};<module:Outer> {module-class};<class:Inner> {class-body}"
	"modules.rb helper|<main> {main-helper};Util#helper {helper}"
	"modules.rb fn|<main> {main-fn};Util.fn {fn}"
	"modules.rb tool|<main> {main-tool};Util.tool {tool}"
	"rescues.rb rescue|<main> {main-rescue};Handler#retrying {retrying-each};Array#each {retrying-each};block in Handler#retrying {retrying-begin};rescue in block in Handler#retrying {rescue-spin}"
	"rescues.rb ensure|<main> {main-ensure};Handler#cleanup {ensure-spin};ensure in Handler#cleanup {ensure-spin}"
	"dynamic.rb define|<main> {main-define};block in <class:Robot> {walk}"
	"dynamic.rb anon|<main> {main-anon};#<Class:0x@HEX@>#an {an}"
	"meta.rb solo|<main> {main-solo};#<Object:@ADDR:solo@>.solo {solo}"
	"meta.rb refine|<main> {main-refine};#<@REFINEMENT@:@ADDR:refinement@>#twice {twice}"
	"meta.rb anon-self|<main> {main-anon-self};#<Class:@ADDR:anon@>.make {make}"
	"cfuncs.rb sleep|<main> {main-sleep};Object#nap {nap};Kernel#sleep {nap};(blocked)"
	"cfuncs.rb sort|<main> {main-sort};Object#crunch {crunch};Array#sort {crunch}|<main> {main-sort};Object#crunch {crunch}"
	"required.rb -|<main> {main-require};Kernel#require_relative {main-require};<top (required)> {required-body.rb:top-required}"
	"geometry.rb area --function|<main> {1};Geometry::Shape#area {def-area}"
	"geometry.rb build --function|<main> {1};Geometry::Shape.build {def-build}"
	"blocks.rb yield --function|<main> {1};Object#relay {def-relay};block in <main> {yield-call}"
)

# A deep stack, whole: <main> then DEPTH frames of Object#down.
if [ -f "$top_srcdir/tests/ruby/fixtures/recursion.rb" ]; then
	depth=$(sed -n 's/^DEPTH = \([0-9]*\)$/\1/p' \
		"$top_srcdir/tests/ruby/fixtures/recursion.rb")
	[ -n "$depth" ] || fail "no DEPTH in recursion.rb"
	spec='<main> {main-down}'
	for ((d = 1; d < depth; d++)); do
		spec="$spec;Object#down {recurse}"
	done
	LABELS+=("recursion.rb -|$spec;Object#down {bottom}")
fi

# ---- running one version ------------------------------------------------------

NPASS=0
NFAIL=0
FAILED=

# run_check VERSION NAME FUNC ARGS...: FUNC in a subshell of its own
# (fail ends the check, not the matrix), scratch in $CT, its processes
# killed when it ends.
run_check() {
	local v=$1 name=$2 rc=0
	shift 2
	selected "$name" || return 0
	[ -z "$SELECTED_BY" ] || MATCHED[$SELECTED_BY]=1
	(
		CT=$T/$v/$name
		mkdir -p "$CT"
		ME="matrix $v"
		PIDS=
		REMOVE=
		ON_EXIT=
		trap 'for p in $PIDS; do kill -KILL "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done' EXIT
		"$@"
	) || rc=$?
	if [ "$rc" = 0 ]; then
		NPASS=$((NPASS + 1))
	else
		NFAIL=$((NFAIL + 1))
		FAILED="$FAILED $v:$name"
	fi
	return 0
}

# selected NAME: the check NAME is one MATRIX_CHECKS asks for (all when
# unset); SELECTED_BY is the pattern that matched. run_check records the
# patterns of the checks it ran in MATCHED.
declare -A MATCHED=()
SELECTED_BY=
selected() {
	local p
	local -a pats
	SELECTED_BY=
	[ -n "${MATRIX_CHECKS:-}" ] || return 0
	read -r -a pats <<<"$MATRIX_CHECKS"
	for p in "${pats[@]}"; do
		# shellcheck disable=SC2053 # a pattern, on purpose
		if [[ $1 == $p ]]; then
			SELECTED_BY=$p
			return 0
		fi
	done
	return 1
}

# Ruby's own Integer#times location, and the rule it must follow.
times_rule() {
	local v=$1 loc
	loc=$(in_ruby -e '1.times { l = caller_locations(1, 1)[0]; print "#{l.path}:#{l.lineno}" }') ||
		fail "cannot run $RUBYBIN"
	case $v in
	2.7 | 3.[012])
		[ "$loc" = "-e:1" ] ||
			fail "Ruby $v: Integer#times should be a C function; caller_locations says $loc"
		TIMES_LOC=
		;;
	*)
		case $loc in
		"<internal:numeric>:"[0-9]*) TIMES_LOC=$loc ;;
		*) fail "Ruby $v: Integer#times should be in <internal:numeric>; caller_locations says $loc" ;;
		esac
		;;
	esac
	echo "$TIMES_LOC"
}

# test_version VERSION ROOT RUBYBIN WHERE [TAG]: TAG names the results
# (default VERSION).
test_version() {
	local v=$1 where=$4 tag=${5:-$1} t0 pass0=$NPASS fail0=$NFAIL e spec fx mode
	t0=$(now)
	mkdir -p "$T/$tag"
	use_ruby "$2" "$3"
	RVERSION=$(in_ruby -e 'print RUBY_VERSION' 2>/dev/null) || RVERSION=
	RDESC=$(in_ruby -e 'print RUBY_DESCRIPTION' 2>/dev/null) || RDESC=
	case $RVERSION in
	"$v".*) ;;
	*)
		say "$tag: FAIL: $RUBYBIN${2:+ in $2} is Ruby '${RVERSION:-?}', not $v"
		NFAIL=$((NFAIL + 1))
		FAILED="$FAILED $tag:interpreter"
		return 0
		;;
	esac
	say "$tag: $RDESC ($where)"
	TIMES_LOC=$(CT=$T/$tag; times_rule "$v") || {
		NFAIL=$((NFAIL + 1))
		FAILED="$FAILED $tag:times"
		return 0
	}
	say "  Integer#times: ${TIMES_LOC:-a C function, at the file and line of its caller}"
	# Kernel#loop likewise: C up to 3.2, <internal:kernel> from 3.3
	# ({loop@...} in the specs).
	LOOP_LOC=$(in_ruby -e 'loop { l = caller_locations(1, 1)[0]; print "#{l.path}:#{l.lineno}"; break }' 2>/dev/null) || LOOP_LOC=
	case $LOOP_LOC in
	"<internal:"*) ;;
	*) LOOP_LOC= ;;
	esac
	# Refinement is a class from Ruby 3.1; a 2.7 refinement is a Module.
	case $v in
	2.7) REFINEMENT=Module ;;
	*) REFINEMENT=Refinement ;;
	esac
	export TIMES_LOC LOOP_LOC RVERSION REFINEMENT
	run_check "$tag" matrix-threads check_matrix_threads
	run_check "$tag" matrix-dump check_matrix_dump
	run_check "$tag" matrix-locals check_matrix_locals
	run_check "$tag" matrix-vm check_matrix_vm
	run_check "$tag" matrix-forked check_matrix_forked
	run_check "$tag" matrix-gc check_matrix_gc
	run_check "$tag" matrix-gvl check_matrix_gvl
	run_check "$tag" matrix-blocked check_matrix_blocked
	case $v in
	3.3 | 3.4) run_check "$tag" matrix-mn check_matrix_mn ;;
	esac
	if [ "$tag" = selfbuilt ]; then
		run_check "$tag" matrix-layout check_matrix_layout
		run_check "$tag" matrix-debuglink check_matrix_debuglink
	fi
	if [ "$tag" != selfbuilt ]; then
		run_check "$tag" native-ext check_native_ext
		run_check "$tag" native-zlib check_native_zlib
	fi
	run_check "$tag" matrix-adversary check_matrix_adversary
	# YJIT: the host's 3.1 and the self-built 3.3 (Debian's 3.3 and 3.4
	# are built without); perf maps from 3.3.
	if [ "$tag" = 3.1 ] || [ "$tag" = selfbuilt ]; then
		run_check "$tag" matrix-yjit check_matrix_yjit
		run_check "$tag" native-yjit check_native_yjit
	fi
	[ "$tag" != selfbuilt ] ||
		run_check "$tag" native-yjit-perf check_native_yjit_perf
	run_check "$tag" rescues.rb-unwind check_unwind
	for e in "${LABELS[@]}"; do
		IFS='|' read -r -a spec <<<"$e"
		read -r fx mode _ <<<"${spec[0]}"
		local -a args=("$mode")
		case ${spec[0]} in *--function) args+=(--function) ;; esac
		FX=$fx run_check "$tag" "$fx-$mode${args[1]:-}" check_label \
			"${args[@]}" "${spec[@]:1}"
	done
	RESULTS+=("$tag: $((NPASS - pass0))/$((NPASS - pass0 + NFAIL - fail0)) checks passed in $(elapsed "$t0") s, $RDESC [$where]")
	if [ "$tag" = selfbuilt ] || ! selected native-ext; then
		:
	elif [ -s "$T/$tag/native-line" ]; then
		NATIVE_LINES+=("$tag: $(cat "$T/$tag/native-line")")
	else
		NATIVE_LINES+=("$tag: (none: native-ext failed before profiling)")
	fi
	local st states=
	for st in gc gvl blocked; do
		selected "matrix-$st" || continue
		if [ -s "$T/$tag/state-$st" ]; then
			states="$states; $(cat "$T/$tag/state-$st")"
		else
			states="$states; $st: (none: matrix-$st failed before its figures)"
		fi
	done
	[ -z "$states" ] || STATES+=("$tag: ${states#; }")
	if ! selected matrix-threads; then
		:
	elif [ -s "$T/$tag/profile-line" ]; then
		PROFILES+=("$tag: $(cat "$T/$tag/profile-line")")
	else
		PROFILES+=("$tag: (none: matrix-threads failed before profiling)")
	fi
}

declare -a RESULTS=() PROFILES=() NATIVE_LINES=() STATES=()

# The host's Ruby first, while the chroots build.
for v in $VERSIONS; do
	[ "$v" = 3.1 ] || continue
	rb=$(command -v ruby3.1 || command -v ruby || true)
	if [ -z "$rb" ]; then
		say "3.1: FAIL: no ruby3.1 on the host (scripts/deps installs it)"
		NFAIL=$((NFAIL + 1))
		FAILED="$FAILED 3.1:interpreter"
		continue
	fi
	test_version 3.1 "" "$rb" "host, $(dpkg-query -W -f '${Package} ${Version}' libruby3.1 2>/dev/null || echo "$rb")"
done

for v in $VERSIONS; do
	[ "$v" != 3.1 ] || continue
	t0=$(now)
	rc=0
	wait "${BUILDER[$v]}" || rc=$?
	unset "BUILDER[$v]"
	if [ "$v" = selfbuilt ]; then
		if [ "$rc" != 0 ]; then
			say "$v: FAIL: scripts/ruby-selfbuilt $SELF_VERSION failed (exit $rc):"
			sed 's/^/    /' "$T/build-$v.err" | tail -n 30
			NFAIL=$((NFAIL + 1))
			FAILED="$FAILED $v:build"
			continue
		fi
		rb=$(cat "$T/build-$v.out")
		info=$(dirname "$(dirname "$rb")")/.rbflame-selfbuilt
		if grep -q '^ruby-selfbuilt: reusing' "$T/build-$v.err"; then
			state=reused
		else
			state="built in $(sed -n 's/^seconds=//p' "$info") s"
		fi
		say "$v: $rb ($state; waited $(elapsed "$t0") s for it)"
		# The DWARF layout or a failure, for every check.
		export RBFLAME_LAYOUT=dwarf
		test_version "$SELF_VERSION" "" "$rb" \
			"self-built static from $(sed -n 's/^source=//p' "$info"), DWARF layout" \
			selfbuilt
		unset RBFLAME_LAYOUT
		continue
	fi
	if [ "$rc" != 0 ]; then
		say "$v: FAIL: scripts/ruby-chroot $v failed (exit $rc):"
		sed 's/^/    /' "$T/chroot-$v.err" | tail -n 30
		NFAIL=$((NFAIL + 1))
		FAILED="$FAILED $v:chroot"
		continue
	fi
	{ read -r root && read -r rb; } <"$T/chroot-$v.out"
	if grep -q '^ruby-chroot: reusing' "$T/chroot-$v.err"; then
		state=reused
	else
		state="built in $(sed -n 's/^seconds=//p' "$root/.rbflame-chroot") s"
	fi
	say "$v: chroot $root ($state; waited $(elapsed "$t0") s for it)"
	grep -E ': [a-z -]+.*: [0-9.]+ s$' "$T/chroot-$v.err" |
		sed 's/^ruby-chroot: /    chroot step: /' || true
	test_version "$v" "$root" "$rb" \
		"chroot $(sed -n 's/^suite=//p' "$root/.rbflame-chroot"), $(sed -n 's/^package=//p' "$root/.rbflame-chroot")"
done

echo
say "summary ($(elapsed "$T0") s in all):"
for r in "${RESULTS[@]}"; do
	say "  $r"
done
# lines TITLE LINE...: a titled list of the summary, when not empty.
lines() {
	[ $# -gt 1 ] || return 0
	say "$1"
	shift
	for r; do
		say "  $r"
	done
}
lines "profile lines (thread mx-nested, -s 2 -r 200 --threads):" \
	"${PROFILES[@]}"
lines "woven lines (--native, native.rb crunch):" "${NATIVE_LINES[@]}"
lines "states (states.rb: GC share vs Ruby's account, GVL, blocked):" \
	"${STATES[@]}"
read -r -a pats <<<"${MATRIX_CHECKS:-}"
for p in "${pats[@]}"; do
	if [ -z "${MATCHED[$p]:-}" ]; then
		say "MATRIX_CHECKS: '$p' matches no check"
		NFAIL=$((NFAIL + 1))
		FAILED="$FAILED MATRIX_CHECKS:$p"
	fi
done
if [ "$NFAIL" != 0 ]; then
	say "FAIL: $NFAIL check(s) failed:$FAILED"
	exit 1
fi
say "PASS: $NPASS checks on $VERSIONS${MATRIX_CHECKS:+ (MATRIX_CHECKS: $MATRIX_CHECKS)}"
