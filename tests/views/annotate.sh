#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# -f annotate (stackprof's print_source) on real profiles of
# tests/views/fixtures/workload.rb: --match picks the functions; each
# shows its source lines with the samples at the sampled line, as a share
# of all samples and of the function's. The source is read through the
# target's root: a workload whose file exists only in its own mount
# namespace (a tmpfs mounted there) is still annotated. 'rbflame report
# -f annotate' does the same from a recording, reading the sources under
# --source-root only (without it: none, and a notice says why); a bad
# pattern is a usage error. (tests/security/annotate.sh: what a hostile
# target can name.)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-views.sh"

require_ruby
MIN_SAMPLES=0

tax_line=$(grep -n 'i += 1 while i < @tax_work' "$VFIX/workload.rb" | cut -d: -f1)

# check_tax FILE PATH: FILE annotates Workload#tax of PATH: its header,
# the loop line with its samples (nearly all of the function's: its
# "i = 0" line may have a few), the lines around it, nothing else.
check_tax() {
	local f=$1 path=$2 l=$tax_line
	grep -qE "^Workload#tax \\($path:($((l - 1))|$l)\\)$" "$f" ||
		fail "${f##*/}: no header 'Workload#tax ($path:LINE)'"
	grep -qE "^ +[0-9]+  \\( *[0-9.]+% / +(9[0-9]|100)\\.[0-9]%\\) +\\| +$l  \\|     i \\+= 1 while i < @tax_work$" "$f" ||
		fail "${f##*/}: line $l without its samples"
	grep -qE "^ .{24}\\| +$((l - 1))  \\|     i = 0$" "$f" ||
		fail "${f##*/}: line $((l - 1)) not shown"
	grep -qE "^ .{24}\\| +$((l + 1))  \\|   end$" "$f" ||
		fail "${f##*/}: line $((l + 1)) not shown"
	[ "$(grep -c '^Workload#' "$f")" = 1 ] ||
		fail "${f##*/}: --match 'tax\$' matched more than Workload#tax"
}

# Attached, with a recording on the side.
profile_workload live 2 -f raw -o "$T/live.rbflame" -f annotate --match 'tax$'
cat "$T/live.folded"
check_tax "$T/live.folded" "$VFIX/workload.rb"
say "live: Workload#tax annotated at line $tax_line"

"$RBFLAME" report -i "$T/live.rbflame" -f annotate --match 'tax$' \
	--source-root / >"$T/report.txt" ||
	fail "rbflame report -f annotate --source-root / failed"
check_tax "$T/report.txt" "$VFIX/workload.rb"
say "report -i live.rbflame -f annotate --source-root /: the same"

# Without --source-root no file is read.
"$RBFLAME" report -i "$T/live.rbflame" -f annotate --match 'tax$' \
	>"$T/nosrc.txt" 2>"$T/nosrc.err" ||
	fail "rbflame report -f annotate (no --source-root) failed"
grep -qE "^Workload#tax \\($VFIX/workload.rb:[0-9]+\\)$" "$T/nosrc.txt" ||
	fail "no --source-root: no header: $(cat "$T/nosrc.txt")"
grep -qx ' \{25\}|  (source not available)' "$T/nosrc.txt" ||
	fail "no --source-root: a source was read: $(cat "$T/nosrc.txt")"
grep -q "^rbflame: annotate: no source file is read without --source-root" \
	"$T/nosrc.err" || fail "no --source-root: no notice: $(cat "$T/nosrc.err")"
say "report -f annotate without --source-root: no source, a notice"

# Without --match: the heaviest functions, --limit of them.
"$RBFLAME" report -i "$T/live.rbflame" -f annotate --limit 2 \
	--source-root / \
	>"$T/top.txt" || fail "rbflame report -f annotate --limit 2 failed"
[ "$(grep -cE '^[^ ].* \(/.*:[0-9]+\)$' "$T/top.txt")" = 2 ] ||
	fail "--limit 2 did not annotate 2 functions: $(cat "$T/top.txt")"

# A source only the target can see: its own mount namespace.
require_root
require_cmd unshare mount
mkdir -p "$T/ns"
unshare -m --propagation private sh -c '
	mount -t tmpfs rbflame-views "$1" && cp "$2" "$1/workload.rb" &&
	exec "$3" "$1/workload.rb" 600' sh "$T/ns" "$VFIX/workload.rb" \
	"$RUBY" >"$T/ns.log" 2>&1 </dev/null &
NSPID=$!
track "$NSPID"
wait_ready "$T/ns.log" 20 "$NSPID"
[ ! -e "$T/ns/workload.rb" ] || fail "the tmpfs is visible outside its namespace"
run_rbflame ns 40 -p "$NSPID" -s 2 -r 999 -f annotate --match 'tax$' \
	-o "$T/ns.txt"
expect_rc 0 "rbflame -p PID -f annotate (own mount namespace)"
{ kill -KILL "$NSPID" && wait "$NSPID"; } 2>/dev/null || true
cat "$T/ns.txt"
check_tax "$T/ns.txt" "$T/ns/workload.rb"
say "a file only in the target's mount namespace: read through /proc/PID/root"

RC=0
"$RBFLAME" report -i "$T/live.rbflame" -f annotate --match '(' \
	>/dev/null 2>"$T/bad.err" || RC=$?
[ "$RC" = 2 ] || fail "a bad --match pattern: exit $RC, want 2"
grep -q "invalid --match pattern" "$T/bad.err" || fail "no message for a bad pattern"
