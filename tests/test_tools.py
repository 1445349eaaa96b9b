"""Library services around the schema walk: tools in any shape, whole requests, names,
output schemas, restore and validate. Whole documents are snapshots; single properties
are plain asserts."""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import bounded, calls_of

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


@pytest.mark.parametrize("target", ["anthropic", "gemini", "openai-strict", "bedrock", "mcp"])
@pytest.mark.parametrize("field,value,said", [
    ("description", 5, "its description is int (5), not text"),
    ("description", {"en": "Forecast"}, "its description is dict ({'en': 'Forecast'}), not text"),
    ("strict", "yes", "its strict is 'yes', not true or false"),
    ("strict", 1, "its strict is 1, not true or false"),
    ("strict", "true", "its strict is 'true', not true or false"),
])
def test_a_description_that_is_no_text_or_a_strict_flag_that_is_no_boolean_is_refused_naming_both(target, field, value, said):
    tool = {"name": "get_weather", "input_schema": WEATHER, field: value}
    with pytest.raises(ToolShapeError, match=re.escape(f"tool 'get_weather': {said}")):
        normalize_tool(tool, target)
    # in a list it falls back alone, its report naming the field
    out = normalize_tools([tool, SHAPES["anthropic"]], target)
    assert out.results[0].used_fallback and said in out.results[0].fallback_reason
    assert not out.results[1].used_fallback


def test_a_description_is_refused_in_the_spelling_the_tool_holds_it():
    tool = {"type": "function", "function": {"name": "f", "description": 5, "parameters": WEATHER}}
    with pytest.raises(ToolShapeError, match="tool 'f': its function.description is int"):
        normalize_tool(tool, "gemini")


def test_a_null_description_or_strict_flag_is_none_dropped_where_the_tool_keeps_its_shape_and_reported():
    out = normalize_tool({"name": "f", "description": None, "strict": None, "input_schema": WEATHER}, "anthropic")
    assert out.tool == {"name": "f", "input_schema": WEATHER}
    assert [c.detail for c in out.result.changes if c.rule == "tool/shape"] == [
        "the tool's description is null, which says none: not sent",
        "the tool's strict is null, which says none: not sent",
    ]
    # rebuilt in another shape, a null is simply not sent: nothing was there to lose
    rebuilt = normalize_tool({"name": "f", "description": None, "input_schema": WEATHER}, "gemini")
    assert rebuilt.tool == {"name": "f", "parameters": WEATHER} and rebuilt.result.changes == ()
    # an MCP title stands in for a null description, as for a missing one
    titled = normalize_tool({"name": "f", "description": None, "title": "Forecast", "inputSchema": WEATHER}, "openai-chat")
    assert titled.tool["function"]["description"] == "Forecast"


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


@pytest.mark.parametrize("value,where,what", [
    ({"temperature": float("nan")}, "/temperature", "nan"),
    ({"metadata": {"s": {1}}}, "/metadata/s", "set"),
    ({"messages": [{"sent": datetime.datetime(2026, 1, 1)}]}, "/messages/0/sent", "datetime"),
    ({"extra": object()}, "/extra", "object"),
])
def test_a_request_body_value_that_is_no_json_is_refused_naming_where(value, where, what):
    body = {"tools": [{"name": "f", "input_schema": WEATHER}], **value}
    before = repr(body)
    with pytest.raises(wireschema.SchemaInputError, match=f"the request body: {what} at {where} is not"):
        normalize_request(body, "anthropic")
    assert repr(body) == before


def test_a_request_body_takes_nan_only_where_the_options_allow_it():
    out = normalize_request({"temperature": float("inf")}, "openai-chat", options=wireschema.Options(allow_nan=True))
    assert out.body == {"temperature": float("inf")} and out.changes == ()


def test_a_request_body_nested_past_the_depth_budget_is_refused_beside_its_schemas_not_within_them():
    deep: list = []
    inner = deep
    for _ in range(20_000):  # deeper than any encoder that recurses can write
        inner.append([])
        inner = inner[0]
    with pytest.raises(wireschema.SchemaInputError, match="the request body nests deeper than 96 .* at /messages/0/0/0"):
        normalize_request({"messages": deep}, "anthropic")
    # a tool's schema as deep as its budget takes (95 levels), four below the body's root, is fine
    schema: dict = {"type": "object"}
    for _ in range(47):
        schema = {"type": "object", "properties": {"a": schema}}
    out = normalize_request({"tools": [{"type": "function", "function": {"name": "f", "parameters": schema}}]}, "openai-chat")
    assert not out.tools[0].results[0].used_fallback
    json.dumps(out.body)


def test_a_request_body_is_not_held_to_a_schemas_node_and_character_budgets():
    """A conversation is no schema: its messages and images (base64 text) may be larger
    than one schema may be, and the body is sent as it was given."""
    image = "A" * (9 * 1024 * 1024)  # past max_literal_bytes (8 MiB)
    messages = [{"role": "user", "content": [{"type": "text", "text": str(i)}]} for i in range(12_000)]  # past max_nodes
    body = {"messages": [*messages, {"role": "user", "content": [{"type": "image", "source": {"data": image}}]}], "tools": []}
    out = wireschema.normalize_request(body, "anthropic")
    assert out.body["messages"][-1]["content"][0]["source"]["data"] is image
    assert len(out.body["messages"]) == 12_001 and out.changes == ()


def test_a_request_body_sharing_its_data_many_ways_is_read_once_per_container():
    """Each level holds the one below twice: 2**41 places, 41 containers (metadata that a
    caller builds once and refers to twice, say). It is read in time linear in the
    containers, as `json_copy` copied it."""
    shared: dict = {"leaf": "x"}
    for _ in range(40):
        shared = {"a": shared, "b": shared}
    out = wireschema.normalize_request({"metadata": shared, "tools": []}, "anthropic", options=wireschema.Options(max_depth=64))
    assert out.changes == ()


def test_a_request_body_string_no_utf8_holds_is_mended_and_reported():
    body = {"messages": [{"role": "user", "content": "half \ud83d"}]}
    out = normalize_request(body, "anthropic")
    assert out.body["messages"][0]["content"] == "half \\ud83d"
    assert body["messages"][0]["content"] == "half \ud83d"
    (change,) = out.changes
    assert change.rule == "request/text" and "messages.0.content" in change.detail


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


def test_vertex_jsonschema_sends_gemini_jsonschemas_dialect_within_vertexs_limits():
    """Vertex takes parametersJsonSchema too (vercel/ai #20757); before, only
    gemini-jsonschema spoke it, with the Gemini API's fields and no declaration limit."""
    dated = {"type": "object", "properties": {"d": {"type": "string", "format": "date"}}}
    body = {"tools": [{"functionDeclarations": [{"name": "ns:f", "parametersJsonSchema": dated, "behavior": "BLOCKING"}]}],
            "generationConfig": {"responseSchema": {"type": "object", "properties": {"a": {"type": "null"}}}}}
    out = normalize_request(body, "vertex-jsonschema")
    assert out.body["tools"][0]["functionDeclarations"] == [{"name": "ns_f", "parametersJsonSchema": dated}]
    # the Schema dialect's output field is read as Vertex's Schema, whose Type enum has no NULL
    assert out.body["generationConfig"]["responseSchema"] == normalize_output(
        body["generationConfig"]["responseSchema"], "vertex").schema
    many = {"tools": [{"functionDeclarations": [{"name": f"f{i}", "parametersJsonSchema": dated} for i in range(129)]}]}
    with pytest.raises(RequestLimitError, match="129 tools"):
        normalize_request(many, "vertex-jsonschema")
    assert len(normalize_request(many, "gemini-jsonschema").body["tools"][0]["functionDeclarations"]) == 129


def test_a_tool_list_over_the_limit_is_refused_before_its_tools_are_named(monkeypatch):
    import wireschema.tools as tools_module

    def named(*args, **kwargs):
        raise AssertionError("the tools were named before the count was checked")

    monkeypatch.setattr(tools_module, "assign_wire_names", named)
    tools = [{"name": "search", "parameters": WEATHER}] * 2000
    with pytest.raises(RequestLimitError, match="2000 tools"):
        normalize_tools(tools, "vertex")


def test_anthropic_strict_budget_sends_later_tools_non_strict():
    many_optional = {"type": "object", "properties": {f"o{i}": {"type": "string"} for i in range(20)}}
    tools = [{"name": f"t{i}", "input_schema": many_optional, "strict": True} for i in range(3)]
    out = normalize_tools(tools, "anthropic-strict")
    assert [t["strict"] for t in out.tools] == [True, False, False]  # 20 optional each, 24 allowed
    assert out.results[1].changes[0].rule == "request/strict-budget"


def _optional(n):
    return {"type": "object", "properties": {f"o{i}": {"type": "string"} for i in range(n)}}


def test_past_the_strict_tool_count_the_tool_with_most_optional_parameters_goes_non_strict_first():
    """alphaXiv/agents#51: one tool held 18 of 26 optional parameters. Before, the last
    tools of the request went non-strict, whatever they held; now the fattest goes first."""
    tools = [{"name": "fat", "input_schema": _optional(18), "strict": True}]
    tools += [{"name": f"t{i}", "input_schema": _optional(0), "strict": True} for i in range(20)]
    out = normalize_tools(tools, "anthropic-strict")
    assert [r.strict for r in out.results] == [False] + [True] * 20
    assert out.results[0].changes[0].rule == "request/strict-budget"


def test_past_the_optional_parameter_budget_the_fattest_tool_goes_non_strict_and_the_rest_fit():
    """18 + 5 + 5 + 5 optional parameters, 24 allowed: before, the third and fourth went
    non-strict in request order (two tools); now only the one holding 18 goes."""
    tools = [{"name": f"t{n}", "input_schema": _optional(n), "strict": True} for n in (18, 5, 6, 7)]
    out = normalize_tools(tools, "anthropic-strict")
    assert [r.strict for r in out.results] == [False, True, True, True]
    assert "optional parameters over 24" in out.results[0].changes[0].detail


