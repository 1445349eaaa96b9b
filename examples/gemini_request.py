"""Gemini function declarations from MCP tools, with the report of what changed.

With google-genai installed: `types.FunctionDeclaration(**decl)` for each declaration.
"""

import json
from pathlib import Path

import wireschema

mcp_tools = json.loads((Path(__file__).parent / "mcp_tools.json").read_text())["tools"]
body = {"contents": [], "tools": [{"functionDeclarations": mcp_tools}]}
result = wireschema.normalize_request(body, "gemini")
for decl, outcome in zip(result.body["tools"][0]["functionDeclarations"], result.tools[0].results):
    print(json.dumps(decl))
    print(outcome.explain() if outcome is not None else "(not a function tool: passed through)")
