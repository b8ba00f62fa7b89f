#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The GVL holder asleep in a non-restartable call is never stopped. The
# epoll_gvl fixture calls epoll_wait (50 ms timeout, nothing to wake it)
# through Fiddle with the GVL held, so it is the holder a Ruby-mode tick
# would stop. Stopping it would make the call fail with EINTR, or, with
# the EINTR turned into a restart, start its 50 ms again at every tick: at
# 1000 Hz a 50 ms wait took 1.8 s. Sampled at 1000 Hz for 6 s, no call may
# fail and none may take longer than 0.5 s (a loaded 2-CPU machine adds
# tens of ms at most), and the stacks show the call.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

start_fixture gvl epoll_gvl.rb 8
run_rbflame gvl 30 -p "$TPID" -s 6 -r 1000 -o "$T/gvl.folded"
expect_rc 0 "rbflame -p PID -s 6 -r 1000 (epoll_wait holding the GVL)"
say "$(tail -n 1 "$T/gvl.err")"
assert_collapsed "$T/gvl.folded" "gvl"
wait_line "$T/gvl.log" '^epoll_wait calls' 20 "$TPID"
read -r calls eintr longest <<<"$(sed -n \
	's/^epoll_wait calls \([0-9]*\) eintr \([0-9]*\) longest \([0-9.]*\) s$/\1 \2 \3/p' \
	"$T/gvl.log")"
say "fixture: $calls calls, $eintr EINTR, longest $longest s"
[ "$eintr" = 0 ] || fail "gvl: epoll_wait failed with EINTR $eintr times"
perl -e 'exit !($ARGV[0] < 0.5)' "$longest" ||
	fail "gvl: an epoll_wait of 50 ms took $longest s: the holder was stopped in it"
[ "$calls" -ge 40 ] || fail "gvl: only $calls calls of 50 ms in 8 s"
assert_share "$T/gvl.folded" 'Fiddle::Function#call \(' 90 \
	"samples in Fiddle::Function#call"
