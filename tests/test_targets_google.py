"""The Google targets end to end: gemini-jsonschema (parametersJsonSchema), vertex (Vertex
AI parameters) and cca-claude (Claude through Cloud Code Assist). The cases of
../shared/research that apply, one snapshot each (input, output, report). Where
wireschema deliberately differs from a peer, the comment on the case says how and why."""

from __future__ import annotations

import pytest

from conftest import document

GEMINI_JSONSCHEMA = [
    # oh-my-pi 1 writes nullable: true, which this field ignores (not in its list); the
    # type list is JSON Schema, read natively
    ("type-list-kept", {"type": "object", "properties": {"value": {"type": ["string", "null"]}}}),
    # oh-my-pi 2: outside the list, so ignored by the wire: spilled where the model reads it
    ("string-constraints-spilled", {
        "type": "object",
        "properties": {"id": {"type": "string", "pattern": "^\\d+$", "minLength": 1, "maxLength": 8, "description": "ID"}}}),
    # oh-my-pi 10 strips additionalProperties, minimum and format here; all three are in
    # the documented list, so they stay; default and examples are spilled
    ("documented-keywords-kept-others-spilled", {
        "type": "object", "additionalProperties": False,
        "properties": {"n": {"type": "integer", "minimum": 0, "default": 5, "format": "int32", "examples": [1],
                             "exclusiveMaximum": 10, "multipleOf": 2}}}),
    # oh-my-pi 3 drops the numeric enum: "enum (for strings and numbers)" keeps it; a
    # boolean enum is spilled
    ("enums-of-strings-and-numbers", {
        "type": "object",
        "properties": {"valid": {"type": "string", "enum": ["a", "b"]}, "numeric": {"type": "number", "enum": [1, 2]},
                       "mixed": {"enum": ["a", 1]}, "flags": {"enum": [True, False]}}}),
    # oh-my-pi 4 drops the integer const: a number is an enum value here
    ("const-to-enum-or-spill", {
        "type": "object",
        "properties": {"s": {"type": "string", "const": "FOO"}, "i": {"type": "integer", "const": 123}, "n": {"const": None}}}),
    # OpenAPI nullable enums reach the wire as enum [.., null]; null is no enum value here
    ("null-enum-value-becomes-a-null-branch", {
        "type": "object",
        "properties": {"e": {"type": "string", "enum": ["a", "b"], "nullable": True, "description": "mode"},
                       "s": {"type": "string", "enum": ["x", None]}}}),
    ("boolean-subschemas-but-additional-properties", {
        "type": "object", "properties": {"p": True, "q": False}, "additionalProperties": False}),
    # A8 (ADK loses the sibling): a $ref with a non-$ sibling is inlined, siblings winning;
    # a $-prefixed sibling may stay beside the $ref
    ("ref-with-sibling-inlined-dollar-sibling-kept", {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A", "description": "override"}, "b": {"$ref": "#/$defs/A", "$comment": "c"}},
        "$defs": {"A": {"type": "string", "description": "base"}}}),
    # recursion through an optional property is what the wire documents: kept as $ref
    # (gemini parameters and ADK unroll it, llmshim falls back)
    ("recursion-through-optional-property-kept", {
        "type": "object", "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"name": {"type": "string"},
                                                             "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                           "required": ["name"]}}}),
    # "may only be used within non-required properties": a cycle through required
    # properties only is unrolled three levels and cut; nullable is not sufficient
    ("recursion-through-required-properties-unrolled", {
        "type": "object", "properties": {"list": {"$ref": "#/$defs/Cell"}}, "required": ["list"],
        "$defs": {"Cell": {"type": "object", "required": ["value", "next"], "properties": {
            "value": {"type": "integer"}, "next": {"anyOf": [{"$ref": "#/$defs/Cell"}, {"type": "null"}]}}}}}),
    # the cycle root -> Group -> root passes the optional property `group` once: it can
    # stop there, so both $refs stay
    ("cycle-with-one-optional-step-kept", {
        "type": "object", "properties": {"name": {"type": "string"}, "group": {"$ref": "#/$defs/Group"}},
        "$defs": {"Group": {"type": "object", "required": ["members"],
                            "properties": {"members": {"type": "array", "items": {"$ref": "#"}}}}}}),
    # oh-my-pi 17 for the root: object branches merge into the root object
    ("root-one-of-objects-merged", {
        "oneOf": [{"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "string"}}, "required": ["kind", "x"]},
                  {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "integer"}}, "required": ["kind", "y"]}]}),
    ("root-union-of-non-objects-spilled", {
        "type": "object", "properties": {"q": {"type": "string"}},
        "anyOf": [{"type": "object", "properties": {"q": {"minLength": 1}}}, {"type": "string"}]}),
    ("root-enum-spilled-as-written", {"type": "object", "properties": {"a": {"type": "string"}}, "enum": [{"a": "x"}]}),
    ("all-of-merged-or-spilled", {
        "type": "object",
        "properties": {"obj": {"allOf": [{"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
                                         {"properties": {"y": {"type": "integer"}}}]},
                       "clash": {"allOf": [{"type": "string"}, {"type": "integer"}]}}}),
    ("unsupported-subschemas-spilled-as-written", {
        "type": "object", "properties": {"u": {"type": "string"}, "m": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}},
                                         "n": {"not": {"const": "admin"}, "type": "string"}},
        "if": {"properties": {"u": {"const": "x"}}}, "then": {"required": ["m"]}}),
    ("formats-allowed-per-type", {
        "type": "object",
        "properties": {"t": {"type": "string", "format": "date-time"}, "u": {"type": "string", "format": "uri"},
                       "i": {"type": "integer", "format": "int64"}, "x": {"type": "number", "format": "decimal"}}}),
    ("required-names-defined-and-arrays-get-items", {
        "type": "object", "required": ["tags", "missing"], "properties": {"tags": {"type": "array"}}}),
    # the tuple stays (prefixItems is in the list); its closing `items: false` is spelled as a schema
    ("draft-07-tuple-kept-as-prefix-items", {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"pt": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": False}}}),
    ("nested-one-of-kept", {
        "type": "object", "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "integer", "minimum": 1}], "description": "id or index"}}}),
    ("definition-only-used-by-inlined-refs-pruned", {
        "type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "inlined"}, "b": {"$ref": "#/$defs/B"}},
        "$defs": {"A": {"type": "string"}, "B": {"type": "integer"}, "Unused": {"type": "boolean"}}}),
    # $id and $anchor are in the list, but after resolution no $ref needs them
    ("identifiers-dropped-after-resolution", {
        "$schema": "http://json-schema.org/draft-07/schema#", "$id": "Parameters Schema", "type": "object",
        "properties": {"a": {"$ref": "#item"}}, "definitions": {"Item": {"$anchor": "item", "type": "string"}}}),
    ("python-type-names", {"type": "dict", "properties": {"x": {"type": "float"}, "t": {"type": "tuple", "items": {"type": "String"}}}}),
    ("root-not-an-object-falls-back", {"type": "string"}),
    # D26: additionalProperties beside patternProperties spoke only of the names no
    # pattern matches; left alone once the patterns are spilled it would refuse the
    # names they allowed, so it is spilled with them (true allows every name: it stays)
    ("pattern-properties-spilled-with-additional-properties", {
        "type": "object",
        "properties": {"closed": {"type": "object", "properties": {"id": {"type": "string"}},
                                  "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False},
                       "typed": {"type": "object", "patternProperties": {"^n_": {"type": "number"}},
                                 "additionalProperties": {"type": "string"}},
                       "open": {"type": "object", "patternProperties": {"^b_": {"type": "boolean"}}, "additionalProperties": True},
                       "plain": {"type": "object", "additionalProperties": False}}}),
]

VERTEX = [
    # A1/L4: the nullable marker, as on gemini
    ("type-list-to-nullable", {"type": "object", "properties": {"value": {"type": ["string", "null"]}}}),
    # refs stay, spelled ref/defs; description and default may stand beside a ref
    ("refs-kept-spelled-ref-and-defs", {
        "type": "object",
        "properties": {"pet": {"$ref": "#/$defs/Pet", "description": "the pet"}, "other": {"$ref": "#/$defs/Pet", "title": "Other"}},
        "$defs": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}),
    # A4: gemini parameters (and ADK) unroll recursion; ref/defs carry it as it is
    ("recursion-kept-through-defs", {
        "type": "object", "properties": {"self_ref": {"$ref": "#/definitions/Node"}},
        "definitions": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/definitions/Node"}}}}}),
    # a ref may only name a child of the root defs: the root gets one
    ("root-recursion-becomes-a-definition", {
        "type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}}),
    # the output of vertex (python-genai's spelling) reads back to the same schema
    ("vertex-spelling-read-back", {
        "type": "object", "properties": {"pet": {"ref": "#/defs/Pet"}},
        "defs": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}}),
    ("additional-properties-kept", {
        "type": "object", "additionalProperties": False,
        "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}, "free": {"type": "object", "additionalProperties": True}}}),
    ("integer-enum-as-strings-with-format-enum", {
        "type": "object",
        "properties": {"room": {"type": "integer", "enum": [101, 201, 301]}, "big": {"type": "integer", "format": "int64", "enum": [1, 2]},
                       "ratio": {"type": "number", "enum": [0.5, 1.5]}, "dir": {"type": "string", "enum": ["EAST", "WEST"]}}}),
    # L12: the marker stays on a plain type, but nothing may stand beside anyOf, so
    # the wrapper's keywords move into the branches; a union keeps its NULL branch
    ("unions-stand-alone", {
        "type": "object",
        "properties": {"v": {"type": ["string", "integer", "null"], "description": "d", "minLength": 2},
                       "u": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}], "description": "u"}}}),
    # pydantic Optional[Model] = None: the ref cannot take nullable, so NULL is a branch
    ("optional-model-keeps-null-branch", {
        "type": "object",
        "properties": {"pet": {"anyOf": [{"$ref": "#/$defs/Pet"}, {"type": "null"}], "default": None, "description": "optional pet"}},
        "$defs": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}}),
    # opencode#15795: "schema specified other fields alongside any_of"
    ("keywords-beside-any-of-moved-into-branches", {
        "type": "object",
        "properties": {"comments": {"type": "array", "items": {"type": "string"}, "description": "review comments",
                                    "anyOf": [{"minItems": 1}, {"maxItems": 0}]}}}),
    ("root-type-list-settled-as-object", {
        "type": ["object", "null"], "properties": {"a": {"type": "string"}}}),
    ("root-union-through-all-of-merged", {
        "type": "object",
        "allOf": [{"anyOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]},
                             {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]}]}),
    ("unused-definitions-pruned", {
        "type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/B", "minLength": 3}},
        "$defs": {"A": {"type": "string"}, "B": {"type": "string"}, "Unused": {"type": "integer"}}}),
    ("gemini-rules-still-apply", {
        "type": "object",
        "properties": {"c": {"const": "on"}, "f": {"type": "string", "format": "uri"}, "x": {"type": "string", "not": {"enum": ["a"]}},
                       "o": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}}}),
    # as on gemini, an allOf that does not fold is spilled, so the model reads it
    ("all-of-conflict-spilled", {"type": "object", "properties": {"x": {"allOf": [{"type": "string"}, {"type": "integer"}]}}}),
    ("root-not-an-object-falls-back", {"type": "array", "items": {"type": "string"}}),
    # a null that only folding an allOf reveals (a tuple position, a union branch, the
    # node itself) is spelled in this run as an early one is, not in the next
    ("null-revealed-by-a-fold-settled", {
        "type": "object",
        "properties": {"pair": {"prefixItems": [{"type": "string"}, {"allOf": [{"type": "null"}]}]},
                       "only_null": {"allOf": [{"type": "null"}], "enum": ["x", None]},
                       "maybe": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"allOf": [{"type": "null"}]}]}}}}),
    ("pattern-properties-spilled-with-additional-properties", {
        "type": "object",
        "properties": {"closed": {"type": "object", "properties": {"id": {"type": "string"}},
                                  "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False},
                       "plain": {"type": "object", "additionalProperties": False}}}),
]

