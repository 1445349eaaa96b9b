"""JSON text of values nested deeper than Python's recursion limit.

`json.dumps` recurses; a caller may raise the depth budget far past that limit, so the
places that print or compare literal values (spilled keywords, enum dedupe) fall back
to this writer, which keeps its own stack.
"""

from __future__ import annotations

import itertools
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


_CHUNK = 512  # items rendered by one json.dumps call: the work between two looks at the limit


class _Cursor:
    """A large list or object being written a batch of items at a time."""

    __slots__ = ("items", "pairs", "first")

    def __init__(self, items: Any, pairs: bool):
        self.items = iter(items)
        self.pairs = pairs
        self.first = True


def dumps_within(value: Any, limit: int) -> str | None:
    """Compact JSON text of `value` (as `dumps` writes it) if it has at most `limit`
    characters, else None. A large list or object is written in batches, and writing
    stops once the text passes `limit`, so the work is bounded by the limit, not by the
    value (a million floats beyond the literal budget cost no more than the budget)."""
    out: list[str] = []
    total = 0
    stack: list[Any] = [value]
    while stack:
        v = stack.pop()
        cls = v.__class__
        if cls is _Raw:
            piece: str = v
        elif cls is _Cursor:
            piece = _batch(v, stack)
        elif (cls is list or cls is dict) and not _small(v):
            stack.append(_Raw("]" if cls is list else "}"))
            stack.append(_Cursor(v.items() if cls is dict else v, cls is dict))
            piece = "[" if cls is list else "{"
        else:
            piece = dumps(v)
        total += len(piece)
        if total > limit:
            return None
        out.append(piece)
    return "".join(out)


def _small(value: Any) -> bool:
    """At most _CHUNK items in all, however nested: one json.dumps call writes it."""
    count = 0
    stack = [value]
    while stack:
        v = stack.pop()
        count += len(v)
        if count > _CHUNK:
            return False
        for x in v.values() if v.__class__ is dict else v:
            if x.__class__ is list or x.__class__ is dict:
                stack.append(x)
    return True


def _batch(cursor: _Cursor, stack: list[Any]) -> str:
    """The text of the next items of a cursor: up to _CHUNK of them written by one dumps
    call; a large item among them is left on the stack, to be written after the text
    so far, with the cursor (at the items after it) behind it."""
    items = list(itertools.islice(cursor.items, _CHUNK))
    if not items:
        return ""
    values = [v for _k, v in items] if cursor.pairs else items
    if _CONTAINERS.isdisjoint(set(map(type, values))):
        cut = len(items)
    else:
        cut = next((i for i, v in enumerate(values) if (v.__class__ is list or v.__class__ is dict) and not _small(v)), len(items))
    parts: list[str] = []
    _flush(parts, items[:cut], cursor)
    if cut < len(items):
        if not cursor.first:
            parts.append(",")
        cursor.first = False
        if cursor.pairs:
            parts.append(json.dumps(items[cut][0], ensure_ascii=False) + ":")
        cursor.items = itertools.chain(items[cut + 1:], cursor.items)
        stack.append(cursor)
        stack.append(values[cut])
    elif len(items) == _CHUNK:
        stack.append(cursor)
    return "".join(parts)


_CONTAINERS = frozenset({list, dict})


def _flush(parts: list[str], plain: list[Any], cursor: _Cursor) -> None:
    if not plain:
        return
    text = dumps(dict(plain) if cursor.pairs else plain)[1:-1]
    if not cursor.first:
        parts.append(",")
    cursor.first = False
    parts.append(text)


_END = object()
