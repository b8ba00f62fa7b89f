#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The rbflame authors
#
# validate-json.py SCHEMA DOC: checks the JSON document DOC against the
# JSON Schema SCHEMA (doc/dump-json.schema.json), with the keywords that
# schema uses and no others: type, const, enum, required,
# additionalProperties (false), properties, dependentRequired, items,
# minimum, maxItems, maxLength, $ref (to #/$defs/...). A schema keyword
# this validator does not know is an error, so the schema cannot grow a
# rule that goes unchecked. Prints one line per problem and exits 1;
# exits 0 when the document is valid. No jsonschema module needed.
import json
import sys

KNOWN = {"$schema", "$id", "title", "$defs", "type", "const", "enum",
         "required", "additionalProperties", "properties",
         "dependentRequired", "items", "minimum", "maxItems", "maxLength",
         "$ref"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def check(root, s, v, where, errs):
    for k in s:
        if k not in KNOWN:
            errs.append(f"schema keyword {k} not supported (at {where})")
    if "$ref" in s:
        ref = s["$ref"]
        if not ref.startswith("#/$defs/"):
            errs.append(f"{where}: $ref {ref} not supported")
            return
        s = root["$defs"][ref[len("#/$defs/"):]]
        check(root, s, v, where, errs)
        return
    if "type" in s:
        ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(TYPES[t](v) for t in ts):
            errs.append(f"{where}: {json.dumps(v)[:60]} is not {'/'.join(ts)}")
            return
    if "const" in s and (v != s["const"] or type(v) is not type(s["const"])):
        errs.append(f"{where}: {json.dumps(v)[:60]} is not {s['const']!r}")
    if "enum" in s and v not in s["enum"]:
        errs.append(f"{where}: {json.dumps(v)[:60]} is not one of {s['enum']}")
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                errs.append(f"{where}: no key {k}")
        props = s.get("properties", {})
        if s.get("additionalProperties", True) is False:
            for k in v:
                if k not in props:
                    errs.append(f"{where}: unexpected key {k}")
        for k, deps in s.get("dependentRequired", {}).items():
            if k in v:
                for d in deps:
                    if d not in v:
                        errs.append(f"{where}: {k} without {d}")
        for k, sub in props.items():
            if k in v:
                check(root, sub, v[k], f"{where}.{k}", errs)
    if isinstance(v, list):
        if "maxItems" in s and len(v) > s["maxItems"]:
            errs.append(f"{where}: {len(v)} items, more than {s['maxItems']}")
        if "items" in s:
            for i, x in enumerate(v):
                check(root, s["items"], x, f"{where}[{i}]", errs)
    if isinstance(v, str) and "maxLength" in s and len(v) > s["maxLength"]:
        errs.append(f"{where}: string of {len(v)}, longer than {s['maxLength']}")
    if ("minimum" in s and TYPES["integer"](v) and v < s["minimum"]):
        errs.append(f"{where}: {v} is below {s['minimum']}")


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    try:
        with open(sys.argv[2]) as f:
            doc = json.load(f)
    except ValueError as e:
        print(f"{sys.argv[2]}: not JSON: {e}")
        return 1
    errs = []
    check(schema, schema, doc, "$", errs)
    for e in errs[:50]:
        print(e)
    return 1 if errs else 0


sys.exit(main())
