"""Properties that carry no choice: their only value is their default."""

from __future__ import annotations

from typing import Any

from . import kind
from .types import json_type

_NONE = (False, None)


def fixed_value(schema: Any) -> tuple[bool, Any]:
    """`(True, v)` where `schema`'s only value is its default `v`: a `const`, or a
    one-value `enum`, equal to its `default` (JSON equality; null never counts)."""
    if schema.__class__ is not dict or "default" not in schema:
        return _NONE
    enum = schema.get("enum")
    if "const" in schema:
        only = schema["const"]
        if isinstance(enum, list) and not any(_same(only, v) for v in enum):
            return _NONE
    elif isinstance(enum, list) and len(enum) == 1:
        only = enum[0]
    else:
        return _NONE
    if only is None or not _same(only, schema["default"]):
        return _NONE
    return True, only


def _same(a: Any, b: Any) -> bool:
    # true is not 1, and 1 is 1.0
    return json_type(a) == json_type(b) and a == b


@kind(
    "require-fixed", fails=False, reads="children", creates=False, adds={"required"}, order="pre",
    triggers={"properties"},
    acts_if="node['properties'].__class__ is dict",
)
def require_fixed(rule, node, run):
    """An optional property whose only value is its default becomes required.

    It carries no choice: sending it costs the model nothing, and a wire that makes
    optional properties "T or null" would otherwise admit null for it (a discriminated
    union's tag). `restore` puts the value back where a model left it out.
    """
    props, req = node["properties"], node.get("required")
    required = [n for n in req if isinstance(n, str)] if isinstance(req, list) else []
    fixed = [n for n, sub in props.items() if n not in required and fixed_value(sub)[0]]
    if not fixed or (req is not None and not isinstance(req, list)):
        return
    node["required"] = [*(req or ()), *fixed]
    run.report(rule, node, "rewritten", f"{', '.join(fixed)} now required: its only value is its default", "required")
