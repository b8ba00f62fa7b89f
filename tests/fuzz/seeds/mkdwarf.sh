#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Remakes the seeds of fuzz_dwarf_layout: for each Ruby version given,
# dwarf_layout/VERSION-dwarfN, a small shared object from vm.c (the unit
# name the DWARF reader looks for) whose DWARF N describes the built-in
# layout of VERSION (mkdwarf.c says how), with only its debug sections
# kept; each is read back and must give the layout again.
#
# Usage: mkdwarf.sh BUILDDIR VERSION...   (BUILDDIR: a configured and
# built tree, for librbflame.a and config.h)
# shellcheck disable=SC2086
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BUILDDIR VERSION..." >&2; exit 2; }
b=$(cd "$1" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
libs=$(sed -n 's/^ELF_LIBS = //p' "$b/Makefile" | head -n 1)
${CC:-cc} -g -O0 -I"$b" -I"$src/include" -o "$t/mkdwarf" \
	"$here/mkdwarf.c" "$b/librbflame.a" $libs # split: -ldw -lelf
mkdir -p "$here/dwarf_layout"
for v in "$@"; do
	for n in 4 5; do
		mkdir -p "$t/$v-$n"
		"$t/mkdwarf" "$v" >"$t/$v-$n/vm.c"
		(cd "$t/$v-$n" && ${CC:-cc} -gdwarf-$n -O0 \
			-fno-eliminate-unused-debug-types -fPIC -shared \
			-fdebug-prefix-map="$t"=/build \
			-nostdlib -o vm.so vm.c)
		objcopy --only-keep-debug -R .comment -R .note.GNU-stack \
			"$t/$v-$n/vm.so" "$here/dwarf_layout/$v-dwarf$n"
		chmod 644 "$here/dwarf_layout/$v-dwarf$n"
		"$t/mkdwarf" "$v" "$here/dwarf_layout/$v-dwarf$n"
	done
done
