"""A request body written for one wire, sent to another (issue 53): translated whole by
the rule files' `request:` spellings, or refused naming what cannot be carried; provider
tools, request limits, python-genai's shapes and the strict flag of an output."""

from __future__ import annotations

import json

import pytest

import wireschema
from wireschema import RequestLimitError, ToolShapeError, UntranslatableError, normalize_request, normalize_tools

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
FORECAST = {"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"]}

# an OpenAI chat body as a gateway receives it: a tool named what no other wire takes, a
# forced choice of it, a structured output and an earlier call of the tool with its result
OPENAI_BODY = {
    "model": "gpt-4o",
    "max_tokens": 1024,
    "messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_abc", "type": "function", "function": {"name": "get.weather!", "arguments": '{"city": "Paris"}'}}]},
        {"role": "tool", "tool_call_id": "call_abc", "content": "18C, cloudy"},
        {"role": "user", "content": "And tomorrow?"},
    ],
    "tools": [{"type": "function", "function": {"name": "get.weather!", "description": "Forecast", "parameters": WEATHER}}],
    "tool_choice": {"type": "function", "function": {"name": "get.weather!"}},
    "response_format": {"type": "json_schema", "json_schema": {"name": "forecast", "schema": FORECAST}},
}


def test_an_openai_body_sent_to_anthropic_is_a_messages_request_the_sdk_types_take(snap):
    """Finding 1: the tools came back in Anthropic's shape, but the tool choice, the calls of
    earlier turns and response_format were left as OpenAI spells them, and nothing said so."""
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming as MessageCreateParams
    from pydantic import TypeAdapter

    out = normalize_request(OPENAI_BODY, "anthropic")
    body = out.body
    assert body["tool_choice"] == {"type": "tool", "name": "get_weather_"}
    assert body["messages"][1]["content"][0] == {"type": "tool_use", "id": "call_abc", "name": "get_weather_", "input": {"city": "Paris"}}
    assert body["messages"][2]["content"][0] == {"type": "tool_result", "tool_use_id": "call_abc", "content": "18C, cloudy"}
    assert body["output_config"]["format"]["schema"] == out.outputs[0].schema and out.outputs[0].strict
    assert "response_format" not in body and body["system"] == [{"type": "text", "text": "You are terse."}]
    assert {c.rule for c in out.changes} >= {"request/translate", "request/tool-name"}
    assert set(body) <= MessageCreateParams.__required_keys__ | MessageCreateParams.__optional_keys__
    TypeAdapter(MessageCreateParams).validate_python(body)
    assert OPENAI_BODY["tool_choice"] == {"type": "function", "function": {"name": "get.weather!"}}  # the caller's is not changed
    assert body == snap


def test_an_openai_body_sent_to_gemini_is_a_request_the_genai_types_take(snap):
    """Finding 1: the same body came back unchanged from gemini, with a warning."""
    from google.genai import types

    out = normalize_request(OPENAI_BODY, "gemini")
    body = out.body
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get.weather_"]}}
    assert body["generationConfig"] == {"responseMimeType": "application/json", "responseJsonSchema": out.outputs[0].schema}
    call, result = body["contents"][1]["parts"][0], body["contents"][2]["parts"][0]
    assert call == {"functionCall": {"id": "call_abc", "name": "get.weather_", "args": {"city": "Paris"}}}
    assert result == {"functionResponse": {"id": "call_abc", "name": "get.weather_", "response": {"output": "18C, cloudy"}}}
    for content in body["contents"]:
        types.Content.model_validate(content)
    types.Content.model_validate(body["systemInstruction"])
    types.Tool.model_validate(body["tools"][0])
    types.ToolConfig.model_validate(body["toolConfig"])
    types.GenerationConfig.model_validate(body["generationConfig"])
    assert body == snap


def test_an_openai_body_sent_to_bedrock_is_a_converse_request_botocore_takes():
    import botocore.session
    from botocore.validate import validate_parameters

    body = normalize_request({**OPENAI_BODY, "model": None}, "bedrock").body
    body.pop("model")
    body.pop("max_tokens")
    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    validate_parameters({**body, "modelId": "m"}, model.operation_model("Converse").input_shape)
    assert body["toolConfig"]["toolChoice"] == {"tool": {"name": "get_weather_"}}
    assert json.loads(body["outputConfig"]["textFormat"]["structure"]["jsonSchema"]["schema"])["required"] == ["temp"]


