"""wireschema.pydantic_ai: an Agent on pydantic-ai's real provider models sends wireschema's
schemas, and the model's calls reach the user's tools restored. The provider is an httpx
transport that keeps each request and answers from a script."""

from __future__ import annotations

import importlib
import json
import sys
import warnings

import pytest

import wireschema
from standins import Provider, chat_text, chat_tool_call, gemini_answer

pytest.importorskip("pydantic_ai")
httpx = pytest.importorskip("httpx")
import wireschema.pydantic_ai as wpai  # noqa: E402
from pydantic import BaseModel  # noqa: E402
from pydantic_ai import Agent, NativeOutput, Tool  # noqa: E402


def get_weather(city: str, days: int = 3, tags: set[str] | None = None) -> str:
    """Daily forecast for a city."""
    RECEIVED.append({"city": city, "days": days, "tags": tags})
    return "sunny"


RECEIVED: list = []
PARAMETERS = Tool(get_weather).tool_def.parameters_json_schema


@pytest.fixture(autouse=True)
def _fresh():
    RECEIVED.clear()
    with warnings.catch_warnings():
        # the stand-in's httpx client: pydantic-ai prefers httpx2 and a longer timeout
        warnings.simplefilter("ignore")
        yield


def _google(provider: Provider, target: str):
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider

    http = httpx.AsyncClient(transport=provider.transport())
    return GoogleModel("gemini-2.5-flash", provider=GoogleProvider(api_key="k", http_client=http), profile=wpai.profile(target))


def _openai(provider: Provider, target: str):
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    http = httpx.AsyncClient(transport=provider.transport())
    return OpenAIChatModel("gpt-4.1", provider=OpenAIProvider(api_key="k", http_client=http), profile=wpai.profile(target))


def test_a_google_model_sends_the_gemini_jsonschema_declaration_and_the_call_reaches_the_tool():
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Lyon", "tags": ["rain"]}}}
    provider = Provider(gemini_answer(call), gemini_answer({"text": "sunny in Lyon"}))
    agent = Agent(_google(provider, "gemini-jsonschema"), tools=[get_weather], capabilities=[wpai.Restore("gemini-jsonschema")])
    assert agent.run_sync("weather in Lyon?").output == "sunny in Lyon"
    (declaration,) = provider.sent[0]["tools"][0]["functionDeclarations"]
    sent = declaration.get("parametersJsonSchema", declaration.get("parameters_json_schema"))
    assert sent == wireschema.normalize(PARAMETERS, "gemini-jsonschema").schema
    assert sent["properties"]["days"] == {"type": "integer", "description": "(default: 3)"}  # spilled: the wire refuses it
    assert RECEIVED == [{"city": "Lyon", "days": 3, "tags": {"rain"}}]


def test_an_openai_model_sends_strict_tools_and_the_forced_nulls_never_reach_the_tool():
    provider = Provider(chat_tool_call("get_weather", '{"city": "Lyon", "days": null, "tags": null}'), chat_text("sunny"))
    agent = Agent(_openai(provider, "openai-strict"), tools=[get_weather], capabilities=[wpai.Restore("openai-strict")])
    agent.run_sync("weather in Lyon?")
    (tool,) = provider.sent[0]["tools"]
    assert tool["function"]["parameters"] == wireschema.normalize(PARAMETERS, "openai-strict").schema
    assert tool["function"]["strict"] is True
    # `days` is back to its default; `tags` takes null in the original, so its null is kept
    assert RECEIVED == [{"city": "Lyon", "days": 3, "tags": None}]


def test_without_restore_the_strict_wires_null_fails_the_tools_validation():
    provider = Provider(chat_tool_call("get_weather", '{"city": "Lyon", "days": null, "tags": null}'), chat_text("sunny"))
    agent = Agent(_openai(provider, "openai-strict"), tools=[get_weather])
    agent.run_sync("weather in Lyon?")
    assert RECEIVED == []
    assert "days" in json.dumps(provider.sent[1]["messages"][-1])  # the validation error went back to the model


class Recipe(BaseModel):
    title: str
    minutes: int = 5


def test_a_native_structured_output_is_sent_strict_and_read_back_restored():
    provider = Provider(chat_text('{"title": "Soup", "minutes": null}'))
    agent = Agent(_openai(provider, "openai-strict"), output_type=NativeOutput(Recipe), capabilities=[wpai.Restore("openai-strict")])
    assert agent.run_sync("a recipe").output == Recipe(title="Soup", minutes=5)
    fmt = provider.sent[0]["response_format"]["json_schema"]
    assert fmt["strict"] is True
    # pydantic-ai leaves the fields' titles out; the rest is wireschema's strict form
    assert fmt["schema"]["required"] == ["title", "minutes"]
    assert fmt["schema"]["properties"]["minutes"] == {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "(default: 5)"}


def test_a_schema_the_target_cannot_make_strict_is_sent_non_strict():
    def put(data: dict) -> str:
        """Store a free-form record."""
        return "ok"

    provider = Provider(chat_text("ok"))
    Agent(_openai(provider, "openai-strict"), tools=[put]).run_sync("store it")
    (tool,) = provider.sent[0]["tools"]
    assert tool["function"].get("strict") is not True


def test_without_pydantic_ai_the_import_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pydantic_ai", None)
    monkeypatch.delitem(sys.modules, "wireschema.pydantic_ai")
    with pytest.raises(wireschema.ClientNotInstalledError, match=r"pip install 'wireschema\[pydantic-ai\]'"):
        importlib.import_module("wireschema.pydantic_ai")
