"""MCP clients: a session's tools ready for a target, and the model's calls sent back.

    tools = await wireschema.mcp.list_tools(session, "openai-strict")
    # send tools.tools to the model; for each tool call it makes:
    outcome = await tools.call(call.name, call.arguments)

`session` is the MCP SDK's `ClientSession` or `Client`, or FastMCP's `Client`.
Needs `pip install 'wireschema[mcp]'`.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import attrs

from .errors import RequestLimitError
from .plugins import client, restored

if TYPE_CHECKING:
    from .model import Options
    from .names import NameMap
    from .tools import TargetLike, ToolsResult

__all__ = ["SessionTools", "list_tools"]

MAX_PAGES = 250
"""Most `tools/list` pages read from one server (FastMCP's client stops at as many)."""


@attrs.frozen
class SessionTools:
    """A session's tools normalized for one target, and the way back to its server."""

    listed: ToolsResult
    """The normalized list (`normalize_tools`): its `tools`, `results` and `names`."""
    session: Any = attrs.field(eq=False, repr=False)

    @property
    def tools(self) -> tuple[dict[str, Any], ...]:
        """The native tools, ready for the target's SDK call."""
        return self.listed.tools

    @property
    def names(self) -> NameMap:
        """Wire name -> the server's name."""
        return self.listed.names

    def restore(self, wire_name: str, arguments: Any) -> tuple[str, Any]:
        """The server's name for `wire_name`, and `arguments` (a dict or JSON text) in
        that tool's own schema's shape."""
        return restored(self.listed, wire_name, arguments)

    async def call(self, wire_name: str, arguments: Any = None, **kwargs: Any) -> Any:
        """Call the tool the model called by `wire_name`, by its server's name, with the
        arguments restored; `kwargs` go to the session's `call_tool`."""
        name, args = self.restore(wire_name, {} if arguments is None else arguments)
        return await self.session.call_tool(name, args, **kwargs)


async def list_tools(session: Any, target: TargetLike, *, strict: bool | None = None,
                     options: Options | None = None) -> SessionTools:
    """Every tool `session` lists (each page), normalized for `target` as `normalize_tools` does.

    A server whose list goes on past `MAX_PAGES` pages raises `RequestLimitError`.
    """
    client("mcp", "mcp", "mcp")
    from .tools import normalize_tools

    listed = await _every_page(session)
    return SessionTools(normalize_tools(listed, target, strict=strict, options=options), session)


async def _every_page(session: Any) -> list[Any]:
    first = await session.list_tools()
    if isinstance(first, list):  # FastMCP's client reads every page itself
        return first
    tools, cursor = list(first.tools), _next_cursor(first)
    for _page in range(1, MAX_PAGES):
        if cursor is None:
            return tools
        page = await session.list_tools(**_cursor(session, cursor))
        tools.extend(page.tools)
        cursor = _next_cursor(page)
    if cursor is None:
        return tools
    raise RequestLimitError(f"the MCP server's tool list goes on past {MAX_PAGES} pages")


def _next_cursor(page: Any) -> Any:
    if hasattr(page, "next_cursor"):  # the SDK's 2.x spelling (1.x's is deprecated there)
        return page.next_cursor
    return getattr(page, "nextCursor", None)


def _cursor(session: Any, cursor: str) -> dict[str, Any]:
    """How this session's `list_tools` takes a cursor: the SDK's `Client` and 1.x
    `ClientSession` as `cursor=`, its 2.x `ClientSession` in `params`."""
    if "cursor" in inspect.signature(session.list_tools).parameters:
        return {"cursor": cursor}
    types = client("mcp.types", "mcp", "mcp")
    return {"params": types.PaginatedRequestParams(cursor=cursor)}