@pytest.mark.parametrize("target,tool", [
    ("anthropic", lambda i, s: {"name": f"t{i}", "input_schema": s, "strict": True}),
    ("bedrock", lambda i, s: {"toolSpec": {"name": f"t{i}", "inputSchema": {"json": s}, "strict": True}}),
])
def test_tools_asking_strict_on_a_non_strict_target_spend_the_strict_targets_budget(target, tool):
    """Each tool that says strict: true runs as the strict variant, whose wire takes at
    most 20 strict tools a request. Before, the budget was read off the non-strict
    target, which has none: all 22 went strict, and the request was refused."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    out = normalize_tools([tool(i, schema) for i in range(22)], target)
    assert [r.strict for r in out.results] == [True] * 20 + [False] * 2
    last = out.tools[-1].get("toolSpec", out.tools[-1])
    # Converse takes toolSpec.strict only where it is true (bedrock-strict's strict_only_true)
    assert last.get("strict", False) is False and out.results[-1].target == f"{target}-strict"
    assert "request/strict-budget" in [c.rule for c in out.results[-1].changes]


def test_an_mcp_tool_name_the_spec_advises_against_is_reported_not_renamed():
    """MCP 2025-11-25: names SHOULD be 1-128 characters of [A-Za-z0-9_.-]. Before, any
    name passed unsaid; a SHOULD renames nothing, so each other one is reported."""
    names = ["get weather", "n" * 129, "ns.tool-1_v2", "n" * 128]
    out = normalize_tools([{"name": n, "inputSchema": {"type": "object"}} for n in names], "mcp")
    assert out.wire_names == tuple(names) and [t["name"] for t in out.tools] == names
    said = [[(c.rule, c.action, c.detail) for c in r.changes] for r in out.results]
    assert said == [[("tool/name", "kept", f"tool name {n!r} sent as it is, though mcp advises 1 to 128 bytes of [A-Za-z0-9_.-]")]
                    for n in names[:2]] + [[], []]


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
    assert result.validate(value) == ()
    # a value that is no wrapper is the model's answer as it is, never None: an answer in
    # the original's shape is kept, and anything else is judged against the original
    assert result.unwrap(inner) == inner == result.restore(json.dumps(inner))
    assert result.validate(json.dumps(inner)) == ()
    assert result.unwrap({"other": 1}) == {"other": 1}
    issue = result.validate({"other": 1})[0]
    assert issue.pointer == "" and "{'other': 1} is not of type" in issue.message


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


# --- names: unique on the wire, exact on the way back (issues 12.5 and 15 F) --------


def test_two_tools_with_one_name_get_unique_reported_wire_names_and_exact_results():
    tools = [{"name": "search", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}},
             {"name": "search", "parameters": {"type": "object", "properties": {"url": {"type": "string"}}}}]
    out = normalize_tools(tools, "gemini")
    first, second = (t["name"] for t in out.tools)
    assert first == "search" and second == "search_" + hashlib.sha256(b"search").hexdigest()[:6]
    assert out.wire_names == (first, second)
    assert out.names.to_dict() == {first: "search", second: "search"}
    assert "url" in out.result_for(second).schema["properties"] and "q" in out.result_for(first).schema["properties"]
    assert [c.action for c in out.results[1].changes][:1] == ["renamed"] and not out.results[0].changes
    with pytest.raises(wireschema.UnknownToolNameError):
        out.result_for("searching")


DESCRIPTION_AT = {"anthropic": ("description",), "gemini": ("description",), "openai-strict": ("function", "description")}


@pytest.mark.parametrize("target", sorted(DESCRIPTION_AT))
def test_a_name_whose_letters_the_wire_refuses_is_said_in_the_description(target):
    """A name in Chinese reaches the wire as underscores: the model would read no name at
    all, so the description says it; the name map still leads a call back."""
    tools = [{"name": "天气", "description": "Weather now.", "input_schema": WEATHER},  # anthropic's shape
             {"name": "搜索", "parameters": WEATHER},
             {"name": "café au lait", "description": "Coffee.", "parameters": WEATHER}]
    out = normalize_tools(tools, target)

    def said(tool):
        for key in DESCRIPTION_AT[target]:
            tool = tool[key]
        return tool

    assert [said(t) for t in out.tools] == ["Weather now. (tool name: 天气)", "(tool name: 搜索)", "Coffee."]
    assert out.wire_names[2] == "cafe_au_lait"  # the accent goes, the letter stays: nothing to say
    assert [out.names.original(w) for w in out.wire_names] == ["天气", "搜索", "café au lait"]
    renames = [next(c.detail for c in r.changes if c.rule == "tool/name") for r in out.results]
    assert all(d.endswith("; the description says the name") for d in renames[:2])
    assert "description" not in renames[2]
    alone = normalize_tool(tools[1], target)
    assert said(alone.tool) == "(tool name: 搜索)" and alone.result.changes[0].detail.endswith("says the name")
    # a name cut for length loses its end, where an MCP gateway's prefixed names differ
    long = "mcp__github_enterprise__create_pull_request_review_comment_reply_thread" * 2  # past 128 too
    cut = normalize_tool({"name": long, "description": "Reply.", "parameters": WEATHER}, target)
    assert said(cut.tool) == f"Reply. (tool name: {long})"


def test_an_unreadable_tools_placeholder_never_takes_a_real_tools_name():
    tools = [{"parameters": WEATHER}, {"name": "tool_0", "parameters": WEATHER}]
    out = normalize_tools(tools, "gemini")
    placeholder, real = out.wire_names
    assert real == "tool_0" and placeholder != "tool_0"
    assert out.result_for("tool_0") is out.results[1] and not out.results[1].used_fallback
    assert out.result_for(placeholder).used_fallback
    assert out.results[0].changes[0].rule == "tool/unreadable"
    assert out.names.original(placeholder) == placeholder  # it stands for itself, not for the real tool_0


def test_names_are_unique_across_the_tool_lists_of_one_request():
    body = {"tools": [{"functionDeclarations": [{"name": "get weather", "parameters": WEATHER}]},
                      {"functionDeclarations": [{"name": "get_weather", "parameters": WEATHER}]}]}
    out = normalize_request(body, "gemini")
    wires = [d["name"] for tool in out.body["tools"] for d in tool["functionDeclarations"]]
    assert len(set(wires)) == 2 and wires[0] == "get_weather"
    assert out.names.to_dict() == {wires[0]: "get weather", wires[1]: "get_weather"}
    assert out.result_for(wires[1]) is out.tools[1].results[0]


# a body naming its tool "get weather" beyond its tool list: where each wire holds the name
NAMED_ELSEWHERE = {
    "openai-strict": ({"model": "m", "tools": [{"type": "function", "function": {"name": "get weather", "parameters": WEATHER}}],
                       "tool_choice": {"type": "function", "function": {"name": "get weather"}},
                       "messages": [{"role": "assistant", "tool_calls": [
                           {"id": "1", "type": "function", "function": {"name": "get weather", "arguments": "{}"}}]}]},
                      ["/tool_choice/function/name", "/messages/0/tool_calls/0/function/name"]),
    "openai-responses": ({"model": "m", "tools": [{"type": "function", "name": "get weather", "parameters": WEATHER}],
                          "tool_choice": {"type": "function", "name": "get weather"},
                          "input": [{"type": "function_call", "call_id": "1", "name": "get weather", "arguments": "{}"}]},
                         ["/tool_choice/name", "/input/0/name"]),
    "anthropic": ({"model": "m", "tools": [{"name": "get weather", "input_schema": WEATHER}],
                   "tool_choice": {"type": "tool", "name": "get weather"},
                   "messages": [{"role": "assistant", "content": [
                       {"type": "text", "text": "x"}, {"type": "tool_use", "id": "1", "name": "get weather", "input": {}}]}]},
                  ["/tool_choice/name", "/messages/0/content/1/name"]),
    "bedrock": ({"modelId": "m", "toolConfig": {"tools": [{"toolSpec": {"name": "get weather", "inputSchema": {"json": WEATHER}}}],
                                              "toolChoice": {"tool": {"name": "get weather"}}},
                 "messages": [{"role": "assistant", "content": [{"toolUse": {"toolUseId": "1", "name": "get weather", "input": {}}}]}]},
                ["/toolConfig/toolChoice/tool/name", "/messages/0/content/0/toolUse/name"]),
    "gemini": ({"tools": [{"functionDeclarations": [{"name": "get weather", "parameters": WEATHER}]}],
                "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["other", "get weather"]}},
                "contents": [{"role": "model", "parts": [{"functionCall": {"name": "get weather", "args": {}}}]},
                             {"role": "user", "parts": [{"functionResponse": {"name": "get weather", "response": {}}}]}]},
               ["/toolConfig/functionCallingConfig/allowedFunctionNames/1", "/contents/0/parts/0/functionCall/name",
                "/contents/1/parts/0/functionResponse/name"]),
}


@pytest.mark.parametrize("target", sorted(NAMED_ELSEWHERE))
def test_a_renamed_tool_is_named_by_its_wire_name_wherever_the_body_names_it(target):
    """A forced tool choice of the caller's name named no tool of the request (refused),
    and earlier turns called a tool the model could not call."""
    body, places = NAMED_ELSEWHERE[target]
    given = json.loads(json.dumps(body))
    out = normalize_request(body, target)
    assert body == given  # the caller's body is not touched
    assert out.names.to_dict() == {"get_weather": "get weather"}
    changes = [c for c in out.changes if c.rule == "request/tool-name"]
    assert [c.pointer for c in changes] == places
    for c in changes:
        assert _at(out.body, c.pointer) == "get_weather" and c.action == "renamed" and "'get weather'" in c.detail
    if target == "gemini":  # a name of no tool of the request is left as it is
        assert out.body["toolConfig"]["functionCallingConfig"]["allowedFunctionNames"][0] == "other"


GEMINI_BODY = {"contents": [], "tools": [{"functionDeclarations": [{"name": "f", "parameters": WEATHER}]}]}


def test_a_body_grouping_its_tools_as_another_wire_does_is_refused_naming_where():
    """The message named normalize_request as the remedy, to a caller of normalize_request.
    (A target whose requests no `request:` spelling writes: a body of another wire is not
    translated to it.)"""
    with pytest.raises(ToolShapeError) as caught:
        normalize_request(GEMINI_BODY, "mcp")
    said = str(caught.value)
    assert said.startswith("the request body's tool at /tools/0 holds a list of tools under 'functionDeclarations'")
    assert "mcp's requests hold each tool alone" in said and "normalize_request" not in said


@pytest.mark.parametrize("body, target", [
    ({"model": "m", "messages": [], "tools": [{"type": "function", "function": {"name": "f", "parameters": WEATHER}}]}, "cca-claude"),
    ({"model": "m", "messages": [], "response_format": {"type": "json_schema", "json_schema": {"name": "o", "schema": WEATHER}}},
     "mcp"),
])
def test_a_body_written_for_another_wire_is_returned_as_it_is_with_a_warning(body, target, caplog):
    """Where the target has no `request:` spelling to write the body in (see test_requests
    for the wires that have one)."""
    with caplog.at_level(logging.WARNING, logger="wireschema"):
        out = normalize_request(body, target)
    assert out.body == body and not out.tools and not out.outputs
    (record,) = caplog.records
    assert record.getMessage().startswith(f"the request body holds no tool list or output schema where {target}'s requests hold them")
    assert "nothing in it was normalized" in record.getMessage()


def test_a_body_holding_nothing_to_normalize_anywhere_says_nothing(caplog):
    with caplog.at_level(logging.WARNING, logger="wireschema"):
        normalize_request({"model": "m", "messages": []}, "gemini")
        normalize_request({"contents": [], "tools": []}, "gemini")  # an empty list, where other wires keep theirs
    assert not caplog.records


@pytest.mark.parametrize("target, choice, at", [
    ("openai-strict", {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": [
        {"type": "function", "function": {"name": "other"}}, {"type": "function", "function": {"name": "get weather"}}]}},
     "/tool_choice/allowed_tools/tools/1/function/name"),
    ("openai-responses", {"type": "allowed_tools", "mode": "required", "tools": [
        {"type": "image_generation"}, {"type": "function", "name": "get weather"}]}, "/tool_choice/tools/1/name"),
])
def test_the_tools_a_choice_allows_are_named_by_their_wire_names(target, choice, at):
    body, _ = NAMED_ELSEWHERE[target]
    out = normalize_request({**body, "tool_choice": choice}, target)
    assert [c.pointer for c in out.changes if c.rule == "request/tool-name"][0] == at
    assert _at(out.body, at) == "get_weather"


def test_a_name_two_tools_share_is_named_as_the_first_tool_is_on_the_wire():
    for name, first in (("search", "search"), ("get weather", "get_weather")):
        body = {"tools": [{"name": name, "input_schema": WEATHER}, {"name": name, "input_schema": WEATHER}],
                "tool_choice": {"type": "tool", "name": name}, "messages": []}
        out = normalize_request(body, "anthropic")
        assert out.names.wires(name)[0] == first and len(set(out.names.wires(name))) == 2
        assert out.body["tool_choice"]["name"] == first
        assert [c.rule for c in out.changes] == ([] if name == first else ["request/tool-name"])


def _at(doc, pointer):
    for token in pointer.split("/")[1:]:
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


NAME_PARTS = st.sampled_from(["search", "get weather", "get_weather", "tool_0", "tool_1", "x" * 70, "検索", "a.b", ""])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.one_of(NAME_PARTS, st.none()), min_size=1, max_size=12),
       st.sampled_from(["gemini", "openai-strict", "anthropic", "mcp", "bedrock"]))
def test_wire_names_are_unique_and_lead_back_to_their_own_tool(names, target):
    """Any mix of repeated, rewritten, cut and unreadable (None: no name) tools."""
    tools = [{"parameters": WEATHER} if n is None else {"name": n, "parameters": {**WEATHER, "description": f"#{i}"}}
             for i, n in enumerate(names)]
    out = normalize_tools(tools, target)
    wires = out.wire_names
    assert len(set(wires)) == len(wires) == len(tools)
    names_of = wireschema._target(target).names
    # mcp only advises its rule (names.rename: false): a name it refuses is sent as it is
    rule = wireschema.NameRule.from_target(target) if names_of and names_of.get("rename", True) else None
    for i, (wire, n) in enumerate(zip(wires, names)):
        assert rule is None or rule.valid(wire)
        result = out.result_for(wire)
        assert result is out.results[i]
        if n is None:
            assert result.used_fallback and out.names.original(wire) == wire
        else:
            assert out.names.original(wire) == n and result.schema["description"] == f"#{i}"
    assert normalize_tools(tools, target).wire_names == wires  # deterministic


# --- tool shapes come from the rule files (issue 14) --------------------------------


def test_a_rule_files_own_tool_shape_reads_writes_and_finds_its_tools(tmp_path):
    (tmp_path / "nested-wire.yaml").write_text(
        "description: A wire that nests the tool.\nextends: openai-chat\nstrict_variant: openai-strict\n"
        "tool:\n  name: \"$.tool.name\"\n  description: \"$.tool.about\"\n  schema: [\"$.tool.input\", \"$.tool.in\"]\n"
        # tool merges key by key: openai-chat's fixed type is unset, its passthrough replaced
        "  passthrough: [marker]\n  fixed: null\n")
    target = wireschema.load_rules(tmp_path)["nested-wire"]
    out = normalize_tools([{"name": "a b", "parameters": WEATHER}, {"marker": 1}], target)
    assert out.tools[0] == {"tool": {"name": "a_b", "input": out.results[0].schema}}
    assert out.result_for("a_b") is out.results[0] and out.results[1] is None
    again = normalize_tools([{"tool": {"name": "x", "in": WEATHER}}], target)
    assert again.tools[0] == {"tool": {"name": "x", "in": again.results[0].schema}}  # the caller's spelling, kept


def test_the_engine_names_no_provider():
    """Where a tool's name sits, which entries are server tools, the SDKs' spellings and
    the targets' names live in the rule files; no module of the engine spells them
    (bench.py compares with peer libraries, and report.py judges outputs with the
    providers' own validators, each by its name; normalize_mcp_tool finds its target by
    the rule file that says `mcp_ingest: true`; a plug-in speaks its client's own API)."""
    import ast
    import re
    from pathlib import Path

    from wireschema.plugins import MODULES

    registry = wireschema._registry()
    words = {info.name for info in wireschema.targets()}
    for shape in registry.tool_shapes():
        for field in ("name", "description", "schema", "strict"):
            words.update(shape.get(field, ()))
        for paths in shape.get("aliases", {}).values():
            words.update(w for p in paths for w in p)
        words.update(shape.get("fixed", {}))
        words.update(v for v in shape.get("fixed", {}).values() if isinstance(v, str))
        for key, values in shape.get("kinds", {}).items():
            words.update([key, *values])
        words.update(shape.get("passthrough", ()))
        words.update(shape.get("groups", ()))
    for info in wireschema.targets():
        for paths in registry.get(info.name).locate.values():
            # (locate.gathered holds paths as key tuples)
            words.update(w for p in paths for w in re.findall(r"[A-Za-z_]+", p if isinstance(p, str) else ".".join(p)))
    # JSON Schema's own words, Python API and rule-language names and plain English (a
    # diff's "input" column, a writer's "parts"), which are nobody's provider knowledge
    words -= {"name", "description", "type", "schema", "strict", "tools", "title", "format", "json", "json_schema", "text", "request",
              "tool", "input", "parts",
              # the `request:` field's own names (rulefields.REQUEST_FIELDS, requestspec), the rule language's
              "tool_choice", "messages", "content"}
    engine = Path(wireschema.__file__).parent
    found = []
    for path in sorted(engine.rglob("*.py")):
        if path.name in ("bench.py", "report.py", "plugins.py") or path.stem in MODULES:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        found += [f"{path.name}:{n.lineno}: {n.value!r}" for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in words
                  and id(n) not in docstrings]
    assert found == []


# --- hostile tool lists (issue 15 A and D) ------------------------------------------


def _null_holders():
    """Every shipped tool shape with null at each step of its schema path."""
    for shape in wireschema._registry().tool_shapes():
        path = shape["schema"]
        for depth in range(1, len(path) + 1):
            if tuple(path[:depth]) == tuple(shape["name"][:depth]):
                continue  # that null would take the name with it: no tool at all
            tool = {**dict(shape.get("fixed", {}))}
            node = tool
            for key in shape["name"][:-1]:
                node = node.setdefault(key, {})
            node[shape["name"][-1]] = "f"
            node = tool
            for key in path[: depth - 1]:
                node = node.setdefault(key, {}) if isinstance(node.get(key, {}), dict) else node[key]
            node[path[depth - 1]] = None
            yield tool


@pytest.mark.parametrize("tool", list(_null_holders()), ids=lambda t: json.dumps(t, sort_keys=True))
@pytest.mark.parametrize("target", ["bedrock", "anthropic", "gemini", "openai-strict", "mcp"])
def test_a_null_where_a_schema_belongs_is_a_reported_fallback_never_a_type_error(tool, target):
    single = normalize_tool(tool, target)
    listed = normalize_tools([tool, tool], target)
    assert single.result.used_fallback and single.result.fallback_reason
    assert all(r.used_fallback for r in listed.results)
    assert json.dumps(single.tool) and json.dumps(listed.tools)


def test_many_server_tools_cost_time_in_proportion():
    """400, 4,000, 40,000 entries that are not function tools beside one that is."""
    per_entry = []
    for n in (400, 4_000, 40_000):
        tools = [{"type": f"web_search_{20250000 + i}", "name": "w"} for i in range(n)] + [{"name": "f", "input_schema": WEATHER}]
        out, calls = calls_of(lambda: normalize_tools(tools, "anthropic"))
        per_entry.append(calls / n)
        assert out.results[-1] is not None and out.tools[:n] == tuple(tools[:n])
    # quadratic work would make the 40,000 list 100x costlier per entry than the 400 one
    assert per_entry[-1] < 2 * per_entry[0] + 1, per_entry


# --- logging: a request's losses are one WARNING, success says nothing --------------


def test_a_fallback_a_failed_strict_tool_and_a_spent_budget_are_one_warning_per_request(caplog):
    caplog.set_level(logging.DEBUG, logger="wireschema")
    wireschema.clear_cache()
    normalize_tools([{"name": "ok", "input_schema": WEATHER}], "anthropic")
    wireschema.normalize(WEATHER, "gemini")
    assert caplog.records == []  # nothing on success
    open_dict = {"type": "object", "properties": {"d": {"type": "object", "additionalProperties": {"type": "string"}}}}
    many_optional = {"type": "object", "properties": {f"o{i}": {"type": "string"} for i in range(20)}}
    tools = [{"name": "remote", "input_schema": {"$ref": "https://example.test/s.json"}},
             {"name": "open", "input_schema": open_dict, "strict": True},
             {"name": "big", "input_schema": many_optional, "strict": True},
             {"name": "bigger", "input_schema": many_optional, "strict": True}]
    for _ in range(3):  # the third request is a cache hit: logged again, as a request of its own
        caplog.clear()
        normalize_tools(tools, "anthropic-strict")
        assert [r.levelno for r in caplog.records] == [logging.WARNING]
        head, told = caplog.records[0].getMessage().split(": ", 1)
        assert head == "3 of 4 tools lost something"
        each = told.split("; tool ")
        assert len(each) == 3, each
        assert each[0].startswith("tool 'remote' fell back on anthropic-strict: prepare/resolve-refs")
        assert each[1].startswith("'open' sent non-strict on anthropic-strict: anthropic-strict/open-objects")
        assert each[2].startswith("'bigger' sent non-strict: the request's strict budget")


def test_one_tool_names_itself_in_its_warning(caplog):
    caplog.set_level(logging.WARNING, logger="wireschema")
    wireschema.normalize_tool({"name": "remote", "input_schema": {"$ref": "https://example.test/s.json"}}, "anthropic")
    assert [r.getMessage().split(":")[0] for r in caplog.records] == ["tool 'remote' fell back on anthropic"]


def test_fields_beside_the_schema_that_are_not_json_are_dropped_reported_and_logged(caplog):
    """The tool is rebuilt from its name, description and schema; what it lost is a
    `tool/fields` change of its result and one warning, never a silent drop."""
    caplog.set_level(logging.WARNING, logger="wireschema")
    tool = {"name": "ring", "description": "Calls back", "inputSchema": WEATHER}
    tool["annotations"] = {"self": tool}
    out = normalize_tools([tool], "mcp")
    assert out.tools[0] == {"name": "ring", "description": "Calls back", "inputSchema": WEATHER}
    (dropped,) = [c for c in out.results[0].changes if c.rule == "tool/fields"]
    assert (dropped.pointer, dropped.action) == ("", "dropped")
    assert "the object at /annotations/self/annotations is the object at /annotations again" in dropped.detail
    assert [r.getMessage().split(": ", 1)[0] for r in caplog.records] == ["1 of 1 tools lost something"]
    assert normalize_tool(tool, "mcp").result.changes == out.results[0].changes


@pytest.mark.parametrize(
    ("annotations", "said"),
    [
        ({"tags": {"read", "safe"}}, "set at /annotations/tags is not a JSON value"),
        ({"tags": ("read",)}, "tuple at /annotations/tags is not a JSON value"),
        ({"made": object()}, "object at /annotations/made is not a JSON value"),
        ({"weight": float("nan")}, "nan at /annotations/weight is not JSON"),
        ({"big": 10**5000}, "/annotations/big"),
        ({1: "one"}, "object key 1 at /annotations is not a string"),
    ],
    ids=["set", "tuple", "object", "nan", "long-int", "int-key"],
)
def test_a_field_beside_the_schema_that_is_no_json_value_drops_the_fields_reported(annotations, said):
    """Copied, a kept tool's fields would carry such a value to the wire, where the request
    fails to encode at send time naming no tool: the fields are dropped, saying where."""
    tool = {"name": "ring", "inputSchema": WEATHER, "annotations": {"readOnlyHint": True, "more": [annotations]}}
    out = normalize_tools([tool], "mcp")
    assert out.tools[0] == {"name": "ring", "inputSchema": WEATHER}
    (dropped,) = [c for c in out.results[0].changes if c.rule == "tool/fields"]
    assert said.replace("/annotations", "/annotations/more/0") in dropped.detail
    json.dumps(out.tools, allow_nan=False)


def _nested(depth: int, leaf=1):
    for _ in range(depth):
        leaf = {"a": leaf}
    return leaf


@pytest.mark.parametrize(
    ("target", "tool", "field"),
    [
        ("anthropic", {"name": "f", "input_schema": WEATHER, "cache_control": _nested(100_000)}, "/cache_control"),
        ("openai-chat", {"type": "function", "function": {"name": "f", "parameters": WEATHER, "x": _nested(100_000)}}, "/function/x"),
        ("mcp", {"name": "f", "inputSchema": WEATHER, "annotations": _nested(100_000)}, "/annotations"),
        ("gemini", {"name": "f", "parameters": WEATHER, "responseJsonSchema": _nested(100_000)}, "/responseJsonSchema"),
    ],
    ids=["anthropic", "openai-chat", "mcp", "gemini"],
)
def test_a_field_beside_the_schema_nested_past_the_depth_budget_drops_the_fields_reported(target, tool, field):
    """A kept field is held to a schema's budgets: 100,000 levels came back whole (after
    a walk quadratic in them), and the caller's `json.dumps` of the tool then failed."""
    with bounded():
        out = normalize_tool(tool, target)
    (dropped,) = [c for c in out.result.changes if c.rule == "tool/fields"]
    assert dropped.action == "dropped"
    # the tool itself is at depth 1, as a schema's root is: the 97th level is named
    assert f"nesting deeper than 96 at {field}{'/a' * (96 - field.count('/'))} (Options.max_depth" in dropped.detail
    sent = json.dumps(out.tool)
    assert '"a"' not in sent and '"f"' in sent  # the tool goes with its name and schema alone


@pytest.mark.parametrize(
    ("options", "budget"),
    [
        (wireschema.Options(max_nodes=40), "more than 40 objects and arrays at /annotations/more (Options.max_nodes"),
        (wireschema.Options(max_literal_bytes=500), "more than 500 characters at /annotations/more/"),
    ],
    ids=["nodes", "characters"],
)
def test_a_field_beside_the_schema_past_the_other_budgets_drops_the_fields_reported(options, budget):
    tool = {"name": "ring", "inputSchema": WEATHER, "annotations": {"more": [{"k": "v" * 10} for _ in range(50)]}}
    out = normalize_tool(tool, "mcp", options=options)
    assert out.tool == {"name": "ring", "inputSchema": out.result.schema}
    (dropped,) = [c for c in out.result.changes if c.rule == "tool/fields"]
    assert budget in dropped.detail
    assert "annotations" in normalize_tool(tool, "mcp").tool  # within the default budgets it travels


def test_a_field_sharing_a_subtree_is_counted_as_it_would_be_sent():
    """Each level holds the one below twice: 2**40 objects on the wire, from 41 in memory."""
    shared = {"leaf": True}
    for _ in range(40):
        shared = {"l": shared, "r": shared}
    with bounded():
        out = normalize_tool({"name": "f", "input_schema": WEATHER, "cache_control": shared}, "anthropic")
    (dropped,) = [c for c in out.result.changes if c.rule == "tool/fields"]
    assert "more than 32,768 objects and arrays" in dropped.detail
    assert "cache_control" not in out.tool


def test_the_walk_of_the_fields_beside_the_schema_is_linear_in_their_depth():
    """With a depth budget the caller raised, every level is read: a path of keys rebuilt
    at each level made 80,000 of them take 11 s."""
    from wireschema.prepare import mended_tree

    tree = {"name": "f", "deep": _nested(100_000, "caf\udce9")}
    with bounded():
        said = mended_tree(tree, {("input_schema",)}, wireschema.Options(max_depth=200_000, max_nodes=200_000))
    assert said == ["deep" + ".a" * 100_000 + ": the text \"caf\\udce9\": 1 lone surrogate (half of a character, which no UTF-8 text holds) written as its JSON escape"]


def test_scalars_beside_the_schema_travel_as_their_plain_json_values():
    import enum

    class Level(enum.IntEnum):
        HIGH = 3

    class Tag(str, enum.Enum):
        SAFE = "safe"

    tool = {"name": "ring", "inputSchema": WEATHER, "annotations": {"level": Level.HIGH, "tags": [Tag.SAFE], "weight": float("inf")}}
    out = normalize_tools([tool], "mcp", options=wireschema.Options(allow_nan=True))
    kept = out.tools[0]["annotations"]
    assert kept == {"level": 3, "tags": ["safe"], "weight": float("inf")}
    assert kept["level"].__class__ is int and kept["tags"][0].__class__ is str
    assert not [c for c in out.results[0].changes if c.rule.startswith("tool/")]
    assert tool["annotations"]["level"] is Level.HIGH  # the caller's tool as it was


def test_json_fields_beside_the_schema_travel_along_unreported():
    out = normalize_tools([SHAPES["mcp"]], "mcp")
    assert out.tools[0]["annotations"] == {"readOnlyHint": True}
    assert not [c for c in out.results[0].changes if c.rule == "tool/fields"]


def test_fields_another_wire_has_no_place_for_are_named_not_logged(caplog):
    """A tool rebuilt in another wire's shape sends its name, description, schema and
    strict flag: the caller's other fields are named in one `tool/shape` change (not a
    loss of the schema, so no warning), and travel along where the shape stays."""
    caplog.set_level(logging.WARNING, logger="wireschema")
    mcp_tool = {**SHAPES["mcp"], "description": "Forecast", "outputSchema": {"type": "object"}, "_meta": None}
    tools = [mcp_tool, {**SHAPES["anthropic"], "name": "b"}, {**SHAPES["openai-responses"], "name": "c"}]
    out = normalize_tools(tools, "openai-chat")
    said = [[(c.rule, c.action, c.detail) for c in r.changes if c.rule.startswith("tool/")] for r in out.results]
    assert said == [
        [("tool/shape", "dropped", "the tool's annotations, outputSchema, title have no place in openai-chat's tool: not sent")],
        [("tool/shape", "dropped", "the tool's cache_control has no place in openai-chat's tool: not sent")],
        [],  # type: function is carried, strict read
    ]
    assert not caplog.records
    # a wire with a field for the tool's output schema (a Gemini declaration's response) carries it there
    on_gemini = normalize_tool(mcp_tool, "gemini")
    assert [c.detail for c in on_gemini.result.changes[:2]] == [
        "outputSchema is sent as response, gemini's field for it",
        "the tool's annotations, title have no place in gemini's tool: not sent"]
    assert on_gemini.tool["response"] == wireschema.normalize_output({"type": "object"}, "gemini").schema
    # a description mended on the way says so beside them
    mended = normalize_tool({**mcp_tool, "description": "Forecast \ud83d"}, "gemini").result.changes
    assert [c.rule for c in mended[:3]] == ["tool/text", "tool/output", "tool/shape"]
    for target in ("mcp", "anthropic"):  # the same shape: every field travels along, but a null one, which is none
        kept = normalize_tools([mcp_tool if target == "mcp" else SHAPES["anthropic"]], target)
        said = [c.detail for c in kept.results[0].changes if c.rule.startswith("tool/")]
        assert said == (["the tool's _meta is null, which says none: not sent"] if target == "mcp" else [])


# a Gemini declaration's own output schema, which the API parses as strictly as its parameters
_RESPONSE = {"type": "object", "additionalProperties": False, "$defs": {"Hit": {"type": "object", "properties": {"id": {"type": "integer", "exclusiveMinimum": 0}}}},
             "properties": {"hits": {"type": "array", "items": {"$ref": "#/$defs/Hit"}}, "kind": {"const": "page"}}}


def test_a_gemini_declarations_response_schema_is_normalized_where_it_stands():
    """Before, it travelled as written (a `$ref`, `const`, `additionalProperties`: a 400 from
    the API), or, read by another shape's layout, was dropped with no word."""
    decl = {"name": "lookup", "description": "Finds", "parameters": WEATHER, "response": _RESPONSE, "behavior": "BLOCKING"}
    out = normalize_tools([decl], "gemini")
    sent = out.tools[0]
    assert sent["behavior"] == "BLOCKING" and sent["parameters"] == out.results[0].schema  # the declaration keeps its shape
    assert sent["response"] == wireschema.normalize_output(_RESPONSE, "gemini").schema
    assert sent["response"]["properties"]["kind"] == {"enum": ["page"], "type": "string"}
    said = [c for c in out.results[0].changes if c.rule == "tool/output"]
    assert {c.action for c in said} == {"spilled", "rewritten", "dropped"} and all(c.pointer == "" for c in said)
    assert "response at /properties/kind/const: const -> one-value enum (gemini/const)" in [c.detail for c in said]
    assert decl["response"] is _RESPONSE and "$defs" in _RESPONSE  # the caller's declaration is not touched
    gl = pytest.importorskip("google.ai.generativelanguage_v1beta")
    json_format = pytest.importorskip("google.protobuf.json_format")
    from wireschema import report

    json_format.ParseDict(report._proto_types(sent["response"]), gl.Schema()._pb)  # the API's own message takes it


def test_a_json_schema_response_is_normalized_as_its_wire_reads_it():
    decl = {"name": "lookup", "parametersJsonSchema": WEATHER,
            "response_json_schema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": {"type": "string"}}}
    out = normalize_tool(decl, "gemini-jsonschema")
    assert out.tool["response_json_schema"] == {"type": "array", "items": {"type": "string"}}  # any root, the caller's spelling
    assert [c.rule for c in out.result.changes] == ["tool/output", "tool/output"]


