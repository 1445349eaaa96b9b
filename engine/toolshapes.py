"""Reading tools by the rule files' tool shapes: which shape a tool is written in, where
its name, description, schema and strict flag sit, and which entries of a tool list are
no tools of the caller's (groups, provider-only tools).

Both `tools` (normalizing tools) and `requests` (translating bodies) read tools so; this
module imports neither.
"""

from __future__ import annotations

import reprlib
import weakref
from typing import Any, Mapping, Sequence

import attrs

from .errors import ToolShapeError
from .prepare import json_copy

_EMPTY = {"type": "object", "properties": {}}
MISSING: Any = object()


@attrs.frozen
class Parsed:
    """A tool as `parse_tool` read it."""

    name: str
    description: str | None
    schema: Any
    strict: bool | None
    shape: Any
    """The tool shape that read it; None for a tool made from Python or a placeholder."""
    at: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)
    """Where each field was read: the caller's spelling, kept when the tool keeps its shape."""


def lookup(obj: Any, path: Sequence[str]) -> Any:
    """The value at `path`: MISSING where it is absent, None below a null."""
    for key in path:
        if obj is None:
            return None  # `"inputSchema": null`: the schema is null, not absent
        if not isinstance(obj, dict) or key not in obj:
            return MISSING
        obj = obj[key]
    return obj


def registry_of(target: Any) -> Any:
    """The registry a target was compiled in (the shipped one for a target made alone)."""
    from . import _registry

    return target.registry if target.registry is not None else _registry()


def shape_paths(shape: Mapping[str, Any], field: str) -> tuple[tuple[str, ...], ...]:
    if field not in shape:
        return ()
    return (shape[field], *shape.get("aliases", {}).get(field, ()))


def read_field(tool: dict[str, Any], shape: Mapping[str, Any], field: str, nulls: bool = True) -> tuple[Any, tuple[str, ...] | None]:
    """The first of the field's spellings the tool holds (`nulls=False`: the first not null)."""
    for path in shape_paths(shape, field):
        value = lookup(tool, path)
        if value is not MISSING and (nulls or value is not None):
            return value, path
    return MISSING, None


@attrs.frozen
class Reading:
    """How a registry reads tools: its shapes, most specific first, and which entries
    of a tool list are no tools of the caller's."""

    shapes: tuple[Any, ...]
    # key (`type`) -> a value a shape claims for its tools -> per claiming shape, the
    # schema paths one of which the entry must hold (`tool.schema_required`), or None
    kinds: Mapping[str, Mapping[str, tuple[Any, ...]]]
    passthrough: frozenset[str]
    groups: frozenset[str]

    def group_of(self, entry: Any) -> str | None:
        """The key under which `entry` holds a list of tools (`tool.groups`), or None."""
        if isinstance(entry, dict) and not self.groups.isdisjoint(entry):
            return next(k for k in entry if k in self.groups)
        return None

    def is_function_tool(self, tool: Any) -> bool:
        if not isinstance(tool, dict) or not self.passthrough.isdisjoint(tool):
            return False
        for key, claims in self.kinds.items():
            kind = tool.get(key)
            if isinstance(kind, str) and not any(
                need is None or any(lookup(tool, path) is not MISSING for path in need) for need in claims.get(kind, ())
            ):
                return False  # no shape takes an entry of this kind and of these fields
        return True


_READINGS: "weakref.WeakKeyDictionary[Any, Reading]" = weakref.WeakKeyDictionary()


