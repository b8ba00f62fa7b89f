#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# The writers' golden files (tests/unit/data/, written from the profile
# with hostile frame names: quotes, ';', newlines, invalid UTF-8, a 10 KB
# name) read by the real clients: the escaping holds for them, not only
# for our own tests. 14 samples in all.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-formats.sh"

require_cmd stackprof callgrind_annotate go
need_npm_tools
D=$top_srcdir/tests/unit/data

got=$(stackprof_total "$D/stackprof.golden")
[ "$got" = 14 ] || fail "stackprof --text: Samples: $got, want 14"
grep -q 'A#b;c"q"' "$T/stackprof.out" || fail "stackprof lost A#b;c\"q\""
say "stackprof --text: Samples: $got"

cp "$D/callgrind.golden" "$T/callgrind.out.hostile"
got=$(callgrind_total "$T/callgrind.out.hostile")
[ "$got" = 14 ] || fail "callgrind_annotate: PROGRAM TOTALS $got, want 14"
say "callgrind_annotate: PROGRAM TOTALS $got"

# The golden holds the protobuf uncompressed; pprof reads both.
got=$(pprof_total "$D/pprof.golden" samples)
[ "$got" = 14 ] || fail "go tool pprof: $got samples, want 14"
say "go tool pprof -top: $got samples"

cp "$D/speedscope.golden" "$T/hostile.json"
validate_speedscope "$T/hostile.json"
got=$(speedscope_samples "$T/hostile.json" 10000000)
[ "$got" = 14 ] || fail "speedscope: $got samples, want 14"
# The validator is not vacuous: a profile without weights is refused.
node -e '
	const fs = require("fs");
	const p = JSON.parse(fs.readFileSync(process.argv[1]));
	delete p.profiles[0].weights;
	fs.writeFileSync(process.argv[2], JSON.stringify(p));
' "$T/hostile.json" "$T/broken.json"
if "$AJV" validate --strict=false -s "$SPEEDSCOPE_SCHEMA" -d "$T/broken.json" \
	>/dev/null 2>&1; then
	fail "the schema check accepts a profile without weights"
fi
say "speedscope: valid, $got samples; a broken file is refused"