def test_an_mcp_tools_output_schema_is_ingested_as_its_input_schema_is_never_wrapped():
    """MCP clients check structuredContent against outputSchema: a draft-07 one (what
    zod-to-json-schema writes) is upgraded as inputSchema is; one that is no object
    (which the spec refuses) becomes the open object, reported, not a wrapper no server
    fills."""
    drafted = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
               "properties": {"at": {"$ref": "#/definitions/Place"}}, "definitions": {"Place": {"type": "string"}}}
    tool = {"name": "where", "inputSchema": WEATHER, "outputSchema": drafted}
    out = normalize_mcp_tool(tool)
    assert out.tool["outputSchema"]["$defs"] == {"Place": {"type": "string"}}
    assert out.tool["outputSchema"]["properties"]["at"] == {"$ref": "#/$defs/Place"}
    assert {c.detail.split(": ")[0] for c in out.result.changes if c.rule == "tool/output"} == {
        "outputSchema at /definitions", "outputSchema at /$schema", "outputSchema at /properties/at/$ref"}
    assert tool["outputSchema"] is drafted and "definitions" in drafted  # the caller's tool as it was
    listed = normalize_tool({**tool, "outputSchema": {"type": "array", "items": {"type": "string"}}}, "mcp")
    assert listed.tool["outputSchema"] == {"type": "object", "properties": {}}
    (change,) = [c for c in listed.result.changes if c.rule == "tool/output"]
    assert change.action == "fallback" and "mcp/root-object" in change.detail


