"""wireschema.litellm: LiteLLM's own calls (`acompletion`, a `Router`) send wireschema's
tools and response format, and the answer comes back in the caller's names and shapes.
The provider is an httpx transport under the OpenAI client LiteLLM is handed."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sys

import pytest

import wireschema
from standins import Provider, chat_text, chat_tool_call

# the cost map LiteLLM would fetch on import: its own copy, no network
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
litellm = pytest.importorskip("litellm")
httpx = pytest.importorskip("httpx")
import openai  # noqa: E402

import wireschema.litellm as wlite  # noqa: E402

TOOLS = [{"type": "function", "function": {
    "name": "get weather", "description": "Daily forecast.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "default": 3}}, "required": ["city"]},
}}]
CHOICE = {"type": "function", "function": {"name": "get weather"}}
MESSAGES = [{"role": "user", "content": "weather in Lyon?"}]


@pytest.fixture
def handler(monkeypatch):
    made = wlite.Handler("openai-strict")
    monkeypatch.setattr(litellm, "callbacks", [made])
    return made


def _client(provider: Provider):
    return openai.AsyncOpenAI(api_key="k", http_client=httpx.AsyncClient(transport=provider.transport()))


def test_acompletion_sends_the_targets_tools_and_returns_the_call_restored(handler):
    provider = Provider(chat_tool_call("get_weather", '{"city": "Lyon", "days": null}'))
    answer = asyncio.run(litellm.acompletion(model="openai/gpt-4.1", messages=MESSAGES, tools=TOOLS, tool_choice=CHOICE,
                                             client=_client(provider)))
    expected = wireschema.normalize_request({"messages": MESSAGES, "tools": TOOLS, "tool_choice": CHOICE}, "openai-strict").body
    sent = provider.sent[0]
    assert sent["tools"] == expected["tools"] and sent["tools"][0]["function"]["name"] == "get_weather"
    assert sent["tools"][0]["function"]["strict"] is True
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    (call,) = answer.choices[0].message.tool_calls
    assert call.function.name == "get weather"
    assert json.loads(call.function.arguments) == {"city": "Lyon"}  # the forced null of `days` is dropped


def test_a_routers_call_sends_a_strict_response_format_and_reads_the_output_back(handler):
    schema = {"type": "object", "properties": {"title": {"type": "string"}, "minutes": {"type": "integer"}}, "required": ["title"]}
    fmt = {"type": "json_schema", "json_schema": {"name": "recipe", "schema": schema, "strict": True}}
    provider = Provider(chat_text('{"title": "Soup", "minutes": null}'))
    router = litellm.Router(model_list=[{"model_name": "fast", "litellm_params": {"model": "openai/gpt-4.1", "api_key": "k"}}])
    answer = asyncio.run(router.acompletion(model="fast", messages=MESSAGES, response_format=fmt, client=_client(provider)))
    sent = provider.sent[0]["response_format"]["json_schema"]
    assert sent["schema"] == wireschema.normalize_output(schema, "openai-strict", strict=True).schema
    assert sent["schema"]["required"] == ["title", "minutes"]
    assert json.loads(answer.choices[0].message.content) == {"title": "Soup"}


def test_a_call_without_tools_or_format_is_left_as_it_is(handler):
    provider = Provider(chat_text("hello"))
    asyncio.run(litellm.acompletion(model="openai/gpt-4.1", messages=MESSAGES, client=_client(provider)))
    assert provider.sent[0]["messages"] == MESSAGES and "tools" not in provider.sent[0]


def test_without_a_target_the_model_catalog_chooses_it_in_openais_shape(monkeypatch):
    monkeypatch.setattr(litellm, "callbacks", [wlite.Handler()])
    provider = Provider(chat_text("hello"))
    strict_tools = [{**t, "function": {**t["function"], "strict": True}} for t in TOOLS]
    asyncio.run(litellm.acompletion(model="openai/gpt-4.1", messages=MESSAGES, tools=strict_tools, client=_client(provider)))
    assert provider.sent[0]["tools"][0]["function"]["strict"] is True


@pytest.mark.parametrize("target", [None, "anthropic"])
def test_an_anthropic_model_gets_anthropics_rules_in_openais_shape(target):
    """LiteLLM writes the provider's body itself: the hook sends Anthropic's schema rules
    in the Chat shape LiteLLM takes, never an Anthropic body."""
    handler = wlite.Handler(target)
    tool = {"type": "function", "function": {"name": "get.weather", "parameters": {"type": "object", "properties": {}}}}
    kwargs = {"model": "claude-sonnet-4-5", "messages": MESSAGES, "tools": [tool]}
    asyncio.run(handler.async_pre_call_deployment_hook(kwargs, None))
    assert kwargs["tools"][0]["type"] == "function" and kwargs["tools"][0]["function"]["name"] == "get_weather"


def test_an_unknown_model_without_a_target_is_refused():
    handler = wlite.Handler()
    with pytest.raises(wireschema.UnknownModelError):
        asyncio.run(handler.async_pre_call_deployment_hook({"model": "no-such-model-9", "tools": TOOLS}, None))


def test_without_litellm_the_import_names_the_extra(monkeypatch):
    for name in ("litellm", "litellm.integrations.custom_logger"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "wireschema.litellm")
    with pytest.raises(wireschema.ClientNotInstalledError, match=r"pip install 'wireschema\[litellm\]'"):
        importlib.import_module("wireschema.litellm")
