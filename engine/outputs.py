"""Output (structured response) schemas: wrap a non-object root where the wire wants one.

Where a wire takes any root for an output (a rule file's `output.wrap_non_object:
false`), the output runs through the target's output variant: the target without the
rules its `output.disable` names, those that only hold for tool parameters (a root
that must be one object).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

import attrs

from .positions import DEFINITIONS
from .blobs import freeze
from .model import Change, Options, Result, options_of
from .passes.objects import pure_map
from .positions import child_slots, decode_fragment
from .prepare import json_copy

if TYPE_CHECKING:
    from .ruletable import Target

_DEFS = DEFINITIONS
_HOISTED = ("$schema", "$id")
_WRAPPED_AT = "#/properties/response"


def _is_object_root(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    t = schema.get("type")
    return t == "object" or (t is None and "properties" in schema and not any(k in schema for k in ("anyOf", "oneOf")))


def _into_defs(ref: str) -> bool:
    """A root-relative pointer into the root's definitions (`#/$defs/X`, also spelled
    `#/%24defs/X`), which stay at the root when the schema is wrapped."""
    first = ref[2:].split("/", 1)[0] if ref.startswith("#/") else None
    return first is not None and decode_fragment(first) in _DEFS


def _rebase_refs(schema: Any) -> int:
    """Root-relative refs of the inner schema now start at /properties/response (how
    many were).

    A subschema with its own `$id` is a resource of its own, whose `#` pointers do
    not mean the document root: it is left as it is.
    """
    stack = [schema]
    rebased = 0
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and (ref == "#" or ref.startswith("#/")) and not _into_defs(ref):
            node["$ref"] = _WRAPPED_AT + ref[1:]
            rebased += 1
        for _kw, _slot, cont, key in child_slots(node):
            child = cont[key]
            if not (isinstance(child, dict) and "$id" in child):
                stack.append(child)
    return rebased


def wrap(schema: Any) -> tuple[dict[str, Any], int]:
    """`{"type": "object", "properties": {"response": S}, "required": ["response"]}`,
    with S's definitions and identifiers moved to the new root so its refs still resolve
    (and how many of S's `$ref`s were rebased to say where S now is)."""
    inner = json_copy(schema)
    outer: dict[str, Any] = {}
    rebased = 0
    if isinstance(inner, dict):
        for k in _HOISTED:
            if k in inner:
                outer[k] = inner.pop(k)
        hoisted = []
        for k in _DEFS:
            if isinstance(inner.get(k), dict):
                defs = inner.pop(k)
                outer.setdefault(k, {}).update(defs)
                hoisted.append(defs)
        rebased = _rebase_refs(inner)
        # a definition's `#` meant the schema that is now the response: rebased as well
        for defs in hoisted:
            for sub in defs.values():
                if not (isinstance(sub, dict) and "$id" in sub):
                    rebased += _rebase_refs(sub)
    outer.update({"type": "object", "properties": {"response": inner}, "required": ["response"]})
    return outer, rebased


def normalize_output(
    schema: Any, target: Union[str, "Target", None] = None, *, strict: bool | None = None, options: Options | None = None,
    model: str | None = None,
) -> Result:
    """Normalize a structured-output schema; `Result.unwrap` undoes a wrapper it added.

    Where the target's rule file says its outputs must be objects
    (`output: {wrap_non_object: true}`), a schema whose root is not an object is wrapped
    under `response` first. Elsewhere (Gemini's `responseSchema`, which takes arrays,
    enums and scalars) any root is normalized as it is. `schema` may be anything
    `normalize` takes, a pydantic `TypeAdapter(list[Recipe])` included. `model=` names a
    model in place of the target (see `target_for`).
    """
    from . import _log_result, _target

    result = _normalize_output_quiet(schema, _target(target, model), strict=strict, options=options)
    _log_result(result, "the output schema")
    return result


def _normalize_output_quiet(
    schema: Any, target: Any, *, strict: bool | None = None, options: Options | None = None, wrap_allowed: bool = True,
) -> Result:
    """`normalize_output` without the log; with `wrap_allowed` false no wrapper is added
    (a tool's own output schema: what the tool returns, which no one would unwrap)."""
    from . import _normalize, _parsed, _target

    opts = options_of(options)
    t = _target(target)
    value = _parsed(schema, opts)
    if not wrap_allowed or not t.output.get("wrap_non_object") or (_is_object_root(value) and not _wraps_map(t, value)):
        return _normalize(value, t, strict=strict, options=opts, output=True)
    _refuse_no_json(value, t, opts)
    wrapper, rebased = wrap(value)
    result = _normalize(wrapper, t, strict=strict, options=opts, output=True)
    return attrs.evolve(
        result, wrapped=True, origin=freeze(value), changes=_unwrapped_changes(value, rebased, result), notes=_unwrapped_notes(result)
    )


def _wraps_map(target: Any, value: Any) -> bool:
    """A root map that the target its outputs run as sends as pairs (`output.wrap_maps`):
    wrapped, it stands below the root, where a `map-to-pairs` rule takes it."""
    if not pure_map(value):
        return False
    runs = target.registry.output_variant(target) if target.registry is not None else target
    return bool(runs.output.get("wrap_maps"))


def _refuse_no_json(value: Any, target: Any, opts: Options) -> None:
    """The SchemaInputError of a value that is no JSON, naming where the input holds it:
    the run over the wrapper would name a place in the wrapper (`/properties/response/...`).
    A budget the input is past is left to that run, which reports it as a fallback."""
    from .prepare import copy_input
    from .run import BudgetExceeded, Run

    try:
        copy_input(value, Run(target, opts))
    except BudgetExceeded:
        pass


def _described(value: Any) -> str:
    if isinstance(value, bool):
        return f" (`{str(value).lower()}`)"
    if pure_map(value):
        return " (a map, sent as a list of pairs)"
    what = value.get("type") if isinstance(value, dict) else None
    return f" (`type: {what}`)" if isinstance(what, str) else ""


_INSIDE = _WRAPPED_AT[1:]  # the pointer of the input's root in the wrapper
_AT_THE_ROOT = frozenset((*_DEFS, *_HOISTED))  # what `wrap` hoists: at the wrapper's root as at the input's


def _unwrapped_notes(result: Result) -> dict[str, Any]:
    """The pointers of a wrapped run's notes (nulled optionals, paired maps) into the
    input, as its changes' are."""
    return {k: tuple(_unwrapped(p) for p in v) for k, v in result.notes.items()}


def _unwrapped(p: str) -> str:
    return p[len(_INSIDE):] if p == _INSIDE or p.startswith(_INSIDE + "/") else p


def _unwrapped_changes(value: Any, rebased: int, result: Result) -> tuple[Change, ...]:
    """The changes of a wrapped run with pointers into the input, as every report's are,
    led by the wrap itself. What the target did to the wrapper alone (its own
    `additionalProperties`, say) is part of that wrap: no place in the input holds it."""
    out = []
    if not result.used_fallback:
        refs = f", {rebased} `$ref`{'s' if rebased > 1 else ''} into it rebased to `{_WRAPPED_AT}`" if rebased else ""
        out.append(Change("output/wrap", "", "rewritten", f"the root{_described(value)} is sent as the `response` property of an object, as {result.target} takes it{refs} (`Result.unwrap` undoes it)"))
    for c in result.changes:
        p = c.pointer
        if p == _INSIDE or p.startswith(_INSIDE + "/"):
            out.append(attrs.evolve(c, pointer=_unwrapped(p)))
        elif p and p.split("/", 2)[1] in _AT_THE_ROOT:
            out.append(c)  # hoisted from the input's root: where it was
        elif c.action == "fallback":
            out.append(attrs.evolve(c, pointer=""))
    return tuple(out)
