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


def test_without_a_target_the_model_catalog_chooses_it(monkeypatch):
    asked = []
    monkeypatch.setattr(wireschema, "target_for", lambda model: asked.append(model) or "openai-strict", raising=False)
    monkeypatch.setattr(litellm, "callbacks", [wlite.Handler()])
    provider = Provider(chat_text("hello"))
    asyncio.run(litellm.acompletion(model="openai/gpt-4.1", messages=MESSAGES, tools=TOOLS, client=_client(provider)))
    assert asked == ["openai/gpt-4.1"]
    assert provider.sent[0]["tools"][0]["function"]["strict"] is True


def test_without_a_target_or_a_catalog_the_call_is_refused():
    handler = wlite.Handler()
    if hasattr(wireschema, "target_for"):
        pytest.skip("this wireschema has a model catalog")
    with pytest.raises(wireschema.UnknownTargetError, match="target="):
        asyncio.run(handler.async_pre_call_deployment_hook({"model": "openai/gpt-4.1", "tools": TOOLS}, None))


def test_without_litellm_the_import_names_the_extra(monkeypatch):
    for name in ("litellm", "litellm.integrations.custom_logger"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "wireschema.litellm")
    with pytest.raises(wireschema.ClientNotInstalledError, match=r"pip install 'wireschema\[litellm\]'"):
        importlib.import_module("wireschema.litellm")
