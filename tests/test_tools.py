"""Library services around the schema walk: tools in any shape, whole requests, names,
output schemas, restore and validate. Whole documents are snapshots; single properties
are plain asserts."""

from __future__ import annotations

import json

import pytest

import wireschema
from wireschema.outputs import normalize_output
from wireschema.tools import (
    RequestLimitError,
    ToolShapeError,
    normalize_mcp_tool,
    normalize_request,
    normalize_tool,
    normalize_tools,
)

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}}, "required": ["city"]}

SHAPES = {
    "openai-chat": {"type": "function", "function": {"name": "get_weather", "description": "Forecast", "parameters": WEATHER}},
    "openai-responses": {"type": "function", "name": "get_weather", "description": "Forecast", "parameters": WEATHER, "strict": False},
    "anthropic": {"name": "get_weather", "description": "Forecast", "input_schema": WEATHER, "cache_control": {"type": "ephemeral"}},
    "gemini": {"name": "get_weather", "description": "Forecast", "parameters": WEATHER},
    "mcp": {"name": "get_weather", "title": "Forecast", "inputSchema": WEATHER, "annotations": {"readOnlyHint": True}},
    "bedrock": {"toolSpec": {"name": "get_weather", "description": "Forecast", "inputSchema": {"json": WEATHER}}},
}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("target", ["openai-strict", "anthropic", "gemini", "mcp", "bedrock", "openai-responses"])
def test_any_tool_shape_becomes_the_targets_native_tool(shape, target, snap):
    tool = SHAPES[shape]
    before = json.dumps(tool)
    out = normalize_tool(tool, target)
    assert json.dumps(tool) == before  # the caller's tool is not touched
    assert out.original_name == "get_weather"
    assert {"input_shape": shape, "target": target, "tool": out.tool, "strict": out.result.strict} == snap


def test_strict_in_the_tool_is_the_strictness_reached():
    chat = SHAPES["openai-chat"]
    assert normalize_tool(chat, "openai-strict").tool["function"]["strict"] is True
    asked_off = {**chat, "function": {**chat["function"], "strict": False}}
    assert normalize_tool(asked_off, "openai-strict").tool["function"]["strict"] is False
    # strict cannot be reached (an open dict): never true on the wire
    open_dict = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"d": {"type": "object", "additionalProperties": {"type": "string"}}}}}}
    out = normalize_tool(open_dict, "openai-strict")
    assert out.tool["function"]["strict"] is False and out.result.strict_reason


def test_a_tool_without_a_name_is_refused():
    with pytest.raises(ToolShapeError):
        normalize_tool({"parameters": WEATHER}, "gemini")


def test_request_with_thirty_tools_one_broken(snap):
    decls = [{"name": f"tool_{i}", "parameters": {
        "type": "object", "properties": {"x": {"type": ["string", "null"], "minLength": i}}}} for i in range(30)]
    decls[17]["parameters"] = {"type": "object", "properties": {"bad": {"$ref": "https://example.test/remote.json"}}}
    body = {"contents": [], "tools": [{"functionDeclarations": decls}]}
    before = json.dumps(body)
    result = normalize_request(body, "gemini")
    assert json.dumps(body) == before
    fell_back = [i for i, r in enumerate(result.tools[0].results) if r.used_fallback]
    assert fell_back == [17]  # one bad tool falls back alone, the others stay intact
    assert result.body == snap


def test_request_output_schema_wrapped_and_strict_flag_rewritten():
    body = {"response_format": {"type": "json_schema", "json_schema": {"name": "r", "strict": True,
                                                                       "schema": {"type": "array", "items": {"type": "integer"}}}}}
    result = normalize_request(body, "openai-strict")
    js = result.body["response_format"]["json_schema"]
    assert js["schema"]["properties"]["response"] == {"type": "array", "items": {"type": "integer"}}
    assert js["strict"] is True and result.outputs[0].wrapped


def test_names_collide_after_truncating_multi_byte_names():
    long_a = "検索" * 20 + "_alpha"
    long_b = "検索" * 20 + "_beta"
    tools = [{"name": n, "parameters": WEATHER} for n in (long_a, long_b)]
    rule_ok = normalize_tools(tools, "mcp")  # MCP names are free: nothing to rewrite
    assert [t["name"] for t in rule_ok.tools] == [long_a, long_b]
    out = normalize_tools(tools, "gemini")
    wire = [t["name"] for t in out.tools]
    assert wire[0] != wire[1]
    assert all(len(n.encode("utf-8")) <= 64 for n in wire)
    assert [out.names.original(n) for n in wire] == [long_a, long_b]
    again = normalize_tools(tools, "gemini")
    assert [t["name"] for t in again.tools] == wire  # stable suffixes


