#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The target ends while rbflame samples it at 1000 Hz, in each way a
# process can end or turn into another, in attach and in launch mode:
#
#   exit       the chain tracee, and a Ruby process, exit on their own
#   SIGKILL    the chain tracee, and a Ruby process, killed by the test
#   exec       the exec tracee execs itself as another program, from its
#              main thread and from a second thread; the profile must
#              show both programs
#   forks      the forker tracee forks 200 children, then exits
#   threads    the many-threads tracee creates and joins 1000 threads
#
# Each time rbflame must end on its own soon after the target (20 s at
# most on a loaded machine), with a profile that parses and holds samples,
# and the right status: 0 in attach mode, the target's own status (128+N
# when killed by signal N) in launch mode. The target's status must be its
# normal one too: the forker and many-threads tracees exit 1 if a child or
# thread was lost, stopped or got a wrong result.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
# shellcheck source=tests/ruby/lib-ruby.sh
. "$(dirname "$0")/../ruby/lib-ruby.sh"

for _t in forker many-threads execer; do
	[ -x "$TRACEES/$_t" ] ||
		fail "tracee not built: $TRACEES/$_t (make check builds it)"
done

# check_profile TAG WHAT: the profile parses and holds samples.
check_profile() {
	local r
	r=$(check_collapsed "$T/$1.folded" 2>"$T/check.msg") || {
		cat "$T/check.msg" >&2
		fail "$2: the profile is not valid collapsed output (or empty)"
	}
	PROFILE="$r"
}

# attach TRACEE WANT-TRACEE-RC SECS [TRACEE-ARGS...]: profile_attached
# with the tracee's options before its SECS.
# tag PREFIX NAME ARGS...: a file name for one run.
tag() {
	printf '%s-%s%s' "$1" "$2" "$(printf '%s' "${*:3}" | tr -c 'a-z0-9.-' _)"
}

attach() {
	local name=$1 want=$2 secs=$3 tag
	shift 3
	tag=$(tag a "$name" "$@")
	start_tracee "$name" -r "$T/$tag.ready" -g "$T/$tag.go" "$@" "$secs"
	TARGET=$TPID
	wait_ready "$T/$tag.ready" 10 "$TARGET"
	start_rbflame "$tag" -r 1000 -p "$TARGET" -o "$T/$tag.folded"
	wait_traced "$TARGET" 10 "$RBPID"
	touch "$T/$tag.go"
	wait_gone "$TARGET" $((${secs%.*} + 60)) ||
		fail "$name $*: still running 60 s after its $secs s"
	wait_rbflame 20 ||
		fail "$name $*: rbflame still running 20 s after its target ended"
	local rbrc=$RC
	wait_exit "$TARGET" 5 || fail "$name $*: could not reap it"
	[ "$RC" = "$want" ] || {
		cat "$T/$name.log" >&2
		fail "$name $* (attach): the target exited $RC, want $want"
	}
	RC=$rbrc
	expect_rc 0 "$name $*: rbflame -p PID"
	check_profile "$tag" "$name $* (attach)"
	say "attach, $name${*:+ $*}: target exit $want as normal; rbflame exit 0," \
		"$PROFILE"
}

# launch WANT TRACEE-ARGS...: rbflame -- TRACEE-ARGS exits WANT.
launch() {
	local want=$1 name=$2 tag
	shift 2
	tag=$(tag l "$name" "$@")
	run_rbflame "$tag" 90 -r 1000 -o "$T/$tag.folded" -- \
		"$TRACEES/$name" "$@"
	expect_rc "$want" "rbflame -- $name $*"
	check_profile "$tag" "$name $* (launch)"
	say "launch, $name $*: rbflame exit $RC as the target's; $PROFILE"
}

# ---- exit ---------------------------------------------------------------------
attach stack-fcall 0 1.5
attach stack-fcall 3 1.5 -e 3
launch 3 stack-fcall -e 3 1.5

