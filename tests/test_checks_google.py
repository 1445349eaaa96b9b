"""Residual checks of the Google targets, shown on schemas that break one check each (as
a hand-written "wire" schema would). `wireschema.check` judges a schema as it stands;
`normalize` turns any such finding into a rewrite or, failing that, the fallback."""

from __future__ import annotations


import pytest

import wireschema
from conftest import checked

CASES = [
    # gemini-jsonschema
    ("gemini-jsonschema", "ignored-keyword", {"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}}),
    ("gemini-jsonschema", "bad-type-name", {"type": "object", "properties": {"a": {"type": "float"}}}),
    ("gemini-jsonschema", "boolean-enum", {"type": "object", "properties": {"a": {"type": "boolean", "enum": [True]}}}),
    ("gemini-jsonschema", "uri-format", {"type": "object", "properties": {"a": {"type": "string", "format": "uri"}}}),
    ("gemini-jsonschema", "ref-with-description", {
        "type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "d"}}, "$defs": {"A": {"type": "string"}}}),
    ("gemini-jsonschema", "recursion-through-required", {
        "type": "object", "properties": {"n": {"$ref": "#/$defs/N"}},
        "$defs": {"N": {"type": "object", "required": ["next"], "properties": {"next": {"$ref": "#/$defs/N"}}}}}),
    ("gemini-jsonschema", "required-undefined", {"type": "object", "properties": {}, "required": ["ghost"]}),
    ("gemini-jsonschema", "array-without-items", {"type": "object", "properties": {"a": {"type": "array"}}}),
    ("gemini-jsonschema", "root-union", {"type": "object", "properties": {}, "anyOf": [{"type": "object", "properties": {}}]}),
    ("gemini-jsonschema", "bad-bound", {"type": "object", "properties": {"a": {"type": "integer", "minimum": "0"}}}),
    # vertex: the gemini checks as vertex overrides them, and its own
    ("vertex", "dollar-ref-spelling", {
        "type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}}),
    ("vertex", "type-list", {"type": "object", "properties": {"a": {"type": ["string", "null"]}}}),
    ("vertex", "integer-enum-values", {"type": "object", "properties": {"a": {"type": "integer", "format": "enum", "enum": [1, 2]}}}),
    ("vertex", "number-enum-format", {"type": "object", "properties": {"a": {"type": "number", "format": "enum"}}}),
    ("vertex", "ref-to-nothing", {"type": "object", "properties": {"a": {"ref": "#/defs/B"}}, "defs": {"A": {"type": "string"}}}),
    ("vertex", "ref-with-title", {"type": "object", "properties": {"a": {"ref": "#/defs/A", "title": "T"}}, "defs": {"A": {"type": "string"}}}),
    ("vertex", "description-beside-any-of", {
        "type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "d"}}}),
    # cca-claude: only type, description, title, properties, required, items, enum
    ("cca-claude", "nullable-marker", {"type": "object", "properties": {"a": {"type": "string", "nullable": True}}}),
    ("cca-claude", "any-of", {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}),
    ("cca-claude", "string-constraint", {"type": "object", "properties": {"a": {"type": "string", "maxLength": 5}}}),
    ("cca-claude", "null-type", {"type": "object", "properties": {"a": {"type": "null"}}}),
    ("cca-claude", "integer-enum", {"type": "object", "properties": {"a": {"type": "integer", "enum": [1]}}}),
]


@pytest.mark.parametrize("target,case,schema", CASES, ids=[f"{t}:{c}" for t, c, _ in CASES])
def test_check(target, case, schema, snap):
    # every case breaks something, and normalizing the same schema never raises
    assert checked(target, schema) == snap


@pytest.mark.parametrize("target", ["gemini-jsonschema", "vertex", "cca-claude"])
def test_normalized_output_passes_its_own_checks(target):
    schema = {
        "type": "object",
        "properties": {"a": {"type": ["string", "null"], "format": "uri"}, "n": {"$ref": "#/$defs/N"},
                       "e": {"type": "integer", "enum": [1, 2, None]}, "u": {"oneOf": [{"type": "string"}, {"$ref": "#/$defs/N"}], "description": "u"}},
        "required": ["n"],
        "$defs": {"N": {"type": "object", "required": ["next"], "properties": {"next": {"$ref": "#/$defs/N"}, "v": {"const": 1}}}},
    }
    result = wireschema.normalize(schema, target)
    assert not result.used_fallback
    assert wireschema.check(result.schema, target) == ()
    assert wireschema.normalize(result.schema, target).schema == result.schema


# the Schema proto's own spellings: field names as the proto declares them, the Type enum's names
PROTO_SPELLED = {"type": "OBJECT", "property_ordering": ["tags"],
                 "properties": {"tags": {"type": "ARRAY", "max_items": 3, "items": {"type": "STRING"}}}}


@pytest.mark.parametrize("target", ["gemini", "vertex"])
def test_check_reads_the_protos_own_spellings_as_the_wire_does(target):
    """python-genai dumps `OBJECT` and `max_items`, and the API's proto3 JSON reader takes
    both (json_format.ParseDict does): `check` refused every one of them."""
    assert wireschema.check(PROTO_SPELLED, target) == ()
    # judged as read: a finding on a respelled keyword points where it was written
    bad = {"type": "OBJECT", "properties": {"tags": {"type": "ARRAY", "max_items": -1, "items": {"type": "STRING"}}}}
    assert [(c.pointer, c.detail) for c in wireschema.check(bad, target)] == [
        ("/properties/tags/max_items", "maxItems must be a non-negative integer")]


@pytest.mark.parametrize("engine", ["planned", "staged", "iterative"])
def test_vertex_definitions_are_judged_where_the_wire_keeps_them(engine):
    """Vertex sends the root's definitions as `defs`, no JSON Schema keyword, so no walk
    entered them once respelled: no check judged a definition, and one of a keyword's
    value no draft takes went to the wire as written (its proto reader refused it)."""
    from test_plans import _run

    broken = {"type": "object", "properties": {"a": {"$ref": "#/$defs/S"}, "b": {"$ref": "#/$defs/S"}},
              "$defs": {"S": {"type": "object", "properties": {"f": {"type": "string", "minLength": -1}}}}}
    out = _run(broken, "vertex", engine)
    assert out.used_fallback and [(c.rule, c.pointer, c.detail) for c in out.changes if c.action == "fallback"] == [
        ("gemini/check-shapes", "/$defs/S/properties/f/minLength", "minLength must be a non-negative integer")]
    sound = _run({**broken, "$defs": {"S": {"type": "object", "properties": {"f": {"type": "string"}}}}}, "vertex", engine)
    assert not sound.used_fallback and list(sound.schema["defs"]) == ["S"]
    # judged as the wire reads it: its spellings in a definition too
    wire = {"type": "OBJECT", "properties": {"a": {"ref": "#/defs/S"}}, "defs": {"S": {"type": "OBJECT", "properties": {
        "f": {"type": "STRING", "max_length": 3}, "g": {"type": "banana"}}}}}
    assert [(c.pointer, c.detail) for c in wireschema.check(wire, "vertex") if c.rule == "gemini/check-types"] == [
        ("/defs/S/properties/g/type", "type 'banana' is not accepted")]


def test_the_json_schema_dialect_reads_no_proto_spelling():
    """parametersJsonSchema is JSON Schema: `OBJECT` and `max_items` say nothing there."""
    found = {(c.pointer, c.detail) for c in wireschema.check(PROTO_SPELLED, "gemini-jsonschema")}
    assert ("/type", "type 'OBJECT' is not accepted") in found
    assert ("/properties/tags/max_items", "max_items is not accepted") in found


def test_the_proto_reader_takes_what_check_now_passes():
    json_format = pytest.importorskip("google.protobuf.json_format")
    glm = pytest.importorskip("google.ai.generativelanguage_v1beta")
    json_format.ParseDict(PROTO_SPELLED, glm.Schema.pb()())