def test_a_declarations_response_is_never_wrapped_where_the_targets_outputs_are():
    # cca-claude wraps a structured output that is no object; a declaration's response
    # says what the function returns, which no wrapper would match: it was wrapped with
    # no change reported, and becomes the open object, reported
    decl = {"name": "lookup", "parameters": WEATHER, "response": {"type": "array", "items": {"type": "string"}}}
    out = normalize_tool(decl, "cca-claude")
    assert out.tool["response"] == {"type": "object", "properties": {}}
    (change,) = [c for c in out.result.changes if c.rule == "tool/output"]
    assert change.action == "fallback" and change.detail.startswith("response at /:")


def test_a_response_that_is_not_json_is_not_sent_and_the_list_goes_on():
    decl = {"name": "lookup", "parameters": WEATHER, "response": {"type": "object", "enum": {1, 2}}}
    out = normalize_tools([decl, SHAPES["gemini"]], "gemini")
    assert "response" not in out.tools[0] and out.tools[1]["name"] == "get_weather"
    (change,) = [c for c in out.results[0].changes if c.rule == "tool/output"]
    assert change.action == "dropped" and change.detail.startswith("response is not JSON (set at /enum is not a JSON value")


@pytest.mark.parametrize("target,given,sent", [("gemini", "responseJsonSchema", "response"),
                                                ("gemini", "response_json_schema", "response"),
                                                ("gemini-jsonschema", "response", "responseJsonSchema")])
