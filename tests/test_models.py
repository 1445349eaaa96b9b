"""The model catalog (rules/_models.yaml): a model id, as routers spell it, goes to a
target with the facts of that model applied (strict mode, tool-name length, request
shape); normalize* and check take `model=`, the CLI `--model`."""

from __future__ import annotations

import json
import textwrap

import attrs
import pytest

import wireschema
from wireschema.cli import main

# real ids, directly and behind every router prefix the catalog reads
MODEL_IDS = [
    "claude-opus-4-7",
    "claude-sonnet-4-5-20250929",
    "claude-3-5-sonnet-latest",
    "claude-sonnet-4-20250514",
    "anthropic/claude-opus-4-1",
    "openrouter/anthropic/claude-sonnet-4.5",
    "anthropic.claude-sonnet-4-5-20250929-v1:0",
    "us.anthropic.claude-opus-4-7",
    "eu.anthropic.claude-sonnet-4-6",
    "global.anthropic.claude-haiku-4-5-20251001-v1:0",
    "bedrock/us.anthropic.claude-sonnet-5",
    "bedrock/converse/anthropic.claude-sonnet-4-20250514-v1:0",
    "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-opus-4-8",
    "us.anthropic.claude-opus-5",
    "vertex_ai/claude-opus-4-1@20250805",
    "projects/p/locations/us-east5/publishers/anthropic/models/claude-opus-4-7",
    "gpt-5.1",
    "gpt-4o-mini-2024-07-18",
    "o3-mini",
    "azure/gpt-4.1",
    "openrouter/openai/gpt-5",
    "gemini-2.5-pro",
    "gemini/gemini-3-flash-preview",
    "vertex_ai/gemini-2.5-flash",
    "publishers/google/models/gemini-2.5-pro",
    "mistral-large-latest",
    "mistral/magistral-medium-2509",
    "grok-4",
    "openrouter/x-ai/grok-4-fast",
    "deepseek-chat",
    "deepseek/deepseek-reasoner",
    "hosted_vllm/meta-llama/Llama-3.3-70B-Instruct",
    "ollama/qwen3:32b",
    "llama3.1:8b",
    "openai/gpt-oss-120b",
    "hosted_vllm/mistralai/Mistral-Small-3.2-24B-Instruct-2506",
    "openrouter/qwen/qwen3-235b-a22b",
    "groq/openai/gpt-oss-120b",
    "groq/llama-3.3-70b-versatile",
]


def _resolved(model: str) -> dict:
    info = wireschema.model_info(model)
    t = wireschema.target_for(model)
    facts = {k: v for k, v in attrs.asdict(info.facts).items() if v is not None}
    return {
        "entry": info.entry,
        "family": info.family,
        "place": info.place,
        "route": info.route,
        "target": t.name,
        "facts": facts,
        "strict_variant": t.strict_variant,
        "name_max_bytes": t.names.get("max_bytes"),
        "tool_schema_at": ".".join(t.tool["schema"]),
        "refuses_strict": bool(t.tool.get("refuses_strict")),
        "sources": len(info.sources),
    }


def test_resolved_facts_of_real_model_ids(snap):
    assert {m: _resolved(m) for m in MODEL_IDS} == snap


def test_bedrock_models_that_refuse_strict_get_bedrock_without_its_strict_field():
    t = wireschema.target_for("bedrock/us.anthropic.claude-opus-4-7")
    assert (t.name, t.strict_variant, t.tool.get("refuses_strict")) == ("bedrock", None, True)
    # the shipped target itself is untouched
    assert wireschema._target("bedrock").strict_variant == "bedrock-strict"


def test_a_model_without_facts_gets_the_target_itself():
    assert wireschema.target_for("gpt-5") is wireschema._target("openai-chat")
    assert wireschema.target_for("us.anthropic.claude-sonnet-4-5-20250929-v1:0") is wireschema._target("bedrock")


def test_derived_targets_are_made_once_per_target_and_facts():
    assert wireschema.target_for("us.anthropic.claude-opus-4-7") is wireschema.target_for("eu.anthropic.claude-opus-4-8")
    assert wireschema.target_for("claude-sonnet-4-20250514").digest != wireschema._target("anthropic").digest


def test_the_targets_a_derived_target_hands_schemas_to_carry_its_facts():
    t = wireschema.target_for("openrouter/anthropic/claude-sonnet-4.5")
    strict = t.strict_form()
    # anthropic-strict's rules in the router's request shape: OpenAI's strict tool
    assert strict.name == "anthropic-strict" and (strict.tool["schema"], strict.tool["strict"]) == (
        ("function", "parameters"), ("function", "strict"))
    assert strict.related(strict.fail_open).tool["schema"] == ("function", "parameters")
    assert t.registry.output_variant(t).locate == wireschema._target("openai-chat").locate


SCHEMA = {"type": "object", "properties": {"q": {"type": "string", "minLength": 2}}}


