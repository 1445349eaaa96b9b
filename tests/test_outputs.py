"""Structured-output schemas: any root on the wires that take one (Google's
responseSchema and responseJsonSchema), a wrapper elsewhere whose references still
resolve, and the value read back through the wrapper."""

from __future__ import annotations

import json

import jsonschema
import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wireschema

GOOGLE = ["gemini", "vertex", "gemini-jsonschema"]
WRAPPING = [t.name for t in wireschema.targets() if wireschema._target(t.name).output.get("wrap_non_object")]
# the OpenAPI-subset wires restrict by design (recursion cut after a few levels): the
# others promise that a value valid for the original passes the wire schema
SOUND_WRAPPING = [t for t in WRAPPING if t != "cca-claude"]

ROOTS = {
    "array-of-objects": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
    "string-enum": {"type": "string", "enum": ["red", "blue"]},
    "bare-enum": {"enum": ["yes", "no"]},
    "string": {"type": "string"},
    "integer": {"type": "integer", "minimum": 1},
    "nullable-string": {"type": ["string", "null"]},
    "union": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
}


@pytest.mark.parametrize("target", GOOGLE)
@pytest.mark.parametrize("case", list(ROOTS))
def test_google_outputs_keep_a_non_object_root(target, case):
    result = wireschema.normalize_output(ROOTS[case], target)
    assert not result.used_fallback and not result.wrapped and result.target == target
    assert result.schema.get("type") != "object"
    assert wireschema.normalize_output(result.schema, target).schema == result.schema  # settled


@pytest.mark.parametrize("target", GOOGLE)
def test_tool_parameters_on_google_wires_still_must_be_one_object(target):
    assert wireschema.normalize(ROOTS["array-of-objects"], target).used_fallback
    assert wireschema.normalize_output({"type": "object", "properties": {}}, target).schema["type"] == "object"


@pytest.mark.parametrize("target,path", [("gemini", ("generationConfig", "responseSchema")),
                                         ("gemini", ("generation_config", "response_schema")),
                                         ("vertex", ("generationConfig", "responseSchema")),
                                         ("gemini-jsonschema", ("generationConfig", "responseJsonSchema")),
                                         ("gemini-jsonschema", ("response_json_schema",))])
def test_a_request_never_gets_an_empty_object_for_a_non_object_output(target, path):
    body: dict = {"contents": []}
    node = body
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = ROOTS["array-of-objects"]
    out = wireschema.normalize_request(body, target)
    placed = out.body
    for key in path:
        placed = placed[key]
    assert placed["type"] == "array" and placed == out.outputs[0].schema and not out.outputs[0].used_fallback


_OPEN_NULLABLE = {"type": "object", "properties": {"a": {"type": ["string", "null"], "$comment": "why"}}, "additionalProperties": False}


@pytest.mark.parametrize("target,field,reader", [("gemini", "responseJsonSchema", "gemini-jsonschema"),
                                                 ("vertex", "responseJsonSchema", "gemini-jsonschema"),
                                                 ("gemini-jsonschema", "responseSchema", "gemini")])
def test_a_request_output_in_the_other_google_dialect_is_normalized_as_its_field_reads_it(target, field, reader):
    """Google's generationConfig takes responseSchema (the Schema message) or
    responseJsonSchema (JSON Schema): the one the target does not write travelled as
    written (a `$comment` the API ignores, a `$ref` cycle it refuses), with no word."""
    body = {"contents": [], "generationConfig": {"responseMimeType": "application/json", field: _OPEN_NULLABLE}}
    out = wireschema.normalize_request(body, target)
    (result,) = out.outputs
    assert result.target == reader and result.changes
    assert out.body["generationConfig"] == {"responseMimeType": "application/json", field: result.schema}  # where it stood
    assert result.schema == wireschema.normalize_output(_OPEN_NULLABLE, reader).schema
    assert body["generationConfig"][field] is _OPEN_NULLABLE and "$comment" in _OPEN_NULLABLE["properties"]["a"]


