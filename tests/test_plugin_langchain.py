"""wireschema.langchain: LangChain's real ChatOpenAI, bound through wireschema, sends the
target's tools, and its answer's tool call reaches the user's tool restored. The provider
is an httpx transport under the OpenAI client ChatOpenAI makes."""

from __future__ import annotations

import importlib
import sys

import pytest

import wireschema
from standins import Provider, chat_text, chat_tool_call, forecast, received  # noqa: F401 (a fixture)

pytest.importorskip("langchain_core")
pytest.importorskip("langchain_openai")
httpx = pytest.importorskip("httpx")
from langchain_core.messages import HumanMessage, ToolMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402

import wireschema.langchain as wlang  # noqa: E402

@tool("get weather")
def get_weather(city: str, days: int = 3) -> str:
    """Daily forecast for a city."""
    return forecast(city, days)


def _chat(provider: Provider):
    return ChatOpenAI(model="gpt-4.1", api_key="k", http_client=httpx.Client(transport=provider.transport()))


def test_bound_tools_are_the_targets_and_the_call_reaches_the_tool_restored(received):
    provider = Provider(chat_tool_call("get_weather", '{"city": "Lyon", "days": null}'), chat_text("sunny in Lyon"))
    llm = wlang.bind_tools(_chat(provider), [get_weather], "openai-strict", tool_choice="get weather")
    question = [HumanMessage("weather in Lyon?")]
    answer = llm.invoke(question)
    (tool,) = provider.sent[0]["tools"]
    assert tool == wireschema.normalize_tool(get_weather, "openai-strict").tool
    assert tool["function"]["name"] == "get_weather" and tool["function"]["strict"] is True
    assert provider.sent[0]["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    (call,) = answer.tool_calls
    assert (call["name"], call["args"]) == ("get weather", {"city": "Lyon"})
    result = get_weather.invoke(call)
    assert received == [{"city": "Lyon", "days": 3}]
    # the next turn sends the earlier call under its wire name again
    llm.invoke([*question, answer, ToolMessage(result.content, tool_call_id=call["id"])])
    assert provider.sent[1]["messages"][1]["tool_calls"][0]["function"]["name"] == "get_weather"


def test_without_the_plugin_the_strict_wires_null_reaches_the_tool():
    """What restoring saves: the model's null for `days`, passed on as the tool's argument."""
    provider = Provider(chat_tool_call("get_weather", '{"city": "Lyon", "days": null}'))
    sent = wireschema.normalize_tools([get_weather], "openai-strict")
    (call,) = _chat(provider).bind_tools(list(sent.tools)).invoke("weather?").tool_calls
    assert call["args"] == {"city": "Lyon", "days": None}


def test_without_langchain_the_import_names_the_extra(monkeypatch):
    for name in ("langchain_core", "langchain_core.runnables", "langchain_core.messages"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "wireschema.langchain")
    with pytest.raises(wireschema.ClientNotInstalledError, match=r"pip install 'wireschema\[langchain\]'"):
        importlib.import_module("wireschema.langchain")
