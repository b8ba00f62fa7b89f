#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# --native on a C extension of known functions (tests/native/ext, built
# here for the host's Ruby): 'rbflame --native -p PID -s 2 -r 200' shows
# 'Ruby method -> C method -> its C functions' in >= 90% of the samples,
#
#   crunch  ...;<main>;Object#work;RbflameTestExt.crunch;rbft_crunch;
#           rbft_crunch_inner;rbft_crunch_leaf
#   each    ...;<main>;Object#walk;RbflameTestExt.each;rbft_each;
#           rbft_each_step;block in Object#walk;RbflameTestExt.crunch;
#           rbft_crunch;rbft_crunch_inner;rbft_crunch_leaf
#
# (the C method calling back into Ruby: rb_yield and the VM hidden), under
# native root frames only, with no libruby frame at all; the summary
# counts the woven stacks. A C method holding the GVL in epoll_wait is
# woven too, and never interrupted (no EINTR in the target). --native-all keeps libruby's frames: between
# Object#work and RbflameTestExt.crunch (the interpreter calling the C
# method) in >= 90% of the samples.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../ruby/lib-ruby.sh"
. "$(dirname "$0")/lib-native.sh"
require_root

build_ext "$T/ext"
export RBFT_EXT=$T/ext
say "ruby $RUBY_VERSION, test extension built in $RBFT_EXT"
FX=native.rb
X='(rbflame_test_ext.so)'
# crunch MARK: RbflameTestExt.crunch called at line MARK, and its C.
crunch() {
	echo "RbflameTestExt.crunch {$1};rbft_crunch $X;rbft_crunch_inner $X;rbft_crunch_leaf $X"
}

# woven TAG MODE MINPCT SPEC [RBFLAME-ARGS...]: attaches with --native to
# native.rb MODE for 2 s at 200 Hz; SPEC (under native root frames) holds
# >= MINPCT% of the samples. Leaves the target running in TPID.
woven() {
	local tag=$1 mode=$2 min=$3 s
	shift 3
	s=$(expand_stack "$1")
	shift
	start_fixture "$tag" "$FX" "$mode"
	run_rbflame "$tag" 30 "${@:---native}" -p "$TPID" -s 2 -r 200 \
		-o "$T/$tag.folded"
	expect_rc 0 "$tag: rbflame ${*:---native} -p PID -s 2 -r 200"
	assert_collapsed "$T/$tag.folded" "$tag"
	assert_share "$T/$tag.folded" "$(native_pattern "$s")" "$min" \
		"$tag: ...;$(leaf_of "$s")"
	grep -oE '; --native: [0-9]+ stacks woven, [0-9]+ weave errors' \
		"$T/$tag.err" >&2 || fail "$tag: no --native line in the summary"
}

woven crunch crunch 90 \
	"<main> {main-ext};Object#work {work};$(crunch work)"
n=$(grep -c '(libruby' "$T/crunch.folded" || true)
[ "$n" = 0 ] || fail "crunch: $n stacks show libruby frames without --native-all"
wait_untraced "$TPID" 2
assert_running "$TPID" 1 0

# --native-all on the same process: the interpreter's frames are there.
run_rbflame all 30 --native-all -p "$TPID" -s 2 -r 200 -o "$T/all.folded"
expect_rc 0 "rbflame --native-all -p PID -s 2 -r 200"
assert_collapsed "$T/all.folded" "--native-all"
s=$(expand_stack "<main> {main-ext};Object#work {work}")
c=$(expand_stack "$(crunch work)")
assert_share "$T/all.folded" \
	"^(?:[^;:]+;)*$(qm "$s")(?:;[^;:]+\\(libruby[^;:]*\\))+;$(qm "$c")\$" 90 \
	"--native-all: libruby frames between Object#work and the C method"
kill_tracee "$TPID"

woven each each 90 \
	"<main> {main-walk};Object#walk {walk};RbflameTestExt.each {walk};rbft_each $X;rbft_each_step $X;block in Object#walk {walk-block};$(crunch walk-block)"
kill_tracee "$TPID"

# A C method holding the GVL in epoll_wait, which an interrupt would make
# fail with EINTR: never stopped (unwound from what the kernel reports),
# its stack still woven, and no EINTR in the target.
woven epoll epoll 90 \
	"<main> {main-idle};Object#idle {idle};RbflameTestExt.epoll {idle};rbft_epoll $X;epoll_wait (libc.so.6)"
kill_tracee "$TPID"
n=$(grep -c '^EINTR$' "$T/epoll.log" || true)
[ "$n" = 0 ] || fail "epoll: epoll_wait failed with EINTR $n times under rbflame --native"
say "epoll: epoll_wait never interrupted"
