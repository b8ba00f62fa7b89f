#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# Each format read by its real client, on a real profile of a real Ruby
# process: one run of tests/ruby/fixtures/threads.rb (five named threads
# and a sleeping main) writes every format at once (-o repeated), and
#   - stackprof --text prints the samples we counted,
#   - callgrind_annotate reads the callgrind file, same total,
#   - go tool pprof -top reads the pprof file, same total in samples,
#     and in time the time the samples stand for (their weights, as the
#     run's summary line gives it, never less than samples x period),
#   - the speedscope JSON is valid against the schema the speedscope npm
#     package ships, holds as many samples, and the same time,
#   - SamplingProf's self counts add up to the same total.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../ruby/lib-ruby.sh"
. "$(dirname "$0")/lib-formats.sh"

require_cmd stackprof callgrind_annotate go
need_npm_tools

run_rbflame run 60 -r 200 --threads -o "$T/p.rbflame" -o "$T/p.txt" \
	-o "$T/p.speedscope.json" -o "$T/p.stackprof.json" \
	-o "$T/callgrind.out.p" -o "$T/p.pb.gz" -o "$T/p.samplingprof" -- \
	"$RUBY" "$FIXTURES/threads.rb" 1.5
expect_rc 0 "rbflame -o (7 formats) -- ruby threads.rb 1.5"
for f in p.rbflame p.txt p.speedscope.json p.stackprof.json callgrind.out.p \
	p.pb.gz p.samplingprof; do
	[ -s "$T/$f" ] || fail "empty or missing output $f"
done

n=$(collapsed_total "$T/p.txt")
[ "$n" -gt 100 ] || fail "only $n samples in the collapsed output"
say "collapsed: $n samples"

got=$(stackprof_total "$T/p.stackprof.json")
[ "$got" = "$n" ] || fail "stackprof --text: Samples: $got, want $n"
say "stackprof --text: Samples: $got; top: $(sed -n 7p "$T/stackprof.out" | tr -s ' ')"

got=$(callgrind_total "$T/callgrind.out.p")
[ "$got" = "$n" ] || fail "callgrind_annotate: PROGRAM TOTALS $got, want $n"
say "callgrind_annotate: PROGRAM TOTALS $got"

got=$(pprof_total "$T/p.pb.gz" samples)
[ "$got" = "$n" ] || fail "go tool pprof -top: $got samples, want $n"
ms=$(pprof_total "$T/p.pb.gz" wall -unit=ms)
# The samples' time, from the summary line ("samples weigh S s of thread
# time"); at 200 Hz a sample stands for about 5 ms: a late tick more, the
# tick after it less (its interval is shorter), so each thread's samples
# add up to 5 ms and its span, which a late first tick makes shorter
# than 5 ms each: at least 98% of 5 ms a sample.
weigh=$(sed -n 's/.*; samples weigh \([0-9.]*\) s of thread time;.*/\1/p' \
	"$T/run.err")
[ -n "$weigh" ] || fail "no samples' time in the summary: $(tail -n 1 "$T/run.err")"
perl -e 'my ($ms, $s, $n) = @ARGV; $ms =~ s/ms$//;
	exit !(abs($ms - 1000 * $s) <= 1 && $ms >= 4.9 * $n)' \
	"$ms" "$weigh" "$n" ||
	fail "go tool pprof -top: wall total $ms, want the samples' $weigh s (at least $((n * 49 / 10)) ms)"
say "go tool pprof -top: $got samples, $ms wall (the samples weigh $weigh s)"
grep -q 'Crew#alpha' "$T/pprof.out" || fail "pprof: no Crew#alpha in -top"

validate_speedscope "$T/p.speedscope.json"
got=$(speedscope_count "$T/p.speedscope.json")
[ "$got" = "$n" ] || fail "speedscope: $got samples, want $n"
ms=$(speedscope_samples "$T/p.speedscope.json" 1000000)
perl -e 'exit !(abs($ARGV[0] - 1000 * $ARGV[1]) <= 1)' "$ms" "$weigh" ||
	fail "speedscope: weights add up to $ms ms, want the samples' $weigh s"
nprof=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).profiles.length)' \
	"$T/p.speedscope.json")
[ "$nprof" -ge 6 ] || fail "speedscope: $nprof profiles, want one per thread (6)"
say "speedscope: valid against the package's schema, $got samples in $nprof thread profiles"

got=$(samplingprof_total "$T/p.samplingprof")
[ "$got" = "$n" ] || fail "samplingprof: self counts add up to $got, want $n"
say "samplingprof: $got samples"
