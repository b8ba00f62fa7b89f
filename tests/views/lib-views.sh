# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Helpers for the views tests (tests/views/*.sh), sourced after
# ../e2e/lib.sh: the fixture's interpreter and path, and a headless
# Chromium to render an SVG (screenshot) and read its DOM after its
# script ran. The tools come from scripts/deps (chromium, libxml2-utils,
# graphviz); by hand without them the tests skip, in CI they fail.

: "${top_srcdir:?source ../e2e/lib.sh first}"
RUBY=${RUBY:-ruby}
VFIX=$(cd "$top_srcdir/tests/views/fixtures" && pwd -P)

# require_ruby: the interpreter, or skip (fail in CI).
require_ruby() {
	command -v "$RUBY" >/dev/null 2>&1 ||
		skip_or_fail "Ruby interpreter not found: $RUBY (scripts/deps installs it)"
}

# require_chromium: sets CHROMIUM, or skips (fails in CI).
require_chromium() {
	local c
	for c in chromium chromium-browser; do
		if command -v "$c" >/dev/null 2>&1; then
			CHROMIUM=$c
			return 0
		fi
	done
	skip_or_fail "command not found: chromium (scripts/deps installs it)"
}

# chromium_run TAG ARGS...: headless Chromium with a profile directory of
# its own (tests run in parallel), 90 s at most; stdout in $T/TAG.out.
chromium_run() {
	local tag=$1
	shift
	timeout -k 5 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--no-first-run --disable-extensions --hide-scrollbars \
		--user-data-dir="$T/chromium-$tag" "$@" \
		>"$T/$tag.out" 2>"$T/$tag.chromium.err" </dev/null ||
		fail "chromium failed ($tag): $(tail -n 3 "$T/$tag.chromium.err")"
}

# screenshot SVG PNG: renders SVG at 1200x800 into PNG.
screenshot() {
	chromium_run "shot-${2##*/}" --screenshot="$2" --window-size=1200,800 \
		"file://$1"
	[ -s "$2" ] || fail "no screenshot $2"
	file "$2" | grep -q 'PNG image data, 1200 x 800' ||
		fail "$2 is not a 1200x800 PNG: $(file "$2")"
}

# dump_dom URL OUT: the document after its scripts ran, in OUT.
dump_dom() {
	chromium_run "dom-${2##*/}" --dump-dom "$1"
	mv "$T/dom-${2##*/}.out" "$2"
	[ -s "$2" ] || fail "empty DOM dump of $1"
}

# profile_workload TAG SECS [slow] [RBFLAME OPTIONS...]: starts
# workload.rb, waits for its "ready" (after Ruby's start-up, whose length
# varies with the machine's load), attaches for SECS at 999 Hz, then ends
# it; the collapsed profile is $T/TAG.folded. On a loaded machine a tick
# can come late: while the profile has fewer than $MIN_SAMPLES samples
# (2500 by default; 0: attach once, for reports) it attaches again, up
# to 5 times, and adds them up.
profile_workload() {
	local tag=$1 secs=$2 mode= pid round=0 n=0
	shift 2
	if [ "${1:-}" = slow ]; then
		mode=slow
		shift
	fi
	"$RUBY" "$VFIX/workload.rb" 600 $mode >"$T/$tag.log" 2>&1 </dev/null &
	pid=$!
	track "$pid"
	wait_ready "$T/$tag.log" 20 "$pid"
	: >"$T/$tag.folded"
	while [ "$round" = 0 ] ||
		{ [ "$round" -lt 5 ] && [ "$n" -lt "${MIN_SAMPLES:-2500}" ]; }; do
		round=$((round + 1))
		run_rbflame "$tag" $((secs + 30)) -p "$pid" -s "$secs" -r 999 \
			-o "$T/$tag.$round.folded" "$@"
		expect_rc 0 "rbflame -p PID -s $secs $* (workload.rb $mode)"
		cat "$T/$tag.$round.folded" >>"$T/$tag.folded"
		[ "${MIN_SAMPLES:-2500}" = 0 ] && break
		n=$(total_samples "$T/$tag.folded")
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	[ "${MIN_SAMPLES:-2500}" = 0 ] ||
		say "$tag: $n samples in $round attach(es) of $secs s"
}
