#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Attaches the kernel refuses, with the real programs users meet: the
# target is held by gdb (-p, stopped at gdb's prompt), by strace (-f -p,
# running), and rbflame runs without CAP_SYS_PTRACE (capsh
# --drop=cap_sys_ptrace, as in a container). Each time rbflame exits 1
# with one "rbflame: " line on stderr that names the cause, and the target
# is untouched: its tracer and its threads' states are what they were
# before rbflame tried, and once the other tracer has detached it runs
# (CPU time grows), untraced, no thread in t/T.
#
# Covered elsewhere, not repeated here: another user's process and Yama
# (tests/e2e/unprivileged.sh), ptrace-hold as the other tracer and a
# missing pid (tests/e2e/attach-errors.sh), all in make check.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
# shellcheck source=tests/ruby/lib-ruby.sh
. "$(dirname "$0")/../ruby/lib-ruby.sh"

require_root
require_cmd gdb strace capsh

# snapshot PID: "TID:STATE:TRACER ..." for every thread of PID, sorted.
snapshot() {
	local d out=
	for d in /proc/"$1"/task/*; do
		read_state "$d/stat" || continue
		read_tracer "$d" || continue
		out="$out ${d##*/}:$STATE:$TRACER"
	done
	printf '%s\n' "$out" | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' '
}

