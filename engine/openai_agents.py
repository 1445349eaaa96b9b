"""openai-agents: a model, or a model provider, that sends wireschema's tools.

    agent = Agent(name="a", model=wireschema.openai_agents.Model(OpenAIChatCompletionsModel(...), "openai-strict"))
    Runner.run(agent, "...", run_config=RunConfig(model_provider=wireschema.openai_agents.Provider("openai-strict")))

Each function tool is sent as `normalize_tools` makes it for the target: its schema, its
wire name, `strict` where the target reaches it. Each tool call the model answers with is
restored (`Result.restore`, the name map) before the runner invokes the tool.
Needs `pip install 'wireschema[openai-agents]'`.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, AsyncIterator

from .plugins import client, restored, target_for

_agents = client("agents", "openai_agents", "openai-agents")

if TYPE_CHECKING:
    from .model import Options
    from .tools import TargetLike, ToolsResult

__all__ = ["Model", "Provider"]


class Model(_agents.Model):
    """`model`, with each function tool it sends normalized for `target`, strict where the
    target is (or as `strict` says), whatever each tool's own `strict_json_schema`."""

    def __init__(self, model: Any, target: TargetLike, *, strict: bool | None = None, options: Options | None = None) -> None:
        from . import _target

        self.wrapped, self.target, self.options = model, target, options
        # openai-agents marks a tool non-strict where its own code cannot make it strict:
        # the target's strictness is asked instead, unless `strict` says otherwise
        self.strict = _target(target).strict if strict is None else strict

    def __getattr__(self, name: str) -> Any:  # the wrapped model's own attributes (its `model` name, say)
        return getattr(self.__dict__["wrapped"], name)

    def get_default_model_settings(self) -> Any:
        return self.wrapped.get_default_model_settings()

    def _get_request_settings(self, settings: Any, **kwargs: Any) -> Any:
        return self.wrapped._get_request_settings(settings, **kwargs)

    def get_retry_advice(self, request: Any) -> Any:
        return self.wrapped.get_retry_advice(request)

    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any, tools: list[Any],
                           *args: Any, **kwargs: Any) -> Any:
        sent, group = self._tools(tools)
        response = await self.wrapped.get_response(system_instructions, _renamed(input, group), model_settings, sent, *args, **kwargs)
        response.output = [_restored_item(item, group) for item in response.output]
        return response

    async def stream_response(self, system_instructions: Any, input: Any, model_settings: Any, tools: list[Any],
                              *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        sent, group = self._tools(tools)
        async for event in self.wrapped.stream_response(system_instructions, _renamed(input, group), model_settings, sent, *args, **kwargs):
            yield _restored_event(event, group)

    async def close(self) -> None:
        await self.wrapped.close()

    def _tools(self, tools: list[Any]) -> tuple[list[Any], ToolsResult | None]:
        """The tools as sent: each function tool with its schema, wire name and strictness
        for the target; every other tool as it is."""
        from .tools import normalize_tools

        mine = [i for i, tool in enumerate(tools) if isinstance(tool, _agents.FunctionTool)]
        if not mine:
            return list(tools), None
        group = normalize_tools([tools[i] for i in mine], self.target, strict=self.strict, options=self.options)
        sent = list(tools)
        for i, result, wire in zip(mine, group.results, group.wire_names):
            sent[i] = dataclasses.replace(tools[i], name=wire, params_json_schema=result.schema, strict_json_schema=result.strict)
        return sent, group


class Provider(_agents.ModelProvider):
    """`provider`'s models (an `OpenAIProvider()` where none is given), each a `Model` for
    `target`; without `target`, `wireschema.target_for(model_name)` where the package has
    that model catalog."""

    def __init__(self, target: TargetLike | None = None, *, provider: Any = None, strict: bool | None = None,
                 options: Options | None = None) -> None:
        self.provider = provider if provider is not None else _agents.OpenAIProvider()
        self.target, self.strict, self.options = target, strict, options

    def get_model(self, model_name: str | None) -> Model:
        made = self.provider.get_model(model_name)
        target = target_for(model_name or getattr(made, "model", None), self.target)
        return Model(made, target, strict=self.strict, options=self.options)


# the Responses stream events that carry a whole item or a whole response
_FINISHED = ("response.output_item.done", "response.completed")


def _renamed(input: Any, group: ToolsResult | None) -> Any:
    """Earlier turns' calls (history items the runner restored) under their wire names."""
    if group is None or not isinstance(input, list) or not group.names.renamed():
        return input
    wire = group.names.renamed()
    return [{**item, "name": wire[item["name"]]} if isinstance(item, dict) and item.get("name") in wire
            and "arguments" in item else item for item in input]


def _restored_item(item: Any, group: ToolsResult | None) -> Any:
    """A function call of the model's, under the tool's own name with its arguments restored."""
    name = getattr(item, "name", None)
    if group is None or getattr(item, "arguments", None) is None or name not in group.names:
        return item
    import json

    original, args = restored(group, name, item.arguments)
    return item.model_copy(update={"name": original, "arguments": json.dumps(args, ensure_ascii=False)})


def _restored_event(event: Any, group: ToolsResult | None) -> Any:
    """A stream event whose finished item or finished response holds calls, restored (an
    item being written holds part of its arguments: it is left as it is)."""
    if group is None or getattr(event, "type", None) not in _FINISHED:
        return event
    item = getattr(event, "item", None)
    if item is not None:
        return event.model_copy(update={"item": _restored_item(item, group)})
    response = getattr(event, "response", None)
    if response is not None and getattr(response, "output", None):
        output = [_restored_item(i, group) for i in response.output]
        return event.model_copy(update={"response": response.model_copy(update={"output": output})})
    return event
