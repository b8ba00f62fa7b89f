#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# -f svg on a real Ruby profile (tests/views/fixtures/workload.rb, three
# steps of a third each): the SVG is well-formed XML (xmllint); every
# frame of the same run's collapsed profile is in it, each with its
# tooltip; --title and --icicle take effect; headless Chromium renders it
# (a 1200x800 screenshot much richer than an empty graph's) and its
# script lays it out: the three steps drawn with their names, and a
# search (?s=) marks about a third of the samples.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-views.sh"

require_ruby
require_cmd xmllint
require_chromium

# One recording, written as SVG directly and through 'rbflame report', and
# as collapsed stacks to compare with.
run_rbflame svg 60 -r 499 -f svg --title 'Workload <&> "views"' \
	-o "$T/flame.svg" -f raw -o "$T/w.rbflame" -- \
	"$RUBY" "$VFIX/workload.rb" 2
expect_rc 0 "rbflame -f svg -f raw -- ruby workload.rb 2"
"$RBFLAME" report -i "$T/w.rbflame" -o "$T/report.svg" \
	--title 'Workload <&> "views"' -o "$T/w.folded" ||
	fail "rbflame report -i w.rbflame -o report.svg -o w.folded failed"
cmp -s "$T/flame.svg" "$T/report.svg" ||
	fail "the SVG from the recording differs from the run's own"
say "report -i w.rbflame -o report.svg: the same bytes as the run's SVG"
xmllint --noout "$T/flame.svg" 2>"$T/xmllint.err" ||
	fail "flame.svg is not well-formed XML: $(head -n 3 "$T/xmllint.err")"
say "flame.svg: well-formed, $(wc -c <"$T/flame.svg") bytes"

# Every frame is drawn, with its text as the first line of its tooltip.
titles() {
	xmllint --xpath '//*[local-name()="g"]/*[local-name()="title"]/text()' \
		"$1" 2>/dev/null | perl -ne '
			next unless /\S/ && !/^\d+ samples? \(|^\[|^\//;
			s/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&#39;/\x27/g;
			s/&amp;/&/g;
			print'
}
titles "$T/flame.svg" | sort -u >"$T/titles.txt"
for m in parse tax render; do
	grep -qE "^Workload#$m \\($VFIX/workload.rb:[0-9]+\\)$" "$T/titles.txt" ||
		fail "no frame Workload#$m (workload.rb:LINE) in flame.svg"
done
grep -qx 'all' "$T/titles.txt" || fail "no root frame 'all'"
# Every frame of the profile is drawn (the test profile is far too small
# for any frame to be narrower than 0.1 px).
perl -ne 's/ \d+$//; chomp; print "$_\n" for split /;/' "$T/w.folded" |
	sort -u >"$T/frames.txt"
missing=$(comm -23 "$T/frames.txt" "$T/titles.txt")
[ -z "$missing" ] || fail "frames of the profile not in the SVG: $(echo "$missing" | head -n 5)"
say "all $(wc -l <"$T/frames.txt") frames of the profile in the SVG"
grep -q '<text id="title"[^>]*>Workload &lt;&amp;&gt; &quot;views&quot;</text>' \
	"$T/flame.svg" || fail "--title not shown (escaped) as the title"

# Flame: the root at the bottom; icicle: at the top.
root_y() {
	perl -ne 'if (/<g class="f"[^>]* data-d="0"/) { /<rect x="[^"]*" y="([^"]*)"/; print "$1\n"; exit }' "$1"
}
run_rbflame icicle 60 -r 199 -f svg --icicle -o "$T/icicle.svg" -- \
	"$RUBY" "$VFIX/workload.rb" 1
expect_rc 0 "rbflame -f svg --icicle"
xmllint --noout "$T/icicle.svg" || fail "icicle.svg is not well-formed"
fy=$(root_y "$T/flame.svg")
iy=$(root_y "$T/icicle.svg")
perl -e 'exit !($ARGV[0] > $ARGV[1] + 32)' "$fy" "$iy" ||
	fail "root at y=$fy in the flame graph, y=$iy in the icicle graph"
grep -q '>Icicle Graph</text>' "$T/icicle.svg" ||
	fail "icicle graph without its default title"
say "root frame at y=$fy (flame), y=$iy (icicle)"

# Rendered: a screenshot, compared with an empty graph's.
printf '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800"/>\n' \
	>"$T/empty.svg"
screenshot "$T/flame.svg" "$T/flame.png"
screenshot "$T/empty.svg" "$T/empty.png"
fs=$(wc -c <"$T/flame.png")
es=$(wc -c <"$T/empty.png")
[ "$fs" -gt $((es * 4)) ] && [ "$fs" -gt 20000 ] ||
	fail "screenshot looks blank: $fs bytes, an empty page's $es"
say "screenshot: $fs bytes (an empty page: $es)"
if [ -n "${VIEWS_SHOT:-}" ]; then
	cp "$T/flame.png" "$VIEWS_SHOT"
	say "screenshot copied to $VIEWS_SHOT"
fi

# Laid out by its script: every frame counted, the three steps drawn with
# their names on them; a search marks about a third of the samples.
dump_dom "file://$T/flame.svg?s=Workload%23tax" "$T/dom.html"
n=$(grep -c '<g class="f"' "$T/flame.svg")
grep -q "data-rbflame-ready=\"$n\"" "$T/dom.html" ||
	fail "the script did not lay out the $n frames: $(head -c 300 "$T/dom.html")"
for m in parse tax render; do
	grep -q ">Workload#$m</text>" "$T/dom.html" ||
		fail "Workload#$m not drawn with its name"
done
pct=$(sed -n 's/.*data-rbflame-matched="\([0-9.]*\)".*/\1/p' "$T/dom.html" | head -n 1)
[ -n "$pct" ] || fail "search ?s=Workload%23tax did not run"
perl -e 'exit !($ARGV[0] >= 20 && $ARGV[0] <= 45)' "$pct" ||
	fail "search for Workload#tax matched $pct%, expected about a third"
grep -q '>Matched: '"$pct"'% (' "$T/dom.html" ||
	fail "the matched share is not shown"
say "DOM: $n frames laid out, the three steps named; search: $pct% matched"

# Zoomed by the address (?z=): Workload#tax across the whole width, its
# siblings hidden, its ancestors across and faded.
dump_dom "file://$T/flame.svg?z=%5EWorkload%23tax" "$T/zoom.html"
grep -q 'data-rbflame-zoom="Workload#tax (' "$T/zoom.html" ||
	fail "?z=^Workload%23tax did not zoom"
perl -0777 -ne '
	for my $g (/(<g class="f[^"]*"[^>]*>.*?<\/g>)/gs) {
		$tax++ if $g =~ /<title>Workload#tax \(.*<rect x="10\.0" [^>]*width="1180\.0"/s;
		$hidden++ if $g =~ /style="display: none;"[^>]*><title>Workload#(parse|render) /;
		$up++ if $g =~ /^<g class="f up"[^>]*><title>block in Workload#run .*width="1180\.0"/s;
	}
	exit !($tax && $hidden && $up);
' "$T/zoom.html" || fail "zoomed layout wrong"
say "?z=: Workload#tax zoomed to the full width, parse and render hidden"
