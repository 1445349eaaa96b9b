"""The shapes users hold, as the real SDKs make them (`pip install -e '.[test,clients]'`):
MCP `Tool`s and `ListToolsResult`s, google-genai `FunctionDeclaration`s and configs,
OpenAI and Anthropic tool objects and tool calls, agent frameworks' tools. Each goes in as the SDK object and
comes out as something the SDK's own types accept again. A test skips only when its
SDK is not installed."""

from __future__ import annotations

import asyncio
import json
from typing import Literal

import pytest

import wireschema

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}}, "required": ["city"]}


def _mcp():
    return pytest.importorskip("mcp.types")


def _name_titles_dropped(value):
    """A framework's own schema (or tool) as wireschema sends it: each title that only
    repeats its property's or definition's name as pydantic writes it dropped
    (`prepare/name-titles`), every other part as it is."""
    if isinstance(value, list):
        return [_name_titles_dropped(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _name_titles_dropped(v) for k, v in value.items()}
    for kw in ("properties", "$defs"):
        for name, sub in out.get(kw, {}).items() if isinstance(out.get(kw), dict) else ():
            if isinstance(sub, dict) and sub.get("title") in (name, name.title().replace("_", " ").strip()):
                del sub["title"]
    return out


def _genai():
    return pytest.importorskip("google.genai.types")


# --- MCP ---------------------------------------------------------------------------


def test_a_list_of_mcp_tools_and_a_list_tools_result_are_read_as_tools():
    mt = _mcp()
    tools = [mt.Tool(name="get_weather", title="Forecast", inputSchema=WEATHER), mt.Tool(name="now", inputSchema={"type": "object"})]
    listed = mt.ListToolsResult(tools=tools)
    for given in (tools, listed, listed.model_dump(by_alias=True, exclude_none=True, mode="json")):
        out = wireschema.normalize_tools(given, "anthropic")
        assert [t["name"] for t in out.tools] == ["get_weather", "now"]
        assert out.tools[0]["description"] == "Forecast"  # an MCP title stands in for a description
        assert out.tools[0]["input_schema"]["properties"] == WEATHER["properties"]
        assert not any(r.used_fallback for r in out.results)


def test_an_mcp_tool_object_goes_through_mcp_ingestion_and_back_into_the_sdk():
    mt = _mcp()
    out = wireschema.normalize_mcp_tool(mt.Tool(name="q", inputSchema={"properties": {"q": {"type": "string"}}}))
    assert out.tool["inputSchema"]["type"] == "object"
    assert mt.Tool.model_validate(out.tool).name == "q"


def test_an_mcp_servers_own_tool_is_read_as_its_list_tools_sends_it():
    """The MCP SDK's server-side tool (`MCPServer`'s, 1.x `FastMCP`'s `@tool()`) is a
    pydantic model: dumped, it read as a Gemini declaration (name, description,
    parameters), sent with its `fn_metadata` and `is_async` beside them, which the wire
    refuses, and on mcp its output schema (under `fn_metadata`) was left behind."""
    pytest.importorskip("mcp.server.mcpserver")
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("test")

    @server.tool(title="Adder")
    def add(a: int, b: int = 2) -> int:
        """Add two numbers."""
        return a + b

    (tool,) = server._tool_manager.list_tools()
    (listed,) = asyncio.run(server.list_tools())
    sent = listed.model_dump(by_alias=True, exclude_none=True, mode="json")
    assert wireschema.normalize_tool(tool, "mcp").tool == wireschema.normalize_tool(listed, "mcp").tool == _name_titles_dropped(sent)
    gemini = wireschema.normalize_tool(tool, "gemini")
    assert set(gemini.tool) == {"name", "description", "parameters", "response"}
    assert gemini.tool["response"]["properties"] == {"result": {"type": "integer"}}
    assert [c.detail for c in gemini.result.changes if c.rule == "tool/shape"] == ["the tool's title has no place in gemini's tool: not sent"]


def test_two_servers_exposing_one_name_get_two_wire_names():
    mt = _mcp()
    first = mt.ListToolsResult(tools=[mt.Tool(name="search", inputSchema={"type": "object", "properties": {"q": {"type": "string"}}})])
    second = mt.ListToolsResult(tools=[mt.Tool(name="search", inputSchema={"type": "object", "properties": {"url": {"type": "string"}}})])
    out = wireschema.normalize_tools([*first.tools, *second.tools], "openai-strict")
    wires = [t["function"]["name"] for t in out.tools]
    assert wires[0] == "search" and wires[1].startswith("search_") and len(wires[1]) <= 64
    assert [out.names.original(w) for w in wires] == ["search", "search"]
    assert "url" in out.result_for(wires[1]).schema["properties"]  # the second server's tool, not the first
    assert "q" in out.result_for(wires[0]).schema["properties"]


# --- google-genai ------------------------------------------------------------------


def test_function_declarations_in_both_schema_fields_are_read():
    types = _genai()
    decls = [
        types.FunctionDeclaration(name="get_weather", description="Forecast", parameters=types.Schema(
            type="OBJECT", properties={"city": types.Schema(type="STRING", min_length=1)}, required=["city"])),
        types.FunctionDeclaration(name="lookup", parameters_json_schema={"type": "object", "properties": {"id": {"type": ["string", "null"]}}}),
    ]
    out = wireschema.normalize_tools(decls, "gemini")
    assert [t["name"] for t in out.tools] == ["get_weather", "lookup"]
    assert out.tools[0]["parameters"]["properties"]["city"]["type"] == "string"
    assert out.tools[1]["parameters"]["properties"]["id"] == {"type": "string", "nullable": True}
    for tool in out.tools:
        types.FunctionDeclaration.model_validate(tool)  # the SDK takes what came out
    assert not any(r.used_fallback for r in out.results) and out.results[1].changes


def test_a_gemini_tool_alone_is_the_list_of_its_function_declarations():
    types = _genai()
    tool = types.Tool(function_declarations=[
        types.FunctionDeclaration(name="get_weather", description="Forecast", parameters_json_schema=WEATHER),
        types.FunctionDeclaration(name="lookup", parameters=types.Schema(type="OBJECT", properties={"id": types.Schema(type="STRING")})),
    ])
    for given in (tool, {"function_declarations": [d.model_dump(exclude_none=True) for d in tool.function_declarations]}):
        out = wireschema.normalize_tools(given, "openai-strict")
        assert [t["function"]["name"] for t in out.tools] == ["get_weather", "lookup"]
        assert out.tools[0]["function"]["parameters"]["properties"]["city"] == {"type": "string"}
        assert not any(r.used_fallback for r in out.results)
    gemini = wireschema.normalize_tools(tool, "gemini")
    for declaration in gemini.tools:
        types.FunctionDeclaration.model_validate(declaration)


def test_a_list_of_gemini_tools_is_the_list_of_their_declarations():
    """python-genai's `config.tools` as a caller holds it: each `Tool`'s declarations in
    order, where the `Tool` stands among the list's other tools, one list on every
    target (no wire tells one grouping of declarations from another; python-genai
    itself gathers a list's functions into one `Tool`). Before, a `Tool` inside a list
    was refused; earlier still, it became a function `tool_0` with an empty schema."""
    types = _genai()
    first = types.Tool(function_declarations=[
        types.FunctionDeclaration(name="f", parameters_json_schema=WEATHER),
        types.FunctionDeclaration(name="g", parameters=types.Schema(type="OBJECT", properties={"id": types.Schema(type="STRING")})),
    ])
    second = {"functionDeclarations": [{"name": "h", "parameters": WEATHER}]}
    given = [first, {"name": "k", "parameters": WEATHER}, second]
    out = wireschema.normalize_tools(given, "openai-chat")
    assert [t["function"]["name"] for t in out.tools] == ["f", "g", "k", "h"]
    assert out.tools[1]["function"]["parameters"]["properties"]["id"] == {"type": "string"}
    assert not any(r.used_fallback for r in out.results)
    gemini = wireschema.normalize_tools(given, "gemini")
    types.Tool(function_declarations=list(gemini.tools))  # one Tool takes them all
    with pytest.raises(wireschema.ToolShapeError, match="^this entry holds a list of tools under 'functionDeclarations'"):
        wireschema.normalize_tool(first, "openai-chat")



def test_a_gemini_tool_holding_declarations_and_googles_own_tool_is_read_on_gemini():
    """`types.Tool(function_declarations=[fd], google_search=...)`, as python-genai takes it:
    Google's tool where the group stood, then its declarations. Before, a ToolShapeError on
    every target, gemini included; on another wire Google's tool is refused (no such tool)."""
    types = _genai()
    second = {"functionDeclarations": [{"name": "h", "parameters": WEATHER}]}
    both = types.Tool(function_declarations=[types.FunctionDeclaration(name="f", parameters_json_schema=WEATHER)],
                      google_search=types.GoogleSearch())
    for given, want in (([second, both], ["h", {"googleSearch": {}}, "f"]), (both, [{"googleSearch": {}}, "f"])):
        out = wireschema.normalize_tools(given, "gemini")
        assert [t.get("name", t) for t in out.tools] == want
        assert [r is None for r in out.results] == [isinstance(w, dict) for w in want]
    with pytest.raises(wireschema.ToolShapeError, match=r"googleSearch.*gemini.*own tool, which openai-strict's tool lists do not take"):
        wireschema.normalize_tools([both], "openai-strict")
    dropped = wireschema.normalize_tools([both], "openai-strict", on_untranslatable="drop")
    assert [t["function"]["name"] for t in dropped.tools] == ["f"] and dropped.changes[0].rule == "request/untranslatable"


def test_googles_own_tools_pass_through_a_tool_list_untouched():
    types = _genai()
    given = [types.FunctionDeclaration(name="f", parameters_json_schema=WEATHER),
             types.Tool(google_search=types.GoogleSearch()), {"code_execution": {}}, {"urlContext": {}}]
    out = wireschema.normalize_tools(given, "gemini")
    assert out.tools[1:] == ({"googleSearch": {}}, {"code_execution": {}}, {"urlContext": {}})
    assert out.results[1:] == (None, None, None) and not out.results[0].used_fallback
    # every field of the SDK's Tool but the declarations, in either spelling, is one of Google's own tools
    spellings = [s for name, field in types.Tool.model_fields.items() if name != "function_declarations" for s in (name, field.alias)]
    assert [s for s in spellings if wireschema.tools.is_function_tool({s: {}})] == []


@pytest.mark.parametrize("target", ["gemini", "vertex", "openai-strict", "anthropic"])
def test_a_schema_read_back_from_the_gemini_proto_keeps_its_counts(target):
    """proto3 JSON writes the Schema message's int64 counts as strings ("minItems": "1");
    before, every target refused such a schema whole (its fallback, an empty tool)."""
    gl = pytest.importorskip("google.ai.generativelanguage_v1beta")
    json_format = pytest.importorskip("google.protobuf.json_format")
    message = gl.Schema(type_=gl.Type.OBJECT, required=["tags"], properties={
        "tags": gl.Schema(type_=gl.Type.ARRAY, items=gl.Schema(type_=gl.Type.STRING, max_length=10), min_items=1, max_items=5)})
    read_back = json_format.MessageToDict(message._pb)
    assert read_back["properties"]["tags"]["minItems"] == "1"
    result = wireschema.normalize(read_back, target)
    assert not result.used_fallback
    tags = result.schema["properties"]["tags"]
    assert (tags["minItems"], tags["maxItems"], tags["items"]["maxLength"]) == (1, 5, 10)
    assert {(c.rule, c.pointer) for c in result.changes if c.rule == "draft/counts"} == {
        ("draft/counts", "/properties/tags/minItems"), ("draft/counts", "/properties/tags/maxItems"),
        ("draft/counts", "/properties/tags/items/maxLength")}
    if target == "gemini":  # the proto takes what came out (its JSON spells type names upper case)
        from wireschema import report

        json_format.ParseDict(report._proto_types(result.schema), gl.Schema()._pb)


def test_the_callers_snake_spelling_is_kept_where_the_tool_keeps_its_shape():
    types = _genai()
    decl = types.FunctionDeclaration(name="lookup", behavior="NON_BLOCKING",
                                     parameters_json_schema={"type": "object", "properties": {"id": {"type": "string", "format": "uri"}}})
    snake = decl.model_dump(exclude_none=True, mode="json")
    assert "parameters_json_schema" in snake
    out = wireschema.normalize_tool(snake, "gemini-jsonschema")
    assert set(out.tool) == {"name", "behavior", "parameters_json_schema"}  # one schema field, the caller's
    assert out.tool["parameters_json_schema"]["properties"]["id"]["description"] == "(format: uri)"
    assert out.result.schema is out.tool["parameters_json_schema"]
    types.FunctionDeclaration.model_validate(out.tool)
    # rebuilt for the OpenAPI-subset wire: the target's canonical field
    assert set(wireschema.normalize_tool(snake, "gemini").tool) == {"name", "parameters"}


def test_a_config_in_python_genai_spelling_is_normalized_where_it_stands():
    types = _genai()
    config = {"tools": [{"function_declarations": [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": ["string", "null"]}}}}]}],
              "response_mime_type": "application/json",
              "response_schema": {"type": "array", "items": {"type": "string", "format": "uri"}}}
    out = wireschema.normalize_request(config, "gemini")
    assert out.body["tools"][0]["function_declarations"][0]["parameters"]["properties"]["a"] == {"type": "string", "nullable": True}
    assert out.body["response_schema"] == {"type": "array", "items": {"type": "string", "description": "(format: uri)"}}
    assert len(out.outputs) == 1 and not out.outputs[0].used_fallback
    types.GenerateContentConfig.model_validate(out.body)


def test_a_generate_content_config_object_is_a_request_body_as_the_sdk_sends_it():
    """It was refused ("GenerateContentConfig at /0 is not a JSON value"), where a
    FunctionDeclaration or a Schema object is read as its SDK dumps it."""
    types = _genai()
    decl = types.FunctionDeclaration(name="f", parametersJsonSchema={"type": "object", "properties": {"a": {"type": ["string", "null"]}}})
    config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=[decl])], response_mime_type="application/json",
                                         response_schema=types.Schema(type=types.Type.ARRAY, items=types.Schema(type=types.Type.STRING, format="uri")))
    out = wireschema.normalize_request(config, "gemini")
    assert out.body["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]["a"] == {"type": "string", "nullable": True}
    assert out.body["responseSchema"] == {"type": "array", "items": {"type": "string", "description": "(format: uri)"}}
    types.GenerateContentConfig.model_validate(out.body)
    assert config.response_schema.items.format == "uri"  # the caller's object as it was


def test_sdk_objects_inside_a_dict_body_are_read_as_the_sdk_sends_them():
    """python-genai takes `config={"tools": [types.Tool(...)]}`: such a body was refused
    ("Tool at /tools/0 is not a JSON value")."""
    types = _genai()
    tools = [types.Tool(function_declarations=[types.FunctionDeclaration(name="f", parameters_json_schema=WEATHER)]),
             types.Tool(google_search=types.GoogleSearch())]
    body = {"tools": tools, "response_mime_type": "application/json"}
    out = wireschema.normalize_request(body, "gemini")
    assert out.body["tools"] == wireschema.normalize_request(types.GenerateContentConfig(**body), "gemini").body["tools"]
    assert out.body["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]["days"] == {"type": "integer", "minimum": 1}
    assert out.body["tools"][1] == {"googleSearch": {}} and body["tools"] is tools  # the caller's body as it was


def test_a_model_instance_is_data_not_a_schema():
    """Dumped and read as a schema, its fields went to the wire as keywords beside an
    added `type: object`, reported only as the strict form failing open."""
    pydantic = pytest.importorskip("pydantic")

    class Order(pydantic.BaseModel):
        sku: str
        qty: int = 1

    for call in (wireschema.normalize, wireschema.normalize_output, wireschema.check):
        with pytest.raises(wireschema.SchemaInputError, match=r"Order object holds no schema keyword \(its fields: sku, qty\): it is data"):
            call(Order(sku="x"), "openai-strict")
    assert wireschema.normalize(Order, "openai-strict").strict  # its class is the schema


@pytest.mark.parametrize("target", [t.name for t in wireschema.targets()])
def test_a_reference_in_python_genais_spelling_is_resolved_on_every_wire(target):
    """python-genai's Schema spells a reference `ref: "#/defs/Name"` (as it sends it to
    Vertex); only vertex read it: elsewhere it stayed an unknown keyword (the property
    took any value) or was dropped (gemini sent `{}`)."""
    types = _genai()
    schema = types.Schema(type=types.Type.OBJECT, properties={"pet": types.Schema(ref="#/defs/Pet")}, required=["pet"],
                          defs={"Pet": types.Schema(type=types.Type.STRING, enum=["cat", "dog"])})
    out = wireschema.normalize(schema, target)
    sent = json.dumps(out.schema)
    assert not out.used_fallback and '"cat"' in sent
    assert [c.detail for c in out.changes if c.rule == "prepare/google-refs"] == ["defs -> $defs", "ref -> $ref"]
    if target != "vertex":  # vertex spells it its way again
        assert '"ref"' not in sent and '"defs"' not in sent


def _nulls_but_default_gone(value):
    if isinstance(value, dict):
        return {k: _nulls_but_default_gone(v) for k, v in value.items() if v is not None or k == "default"}
    return [_nulls_but_default_gone(v) for v in value] if isinstance(value, list) else value


@pytest.mark.parametrize("target", [t.name for t in wireschema.targets()])
def test_a_dumped_genai_schema_reads_its_null_fields_as_unset_on_every_wire(target):
    """python-genai's `Schema.model_dump()` writes each unset field null, on every node
    (`any_of: None`, `format: None`, `ref: None`, `max_items: None`): every target fell
    back (`format must be a string`), to an empty object. A null `default` is a value."""
    types = _genai()
    schema = types.Schema(type="OBJECT", required=["city"], properties={
        "city": types.Schema(type="STRING", max_length=40), "days": types.Schema(type="INTEGER", minimum=1)})
    dumped = schema.model_dump()
    out, same = wireschema.normalize(dumped, target), wireschema.normalize(_nulls_but_default_gone(dumped), target)
    assert not out.used_fallback and out.schema == same.schema
    unset = [c for c in out.changes if c.rule == "prepare/unset-keywords"]
    assert [c for c in out.changes if c not in unset] == list(same.changes)
    assert sorted(c.pointer for c in unset) == sorted(_null_pointers(dumped))


def _null_pointers(value, at=""):
    for k, v in value.items():
        if v is None and k != "default":
            yield f"{at}/{k}"
        elif isinstance(v, dict):
            yield from _null_pointers(v, f"{at}/{k}")


def test_check_reads_an_sdk_schema_object_as_normalize_does():
    types = _genai()
    schema = types.Schema(type=types.Type.OBJECT, properties={"a": types.Schema(type=types.Type.STRING)})
    assert wireschema.check(schema, "openai-chat") == wireschema.check(schema.model_dump(by_alias=True, exclude_none=True, mode="json"), "openai-chat")


@pytest.mark.parametrize("target,field", [("gemini", "responseSchema"), ("vertex", "responseSchema"),
                                          ("gemini-jsonschema", "responseJsonSchema")])
def test_a_list_of_models_is_an_array_output_on_the_google_wires(target, field):
    pydantic = pytest.importorskip("pydantic")

    class Recipe(pydantic.BaseModel):
        name: str
        minutes: int

    adapter = pydantic.TypeAdapter(list[Recipe])
    result = wireschema.normalize_output(adapter, target)
    assert not result.used_fallback and not result.wrapped and result.target == target
    assert result.schema["type"] == "array"
    body = {"contents": [], "generationConfig": {"responseMimeType": "application/json", field: adapter.json_schema()}}
    out = wireschema.normalize_request(body, target)
    assert out.body["generationConfig"][field] == result.schema
    assert out.body["generationConfig"][field] != {"type": "object", "properties": {}}


def test_a_type_where_python_genai_takes_one_is_its_json_schema():
    """google-genai takes `response_schema=Recipe` or `list[Recipe]`: a config holding
    one could not be dumped, and a typing form (`list[Recipe]`, `Recipe | None`,
    `Literal[...]`) given to normalize was no JSON value."""
    types = _genai()
    pydantic = pytest.importorskip("pydantic")

    class Recipe(pydantic.BaseModel):
        name: str

    # pydantic's title of the property, its name again, dropped; the model's, at the root, kept
    recipe = {"type": "object", "title": "Recipe", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    # in a list the model is a definition, its title its name again: dropped too
    untitled = {k: v for k, v in recipe.items() if k != "title"}
    for given, sent in ((Recipe, recipe), (list[Recipe], {"type": "array", "items": untitled})):
        config = types.GenerateContentConfig(response_mime_type="application/json", response_schema=given)
        assert wireschema.normalize_request(config, "gemini").body["responseSchema"] == sent
        assert wireschema.normalize_output(given, "gemini").schema == sent
    assert wireschema.normalize_output(Recipe | None, "gemini").schema == {**untitled, "nullable": True}
    assert wireschema.normalize_output(Literal["a", "b"], "gemini").schema == {"type": "string", "enum": ["a", "b"]}
    config = types.GenerateContentConfig(response_json_schema=object())
    with pytest.raises(wireschema.SchemaInputError, match="GenerateContentConfig cannot be dumped to JSON: object is no JSON value$"):
        wireschema.normalize_request(config, "gemini")


def test_a_functions_return_type_is_its_declarations_output_schema_where_python_genai_sends_one():
    """python-genai sends a function's return annotation as its declaration's output
    schema: `responseJsonSchema` (the JSON Schema path it takes for `config.tools`), and
    `response` to Vertex AI (to the Gemini API, in the Schema dialect, it sends none).
    wireschema sent none anywhere."""
    from types import SimpleNamespace

    from pydantic import BaseModel

    types = _genai()

    class Forecast(BaseModel):
        temp: float
        sky: str

    class Opaque:
        pass

    def get_weather(city):
        """Forecast."""
        return []

    def ping():
        """Ping."""

    def handle(x):
        """A handle."""
        return Opaque()

    # objects, not this module's strings (its annotations are postponed, its classes local)
    get_weather.__annotations__ = {"city": str, "return": list[Forecast]}
    ping.__annotations__ = {"return": None}
    handle.__annotations__ = {"x": int, "return": Opaque}

    sdk = types.FunctionDeclaration.from_callable(client=SimpleNamespace(vertexai=False), callable=get_weather, use_json_schema=True)
    assert wireschema.normalize_tool(get_weather, "gemini-jsonschema").tool["responseJsonSchema"] == _name_titles_dropped(sdk.response_json_schema)
    vertex = wireschema.normalize_tool(get_weather, "vertex")
    assert vertex.tool["response"]["items"] == {"ref": "#/defs/Forecast"}
    types.FunctionDeclaration.model_validate(vertex.tool)
    assert "response" not in wireschema.normalize_tool(get_weather, "gemini").tool
    assert "outputSchema" not in wireschema.normalize_tool(get_weather, "mcp").tool  # a server's obligation, not sent
    assert "responseJsonSchema" not in wireschema.normalize_tool(ping, "gemini-jsonschema").tool  # nothing to describe
    opaque = wireschema.normalize_tool(handle, "gemini-jsonschema")
    assert "responseJsonSchema" not in opaque.tool
    assert [c.detail.split(" (")[0] for c in opaque.result.changes if c.rule == "tool/shape"] == ["the function's return annotation has no JSON Schema"]


def test_an_outputs_objects_say_their_property_order_as_python_genai_says_it():
    """Gemini 2.0 models write a responseSchema object's properties in an order of their
    own unless propertyOrdering gives one: python-genai's process_schema adds it to every
    object of two or more properties of a response schema, and a REST body normalized by
    wireschema went without it (a `reasoning` the model was to write before its `answer`
    could come after it)."""
    from types import SimpleNamespace

    from pydantic import BaseModel

    types = _genai()
    from google.genai import _transformers

    class Step(BaseModel):
        thought: str
        tool: str | None = None

    class Answer(BaseModel):
        reasoning: list[Step]
        answer: str
        confidence: float

    sdk = _transformers.t_schema(SimpleNamespace(vertexai=False), Answer)  # a client is read for its API only
    for target in ("gemini", "vertex"):
        out = wireschema.normalize_output(Answer, target).schema
        step = out["properties"]["reasoning"]["items"] if target == "gemini" else out["defs"]["Step"]
        assert out["propertyOrdering"] == sdk.property_ordering == ["reasoning", "answer", "confidence"]
        assert step["propertyOrdering"] == sdk.properties["reasoning"].items.property_ordering == ["thought", "tool"]
        types.Schema.model_validate(out)
    # tool parameters go without it, as the SDK sends them; so does a responseJsonSchema, which it sends
    # as written, and cca-claude, which takes no such field
    assert "propertyOrdering" not in json.dumps(wireschema.normalize(Answer, "gemini").schema)
    for target in ("gemini-jsonschema", "cca-claude"):
        assert "propertyOrdering" not in json.dumps(wireschema.normalize_output(Answer, target).schema)


def test_a_python_function_in_a_configs_tools_is_sent_as_python_genai_sends_it():
    """python-genai's automatic function calling takes a function in `config.tools` (and an
    MCP SDK `Tool`), and sends each one's declaration, with every Tool's declarations, in
    one Tool at the list's end. Such a config was refused ("function is no JSON value"),
    and an MCP `Tool` in it went out unnormalized, with a WARNING that the body was
    written for another wire."""
    from types import SimpleNamespace

    mcp_types, types = _mcp(), _genai()
    from google.genai import _transformers

    def get_weather(city: str, days: int = 3) -> str:
        """Weather now."""
        return city

    search = mcp_types.Tool(name="search", inputSchema={"type": "object", "properties": {"q": {"type": ["string", "null"]}}})
    listed = [get_weather, types.Tool(google_search=types.GoogleSearch()),
              types.Tool(function_declarations=[types.FunctionDeclaration(name="f", parameters_json_schema=WEATHER)]), search]
    config = types.GenerateContentConfig(temperature=0.5, tools=listed)
    out = wireschema.normalize_request(config, "gemini")
    # the SDK's own gathering (a client is read for its API only)
    sent = [t.model_dump(by_alias=True, exclude_none=True) for t in _transformers.t_tools(SimpleNamespace(vertexai=False), listed)]
    assert [sorted(t) for t in out.body["tools"]] == [sorted(t) for t in sent] == [["googleSearch"], ["functionDeclarations"]]
    names = [d["name"] for d in out.body["tools"][1]["functionDeclarations"]]
    assert names == [d["name"] for d in sent[1]["functionDeclarations"]] == ["get_weather", "f", "search"]
    assert out.body["tools"][1]["functionDeclarations"][0] == wireschema.normalize_tool(get_weather, "gemini").tool
    assert out.body["tools"][1]["functionDeclarations"][2]["parameters"]["properties"]["q"] == {"type": "string", "nullable": True}
    assert out.changes[0].rule == "request/tools" and out.changes[0].pointer == "/tools"
    assert out.changes[0].detail.startswith("2 of the caller's own tools")
    assert out.body["temperature"] == 0.5 and list(out.body) == ["temperature", "tools"]
    types.GenerateContentConfig.model_validate(out.body)
    assert config.tools == listed and config.tools[0] is get_weather  # the caller's object as it was
    # a dict config, as python-genai takes one, the same
    body = {"tools": list(listed)}
    assert wireschema.normalize_request(body, "gemini").body["tools"] == out.body["tools"]
    assert body["tools"][0] is get_weather
    # a framework's tool object there is read as normalize_tools reads it (rules/_objects.yaml)
    langchain = pytest.importorskip("langchain_core.tools")
    read = wireschema.normalize_request({"tools": [langchain.tool(get_weather)]}, "gemini")
    assert read.body["tools"] == [{"functionDeclarations": [wireschema.normalize_tool(langchain.tool(get_weather), "gemini").tool]}]
    assert "func" in read.tools[0].results[0].changes[0].detail  # its callback named as not sent, as normalize_tools names it
    # a list of the SDK's Tools alone is left as it is: nothing of the caller's to gather
    alone = wireschema.normalize_request(types.GenerateContentConfig(tools=listed[1:3]), "gemini")
    assert [sorted(t) for t in alone.body["tools"]] == [["googleSearch"], ["functionDeclarations"]] and not alone.changes


def test_a_python_function_where_no_tool_list_is_says_normalize_tool_makes_a_tool_of_it():
    def get_weather(city: str) -> str:
        """Weather now."""
        return city

    hint = r"\(get_weather is a Python function or class: normalize_tool makes a tool of it\)$"
    with pytest.raises(wireschema.SchemaInputError, match="function at /labels/tool is not a JSON value " + hint):
        wireschema.normalize_request({"contents": [], "labels": {"tool": get_weather}}, "gemini")


def test_a_class_in_a_configs_tools_is_a_tool_as_normalize_tools_makes_one():
    """It was dumped as its JSON Schema (as a `response_schema` class is) and left in the
    tool list, unnormalized, with a WARNING that the body was written for another wire."""
    types = _genai()
    from pydantic import BaseModel

    class Recipe(BaseModel):
        """A recipe."""

        name: str

    out = wireschema.normalize_request(types.GenerateContentConfig(tools=[Recipe]), "gemini")
    assert out.body["tools"] == [{"functionDeclarations": [wireschema.normalize_tool(Recipe, "gemini").tool]}]
    assert out.body["tools"][0]["functionDeclarations"][0]["name"] == "Recipe"


def test_a_genai_schema_object_is_an_output_schema_as_the_sdk_sends_it():
    types = _genai()
    schema = types.Schema(type="ARRAY", items=types.Schema(type="STRING", enum=["a", "b"]), min_items=1)
    result = wireschema.normalize_output(schema, "gemini")
    assert result.schema == {"items": {"enum": ["a", "b"], "type": "string"}, "minItems": 1, "type": "array"}
    assert wireschema.normalize(types.Schema(type="OBJECT", properties={"a": types.Schema(type="STRING")}), "gemini").schema[
        "properties"] == {"a": {"type": "string"}}


# --- OpenAI ------------------------------------------------------------------------


def test_openai_sdk_tool_objects_are_read_and_a_tool_calls_arguments_text_restored():
    pytest.importorskip("openai")
    from openai.types.chat import ChatCompletionMessageToolCall
    from openai.types.responses import FunctionTool
    from openai.types.shared import FunctionDefinition

    chat = wireschema.normalize_tool(FunctionDefinition(name="get_weather", description="Forecast", parameters=WEATHER), "openai-strict")
    responses = wireschema.normalize_tool(FunctionTool(type="function", name="get_weather", parameters=WEATHER, strict=True), "openai-responses")
    assert chat.tool["function"]["strict"] is True and chat.tool["function"]["description"] == "Forecast"
    # the tool's own strict flag asks for the strict variant, and it was reached
    assert responses.tool["strict"] is True and responses.tool["parameters"]["additionalProperties"] is False
    call = ChatCompletionMessageToolCall(id="c1", type="function", function={
        "name": "get_weather", "arguments": '{"city": "Lyon", "days": null}'})
    args = call.function.arguments
    assert isinstance(args, str)
    assert chat.result.restore(args) == {"city": "Lyon"}
    assert chat.result.restore(args.encode()) == {"city": "Lyon"}
    assert chat.result.validate(args) == ()
    assert [i.pointer for i in chat.result.validate('{"city": "Lyon", "days": 0}')] == ["/days"]


# --- agent frameworks' tool objects (rules/_objects.yaml) ---------------------------


def test_an_openai_agents_function_tool_is_read_by_its_attributes():
    agents = pytest.importorskip("agents")

    @agents.function_tool
    def get_weather(city: str) -> str:
        """Weather for a city."""
        return "sunny"

    out = wireschema.normalize_tool(get_weather, "gemini")
    assert set(out.tool) == {"name", "description", "parameters"}
    assert (out.tool["name"], out.tool["description"]) == ("get_weather", "Weather for a city.")
    assert out.tool["parameters"]["properties"]["city"]["type"] == "string"
    # its callback is no tool data: named, not sent
    (left,) = [c for c in out.result.changes if c.rule == "tool/shape"]
    assert left.action == "dropped" and "FunctionTool's on_invoke_tool" in left.detail
    json.dumps(out.tool)
    # strict_json_schema (true by default) is the tool's strict flag
    responses = wireschema.normalize_tool(get_weather, "openai-responses")
    assert responses.tool["type"] == "function" and responses.tool["strict"] is True and responses.result.strict
    loose = wireschema.normalize_tool(agents.FunctionTool(
        name="look", description="Looks", params_json_schema=WEATHER, on_invoke_tool=get_weather.on_invoke_tool,
        strict_json_schema=False), "openai-strict")
    assert loose.tool["function"]["strict"] is False and not loose.result.strict


def test_pydantic_ai_tool_definitions_are_read_naming_only_what_differs_from_a_default():
    tools = pytest.importorskip("pydantic_ai.tools")
    plain = tools.ToolDefinition(name="get_weather", description="Forecast", parameters_json_schema=WEATHER)
    tagged = tools.ToolDefinition(name="get_weather", description="Forecast", parameters_json_schema=WEATHER, metadata={"team": "a"})
    out = wireschema.normalize_tools([plain, {"name": "now", "input_schema": {"type": "object"}}], "anthropic")
    assert out.tools[0]["input_schema"]["properties"] == WEATHER["properties"]
    assert out.tools[0]["description"] == "Forecast"
    assert not [c for c in out.results[0].changes if c.rule.startswith("tool/")]
    # the same tool parts, another object: its own report, not the cached one's
    again = wireschema.normalize_tools([tagged, {"name": "now", "input_schema": {"type": "object"}}], "anthropic")
    (left,) = [c for c in again.results[0].changes if c.rule == "tool/shape"]
    assert "ToolDefinition's metadata," in left.detail
    assert wireschema.normalize_tool(tagged, "anthropic").result.changes[0] == left

    # a Tool around a function is read by the ToolDefinition it holds (tool_def)
    def forecast(city: str) -> str:
        """Forecast for a city."""
        return "sunny"

    wrapped = wireschema.normalize_tool(tools.Tool(forecast), "anthropic")
    assert wrapped.tool["input_schema"]["properties"]["city"]["type"] == "string"
    assert wrapped.tool["description"] == "Forecast for a city."

    class Mine(tools.ToolDefinition):  # a subclass is read as its class is
        pass

    assert wireschema.normalize_tool(Mine(name="mine", parameters_json_schema=WEATHER), "gemini").tool["name"] == "mine"
    with pytest.raises(wireschema.ToolShapeError, match="parameters_json_schema is None"):
        wireschema.normalize_tool(tools.ToolDefinition(name="empty", parameters_json_schema=None), "gemini")


def test_a_collection_of_tools_is_the_tools_it_holds():
    """A LangChain toolkit (`get_tools()`) and pydantic-ai's toolsets (a `FunctionToolset`'s
    `tools`, a `CombinedToolset`'s toolsets in turn) are the tools they hold, given as the
    whole list or standing in one. Before, each was refused as no list and no tool."""
    lc = pytest.importorskip("langchain_core.tools")
    toolsets = pytest.importorskip("pydantic_ai.toolsets")

    def get_weather(city: str) -> str:
        """Weather for a city."""
        return city

    def lookup(key: str) -> str:
        """Look a key up."""
        return key

    get_weather.__annotations__ = {"city": str, "return": str}
    lookup.__annotations__ = {"key": str, "return": str}

    class Kit(lc.BaseToolkit):
        def get_tools(self):
            return [lc.tool(lookup)]

    functions = toolsets.FunctionToolset([get_weather])
    out = wireschema.normalize_tools([Kit(), {"name": "f", "parameters": WEATHER}, functions], "openai-chat")
    assert [t["function"]["name"] for t in out.tools] == ["lookup", "f", "get_weather"]
    assert not any(r.used_fallback for r in out.results)
    combined = toolsets.CombinedToolset([functions, toolsets.FunctionToolset([lookup])])
    assert [t["name"] for t in wireschema.normalize_tools(combined, "anthropic").tools] == ["get_weather", "lookup"]
    with pytest.raises(wireschema.ToolShapeError, match=r"^the tool \(langchain_core.tools.base.BaseToolkit\) is a collection of tools"):
        wireschema.normalize_tool(Kit(), "gemini")
    # what is no tool is named by its place in the caller's list, not in the tools the collections hold
    with pytest.raises(wireschema.ToolShapeError, match=r"^tool 1 is int"):
        wireschema.normalize_tools([toolsets.FunctionToolset([get_weather, lookup]), 5], "gemini")


def test_a_langchain_tool_is_read_by_its_schema_not_dumped_as_an_empty_tool():
    tools = pytest.importorskip("langchain_core.tools")
    from typing import Annotated

    def weather(city, units="c", user_id=""):
        """Weather for a city."""
        return "sunny"

    # real objects, not this module's postponed annotation strings, which name locals
    weather.__annotations__ = {"city": str, "units": str, "user_id": Annotated[str, tools.InjectedToolArg], "return": str}
    get_weather = tools.tool("get_weather")(weather)

    # its dump holds the pydantic class and the callback: read so, it was an empty tool
    out = wireschema.normalize_tool(get_weather, "gemini")
    assert (out.tool["name"], out.tool["description"]) == ("get_weather", "Weather for a city.")
    # the argument the framework injects at run time is no parameter of the model's
    assert set(out.tool["parameters"]["properties"]) == {"city", "units"}
    left, once = [c for c in out.result.changes if c.rule == "tool/shape"]
    assert "StructuredTool's func, its framework's own," in left.detail and "args_schema" not in left.detail
    assert "name (its title) and description again at its root: sent once" in once.detail
    json.dumps(out.tool)
    listed = wireschema.normalize_tools([get_weather], "openai-strict")
    assert listed.results[0].strict and set(listed.tools[0]["function"]["parameters"]["required"]) == {"city", "units"}


def test_a_langchain_one_input_tool_sends_one_string_as_langchain_does():
    tools = pytest.importorskip("langchain_core.tools")
    convert = pytest.importorskip("langchain_core.utils.function_calling").convert_to_openai_tool
    search = tools.Tool(name="search", description="Web search", func=lambda q: q)
    out = wireschema.normalize_tool(search, "openai-chat")
    assert out.tool["function"]["parameters"] == _name_titles_dropped(convert(search)["function"]["parameters"])


def test_a_langchain_tool_class_of_the_users_own_is_read_as_base_tool_is():
    tools = pytest.importorskip("langchain_core.tools")
    pydantic = pytest.importorskip("pydantic")

    class Terms(pydantic.BaseModel):
        a: int
        b: int

    class Adder(tools.BaseTool):
        name: str = "add"
        description: str = "Adds two numbers"
        args_schema: type = Terms

        def _run(self, a: int, b: int) -> int:
            return a + b

    added = wireschema.normalize_tool(Adder(), "anthropic")
    assert added.tool["input_schema"]["required"] == ["a", "b"]
    # its class-level fields are its defaults: nothing of its own is left behind
    assert not [c for c in added.result.changes if c.rule == "tool/shape" and "no place" in c.detail]


def test_a_langchain_tool_whose_schema_pydantic_cannot_describe_falls_back_alone():
    tools = pytest.importorskip("langchain_core.tools")
    pydantic = pytest.importorskip("pydantic")

    class Thing:
        pass

    class Args(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(arbitrary_types_allowed=True)
        t: Thing

    bad = tools.StructuredTool(name="bad", description="x", args_schema=Args, func=lambda t: t)
    good = tools.StructuredTool(name="good", description="y", args_schema={"type": "object", "properties": {}}, func=lambda: 1)
    out = wireschema.normalize_tools([bad, good], "openai-chat")
    assert out.results[0].used_fallback and "pydantic cannot describe" in out.results[0].fallback_reason
    assert not out.results[1].used_fallback


def test_a_langchain_tool_sends_its_docstring_once_as_langchain_does():
    # the schema LangChain makes is a model named and described as the tool: its root
    # said the whole docstring again in the parameters, which LangChain sends once
    tools = pytest.importorskip("langchain_core.tools")
    convert = pytest.importorskip("langchain_core.utils.function_calling").convert_to_openai_tool

    def search(query: str, limit: int = 10) -> list:
        """Search the web.

        Args:
            query: what to look for
            limit: how many
        """
        return []

    tool = tools.tool(search)
    sent = convert(tool)["function"]
    out = wireschema.normalize_tool(tool, "openai-chat").tool["function"]
    assert out["description"] == sent["description"] == tool.description
    assert "description" not in out["parameters"] and "title" not in out["parameters"]
    assert "description" not in sent["parameters"] and "title" not in sent["parameters"]
    # its description holds the Args block, as LangChain sends it: no parameter is described again
    assert not any("description" in p for p in out["parameters"]["properties"].values())
    assert out["parameters"]["properties"] == sent["parameters"]["properties"]  # no title either, as LangChain sends it



def test_an_anthropic_tool_runner_function_is_read_as_the_tool_param_it_sends():
    tools = pytest.importorskip("anthropic.lib.tools")

    @tools.beta_tool(strict=True)
    def get_weather(city: str) -> str:
        """Weather for a city."""
        return "sunny"

    out = wireschema.normalize_tool(get_weather, "anthropic-strict")
    assert out.tool == {**get_weather.to_dict(), "input_schema": out.result.schema} and out.result.strict
    assert wireschema.normalize_tools([get_weather], "gemini").tools[0]["parameters"]["properties"]["city"]["type"] == "string"


# proto-plus's to_dict warns of a protobuf argument it still passes: the SDK's own, not ours
@pytest.mark.filterwarnings("ignore:The argument `including_default_value_fields`:DeprecationWarning")
def test_a_vertex_ai_sdk_declaration_and_tool_are_read_as_their_json():
    g = pytest.importorskip("vertexai.generative_models")
    declared = g.FunctionDeclaration(name="get_weather", description="Forecast", parameters=WEATHER)
    out = wireschema.normalize_tool(declared, "vertex")
    # the proto's JSON (upper-case types, snake_case keys, the order it keeps) is the wire's
    assert out.tool == {"name": "get_weather", "description": "Forecast", "parameters": {
        "properties": {"days": {"minimum": 1, "type": "integer"}, "city": {"type": "string"}},
        "required": ["city"], "propertyOrdering": ["city", "days"], "type": "object"}}
    listed = wireschema.normalize_tools(g.Tool.from_function_declarations([declared]), "gemini")
    assert [t["name"] for t in listed.tools] == ["get_weather"]


def _weather_with(annotation):
    """A tool function whose first parameter is annotated `annotation`, as a framework's
    tool functions take its context."""

    def get_weather(ctx, city):
        """Weather now."""
        return city

    get_weather.__annotations__ = {"ctx": annotation, "city": str, "return": str}  # objects, not this module's strings
    return get_weather


@pytest.mark.parametrize("framework", ["pydantic-ai", "openai-agents", "langchain", "langchain-instance", "mcp", "google-adk"])
def test_a_parameter_its_framework_passes_is_no_parameter_of_the_tool(framework):
    """A tool function taking its framework's context (pydantic-ai's `RunContext`,
    openai-agents' `RunContextWrapper`, LangChain's injected arguments, the MCP server's
    `Context`) is sent with the parameters the model gives, as the framework's own schema
    has them; the context is said left out. Before, the context became a required
    parameter the model had to make up (openai-agents: the wrapper's whole dataclass
    schema), or the function was refused (pydantic-ai)."""
    from typing import Annotated

    if framework == "pydantic-ai":
        pydantic_ai = pytest.importorskip("pydantic_ai")
        fn = _weather_with(pydantic_ai.RunContext[int])
        own = pydantic_ai.Tool(fn).tool_def.parameters_json_schema
    elif framework == "openai-agents":
        agents = pytest.importorskip("agents")
        from agents.function_schema import function_schema

        fn = _weather_with(agents.RunContextWrapper[int])
        own = function_schema(fn).params_json_schema
    elif framework in ("langchain", "langchain-instance"):
        tools = pytest.importorskip("langchain_core.tools")
        fn = _weather_with(Annotated[str, tools.InjectedToolArg if framework == "langchain" else tools.InjectedToolCallId()])
        own = tools.tool(fn).tool_call_schema.model_json_schema()
    elif framework == "google-adk":
        adk = pytest.importorskip("google.adk.tools")
        from google.adk.tools.tool_context import ToolContext

        fn = _weather_with(ToolContext)
        own = adk.FunctionTool(fn)._get_declaration().parameters_json_schema
    else:
        pytest.importorskip("mcp.server.mcpserver")
        from mcp.server.mcpserver import Context, MCPServer

        fn = _weather_with(Context)
        server = MCPServer("test")
        server.tool()(fn)
        own = server._tool_manager.list_tools()[0].parameters
    out = wireschema.normalize_tool(fn, "anthropic")
    assert out.tool["input_schema"]["properties"] == {"city": {"type": "string"}}
    assert out.tool["input_schema"]["required"] == ["city"]
    assert set(own["properties"]) == {"city"}  # the framework's own schema agrees
    (said,) = [c.detail for c in out.result.changes if c.rule == "tool/shape"]
    assert said.startswith("the function's ctx (") and "its framework passes it, never the model" in said
    assert set(wireschema.normalize(fn, "mcp").schema["properties"]) == {"city"}  # as a schema too


def test_fastmcps_injected_parameters_are_no_parameters_of_the_tool():
    """FastMCP passes a tool function its `Context` and `UserSession` by annotation, and
    resolves a `Depends(...)` or `CurrentContext()` default itself. Before, `ctx: Context`
    went to the model silently, as a required object with FastMCP's `Context` docstring
    in its `$defs`, and `db = Depends(get_db)` as a string parameter."""
    from typing import Annotated

    pytest.importorskip("fastmcp")
    # imported plainly: a module of FastMCP's server that fails to import is a failure, not a skip
    from fastmcp.server.context import Context
    from fastmcp.server.dependencies import CurrentContext
    from fastmcp.server.sessions import UserSession
    from fastmcp.tools import Tool
    from uncalled_for import Depends

    def get_db() -> str:
        return "db"

    def forecast(ctx, city, session, db="", ctx2=None, days=3):
        """Forecast for a city."""
        return city

    forecast.__annotations__ = {"ctx": Context, "city": str, "session": UserSession, "db": Annotated[str, Depends(get_db)],
                                "ctx2": Context, "days": int, "return": str}
    forecast.__defaults__ = ("", CurrentContext(), 3)
    own = Tool.from_function(forecast).parameters
    out = wireschema.normalize_tool(forecast, "mcp")
    sent = out.tool["inputSchema"]
    assert set(sent["properties"]) == set(own["properties"]) == {"city", "days"}
    assert sent["required"] == own["required"] == ["city"] and "$defs" not in sent
    said = [c.detail.split(" is no parameter")[0] for c in out.result.changes if c.rule == "tool/shape"]
    assert said == ["the function's ctx (Context)", "the function's session (UserSession)", "the function's db (_Depends)",
                    "the function's ctx2 (Context)"]

    def lookup(city: str, db: str = Depends(get_db)) -> str:
        """Look a city up."""
        return city

    assert set(wireschema.normalize(lookup, "anthropic").schema["properties"]) == {"city"} == set(Tool.from_function(lookup).parameters["properties"])


def test_a_fastmcp_tool_is_read_as_its_server_lists_it():
    """A FastMCP `Tool` (what its server's `list_tools` gives, or `Tool.from_function`)
    is the MCP Tool its server lists, `to_mcp_tool()`. Before, it was refused: its
    dump holds the function."""
    import asyncio

    pytest.importorskip("fastmcp")
    from fastmcp import FastMCP
    from fastmcp.server.context import Context

    def forecast(city, ctx, days=3):
        """Forecast for a city."""
        return {"city": city, "days": days}

    forecast.__annotations__ = {"city": str, "ctx": Context, "days": int, "return": dict}  # objects, not this module's strings
    server = FastMCP("weather")
    server.tool(annotations={"readOnlyHint": True})(forecast)
    listed = asyncio.run(server.list_tools())
    own = [t.to_mcp_tool().model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed]
    out = wireschema.normalize_tools(listed, "mcp")
    assert list(out.tools) == own and set(own[0]["inputSchema"]["properties"]) == {"city", "days"}
    sent = wireschema.normalize_tool(listed[0], "anthropic")
    assert sent.tool["input_schema"] == own[0]["inputSchema"]
    assert [c.detail for c in sent.result.changes] == ["the tool's _meta, annotations, outputSchema, title have no place in anthropic's tool: not sent"]


def test_a_llamaindex_tool_is_read_as_its_openai_llm_sends_it():
    """LlamaIndex's tools (FunctionTool, QueryEngineTool, a BaseTool of the user's own)
    hold the tool in their `metadata`; its LLM classes send `to_openai_tool()`. Before,
    such a tool was refused as no tool."""
    from typing import Optional

    tools = pytest.importorskip("llama_index.core.tools")
    from llama_index.core.workflow import Context

    def get_weather(city: str, units: Optional[str] = None, days: Optional[list[int]] = None) -> str:
        """Weather for a city."""
        return city

    async def forecast(ctx: Context, city: str) -> str:
        """Forecast for a city."""
        return city

    # objects, not this module's strings, which name classes local to this test
    get_weather.__annotations__ = {"city": str, "units": Optional[str], "days": Optional[list[int]], "return": str}
    forecast.__annotations__ = {"ctx": Context, "city": str, "return": str}

    for tool in (tools.FunctionTool.from_defaults(fn=get_weather), tools.FunctionTool.from_defaults(fn=forecast),
                 tools.FunctionTool.from_defaults(fn=get_weather, name="wx", description="Weather now.")):
        out = wireschema.normalize_tool(tool, "openai-chat")
        # what LlamaIndex's OpenAI LLM sends, its workflow context left out of the schema
        assert out.tool == _name_titles_dropped(tool.metadata.to_openai_tool(skip_length_check=True))
        assert not out.result.used_fallback
    # a tool with no schema of its own sends one string, as LlamaIndex sends it
    bare = tools.FunctionTool(fn=get_weather, metadata=tools.ToolMetadata(name="ask", description="Ask the docs."))
    out = wireschema.normalize_tool(bare, "anthropic")
    assert out.tool["input_schema"] == _name_titles_dropped(bare.metadata.get_parameters_dict())
    # its default schema's own title and description, which LlamaIndex leaves out, are said left out
    (said,) = [c.detail for c in out.result.changes if c.rule == "tool/shape"]
    assert said.startswith("the ToolMetadata's schema's description, title at its root: not sent")
    # what only LlamaIndex reads is said not sent; a Python function taking the context leaves it out too
    direct = wireschema.normalize_tool(tools.FunctionTool.from_defaults(fn=get_weather, return_direct=True), "gemini")
    assert any("return_direct" in c.detail and "not sent" in c.detail for c in direct.result.changes)
    assert set(wireschema.normalize_tool(forecast, "mcp").tool["inputSchema"]["properties"]) == {"city"}
    types = pytest.importorskip("google.genai.types")
    types.FunctionDeclaration.model_validate(direct.tool)


def test_a_smolagents_tool_is_read_as_its_tool_calling_models_send_it():
    """smolagents keeps a tool's inputs in a spelling of its own (`nullable`, types such as
    `image`); its models send `get_tool_json_schema(tool)`. Before, such a tool was
    refused as no tool."""
    smolagents = pytest.importorskip("smolagents")
    from smolagents.models import get_tool_json_schema

    tool = smolagents.tool  # spelt so: smolagents reads the decorator's name off the source

    @tool
    def get_weather(city: str, days: int | None = None) -> str:
        """Get the weather.

        Args:
            city: the city
            days: how many days ahead
        """
        return city

    sent = get_tool_json_schema(get_weather)["function"]
    out = wireschema.normalize_tool(get_weather, "openai-chat")
    made = out.tool["function"]
    assert (made["name"], made["description"]) == (sent["name"], sent["description"])
    # smolagents' OpenAPI nullable in JSON Schema's spelling, reported
    assert made["parameters"]["properties"]["days"] == {"type": ["integer", "null"], "description": "how many days ahead"}
    assert made["parameters"]["required"] == sent["parameters"]["required"] == ["city"]
    assert [c.rule for c in out.result.changes] == ["draft/openapi-nullable"]

    class Caption(smolagents.Tool):
        name = "caption"
        description = "Caption an image."
        inputs = {"image": {"type": "image", "description": "the image"}}
        output_type = "string"

        def forward(self, image):
            return ""

    # an image input, which smolagents sends as it is, is the string the model fills it with, said
    listed = wireschema.normalize_tools([get_weather, Caption()], "gemini")
    assert not any(r.used_fallback for r in listed.results)
    assert listed.tools[1]["parameters"]["properties"]["image"] == {"type": "string", "description": "the image"}
    assert "type 'image' -> 'string'" in [c.detail for c in listed.results[1].changes]


def test_a_google_adk_tool_is_read_as_its_declaration():
    """Google ADK's `FunctionTool` sends the python-genai `FunctionDeclaration` its
    `_get_declaration()` makes, its `ToolContext` left out; a built-in tool that ADK
    sends some other way (`google_search`, a config of the request) is refused by name.
    Before, an ADK tool was refused as no tool."""
    adk = pytest.importorskip("google.adk.tools")
    types = _genai()
    from google.adk.tools.tool_context import ToolContext

    def get_weather(city: str, tool_context: ToolContext, days: int = 1) -> str:
        """Weather for a city."""
        return city

    get_weather.__annotations__ = {"city": str, "tool_context": ToolContext, "days": int, "return": str}
    tool = adk.FunctionTool(get_weather)
    sent = tool._get_declaration().model_dump(mode="json", exclude_none=True)
    out = wireschema.normalize_tool(tool, "mcp")  # the target that keeps the most
    assert out.tool == {"name": "get_weather", "description": sent["description"], "inputSchema": _name_titles_dropped(sent["parameters_json_schema"])}
    assert set(out.tool["inputSchema"]["properties"]) == {"city", "days"}
    for target in ("gemini", "gemini-jsonschema"):
        types.FunctionDeclaration.model_validate(wireschema.normalize_tool(tool, target).tool)
    with pytest.raises(wireschema.ToolShapeError, match=r"^tool 1 \(GoogleSearchTool, .*gives no tool: its framework sends it some other way"):
        wireschema.normalize_tools([tool, adk.google_search], "gemini")


def test_a_haystack_tool_is_read_as_its_chat_generators_send_it():
    """Haystack's `Tool` (a dataclass holding its function beside the JSON Schema) is sent
    as its `tool_spec`; the function and the state mappings are said not sent. Before,
    such a tool was refused as no tool."""
    tools = pytest.importorskip("haystack.tools")

    def get_weather(city: str, days: int = 1) -> str:
        """Get the weather."""
        return city

    tool = tools.create_tool_from_function(get_weather)
    out = wireschema.normalize_tools(tools.Toolset([tool]), "openai-chat")
    assert out.tools[0] == {"type": "function", "function": tool.tool_spec}
    (said,) = [c.detail for c in out.results[0].changes if c.rule == "tool/shape"]
    assert said.startswith("the Tool's function, its framework's own,") and "not sent" in said


# --- Anthropic ---------------------------------------------------------------------


def test_anthropic_tools_pass_the_sdks_own_param_type_and_server_tools_pass_through():
    pydantic = pytest.importorskip("pydantic")
    pytest.importorskip("anthropic")
    from anthropic.types import ToolParam

    given = [{"name": "get weather", "input_schema": WEATHER, "cache_control": {"type": "ephemeral"}},
             {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}]
    out = wireschema.normalize_tools(given, "anthropic-strict")
    tool = pydantic.TypeAdapter(ToolParam).validate_python(out.tools[0])
    assert tool["name"] == "get_weather" and tool["cache_control"] == {"type": "ephemeral"}
    assert out.tools[1] == given[1] and out.results[1] is None
    assert str(out.results[0].changes[0]) == "tool/name / renamed: tool name 'get weather' sent as 'get_weather': the wire refuses it as it is"


# --- anything else is a clear error --------------------------------------------------


@pytest.mark.parametrize("item", [17, "get_weather", b"{}", None, 1.5, object(), ["name"]])
def test_an_item_that_is_no_tool_is_a_tool_shape_error_naming_index_and_type(item):
    with pytest.raises(wireschema.ToolShapeError, match=rf"tool 1 is {type(item).__name__}"):
        wireschema.normalize_tools([{"name": "ok", "parameters": WEATHER}, item], "gemini")
    with pytest.raises(wireschema.ToolShapeError, match=rf"the tool is {type(item).__name__}"):
        wireschema.normalize_tool(item, "gemini")


def test_a_tools_argument_that_is_no_list_is_a_tool_shape_error():
    for given in ({"name": "f", "parameters": WEATHER}, "f", 3):
        with pytest.raises(wireschema.ToolShapeError):
            wireschema.normalize_tools(given, "gemini")


def test_a_pydantic_object_is_dumped_as_the_sdk_would_send_it():
    pydantic = pytest.importorskip("pydantic")

    class MyTool(pydantic.BaseModel):
        name: str
        input_schema: dict = pydantic.Field(alias="inputSchema")
        description: str | None = None

    out = wireschema.normalize_tools([MyTool(name="q", inputSchema=WEATHER)], "gemini")
    assert out.tools[0] == {"name": "q", "parameters": json.loads(json.dumps(out.results[0].schema))}
    assert out.tools[0]["parameters"]["properties"]["city"] == {"type": "string"}
