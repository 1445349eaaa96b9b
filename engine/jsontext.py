"""JSON text of values nested deeper than Python's recursion limit.

`json.dumps` recurses; a caller may raise the depth budget far past that limit, so the
places that print or compare literal values (spilled keywords, enum dedupe) fall back
to this writer, which keeps its own stack.
"""

from __future__ import annotations

import json
from typing import Any


class _Raw(str):
    """Text to emit as is (punctuation between the values still to write)."""


def dumps(value: Any, *, sort_keys: bool = False) -> str:
    """Compact JSON text, like `json.dumps(value, ensure_ascii=False, separators=(",", ":"))`."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys, allow_nan=True)
    except RecursionError:
        return _deep_dumps(value, sort_keys)


def _deep_dumps(value: Any, sort_keys: bool) -> str:
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        v = stack.pop()
        if v.__class__ is _Raw:
            out.append(v)
        elif isinstance(v, dict):
            items = sorted(v.items()) if sort_keys else list(v.items())
            out.append("{")
            stack.append(_Raw("}"))
            for i in range(len(items) - 1, -1, -1):
                key, sub = items[i]
                stack.append(sub)
                stack.append(_Raw(("," if i else "") + json.dumps(key, ensure_ascii=False) + ":"))
        elif isinstance(v, list):
            out.append("[")
            stack.append(_Raw("]"))
            for i in range(len(v) - 1, -1, -1):
                stack.append(v[i])
                if i:
                    stack.append(_Raw(","))
        else:
            out.append(json.dumps(v, ensure_ascii=False, allow_nan=True))
    return "".join(out)