def test_a_declaration_rebuilt_in_the_other_google_dialect_carries_its_response(target, given, sent):
    """A declaration's `parameters` and `parametersJsonSchema` are rewritten into each
    other; its output schema was dropped instead (reported), where the other dialect's
    field could hold it."""
    params = "parametersJsonSchema" if target == "gemini" else "parameters"
    decl = {"name": "lookup", params: WEATHER, given: _RESPONSE}
    out = normalize_tool(decl, target)
    assert given not in out.tool and out.tool[sent] == wireschema.normalize_output(_RESPONSE, target).schema
    said = [c for c in out.result.changes if c.rule in ("tool/output", "tool/shape")]
    assert said[0].detail == f"{given} is sent as {sent}, {target}'s field for it" and said[0].action == "rewritten"
    assert all(c.rule == "tool/output" for c in said)  # nothing left behind
    assert decl[given] is _RESPONSE and "$defs" in _RESPONSE


@pytest.mark.parametrize("body,what", [([{"tools": []}], "list"), ('["{}"]', "JSON text of list"), (None, "NoneType")])
def test_a_request_body_that_is_no_object_is_refused_naming_what_it_is(body, what):
    with pytest.raises(wireschema.SchemaInputError, match=f"^the request body is {what}, not a JSON object"):
        normalize_request(body, "openai-chat")


def test_a_request_body_as_json_text_is_read_as_a_gateway_receives_it():
    """A gateway holds the body as bytes: `normalize` took JSON text, and
    `normalize_request` refused it as a string."""
    body = {"model": "m", "tools": [{"type": "function", "function": {"name": "f", "parameters": WEATHER}}]}
    want = normalize_request(body, "openai-strict").body
    for text in (json.dumps(body), json.dumps(body).encode(), "\ufeff" + json.dumps(body)):
        assert normalize_request(text, "openai-strict").body == want
    for text, said in ((b"\xff{}", "bytes are not UTF-8"), ("{", "text is not JSON"), ('{"t": NaN}', "text contains NaN")):
        with pytest.raises(wireschema.SchemaInputError, match=f"^the request body {said}"):
            normalize_request(text, "openai-strict")


def test_a_declarations_response_becomes_an_mcp_output_schema_unless_it_would_be_a_stand_in():
    """MCP's outputSchema must be an object: a string result would become the open object,
    declaring structured content the tool does not make, so it stays behind, said."""
    made = normalize_tool({"name": "f", "parameters": WEATHER, "response": {"type": "object", "properties": {"t": {"type": "number"}}}}, "mcp")
    assert made.tool["outputSchema"] == {"type": "object", "properties": {"t": {"type": "number"}}}
    assert [c.detail for c in made.result.changes] == ["response is sent as outputSchema, mcp's field for it"]
    left = normalize_tool({"name": "f", "parameters": WEATHER, "response": {"type": "string"}}, "mcp")
    assert "outputSchema" not in left.tool
    assert [c.detail for c in left.result.changes] == ["the tool's response has no place in mcp's tool: not sent"]


def test_a_carried_response_in_two_spellings_sends_the_first_and_says_the_other_is_left():
    decl = {"name": "lookup", "parametersJsonSchema": WEATHER, "responseJsonSchema": {"type": "string"}, "response_json_schema": {"type": "integer"}}
    out = normalize_tool(decl, "gemini")
    assert out.tool["response"] == {"type": "string"} and "response_json_schema" not in out.tool
    left = [c for c in out.result.changes if c.rule == "tool/shape"]
    assert [c.detail for c in left] == ["the tool's response_json_schema has no place in gemini's tool: not sent"]


def test_a_carried_response_that_is_not_json_is_not_sent_naming_the_callers_field():
    decl = {"name": "lookup", "parametersJsonSchema": WEATHER, "responseJsonSchema": {"type": "object", "enum": {1, 2}}}
    out = normalize_tool(decl, "gemini")
    assert "response" not in out.tool and "responseJsonSchema" not in out.tool
    (change,) = [c for c in out.result.changes if c.rule == "tool/output"]
    assert change.action == "dropped" and change.detail.startswith("responseJsonSchema is not JSON (set at /enum")


def test_a_response_schema_on_another_wire_is_left_behind_reported():
    decl = {"name": "lookup", "parameters": WEATHER, "response": _RESPONSE}
    for target in ("openai-chat", "anthropic"):
        change = normalize_tool(decl, target).result.changes[0]
        assert (change.rule, change.action) == ("tool/shape", "dropped") and "response" in change.detail


