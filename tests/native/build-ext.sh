#!/bin/sh
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Builds tests/native/ext/rbflame_test_ext.c into OUTDIR/rbflame_test_ext.so
# for the Ruby RUBY, with that Ruby's own headers and flags (RbConfig), the
# way extconf.rb would, plus no inlining and no sibling calls so that each
# function keeps its frame. Headers come from HDRROOT when given (a chroot
# whose rubyX.Y-dev is unpacked there); the extension is not linked with
# libruby: the interpreter that loads it provides the symbols.
#
# Usage: build-ext.sh RUBY OUTDIR [HDRROOT]
set -eu
ruby=$1 out=$2 root=${3:-}
src=$(cd "$(dirname "$0")" && pwd)/ext/rbflame_test_ext.c
# shellcheck disable=SC2016
hdr=$($ruby -e 'puts RbConfig::CONFIG["rubyhdrdir"]')
# shellcheck disable=SC2016
arch=$($ruby -e 'puts RbConfig::CONFIG["rubyarchhdrdir"]')
[ -f "$root$hdr/ruby.h" ] || {
	echo "build-ext.sh: no $root$hdr/ruby.h: install ruby-dev (scripts/deps)" >&2
	exit 1
}
mkdir -p "$out"
exec ${CC:-cc} -shared -fPIC -O1 -g -fno-inline -fno-optimize-sibling-calls \
	-fno-omit-frame-pointer -I"$root$arch" -I"$root$hdr" \
	-o "$out/rbflame_test_ext.so" "$src"