def test_a_rule_files_outputs_of_names_targets_that_exist(tmp_path):
    (tmp_path / "my-gemini.yaml").write_text("extends: gemini\nlocate: {outputs_of: [gemini-jsonschmea]}\n")
    with pytest.raises(wireschema.RuleFileError, match="locate.outputs_of: no target named 'gemini-jsonschmea'.*gemini-jsonschema"):
        wireschema.load_rules(tmp_path)


def test_an_output_variant_names_rules_that_exist(tmp_path):
    (tmp_path / "my-gemini.yaml").write_text("extends: gemini\noutput: {wrap_non_object: false, disable: [gemini/no-such-rule]}\n")
    with pytest.raises(wireschema.RuleFileError, match="no-such-rule"):
        wireschema.load_rules(tmp_path)


# --- the wrapper: a recursive root keeps its meaning (issue 15 F) ---------------------

REF_SPELLINGS = {"$defs": ["#/$defs/Node", "#/%24defs/Node"], "definitions": ["#/definitions/Node", "#/definitio%6Es/Node"]}


def _recursive_list(defs: str, ref: str, through: str) -> dict:
    """A list whose items are nodes that hold the whole list again (`$ref: #`)."""
    node = {"type": "object", "properties": {"kids": {"$ref": "#"}}, "required": ["kids"]}
    if through == "nested":
        node = {"type": "object", "properties": {"inner": node}, "required": ["inner"]}
    schema = {defs: {"Node": node}, "type": "array", "items": {"$ref": ref}}
    if defs == "definitions":
        schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    return schema


def _instance(depth: int, through: str) -> list:
    value: list = []
    for _ in range(depth):
        node = {"kids": value}
        value = [{"inner": node} if through == "nested" else node]
    return value


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from(sorted(REF_SPELLINGS)), st.data(), st.sampled_from(["direct", "nested"]),
       st.sampled_from([1, 10, 100]), st.sampled_from(SOUND_WRAPPING))
def test_a_wrapped_recursive_list_still_takes_its_values(defs, data, through, depth, target):
    ref = data.draw(st.sampled_from(REF_SPELLINGS[defs]))
    schema = _recursive_list(defs, ref, through)
    result = wireschema.normalize_output(schema, target)
    if result.used_fallback or not result.wrapped:
        return  # a wire that cannot carry recursion falls back, reported
    value = {"response": _instance(depth, through)}
    # the wire schema takes the value, and the value read back is valid for the original
    validator = jsonschema.Draft202012Validator(result.schema)
    assert [e.message for e in validator.iter_errors(value)] == []
    assert result.validate(value) == ()
    assert result.restore(json.dumps(value)) == value["response"]


def test_a_wrapped_root_with_definitions_and_a_percent_encoded_ref():
    schema = {"$defs": {"N": {"type": "integer"}}, "type": "array", "items": {"$ref": "#/%24defs/N"}}
    result = wireschema.normalize_output(schema, "openai-strict")
    assert result.wrapped and result.strict and not result.used_fallback
    assert result.schema["properties"]["response"]["items"] == {"$ref": "#/$defs/N"}
    assert result.validate({"response": [1, 2]}) == ()
    assert [i.pointer for i in result.validate({"response": [1, "x"]})] == ["/1"]


# --- the wrap is reported, and the report points into the input ----------------------


def _resolves(schema, pointer):
    node = schema
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


@pytest.mark.parametrize("target", WRAPPING)
@pytest.mark.parametrize("case", list(ROOTS))
def test_a_wrap_is_the_first_change_and_every_pointer_is_into_the_input(target, case):
    schema = ROOTS[case]
    result = wireschema.normalize_output(schema, target)
    assert result.wrapped and not result.used_fallback
    first = result.changes[0]
    assert (first.rule, first.pointer, first.action) == ("output/wrap", "", "rewritten")
    assert "`response`" in first.detail and target in first.detail
    for change in result.changes[1:]:
        if change.pointer:  # where it was, or where it went: its parent is in the input
            _resolves(schema, change.pointer.rsplit("/", 1)[0])