def test_a_gemini_body_without_call_ids_goes_to_anthropic_with_ids_its_results_share():
    body = {"contents": [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"a": 1}}}, {"functionCall": {"name": "f", "args": {"a": 2}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": "one"}}},
                                   {"functionResponse": {"name": "f", "response": {"n": 2}}}]},
    ], "tools": [{"functionDeclarations": [{"name": "f", "parameters": WEATHER}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}}}
    out = normalize_request(body, "anthropic")
    calls = [p["id"] for p in out.body["messages"][1]["content"]]
    results = [(p["tool_use_id"], p["content"]) for p in out.body["messages"][2]["content"]]
    assert calls == ["call_1", "call_2"] and results == [("call_1", "one"), ("call_2", '{"n":2}')]
    assert out.body["tool_choice"] == {"type": "auto"}
    assert [c.action for c in out.changes if c.rule == "request/call-id"] == ["added"]


def test_an_anthropic_body_goes_to_openai_as_chat_messages():
    body = {"model": "m", "max_tokens": 10, "system": "be brief", "tool_choice": {"type": "any"},
            "tools": [{"name": "f", "input_schema": WEATHER}],
            "messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": [{"type": "text", "text": "calling"},
                                                           {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"city": "x"}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok", "is_error": True}]}]}
    with pytest.raises(UntranslatableError, match=r"/messages/2/content/0: the result of 'f' says an error"):
        normalize_request(body, "openai-chat")
    out = normalize_request(body, "openai-chat", on_untranslatable="drop").body
    assert out["messages"] == [
        {"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "calling", "tool_calls": [
            {"type": "function", "id": "toolu_1", "function": {"name": "f", "arguments": '{"city":"x"}'}}]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "ok"}]
    assert out["tool_choice"] == "required" and out["tools"][0]["function"]["name"] == "f"


def test_a_message_part_the_target_has_no_form_for_is_refused_or_dropped_never_half():
    body = {**OPENAI_BODY, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:x"}}]}]}
    with pytest.raises(UntranslatableError) as caught:
        normalize_request(body, "anthropic")
    assert "/messages/0/content/1: a part of type 'image_url', which no text part of the target's stands for" in str(caught.value)
    out = normalize_request(body, "anthropic", on_untranslatable="drop")
    assert out.body["messages"] == [{"role": "user", "content": "look"}]
    (dropped,) = [c for c in out.changes if c.rule == "request/untranslatable"]
    assert dropped.pointer == "/messages/0/content/1" and dropped.action == "dropped"


def test_a_tool_choice_the_target_cannot_say_is_refused():
    body = {"model": "m", "messages": [], "tool_choice": "none", "tools": OPENAI_BODY["tools"]}
    with pytest.raises(UntranslatableError, match=r"/tool_choice: the tool choice 'none', which bedrock's requests cannot say"):
        normalize_request(body, "bedrock")
    assert "toolChoice" not in normalize_request(body, "bedrock", on_untranslatable="drop").body["toolConfig"]


@pytest.mark.parametrize("tool, target, owner", [
    ({"googleSearch": {}}, "openai-strict", "gemini"),
    ({"type": "web_search"}, "gemini", "openai-responses"),
    ({"type": "web_search_20250305", "name": "web_search", "max_uses": 3}, "openai-chat", "anthropic"),
])
def test_another_wires_own_tool_is_refused_or_dropped_and_reported(tool, target, owner):
    """Finding 2: each went into the target's list as it was, with no word."""
    fn = {"name": "f", "input_schema": WEATHER}
    with pytest.raises(ToolShapeError, match=f"^tool 0: .*{owner}'s own tool, which {target}'s tool lists do not take"):
        normalize_tools([tool, fn], target)
    out = normalize_tools([tool, fn], target, on_untranslatable="drop")
    assert len(out.tools) == 1 and out.results[0] is not None
    assert [(c.rule, c.pointer, c.action) for c in out.changes] == [("request/untranslatable", "/0", "dropped")]


def test_a_genai_google_search_tool_is_refused_on_openai():
    from google.genai import types

    with pytest.raises(ToolShapeError, match="googleSearch"):
        normalize_tools([types.Tool(google_search=types.GoogleSearch()), {"name": "f", "parameters": WEATHER}], "openai-strict")


@pytest.mark.parametrize("target, limit", [("openai-chat", 128), ("openai-strict", 128), ("gemini-jsonschema", 512), ("gemini", 512),
                                           ("vertex", 128)])
def test_a_request_past_its_wires_tool_limit_is_refused_naming_the_limit(target, limit):
    """Finding 3: 130 tools passed openai-chat, 600 gemini-jsonschema."""
    tools = [{"name": f"t{i}", "parameters": WEATHER} for i in range(limit + 1)]
    with pytest.raises(RequestLimitError, match=rf"^{limit + 1} tools in one request; {target} takes at most {limit} \(request_limits.max_tools\)$"):
        normalize_tools(tools, target)
    assert len(normalize_tools(tools[:limit], target).tools) == limit


def test_a_generate_content_body_is_normalized_where_its_config_holds_the_tools():
    """Finding 4: `{model, contents, config}` came back with `"type": "STRING"` and no word."""
    from google.genai import types

    fd = types.FunctionDeclaration(name="f", parameters=types.Schema(type="OBJECT", properties={"a": types.Schema(type="STRING")}))
    config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=[fd])], response_json_schema={"type": "object"})
    for given in (config, config.model_dump(by_alias=True, exclude_none=True)):
        out = normalize_request({"model": "gemini-2.5-flash", "contents": [], "config": given}, "gemini")
        (group,) = out.tools
        assert out.body["config"]["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]["a"] == {"type": "string"}
        assert len(out.outputs) == 1


def test_a_python_function_in_a_dict_config_is_taken_as_in_a_generate_content_config():
    """Finding 4: inside a dict `config.tools` it was a SchemaInputError."""
    from google.genai import types

    def get_weather(city: str) -> str:
        """Weather in a city."""
        return city

    made = normalize_request({"model": "m", "contents": [], "config": {"tools": [get_weather]}}, "gemini").body
    sdk = normalize_request({"model": "m", "contents": [], "config": types.GenerateContentConfig(tools=[get_weather])}, "gemini").body
    assert made == sdk and made["config"]["tools"][0]["functionDeclarations"][0]["name"] == "get_weather"


def test_a_strict_output_on_openai_strict_says_strict_on_the_wire():
    """Finding 6: the schema was made strict, `json_schema.strict` left unset (non-strict to OpenAI)."""
    body = {"model": "m", "messages": [], "response_format": {"type": "json_schema", "json_schema": {"name": "o", "schema": FORECAST}}}
    out = normalize_request(body, "openai-strict")
    assert out.outputs[0].strict and out.body["response_format"]["json_schema"]["strict"] is True
    assert [c.pointer for c in out.changes if c.rule == "request/strict"] == ["/response_format/json_schema/strict"]
    assert "strict" not in normalize_request(body, "openai-chat").body["response_format"]["json_schema"]


def test_a_body_of_the_targets_own_wire_is_not_translated():
    out = normalize_request(OPENAI_BODY, "openai-chat")
    assert not [c for c in out.changes if c.rule == "request/translate"]
    assert out.body["messages"][3] == OPENAI_BODY["messages"][3]


# an OpenAI Responses body: instructions, a text input, a call and its output as items of
# their own, a flat function tool, a forced choice of it and a structured output at text.format
RESPONSES_BODY = {
    "model": "gpt-5",
    "instructions": "You are terse.",
    "input": [
        {"role": "user", "content": "Weather in Paris?"},
        {"type": "function_call", "call_id": "call_abc", "name": "get.weather!", "arguments": '{"city": "Paris"}'},
        {"type": "function_call_output", "call_id": "call_abc", "output": "18C, cloudy"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "And tomorrow?"}]},
    ],
    "tools": [{"type": "function", "name": "get.weather!", "description": "Forecast", "parameters": WEATHER, "strict": False}],
    "tool_choice": {"type": "function", "name": "get.weather!"},
    "text": {"format": {"type": "json_schema", "name": "forecast", "schema": FORECAST, "strict": True}},
}