start_fixture rb-exit threads.rb 3
start_rbflame rb-exit -r 1000 -p "$TPID" -o "$T/rb-exit.folded"
wait_traced "$TPID" 20 "$RBPID"
wait_gone "$TPID" 60 || fail "ruby threads.rb 3: still running after 60 s"
wait_rbflame 20 || fail "ruby: rbflame still running 20 s after the target exited"
expect_rc 0 "ruby exits: rbflame -p PID"
check_profile rb-exit "ruby exits (attach)"
say "attach, Ruby exits: rbflame exit 0, $PROFILE"
run_rbflame rb-launch 90 -r 1000 -o "$T/rb-launch.folded" -- \
	"$RUBY" "$FIXTURES/threads.rb" 2
expect_rc 0 "rbflame -- ruby threads.rb 2"
check_profile rb-launch "ruby exits (launch)"
say "launch, Ruby exits: rbflame exit 0, $PROFILE"

# ---- SIGKILL ----------------------------------------------------------------------
# kill_target TAG PID: lets rbflame sample PID a second, SIGKILLs PID, and
# waits for rbflame (RC).
kill_target() {
	wait_traced "$2" 20 "$RBPID"
	sleep 1
	kill -KILL "$2"
	wait_rbflame 20 || fail "$1: rbflame still running 20 s after SIGKILL"
	# Reap it here, quietly (bash would report "Killed"); a launched
	# child is rbflame's, not ours, and wait just fails.
	wait "$2" 2>/dev/null || true
}
start_tracee stack-fcall -r "$T/k.ready"
wait_ready "$T/k.ready" 10 "$TPID"
start_rbflame k-attach -r 1000 -p "$TPID" -o "$T/k-attach.folded"
kill_target "SIGKILL (attach)" "$TPID"
expect_rc 0 "target SIGKILLed: rbflame -p PID"
check_profile k-attach "SIGKILL (attach)"
say "attach, stack-fcall SIGKILLed: rbflame exit 0, $PROFILE"

start_fixture rb-kill threads.rb
start_rbflame rb-kill -r 1000 -p "$TPID" -o "$T/rb-kill.folded"
kill_target "Ruby SIGKILL (attach)" "$TPID"
expect_rc 0 "Ruby target SIGKILLed: rbflame -p PID"
check_profile rb-kill "Ruby SIGKILL (attach)"
say "attach, Ruby SIGKILLed: rbflame exit 0, $PROFILE"

start_rbflame k-launch -r 1000 -o "$T/k-launch.folded" -- \
	"$TRACEES/stack-fcall" -r "$T/kl.ready"
wait_ready "$T/kl.ready" 10
child=$(cat "$T/kl.ready")
kill_target "SIGKILL (launch)" "$child"
expect_rc 137 "child SIGKILLed: rbflame -- stack-fcall"
check_profile k-launch "SIGKILL (launch)"
say "launch, stack-fcall SIGKILLed: rbflame exit 137 (128+9), $PROFILE"

# ---- exec -------------------------------------------------------------------------
# exec_check TAG WHAT: the profile goes on after the exec: the old
# program's before_exec and the new one's after_exec both have samples.
# (An exec from a thread other than the leader while rbflame was stopping
# the leader used to leave the leader waiting for a stop that never came:
# the new program was never sampled.)
exec_check() {
	local b a t
	read -r b t <<<"$(share "$T/$1.folded" '(^|;)before_exec(;|$)')"
	read -r a t <<<"$(share "$T/$1.folded" '(^|;)after_exec(;|$)')"
	say "  $2: before_exec $b, after_exec $a of $t samples"
	[ "$b" -gt 0 ] || fail "$2: no sample of the program before its exec"
	[ "$a" -gt 0 ] || fail "$2: no sample of the program after the exec"
}
attach execer 5 1
exec_check "$(tag a execer)" "attach, exec from the main thread"
attach execer 5 1 -t
exec_check "$(tag a execer -t)" "attach, exec from a second thread"
launch 5 execer 1
exec_check "$(tag l execer 1)" "launch, exec from the main thread"
launch 5 execer -t 1
exec_check "$(tag l execer -t 1)" "launch, exec from a second thread"

# ---- 200 children, 1000 threads ----------------------------------------------------
attach forker 0 1
launch 0 forker 1
attach many-threads 0 1
launch 0 many-threads 1
say "every target ended as it would have without rbflame; rbflame ended cleanly each time"
