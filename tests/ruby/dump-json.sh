#!/bin/bash
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# 'rbflame dump --json', with and without --locals, on
# tests/matrix/fixtures/locals.rb: the output validates against
# doc/dump-json.schema.json (tests/ruby/validate-json.py, which must also
# reject five broken copies of it: it can fail); it says what the text
# dump says (the same threads, tids, gvl marks and frame labels, root
# first); lx-hold's LocalsFixture#hold holds count 42 and the rest as in
# the text. Then a snapshot taken with --locals reads back offline as JSON
# with the same locals.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib-ruby.sh"

FIXTURES=$(cd "$top_srcdir/tests/matrix/fixtures" && pwd -P)
SCHEMA="$top_srcdir/doc/dump-json.schema.json"
VALIDATE="$top_srcdir/tests/ruby/validate-json.py"
require_cmd python3

validate() {
	python3 "$VALIDATE" "$SCHEMA" "$1" >"$T/valid.txt" || {
		cat "$T/valid.txt" >&2
		fail "$2: does not validate against doc/dump-json.schema.json"
	}
}

start_fixture locals locals.rb
pid=$TPID

run_rbflame plain 30 dump -p "$pid" --json
expect_rc 0 "rbflame dump -p PID --json"
validate "$T/plain.out" "dump --json"

# Text and JSON in one stop each: the parked threads' stacks agree; the
# spinning thread (lx-spin) moves between the two reads and is compared
# by name only.
run_rbflame text 30 dump -p "$pid" --locals
expect_rc 0 "rbflame dump -p PID --locals"
run_rbflame json 30 dump -p "$pid" --locals --json
expect_rc 0 "rbflame dump -p PID --locals --json"
validate "$T/json.out" "dump --locals --json"

python3 - "$T/plain.out" "$T/json.out" "$T/text.out" <<'PY' >"$T/agree.txt" ||
import json, re, sys
plain = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
errs = []
if plain["locals"] or any("locals" in f for t in plain["threads"]
                          for f in t["frames"]):
    errs.append("--json without --locals has locals")
if doc["locals"] is not True:
    errs.append("--locals --json: top-level locals is not true")
# The text dump, parsed: name -> (tid, gvl, [labels], {label: [lines]}).
text, cur = {}, None
for line in open(sys.argv[3]):
    line = line.rstrip("\n")
    m = re.match(r'^thread (\d+) "(.*)"( gvl)?$', line)
    if m:
        cur = text[m.group(2)] = [int(m.group(1)), [], {}]
        continue
    m = re.match(r'^  (\S.*) \((.*):(\d+)\)$', line)
    if m:
        cur[1].append(m.group(1))
        lab = m.group(1)
        continue
    if line.startswith("    ") and not line.startswith("    ("):
        cur[2].setdefault(lab, []).append(line[4:])
js = {t["name"]: t for t in doc["threads"]}
if sorted(js) != sorted(text):
    errs.append(f"threads: json {sorted(js)}, text {sorted(text)}")
for name in ("main", "lx-hold"):
    t, x = js.get(name), text.get(name)
    if not t or not x:
        continue
    if t["tid"] != x[0]:
        errs.append(f"{name}: tid {t['tid']} in json, {x[0]} in text")
    labels = [f["label"] for f in t["frames"]]
    if labels != x[1]:
        errs.append(f"{name}: frames {labels} in json, {x[1]} in text")
    for f in t["frames"]:
        if f["cfunc"]:
            if "locals" in f:
                errs.append(f"{name}: C frame {f['label']} has locals")
            continue
        want = x[2].get(f["label"], [])
        got = [f"self = {f['self']}"] + [f"{l['name']} = {l['value']}"
                                          for l in f["locals"]]
        if got != want:
            errs.append(f"{name} {f['label']}: json {got}, text {want}")
hold = [f for f in js["lx-hold"]["frames"] if f["label"] == "LocalsFixture#hold"]
if not hold:
    errs.append("lx-hold: no LocalsFixture#hold frame")
else:
    vals = {l["name"]: l["value"] for l in hold[0]["locals"]}
    for k, v in (("count", "42"), ("ratio", "1.5"), ("tag", ":tag"),
                 ("name", '"hello \\"world\\"\\x0a" (14 bytes)'),
                 ("table", "#<Hash size=2>"), ("nothing", "nil")):
        if vals.get(k) != v:
            errs.append(f"LocalsFixture#hold: {k} = {vals.get(k)!r}, want {v!r}")
    if hold[0]["locals_total"] != 15 or hold[0]["stale"]:
        errs.append(f"LocalsFixture#hold: locals_total {hold[0]['locals_total']}, stale {hold[0]['stale']}")
gvl = [t["name"] for t in doc["threads"] if t["gvl"]]
print(f"{len(js)} threads, {sum(len(t['frames']) for t in doc['threads'])} frames agree with the text dump; gvl {gvl}")
for e in errs:
    print(e)
sys.exit(1 if errs else 0)
PY
	{
		cat "$T/agree.txt" >&2
		fail "dump --json disagrees with the text dump"
	}
say "json: $(head -n 1 "$T/agree.txt")"

# The validator fails on what breaks the schema.
n=0
while IFS='|' read -r what expr; do
	python3 - "$T/json.out" "$T/broken.json" "$expr" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
	if python3 "$VALIDATE" "$SCHEMA" "$T/broken.json" >/dev/null; then
		fail "validate-json.py accepts a document with $what"
	fi
	n=$((n + 1))
done <<'EOF2'
no tid|del d["threads"][0]["tid"]
an unknown key|d["threads"][0]["extra"] = 1
a bad state|d["threads"][0]["state"] = "asleep"
locals without self|del d["threads"][0]["frames"][0]["self"]
a string pid|d["pid"] = str(d["pid"])
EOF2
say "validator: rejects all $n broken copies"

# Offline: a snapshot taken with --locals holds what they read.
run_rbflame snap 30 dump -p "$pid" --locals --snapshot "$T/locals.snap"
expect_rc 0 "rbflame dump -p PID --locals --snapshot FILE"
run_rbflame off 30 dump --from-snapshot "$T/locals.snap" --locals --json
expect_rc 0 "rbflame dump --from-snapshot FILE --locals --json"
validate "$T/off.out" "dump --from-snapshot --locals --json"
python3 - "$T/off.out" "$T/json.out" <<'PY' >"$T/off.txt" ||
import json, sys
def hold(p):
    d = json.load(open(p))
    for t in d["threads"]:
        for f in t["frames"]:
            if f["label"] == "LocalsFixture#hold":
                return d["pid"], f["locals"]
off, live = hold(sys.argv[1]), hold(sys.argv[2])
print(f"offline pid {off[0]}, {len(off[1])} locals of LocalsFixture#hold")
sys.exit(0 if off == live else 1)
PY
	{
		cat "$T/off.txt" >&2
		fail "the snapshot's locals differ from the live ones"
	}
say "snapshot: $(cat "$T/off.txt")"
wait_untraced "$pid" 2
assert_running "$pid" 3 0.05
kill_tracee "$pid"
say "PASS"
