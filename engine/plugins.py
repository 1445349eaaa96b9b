"""What the client plug-ins share (`wireschema.mcp`, `.pydantic_ai`, `.litellm`,
`.openai_agents`, `.langchain`): their client's import, and a tool call read back.

A plug-in imports its client when it is first used, never on `import wireschema`.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

from .errors import ClientNotInstalledError, UnknownTargetError

MODULES = ("mcp", "pydantic_ai", "litellm", "openai_agents", "langchain")
"""The plug-ins, each a module of the package named for its client, whose API it speaks."""


def client(module: str, plugin: str, extra: str) -> ModuleType:
    """`module` imported, or `ClientNotInstalledError` naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ClientNotInstalledError(
            f"wireschema.{plugin} needs the {module!r} package, which is not installed: "
            f"pip install 'wireschema[{extra}]'") from exc


def restored(tools: Any, wire_name: str, arguments: Any) -> tuple[str, Any]:
    """A call the model made by `wire_name`: the caller's tool name, and the arguments in
    that tool's own schema's shape (`Result.restore`). `tools` is a `ToolsResult` or a
    `RequestResult`; a name no tool of it carries raises `UnknownToolNameError`."""
    return tools.names.original(wire_name), tools.result_for(wire_name).restore(arguments)


def restored_text(result: Any, text: str) -> str:
    """A structured output's JSON text in its own schema's shape (`Result.restore`); text
    that is no JSON as it is, for the client's own validation to judge."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return json.dumps(result.restore(value), ensure_ascii=False)


def target_for(model: str | None, target: Any, shape: str | None = None) -> Any:
    """The target for a call to `model`: `target` where given, else the model catalog's
    (`wireschema.target_for`); with `shape`, in the request shape of the target it names."""
    import wireschema
    from .models import shipped

    if target is None:
        if model is None:
            raise UnknownTargetError("no target given, and the call names no model: pass target=")
        return wireschema.target_for(model, shape=shape)
    if shape is None:
        return target
    return shipped(wireschema._registry()).in_shape(wireschema._target(target), shape)
