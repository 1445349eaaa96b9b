"""Preparation shared by every target: input forms, draft upgrade, snake_case, references,
literal payloads, budgets. Each case is a whole-document snapshot (input, output, report)."""

from __future__ import annotations

import json

import pytest

import wireschema
from conftest import document

# (case id, target, input). The target is the one that shows the step most plainly:
# `mcp` keeps $defs and changes little; `gemini` inlines everything; `openai-strict`
# keeps $defs but inlines refs with siblings.
CASES = [
    # -- unions -------------------------------------------------------------------
    ("empty-branches", "gemini", {
        "type": "object",
        "properties": {"zod_optional": {"anyOf": [{"type": "string"}, {"not": {}}]},
                       "one": {"oneOf": [False, {"type": "integer"}, {"not": True, "description": "never"}]},
                       "nothing": {"anyOf": [False, {"not": {}}], "description": "every branch empty: left as it is"}}}),
    ("empty-properties", "mcp", {
        "type": "object",
        "properties": {"name": {"type": "string"},
                       "zod_never": {"not": {}},
                       "false_schema": False,
                       "empty_union": {"anyOf": [False, {"not": {}}], "description": "every branch empty"},
                       "required_never": {"not": {}},
                       "open": {"type": "object", "properties": {"kept": {"not": {}}}},
                       "patterned": {"type": "object", "additionalProperties": False,
                                     "patternProperties": {"^k": {"type": "string"}}, "properties": {"kept": False}}},
        "required": ["name", "required_never"],
        "additionalProperties": False}),
    # -- draft upgrade ------------------------------------------------------------
    ("definitions-to-defs-with-refs", "mcp", {
        "type": "object",
        "properties": {"definitions": {"type": "string"}, "r": {"$ref": "#/definitions/Ref"}},
        "definitions": {"Ref": {"type": "integer"}}}),
    ("tuple-items-and-additional-items", "mcp", {
        "type": "object",
        "properties": {"t": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": False},
                       "open": {"type": "array", "items": [{"type": "string"}]},
                       "stray": {"type": "array", "items": {"type": "string"}, "additionalItems": False}}}),
    ("dependencies-split", "mcp", {
        "type": "object", "dependencies": {"a": ["b"], "c": {"required": ["d"]}}}),
    ("draft04-exclusive-bounds", "mcp", {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": True,
                             "maximum": 10, "exclusiveMaximum": False}}}),
    ("draft04-id", "mcp", {
        "$schema": "http://json-schema.org/draft-04/schema#", "id": "http://example.test/s.json",
        "type": "object", "properties": {"id": {"type": "string", "id": "not-an-id-here"}}}),
    ("openapi-nullable", "mcp", {
        "type": "object",
        "properties": {"s": {"type": "string", "nullable": True},
                       "l": {"type": ["integer"], "nullable": True},
                       "e": {"type": "string", "enum": ["a", "b"], "nullable": True},
                       "u": {"anyOf": [{"type": "string"}, {"type": "integer"}], "nullable": True},
                       "r": {"$ref": "#/$defs/R", "nullable": True, "description": "ref"},
                       "f": {"type": "integer", "nullable": False}},
        "$defs": {"R": {"type": "object"}}}),
    ("schema-uri-upgraded", "mcp", {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}),
    # two identifiers: $id names the schema; the `id` beside it would be read as the
    # identifier once a wire drops $id and its output is normalized again
    ("id-beside-dollar-id", "mcp", {
        "$id": "https://example.test/s.json", "id": "https://example.test/d4.json",
        "type": "object", "properties": {"id": {"type": "string"}}}),
    # a $schema below the root says 2020-12 too: inlined into the root (bedrock) it
    # would otherwise name draft-04 for the whole document
    ("nested-schema-uri-upgraded", "bedrock", {
        "$ref": "#/$defs/A",
        "definitions": {"A": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
                              "properties": {"x": {"type": "string"}}}}}),
    # -- snake_case ----------------------------------------------------------------
    ("snake-case-renamed", "mcp", {
        "type": "object", "additional_properties": False,
        "properties": {"xs": {"type": "array", "min_items": 1, "max_items": 3, "items": {"any_of": [{"type": "string"}]}}}}),
    ("snake-case-wins-collision", "mcp", {
        "type": "object",
        "properties": {"x": {"anyOf": [{"type": "string"}], "any_of": [{"type": "integer"}, {"type": "number"}]}}}),
    # -- references ----------------------------------------------------------------
    ("ref-pointer-escapes", "gemini", {
        "type": "object",
        "properties": {"slash": {"$ref": "#/$defs/a~1b"}, "tilde": {"$ref": "#/$defs/c~0d"},
                       "space": {"$ref": "#/$defs/e%20f"}, "deep": {"$ref": "#/$defs/o/properties/inner"}},
        "$defs": {"a/b": {"type": "string"}, "c~d": {"type": "integer"}, "e f": {"type": "boolean"},
                  "o": {"type": "object", "properties": {"inner": {"type": "number"}}}}}),
    ("ref-id-and-anchor", "gemini", {
        "$id": "https://schemas.example.test/root.json", "type": "object",
        "properties": {"child": {"$ref": "child.json"}, "count": {"$ref": "#Count"},
                       "nested": {"$ref": "child.json#/$defs/S"}},
        "$defs": {"resource": {"$id": "child.json", "type": "object",
                               "properties": {"name": {"$ref": "#/$defs/S"}},
                               "$defs": {"S": {"type": "string", "minLength": 1}}},
                  "anchored": {"$anchor": "Count", "type": "integer"}}}),
    ("ref-siblings-win", "gemini", {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A", "description": "field", "default": "file"}},
        "$defs": {"A": {"type": "string", "enum": ["file", "symbol"], "description": "type-level"}}}),
    ("ref-chain", "gemini", {
        "type": "object", "properties": {"a": {"$ref": "#/$defs/B"}},
        "$defs": {"B": {"$ref": "#/$defs/C", "description": "via B"}, "C": {"type": "integer"}}}),
    ("ref-cycle-unrolled-then-cut", "gemini", {
        "type": "object", "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}),
    ("ref-cycle-kept-as-defs", "openai-strict", {
        "type": "object", "properties": {"tree": {"$ref": "#/$defs/Node"}}, "required": ["tree"],
        "$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                           "required": ["kids"]},
                  "Unused": {"type": "string"}}}),
    ("ref-recursive-with-siblings", "openai-strict", {
        "type": "object", "properties": {"n": {"$ref": "#/$defs/N", "description": "root node"}}, "required": ["n"],
        "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N", "description": "next node"}},
                        "required": ["next"]}}}),
    ("ref-root-is-a-ref", "openai-strict", {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"Record": {"type": "object", "properties": {"name": {"type": "string"}}, "description": "base"}},
        "$ref": "#/definitions/Record", "description": "override"}),
    ("ref-loops-say-nothing", "mcp", {
        "$ref": "#/$defs/A", "description": "root",
        "properties": {"b": {"$ref": "#/$defs/B", "title": "b"}, "self": {"$ref": "#/properties/self"}},
        "$defs": {"A": {"$ref": "#/$defs/B", "minProperties": 1}, "B": {"$ref": "#/$defs/A"}}}),
    ("ref-siblings-merge-properties", "openai-chat", {
        "type": "object",
        "properties": {"o": {"$ref": "#/$defs/O", "properties": {"b": {"type": "integer"}, "a": {"minLength": 1}},
                             "required": ["b"]}},
        "$defs": {"O": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
                        "additionalProperties": False}}}),
    ("dynamic-refs-made-static", "mcp", {
        "$id": "https://example.test/list.json", "type": "object",
        "properties": {"pointer": {"$dynamicRef": "#/$defs/Num"}, "plain": {"$dynamicRef": "#Plain"},
                       "one": {"$dynamicRef": "#One"}, "either": {"$dynamicRef": "#item"},
                       "nowhere": {"$dynamicRef": "#missing"}},
        "$defs": {"Num": {"type": "number"}, "Plain": {"$anchor": "Plain", "type": "string"},
                  "One": {"$dynamicAnchor": "One", "type": "boolean"},
                  "Default": {"$dynamicAnchor": "item", "type": "integer"},
                  "other": {"$id": "other.json", "$defs": {"Item": {"$dynamicAnchor": "item", "type": "string"}}}}}),
    ("root-recursion-keeps-the-root-as-it-was", "openai-chat", {
        "properties": {"next": {"$ref": "#"}, "list": {"type": "array", "items": {"$ref": "#"}}},
        "minProperties": 1}),
    ("ref-external-falls-back", "gemini", {
        "type": "object", "properties": {"a": {"$ref": "https://example.test/other.json"}}}),
    ("ref-unresolvable-falls-back", "gemini", {
        "type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}}),
    # -- literal payloads and property names that look like keywords ---------------
    ("keyword-named-properties-untouched", "gemini", {
        "type": "object",
        "properties": {"anyOf": {"type": "string"}, "$ref": {"type": "string"}, "any_of": {"type": "integer"},
                       "definitions": {"type": "string"}, "properties": {"type": "object", "properties": {"type": {"type": "string"}}}},
        "required": ["anyOf", "$ref"]}),
    ("literal-payloads-untouched", "gemini", {
        "type": "object",
        "properties": {"cfg": {"type": "object", "default": {"$ref": "#/nowhere", "any_of": [1], "definitions": {}},
                               "example": {"oneOf": []}},
                       "mode": {"type": "string", "enum": ["$ref", "anyOf", "any_of"]}}}),
    # -- real-world quirks ------------------------------------------------------------
    ("bfcl-optional-keyword-and-python-types", "mcp", {
        "type": "dict", "required": ["location"],
        "properties": {"location": {"type": "string"}, "radius": {"type": "integer", "optional": "true", "default": 1},
                       "ratio": {"type": "float"}, "anything": {"type": "any"}}}),
    ("enum-duplicates-and-empty", "mcp", {
        "type": "object", "properties": {"a": {"type": "string", "enum": ["x", "y", "x"]}, "b": {"type": "string", "enum": []},
                                         "c": {"enum": [1, 1.0, True]}}}),
    # -- boolean and JSON-text inputs -----------------------------------------------
    ("boolean-true-root", "gemini", True),
    ("boolean-false-root", "gemini", False),
    ("json-text-input", "gemini", '{"type": "object", "properties": {"a": {"type": ["string", "null"]}}}'),
    ("not-a-schema-list", "gemini", [1, 2, 3]),
    ("not-a-schema-number", "openai-strict", 42),
]


@pytest.mark.parametrize("case_id,target,schema", CASES, ids=[c[0] for c in CASES])
def test_preparation(case_id, target, schema, snap):
    assert document(schema, target) == snap


def _deep(levels):
    node = {"type": "string"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"a": node}}
    return node