def test_what_a_target_does_to_the_wrapper_alone_is_the_wrap():
    result = wireschema.normalize_output(ROOTS["array-of-objects"], "openai-strict")
    assert [(c.rule, c.pointer) for c in result.changes] == [
        ("output/wrap", ""),
        ("openai-strict/close-objects", "/items/additionalProperties"),
    ]
    # the wrapper's own `additionalProperties: false` is in the output, not in the list
    assert result.schema["additionalProperties"] is False


def test_the_wrap_names_the_references_it_rebased():
    schema = {"type": "array", "items": {"type": "object", "properties": {"next": {"$ref": "#/items"}}}}
    result = wireschema.normalize_output(schema, "mcp")
    assert "1 `$ref` into it rebased to `#/properties/response`" in result.changes[0].detail
    assert all(c.pointer.startswith("/items") for c in result.changes[1:])
    plain = wireschema.normalize_output(ROOTS["string"], "mcp")
    assert "$ref" not in plain.changes[0].detail


def test_a_wrapped_schema_that_falls_back_names_no_wrap():
    result = wireschema.normalize_output(ROOTS["array-of-objects"], "openai-strict", options=wireschema.Options(max_nodes=2))
    assert result.used_fallback and result.changes
    assert "output/wrap" not in [c.rule for c in result.changes]
    assert all(not c.pointer.startswith("/properties/response") for c in result.changes)


@pytest.mark.parametrize(
    "schema, where",
    [
        ({"type": "array", "items": {"enum": [{1}]}}, "set at /items/enum/0"),
        ({"type": "array", "default": float("nan")}, "nan at /default"),
    ],
)
def test_an_input_that_is_no_json_is_named_where_the_input_holds_it(schema, where):
    """Not in the wrapper: the error named `/properties/response/items/enum/0`."""
    with pytest.raises(wireschema.SchemaInputError, match=where):
        wireschema.normalize_output(schema, "openai-strict")


# --- a free-form root: any object for an output, no parameters for a tool -------------

FREE_ROOTS = [{"type": "object"}, {"type": "object", "properties": {}}]
STRICT_CLOSING = ["openai-strict", "openai-strict-compat", "anthropic-strict", "deepseek-strict"]
# wires that take an output in non-strict form (OpenAI's `strict: false`); Anthropic's has none
FAILING_OPEN = [t for t in STRICT_CLOSING if t != "anthropic-strict"]


def _mcp_tool(schema):
    return {"name": "ping", "description": "Is the server up?", "inputSchema": schema}


@pytest.mark.parametrize("free", FREE_ROOTS)
def test_a_free_form_output_root_on_generic_says_it_is_open(free):
    # xgrammar (vLLM, SGLang) reads an object without additionalProperties as closed:
    # the response could only have been {}
    result = wireschema.normalize_output(free, "generic")
    assert result.schema == {"type": "object", "properties": {}, "additionalProperties": True}
    assert ("generic/object-properties", "/additionalProperties") in {(c.rule, c.pointer) for c in result.changes}


@pytest.mark.parametrize("free", FREE_ROOTS)
def test_a_free_form_output_root_on_xai_stays_open(free):
    result = wireschema.normalize_output(free, "xai")
    assert result.strict and result.schema["additionalProperties"] is True
    assert ("xai/close-objects", "/additionalProperties") in {(c.rule, c.pointer) for c in result.changes}


@pytest.mark.parametrize("target", FAILING_OPEN)
@pytest.mark.parametrize("free", FREE_ROOTS)
def test_a_free_form_output_root_on_a_closing_strict_target_fails_open(target, free):
    result = wireschema.normalize_output(free, target)
    assert not result.strict and not result.used_fallback and result.target == target
    assert "an open object (additionalProperties) cannot be closed" in result.strict_reason
    assert result.changes[0].action == "fallback" and result.changes[0].pointer == "/additionalProperties"
    assert result.schema.get("additionalProperties") is not False