def test_a_responses_body_sent_to_anthropic_is_a_messages_request_the_sdk_types_take():
    """openai-responses had no request spelling: its body went to Anthropic untranslated."""
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming as MessageCreateParams
    from pydantic import TypeAdapter

    out = normalize_request(RESPONSES_BODY, "anthropic")
    body = {**out.body, "max_tokens": 1024}
    assert body["system"] == [{"type": "text", "text": "You are terse."}] and body["tool_choice"] == {"type": "tool", "name": "get_weather_"}
    assert body["messages"] == [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "call_abc", "name": "get_weather_", "input": {"city": "Paris"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_abc", "content": "18C, cloudy"},
                                     {"type": "text", "text": "And tomorrow?"}]},
    ]
    assert body["output_config"]["format"]["schema"]["required"] == ["temp"] and "text" not in body
    assert set(body) <= MessageCreateParams.__required_keys__ | MessageCreateParams.__optional_keys__
    TypeAdapter(MessageCreateParams).validate_python(body)


def test_a_responses_body_sent_to_gemini_is_a_request_the_genai_types_take():
    from google.genai import types

    body = normalize_request(RESPONSES_BODY, "gemini").body
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get.weather_"]}}
    assert body["generationConfig"]["responseJsonSchema"]["required"] == ["temp"]
    assert body["contents"][1]["parts"] == [{"functionCall": {"id": "call_abc", "name": "get.weather_", "args": {"city": "Paris"}}}]
    assert body["systemInstruction"] == {"parts": [{"text": "You are terse."}]} and set(body) == {
        "model", "tools", "toolConfig", "generationConfig", "systemInstruction", "contents"}
    for content in body["contents"]:
        types.Content.model_validate(content)
    types.Tool.model_validate(body["tools"][0])
    types.GenerationConfig.model_validate(body["generationConfig"])