def _ref_bomb(levels):
    # each definition refers to the previous one twice: 2**levels copies once inlined
    defs = {"D0": {"type": "string"}}
    for i in range(1, levels):
        defs[f"D{i}"] = {"type": "object", "properties": {"l": {"$ref": f"#/$defs/D{i - 1}"}, "r": {"$ref": f"#/$defs/D{i - 1}"}}}
    return {"type": "object", "properties": {"x": {"$ref": f"#/$defs/D{levels - 1}"}}, "$defs": defs}


BUDGETS = [
    ("depth-10000-levels", _deep(10_000), wireschema.Options()),
    ("nodes-ref-bomb", _ref_bomb(40), wireschema.Options()),
    ("literal-characters", {"type": "object", "description": "x" * 2_000}, wireschema.Options(max_literal_bytes=1_000)),
]


@pytest.mark.parametrize("case_id,schema,options", BUDGETS, ids=[b[0] for b in BUDGETS])
def test_budget_exceeded_is_a_reported_fallback(case_id, schema, options, snap):
    doc = document(schema, "gemini", options=options, deep=True)
    doc["input"] = f"<{case_id}>"  # the input itself is too big to keep in a snapshot
    assert doc == snap


# pydantic's schema of a tagged union: an OpenAPI discriminator naming each branch by reference
TAGGED = {
    "type": "object", "required": ["pet"],
    "properties": {"pet": {
        "discriminator": {"mapping": {"cat": "#/$defs/Cat", "dog": "#/$defs/Dog"}, "propertyName": "kind"},
        "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]}},
    "$defs": {
        "Cat": {"type": "object", "properties": {"kind": {"const": "cat"}, "meows": {"type": "integer"}}, "required": ["kind", "meows"]},
        "Dog": {"type": "object", "properties": {"kind": {"const": "dog"}, "barks": {"type": "number"}}, "required": ["kind", "barks"]}},
}


@pytest.mark.parametrize("target", [t.name for t in wireschema.targets()])
def test_a_discriminator_mapping_never_points_into_definitions_inlined_away(target):
    """Where `$defs` went after inlining, the mapping still named `#/$defs/Cat`, with no word."""
    result = wireschema.normalize(TAGGED, target)
    said = result.schema["properties"]["pet"].get("discriminator")
    if "$defs" in result.schema:
        assert said is None or said["mapping"] == TAGGED["properties"]["pet"]["discriminator"]["mapping"]
    elif said is not None:
        assert said == {"propertyName": "kind"}
        assert "prepare/resolve-refs /properties/pet/discriminator dropped: discriminator mapping of 'cat', 'dog' named" \
            " definitions removed after inlining" in map(str, result.changes)


def test_a_discriminator_keeps_its_property_name_where_its_mapping_is_dropped():
    assert wireschema.normalize(TAGGED, "bedrock").schema["properties"]["pet"]["discriminator"] == {"propertyName": "kind"}
    assert wireschema.normalize(TAGGED, "mcp").schema["properties"]["pet"]["discriminator"] == TAGGED["properties"]["pet"]["discriminator"]


def test_a_discriminator_mapping_follows_its_definitions_upgraded_from_draft_07():
    """`definitions` becomes `$defs`, and the `$ref`s to it follow; the mapping still said
    `#/definitions/Cat`, where nothing is now."""
    draft7 = json.loads(json.dumps(TAGGED).replace("$defs", "definitions"))
    result = wireschema.normalize(draft7, "mcp")
    assert result.schema["properties"]["pet"]["discriminator"]["mapping"] == {"cat": "#/$defs/Cat", "dog": "#/$defs/Dog"}
    assert ("prepare/resolve-refs /properties/pet/discriminator rewritten: discriminator mapping follows its definitions:"
            " #/definitions/Cat -> #/$defs/Cat, #/definitions/Dog -> #/$defs/Dog") in map(str, result.changes)


@pytest.mark.parametrize("target", ["openai-strict", "deepseek-strict", "anthropic-strict", "bedrock-strict", "anthropic-output", "xai"])
def test_a_property_admitting_no_value_is_left_out_where_the_wire_closes_its_object(target):
    # zod's `never`: before, openai-strict failed open ("accepts any value") and the
    # strict Anthropic targets sent a property taking any value
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "never": {"not": {}}, "no": False}, "required": ["a"]}
    result = wireschema.normalize(schema, target)
    assert result.strict and not result.used_fallback
    assert result.schema["properties"] == {"a": {"type": "string"}}
    assert result.schema["additionalProperties"] is False
    dropped = [c.pointer for c in result.changes if c.rule == "prepare/empty-properties"]
    assert dropped == ["/properties/never", "/properties/no"]


@pytest.mark.parametrize("target", ["xai-open", "anthropic", "mcp", "gemini"])
def test_a_property_admitting_no_value_stays_where_its_object_takes_other_names(target):
    # an object that says nothing is open here: without the property, its name would take any value
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "never": {"not": {}}}}
    result = wireschema.normalize(schema, target)
    assert "never" in result.schema["properties"]
    assert not any(c.rule == "prepare/empty-properties" for c in result.changes)