def _proto_declaration(target):
    """The FunctionDeclaration message of `target`'s API, as its own proto JSON reader judges one."""
    if target == "vertex":
        return pytest.importorskip("google.cloud.aiplatform_v1beta1.types").FunctionDeclaration
    return pytest.importorskip("google.ai.generativelanguage_v1beta").FunctionDeclaration


@pytest.mark.parametrize("target", ["gemini", "gemini-jsonschema", "vertex"])
def test_a_kept_declaration_sends_only_the_fields_its_proto_takes(target):
    """Kept in its shape, a declaration carried every field of the caller's: the API's proto
    JSON reader refuses one it does not have (`x_extra`, `annotations`; Vertex's has no
    `behavior`), and with it the whole request."""
    schema = "parameters" if target != "gemini-jsonschema" else "parametersJsonSchema"
    decl = {"name": "lookup", "description": "Finds", schema: WEATHER, "behavior": "BLOCKING",
            "x_extra": 1, "annotations": {"readOnlyHint": True}}
    out = normalize_tool(decl, target)
    refused = "behavior, " if target == "vertex" else ""
    said = [c for c in out.result.changes if c.rule == "tool/shape"]
    assert [(c.action, c.detail) for c in said] == [
        ("dropped", f"the tool's annotations, {refused}x_extra have no place in {target}'s tool: not sent")]
    assert ("behavior" in out.tool) is (target != "vertex")
    assert set(out.tool) <= {"name", "description", schema, "behavior"}
    json_format = pytest.importorskip("google.protobuf.json_format")
    from wireschema import report

    message = _proto_declaration(target)
    # the Schema message's Type enum by its proto names (parametersJsonSchema is any JSON value)
    sent = {**out.tool, "parameters": report._proto_types(out.tool["parameters"])} if schema == "parameters" else out.tool
    json_format.ParseDict(sent, message.pb()(), ignore_unknown_fields=False)
    with pytest.raises(json_format.ParseError, match="x_extra"):  # what the wire did with the field
        json_format.ParseDict({**sent, "x_extra": 1}, message.pb()(), ignore_unknown_fields=False)


def test_a_declarations_strict_flag_is_not_sent_to_gemini_even_where_it_agrees():
    """`strict: false` said what the result says, so it stayed, and Gemini's proto refused it."""
    out = normalize_tool({"name": "f", "parameters": WEATHER, "strict": False}, "gemini")
    assert "strict" not in out.tool
    assert [c.detail for c in out.result.changes if c.rule == "tool/shape"] == ["the tool's strict has no place in gemini's tool: not sent"]


@pytest.mark.parametrize("strict", [False, True])
def test_a_kept_bedrock_tool_sends_only_what_botocore_takes(strict):
    """boto3 checks a Converse request against its service model before sending it: an
    unknown parameter anywhere in a toolSpec fails the whole call. A toolSpec saying
    strict runs as bedrock-strict, whose tool takes the same."""
    tool = {"toolSpec": {"name": "f", "inputSchema": {"json": WEATHER, "x": 2}, "y": _nested(100_000), "strict": strict}, "z": 4}
    with bounded():
        out = normalize_tool(tool, "bedrock")
    assert out.result.target == ("bedrock-strict" if strict else "bedrock")
    flag = {"strict": True} if strict else {}
    assert out.tool == {"toolSpec": {"name": "f", "inputSchema": {"json": out.result.schema}, **flag}}
    said = [c.detail for c in out.result.changes if c.rule.startswith("tool/")]
    unflagged = [] if strict else ["the tool's strict flag (saying false): not sent, as bedrock takes it only where strict mode is reached"]
    assert said == ["the tool's toolSpec.inputSchema.x, toolSpec.y, z have no place in bedrock's tool: not sent", *unflagged]
    botocore = pytest.importorskip("botocore.session")
    from botocore.validate import ParamValidator

    model = botocore.get_session().get_service_model("bedrock-runtime")
    shape = model.shape_for("Tool")
    assert not ParamValidator().validate(out.tool, shape).has_errors()
    assert "Unknown parameter in toolSpec" in ParamValidator().validate(tool, shape).generate_report()


def test_a_dumped_declarations_null_fields_are_unset_where_it_keeps_its_shape():
    """python-genai's `FunctionDeclaration.model_dump()` writes each unset field null.
    Kept, Google's proto reader took `parametersJsonSchema: null` for a second schema, a
    null JSON value, set beside `parameters`, which the API takes one of."""
    types = pytest.importorskip("google.genai.types")
    decl = types.FunctionDeclaration(name="lookup", description="Finds", parameters=types.Schema(
        type="OBJECT", properties={"city": types.Schema(type="STRING")}, required=["city"]))
    out = normalize_tool(decl.model_dump(), "gemini")
    assert set(out.tool) == {"name", "description", "parameters"}  # its null defaults are values, kept
    assert [c.detail for c in out.result.changes if c.rule == "tool/shape"] == [
        f"the tool's {field} is null, which says none: not sent"
        for field in ("parameters_json_schema", "response", "response_json_schema", "behavior")]
    json_format = pytest.importorskip("google.protobuf.json_format")
    from wireschema import report

    message = _proto_declaration("gemini").pb()()
    json_format.ParseDict({**out.tool, "parameters": report._proto_types(out.tool["parameters"])}, message)
    assert not message.HasField("parameters_json_schema")


def test_a_null_field_within_a_kept_tool_is_unset_but_not_in_its_schema_or_an_example():
    tool = {"name": "f", "input_schema": {**WEATHER, "description": None}, "cache_control": {"type": "ephemeral", "ttl": None},
            "input_examples": [{"city": None}]}
    out = normalize_tool(tool, "anthropic")
    assert out.tool["cache_control"] == {"type": "ephemeral"} and out.tool["input_examples"] == [{"city": None}]
    assert [c.detail for c in out.result.changes if c.rule.startswith(("tool/", "prepare/"))] == [
        "the tool's cache_control.ttl is null, which says none: not sent", "description: null, unset, removed"]


def test_a_rule_files_takes_holds_the_tools_own_fields(tmp_path):
    """A `takes` that forgot the wire's own schema path would drop every tool's schema."""
    (tmp_path / "one.yaml").write_text('description: x.\nextends: gemini\ntool:\n  takes: ["$.name", "$.description"]\n')
    with pytest.raises(wireschema.RuleFileError, match=r"tool.takes must take the tool's own schema, \$.parameters \(it takes \$.name, \$.description\)"):
        wireschema.load_rules(tmp_path)


def test_a_rule_files_tool_outputs_are_paths(tmp_path):
    (tmp_path / "one.yaml").write_text('description: x.\nextends: gemini\ntool:\n  outputs: ["$.response[0]"]\n')
    with pytest.raises(wireschema.RuleFileError, match="tool.outputs must be paths of plain fields"):
        wireschema.load_rules(tmp_path)


def test_a_tool_run_strict_says_so_on_a_wire_whose_own_shape_has_no_strict_flag():
    """openai-chat asked for a strict tool runs openai-strict: the tool it sends carries
    `strict: true`, rebuilt from another shape too (a Responses tool), as the result says."""
    responses_tool = {"type": "function", "name": "y", "parameters": WEATHER, "strict": True}
    for tool in (responses_tool, {"type": "function", "function": {"name": "y", "parameters": WEATHER, "strict": True}}):
        out = normalize_tools([tool], "openai-chat")
        assert out.results[0].strict and out.results[0].target == "openai-strict"
        assert out.tools[0]["function"]["strict"] is True
        assert normalize_tool(tool, "openai-chat").tool == out.tools[0]


@pytest.mark.parametrize("target,tool,at", [
    ("generic", {"type": "function", "function": {"name": "y", "parameters": WEATHER, "strict": True}}, "function.strict"),
    ("gemini", {"name": "y", "parameters": WEATHER, "strict": True}, "strict"),
    ("cca-claude", {"name": "y", "parameters": WEATHER, "strict": True}, "strict"),
])
def test_a_strict_flag_the_wire_has_no_place_for_is_not_sent_when_strict_mode_is_not_reached(target, tool, at):
    """It travelled as the caller wrote it, beside a schema in the wire's non-strict form,
    while the Result said strict mode was not reached; Gemini's proto refuses the field."""
    out = normalize_tools([tool], target)
    sent = out.tools[0].get("function", out.tools[0])
    assert "strict" not in sent and not out.results[0].strict
    assert out.results[0].strict_reason == f"strict mode was asked; {target} has no strict form"
    assert f"the tool's {at} (saying true) has no place in {target}'s tool: not sent" in [c.detail for c in out.results[0].changes]


def test_a_strict_flag_that_says_what_was_reached_travels_as_written():
    tool = {"type": "function", "function": {"name": "y", "parameters": WEATHER, "strict": True}}
    out = normalize_tools([tool], "xai")  # always strict; its tool shape names no flag
    assert out.results[0].strict and out.tools[0]["function"]["strict"] is True
    assert not [c for c in out.results[0].changes if c.rule == "tool/shape"]


def test_an_anthropic_tool_that_says_strict_is_sent_in_anthropic_strict_form():
    """Before, its `strict: true` travelled along beside a schema normalized non-strict
    (a numeric bound kept, objects left open), and the result said strict=False."""
    tool = {"name": "q", "input_schema": WEATHER, "strict": True}
    out = normalize_tools([tool], "anthropic")
    assert out.results[0].strict and out.results[0].target == "anthropic-strict"
    assert out.tools[0]["strict"] is True and out.tools[0]["input_schema"]["additionalProperties"] is False
    assert out.tools[0]["input_schema"] == normalize_tools([tool], "anthropic-strict").tools[0]["input_schema"]
    open_map = {"name": "m", "input_schema": {"type": "object", "additionalProperties": {"type": "string"}}, "strict": True}
    opened = normalize_tools([open_map], "anthropic")
    assert opened.tools[0]["strict"] is False and not opened.results[0].strict
    assert opened.results[0].strict_reason.startswith("anthropic-strict/open-objects")
    assert normalize_tools([{"name": "q", "input_schema": WEATHER}], "anthropic").tools[0] == {"name": "q", "input_schema": WEATHER}