def tool_reading(registry: Any) -> Reading:
    found = _READINGS.get(registry)
    if found is None:
        shapes = list(registry.tool_shapes())
        shapes.sort(key=lambda s: (-len(s["schema"]), -len(s.get("fixed", {})), "strict" not in s, -len(s)))
        kinds: dict[str, dict[str, list[Any]]] = {}
        passthrough: set[str] = set()
        groups: set[str] = set()
        for s in shapes:
            need = shape_paths(s, "schema") if s.get("schema_required") else None
            claimed = [(key, value) for key, value in s.get("fixed", {}).items() if isinstance(value, str)]
            claimed += [(key, value) for key, values in s.get("kinds", {}).items() for value in values]
            for key, value in claimed:
                kinds.setdefault(key, {}).setdefault(value, []).append(need)
            passthrough.update(s.get("passthrough", ()))
            groups.update(s.get("groups", ()))
        found = Reading(
            tuple(shapes),
            {key: {value: tuple(needs) for value, needs in claims.items()} for key, claims in kinds.items()},
            frozenset(passthrough),
            frozenset(groups),
        )
        _READINGS[registry] = found
    return found


def parse_tool(tool: Any, registry: Any, *, judged: bool = True) -> Parsed:
    """Read a tool in any shipped shape (name, description, schema, strict flag).

    A null description or strict flag is none; a description that is no text or a strict
    flag that is no boolean is a ToolShapeError naming the tool and the field, as a
    framework object's is (`toolobjects`): a wire takes neither, and a truthiness guessed
    would decide strictness for the caller. `judged=False` reads such a field as none
    (what a command needs to know a tool when it is one)."""
    if not isinstance(tool, dict):
        raise ToolShapeError(f"a tool must be an object, got {type(tool).__name__}")
    shapes = tool_reading(registry).shapes
    for shape in shapes:
        fixed = shape.get("fixed", {})
        if any(k in tool and tool[k] != v for k, v in fixed.items()):
            continue
        name, name_at = read_field(tool, shape, "name")
        if not isinstance(name, str):
            continue
        schema, schema_at = read_field(tool, shape, "schema")
        if schema is MISSING:
            # another shape may hold the schema elsewhere under the same name path
            others = [s for s in shapes if s["name"] == shape["name"] and read_field(tool, s, "schema")[0] is not MISSING]
            if others:
                continue
            schema = json_copy(_EMPTY)
        # a null description is none, so that another spelling (an MCP title) stands in
        desc, desc_at = read_field(tool, shape, "description", nulls=False)
        strict, strict_at = read_field(tool, shape, "strict")
        if judged and desc is not MISSING and not isinstance(desc, str):
            raise ToolShapeError(f"tool {name!r}: its {dotted(desc_at)} is {type_name(desc)} ({brief(desc)}), not text")
        if judged and strict is not MISSING and strict is not None and strict.__class__ is not bool:
            raise ToolShapeError(f"tool {name!r}: its {dotted(strict_at)} is {brief(strict)}, not true or false")
        at = {k: p for k, p in (("name", name_at), ("schema", schema_at), ("description", desc_at), ("strict", strict_at)) if p}
        return Parsed(
            name=name,
            description=desc if isinstance(desc, str) else None,
            schema=schema,
            strict=strict if strict.__class__ is bool else None,
            shape=shape,
            at=at,
        )
    raise ToolShapeError(f"no known tool shape has a name in this tool (keys: {sorted(tool)[:8]})")


def dotted(path: Any) -> str:
    return ".".join(map(str, path))


_BRIEF = reprlib.Repr()  # bounded at any nesting, where repr() of a deep field would recurse
_BRIEF.maxlevel, _BRIEF.maxstring, _BRIEF.maxother = 2, 40, 40


def brief(value: Any) -> str:
    """`value`'s repr, cut short (a field may hold a whole document)."""
    text = _BRIEF.repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def layout(shape: Any, source: Any = None) -> tuple[Any, ...]:
    """Where a shape puts a tool's parts, and its constant keys: a strict flag aside, two
    shapes with the same layout spell a tool alike. Of the constant keys of the shape a
    `source` tool was read by, only those it holds: a Gemini declaration (no `type`) read
    by the Responses shape (`type: function`, absent keys allowed) is laid out as Gemini's."""
    fixed = shape.get("fixed")
    if source is not None and fixed:
        fixed = {k: v for k, v in fixed.items() if k in source} or None
    return tuple(shape.get(k) for k in ("name", "description", "schema")) + (fixed,)


def type_name(obj: Any) -> str:
    kind = type(obj)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
