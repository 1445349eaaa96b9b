"""The fixed battery of `wireschema probe`: small schemas, one keyword, format, bound or
limit each, with a value that breaks it and one it takes.

Each probe is the schema of the one argument `v` of a tool whose schema is otherwise
the target's own form of `{"type": "object", "properties": {"v": {"type": "string"}},
"required": ["v"]}` (its frame): only the probed part differs from what the wire takes.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import attrs

ARG = "v"
TOOL_NAME = "probe"


@attrs.frozen
class Probe:
    """One schema of the battery: `sub` is the schema of the argument, `keyword` the one
    keyword probed (None for a limit, which is the whole of `sub`), `tempt` a value that
    breaks it (None where no local validator can tell) and `valid` one it takes."""

    id: str
    sub: Any
    keyword: str | None
    valid: Any
    tempt: Any = None

    @property
    def pointer(self) -> str:
        """Where the probed part stands in the tool's schema (RFC 6901)."""
        at = f"/properties/{ARG}"
        return f"{at}/{self.keyword}" if self.keyword else at

    @property
    def prompt(self) -> str:
        """The user's message: a call with the value that breaks the keyword, if any."""
        value = self.valid if self.tempt is None else self.tempt
        return f'Call the tool "{TOOL_NAME}" once, with exactly these arguments: {json.dumps({ARG: value})}'

    def schema(self, frame: Any) -> Any:
        """The tool's schema: the frame with this probe's argument."""
        return with_arg(frame, self.sub)


def frame_input() -> dict[str, Any]:
    """What the frame is made from: normalized for the target, it is the target's form."""
    return {"type": "object", "properties": {ARG: {"type": "string"}}, "required": [ARG]}


def with_arg(frame: Any, sub: Any) -> Any:
    """A copy of the frame whose argument is `sub` (None: an object with no properties)."""
    out = copy.deepcopy(frame)
    if sub is None:
        out["properties"] = {}
        out.pop("required", None)
    else:
        out["properties"][ARG] = sub
    return out


def _nested(frame: Any, levels: int) -> tuple[Any, Any]:
    """`levels` objects, each the frame holding the next, a string at the bottom."""
    sub: Any = {"type": "string"}
    value: Any = "a"
    for _ in range(levels - 1):
        sub = with_arg(frame, sub)
        value = {ARG: value}
    return sub, value


def battery(frame: Any) -> tuple[Probe, ...]:
    """Every probe, in a fixed order, for a target whose frame is `frame`."""
    s, i, a = "string", "integer", "array"
    out = [
        Probe("string/minLength", {"type": s, "minLength": 5}, "minLength", "abcdef", "ab"),
        Probe("string/maxLength", {"type": s, "maxLength": 3}, "maxLength", "ab", "abcdefgh"),
        Probe("string/pattern", {"type": s, "pattern": "^[0-9]+$"}, "pattern", "123", "abc"),
        Probe("string/const", {"type": s, "const": "x"}, "const", "x", "y"),
        Probe("string/enum", {"type": s, "enum": ["a", "b"]}, "enum", "a", "c"),
        Probe("string/default", {"type": s, "default": "x"}, "default", "a"),
        Probe("format/date", {"type": s, "format": "date"}, "format", "2026-01-31", "yesterday"),
        Probe("format/time", {"type": s, "format": "time"}, "format", "12:00:00Z"),
        Probe("format/date-time", {"type": s, "format": "date-time"}, "format", "2026-01-31T12:00:00Z"),
        Probe("format/email", {"type": s, "format": "email"}, "format", "a@example.com", "nobody"),
        Probe("format/uri", {"type": s, "format": "uri"}, "format", "https://example.com"),
        Probe("format/uuid", {"type": s, "format": "uuid"}, "format", "123e4567-e89b-12d3-a456-426614174000", "abc"),
        Probe("format/ipv4", {"type": s, "format": "ipv4"}, "format", "192.0.2.1", "300.1.2.3"),
        Probe("number/minimum", {"type": i, "minimum": 10}, "minimum", 12, 3),
        Probe("number/maximum", {"type": i, "maximum": 10}, "maximum", 5, 30),
        Probe("number/exclusiveMinimum", {"type": i, "exclusiveMinimum": 10}, "exclusiveMinimum", 11, 10),
        Probe("number/multipleOf", {"type": i, "multipleOf": 5}, "multipleOf", 10, 7),
        Probe("array/minItems", {"type": a, "items": {"type": s}, "minItems": 3}, "minItems", ["a", "b", "c"], ["a"]),
        Probe("array/maxItems", {"type": a, "items": {"type": s}, "maxItems": 2}, "maxItems", ["a"], ["a", "b", "c", "d"]),
        Probe("array/uniqueItems", {"type": a, "items": {"type": s}, "uniqueItems": True}, "uniqueItems", ["a", "b"], ["a", "a"]),
        Probe("union/anyOf", {"anyOf": [{"type": s}, {"type": i}]}, "anyOf", "a", True),
        Probe("union/type-list", {"type": [s, "null"]}, "type", None, 3),
        Probe("object/empty", with_arg(frame, None), None, {}),
        Probe("limit/maxItems-1000", {"type": a, "items": {"type": s}, "maxItems": 1000}, None, ["a"]),
        Probe("limit/enum-1001", {"type": s, "enum": [f"e{n}" for n in range(1001)]}, None, "e0"),
    ]
    for levels in (8, 16):
        sub, value = _nested(frame, levels)
        out.append(Probe(f"limit/depth-{levels}", sub, None, value))
    return tuple(out)


def broken(schema: Any, value: Any) -> str | None:
    """Why `value` breaks `schema` (the first reason), or None where it does not, as
    jsonschema judges it with its own format checks (date, email, uuid, ipv4, ...)."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    error = next(iter(sorted(validator.iter_errors(value), key=lambda e: list(map(str, e.absolute_path)))), None)
    return None if error is None else error.message
