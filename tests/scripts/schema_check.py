#!/usr/bin/env python3
"""Validates JSON documents against the subset of JSON Schema 2020-12 that
docs/schemas/*.schema.json use: type, enum, const, properties, required,
additionalProperties (false or a schema), items, $ref (#/$defs/...), oneOf, minimum, pattern.
Standard library only.

    schema_check.py SCHEMA DOCUMENT...     exit 1 and one line per violation
"""
import json
import re
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def is_type(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def validate(v, s, root, path, out):
    if "$ref" in s:
        name = s["$ref"].split("/")[-1]
        return validate(v, root["$defs"][name], root, path, out)
    if "oneOf" in s:
        ok = []
        for alt in s["oneOf"]:
            errs = []
            validate(v, alt, root, path, errs)
            if not errs:
                ok.append(alt)
        if len(ok) != 1:
            out.append(f"{path}: matches {len(ok)} of the oneOf alternatives")
        return
    if "type" in s:
        ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(is_type(v, t) for t in ts):
            out.append(f"{path}: {type(v).__name__} is not {'/'.join(ts)}")
            return
    if "const" in s and v != s["const"]:
        out.append(f"{path}: {v!r} is not {s['const']!r}")
    if "enum" in s and v not in s["enum"]:
        out.append(f"{path}: {v!r} not in {s['enum']}")
    if "minimum" in s and is_type(v, "number") and v < s["minimum"]:
        out.append(f"{path}: {v} < {s['minimum']}")
    if "pattern" in s and isinstance(v, str) and not re.search(s["pattern"], v):
        out.append(f"{path}: {v!r} does not match {s['pattern']}")
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                out.append(f"{path}: missing {k}")
        props = s.get("properties", {})
        for k, x in v.items():
            if k in props:
                validate(x, props[k], root, f"{path}.{k}", out)
            elif s.get("additionalProperties") is False:
                out.append(f"{path}: unexpected key {k}")
            elif isinstance(s.get("additionalProperties"), dict):
                validate(x, s["additionalProperties"], root, f"{path}.{k}", out)
    if isinstance(v, list) and "items" in s:
        for n, x in enumerate(v):
            validate(x, s["items"], root, f"{path}[{n}]", out)


def main():
    schema = json.load(open(sys.argv[1], encoding="utf-8"))
    bad = 0
    for doc in sys.argv[2:]:
        out = []
        validate(json.load(open(doc, encoding="utf-8")), schema, schema, "$", out)
        for line in out[:50]:
            print(f"{doc}: {line}")
        bad += bool(out)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
