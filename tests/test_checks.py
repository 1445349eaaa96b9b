"""Residual checks: what each target's output must satisfy, shown on schemas that break
one check each (as a hand-written "wire" schema would). `wireschema.check` judges a
schema as it stands, without rewriting it; `normalize` turns any such finding into the
per-tool fallback (or, for a strict target, the non-strict sibling)."""

from __future__ import annotations


import pytest

import wireschema
from conftest import checked

CASES = [
    ("gemini", "unknown-field", {"type": "object", "properties": {"a": {"type": "string", "additionalProperties": False}}}),
    ("gemini", "type-list", {"type": "object", "properties": {"a": {"type": ["string", "null"]}}}),
    ("gemini", "integer-enum", {"type": "object", "properties": {"a": {"type": "integer", "enum": [1, 2]}}}),
    ("gemini", "uri-format", {"type": "object", "properties": {"a": {"type": "string", "format": "uri"}}}),
    ("gemini", "required-undefined", {"type": "object", "properties": {}, "required": ["ghost"]}),
    ("gemini", "array-without-items", {"type": "object", "properties": {"a": {"type": "array"}}}),
    ("gemini", "root-not-object", {"type": "string"}),
    ("gemini", "bad-bound", {"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}}),
    ("openai-strict", "unknown-keyword", {"type": "object", "properties": {}, "required": [], "additionalProperties": False, "not": {}}),
    ("openai-strict", "untyped", {"type": "object", "properties": {"a": {"description": "any"}}, "required": ["a"], "additionalProperties": False}),
    ("openai-strict", "bad-type-name", {"type": "object", "properties": {"a": {"type": "float"}}, "required": ["a"], "additionalProperties": False}),
    ("openai-strict", "open-object", {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
    ("openai-strict", "optional-property", {"type": "object", "properties": {"a": {"type": "string"}}, "required": [], "additionalProperties": False}),
    ("openai-strict", "object-without-properties", {"type": "object", "required": [], "additionalProperties": False}),
    ("openai-strict", "array-without-items", {"type": "object", "properties": {"a": {"type": "array"}}, "required": ["a"], "additionalProperties": False}),
    ("openai-strict", "object-enum", {"type": "object", "properties": {"a": {"type": "object", "enum": [{"k": 1}], "properties": {}, "required": [], "additionalProperties": False}}, "required": ["a"], "additionalProperties": False}),
    ("openai-strict", "object-const", {"type": "object", "properties": {"a": {"type": "integer", "const": [1]}}, "required": ["a"], "additionalProperties": False}),
    ("openai-strict", "uri-format", {"type": "object", "properties": {"a": {"type": "string", "format": "uri"}}, "required": ["a"], "additionalProperties": False}),
    ("openai-strict", "ref-with-description", {"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "d"}}, "required": ["a"], "additionalProperties": False, "$defs": {"A": {"type": "string"}}}),
    ("openai-strict", "root-union", {"type": "object", "properties": {}, "required": [], "additionalProperties": False, "anyOf": [{"type": "object", "properties": {}, "required": [], "additionalProperties": False}]}),
    ("openai-strict", "bad-multiple-of", {"type": "object", "properties": {"a": {"type": "number", "multipleOf": 0}}, "required": ["a"], "additionalProperties": False}),
    ("openai-chat", "root-union", {"type": "object", "properties": {}, "oneOf": [{"type": "object", "properties": {}}]}),
    ("openai-chat", "object-without-properties", {"type": "object", "properties": {"o": {"type": "object"}}}),
    ("openai-chat", "array-without-items", {"type": "object", "properties": {"a": {"type": "array"}}}),
    ("openai-chat", "bad-required", {"type": "object", "properties": {}, "required": "a", "items": 3}),
    ("mcp", "root-not-object", {"type": "array"}),
    ("mcp", "bad-pattern-shape", {"type": "object", "properties": {"a": {"type": "string", "pattern": 5}}}),
]


def _nested(levels):
    node = {"type": "string"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"a": node}, "required": ["a"], "additionalProperties": False}
    return node


CASES += [("openai-strict", "eleven-levels-of-objects", _nested(11))]


@pytest.mark.parametrize("target,case,schema", CASES, ids=[f"{t}:{c}" for t, c, _ in CASES])
def test_check(target, case, schema, snap):
    # every case breaks something, and normalizing the same schema never raises
    assert checked(target, schema) == snap


def test_normalized_output_passes_its_own_checks():
    schema = {"type": "object", "properties": {"a": {"type": ["string", "null"], "format": "uri"}}}
    for t in wireschema.targets():
        result = wireschema.normalize(schema, t.name)
        # judged by the target it was sent as: a strict one that failed open, by its sibling
        sent_as = t.name if result.strict or not wireschema._target(t.name).strict else wireschema._target(t.name).fail_open
        assert wireschema.check(result.schema, sent_as) == ()
