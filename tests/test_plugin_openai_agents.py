"""wireschema.openai_agents: an openai-agents Runner on its real Chat Completions model sends
wireschema's tools, and the model's call reaches the user's function restored. The provider
is an httpx transport under the OpenAI client the model is handed."""

from __future__ import annotations

import asyncio
import importlib
import sys

import pytest

import wireschema
from standins import Provider, chat_stream, chat_text, chat_tool_call, forecast, received  # noqa: F401 (a fixture)

pytest.importorskip("agents")
httpx = pytest.importorskip("httpx")
import openai  # noqa: E402
from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner, function_tool  # noqa: E402

import wireschema.openai_agents as wagents  # noqa: E402

@function_tool(name_override="get weather", strict_mode=False)
def get_weather(city: str, days: int = 3) -> str:
    """Daily forecast for a city."""
    return forecast(city, days)


def _client(provider: Provider):
    return openai.AsyncOpenAI(api_key="k", http_client=httpx.AsyncClient(transport=provider.transport()))


def _model(provider: Provider):
    return OpenAIChatCompletionsModel(model="gpt-4.1", openai_client=_client(provider))


def _answers():
    return Provider(chat_tool_call("get_weather", '{"city": "Lyon", "days": null}'), chat_text("sunny in Lyon"))


def _check(provider: Provider, received: list):
    (tool,) = provider.sent[0]["tools"]
    made = wireschema.normalize_tool(get_weather, "openai-strict", strict=True).tool
    assert tool == made and tool["function"]["name"] == "get_weather" and tool["function"]["strict"] is True
    # the call went back to the model under its wire name, and the tool got its default
    assert provider.sent[1]["messages"][1]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert received == [{"city": "Lyon", "days": 3}]


def test_a_wrapped_model_sends_the_targets_tools_and_the_call_reaches_the_function_restored(received):
    provider = _answers()
    agent = Agent(name="forecaster", model=wagents.Model(_model(provider), "openai-strict"), tools=[get_weather])
    assert Runner.run_sync(agent, "weather in Lyon?").final_output == "sunny in Lyon"
    _check(provider, received)


def test_a_wrapped_provider_gives_every_agent_such_a_model(received):
    provider = _answers()

    class Models(wagents._agents.ModelProvider):
        def get_model(self, model_name):
            return _model(provider)

    agent = Agent(name="forecaster", tools=[get_weather])
    config = RunConfig(model_provider=wagents.Provider("openai-strict", provider=Models()))
    assert Runner.run_sync(agent, "weather in Lyon?", run_config=config).final_output == "sunny in Lyon"
    _check(provider, received)


def test_a_streamed_run_restores_the_call_too(received):
    provider = Provider(chat_stream("get_weather", '{"city": "Lyon", "days": null}'), chat_stream(text="sunny"))
    agent = Agent(name="forecaster", model=wagents.Model(_model(provider), "openai-strict"), tools=[get_weather])

    async def run():
        streamed = Runner.run_streamed(agent, "weather in Lyon?")
        async for _event in streamed.stream_events():
            pass
        return streamed.final_output

    assert asyncio.run(run()) == "sunny"
    assert received == [{"city": "Lyon", "days": 3}]


def test_without_the_wrapper_the_wire_name_finds_no_tool(received):
    """What the name map saves: the call under the wire's name reaches no tool."""
    from agents.exceptions import ModelBehaviorError

    agent = Agent(name="forecaster", model=_model(_answers()), tools=[get_weather])
    with pytest.raises(ModelBehaviorError, match="get_weather not found"):
        Runner.run_sync(agent, "weather in Lyon?")
    assert received == []


def test_without_openai_agents_the_import_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "agents", None)
    monkeypatch.delitem(sys.modules, "wireschema.openai_agents")
    with pytest.raises(wireschema.ClientNotInstalledError, match=r"pip install 'wireschema\[openai-agents\]'"):
        importlib.import_module("wireschema.openai_agents")
