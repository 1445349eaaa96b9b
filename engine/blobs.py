"""Frozen copies of JSON values: the original schema a Result keeps, and cache entries.

`marshal` writes a JSON tree about ten times faster than `json.dumps` and reads it
back about twice as fast as `json.loads`, and the bytes stay immutable. Key blobs use
format 2, which has no back-references: equal values then give equal bytes (one
exception: an interned and a non-interned copy of the same string differ, which costs
a cache miss, never a wrong hit). Bytes decode to exactly one value, so equal key
bytes always mean equal inputs, with `1`, `1.0`, `true` and `-0.0` kept apart.
"""

from __future__ import annotations

import json
import marshal
from typing import Any

_KEY_FORMAT = 2
_COPY_FORMAT = 4  # back-references to repeated strings: smaller and faster to read


def key_of(value: Any, limit: int, *, each: bool = False, size: int | None = None) -> bytes | None:
    """Bytes equal for equal JSON values, or None where marshal cannot write the value
    (a subclass of str or int, a tree nested beyond marshal's limit, a non-JSON object),
    where it holds more than `limit` objects and arrays (with `each`: where one item of
    the list `value` does), or where its bytes would pass `size`.

    The objects, arrays and items are counted first, a subtree held twice counted twice:
    marshal writes every occurrence (a tree whose levels each hold the one below twice
    would cost 2**depth bytes before any budget applied), and every item at least a byte.
    """
    if not _within(value, limit, each, size):
        return None
    try:
        blob = marshal.dumps(value, _KEY_FORMAT)
    except (ValueError, TypeError, RecursionError):
        return None
    return blob if size is None or len(blob) <= size else None


def _within(value: Any, limit: int, each: bool, size: int | None) -> bool:
    items = 0
    if each and value.__class__ is list:
        for item in value:
            if not _within(item, limit, False, size):
                return False
        return True
    count = 0
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        cls = node.__class__
        if cls is dict:
            node = node.values()
        elif cls is not list:
            # marshal writes tuples and sets too: none is JSON, so no key is needed
            return cls is not tuple and cls is not set and cls is not frozenset
        count += 1
        items += len(node)
        if count > limit or (size is not None and items > size):
            return False
        for item in node:
            cls = item.__class__
            if cls is dict or cls is list or cls is tuple or cls is set or cls is frozenset:
                push(item)
    return True


def freeze(value: Any) -> bytes | None:
    """An immutable copy of a JSON value; None if it is not one marshal can write
    (then through JSON text, which reads str and int subclasses as plain values)."""
    try:
        return marshal.dumps(value, _COPY_FORMAT)
    except (ValueError, TypeError, RecursionError):
        pass
    try:
        return marshal.dumps(json.loads(json.dumps(value, allow_nan=True)), _COPY_FORMAT)
    except (ValueError, TypeError, RecursionError):
        return None


def thaw(blob: bytes) -> Any:
    """A fresh copy of the frozen value: new containers every time."""
    return marshal.loads(blob)
