"""Each shipped target end to end: the cases of ../shared/research that apply, one
snapshot each (input, output, report). Where wireschema deliberately differs from a
peer, the comment on the case says how and why."""

from __future__ import annotations

import pytest

from conftest import document

OPENAI_STRICT = [
    # optional properties become "T or null" (every peer forces them required without
    # null, making the model invent values); default goes into the description once
    ("optional-becomes-nullable-and-default-spilled", {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "number", "description": "n", "default": 1},
                       "u": {"type": "string", "default": "x", "description": "already says (default: x)"}},
        "required": ["a", "u"]}),
    # a type list with an enum splits the enum per type; the description stays on the wrapper
    ("type-list-with-enum-split-per-type", {
        "type": "object", "required": ["g", "o"],
        "properties": {"g": {"type": ["string", "null"], "enum": ["js", "py", None], "description": "guide"},
                       "o": {"type": ["object", "null"], "properties": {"k": {"type": "string"}}}}}),
    # a $ref with a sibling is inlined (siblings win); a bare $ref stays; $defs are closed too
    ("ref-with-siblings-inlined-bare-ref-kept", {
        "type": "object",
        "$defs": {"Star": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
        "properties": {"s": {"$ref": "#/$defs/Star", "description": "largest"}, "f": {"$ref": "#/$defs/Star"}},
        "required": ["s", "f"]}),
    # enum/const without type get their type; a mixed enum becomes one branch per type
    # (oh-my-pi fails open here; one anyOf branch per type keeps strict mode)
    ("enum-and-const-get-types", {
        "type": "object", "required": ["e", "c", "m"],
        "properties": {"e": {"enum": ["draft", "published"]}, "c": {"const": 7}, "m": {"enum": [1, "two"]}}}),
    ("one-of-and-all-of-folded", {
        "type": "object", "required": ["u", "a"],
        "properties": {"u": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                       "a": {"allOf": [{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
                                       {"properties": {"y": {"type": "integer"}}}]}}}),
    ("formats-kept-or-spilled", {
        "type": "object", "required": ["url", "email", "when"],
        "properties": {"url": {"type": "string", "format": "uri"}, "email": {"type": "string", "format": "email"},
                       "when": {"type": "string", "format": "date-time", "pattern": "^2", "minLength": 10}}}),
    ("tuple-becomes-items-union", {
        "type": "object", "required": ["pt"],
        "properties": {"pt": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": False}}}),
    ("unsupported-keywords-spilled", {
        "type": "object", "required": ["tags"],
        "properties": {"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "examples": [["a"]]}},
        "if": {"properties": {"tags": {"minItems": 1}}}, "then": {"required": ["tags"]}}),
    ("recursion-kept-as-defs", {
        "type": "object", "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                           "required": ["kids"]}}}),
    # issue 12.7: OpenAI refuses an object without properties ("object schema missing
    # properties"), a tool without parameters included
    ("no-parameters-get-empty-properties", {"type": "object"}),
    # issue 12.9: a default of null on a property that becomes "T or null" says nothing
    # new: dropped (reported), where any other default is spilled
    ("default-null-dropped-other-defaults-spilled", {
        "type": "object", "required": ["r"],
        "properties": {"o": {"type": "string", "default": None}, "n": {"type": ["integer", "null"], "default": None},
                       "r": {"type": "string", "default": None}, "d": {"type": "integer", "default": 0}}}),
    ("python-type-names", {
        "type": "dict", "required": ["n"], "properties": {"n": {"type": "float"}, "any": {"type": "string"}}}),
    # fail-open: strict cannot be reached, the openai-chat output is returned with strict False
    ("fail-open-mixed-object-enum", {"type": "object", "properties": {"v": {"enum": [1, {"a": 1}]}}, "required": ["v"]}),
    ("fail-open-non-primitive-const", {"type": "object", "properties": {"c": {"const": {"a": 1}}}, "required": ["c"]}),
    ("fail-open-any-value-items", {"type": "object", "properties": {"xs": {"type": "array", "items": {}}}, "required": ["xs"]}),
    ("fail-open-open-dict", {"type": "object", "properties": {"d": {"type": "object", "additionalProperties": {"type": "string"}}}, "required": ["d"]}),
    ("fail-open-pattern-properties", {"type": "object", "properties": {"r": {"type": "object", "patternProperties": {"^x": {"type": "string"}}}}, "required": ["r"]}),
    ("fail-open-too-many-enum-values", {"type": "object", "required": ["e"],
                                        "properties": {"e": {"type": "string", "enum": [f"v{i}" for i in range(1001)]}}}),
    ("fail-open-root-not-object", {"type": "array", "items": {"type": "string"}}),
]

GEMINI = [
    ("type-list-to-nullable", {"type": "object", "properties": {"value": {"type": ["string", "null"]}}}),
    ("spill-keywords-outside-the-proto", {
        "type": "object", "additionalProperties": False,
        "properties": {"n": {"type": "integer", "minimum": 0, "default": 5, "format": "int32", "examples": [1],
                             "exclusiveMaximum": 10, "multipleOf": 2}}}),
    ("string-enums-only", {
        "type": "object",
        "properties": {"valid": {"type": "string", "enum": ["a", "b"]}, "numeric": {"type": "number", "enum": [1, 2]},
                       "mixed": {"enum": ["a", 1]}}}),
    ("const-to-enum-or-spill", {
        "type": "object",
        "properties": {"s": {"const": "FOO"}, "i": {"type": "integer", "const": 123}, "n": {"const": None}}}),
    ("null-branch-flattened", {"type": "object", "properties": {"x": {"anyOf": [{"type": "string", "title": "Name"}, {"type": "null"}]}}}),
    ("boolean-subschemas", {"type": "object", "properties": {"p": True, "q": False}}),
    ("multi-type-to-any-of-plus-nullable", {
        "type": "object", "properties": {"v": {"type": ["string", "integer", "null"], "description": "d", "minLength": 2}}}),
    ("one-of-and-all-of", {
        "type": "object",
        "properties": {"u": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                       "a": {"allOf": [{"type": "object", "properties": {"x": {"type": "string"}}},
                                       {"properties": {"y": {"type": "integer"}}, "required": ["y"]}]}}}),
    ("formats-allowed-per-type", {
        "type": "object",
        "properties": {"t": {"type": "string", "format": "date-time"}, "u": {"type": "string", "format": "uri"},
                       "i": {"type": "integer", "format": "int64"}, "f": {"type": "number", "format": "float"},
                       "x": {"type": "number", "format": "decimal"}}}),
    ("required-names-defined-and-arrays-get-items", {
        "type": "object", "required": ["tags", "missing"], "properties": {"tags": {"type": "array"}}}),
    ("recursion-unrolled-then-cut", {
        "type": "object", "properties": {"self_ref": {"$ref": "#/definitions/Node"}},
        "definitions": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/definitions/Node"}}}}}),
    ("tuple-becomes-items-union", {
        "type": "object", "properties": {"pt": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "string"}]}}}),
    ("nullable-any-of-keeps-one-key-order", {
        "type": "object", "properties": {"r": {"anyOf": [{"type": "object"}, {"type": "number"}], "nullable": True,
                                               "default": 1, "description": "retries"}}}),
    ("root-without-type-and-root-union-spilled", {
        "properties": {"a": {"type": "string"}}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}),
    ("root-not-an-object-falls-back", {"type": "string"}),
    # nullable is set top-down; the type inferred later lands after it, so description and
    # nullable move last (the order reading the marker back gives)
    ("nullable-enum-without-type", {"type": "object", "properties": {"e": {"enum": ["a", None], "description": "e"}}}),
    # issue 12.7: OpenAI refuses an object without properties ("object schema missing
    # properties"), a tool without parameters included
    ("no-parameters-get-empty-properties", {"type": "object"}),
    # issue 12.9: a default of null on a property that becomes "T or null" says nothing
    # new: dropped (reported), where any other default is spilled
    ("default-null-dropped-other-defaults-spilled", {
        "type": "object", "required": ["r"],
        "properties": {"o": {"type": "string", "default": None}, "n": {"type": ["integer", "null"], "default": None},
                       "r": {"type": "string", "default": None}, "d": {"type": "integer", "default": 0}}}),
    ("python-type-names", {"type": "dict", "properties": {"x": {"type": "float"}, "t": {"type": "tuple", "items": {"type": "String"}}}}),
    # "T or null" reaches its final form in one run, so the output normalized again is
    # the same bytes: a false branch is spelled before the null beside it folds, a
    # one-branch union beside a null const folds, and a nullable schema ends with its
    # description and then nullable (the order reading the marker back gives)
    ("null-unions-settled-in-one-run", {
        "type": "object",
        "properties": {"f": {"anyOf": [False, {"type": "null"}]},
                       "o": {"anyOf": [{"type": "string", "minLength": 1}], "const": None},
                       "d": {"description": "when", "nullable": True, "format": "date-time", "examples": ["2024-01-01T00:00:00Z"]}}}),
    # an empty type list and an empty allOf name nothing: the type is inferred without
    # them; both anyOf and oneOf on one node become an allOf that is folded or spilled
    ("empty-type-list-and-all-of-before-type-inferred", {
        "type": "object",
        "properties": {"t": {"type": [], "properties": {"a": {"type": "string"}}},
                       "e": {"items": {"type": "string"}, "allOf": []},
                       "b": {"anyOf": [{"type": "string"}], "oneOf": [{"type": "string"}, {"type": "integer"}]}}}),
    ("all-of-conflict-spilled", {"type": "object", "properties": {"x": {"allOf": [{"type": "string"}, {"type": "integer"}]}}}),
]

OPENAI_CHAT = [
    ("root-all-of-merged", {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
                                      {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]}),
    ("root-one-of-spilled", {"oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}),
    ("identifiers-dropped-objects-get-properties-arrays-get-items", {
        "$schema": "http://json-schema.org/draft-07/schema#", "$id": "Parameters Schema",
        "type": "object", "properties": {"o": {"type": "object"}, "xs": {"type": "array"},
                                         "t": {"type": "array", "items": [{"type": "string"}]}}}),
    # the root union is spilled as written; the definition only it used is then pruned
    ("definition-used-only-by-a-spilled-union-pruned", {
        "type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
        "anyOf": [{"$ref": "#/$defs/B"}], "$defs": {"A": {"type": "string"}, "B": {"type": "object"}}}),
    ("nested-unions-kept", {
        "type": "object", "properties": {"v": {"oneOf": [{"type": "string", "format": "uri"}, {"type": "integer", "minimum": 1}]}}}),
]

MCP = [
    ("input-schema-without-type", {"properties": {"q": {"type": "string"}}, "required": ["q"]}),
    ("empty-input-schema", {}),
    ("input-schema-upgraded-minimally", {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"t": {"type": "array", "items": [{"type": "string"}], "additionalItems": False},
                       "r": {"$ref": "#/definitions/R", "description": "kept beside the ref"}},
        "definitions": {"R": {"type": "string"}}}),
    ("not-an-object-falls-back", {"type": "array"}),
    ("unused-definitions-pruned", {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
                                   "$defs": {"A": {"type": "string"}, "Unused": {"type": "integer"}}}),
]

CASES = (
    [("openai-strict", *c) for c in OPENAI_STRICT]
    + [("gemini", *c) for c in GEMINI]
    + [("openai-chat", *c) for c in OPENAI_CHAT]
    + [("mcp", *c) for c in MCP]
)


@pytest.mark.parametrize("target,case,schema", CASES, ids=[f"{t}:{c}" for t, c, _ in CASES])
def test_target(target, case, schema, snap):
    assert document(schema, target) == snap
