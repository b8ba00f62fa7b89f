#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The docs agree with the code where a machine can tell: every long option
# that 'rbflame --help' or a subcommand's --help prints is in rbflame(1);
# every format the help's Formats list names has a row in the README's
# formats table; every fuzz target of tests/fuzz/targets is described in
# tests/fuzz/README. Each thing missing is printed on a line of its own.
# The lists are the code's own: the subcommands from the usage lines of
# 'rbflame --help', the formats from the writer table as both help texts
# print it (OUTPUT_WRITERS), the targets from the file fuzz.sh reads.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"

MAN=$top_srcdir/rbflame.1
README=$top_srcdir/README
FUZZ_TARGETS=$top_srcdir/tests/fuzz/targets
FUZZ_README=$top_srcdir/tests/fuzz/README
for f in "$MAN" "$README" "$FUZZ_TARGETS" "$FUZZ_README"; do
	[ -r "$f" ] || fail "cannot read $f"
done

missing=0
# missing_line TEXT: one line of the final report.
missing_line() {
	printf 'missing: %s\n' "$*"
	missing=$((missing + 1))
}

# help TAG ARGS...: rbflame ARGS --help on $T/TAG.out, exit 0.
help() {
	local tag=$1
	shift
	run_rbflame "$tag" 10 "$@" --help
	expect_rc 0 "rbflame${*:+ $*} --help"
	[ -s "$T/$tag.out" ] || fail "rbflame${*:+ $*} --help: nothing on stdout"
}

help main
# The subcommands: "rbflame NAME ..." in the usage lines.
subs=$(sed -n -E 's/^(Usage:)? +rbflame ([a-z]+)( .*)?$/\2/p' "$T/main.out" |
	sort -u)
[ "$(echo "$subs" | wc -w)" -ge 3 ] ||
	fail "rbflame --help: want the usage lines of dump, report and diff, got: $subs"

# ---- options: --help texts -> rbflame(1) -------------------------------------

# The man page's entry lines (an option's entry is a macro line: .TP then
# .B/.BR/.BI/.IP naming it; a mention in running text is no entry), with
# escaped hyphens plain: \-\-pid is --pid.
grep -E '^\.(B|BR|BI|IB|IP|TP)( |$)' "$MAN" | sed 's/\\-/-/g' >"$T/man.txt"
nopts=0
for cmd in "" $subs; do
	tag=${cmd:-main}
	[ -z "$cmd" ] || help "$tag" "$cmd"
	# An option line: indented, an optional "-x, ", then the long option.
	while read -r opt; do
		nopts=$((nopts + 1))
		grep -q -E -- "(^|[^a-z0-9-])$opt([^a-z0-9-]|\$)" "$T/man.txt" ||
			missing_line "rbflame.1 lacks $opt (rbflame${cmd:+ $cmd} --help)"
	done < <(grep -o -E '^ +(-[A-Za-z], )?--[a-z][a-z0-9-]*' "$T/$tag.out" |
		grep -o -E -- '--[a-z][a-z0-9-]*' | sort -u)
done
[ "$nopts" -ge 20 ] || fail "only $nopts long options found in the --help texts"
say "options: $nopts long options (counted per --help text) of rbflame and" \
	"$(tr '\n' ' ' <<<"$subs")checked against rbflame.1"

# ---- formats: the help's Formats list -> README's table ----------------------

# formats TAG: the names of the "Formats" section of a help text, one per
# line: two spaces, the name, an optional " (default)", then the text.
formats() {
	sed -n '/^Formats/,/^$/p' "$T/$1.out" |
		sed -n -E 's/^  ([a-z][a-z0-9]*)( \(default\))?  .*/\1/p'
}
formats main >"$T/formats"
formats report >>"$T/formats"
sort -u -o "$T/formats" "$T/formats"
nfmt=$(wc -l <"$T/formats")
[ "$nfmt" -ge 10 ] || fail "only $nfmt formats found in the --help texts"
# The README's table: the rows of the "Output formats" section (up to the
# next section's underline), whose -f column, the second, names the
# format as code.
awk '/^Output formats$/ { on = 1; getline; next }
	on && /^-+$/ { exit }
	on && /^\|/ { print }' "$README" >"$T/table"
[ -s "$T/table" ] || missing_line "README has no table under \"Output formats\""
while read -r fmt; do
	grep -q -E "^\| [^|]* \| \`$fmt\` \|" "$T/table" ||
		missing_line "README's formats table lacks $fmt (rbflame --help, Formats)"
done <"$T/formats"
say "formats: $nfmt formats of the --help texts checked against README's table"

# ---- fuzz targets: tests/fuzz/targets -> tests/fuzz/README --------------------

ntargets=0
while read -r name _; do
	case $name in '' | '#'*) continue ;; esac
	ntargets=$((ntargets + 1))
	grep -q -E "(^|[^a-z0-9_])fuzz_$name\.c([^a-z0-9_]|\$)" "$FUZZ_README" ||
		missing_line "tests/fuzz/README lacks fuzz_$name.c (tests/fuzz/targets)"
done <"$FUZZ_TARGETS"
[ "$ntargets" -ge 1 ] || fail "no target found in tests/fuzz/targets"
say "fuzz targets: $ntargets of tests/fuzz/targets checked against tests/fuzz/README"

[ "$missing" = 0 ] || fail "$missing missing from the docs (listed above)"
say "PASS: the docs name every option, format and fuzz target"
