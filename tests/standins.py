"""Stand-ins for the providers the plug-in tests' clients call: an httpx transport that
keeps every request body and answers from a script, and the answers themselves."""

from __future__ import annotations

import json
from typing import Any


class Provider:
    """An `httpx.MockTransport` handler: each request's JSON body is kept in `sent`, and the
    n-th request gets `answers[n]` (the last one again past the end)."""

    def __init__(self, *answers: dict[str, Any] | str):
        self.answers, self.sent, self.urls = answers, [], []

    def __call__(self, request: Any) -> Any:
        import httpx

        self.sent.append(json.loads(request.content))
        self.urls.append(str(request.url))
        answer = self.answers[min(len(self.sent), len(self.answers)) - 1]
        if isinstance(answer, str):  # a stream's server-sent events
            return httpx.Response(200, text=answer, headers={"content-type": "text/event-stream"})
        return httpx.Response(200, json=answer)

    def transport(self, httpx_module: Any = None) -> Any:
        import httpx

        return (httpx_module or httpx).MockTransport(self)


def chat_tool_call(name: str, arguments: str, model: str = "gpt-4.1") -> dict[str, Any]:
    """An OpenAI Chat Completions answer that calls one tool."""
    call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}
    return _chat({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls", model)


def chat_text(text: str, model: str = "gpt-4.1") -> dict[str, Any]:
    """An OpenAI Chat Completions answer in text."""
    return _chat({"role": "assistant", "content": text}, "stop", model)


def _chat(message: dict[str, Any], finish: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def chat_stream(name: str | None = None, arguments: str = "{}", text: str | None = None) -> str:
    """An OpenAI Chat Completions stream that calls one tool, or answers in text."""
    if name is not None:
        call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}
        delta, finish = {"role": "assistant", "tool_calls": [call]}, "tool_calls"
    else:
        delta, finish = {"role": "assistant", "content": text}, "stop"
    chunks = [
        {"index": 0, "delta": delta, "finish_reason": None},
        {"index": 0, "delta": {}, "finish_reason": finish},
    ]
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "gpt-4.1"}
    return "".join(f"data: {json.dumps({**head, 'choices': [c]})}\n\n" for c in chunks) + "data: [DONE]\n\n"


def gemini_answer(*parts: dict[str, Any]) -> dict[str, Any]:
    """A Gemini `generateContent` answer holding `parts`."""
    return {
        "candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": "gemini-2.5-flash",
    }



RECEIVED: list[dict[str, Any]] = []
"""What the tests' `get_weather` tools were called with, emptied by the `received` fixture."""


def forecast(city: str, days: int) -> str:
    """The body of the tests' `get_weather` tools."""
    RECEIVED.append({"city": city, "days": days})
    return "sunny"


def _received() -> Any:
    import pytest

    @pytest.fixture
    def received() -> Any:
        RECEIVED.clear()
        yield RECEIVED
        RECEIVED.clear()

    return received


received = _received()