@pytest.mark.parametrize("flag", [True, False])
def test_a_strict_flag_is_never_sent_where_the_model_refuses_it(flag):
    tool = {"toolSpec": {"name": "search", "strict": flag, "inputSchema": {"json": SCHEMA}}}
    out = wireschema.normalize_tool(tool, model="us.anthropic.claude-opus-4-7")
    assert "strict" not in out.tool["toolSpec"]
    assert [c.rule for c in out.result.changes] == ["tool/shape"]
    assert f"toolSpec.strict (saying {str(flag).lower()})" in out.result.changes[0].detail
    # a model that takes it keeps it where strict mode is reached
    kept = wireschema.normalize_tool(tool, model="us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    assert kept.tool["toolSpec"].get("strict") is (True if flag else None)


def test_a_rule_file_may_say_its_wire_refuses_the_strict_field(tmp_path):
    (tmp_path / "my-wire.yaml").write_text("extends: openai-chat\ntool: {refuses_strict: true}\nstrict_variant: null\n", encoding="utf-8")
    t = wireschema.load_rules(tmp_path)["my-wire"]
    tool = {"type": "function", "function": {"name": "search", "strict": False, "parameters": SCHEMA}}
    assert "strict" not in wireschema.normalize_tool(tool, t).tool["function"]
    assert wireschema.normalize_tool(tool, "openai-chat").tool["function"]["strict"] is False


def test_claude_tool_names_are_128_long_on_anthropics_api_and_64_on_bedrock():
    name = "n" * 100
    tool = {"name": name, "input_schema": SCHEMA}
    assert wireschema.normalize_tool(tool, model="claude-opus-4-7").tool["name"] == name
    assert len(wireschema.normalize_tool(tool, model="us.anthropic.claude-opus-4-7").tool["toolSpec"]["name"]) == 64


def test_a_router_prefix_writes_the_routers_request_shape_with_the_models_rules():
    tool = {"type": "function", "function": {"name": "search", "strict": True, "parameters": SCHEMA}}
    out = wireschema.normalize_tool(tool, model="openrouter/anthropic/claude-sonnet-4.5")
    assert out.tool["type"] == "function" and out.tool["function"]["strict"] is True
    # Anthropic's strict form spills minLength, which OpenAI's keeps
    kept = wireschema.normalize_tool(tool, model="gpt-5").tool
    assert '"minLength": 2' not in json.dumps(out.tool) and '"minLength": 2' in json.dumps(kept)


def test_normalize_request_takes_a_model():
    body = {"model": "bedrock/us.anthropic.claude-sonnet-5", "messages": [],
            "tools": [{"type": "function", "function": {"name": "search", "strict": False, "parameters": SCHEMA}}]}
    out = wireschema.normalize_request(body, model=body["model"])
    assert "strict" not in out.body["tools"][0]["function"]


def test_normalize_normalize_output_and_check_take_a_model():
    schema = {"type": "object", "properties": {"a": {"type": ["string", "null"]}}}
    assert wireschema.normalize(schema, model="gemini-2.5-pro").schema == wireschema.normalize(schema, "gemini").schema
    assert (wireschema.normalize_output(schema, model="vertex_ai/gemini-2.5-pro").schema
            == wireschema.normalize_output(schema, "vertex").schema)
    assert wireschema.check(schema, model="gemini-2.5-pro") == wireschema.check(schema, "gemini") != ()
    tools = wireschema.normalize_tools([{"name": "a", "input_schema": SCHEMA}], model="claude-opus-4-7")
    assert tools.tools[0]["name"] == "a"


CALLS = [
    lambda **kw: wireschema.normalize(SCHEMA, **kw),
    lambda **kw: wireschema.normalize_output(SCHEMA, **kw),
    lambda **kw: wireschema.check(SCHEMA, **kw),
    lambda **kw: wireschema.normalize_tool({"name": "a", "input_schema": SCHEMA}, **kw),
    lambda **kw: wireschema.normalize_tools([{"name": "a", "input_schema": SCHEMA}], **kw),
    lambda **kw: wireschema.normalize_request({"tools": []}, **kw),
]


@pytest.mark.parametrize("call", CALLS)
def test_a_target_or_a_model_exactly_one(call):
    with pytest.raises(TypeError, match="not both"):
        call(target="anthropic", model="claude-opus-4-7")
    with pytest.raises(TypeError, match="give a target or model="):
        call()


def test_an_unknown_model_names_the_nearest_known_ids():
    with pytest.raises(wireschema.UnknownModelError) as info:
        wireschema.target_for("bedrock/us.anthropic.claude-opus-9")
    assert str(info.value) == (
        "unknown model 'bedrock/us.anthropic.claude-opus-9' (read as 'claude-opus-9' after the litellm-bedrock prefix)"
        " — did you mean 'claude-opus-5'? (nearest in the model catalog: claude-opus-5, claude-opus-4, claude-opus-5-5;"
        " a catalog of your own adds a model: load_models)")
    assert isinstance(info.value, wireschema.UnknownTargetError)
    with pytest.raises(wireschema.UnknownModelError, match=r"not served at bedrock .*it is at: direct"):
        wireschema.target_for("bedrock/gpt-5")
    with pytest.raises(wireschema.UnknownModelError, match="unknown model"):
        wireschema.normalize(SCHEMA, model="gpt-9")


USER_CATALOG = """\
    models:
      - id: claude-opus-4-7
        family: claude
        why: Our account's Bedrock now takes the flag (tested 2026-12-01).
      - id: team-gpt
        family: openai
        match: [team-gpt-prod]
        max_tools: 3
        max_name_bytes: 20
        why: Our Azure deployment of gpt-4.1, capped by our gateway.
    """


def test_a_users_catalog_extends_the_shipped_one(tmp_path):
    path = tmp_path / "models.yaml"
    path.write_text(textwrap.dedent(USER_CATALOG), encoding="utf-8")
    catalog = wireschema.load_models(path)
    # its own entry, and the one it replaces
    t = catalog.target_for("azure/team-gpt-prod")
    assert (t.name, t.request_limits["max_tools"], t.names["max_bytes"]) == ("openai-chat", 3, 20)
    assert len(wireschema.normalize_tool({"name": "n" * 30, "input_schema": SCHEMA}, t).tool["function"]["name"]) == 20
    tools = [{"name": f"t{i}", "input_schema": SCHEMA} for i in range(4)]
    with pytest.raises(wireschema.RequestLimitError):
        wireschema.normalize_tools(tools, t)
    assert catalog.target_for("us.anthropic.claude-opus-4-7").strict_variant == "bedrock-strict"
    # the shipped entries it does not touch
    assert catalog.target_for("us.anthropic.claude-sonnet-5").strict_variant is None
    assert catalog.ids()[:2] == ["claude-opus-4-7", "team-gpt"]


def test_a_rules_folder_holds_its_own_catalog_and_targets(tmp_path):
    (tmp_path / "team-anthropic.yaml").write_text("extends: anthropic\ndescription: ours\n", encoding="utf-8")
    (tmp_path / "_models.yaml").write_text(textwrap.dedent("""\
        families:
          - id: team
            why: Our proxy in front of Claude.
            places:
              direct: {target: team-anthropic, why: Our proxy speaks the Messages API.}
        models:
          - id: team-claude
            family: team
            why: The model our proxy serves.
        """), encoding="utf-8")
    rules = wireschema.load_rules(tmp_path)
    assert rules.target_for("team-claude").path == str(tmp_path / "team-anthropic.yaml")
    assert rules.target_for("gpt-5").name == "openai-chat"


@pytest.mark.parametrize(("text", "said"), [
    ("models:\n  - id: m\n    family: claude\n    strict: maybe\n    why: x\n", "4:13: strict must be true, false or refused"),
    ("models:\n  - id: m\n    family: claud\n    why: x\n", "3:13: unknown family 'claud' — did you mean 'claude'?"),
    ("models:\n  - id: m\n    family: claude\n", "2:9: model 'm' says no why"),
    ("models:\n  - id: m\n    family: claude\n    at: {bedrok: {strict: false, why: x}}\n    why: x\n", "4:10: family claude: unknown place 'bedrok' — did you mean 'bedrock'? (known: direct, bedrock, vertex)"),
    ("routes:\n  - id: r\n    prefixes: [x/]\n    place: moon\n    why: x\n", "4:12: unknown place 'moon' (known: bedrock, direct, generic, groq, vertex)"),
])
def test_a_catalog_mistake_is_a_rule_file_error_where_it_is_written(tmp_path, text, said):
    path = tmp_path / "models.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(wireschema.RuleFileError) as info:
        wireschema.load_models(path)
    assert said in str(info.value)


def test_the_cli_takes_a_model(tmp_path, capsys):
    src = tmp_path / "tool.json"
    src.write_text(json.dumps({"toolSpec": {"name": "s", "strict": False, "inputSchema": {"json": SCHEMA}}}), encoding="utf-8")
    assert main(["normalize", str(src), "--model", "us.anthropic.claude-opus-4-7"]) == 0
    assert "strict" not in json.loads(capsys.readouterr().out)["toolSpec"]
    assert main(["check", str(src), "--model", "gpt-5"]) == 0
    assert capsys.readouterr().out.startswith("openai-chat: ok")
    assert main(["normalize", str(src), "--model", "gpt-5", "--target", "gemini"]) == 2
    assert "give --target or --model, not both" in capsys.readouterr().err
    assert main(["check", str(src), "--model", "gpt-5", "--targets", "gemini"]) == 2
    assert "give --targets or --model, not both" in capsys.readouterr().err
    assert main(["normalize", str(src), "--model", "gpt-9"]) == 2
    assert "unknown model 'gpt-9'" in capsys.readouterr().err
