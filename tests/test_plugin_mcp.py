"""wireschema.mcp: an MCP session's tools for a target, and the model's calls sent back
restored. The MCP SDK's client talks to its own in-process server over memory streams;
FastMCP's client to a FastMCP server in process."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

import wireschema

pytest.importorskip("mcp")
import wireschema.mcp as wmcp  # noqa: E402


def _server(received: list):
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("files")

    @server.tool(name="read file")
    def read_file(path: str, encoding: str = "utf-8") -> str:
        """Read a file."""
        received.append({"path": path, "encoding": encoding})
        return f"read {path}"

    return server


# what an OpenAI strict model sends: every property present, null where it has nothing to say
CALL = ("read_file", '{"path": "a.txt", "encoding": null}')


async def _through(session, received):
    tools = await wmcp.list_tools(session, "openai-strict")
    outcome = await tools.call(*CALL)
    return tools, outcome


def _listed_by(session_of):
    from mcp import Client

    received: list = []

    async def run():
        async with Client(_server(received), mode="legacy") as client:
            listed = await client.list_tools()
            tools, outcome = await _through(session_of(client), received)
            return listed, tools, outcome

    listed, tools, outcome = asyncio.run(run())
    return listed, tools, outcome, received


@pytest.mark.parametrize("session_of", [lambda c: c.session, lambda c: c], ids=["ClientSession", "Client"])
def test_a_sessions_tools_are_the_targets_and_a_call_reaches_the_server_restored(session_of):
    listed, tools, outcome, received = _listed_by(session_of)
    assert tools.tools == wireschema.normalize_tools(listed, "openai-strict").tools
    (tool,) = tools.tools
    assert tool["function"]["name"] == "read_file" and tool["function"]["strict"] is True
    assert tools.names.to_dict() == {"read_file": "read file"}
    # the forced null of the optional `encoding` is dropped: the server's default applies
    assert received == [{"path": "a.txt", "encoding": "utf-8"}]
    assert not outcome.is_error and outcome.content[0].text == "read a.txt"


def test_without_restoring_the_forced_null_the_server_refuses_the_call():
    """What `call` saves the caller from: the strict wire's null sent to the server as is."""
    from mcp import Client

    received: list = []

    async def run():
        async with Client(_server(received), mode="legacy") as client:
            return await client.call_tool("read file", json.loads(CALL[1]))

    assert asyncio.run(run()).is_error and received == []


def test_fastmcps_client_gets_the_same_tools_and_calls_back_restored():
    fastmcp = pytest.importorskip("fastmcp")
    server = fastmcp.FastMCP("files")
    received: list = []

    @server.tool(name="read file")
    def read_file(path: str, encoding: str = "utf-8") -> str:
        """Read a file."""
        received.append({"path": path, "encoding": encoding})
        return f"read {path}"

    async def run():
        async with fastmcp.Client(server) as client:
            listed = await client.list_tools()
            tools, outcome = await _through(client, received)
            return listed, tools, outcome

    listed, tools, outcome = asyncio.run(run())
    assert tools.tools == wireschema.normalize_tools(listed, "openai-strict").tools
    assert tools.names.original("read_file") == "read file"
    assert received == [{"path": "a.txt", "encoding": "utf-8"}]
    assert outcome.content[0].text == "read a.txt"


class _Pages:
    """A session whose server lists its tools a page at a time (the SDK's `Client` spelling)."""

    def __init__(self, pages: int, endless: bool = False):
        from mcp import types

        self.types, self.pages, self.endless, self.asked = types, pages, endless, []

    async def list_tools(self, *, cursor=None):
        self.asked.append(cursor)
        index = int(cursor or 0)
        more = self.endless or index + 1 < self.pages
        tool = self.types.Tool(name=f"t{index}", inputSchema={"type": "object"})
        return self.types.ListToolsResult(tools=[tool], next_cursor=str(index + 1) if more else None)


def test_every_page_of_the_list_is_read():
    session = _Pages(3)
    tools = asyncio.run(wmcp.list_tools(session, "anthropic"))
    assert [t["name"] for t in tools.tools] == ["t0", "t1", "t2"]
    assert session.asked == [None, "1", "2"]


def test_a_list_that_never_ends_is_refused_after_max_pages():
    session = _Pages(0, endless=True)
    with pytest.raises(wireschema.RequestLimitError, match="250 pages"):
        asyncio.run(wmcp.list_tools(session, "anthropic"))
    assert len(session.asked) == wmcp.MAX_PAGES


def test_without_the_mcp_sdk_the_error_names_the_extra(monkeypatch):
    session = _Pages(1)
    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(wireschema.ClientNotInstalledError, match=r"pip install 'wireschema\[mcp\]'"):
        asyncio.run(wmcp.list_tools(session, "anthropic"))
    assert session.asked == []
