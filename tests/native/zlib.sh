#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# --native on a library the interpreter ships with: a script spending its
# time in Zlib::Deflate.deflate ('rbflame --native -p PID -s 2 -r 200')
# shows libz.so frames right under the calling Ruby frames
#
#   ...;<main>;Object#squeeze;Zlib::Deflate.deflate;(zlib.so frames);
#   deflate (libz.so...);...
#
# in >= 75% of the samples (the rest: the extension's own copying and
# allocation). Stripped zlib.so and libz have few names: the anchor of
# Zlib::Deflate.deflate is found by its FDE's range.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../ruby/lib-ruby.sh"
. "$(dirname "$0")/lib-native.sh"
require_root

FX=native.rb
s=$(expand_stack "<main> {main-zlib};Object#squeeze {squeeze};Zlib::Deflate.deflate {squeeze}")
start_fixture zlib "$FX" zlib
run_rbflame zlib 30 --native -p "$TPID" -s 2 -r 200 -o "$T/zlib.folded"
expect_rc 0 "rbflame --native -p PID -s 2 -r 200 (zlib)"
assert_collapsed "$T/zlib.folded" "zlib"
assert_share "$T/zlib.folded" \
	"^(?:[^;:]+;)*$(qm "$s")(?:;[^;:]+\\(zlib\\.so\\))+;deflate \\(libz\\.so[^;:]*\\)(?:;[^;:]+)*\$" \
	75 "zlib: ...;Zlib::Deflate.deflate;(zlib.so);deflate (libz.so)..."
wait_untraced "$TPID" 2
assert_running "$TPID" 1 0
kill_tracee "$TPID"