def test_an_openai_chat_body_sent_to_responses_is_a_request_the_openai_types_take(snap):
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming as ResponseCreateParams
    from pydantic import TypeAdapter

    given = {k: v for k, v in OPENAI_BODY.items() if k != "max_tokens"}
    given["response_format"] = {"type": "json_schema", "json_schema": {"name": "forecast", "schema": FORECAST, "strict": True}}
    out = normalize_request(given, "openai-responses")
    body = out.body
    assert body["instructions"] == "You are terse." and body["tool_choice"] == {"type": "function", "name": "get_weather_"}
    assert body["input"][1:3] == [
        {"type": "function_call", "call_id": "call_abc", "name": "get_weather_", "arguments": '{"city":"Paris"}'},
        {"type": "function_call_output", "call_id": "call_abc", "output": "18C, cloudy"},
    ]
    assert body["text"]["format"]["strict"] is True and body["text"]["format"]["name"] == "forecast"
    assert set(body) <= ResponseCreateParams.__required_keys__ | ResponseCreateParams.__optional_keys__
    TypeAdapter(ResponseCreateParams).validate_python(body)
    assert body == snap


def test_an_anthropic_body_goes_to_responses_its_assistant_texts_as_output_text():
    body = {"model": "m", "system": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "tools": [{"name": "f", "input_schema": WEATHER}],
            "messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"},
                                                           {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"city": "x"}}]}]}
    out = normalize_request(body, "openai-responses").body
    # two system texts where instructions take one string: a leading system message
    assert "instructions" not in out and out["input"][0]["role"] == "system"
    assert out["input"][2] == {"type": "message", "role": "assistant",
                               "content": [{"type": "output_text", "text": "one"}, {"type": "output_text", "text": "two"}]}
    assert out["input"][3]["type"] == "function_call"