def test_vertex_limit_of_function_declarations_is_a_clear_error():
    body = {"tools": [{"functionDeclarations": [{"name": f"f{i}", "parameters": WEATHER} for i in range(129)]}]}
    with pytest.raises(RequestLimitError, match="129 tools"):
        normalize_request(body, "vertex")


def test_anthropic_strict_budget_sends_later_tools_non_strict():
    many_optional = {"type": "object", "properties": {f"o{i}": {"type": "string"} for i in range(20)}}
    tools = [{"name": f"t{i}", "input_schema": many_optional, "strict": True} for i in range(3)]
    out = normalize_tools(tools, "anthropic-strict")
    assert [t["strict"] for t in out.tools] == [True, False, False]  # 20 optional each, 24 allowed
    assert out.results[1].changes[0].rule == "request/strict-budget"


def test_mcp_tool_ingestion_requires_an_object():
    ok = normalize_mcp_tool({"name": "q", "inputSchema": {"properties": {"q": {"type": "string"}}}})
    assert ok.tool["inputSchema"]["type"] == "object" and not ok.result.used_fallback
    bad = normalize_mcp_tool({"name": "q", "inputSchema": {"type": "array"}})
    assert bad.result.used_fallback and bad.tool["inputSchema"] == {"type": "object", "properties": {}}


@pytest.mark.parametrize(
    "schema,value,inner",
    [
        ({"type": "array", "items": {"type": "string"}}, {"response": ["a", "b"]}, ["a", "b"]),
        ({"type": "string", "enum": ["yes", "no"]}, {"response": "yes"}, "yes"),
    ],
    ids=["array-root", "string-root"],
)
def test_output_wrap_and_unwrap(schema, value, inner):
    result = normalize_output(schema, "openai-strict")
    assert result.wrapped and result.strict
    assert result.schema["required"] == ["response"]
    assert result.unwrap(value) == inner
    assert result.unwrap({"other": 1}) is None
    assert result.validate(value) == ()


def test_output_refs_resolve_against_the_original_root():
    schema = {"$defs": {"Item": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
              "type": "array", "items": {"$ref": "#/$defs/Item"}}
    result = normalize_output(schema, "openai-strict")
    assert result.schema["properties"]["response"]["items"] == {"$ref": "#/$defs/Item"}
    assert result.schema["$defs"]["Item"]["additionalProperties"] is False
    assert wireschema.check(result.schema, "openai-strict") == ()


def test_restore_and_validate_strict_arguments_with_nulls_for_optional_fields():
    original = {"type": "object", "required": ["city"], "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer", "minimum": 1},
        "note": {"type": ["string", "null"]},
        "where": {"type": "object", "properties": {"lat": {"type": "number"}, "zone": {"type": "string"}}, "required": ["lat"]}}}
    result = wireschema.normalize(original, "openai-strict")
    assert result.strict
    sent = {"city": "Lyon", "days": None, "note": None, "where": {"lat": 45.7, "zone": None}}
    restored = result.restore(sent)
    # nulls strict mode forced are gone; a null the original allows stays
    assert restored == {"city": "Lyon", "note": None, "where": {"lat": 45.7}}
    assert sent["days"] is None  # the model's value is not mutated
    assert result.validate(sent) == ()
    issues = result.validate({"city": "Lyon", "days": 0, "note": None, "where": {"lat": "north", "zone": None}})
    assert [(i.pointer, i.schema_pointer) for i in issues] == [("/days", "/properties/days/minimum"),
                                                             ("/where/lat", "/properties/where/properties/lat/type")]


def test_entries_that_are_not_function_tools_pass_through():
    tools = [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
        {"name": "lookup", "input_schema": WEATHER},
    ]
    out = normalize_tools(tools, "anthropic")
    assert out.tools[0] == tools[0] and out.results[0] is None
    assert out.results[1] is out.result_for("lookup")
    bedrock = normalize_request({"toolConfig": {"tools": [SHAPES["bedrock"], {"cachePoint": {"type": "default"}}]}}, "bedrock")
    assert bedrock.body["toolConfig"]["tools"][1] == {"cachePoint": {"type": "default"}}