@pytest.mark.parametrize("target,closed", [("generic", None), ("xai", False), *((t, False) for t in STRICT_CLOSING)])
@pytest.mark.parametrize("free", FREE_ROOTS)
def test_a_free_form_tool_root_is_still_a_tool_without_parameters(target, closed, free):
    for result in (wireschema.normalize(free, target), wireschema.normalize_tool(_mcp_tool(free), target).result):
        assert result.strict == wireschema._target(target).strict and not result.strict_reason
        assert result.schema.get("properties", {}) == {} and result.schema.get("additionalProperties") is closed


# --- Anthropic's output_config.format: always strict, so an open object is closed -------

OPEN_PARTS = {
    "type": "object",
    "properties": {
        "meta": {"type": "object", "description": "Anything else."},
        "tags": {"type": "object", "additionalProperties": {"type": "string"}},
        "n": {"type": "integer"},
    },
    "required": ["n"],
}


@pytest.mark.parametrize("target", ["anthropic-strict", "anthropic"])
@pytest.mark.parametrize("free", FREE_ROOTS)
def test_a_free_form_output_root_on_anthropic_goes_as_pairs_not_sent_non_strict(target, free):
    """The field always enforces strict mode and refuses an object without
    `additionalProperties: false`: before, such an output failed open to a form the API
    refused, and later was closed, as Anthropic's SDK closes it, taking only {}. It is
    wrapped, and its members go as {key, value} pairs, which restore makes members again."""
    result = wireschema.normalize_output(free, target, strict=True)
    assert result.strict and not result.strict_reason and result.target == "anthropic-strict"
    assert result.wrapped and result.schema["properties"]["response"]["items"]["properties"]["value"] == {}
    assert [c.rule for c in result.changes] == ["output/wrap", "anthropic-output/maps"]
    assert result.restore({"response": [{"key": "a", "value": [1]}]}) == {"a": [1]}


@pytest.mark.parametrize("target", ["anthropic", "bedrock"])
@pytest.mark.parametrize("strict", [None, False])
def test_an_anthropic_output_takes_the_fields_strict_form_whatever_strictness_is_asked(target, strict):
    """The field has no non-strict form. Before, `normalize_output` on `anthropic` without
    strict=True gave the tool's non-strict form: an open object and a numeric bound the
    field refuses."""
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}, "meta": {"type": "object"}}}
    result = wireschema.normalize_output(schema, target, strict=strict)
    assert result.strict and result.target == target
    assert result.schema == wireschema.normalize_output(schema, "anthropic-strict").schema
    assert result.schema["additionalProperties"] is False and "minimum" not in result.schema["properties"]["n"]


