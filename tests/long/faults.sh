#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# rbflame killed at random moments: FAULT_TRIALS (default 50) runs of
# 'rbflame -r 1000 -p PID' ended by SIGINT, SIGTERM or SIGKILL after a
# random delay: a quarter within 10 ms of the start (before or during the
# attach), a quarter within 150 ms (finding the VM, the first ticks), the
# rest within 700 ms (mid-run). The targets take turns: the chain tracee
# (one thread), the threads tracee (four spinning workers) and a Ruby
# process (tests/ruby/fixtures/threads.rb: five spinning threads, the
# main one asleep); each lives through all its trials.
#
# After every trial, strictly: the target is alive, no thread of it is in
# state t or T, none has a tracer, and it keeps running (its CPU time, a
# progress counter no stopped process can advance, grows). For SIGINT and
# SIGTERM rbflame exits 0 with a complete profile (every line 'FRAMES
# COUNT', see check_collapsed) and its summary line, whose sample count is
# non-zero exactly when the profile is. A signal that lands before rbflame
# has installed its handlers (the first milliseconds) may kill it outright
# (exit 128+N, no profile): allowed only for delays under 20 ms, and the
# target is checked the same way. Timing is loose (10 s to exit, 5 s for
# the target to run again) so a loaded machine does not fail the test;
# the target's state is not.
#
# One line per trial, then a summary; fails if any trial went wrong.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
# shellcheck source=tests/ruby/lib-ruby.sh
. "$(dirname "$0")/../ruby/lib-ruby.sh"

TRIALS=${FAULT_TRIALS:-50}

# cpu_ticks PID: utime + stime of the whole process (fields 14 and 15).
cpu_ticks() {
	local l
	{ read -r l <"/proc/$1/stat"; } 2>/dev/null || return 1
	l=${l##*) }
	# shellcheck disable=SC2086
	set -- $l
	echo $((${12} + ${13}))
}

# harm PID: empty when PID is fine (alive, no thread in t/T, no tracer,
# CPU time advancing within 5 s), else what is wrong.
harm() {
	local pid=$1 d c0 c1 n bad=
	alive "$pid" || {
		echo "target gone"
		return
	}
	# SIGKILL: the kernel detaches as the tracer exits; give it 2 s.
	for ((n = 0; n < 100; n++)); do
		bad=
		for d in /proc/"$pid"/task/*; do
			read_tracer "$d" || continue
			[ "$TRACER" = 0 ] || bad="$bad ${d##*/}:$TRACER"
		done
		[ -z "$bad" ] && break
		sleep 0.02
	done
	[ -z "$bad" ] || {
		echo "threads still traced (tid:tracer$bad)"
		return
	}
	for d in /proc/"$pid"/task/*; do
		read_state "$d/stat" || continue
		case $STATE in
		t | T) bad="$bad ${d##*/}:$STATE" ;;
		esac
	done
	[ -z "$bad" ] || {
		echo "threads stopped (tid:state$bad)"
		return
	}
	c0=$(cpu_ticks "$pid") || {
		echo "target gone"
		return
	}
	for ((n = 0; n < 50; n++)); do
		sleep 0.1
		c1=$(cpu_ticks "$pid") || {
			echo "target gone"
			return
		}
		if [ "$c1" -gt "$c0" ]; then
			return
		fi
	done
	echo "no progress: CPU time stuck at $c0 ticks for 5 s"
}

# start_fast TAG ARGS...: start_rbflame, but waits for rbflame's pid and
# its exec without sleeping, so that the shortest delays land within the
# first milliseconds of rbflame's life (start_rbflame polls every 10 ms).
start_fast() {
	local tag=$1 n=0
	shift
	rm -f "$T/$tag.pid"
	(
		env --default-signal=INT,QUIT "$RBFLAME" "$@" \
			>"$T/$tag.out" 2>"$T/$tag.err" </dev/null &
		echo $! >"$T/$tag.pid.tmp"
		mv "$T/$tag.pid.tmp" "$T/$tag.pid"
		wait $!
	) 2>/dev/null &
	RBJOB=$!
	track "$RBJOB"
	until [ -s "$T/$tag.pid" ]; do
		n=$((n + 1))
		[ "$n" -lt 1000000 ] || fail "rbflame did not start"
	done
	RBPID=$(<"$T/$tag.pid")
	track "$RBPID"
	# Until env has exec'd rbflame, SIGINT is ignored (a background job
	# of a non-interactive shell): a signal then would test env.
	local comm=
	until [ "$comm" = rbflame ]; do
		{ read -r comm <"/proc/$RBPID/comm"; } 2>/dev/null || comm=gone
		[ "$comm" != gone ] || break
		n=$((n + 1))
		[ "$n" -lt 1000000 ] || fail "rbflame was not exec'd"
	done
}

