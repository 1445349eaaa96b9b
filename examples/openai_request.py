"""Send MCP tools to OpenAI with strict mode, and read the tool call that comes back.

Runs without an API key: it builds the request body and simulates the model's reply.
With the openai SDK installed, pass `body` as `client.chat.completions.create(**body)`.
"""

import json
from pathlib import Path

import wireschema

mcp_tools = json.loads((Path(__file__).parent / "mcp_tools.json").read_text())["tools"]
tools = wireschema.normalize_tools(mcp_tools, "openai-strict")
body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "open bugs about login"}], "tools": list(tools.tools)}
print(json.dumps(body["tools"][0], indent=2))

# the model answers with a wire name and strict-mode arguments (null = "left out")
call = {"name": "search_issues", "arguments": '{"query": "login", "state": null, "labels": null, "since": null}'}
result = tools.result_for(call["name"])
args = result.restore(json.loads(call["arguments"]))
print(tools.names.original(call["name"]), args, result.validate(args))