def test_maps_in_an_anthropic_output_go_as_pairs_and_other_open_objects_are_closed():
    """Closed, as the field wants every object, a map or free-form object would only ever
    hold {} (what wireschema sent before): it goes as a list of {key, value} pairs."""
    schema = {**OPEN_PARTS, "properties": {**OPEN_PARTS["properties"], "named": {
        "type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}}}
    result = wireschema.normalize_output(schema, "anthropic-strict")
    assert result.strict and not result.strict_reason
    props = result.schema["properties"]
    pair = {"type": "object", "properties": {"key": {"type": "string"}, "value": {"type": "string"}},
            "required": ["key", "value"], "additionalProperties": False}
    assert props["tags"] == {"type": "array", "items": pair}
    assert props["meta"]["type"] == "array" and props["meta"]["items"]["properties"]["value"] == {}
    assert props["meta"]["description"] == "Anything else."
    # naming a property, the object is closed and what else it took spilled
    assert props["named"]["additionalProperties"] is False and '{"type":"integer"}' in props["named"]["description"]
    done = {(c.pointer, c.rule, c.action) for c in result.changes}
    assert {("/properties/meta", "anthropic-output/maps", "rewritten"), ("/properties/tags", "anthropic-output/maps", "rewritten"),
            ("/properties/named/additionalProperties", "anthropic-strict/close-objects", "spilled")} <= done
    assert result.notes["paired_maps"] == ("/properties/meta", "/properties/tags")
    assert wireschema.check(result.schema, "anthropic-strict") == ()
    sent = {"n": 1, "meta": [{"key": "x", "value": [1, 2]}], "tags": [{"key": "k", "value": "v"}], "named": {"a": "b"}}
    jsonschema.validate(sent, result.schema)
    assert result.restore(sent) == {"n": 1, "meta": {"x": [1, 2]}, "tags": {"k": "v"}, "named": {"a": "b"}}


def test_an_anthropic_tool_with_an_open_object_still_fails_open():
    # a tool has a non-strict form (strict: false) that keeps the object open
    result = wireschema.normalize(OPEN_PARTS, "anthropic-strict")
    assert not result.strict and result.strict_reason.startswith("anthropic-strict/open-objects")
    assert "additionalProperties" not in result.schema["properties"]["meta"]


def test_a_recursive_anthropic_output_is_unrolled_not_sent_non_strict():
    tree = {"$defs": {"Node": {"type": "object", "properties": {"name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                               "required": ["name", "kids"]}},
            "type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}, "required": ["root"]}
    result = wireschema.normalize_output(tree, "anthropic-strict")
    assert result.strict and not result.strict_reason
    text = json.dumps(result.schema)
    assert '"$ref"' not in text and '"$defs"' not in text and "cut after 3 levels" in text
    value = {"root": {"name": "a", "kids": [{"name": "b", "kids": [{"name": "c", "kids": [{"name": "d", "kids": []}]}]}]}}
    jsonschema.validate(value, result.schema)
    assert wireschema.normalize(tree, "anthropic-strict").strict_reason.startswith("prepare/resolve-refs")  # a tool fails open


@pytest.mark.parametrize("target", ["anthropic", "anthropic-strict", "bedrock", "bedrock-strict"])
def test_a_map_at_the_root_of_an_anthropic_output_is_wrapped_and_goes_as_pairs(target):
    result = wireschema.normalize_output({"type": "object", "additionalProperties": {"type": "integer"}}, target)
    assert result.strict and result.wrapped
    assert result.schema["properties"]["response"]["type"] == "array"
    assert [(c.rule, c.pointer) for c in result.changes] == [("output/wrap", ""), ("anthropic-output/maps", "")]
    assert result.notes["paired_maps"] == ("",)  # into the input, as the changes' pointers are
    assert result.restore('{"response": [{"key": "a", "value": 1}]}') == {"a": 1}
    # where the wire keeps the map open (or fails open to a form that does), it is not wrapped
    assert not wireschema.normalize_output({"type": "object", "additionalProperties": {"type": "integer"}}, "openai-strict").wrapped


def test_a_map_default_too_large_for_the_budgets_as_pairs_is_spilled_not_fallen_back():
    # 50,000 members are one node as a map, 50,000 as pairs: past the node budget
    big = {"type": "object", "additionalProperties": {"type": "integer"}, "default": {f"k{i}": i for i in range(50_000)}}
    result = wireschema.normalize_output({"type": "object", "properties": {"m": big}}, "anthropic")
    assert result.strict and not result.used_fallback
    m = result.schema["properties"]["m"]
    assert m["type"] == "array" and "default" not in m and m["description"].startswith('(default: {"k0":0,')
    assert ("/properties/m/default", "spilled") in {(c.pointer, c.action) for c in result.changes}


def test_the_notes_of_a_wrapped_output_point_into_the_input():
    result = wireschema.normalize_output({"type": "array", "items": {"type": "object", "properties": {"b": {"type": "integer"}}}}, "openai-strict")
    assert result.wrapped and result.notes["nulled_optionals"] == ("/items/properties/b",)
    assert result.restore('{"response": [{"b": null}]}') == [{}]


def test_an_anthropic_request_gets_its_free_form_output_as_pairs():
    body = {"model": "m", "messages": [], "output_config": {"format": {"type": "json_schema", "schema": OPEN_PARTS}}}
    out = wireschema.normalize_request(body, "anthropic")
    (result,) = out.outputs
    assert result.strict and result.target == "anthropic-strict"
    meta = out.body["output_config"]["format"]["schema"]["properties"]["meta"]
    assert meta["type"] == "array" and meta["items"]["additionalProperties"] is False
    assert result.restore('{"n": 1, "meta": [{"key": "a", "value": 1}], "tags": []}') == {"n": 1, "meta": {"a": 1}, "tags": {}}


WIDE_OPTIONAL = {
    "type": "object",
    "properties": {**{f"f{i}": {"type": "string"} for i in range(30)},
                   "inner": {"type": "object", "properties": {"n": {"type": "integer"}}}},
    "required": ["f0"],
}


def test_an_anthropic_output_past_24_optional_properties_requires_the_later_ones():
    """The field refuses more than 24 optional properties and has no non-strict form:
    before, such an output failed open to a form the API refused."""
    result = wireschema.normalize_output(WIDE_OPTIONAL, "anthropic-strict")
    assert result.strict and not result.strict_reason
    # none takes null: the last ones in document order are required (inner's n, inner, f29..f25)
    assert result.schema["required"] == ["f0", *(f"f{i}" for i in range(25, 30)), "inner"]
    assert result.schema["properties"]["inner"]["required"] == ["n"]
    assert {c.pointer for c in result.changes if c.rule == "anthropic-output/property-counts"} == {
        "/required", "/properties/inner/required"}
    assert wireschema.check(result.schema, "anthropic-strict") == ()
    # what the output takes, the input took
    value = {**{f"f{i}": "v" for i in (0, *range(25, 30))}, "inner": {"n": 1}}
    jsonschema.validate(value, result.schema)
    jsonschema.validate(value, WIDE_OPTIONAL)


MANY_OPTIONAL = pydantic.create_model("ManyOptional", **{f"f{i}": (str | None, None) for i in range(30)}).model_json_schema()


def test_an_anthropic_output_of_many_optional_nullable_fields_fits_both_counts():
    """A pydantic model of 30 `str | None = None` fields: 30 optional properties and 30
    unions, past both of the field's counts. The last 14 lose their null and stay
    optional (left out, they say what null said); 6 of the rest are required and keep
    their null."""
    result = wireschema.normalize_output(MANY_OPTIONAL, "anthropic-strict")
    assert result.strict and not result.strict_reason
    props = result.schema["properties"]
    narrowed = [n for n, p in props.items() if p.get("type") == "string"]
    assert narrowed == [f"f{i}" for i in range(16, 30)]
    assert result.schema["required"] == [f"f{i}" for i in range(10, 16)]
    assert all(props[n]["anyOf"] == [{"type": "string"}, {"type": "null"}] for n in result.schema["required"])
    assert wireschema.check(result.schema, "anthropic-strict") == ()
    for value in ({f"f{i}": None for i in range(10, 16)}, {**{f"f{i}": "x" for i in range(30)}}):
        jsonschema.validate(value, result.schema)
        jsonschema.validate(value, MANY_OPTIONAL)


def test_a_null_whose_other_branch_would_change_meaning_when_merged_stays():
    # additionalProperties beside the union reads no properties; merged with the branch's
    # properties it would admit them: not narrowed, so the last other union is instead
    split = {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "null"}],
             "additionalProperties": False}
    schema = {"type": "object", "properties": {**{f"u{i}": {"type": ["string", "integer"]} for i in range(16)}, "s": split},
              "required": [f"u{i}" for i in range(16)]}
    result = wireschema.normalize_output(schema, "anthropic-strict")
    assert result.strict and not result.strict_reason
    assert result.schema["properties"]["s"]["anyOf"][1] == {"type": "null"}
    assert result.schema["properties"]["u15"]["type"] == "string"
    assert [c.detail.split(":")[0] for c in result.changes if c.rule == "anthropic-output/property-counts"] == [
        "required u15's union narrowed to its first branch"]


def test_an_anthropic_output_past_16_optional_described_models_narrows_them_keeping_both_descriptions():
    """pydantic's `Optional[Address] = Field(None, description=...)` holds the model's
    docstring in the branch, the field's beside the union: the two could not merge, and
    past 16 the output failed open to a form the field refuses (the request failed)."""

    class Address(pydantic.BaseModel):
        """A postal address."""

        street: str

    fields = {f"a{i}": (Address | None, pydantic.Field(None, description=f"address {i}", title=f"Address {i}")) for i in range(18)}
    model = pydantic.create_model("Contacts", **fields)
    result = wireschema.normalize_output(model, "anthropic-output")
    assert result.strict and not result.strict_reason and result.target == "anthropic-output"
    last = result.schema["properties"]["a17"]
    assert "anyOf" not in last and last["type"] == "object" and last["title"] == "Address 17"
    # the branch's title, its model's name, was dropped before (prepare/name-titles): nothing more to say
    assert last["description"] == "address 17 (A postal address.)"
    assert "anyOf" in result.schema["properties"]["a15"]
    narrowed = [c.detail.split(":")[0] for c in result.changes if c.rule == "anthropic-output/property-counts"]
    assert narrowed == [f"null dropped from optional a{i}'s union; its description says the branch's too" for i in (16, 17)]


def test_an_anthropic_output_past_16_unions_of_other_forms_keeps_their_first_branches():
    """Before, it failed open to anthropic's non-strict form, which the field refuses:
    the request failed. Now the last unions keep their first branch that is not null,
    optional ones first; what the output takes, the input took."""
    props = {**{f"u{i}": {"anyOf": [{"type": "null"}, {"type": "string"}, {"type": "integer"}]} for i in range(18)},
             "t": {"type": ["number", "boolean"]}, "e": {"type": ["string", "integer"], "enum": ["a", 1]}}
    schema = {"type": "object", "properties": props, "required": ["u16", "u17", "e"]}
    result = wireschema.normalize_output(schema, "anthropic-strict")
    assert result.strict and not result.strict_reason
    out = result.schema["properties"]
    # 20 unions, 16 taken: e's type list, which its enum's values say alone (no value
    # lost), then t and u15, u14 (optional, last first); the required ones keep theirs
    assert out["e"] == {"enum": ["a", 1]}
    assert out["t"]["type"] == "number" and all(out[f"u{i}"]["type"] == "string" for i in (14, 15))
    assert "anyOf" in out["u13"] and "anyOf" in out["u16"]
    assert wireschema.check(result.schema, "anthropic-strict") == ()
    value = {"u0": None, "u13": "x", "u16": 3, "u17": "y", "t": 1.5, "e": 1}
    jsonschema.validate(value, result.schema)
    jsonschema.validate(value, schema)


def test_an_anthropic_tool_past_24_optional_properties_still_fails_open():
    # a tool has a non-strict form that keeps every property optional
    result = wireschema.normalize(WIDE_OPTIONAL, "anthropic-strict")
    assert not result.strict and result.strict_reason.startswith("anthropic-strict/optional-limit")
    assert result.schema["required"] == ["f0"]


def test_an_output_variant_names_a_target_that_exists(tmp_path):
    (tmp_path / "my-anthropic.yaml").write_text("extends: anthropic-strict\noutput: {variant: anthropic-outptu}\n")
    with pytest.raises(wireschema.RuleFileError, match="anthropic-outptu.*anthropic-output"):
        wireschema.load_rules(tmp_path)


def test_an_output_and_a_tool_of_the_same_schema_never_share_a_memo_entry():
    wireschema.clear_cache()
    for _ in range(3):  # stored the second time it is met
        assert "additionalProperties" not in wireschema.normalize({"type": "object"}, "generic").schema
        assert wireschema.normalize_output({"type": "object"}, "generic").schema["additionalProperties"] is True
    assert wireschema.cache_info().hits > 0


def test_two_targets_whose_outputs_run_by_one_variant_never_share_a_memo_entry():
    # anthropic-strict's and bedrock-strict's outputs both run as anthropic-output; each
    # Result names the target asked for, a hit included
    wireschema.clear_cache()
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    for _ in range(3):  # stored the second time it is met
        assert wireschema.normalize_output(schema, "anthropic-strict").target == "anthropic-strict"
        assert wireschema.normalize_output(schema, "bedrock-strict").target == "bedrock-strict"
    assert wireschema.cache_info().hits > 0
