"""Frozen copies of JSON values (the original schema a Result keeps, cache entries) and
the cache's keys.

`marshal` writes a JSON tree about ten times faster than `json.dumps` and reads it
back about twice as fast as `json.loads`, and the bytes stay immutable: frozen copies
use its format 4, which writes an object met twice once.

A key is the value's pickle (never unpickled: only compared). Bytes decode to exactly
one value, so equal key bytes always mean equal inputs, with key order, `1`, `1.0`,
`true` and `-0.0` kept apart. Pickle, unlike marshal, writes an object met twice as a
back-reference by identity alone (marshal's format 4 also asks its reference count,
which changes while the library or the caller holds a value's strings, and its
formats without back-references cost 2**depth bytes for a tree whose levels each hold
the one below twice). So a key costs no more than the input's distinct objects, needs
no count of the input first, and the same objects give the same bytes on every call;
the same content held with other sharing gives other bytes: a miss, never a wrong hit.
"""

from __future__ import annotations

import io
import json
import marshal
import threading
from typing import Any

try:
    from _pickle import Pickler
except ImportError:  # an interpreter without the C pickler
    from pickle import Pickler

_FORMAT = 4
_PROTOCOL = 5


class _JSONPickler(Pickler):
    def reducer_override(self, obj: Any) -> Any:
        # called for every object but None, booleans and exact int, float, str, bytes,
        # list, tuple, set, frozenset and dict: a subclass or any other object runs no
        # code of its own here, and gets no key
        raise _NotKeyable


class _NotKeyable(Exception):
    pass


# each thread keeps one pickler and its buffer: making them costs about as much as
# pickling a tool's schema (a key is taken on every cached call, hit or miss)
_kept = threading.local()
_KEEP_BUFFER = 64 * 1024  # a buffer grown past this is let go with its pickler


def key_of(value: Any, size: int) -> bytes | None:
    """Bytes equal only for equal JSON values, or None where the value holds a non-JSON
    object or a subclass of a JSON type, nests beyond the pickler's recursion limit, or
    where its bytes would pass `size`."""
    kept = getattr(_kept, "pickler", None)
    if kept is None:
        out = io.BytesIO()
        kept = _kept.pickler = (_JSONPickler(out, _PROTOCOL), out)
    pickler, out = kept
    out.seek(0)
    out.truncate()
    pickler.clear_memo()  # no back-reference into an earlier key
    try:
        pickler.dump(value)
    except (_NotKeyable, RecursionError, ValueError, TypeError, OverflowError, MemoryError):
        return None
    finally:
        if out.tell() > _KEEP_BUFFER:
            _kept.pickler = None
    return out.getvalue() if out.tell() <= size else None


def freeze(value: Any) -> bytes | None:
    """An immutable copy of a JSON value; None if it is not one marshal can write
    (then through JSON text, which reads str and int subclasses as plain values)."""
    try:
        return marshal.dumps(value, _FORMAT)
    except (ValueError, TypeError, RecursionError):
        pass
    try:
        return marshal.dumps(json.loads(json.dumps(value, allow_nan=True)), _FORMAT)
    except (ValueError, TypeError, RecursionError):
        return None


def thaw(blob: bytes) -> Any:
    """A fresh copy of the frozen value: new containers every time."""
    return marshal.loads(blob)
