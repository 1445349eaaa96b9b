"""Frozen copies of JSON values (the original schema a Result keeps, cache entries) and
the cache's keys.

`marshal` writes a JSON tree about ten times faster than `json.dumps` and reads it
back about twice as fast as `json.loads`, and the bytes stay immutable: frozen copies
use its format 4, which writes an object met twice once.

A key is the value's pickle (never unpickled: only compared). Bytes decode to exactly
one value, so equal key bytes always mean equal inputs, with key order, `1`, `1.0`,
`true` and `-0.0` kept apart, whichever way either was written. It is written first
without a memo (the pickler's fast mode: no table of every object met, some 18% less
time), so its bytes follow the content alone. A subtree held twice is then written
twice, and a value whose levels each hold the one below twice would double at each
level: the writer stops at the key's size limit, and such a value is written again
with the memo, which writes an object met twice as a back-reference by identity, so the
key costs no more than the value's distinct objects (its bytes then follow the sharing
too: the same content shared otherwise is a miss, never a wrong hit). A cycle gets no
key.
"""

from __future__ import annotations

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


class _TooLarge(Exception):
    pass


class _Bounded:
    """Where a key is written: the pickler hands over a frame (64 KiB) at a time, so
    writing stops within a frame of the limit."""

    __slots__ = ("limit", "parts", "size")

    def write(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.limit:
            raise _TooLarge
        self.parts.append(data)


# each thread keeps its two picklers: making one costs more than a small schema's key
_kept = threading.local()


def key_of(value: Any, size: int) -> bytes | _Key | None:
    """Bytes equal only for equal JSON values (held by a `_Key` where they are many), or
    None where the value holds a non-JSON object or a subclass of a JSON type, a cycle,
    nests beyond the pickler's recursion limit, or where its bytes would pass `size`."""
    kept = getattr(_kept, "picklers", None)
    if kept is None:
        kept = _kept.picklers = (_pickler(fast=True), _pickler(fast=False))
    try:
        try:
            return _written(kept[0], value, size)
        except _TooLarge:
            return _written(kept[1], value, size)  # shared subtrees, written once each
    except (_TooLarge, _NotKeyable, RecursionError, ValueError, TypeError, OverflowError, MemoryError):
        _kept.picklers = None  # a dump cut short may leave a pickler mid-frame
        return None


def _pickler(fast: bool) -> tuple[Any, _Bounded]:
    sink = _Bounded()
    pickler = _JSONPickler(sink, _PROTOCOL)
    pickler.fast = fast  # fast: no memo, and a cycle is a ValueError
    return pickler, sink


def _written(kept: tuple[Any, _Bounded], value: Any, size: int) -> bytes | _Key:
    pickler, sink = kept
    sink.parts, sink.size, sink.limit = [], 0, size
    try:
        pickler.dump(value)
    finally:
        parts, sink.parts = sink.parts, []  # nothing of the caller's kept past the call
        pickler.clear_memo()
    blob = parts[0] if len(parts) == 1 else b"".join(parts)
    return _Key(blob) if len(blob) > _SAMPLED_PAST else blob


_SAMPLED_PAST = 4096  # key bytes past which their hash reads a sample (see `_Key`)


class _Key:
    """Key bytes of more than `_SAMPLED_PAST`, hashed by their length and an even sample
    of at most 256 of them.

    A dict compares the keys of one hash whole (at memory speed), so the hash need not
    read every byte: hashing all of a 100-tool request's 100 kB was about 8% of its
    hit. Keys that differ only outside the sample share a hash, and each lookup then
    compares them (the memo holds at most `max_entries`)."""

    __slots__ = ("blob", "_hash")

    def __init__(self, blob: bytes):
        self.blob = blob
        n = len(blob)
        self._hash = hash((n, blob[:: (n >> 8) + 1]))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return other.__class__ is _Key and self.blob == other.blob  # type: ignore[attr-defined]

    def __len__(self) -> int:
        return len(self.blob)


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


def freeze_entry(value: Any) -> bytes | None:
    """As `freeze`, for what a cache hit thaws every time: equal strings are first made
    one object, which marshal writes once and then as a back-reference, so a thaw makes
    each distinct string once (a tool list repeats its type names, keys and enum values:
    about a fifth less time to thaw)."""
    return freeze(_one_of_each_string(value))


def _one_of_each_string(value: Any) -> Any:
    """A copy of a JSON tree (containers new, iteratively) in which equal strings, keys
    and values alike, are one object."""
    one = {}.setdefault
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        src, dst, key = stack.pop()
        cls = src.__class__
        if cls is dict:
            out: Any = {}
            for k, v in src.items():
                if k.__class__ is str:  # only strings: `one` would take 1 for an equal True
                    k = one(k, k)
                vcls = v.__class__
                if vcls is str:
                    out[k] = one(v, v)
                elif vcls is dict or vcls is list:
                    out[k] = None  # filled when taken from the stack: key order is kept
                    stack.append((v, out, k))
                else:
                    out[k] = v
        elif cls is list:
            out = list(src)
            for i, v in enumerate(src):
                vcls = v.__class__
                if vcls is str:
                    out[i] = one(v, v)
                elif vcls is dict or vcls is list:
                    stack.append((v, out, i))
        else:
            out = one(src, src) if cls is str else src
        dst[key] = out
    return holder[0]


def thaw(blob: bytes) -> Any:
    """A fresh copy of the frozen value: new containers every time."""
    return marshal.loads(blob)