# changed BEFORE AFTER: succeeds when every thread in both snapshots kept
# its tracer and stayed stopped (t/T) or not stopped as it was. A running
# target's states move between R and S, and Ruby's timer thread comes and
# goes: those are not changes. With TRACER_ONLY=1 only the tracers are
# compared: strace stops its tracee at every system call, so its threads
# move in and out of t on their own (CI saw 18916:t before, R after);
# that none stays stopped is checked by the target's progress instead.
changed() {
	local b a tid st tr
	declare -A was
	for b in $1; do
		was[${b%%:*}]=${b#*:}
	done
	for a in $2; do
		tid=${a%%:*}
		[ -n "${was[$tid]:-}" ] || continue
		st=${a#*:}
		tr=${st#*:}
		st=${st%%:*}
		[ "$tr" = "${was[$tid]#*:}" ] || return 1
		[ "${TRACER_ONLY:-0}" = 0 ] || continue
		case ${was[$tid]%%:*}:$st in
		[tT]:[tT] | [!tT]:[!tT]) ;;
		*) return 1 ;;
		esac
	done
}

# cpu_ticks PID: utime + stime of the process.
cpu_ticks() {
	local l
	{ read -r l <"/proc/$1/stat"; } 2>/dev/null || return 1
	l=${l##*) }
	# shellcheck disable=SC2086
	set -- $l
	echo $((${12} + ${13}))
}

# assert_progress PID: its CPU time grows within 5 s.
assert_progress() {
	local c0 c1 n
	c0=$(cpu_ticks "$1") || fail "process $1 is gone"
	for ((n = 0; n < 50; n++)); do
		sleep 0.1
		c1=$(cpu_ticks "$1") || fail "process $1 is gone"
		[ "$c1" -le "$c0" ] || return 0
	done
	fail "process $1 makes no progress (CPU time stuck at $c0 ticks for 5 s)"
}

# refused TAG PID WHAT REGEX: rbflame -p PID fails as it must, and leaves
# PID's threads exactly as they were.
refused() {
	local tag=$1 pid=$2 what=$3 re=$4 before after
	before=$(snapshot "$pid")
	run_rbflame "$tag" 30 -p "$pid" -r 1000 -s 2 -o "$T/$tag.folded"
	expect_rc 1 "$what"
	assert_error_line "$T/$tag.err" "$what"
	grep -Eqi -- "$re" "$T/$tag.err" ||
		fail "$what: the message does not say why ($re): $(cat "$T/$tag.err")"
	[ ! -s "$T/$tag.out" ] || fail "$what: output on stdout"
	after=$(snapshot "$pid")
	changed "$before" "$after" ||
		fail "$what: rbflame changed the target's threads (tid:state:tracer): before [$before] after [$after]"
	say "$what: exit 1: $(cat "$T/$tag.err")"
	if [ "${TRACER_ONLY:-0}" = 0 ]; then
		say "  threads (tid:state:tracer) unchanged: $after"
	else
		say "  threads' tracers unchanged: $after"
	fi
}

# untouched PID WHAT: once free, PID runs, untraced, no thread in t/T.
untouched() {
	wait_untraced "$1" 10
	assert_running "$1" 3 0.1
	assert_progress "$1"
	say "$2: afterwards the target runs, untraced, no thread in t/T"
}

# ---- gdb ----------------------------------------------------------------------
# gdb attaches every thread and keeps them stopped while it runs its
# commands: here a shell loop that waits for our signal to detach.
start_tracee threads -r "$T/threads.ready"
tracee=$TPID
wait_ready "$T/threads.ready" 10 "$tracee"
gdb -q -nx -batch -p "$tracee" \
	-ex "shell echo ready >$T/gdb.ready; while [ ! -e $T/gdb.quit ]; do sleep 0.05; done" \
	-ex detach >"$T/gdb.log" 2>&1 </dev/null &
gdb=$!
track "$gdb"
wait_ready "$T/gdb.ready" 60 "$gdb"
[ "$(tracer_of "$tracee")" = "$gdb" ] ||
	fail "gdb does not hold the target (TracerPid $(tracer_of "$tracee"))"
refused gdb "$tracee" "held by gdb -p" 'gdb|trac(er|ed)'
touch "$T/gdb.quit"
wait_exit "$gdb" 30 || fail "gdb did not detach and exit"
untouched "$tracee" "held by gdb -p"
kill_tracee "$tracee"

# ---- strace -----------------------------------------------------------------------
# A Ruby process this time; strace lets it run while it traces.
start_fixture strace threads.rb
tracee=$TPID
strace -f -qq -o /dev/null -p "$tracee" 2>"$T/strace.log" &
strace=$!
track "$strace"
n=0
until [ -n "$(snapshot "$tracee")" ] &&
	! snapshot "$tracee" | grep -qE ':0( |$)'; do
	n=$((n + 1))
	[ "$n" -lt 500 ] || fail "strace did not attach every thread in 10 s"
	alive "$strace" || fail "strace exited: $(cat "$T/strace.log")"
	sleep 0.02
done
[ "$(tracer_of "$tracee")" = "$strace" ] || fail "strace does not hold the target"
TRACER_ONLY=1 refused strace "$tracee" "traced by strace -f -p" 'strace|trac(er|ed)'
assert_progress "$tracee"
kill -INT "$strace"
wait_exit "$strace" 30 || fail "strace did not detach and exit"
untouched "$tracee" "traced by strace -f -p"
kill_tracee "$tracee"

# ---- no CAP_SYS_PTRACE ------------------------------------------------------------
start_tracee stack-fcall -r "$T/cap.ready"
tracee=$TPID
wait_ready "$T/cap.ready" 10 "$tracee"
# capsh hands what follows -- to bash: -c 'exec "$0" "$@"' RBFLAME ARGS.
# shellcheck disable=SC2016
RUN_AS=(capsh --drop=cap_sys_ptrace -- -c 'exec "$0" "$@"')
capsh --drop=cap_sys_ptrace -- -c 'exec capsh --print' | grep -q '^Bounding set.*cap_sys_ptrace' &&
	fail "capsh --drop=cap_sys_ptrace left cap_sys_ptrace in the bounding set"
refused nocap "$tracee" "rbflame without CAP_SYS_PTRACE" 'CAP_SYS_PTRACE'
RUN_AS=()
untouched "$tracee" "rbflame without CAP_SYS_PTRACE"
