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


def key_of(value: Any) -> bytes | None:
    """Bytes equal for equal JSON values, or None where marshal cannot write the value
    (a subclass of str or int, a tree nested beyond marshal's limit, a non-JSON object)."""
    try:
        return marshal.dumps(value, _KEY_FORMAT)
    except (ValueError, TypeError, RecursionError):
        return None


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