# The targets, each started once.
start_tracee stack-fcall -r "$T/chain.ready"
chain=$TPID
wait_ready "$T/chain.ready" 10 "$chain"
start_tracee threads -r "$T/threads.ready"
threads=$TPID
wait_ready "$T/threads.ready" 10 "$threads"
start_fixture ruby threads.rb
ruby=$TPID
targets=(chain threads ruby)
declare -A tpid=([chain]=$chain [threads]=$threads [ruby]=$ruby)
sigs=(INT TERM KILL)
declare -A ok_count bad_count early_count
bad=0
t_start=$(now)

for ((i = 0; i < TRIALS; i++)); do
	tname=${targets[i % 3]}
	sig=${sigs[(i / 3) % 3]}
	pid=${tpid[$tname]}
	case $((RANDOM % 4)) in
	0) delay_ms=$((RANDOM % 10)) ;;
	1) delay_ms=$((10 + RANDOM % 140)) ;;
	*) delay_ms=$((150 + RANDOM % 550)) ;;
	esac
	delay=$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))
	tag=trial-$i
	start_fast "$tag" -r 1000 -p "$pid" -o "$T/$tag.folded"
	[ "$delay_ms" = 0 ] || sleep "$delay"
	kill -s "$sig" "$RBPID" 2>/dev/null || true
	what=
	wait_rbflame 10 || what="rbflame still running 10 s after SIG$sig"
	outcome=
	if [ -z "$what" ]; then
		case $sig:$RC in
		KILL:137) outcome="killed" ;;
		INT:0 | TERM:0)
			if r=$(check_collapsed "$T/$tag.folded" allow-empty 2>"$T/check.msg"); then
				n=$(sed -n 's/^rbflame: \([0-9]*\) samples in .*/\1/p' "$T/$tag.err")
				total=$(total_samples "$T/$tag.folded")
				if [ -z "$n" ]; then
					what="no summary line on stderr"
				elif [ "$n" -gt 0 ] && [ "$total" = 0 ]; then
					what="summary says $n samples, profile is empty"
				elif [ "$n" = 0 ] && [ "$total" != 0 ]; then
					what="summary says 0 samples, profile has $total"
				else
					outcome="profile complete ($r)"
				fi
			else
				what="profile does not parse: $(head -n 3 "$T/check.msg" | tr '\n' ' ')"
			fi
			;;
		INT:130 | TERM:143)
			if [ "$delay_ms" -lt 20 ] && [ ! -s "$T/$tag.folded" ]; then
				outcome="died of SIG$sig before taking signals (no profile)"
				early_count[$sig]=$((${early_count[$sig]:-0} + 1))
			else
				what="died of SIG$sig after $delay s (exit $RC): should have written its profile"
			fi
			;;
		*) what="exit status $RC after SIG$sig" ;;
		esac
	fi
	h=$(harm "$pid")
	if [ -n "$h" ]; then
		what="${what:+$what; }target harmed: $h"
	fi
	if [ -n "$what" ]; then
		bad=$((bad + 1))
		bad_count[$tname]=$((${bad_count[$tname]:-0} + 1))
		say "trial $i: $tname SIG$sig after $delay s: FAIL: $what"
		sed 's/^/    stderr: /' "$T/$tag.err" | head -n 5
		if [ "$h" = "target gone" ]; then
			fail "target $tname ($pid) died"
		fi
	else
		ok_count[$tname]=$((${ok_count[$tname]:-0} + 1))
		say "trial $i: $tname SIG$sig after $delay s: ok: exit $RC," \
			"$outcome; target running, untraced, no thread in t/T"
	fi
	# Both are reaped: forget them, so that the exit trap never kills
	# a later process that reuses the pid.
	PIDS=${PIDS/ $RBJOB/}
	PIDS=${PIDS/ $RBPID/}
	rm -f "$T/$tag.out"
done

summary=
for tname in "${targets[@]}"; do
	summary="$summary $tname ${ok_count[$tname]:-0} ok/${bad_count[$tname]:-0} bad,"
done
say "summary: $TRIALS trials in $(elapsed "$t_start") s:$summary" \
	"$bad failed; killed before taking signals: INT ${early_count[INT]:-0}," \
	"TERM ${early_count[TERM]:-0}"
[ "$bad" = 0 ] || fail "$bad of $TRIALS trials left a bad outcome"