def test_a_responses_item_no_other_wire_has_is_refused_or_dropped():
    body = {"input": [{"type": "reasoning", "summary": []}, {"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "name": "f", "parameters": WEATHER}]}
    with pytest.raises(UntranslatableError, match=r"/input/0: a part of type 'reasoning'"):
        normalize_request(body, "anthropic")
    out = normalize_request(body, "anthropic", on_untranslatable="drop")
    assert out.body["messages"] == [{"role": "user", "content": "hi"}]
    assert [c.pointer for c in out.changes if c.rule == "request/untranslatable"] == ["/input/0"]


def test_a_responses_text_input_is_one_user_turn():
    body = {"input": "hi", "tools": [{"type": "function", "name": "f", "parameters": WEATHER}], "tool_choice": "required"}
    out = normalize_request(body, "anthropic").body
    assert out["messages"] == [{"role": "user", "content": "hi"}] and out["tool_choice"] == {"type": "any"}


@pytest.mark.parametrize("spelled", ["object", "camel", "snake"])
def test_a_generate_content_body_sent_to_anthropic_is_translated_whole(spelled):
    """python-genai's `{model, contents, config}` on a non-Gemini target: its contents were
    translated, its config (tools, tool choice, system text, output) left as it was."""
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming as MessageCreateParams
    from google.genai import types
    from pydantic import TypeAdapter

    fd = types.FunctionDeclaration(name="f", parameters=types.Schema(type="OBJECT", properties={"a": types.Schema(type="STRING")}))
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[fd])], system_instruction="be brief",
        tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="ANY")),
        response_mime_type="application/json", response_json_schema=FORECAST)
    given = {"object": config, "camel": config.model_dump(by_alias=True, exclude_none=True),
             "snake": config.model_dump(exclude_none=True)}[spelled]
    out = normalize_request({"model": "claude-sonnet-4-5", "max_tokens": 64, "contents": "hi", "config": given}, "anthropic")
    body = out.body
    assert "config" not in body and body["tool_choice"] == {"type": "any"}
    assert body["tools"][0]["input_schema"]["properties"]["a"] == {"type": "string"}
    assert body["system"] == [{"type": "text", "text": "be brief"}] and body["messages"] == [{"role": "user", "content": "hi"}]
    assert body["output_config"]["format"]["schema"]["required"] == ["temp"]
    TypeAdapter(MessageCreateParams).validate_python(body)


def _imports(module: str) -> set[str]:
    """The package modules `module` imports, at its top or within a function."""
    import ast
    from pathlib import Path

    path = Path(wireschema.__file__).parent / f"{module.replace('.', '/')}.py"
    if not path.is_file():
        return set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module}


def test_the_translation_of_bodies_imports_no_module_that_imports_it():
    """requests imported tools' private helpers while tools imported requests, and
    requestmessages and requests imported each other: circles the guide forbids."""
    seen: set[str] = set()
    todo = ["requests"]
    while todo:
        found = _imports(todo.pop()) - seen
        seen |= found
        todo.extend(found)
    assert not seen & {"requests", "tools"}


def test_the_items_a_response_returned_go_back_to_another_wire_their_ids_reported():
    """Items of `response.output` sent back as input carry an item id and a status only the
    Responses API reads: not sent, reported, where any other field is refused."""
    body = {"input": [
        {"role": "user", "content": "hi"},
        {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "calling", "annotations": []}]},
        {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}", "status": "completed"},
        {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
    ], "tools": [{"type": "function", "name": "f", "parameters": WEATHER}]}
    out = normalize_request(body, "anthropic")
    assert out.body["messages"][1] == {"role": "assistant", "content": [
        {"type": "text", "text": "calling"}, {"type": "tool_use", "id": "call_1", "name": "f", "input": {}}]}
    dropped = [c.pointer for c in out.changes if c.rule == "request/translate" and c.action == "dropped"]
    assert dropped == ["/input/1/content/0", "/input/1", "/input/1", "/input/2", "/input/2"]  # ids, statuses, annotations
    with pytest.raises(UntranslatableError, match=r"/input/0: the call's namespace"):
        normalize_request({**body, "input": [{**body["input"][2], "namespace": "n"}]}, "anthropic")