CCA_CLAUDE = [
    # oh-my-pi 12 drops additionalProperties silently; it is spilled here, like every
    # refused keyword, so the model still reads "no other keys" (or the value schema)
    ("constraints-and-additional-properties-spilled", {
        "type": "object", "additionalProperties": False,
        "properties": {"config": {"type": "object", "additionalProperties": False},
                       "name": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"}},
        "required": ["config", "name"]}),
    # oh-my-pi 13 keeps `lines` required after dropping null; here null said "may be
    # absent", so it leaves required (as in oh-my-pi 14); the union is spilled whole
    ("mixed-union-keeps-first-type-and-null-makes-optional", {
        "type": "object", "properties": {"lines": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}, {"type": "null"}]}},
        "required": ["lines"]}),
    ("nullable-enum-leaves-required", {
        "type": "object", "properties": {"value": {"anyOf": [{"enum": ["A", "B"]}, {"type": "null"}]}}, "required": ["value"]}),
    ("enum-branches-unioned", {
        "type": "object", "required": ["value"],
        "properties": {"value": {"anyOf": [{"enum": ["A", "B"]}, {"enum": ["C", "D"]}]},
                       "loose": {"anyOf": [{"enum": ["A"]}, {"type": "string"}]}}}),
    # oh-my-pi 16 falls back on each of these; each has a form this wire takes
    ("duplicate-enum-deduplicated", {"type": "object", "properties": {"mode": {"type": "string", "enum": ["read", "read"]}}}),
    ("false-subschema-said-in-description", {"type": "object", "properties": {"p": False}}),
    ("one-branch-all-of-merged", {"type": "object", "properties": {"v": {"allOf": [{"type": "string"}]}}}),
    ("invalid-type-falls-back", {"type": "invalid-type-token"}),
    # oh-my-pi 17
    ("root-object-union-required-intersection", {
        "anyOf": [{"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}, "required": ["id", "name"]},
                  {"type": "object", "properties": {"id": {"type": "string"}, "age": {"type": "number"}}, "required": ["id", "age"]}]}),
    # oh-my-pi 18 spills only the other branches' keywords; here the whole union is
    # spilled as it stood, so the model reads every alternative
    ("branch-spill-joins-description", {
        "type": "object", "properties": {"result": {"anyOf": [{"type": "string"}, {"type": "array", "minItems": 1, "items": {"type": "string"}}],
                                                    "description": "Optional result type"}}}),
    # L4: null removed from type lists and unions, the property made optional
    ("type-list-and-null-branch-removed", {
        "type": "object", "required": ["a", "b"],
        "properties": {"a": {"type": ["string", "null"]}, "b": {"any_of": [{"type": "integer"}, {"type": "null"}]}}}),
    # L5: llmshim falls back on a heterogeneous union; the first type is kept, the rest spilled
    ("mixed-union-collapsed-not-fallback", {"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}),
    ("type-list-keeps-first-type", {
        "type": "object", "properties": {"v": {"type": ["integer", "string"], "minimum": 1, "maxLength": 3, "description": "id"}}}),
    # the node's own properties stay beside the merged branches; a property both define
    # is folded with allOf semantics
    ("object-branches-merged-with-own-properties", {
        "type": "object",
        "properties": {"shape": {
            "type": "object", "properties": {"kind": {"type": "string"}, "label": {"type": "string"}}, "required": ["kind"],
            "oneOf": [{"properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["r"]},
                      {"properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["side"]}]}}}),
    ("all-of-conflict-spilled", {"type": "object", "properties": {"x": {"allOf": [{"type": "string"}, {"type": "integer"}]}}}),
    ("refs-inlined-recursion-unrolled", {
        "type": "object", "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}),
    ("formats-defaults-consts-and-non-string-enums-spilled", {
        "type": "object",
        "properties": {"when": {"type": "string", "format": "date-time", "default": "now"}, "c": {"const": "fixed"},
                       "n": {"type": "integer", "enum": [1, 2], "examples": [1]}, "k": {"const": 3}}}),
    ("root-type-list-settled-as-object", {"type": ["null", "object"], "properties": {"a": {"type": "string"}}}),
    ("root-union-of-non-objects-spilled", {
        "type": "object", "properties": {"q": {"type": "string"}}, "anyOf": [{"type": "string"}, {"type": "object"}]}),
]

CASES = (
    [("gemini-jsonschema", *c) for c in GEMINI_JSONSCHEMA]
    + [("vertex", *c) for c in VERTEX]
    + [("cca-claude", *c) for c in CCA_CLAUDE]
)


@pytest.mark.parametrize("target,case,schema", CASES, ids=[f"{t}:{c}" for t, c, _ in CASES])
def test_target(target, case, schema, snap):
    assert document(schema, target) == snap