@pytest.mark.parametrize("target", ["anthropic", "anthropic-strict"])
@pytest.mark.parametrize("field", ["output_config", "output_format"])
def test_an_anthropic_structured_output_is_sent_in_strict_form_on_either_anthropic_target(target, field):
    """The wire always enforces a structured output (`output_config.format`, or the beta's
    `output_format`): its schema asks for strict mode on `anthropic` too. Before, it was
    left as written there, numeric bounds and open objects included, which the API refuses."""
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}
    fmt = {"type": "json_schema", "schema": schema}
    body = {"model": "m", "messages": [], field: {"format": fmt} if field == "output_config" else fmt}
    out = normalize_request(body, target)
    (result,) = out.outputs
    assert result.strict and result.target == "anthropic-strict"
    sent = out.body[field]["format"] if field == "output_config" else out.body[field]
    assert sent["schema"] == result.schema == wireschema.normalize_output(schema, "anthropic-strict").schema
    assert result.schema["additionalProperties"] is False and "minimum" not in result.schema["properties"]["n"]
    assert fmt["schema"] == schema  # the caller's body is not changed


@pytest.mark.parametrize("target", ["mistral", "gemini", "mcp"])
def test_a_strict_ask_a_wire_cannot_meet_is_said_never_dropped_quietly(target, caplog):
    """A tool's `strict: true` on a wire with no strict form: mistral writes its flag
    false, gemini and MCP have no flag. Before, the ask went with no word."""
    tool = {"type": "function", "function": {"name": "f", "strict": True, "parameters": WEATHER}}
    with caplog.at_level("WARNING", logger="wireschema"):
        out = normalize_tools([tool], target)
    (result,) = out.results
    assert not result.strict and result.strict_reason == f"strict mode was asked; {target} has no strict form"
    assert "sent non-strict" in caplog.text
    assert out.tools[0].get("function", {}).get("strict") in (False, None)
    # no ask, nothing said: a global default is no ask either
    plain = {"type": "function", "function": {"name": "f", "parameters": WEATHER}}
    assert normalize_tools([plain], target).results[0].strict_reason is None
    assert wireschema.normalize(WEATHER, target, options=wireschema.Options(strict=True)).strict_reason is None


def test_a_strict_output_ask_a_wire_cannot_meet_is_said():
    body = {"model": "m", "messages": [],
            "response_format": {"type": "json_schema", "json_schema": {"name": "x", "strict": True, "schema": WEATHER}}}
    out = normalize_request(body, "mistral")
    assert out.body["response_format"]["json_schema"]["strict"] is False
    assert out.outputs[0].strict_reason == "strict mode was asked; mistral has no strict form"


def test_bedrock_reads_no_anthropic_structured_output():
    body = {"toolConfig": {"tools": []}, "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}}
    assert normalize_request(body, "bedrock").outputs == ()


def test_a_bedrock_tool_that_says_strict_is_sent_in_bedrock_strict_form():
    """Converse's toolSpec takes `strict: true` (strict tool use). Before, the flag
    travelled along beside a schema normalized non-strict, and the result said strict=False."""
    tool = {"toolSpec": {"name": "q", "inputSchema": {"json": WEATHER}, "strict": True}}
    out = normalize_tools([tool], "bedrock")
    assert out.results[0].strict and out.results[0].target == "bedrock-strict"
    sent = out.tools[0]["toolSpec"]
    assert sent["strict"] is True and sent["inputSchema"]["json"]["additionalProperties"] is False
    assert out.tools[0] == normalize_tools([tool], "bedrock-strict").tools[0]
    recursive = {"type": "object", "$defs": {"N": {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}}},
                 "properties": {"root": {"$ref": "#/$defs/N"}}}
    opened = normalize_tools([{"toolSpec": {"name": "r", "inputSchema": {"json": recursive}, "strict": True}}], "bedrock")
    assert "strict" not in opened.tools[0]["toolSpec"] and opened.results[0].strict_reason.startswith("prepare/resolve-refs")
    assert "$ref" not in json.dumps(opened.tools[0])  # bedrock unrolls it
    plain = {"toolSpec": {"name": "q", "inputSchema": {"json": WEATHER}}}
    assert normalize_tools([plain], "bedrock").tools[0] == plain


@pytest.mark.parametrize("target", ["bedrock", "bedrock-strict"])
def test_a_bedrock_tool_sent_non_strict_carries_no_strict_flag(target):
    """Several Claude models on Converse refuse toolSpec.strict by its presence, false
    included (BerriAI/litellm #31582, #35688). Before, a strict tool that failed open,
    and the caller's own false, were sent as `"strict": false`."""
    recursive = {"type": "object", "properties": {"next": {"$ref": "#"}}}
    opened = normalize_tool({"toolSpec": {"name": "r", "inputSchema": {"json": recursive}, "strict": True}}, target)
    asked_not = normalize_tool({"toolSpec": {"name": "q", "inputSchema": {"json": WEATHER}, "strict": False}}, target)
    for out, said in ((opened, "true"), (asked_not, "false")):
        assert not out.result.strict and "strict" not in out.tool["toolSpec"]
        assert f"the tool's strict flag (saying {said}): not sent, as {target} takes it only where strict mode is reached" in [
            c.detail for c in out.result.changes if c.rule == "tool/shape"]
    assert normalize_tool({"name": "q", "parameters": WEATHER}, "bedrock-strict", strict=False).tool == {
        "toolSpec": {"name": "q", "inputSchema": {"json": wireschema.normalize(WEATHER, "bedrock").schema}}}


@pytest.mark.parametrize("target", ["bedrock", "bedrock-strict"])
def test_an_empty_bedrock_tool_description_is_not_sent(target):
    """Converse refuses `description: ""` ("Member must have length greater than or
    equal to 1", BerriAI/litellm #19384); before, it was sent as written."""
    for tool in ({"toolSpec": {"name": "q", "description": "", "inputSchema": {"json": WEATHER}}},
                 {"type": "function", "function": {"name": "q", "description": "", "parameters": WEATHER}}):
        out = normalize_tool(tool, target)
        assert "description" not in out.tool["toolSpec"]
        assert [c.detail for c in out.result.changes if c.rule == "tool/shape"][-1] == (
            f"the tool's description is empty: not sent, as {target} takes none shorter than one character")
    kept = normalize_tool({"toolSpec": {"name": "q", "description": " ", "inputSchema": {"json": WEATHER}}}, target)
    assert kept.tool["toolSpec"]["description"] == " "


@pytest.mark.parametrize("target", ["bedrock", "bedrock-strict"])
def test_a_bedrock_structured_output_given_as_json_text_comes_back_as_text_in_strict_form(target):
    """Converse's `outputConfig.textFormat` takes its schema as JSON text, and always
    enforces it. Before, it was left as written: open objects and bounds the API refuses."""
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}, "meta": {"type": "object"}}}
    text = json.dumps(schema)
    body = {"modelId": "m", "messages": [],
            "outputConfig": {"textFormat": {"type": "json_schema", "structure": {"jsonSchema": {"name": "o", "schema": text}}}}}
    out = normalize_request(body, target)
    (result,) = out.outputs
    assert result.strict and result.target == "bedrock-strict"
    sent = out.body["outputConfig"]["textFormat"]["structure"]["jsonSchema"]["schema"]
    assert isinstance(sent, str) and json.loads(sent) == result.schema
    assert result.schema == wireschema.normalize_output(schema, "anthropic-strict").schema
    assert result.schema["properties"]["meta"]["items"]["additionalProperties"] is False  # a free-form object as pairs
    assert body["outputConfig"]["textFormat"]["structure"]["jsonSchema"]["schema"] == text  # the caller's body is not changed


def test_an_openai_custom_tool_passes_through_never_a_function_without_arguments():
    """A Responses custom tool ({type: custom, name, format}) has no JSON Schema; Anthropic's
    function tools may say `type: custom` too, but always carry `input_schema`. Before, the
    custom tool became a function taking no arguments, its grammar lost, with no word."""
    custom = {"type": "custom", "name": "patch", "description": "Apply a patch",
              "format": {"type": "grammar", "syntax": "lark", "definition": "start: /[a-z]+/"}}
    anthropic_tool = {"type": "custom", "name": "q", "input_schema": WEATHER}
    out = normalize_tools([custom, {"type": "custom", "name": "text"}, anthropic_tool], "openai-responses")
    assert out.tools[:2] == (custom, {"type": "custom", "name": "text"}) and out.results[:2] == (None, None)
    assert out.results[2] is not None and not out.results[2].used_fallback
    for target in ("openai-chat", "anthropic", "gemini"):
        # no such tool on these wires: refused by default, dropped and reported on request
        with pytest.raises(ToolShapeError, match=f"tool 0: a tool of type 'custom', openai-responses's own tool, which {target}'s"):
            normalize_tools([custom, anthropic_tool], target)
        out = normalize_tools([custom, anthropic_tool], target, on_untranslatable="drop")
        assert len(out.tools) == 1 and out.results[0] is not None and not out.results[0].used_fallback
        assert [(c.rule, c.pointer, c.action) for c in out.changes] == [("request/untranslatable", "/0", "dropped")]
    assert normalize_tools([anthropic_tool], "anthropic").tools[0] == anthropic_tool


def test_a_renamed_tool_that_the_strict_budget_sent_non_strict_is_named_in_the_warning(caplog):
    """A tool list's own changes come first (a rename before a spent budget): before, the
    budget's change was looked for first of all, so a renamed tool's lost strictness went
    unlogged and out of the losses."""
    caplog.set_level(logging.WARNING, logger="wireschema")
    many_optional = {"type": "object", "properties": {f"o{i}": {"type": "string"} for i in range(20)}}
    out = normalize_tools([{"name": "big", "input_schema": many_optional, "strict": True},
                           {"name": "big two!", "input_schema": many_optional, "strict": True}], "anthropic-strict")
    assert [c.rule for c in out.results[1].changes[:2]] == ["tool/name", "request/strict-budget"]
    assert out._losing() == (1,)
    (record,) = caplog.records
    assert record.getMessage().startswith("1 of 2 tools lost something: tool 'big two!' sent non-strict: the request's strict budget")


