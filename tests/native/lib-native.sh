# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Helpers for the --native tests (tests/native/*.sh), sourced after
# ../e2e/lib.sh and ../ruby/lib-ruby.sh: the fixtures' directory, the
# test extension built for the host's Ruby, and woven-stack patterns.
#
# A woven stack is native frames from the root (libc, the ruby
# executable: 'NAME (MODULE)' or a bare name, never a colon) down to the
# first Ruby frame, then the expected frames. native_pattern turns an
# expected stack (expand_stack's, with native frames as 'NAME (MODULE)')
# into a Perl regex for assert_share: any native root frames, then
# exactly those frames.

FIXTURES=$(cd "$top_srcdir/tests/native/fixtures" && pwd -P)

# build_ext DIR: builds the test extension for $RUBY into DIR.
build_ext() {
	local hdr
	hdr=$("$RUBY" -e 'print RbConfig::CONFIG["rubyhdrdir"]') ||
		fail "cannot ask $RUBY for its headers"
	[ -f "$hdr/ruby.h" ] ||
		skip_or_fail "no $hdr/ruby.h: the Ruby headers (ruby-dev, scripts/deps)"
	require_cmd "${CC:-cc}"
	sh "$top_srcdir/tests/native/build-ext.sh" "$RUBY" "$1" \
		>"$T/build-ext.log" 2>&1 || {
		cat "$T/build-ext.log" >&2
		fail "cannot build the test extension"
	}
}

# native_pattern STACK: the regex of STACK under any native root frames.
native_pattern() {
	perl -e 'print "^(?:[^;:]+;)*", quotemeta($ARGV[0]), "\$"' "$1"
}

# qm TEXT: TEXT quoted for a Perl regex.
qm() {
	perl -e 'print quotemeta($ARGV[0])' "$1"
}
