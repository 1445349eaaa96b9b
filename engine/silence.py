"""Spilled text that would tell the model nothing: such a keyword is dropped, reported.

A spill costs tokens on every call; it earns them only where the model could act on
it. A keyword at JSON Schema's own default, a default that is the only value the
schema takes, and `additionalProperties: false` beside the properties a schema lists
say nothing a model could follow.
"""

from __future__ import annotations

from typing import Any

# JSON Schema's own defaults: spelled out, they change nothing
_DEFAULTS: dict[str, Any] = {
    "minLength": 0, "minItems": 0, "minProperties": 0, "uniqueItems": False,
    "readOnly": False, "writeOnly": False, "deprecated": False,
}
_NOT_FIXED = (False, None)


def _same(a: Any, b: Any) -> bool:
    # JSON equality: true is not 1, and 1 is 1.0
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def fixed_value(schema: Any) -> tuple[bool, Any]:
    """`(True, v)` where `schema`'s only value is its default `v`: a `const`, or a
    one-value `enum`, equal to its `default` (null never counts)."""
    if schema.__class__ is not dict or "default" not in schema:
        return _NOT_FIXED
    enum = schema.get("enum")
    if "const" in schema:
        only = schema["const"]
        if isinstance(enum, list) and not any(_same(only, v) for v in enum):
            return _NOT_FIXED
    elif isinstance(enum, list) and len(enum) == 1:
        only = enum[0]
    else:
        return _NOT_FIXED
    if only is None or not _same(only, schema["default"]):
        return _NOT_FIXED
    return True, only


_AT_DEFAULT = "it is JSON Schema's default"
_ONLY_VALUE = "it is the only value the schema takes"
_NAMES_LISTED = "the properties listed are the names to send"
_REASONS = (_AT_DEFAULT, _ONLY_VALUE, _NAMES_LISTED)


def says_nothing(node: dict, key: str, value: Any, spilled: str) -> str | None:
    """Why spilling `node[key] = value` would tell the model nothing, or None.

    `spilled` is the text already spilled into the node's description."""
    if key in _DEFAULTS and _same(value, _DEFAULTS[key]):
        return _AT_DEFAULT
    if key == "default" and fixed_value({**node, "default": value})[0]:
        return _ONLY_VALUE
    if key == "additionalProperties" and value is False and _lists_names(node, spilled):
        return _NAMES_LISTED
    return None


def silenced(detail: str) -> bool:
    """Whether a `dropped` change's detail is a spill `says_nothing` dropped: as unenforced
    as a spill, and judged as one (`wireschema check`)."""
    return detail.endswith(_REASONS)


def _lists_names(node: dict, spilled: str) -> bool:
    # patterns (spilled or not) admit more names: false then says which do not
    props = node.get("properties")
    return isinstance(props, dict) and bool(props) and "patternProperties" not in node and "patternProperties" not in spilled
