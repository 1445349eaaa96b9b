"""LangChain: a chat model's `bind_tools`, with wireschema's tools for a target.

    llm = wireschema.langchain.bind_tools(ChatOpenAI(model="gpt-4.1"), tools, "openai-strict")

in place of `ChatOpenAI(model="gpt-4.1").bind_tools(tools)`. The model is bound to the
tools as `normalize_tools` makes them for the target (their schemas, wire names and
strictness); the `AIMessage` it answers with holds each tool call under the tool's own name,
its arguments restored (`Result.restore`). Needs `pip install 'wireschema[langchain]'`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .plugins import client, restored

_runnables = client("langchain_core.runnables", "langchain", "langchain")
_messages = client("langchain_core.messages", "langchain", "langchain")

if TYPE_CHECKING:
    from .model import Options
    from .tools import TargetLike, ToolsResult

__all__ = ["bind_tools"]


def bind_tools(model: Any, tools: Any, target: TargetLike, *, strict: bool | None = None,
               options: Options | None = None, **kwargs: Any) -> Any:
    """`model.bind_tools(...)` with the tools normalized for `target`, as a Runnable: the
    history's calls go out under their wire names, the answer's come back restored.

    `tools` is what `bind_tools` takes (LangChain tools, functions, pydantic classes,
    dicts); `kwargs` go to the model's `bind_tools` (`tool_choice`, say, by the tool's own name).
    """
    from .tools import normalize_tools

    group = normalize_tools(tools, target, strict=strict, options=options)
    choice = kwargs.get("tool_choice")
    if isinstance(choice, str) and choice in group.names.renamed():
        kwargs["tool_choice"] = group.names.renamed()[choice]
    bound = model.bind_tools(list(group.tools), **kwargs)
    to_wire = _runnables.RunnableLambda(lambda given: _history(given, group), name="wireschema_names")
    back = _runnables.RunnableLambda(lambda answer: _answer(answer, group), name="wireschema_restore")
    return to_wire | bound | back


def _history(given: Any, group: ToolsResult) -> Any:
    """A list of messages whose earlier calls carry the tools' wire names; anything else as it is."""
    wire = group.names.renamed()
    if not wire or not isinstance(given, list):
        return given
    return [_with_calls(m, [{**c, "name": wire.get(c["name"], c["name"])} for c in m.tool_calls])
            if isinstance(m, _messages.AIMessage) and m.tool_calls else m for m in given]


def _answer(answer: Any, group: ToolsResult) -> Any:
    """The model's message with each call of a tool of `group` under its own name, restored."""
    if not isinstance(answer, _messages.AIMessage) or not answer.tool_calls:
        return answer
    calls = []
    for call in answer.tool_calls:
        if call["name"] in group.names:
            name, args = restored(group, call["name"], call["args"])
            call = {**call, "name": name, "args": args}
        calls.append(call)
    return _with_calls(answer, calls)


def _with_calls(message: Any, calls: list[dict[str, Any]]) -> Any:
    return message.model_copy(update={"tool_calls": calls})
