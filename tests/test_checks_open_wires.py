"""Residual checks of the open-weight and OpenAI-compatible wires added in 2026 (moonshot
and after), shown on schemas that break one check each (as a hand-written "wire" schema
would). `wireschema.check` judges a schema as it stands; `normalize` turns any such
finding into a rewrite or, failing that, the fallback."""

from __future__ import annotations


import pytest

import wireschema
from conftest import checked


def _props(**props):
    return {"type": "object", "properties": props}


CASES = [
    ("moonshot", "title", _props(a={"type": "string", "title": "A"})),
    ("moonshot", "untyped-property", _props(a={"description": "any"})),
    ("moonshot", "type-beside-any-of", _props(a={"type": "string", "anyOf": [{"type": "string"}]})),
    ("moonshot", "nested-defs", _props(a={"type": "object", "$defs": {"X": {"type": "string"}}, "properties": {"x": {"$ref": "#/properties/a/$defs/X"}}})),
    ("moonshot", "recursion-without-end", {**_props(n={"$ref": "#/$defs/N"}),
                                            "$defs": {"N": {**_props(next={"$ref": "#/$defs/N"}), "required": ["next"]}}}),
    ("moonshot", "mixed-enum", _props(a={"type": ["string", "integer"], "enum": ["a", 1]})),
    ("moonshot", "bad-type-name", _props(a={"type": "float"})),
    ("moonshot", "boolean-subschema", _props(a={"type": "array", "items": True})),
    ("llamacpp", "unanchored-pattern", _props(a={"type": "string", "pattern": "abc"})),
    ("groq", "required-without-properties", {"type": "object", "properties": {}, "required": []}),
    ("fireworks", "title-and-if", {**_props(a={"type": "string", "title": "A"}), "if": {"required": ["a"]}}),
    ("cohere-strict", "nothing-required", _props(q={"type": "string"})),
    ("cerebras", "type-list-and-six-branches", {"type": "object", "additionalProperties": False, "required": ["a", "u"], "properties": {
        "a": {"type": ["string", "null"]}, "u": {"anyOf": [{"type": t} for t in ("string", "integer", "boolean", "number", "null", "array")]}}}),
]


@pytest.mark.parametrize("target,case,schema", CASES, ids=[f"{t}:{c}" for t, c, _ in CASES])
def test_check(target, case, schema, snap):
    # every case breaks something, and normalizing the same schema never raises
    assert checked(target, schema) == snap
