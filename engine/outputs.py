"""Output (structured response) schemas: wrap a non-object root where the wire wants one."""

from __future__ import annotations

from typing import Any

import attrs

from .positions import DEFINITIONS
from .blobs import freeze
from .model import Options, Result
from .positions import child_slots
from .prepare import json_copy

_DEFS = DEFINITIONS
_HOISTED = ("$schema", "$id")


def _is_object_root(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    t = schema.get("type")
    return t == "object" or (t is None and "properties" in schema and not any(k in schema for k in ("anyOf", "oneOf")))


def _rebase_refs(schema: Any) -> None:
    """Root-relative refs of the inner schema now start at /properties/response."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and not ref.startswith(("#/$defs/", "#/definitions/")):
            rest = ref[1:]
            if rest == "" or rest.startswith("/"):
                node["$ref"] = "#/properties/response" + rest
        stack.extend(cont[key] for _kw, _slot, cont, key in child_slots(node))


def wrap(schema: Any) -> dict:
    """`{"type": "object", "properties": {"response": S}, "required": ["response"]}`,
    with S's definitions and identifiers moved to the new root so its refs still resolve."""
    inner = json_copy(schema)
    outer: dict[str, Any] = {}
    if isinstance(inner, dict):
        for k in _HOISTED:
            if k in inner:
                outer[k] = inner.pop(k)
        for k in _DEFS:
            if isinstance(inner.get(k), dict):
                outer.setdefault(k, {}).update(inner.pop(k))
        _rebase_refs(inner)
    outer.update({"type": "object", "properties": {"response": inner}, "required": ["response"]})
    return outer


def normalize_output(schema: Any, target: Any, *, strict: bool | None = None, options: Options | None = None) -> Result:
    """Normalize a structured-output schema; `Result.unwrap` undoes a wrapper it added.

    Where the target's rule file says its outputs must be objects
    (`output: {wrap_non_object: true}`), a schema whose root is not an object is wrapped
    under `response` first.
    """
    from . import _target, normalize
    from .prepare import parse_input

    opts = options or Options()
    t = _target(target)
    value = parse_input(schema, opts)
    if not t.output.get("wrap_non_object") or _is_object_root(value):
        return normalize(value, t, strict=strict, options=opts)
    result = normalize(wrap(value), t, strict=strict, options=opts)
    return attrs.evolve(result, wrapped=True, origin=freeze(value))
