"""Frozen copies of JSON values (the original schema a Result keeps, cache entries) and
the cache's keys.

`marshal` writes a JSON tree about ten times faster than `json.dumps` and reads it
back about twice as fast as `json.loads`, and the bytes stay immutable: frozen copies
use its format 4, which writes an object met twice once. A cache entry hit often is
made by compiled code instead (see `Entry`).

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
import math
import threading
from typing import Any, Callable

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
    # KeyError: C pickle's fast mode, cut short inside a frozenset, forgets an id it kept
    except (_TooLarge, _NotKeyable, RecursionError, ValueError, TypeError, OverflowError, MemoryError, KeyError):
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


def freeze_entry(value: Any) -> Entry | None:
    """As `freeze`, for what a cache hit thaws every time: equal strings are first made
    one object, which marshal writes once and then as a back-reference, so a thaw makes
    each distinct string once (a tool list repeats its type names, keys and enum values:
    about a fifth less time to thaw)."""
    blob = freeze(_one_of_each_string(value))
    return None if blob is None else Entry(blob)


class Entry:
    """A JSON value a cache entry keeps, made afresh (new containers) by each `thaw`.

    It starts as marshal bytes. Once thawed `COMPILE_AFTER` times it is made by a
    function compiled from the value's literal source instead: the interpreter's own
    literal opcodes build each container, with its keys and strings taken from the
    code's constants, in about half of `marshal.loads`'s time. Compiling costs about
    as much as 35 to 40 thaws, so it waits for the 32nd (as in renting skis before
    buying): an entry hit fewer times never pays for it, one hit more often pays at
    most about twice what marshal alone would have cost. A value larger than `_LITERAL_BYTES`, or one the
    compiler cannot take (nested past `_LITERAL_DEPTH`, a non-finite float, an int too
    long to print), stays on marshal.
    """

    __slots__ = ("_blob", "_make", "_thaws", "_size")

    COMPILE_AFTER = 32

    def __init__(self, blob: bytes):
        self._blob = blob
        self._make: Any = None
        self._thaws = 0
        # what the memo counts against its byte budget: the compiled function's code
        # (which then replaces the bytes) holds about twice what marshal wrote
        self._size = 2 * len(blob)

    def __len__(self) -> int:
        return self._size

    def thaw(self) -> Any:
        # the bytes are read before the function: a thread that finds them dropped has
        # been beaten by one that set the function first
        blob, make = self._blob, self._make
        if make is not None:
            return make()
        # two threads may both count or both compile: either function makes equal values
        self._thaws += 1
        value = marshal.loads(blob)
        if self._thaws == self.COMPILE_AFTER and len(blob) <= _LITERAL_BYTES:
            self._make = _literal_function(value)
            if self._make is not None:
                self._blob = b""
        return value


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


_LITERAL_DEPTH = 100  # containers; the parser refuses 200 nested brackets
# the compiler's syntax tree takes up to about 200 bytes of memory a byte of marshal (a
# wide object's; a tool list's about 75): values up to this size (a 100-tool request's
# tools are about 95 KiB) take at most some 25 MB while compiling; larger ones stay on
# marshal
_LITERAL_BYTES = 128 * 1024


class _NoLiteral(Exception):
    pass


def _literal_function(value: Any) -> Callable[[], Any] | None:
    """A function returning a fresh copy of a JSON value on each call, or None where the
    value has no literal the compiler takes. The source is made of `repr`s of exact
    str, int, float, bool and None values alone, so it can only build data."""
    parts: list[str] = ["def make():\n return "]
    try:
        _write_literal(value, _LITERAL_DEPTH, parts)
        code = compile("".join(parts), "<wireschema cache entry>", "exec")
    except (_NoLiteral, ValueError, SyntaxError, RecursionError, MemoryError, OverflowError):
        return None
    scope: dict[str, Any] = {"__builtins__": {}}
    exec(code, scope)  # noqa: S102 - literals of plain JSON scalars, written above
    made: Callable[[], Any] = scope["make"]
    return made


def _write_literal(value: Any, depth: int, parts: list[str]) -> None:
    cls = value.__class__
    if cls is dict or cls is list:
        if depth == 0:
            raise _NoLiteral
        if cls is dict:
            parts.append("{")
            for k, v in value.items():
                if k.__class__ is not str:
                    raise _NoLiteral
                parts.append(repr(k))
                parts.append(":")
                _write_literal(v, depth - 1, parts)
                parts.append(",")
            parts.append("}")
        else:
            parts.append("[")
            for v in value:
                _write_literal(v, depth - 1, parts)
                parts.append(",")
            parts.append("]")
    elif cls is str or cls is int or cls is bool or value is None or (cls is float and math.isfinite(value)):
        parts.append(repr(value))  # an int past the digit limit raises ValueError
    else:
        raise _NoLiteral


def thaw(blob: bytes) -> Any:
    """A fresh copy of the frozen value: new containers every time."""
    return marshal.loads(blob)
