"""The plain fields of a request body, by paths of keys (`()`: the value itself), read at
any of a list of paths and written at the first; and `Lost`, the parts of a body a
target has no form for. What `requests` and `requestmessages` both read bodies with.
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Mapping, Sequence

import attrs

from .errors import UntranslatableError
from .model import Change

MISSING: Any = object()


# ---------------------------------------------------------------------------
# paths of plain fields ((): the value itself), read at any of a list, written at the first


def get(obj: Any, path: Sequence[str]) -> Any:
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return MISSING
        obj = obj[key]
    return obj


def held(obj: Any, paths: Sequence[Sequence[str]]) -> tuple[Any, tuple[str, ...] | None]:
    """The first of `paths` that `obj` holds a value (not null) at, and which."""
    for path in paths:
        value = get(obj, path)
        if value is not MISSING and value is not None:
            return value, tuple(path)
    return MISSING, None


def put(obj: dict[str, Any], path: Sequence[str], value: Any) -> None:
    for key in path[:-1]:
        if not isinstance(obj.get(key), dict):
            obj[key] = {}
        obj = obj[key]
    obj[path[-1]] = value


def pop(obj: dict[str, Any], path: Sequence[str]) -> None:
    """Remove the value at `path`, and each mapping on the way that it leaves empty."""
    chain = [obj]
    for key in path[:-1]:
        chain.append(chain[-1][key])
    del chain[-1][path[-1]]
    for holder, key in zip(reversed(chain[:-1]), reversed(path[:-1])):
        if holder[key]:
            break
        del holder[key]


def matches(value: Any, fixed: Mapping[str, Any]) -> bool:
    """`value` holds every constant key of `fixed` (nested mappings: their keys)."""
    if not isinstance(value, dict):
        return False
    for k, v in fixed.items():
        if isinstance(v, dict) and v:
            if not matches(value.get(k), v):
                return False
        elif value.get(k) != v:
            return False
    return True


def fixed_paths(fixed: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for k, v in fixed.items():
        if isinstance(v, dict) and v:
            yield from fixed_paths(v, (*prefix, k))
        else:
            yield (*prefix, k)


def beside(value: dict[str, Any], read: set[tuple[str, ...]], fixed: Mapping[str, Any] = {}) -> list[str]:
    """The dotted paths of the fields of `value` (not null) that are neither at a path `read`
    nor a constant key of `fixed`, nor on the way to one: what a reading leaves behind."""
    taken = read | set(fixed_paths(fixed))
    within = {p[:i] for p in taken for i in range(1, len(p))}
    left = []
    stack: list[tuple[tuple[str, ...], Any]] = [((), value)]
    while stack:
        prefix, node = stack.pop()
        for k, v in node.items():
            path = (*prefix, k)
            if path in taken or v is None:
                continue
            if path in within and isinstance(v, dict):
                stack.append((path, v))
            else:
                left.append(".".join(path))
    return sorted(left)


def fill(out: dict[str, Any], fixed: Mapping[str, Any]) -> None:
    for path in fixed_paths(fixed):
        v = get(fixed, path)
        put(out, path, json.loads(json.dumps(v)) if isinstance(v, (dict, list)) else v)


# ---------------------------------------------------------------------------
# what cannot be carried


@attrs.define
class Lost:
    """The parts of a body the target has no form for: each `(where, what)`; and the
    fields only the body's own wire reads (`notes`), never sent, always reported."""

    target: str
    parts: list[tuple[str, str]] = attrs.field(factory=list)
    notes: list[tuple[str, str]] = attrs.field(factory=list)

    def add(self, where: str, what: str) -> None:
        self.parts.append((where, what))

    def note(self, where: str, what: str) -> None:
        self.notes.append((where, what))

    def settle(self, drop: bool) -> list[Change]:
        """Raise `UntranslatableError` naming every part, or (`drop`) report each dropped."""
        if not drop and self.parts:
            shown = "; ".join(f"{where}: {what}" for where, what in self.parts[:8])
            more = f" (and {len(self.parts) - 8} more)" if len(self.parts) > 8 else ""
            raise UntranslatableError(
                f"{len(self.parts)} part(s) of the request body have no form in {self.target}'s requests: {shown}{more} "
                '(on_untranslatable="drop" drops them, reported)'
            )
        noted = [Change("request/translate", where, "dropped", f"{what}, which only its own wire reads: not sent") for where, what in self.notes]
        return noted + [Change("request/untranslatable", where, "dropped", f"{what}: not sent") for where, what in self.parts]
