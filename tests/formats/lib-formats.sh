# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Helpers for the output-format tests (tests/formats/*.sh), sourced after
# ../e2e/lib.sh: the real clients that read each format, found or
# installed, and the totals they print.
#
#   stackprof --text           (Debian ruby-stackprof)
#   callgrind_annotate         (Debian valgrind)
#   go tool pprof -top         (Debian golang-go)
#   speedscope's JSON schema   (npm package speedscope, validated with
#                               ajv-cli; both installed by npm into
#                               $RBFLAME_NPM_CACHE, outside the work tree)
#
# scripts/deps installs the Debian packages; a missing client skips only
# outside CI (skip_or_fail).

: "${top_srcdir:?source ../e2e/lib.sh first}"
RBFLAME_NPM_CACHE=${RBFLAME_NPM_CACHE:-/var/cache/rbflame/npm}
# Pinned, so the schema we validate against does not move under us.
SPEEDSCOPE_NPM=speedscope@1.25.0
AJV_NPM=ajv-cli@5.0.0
SPEEDSCOPE_SCHEMA=$RBFLAME_NPM_CACHE/node_modules/speedscope/dist/release/file-format-schema.json
AJV=$RBFLAME_NPM_CACHE/node_modules/.bin/ajv

# need_npm_tools: speedscope's schema and ajv, installed once into the
# cache directory.
need_npm_tools() {
	if [ -f "$SPEEDSCOPE_SCHEMA" ] && [ -x "$AJV" ]; then
		return 0
	fi
	require_cmd npm node
	mkdir -p "$RBFLAME_NPM_CACHE" ||
		skip_or_fail "cannot create $RBFLAME_NPM_CACHE"
	say "installing $SPEEDSCOPE_NPM $AJV_NPM into $RBFLAME_NPM_CACHE"
	# make -j runs the format tests at once: one npm install at a time.
	flock "$RBFLAME_NPM_CACHE/.lock" npm install --prefix "$RBFLAME_NPM_CACHE" \
		--no-audit --no-fund --loglevel=error "$SPEEDSCOPE_NPM" \
		"$AJV_NPM" >"$T/npm.log" 2>&1 ||
		skip_or_fail "npm install failed: $(tail -n 3 "$T/npm.log")"
	[ -f "$SPEEDSCOPE_SCHEMA" ] ||
		fail "the speedscope package has no $SPEEDSCOPE_SCHEMA"
}

# validate_speedscope FILE: valid against speedscope's own schema.
validate_speedscope() {
	"$AJV" validate --strict=false -s "$SPEEDSCOPE_SCHEMA" -d "$1" \
		>"$T/ajv.out" 2>&1 ||
		fail "${1##*/} is not valid speedscope JSON: $(head -c 600 "$T/ajv.out")"
}

# speedscope_samples FILE PERIOD_NS: the samples in all its profiles,
# from their weights (samples without times are one weighted entry per
# stack).
speedscope_samples() {
	node -e '
		const p = JSON.parse(require("fs").readFileSync(process.argv[1]));
		let w = 0;
		for (const q of p.profiles)
			for (const x of q.weights) w += x;
		console.log(w / Number(process.argv[2]));
	' "$1" "$2"
}

# speedscope_count FILE: the samples in all its profiles, counted (their
# weights are the time each stands for).
speedscope_count() {
	node -e '
		const p = JSON.parse(require("fs").readFileSync(process.argv[1]));
		let n = 0;
		for (const q of p.profiles) n += q.samples.length;
		console.log(n);
	' "$1"
}

# stackprof_total FILE: "Samples: N" of stackprof --text.
stackprof_total() {
	stackprof --text "$1" >"$T/stackprof.out" 2>"$T/stackprof.err" ||
		fail "stackprof --text ${1##*/} failed: $(head -c 600 "$T/stackprof.err")"
	sed -n 's/^ *Samples: \([0-9]*\) .*/\1/p' "$T/stackprof.out"
}

# callgrind_total FILE: callgrind_annotate's "PROGRAM TOTALS".
callgrind_total() {
	callgrind_annotate "$1" >"$T/cga.out" 2>"$T/cga.err" ||
		fail "callgrind_annotate ${1##*/} failed: $(head -c 600 "$T/cga.err")"
	sed -n 's/^\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' "$T/cga.out" | tr -d ,
}

# pprof_total FILE INDEX [ARGS]: go tool pprof -top's total for sample
# type INDEX (samples or wall), as printed ("... of N total").
pprof_total() {
	HOME=$T PPROF_TMPDIR=$T go tool pprof -sample_index="$2" "${@:3}" -top "$1" \
		>"$T/pprof.out" 2>"$T/pprof.err" ||
		fail "go tool pprof ${1##*/} failed: $(head -c 600 "$T/pprof.err")"
	sed -n 's/^Showing nodes accounting for .* of \([0-9.a-z]*\) total$/\1/p' \
		"$T/pprof.out"
}

# collapsed_total FILE: the sum of the counts.
collapsed_total() {
	awk '{ n += $NF } END { print n + 0 }' "$1"
}

# samplingprof_total FILE: the sum of the self counts (third chunk).
samplingprof_total() {
	awk 'BEGIN { RS = ""; FS = "\n" } NR == 3 {
		for (i = 1; i <= NF; i++) { split($i, a, ","); n += a[2] }
	} END { print n + 0 }' "$1"
}
