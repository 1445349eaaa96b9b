"""Residual checks of the OpenAI Responses, 2024 strict, Anthropic, Anthropic strict,
Bedrock and generic targets, shown on hand-written "wire" schemas that break one check
each. `wireschema.check` judges a schema as it stands; `normalize` turns any such finding
into the per-tool fallback (or, for a strict target, the non-strict sibling)."""

from __future__ import annotations


import pytest

import wireschema
from conftest import checked


def _closed(props, **extra):
    return {"type": "object", "properties": props, "additionalProperties": False, **extra}


def _nested(levels):
    node = {"type": "string"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"a": node}, "required": ["a"], "additionalProperties": False}
    return node


CASES = [
    ("openai-responses", "one-of", {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}}),
    ("openai-responses", "lookahead-in-pattern", {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(?=a)"}}}),
    ("openai-responses", "lookbehind-in-pattern-properties-key", {"type": "object", "properties": {},
                                                                  "patternProperties": {"(?<!x)y": {"type": "string"}}}),
    ("openai-responses", "unreadable-pattern", {"type": "object", "properties": {"a": {"type": "string", "pattern": "(a"}}}),
    # the 2024 subset: constraints are refused keywords, and the 2024 limits apply
    ("openai-strict-compat", "min-length", {"type": "object", "properties": {"a": {"type": "string", "minLength": 1}},
                                            "required": ["a"], "additionalProperties": False}),
    ("openai-strict-compat", "const", {"type": "object", "properties": {"a": {"type": "string", "const": "x"}},
                                       "required": ["a"], "additionalProperties": False}),
    ("openai-strict-compat", "six-levels-of-objects", _nested(6)),
    ("anthropic", "root-one-of", {"type": "object", "properties": {}, "oneOf": [{"required": ["a"]}]}),
    ("anthropic", "root-not-object", {"type": "string"}),
    ("anthropic", "draft-04-exclusive-minimum", {"type": "object", "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": True}}}),
    ("anthropic", "draft-07-tuple-items", {"type": "object", "properties": {"t": {"type": "array", "items": [{"type": "string"}]}}}),
    ("anthropic-strict", "max-items", _closed({"a": {"type": "array", "items": {"type": "string"}, "maxItems": 3}})),
    ("anthropic-strict", "minimum", _closed({"a": {"type": "integer", "minimum": 1}})),
    ("anthropic-strict", "one-of", _closed({"a": {"oneOf": [{"type": "string"}, {"type": "integer"}]}})),
    ("anthropic-strict", "open-object", {"type": "object", "properties": {"a": {"type": "string"}}}),
    ("anthropic-strict", "object-enum", _closed({"a": {"enum": [{"k": 1}]}})),
    ("anthropic-strict", "array-const", _closed({"a": {"const": [1]}})),
    ("anthropic-strict", "format-not-listed", _closed({"a": {"type": "string", "format": "color-hex"}})),
    ("anthropic-strict", "word-boundary", _closed({"a": {"type": "string", "pattern": "\\bx"}})),
    ("anthropic-strict", "backreference", _closed({"a": {"type": "string", "pattern": "(a)\\1"}})),
    ("anthropic-strict", "named-backreference", _closed({"a": {"type": "string", "pattern": "(?<q>a)\\k<q>"}})),
    ("anthropic-strict", "min-items-two", _closed({"a": {"type": "array", "items": {"type": "string"}, "minItems": 2}})),
    ("anthropic-strict", "ref-with-description", _closed({"a": {"$ref": "#/$defs/A", "description": "d"}}, **{"$defs": {"A": {"type": "string"}}})),
    ("anthropic-strict", "all-of-with-ref", _closed({"a": {"allOf": [{"$ref": "#/$defs/A"}, {"type": "string"}]}}, **{"$defs": {"A": {"type": "string"}}})),
    ("anthropic-strict", "all-of-of-objects", _closed({"a": {"allOf": [_closed({"x": {"type": "string"}}), _closed({"y": {"type": "string"}})]}})),
    ("anthropic-strict", "recursion", _closed({"t": {"$ref": "#/$defs/N"}}, **{"$defs": {"N": _closed({"k": {"$ref": "#/$defs/N"}})}})),
    ("anthropic-strict", "recursion-through-root", _closed({"t": {"$ref": "#"}})),
    ("anthropic-strict", "25-optional-properties", _closed({f"p{i}": {"type": "string"} for i in range(25)})),
    ("anthropic-strict", "17-union-properties", _closed({f"p{i}": {"type": ["string", "null"]} for i in range(17)},
                                                         required=[f"p{i}" for i in range(17)])),
    ("bedrock", "defs", {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}}),
    ("generic", "root-any-of", {"type": "object", "properties": {}, "anyOf": [{"required": ["a"]}]}),
    ("generic", "ref-and-schema", {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {}}),
    ("generic", "boolean-subschema", {"type": "object", "properties": {"a": True}}),
    ("generic", "object-without-properties", {"type": "object", "properties": {"o": {"type": "object"}}}),
    ("generic", "array-without-items", {"type": "object", "properties": {"a": {"type": "array"}}}),
    ("generic", "negative-min-length", {"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}}),
]


@pytest.mark.parametrize("target,case,schema", CASES, ids=[f"{t}:{c}" for t, c, _ in CASES])
def test_check(target, case, schema, snap):
    # every case breaks something, and normalizing the same schema never raises
    assert checked(target, schema) == snap


# a schema each target takes as it stands: its residual checks find nothing
CLEAN = {
    "openai-responses": {"type": "object", "properties": {"a": {"anyOf": [{"type": "string", "pattern": "\\(?=x[(?!)]"}]}}},
    "openai-strict-compat": {"type": "object", "properties": {"a": {"type": "string", "enum": ["x"]}},
                             "required": ["a"], "additionalProperties": False},
    "anthropic": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "d"}},
                  "$defs": {"A": {"oneOf": [{"type": "string"}, {"$ref": "#/$defs/A"}]}}},
    "anthropic-strict": _closed({"a": {"type": "array", "items": {"type": "string", "pattern": "[\\b]"}, "minItems": 1},
                                 "b": {"$ref": "#/$defs/B"}}, **{"$defs": {"B": {"type": "string", "format": "uri"}}}),
    "bedrock": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
    "generic": {"type": "object", "properties": {"a": {"type": "array", "items": {}}}, "additionalProperties": False},
}


@pytest.mark.parametrize("target", list(CLEAN))
def test_clean_schema_passes(target):
    assert wireschema.check(CLEAN[target], target) == ()