def _reading(monkeypatch, cls, **parts):
    """`cls` read by attribute as rules/_objects.yaml would declare it (for this test only)."""
    from wireschema import toolobjects

    name = f"{cls.__module__}.{cls.__qualname__}"
    monkeypatch.setattr(toolobjects, "_shipped", {name: toolobjects.Reader(name, why="a test", **parts)})


def test_a_plain_object_is_read_by_attribute_naming_its_other_attributes(monkeypatch):
    class Spec:
        def __init__(self):
            self.title, self.params, self.retries, self._cache = "ring", WEATHER, 3, {}

    _reading(monkeypatch, Spec, name="title", schema="params")
    out = normalize_tool(Spec(), "openai-chat")
    assert out.tool == {"type": "function", "function": {"name": "ring", "parameters": out.result.schema}}
    (left,) = [c for c in out.result.changes if c.rule == "tool/shape"]
    assert "the Spec's retries, its framework's own, has no place in openai-chat's tool" in left.detail


def test_an_object_listed_by_its_sdk_field_by_field_is_read_as_that_dict(monkeypatch):
    class Listed:
        def __init__(self):
            self.label, self.params, self.returns, self.extra, self.retries = "ring", WEATHER, {"type": "object"}, None, 3

    _reading(monkeypatch, Listed, name=None, schema=None, fields=(("name", "label"), ("inputSchema", "params"), ("outputSchema", "returns"), ("title", "extra")))
    out = normalize_tool(Listed(), "mcp")
    # an attribute that is None is left out; one not listed (retries) is the object's own, not the tool's
    assert out.tool == {"name": "ring", "inputSchema": out.result.schema, "outputSchema": {"type": "object"}}
    assert not any(c.rule == "tool/shape" for c in out.result.changes)
    assert normalize_tool(Listed(), "gemini").tool["response"] == {"type": "object"}
    broken = Listed()
    del broken.returns
    with pytest.raises(wireschema.ToolShapeError, match="reading its returns failed: AttributeError"):
        normalize_tool(broken, "mcp")


def test_a_schema_root_saying_the_tools_name_and_description_again_is_sent_once(monkeypatch):
    class Spec:
        def __init__(self, about):
            self.label, self.about = "ring", "Rings the bell.\n\n    Twice."
            self.params = {"type": "object", "title": "ring", "description": about, "properties": {}}

    _reading(monkeypatch, Spec, name="label", description="about", schema="params", once=("title", "description"))
    # the same docstring, indented as Python writes it in the source: said once
    spec = Spec("Rings the bell.\n\nTwice.")
    out = normalize_tool(spec, "openai-chat")
    assert out.tool["function"]["parameters"] == {"type": "object", "properties": {}}
    assert out.tool["function"]["description"] == spec.about
    (once,) = [c for c in out.result.changes if c.rule == "tool/shape"]
    assert once.detail == "the Spec's schema says the tool's name (its title) and description again at its root: sent once, in the tool"
    assert spec.params["title"] == "ring"  # the caller's schema is not changed
    # a description that says something else stays where it was written
    other = normalize_tool(Spec("The bell's settings."), "openai-chat")
    assert other.tool["function"]["parameters"] == {"type": "object", "description": "The bell's settings.", "properties": {}}
    assert "name (its title) again" in other.result.changes[0].detail


def test_an_attribute_that_fails_to_read_is_a_tool_shape_error_naming_it(monkeypatch):
    class Flaky:
        name = "flaky"

        @property
        def params(self):
            raise RuntimeError("schema not loaded yet")

    _reading(monkeypatch, Flaky, name="name", schema="params")
    with pytest.raises(wireschema.ToolShapeError, match="reading its params failed: RuntimeError: schema not loaded yet"):
        normalize_tool(Flaky(), "gemini")
    _reading(monkeypatch, Flaky, name="name", schema="parameters")
    with pytest.raises(wireschema.ToolShapeError, match="has no attribute 'parameters'"):
        normalize_tool(Flaky(), "gemini")


def test_a_named_class_is_read_by_attribute_before_its_dump(monkeypatch):
    pydantic = pytest.importorskip("pydantic")

    class Held(pydantic.BaseModel):  # a dump of it holds no tool shape's schema field
        label: str
        spec: dict
        retries: int = 0
        callback: object = None

    _reading(monkeypatch, Held, name="label", schema="spec")
    out = normalize_tool(Held(label="ring", spec=WEATHER, callback=print), "gemini")
    assert out.tool["parameters"]["properties"] == WEATHER["properties"]
    # a pydantic model's fields are named where they differ from their defaults
    (left,) = [c for c in out.result.changes if c.rule == "tool/shape"]
    assert "the Held's callback, its framework's own," in left.detail and "retries" not in left.detail


def test_an_attribute_that_is_none_may_stand_for_a_schema_of_the_readers_own(monkeypatch):
    class Simple:
        def __init__(self, args_schema=None):
            self.name, self.args_schema = "search", args_schema

        @property
        def call_schema(self):
            return self.args_schema or {"type": "object", "properties": {"args": {"type": "array"}}}

    one_string = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    _reading(monkeypatch, Simple, name="name", schema="call_schema", made_from=("args_schema",),
             if_none=("args_schema", one_string))
    first = normalize_tool(Simple(), "openai-chat")
    assert first.tool["function"]["parameters"] == one_string
    first.tool["function"]["parameters"]["properties"].clear()  # each tool its own copy
    assert normalize_tool(Simple(), "openai-chat").tool["function"]["parameters"] == one_string
    given = normalize_tool(Simple(WEATHER), "openai-chat")
    assert given.tool["function"]["parameters"]["properties"] == WEATHER["properties"]
    assert not [c for c in given.result.changes if c.rule == "tool/shape"]  # args_schema is what was sent


def test_a_class_may_name_the_method_that_gives_its_tool(monkeypatch):
    class Declared:
        def __init__(self, out):
            self.out = out

        def to_dict(self):
            if isinstance(self.out, Exception):
                raise self.out
            return self.out

    _reading(monkeypatch, Declared, name=None, schema=None, dump="to_dict")
    # read as the dict tool it gives: its own fields travel along where the shape is kept
    mine = {"name": "ring", "input_schema": WEATHER, "cache_control": {"type": "ephemeral"}}
    out = normalize_tool(Declared(mine), "anthropic")
    assert out.tool["cache_control"] == {"type": "ephemeral"} and out.tool["input_schema"]["properties"] == WEATHER["properties"]
    listed = normalize_tools(Declared({"functionDeclarations": [{"name": "ring", "parameters": WEATHER}]}), "gemini")
    assert [t["name"] for t in listed.tools] == ["ring"]
    with pytest.raises(wireschema.ToolShapeError, match=r"its to_dict\(\) failed: ValueError: not ready"):
        normalize_tool(Declared(ValueError("not ready")), "anthropic")
    with pytest.raises(wireschema.ToolShapeError, match=r"its to_dict\(\) gives list, not a tool object"):
        normalize_tool(Declared([mine]), "anthropic")


def test_a_class_may_name_the_attribute_holding_the_object_to_read(monkeypatch):
    from wireschema import toolobjects

    class Definition:
        def __init__(self):
            self.label, self.params, self.retries = "ring", WEATHER, 2

    class Wrapper:
        def __init__(self, inner):
            self.definition, self.callback = inner, print

    readers = {f"{c.__module__}.{c.__qualname__}": r for c, r in (
        (Definition, toolobjects.Reader("Definition", "label", "params", why="a test")),
        (Wrapper, toolobjects.Reader("Wrapper", None, None, why="a test", via="definition")),
    )}
    monkeypatch.setattr(toolobjects, "_shipped", readers)
    out = normalize_tool(Wrapper(Definition()), "gemini")
    assert out.tool["name"] == "ring" and out.tool["parameters"]["properties"] == WEATHER["properties"]
    # what is left behind is named as the object read holds it
    (left,) = [c for c in out.result.changes if c.rule == "tool/shape"]
    assert "the Definition's retries, its framework's own," in left.detail
    with pytest.raises(wireschema.ToolShapeError, match="its definition is int, which rules/_objects.yaml does not name"):
        normalize_tool(Wrapper(3), "gemini")
    looped = Wrapper(None)
    looped.definition = looped
    with pytest.raises(wireschema.ToolShapeError, match="more than 4 objects held by one another"):
        normalize_tool(looped, "gemini")


def test_an_object_whose_dump_holds_its_schema_where_no_shape_reads_it_is_refused():
    pydantic = pytest.importorskip("pydantic")

    class FrameworkTool(pydantic.BaseModel):  # a framework of no rules/_objects.yaml entry
        name: str
        description: str = ""
        json_schema: dict

    with pytest.raises(wireschema.ToolShapeError, match="no parameters schema, but its json_schema holds one: name its class"):
        normalize_tool(FrameworkTool(name="ring", json_schema=WEATHER), "gemini")
    # it was a tool with an empty schema; a dict of the same fields still says what it left
    out = normalize_tool({"name": "ring", "json_schema": WEATHER}, "openai-chat")
    assert [c.rule for c in out.result.changes][:1] == ["tool/shape"]
    # an SDK object with no parameters at all is a tool that takes none
    genai = pytest.importorskip("google.genai.types")
    bare = normalize_tool(genai.FunctionDeclaration(name="now", description="The time"), "openai-chat")
    assert bare.tool["function"]["parameters"] == {"type": "object", "properties": {}}
    # nor is one that says what it returns, in either of Gemini's output fields
    returns = {"type": "object", "properties": {"t": {"type": "string"}}}
    for said in ({"response": genai.Schema(type="OBJECT", properties={"t": genai.Schema(type="STRING")})},
                 {"response_json_schema": returns}):
        told = normalize_tool(genai.FunctionDeclaration(name="now", **said), "gemini-jsonschema")
        assert told.tool["name"] == "now" and told.tool["parametersJsonSchema"] == {"type": "object", "properties": {}}


def test_an_object_whose_dump_fails_is_a_tool_shape_error_alone_in_a_list_or_in_place_of_one():
    class Broken:
        def model_dump(self, **_):
            raise RuntimeError("serializer exploded")

    for call in (lambda: normalize_tool(Broken(), "anthropic"), lambda: normalize_tools([Broken()], "anthropic"),
                 lambda: normalize_tools(Broken(), "anthropic")):
        with pytest.raises(ToolShapeError, match="Broken\\) cannot be dumped to JSON: serializer exploded"):
            call()
