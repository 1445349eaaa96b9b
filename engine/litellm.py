"""LiteLLM: a callback that normalizes each call's tools and response format for its model.

    litellm.callbacks = [wireschema.litellm.Handler("openai-strict")]

or, in a proxy's `config.yaml`, a module holding `handler = wireschema.litellm.Handler(...)`:

    litellm_settings:
      callbacks: my_callbacks.handler

The hook runs once the model the call goes to is known (`async_pre_call_deployment_hook`):
on `litellm.acompletion`, on a `Router`'s calls, and so on the proxy's. A model's answer
comes back with each tool call's name and arguments restored (`Result.restore`).
LiteLLM takes OpenAI Chat requests: the target is a wire that reads them (`openai-strict`,
`openai-chat`, `deepseek-strict`, `xai`, `mistral`). Needs `pip install 'wireschema[litellm]'`.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from .plugins import client, restored, restored_text, target_for

_logger = client("litellm.integrations.custom_logger", "litellm", "litellm")

if TYPE_CHECKING:
    from .model import Options
    from .tools import RequestResult, TargetLike

__all__ = ["Handler"]

# what LiteLLM's request holds that a wire's rule file may locate schemas or tool names in
_FIELDS = ("messages", "tools", "tool_choice", "response_format")
_KEPT = 1024  # calls in flight whose answers are still to restore


class Handler(_logger.CustomLogger):
    """A LiteLLM callback normalizing each call for `target` (`normalize_request`).

    Without `target`, the model catalog chooses it (`wireschema.target_for`). Either way
    the target's rules are sent in OpenAI's Chat shape, the one LiteLLM takes.
    """

    def __init__(self, target: TargetLike | None = None, *, options: Options | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target, self.options = target, options
        self._calls: OrderedDict[Any, RequestResult] = OrderedDict()
        self._lock = threading.Lock()

    async def async_pre_call_deployment_hook(self, kwargs: dict[str, Any], call_type: Any) -> dict[str, Any] | None:
        from .tools import normalize_request

        body = {key: kwargs[key] for key in _FIELDS if kwargs.get(key) is not None}
        if len(body) == (1 if "messages" in body else 0):
            return None  # no tool and no response format: nothing to normalize
        out = normalize_request(body, target_for(kwargs.get("model"), self.target, "openai-chat"), options=self.options)
        kwargs.update(out.body)
        with self._lock:
            self._calls[kwargs.get("litellm_call_id")] = out
            while len(self._calls) > _KEPT:
                self._calls.popitem(last=False)
        return kwargs

    async def async_post_call_success_deployment_hook(self, request_data: dict[str, Any], response: Any, call_type: Any) -> Any:
        with self._lock:
            out = self._calls.pop(request_data.get("litellm_call_id"), None)
        if out is None:
            return None
        for choice in getattr(response, "choices", None) or ():
            message = getattr(choice, "message", None)
            for call in getattr(message, "tool_calls", None) or ():
                if call.function.name in out.names:
                    name, args = restored(out, call.function.name, call.function.arguments or "{}")
                    call.function.name, call.function.arguments = name, json.dumps(args, ensure_ascii=False)
            if message is not None and message.content and len(out.outputs) == 1:
                message.content = restored_text(out.outputs[0], message.content)
        return response

