"""Tools and whole requests: find each schema, normalize it, rebuild the target's tool.

A tool's shape (where its name, description, schema and strict flag sit) is declared
by each rule file's `tool:` field; an incoming tool is read with whichever shipped shape
it matches (OpenAI Chat and Responses, Anthropic, Gemini, MCP, ...), so nothing here
names a provider.
"""

from __future__ import annotations

import copy
from typing import Any, Iterable, Sequence

import attrs

from .blobs import freeze, thaw
from .errors import SchemaInputError, WireschemaError
from .model import Change, Options, Result
from .names import NameMap, NameRule, wire_names
from .prepare import json_copy

_EMPTY = {"type": "object", "properties": {}}


class ToolShapeError(WireschemaError, ValueError):
    """A tool matches no known shape (no name where any wire puts one)."""


@attrs.frozen
class ToolResult:
    """One tool for one target: the native tool object and how its schema was made."""

    tool: dict[str, Any]
    result: Result
    name: str
    original_name: str


@attrs.frozen
class ToolsResult:
    """A list of tools for one target; `names` maps wire names back to original ones.

    `results[i]` says how `tools[i]` was made; it is None for entries that are not
    function tools (server tools, cache points), which pass through as given.
    """

    tools: tuple[dict[str, Any], ...]
    results: tuple[Result | None, ...]
    names: NameMap

    def __iter__(self):
        return iter(self.tools)

    def result_for(self, wire_name: str) -> Result:
        """The Result of the tool the model called by this wire name."""
        original = self.names.original(wire_name)
        wires = [w for w, o in self.names.items() if o == original]
        for tool, result in zip(self.tools, self.results):
            if result is not None and _name_of(tool) in wires:
                return result
        raise ToolShapeError(f"no tool named {wire_name!r} in this list")


@attrs.frozen
class _Parsed:
    name: str
    description: str | None
    schema: Any
    strict: bool | None
    shape: Any


def _get(obj: Any, path: Sequence[str]) -> Any:
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return _MISSING
        obj = obj[key]
    return obj


def _set(obj: dict, path: Sequence[str], value: Any) -> None:
    for key in path[:-1]:
        obj = obj.setdefault(key, {})
    obj[path[-1]] = value


_MISSING = object()


def _shapes(registry: Any) -> list[Any]:
    """Every shipped tool shape, most specific first (deeper schema paths, fixed keys)."""
    shapes = list(registry.tool_shapes())
    shapes.sort(key=lambda s: (-len(s["schema"]), -len(s.get("fixed", {})), -len(s)))
    return shapes


# tool entries that carry no schema of the caller's: server tools (Anthropic's
# web_search_..., code_execution_...), Bedrock cache points; they pass through as given
_FUNCTION_TYPES = (None, "function", "custom")


def is_function_tool(tool: Any) -> bool:
    return isinstance(tool, dict) and tool.get("type") in _FUNCTION_TYPES and "cachePoint" not in tool


def parse_tool(tool: Any, registry: Any) -> _Parsed:
    """Read a tool in any shipped shape (MCP's `title` stands in for a description)."""
    if not isinstance(tool, dict):
        raise ToolShapeError(f"a tool must be an object, got {type(tool).__name__}")
    shapes = _shapes(registry)
    for shape in shapes:
        fixed = shape.get("fixed", {})
        if any(k in tool and tool[k] != v for k, v in fixed.items()):
            continue
        name = _get(tool, shape["name"])
        if not isinstance(name, str):
            continue
        schema = _get(tool, shape["schema"])
        if schema is _MISSING:
            # another shape may hold the schema elsewhere under the same name path
            others = [s for s in shapes if s["name"] == shape["name"] and _get(tool, s["schema"]) is not _MISSING]
            if others:
                continue
            schema = copy.deepcopy(_EMPTY)
        desc = _get(tool, shape["description"]) if "description" in shape else _MISSING
        if desc is _MISSING and isinstance(tool.get("title"), str):
            desc = tool["title"]
        strict = _get(tool, shape["strict"]) if "strict" in shape else _MISSING
        return _Parsed(
            name=name,
            description=desc if isinstance(desc, str) else None,
            schema=schema,
            strict=strict if isinstance(strict, bool) else None,
            shape=shape,
        )
    raise ToolShapeError(f"no known tool shape has a name in this tool (keys: {sorted(tool)[:8]})")


def _layout(shape: Any) -> tuple:
    # a strict flag aside, two shapes put a tool's parts in the same places
    return tuple(shape.get(k) for k in ("name", "description", "schema")) + (shape.get("fixed"),)


def build_tool(parsed: _Parsed, target: Any, schema: Any, strict: bool, name: str, source: Any) -> dict:
    shape = target.tool
    # the same shape in and out: start from the caller's tool so fields wireschema does
    # not know (cache_control, annotations, ...) travel along
    same = parsed.shape is not None and _layout(parsed.shape) == _layout(shape)
    out = None
    if same:
        try:
            out = _copy_except(source, shape["schema"])
        except SchemaInputError:
            same = False  # fields beside the schema are not JSON: rebuild the tool from its parts
    if out is None:
        out = json_copy(dict(shape.get("fixed", {})))
    _set(out, shape["name"], name)
    if "description" in shape and parsed.description is not None and not same:
        _set(out, shape["description"], parsed.description)
    _set(out, shape["schema"], schema)
    if "strict" in shape:
        _set(out, shape["strict"], strict)
    return out


def _copy_except(tool: dict, path: Sequence[str]) -> dict:
    # the schema is replaced anyway: copying it would cost a walk, and a cyclic schema
    # (already a fallback) must not make its tool fail
    out = dict(tool)
    node = out
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            break
        node[key] = child = dict(child)
        node = child
    else:
        if path[-1] in node:
            node[path[-1]] = None  # keeps the key's place for _set
    return json_copy(out)


def _names(originals: list[str], target: Any) -> NameMap:
    # a wire without a name rule (MCP ingestion) keeps names as they are
    if not target.names:
        return NameMap.from_dict({n: n for n in originals})
    return wire_names(originals, NameRule.from_target(target))


def _fallback_result(target: Any, reason: str) -> Result:
    from .pipeline import fallback_result

    return fallback_result(target, reason, (Change("input/not-json", "", "fallback", reason),))


def normalize_tools(
    tools: Iterable[Any],
    target: Any,
    *,
    strict: bool | None = None,
    options: Options | None = None,
) -> ToolsResult:
    """Normalize a list of tools for one target; one bad tool falls back alone.

    Each tool's own `strict` flag, where its shape has one, asks for strict mode unless
    `strict` overrides it; the rebuilt tool says the strictness actually reached.
    Names are rewritten to the wire's name rule and made unique; `names` maps back.
    """
    from . import _memo, _registry, _target, _uncached

    t = _target(target)
    registry = t.registry if t.registry is not None else _registry()
    given = list(tools)
    schema_path = t.tool.get("schema") if t.tool else None
    if schema_path is None or _uncached():
        return _normalize_tools(given, t, registry, strict, options)
    opts = options or Options()
    # a repeated request is one entry: its tools, results and names come back at once
    key = ("tools", t.digest, t.name, t.path, registry.shapes_key(), strict, attrs.astuple(opts))
    return _memo.memoize(
        key,
        given,
        lambda: _normalize_tools(given, t, registry, strict, options),
        _freeze_tools,
        lambda stored: _thaw_tools(stored, schema_path),
    )


def _freeze_tools(out: ToolsResult, _blob: bytes) -> tuple[ToolsResult, Any, int]:
    tools_blob = freeze(list(out.tools))
    if tools_blob is None:
        return out, None, 0
    bare = tuple(r if r is None else attrs.evolve(r, schema=None) for r in out.results)
    return out, (tools_blob, bare, out.names), len(tools_blob)


def _thaw_tools(stored: Any, schema_path: Any) -> ToolsResult:
    tools_blob, bare, names = stored
    tools = thaw(tools_blob)
    results = tuple(
        # the tool holds its result's schema, as on the first call
        r if r is None else attrs.evolve(r, schema=_get(tool, schema_path), notes=dict(r.notes))
        for tool, r in zip(tools, bare)
    )
    return ToolsResult(tuple(tools), results, names)


def _normalize_tools(given: list, t: Any, registry: Any, strict: bool | None, options: Options | None) -> ToolsResult:
    from . import normalize

    # entries that are not function tools stay where they are, untouched
    keep = [i for i, tool in enumerate(given) if isinstance(tool, dict) and not is_function_tool(tool)]
    items = [tool for i, tool in enumerate(given) if i not in keep]
    parsed: list[_Parsed | None] = []
    for i, tool in enumerate(items):
        try:
            parsed.append(parse_tool(tool, registry))
        except ToolShapeError:
            parsed.append(None)
    originals = [p.name if p is not None else f"tool_{i}" for i, p in enumerate(parsed)]
    names = _names(originals, t)
    out_tools: list[tuple[_Parsed, int]] = []
    results: list[Result] = []
    for i, p in enumerate(parsed):
        original = originals[i]
        if p is None:
            result = _fallback_result(t, f"tool {i} matches no known tool shape")
            p = _Parsed(original, None, result.schema, None, None)
        else:
            want = strict if strict is not None else p.strict
            try:
                result = normalize(p.schema, t, strict=want, options=options)
            except SchemaInputError as exc:
                result = _fallback_result(t, str(exc))
        results.append(result)
        out_tools.append((p, i))
    _check_tool_count(t, len(items))
    results = _strict_budget(t, [p for p, _ in out_tools], results, options)
    built = [build_tool(p, t, r.schema, r.strict, names.wire(originals[i]), items[i]) for (p, i), r in zip(out_tools, results)]
    aligned: list[Result | None] = list(results)
    for i in keep:
        built.insert(i, json_copy(given[i]))
        aligned.insert(i, None)
    return ToolsResult(tuple(built), tuple(aligned), names)


def _name_of(tool: dict) -> Any:
    for path in (("name",), ("function", "name"), ("toolSpec", "name")):
        value = _get(tool, path)
        if isinstance(value, str):
            return value
    return None


_BUDGETS = (
    ("max_strict_tools", "strict tools"),
    ("max_optional_params", "optional parameters"),
    ("max_union_params", "parameters with a union type"),
    ("max_total_properties", "properties"),
)


def _strict_budget(target: Any, parsed: list[_Parsed], results: list[Result], options: Any) -> list[Result]:
    """Keep strict tools within the request's strict budget, in request order.

    A strict tool that would take the request over a budget is sent non-strict
    (normalized again with strict=False); a later, smaller tool may still fit.
    """
    from . import normalize

    limits = {k: target.request_limits[k] for k, _ in _BUDGETS if k in target.request_limits}
    if not limits:
        return results
    used = dict.fromkeys(limits, 0)
    out = []
    for p, result in zip(parsed, results):
        if not result.strict:
            out.append(result)
            continue
        cost = _strict_cost(result.schema)
        over = [k for k in limits if used[k] + cost[k] > limits[k]]
        if not over:
            for k in limits:
                used[k] += cost[k]
            out.append(result)
            continue
        relaxed = normalize(p.schema, target, strict=False, options=options)
        what = ", ".join(f"{dict(_BUDGETS)[k]} over {limits[k]}" for k in over)
        change = Change("request/strict-budget", "", "rewritten", f"sent non-strict: the request's strict budget ({what}) is spent")
        out.append(attrs.evolve(relaxed, changes=(change, *relaxed.changes)))
    return out


def _strict_cost(schema: Any) -> dict[str, int]:
    """What one strict schema spends of each budget: itself, its optional and union
    parameters, its properties (counted over every object, nested ones included)."""
    from .passes.counts import count_properties

    optional, unions, props = count_properties(schema)
    return {"max_strict_tools": 1, "max_optional_params": optional, "max_union_params": unions, "max_total_properties": props}


def normalize_tool(tool: Any, target: Any, *, strict: bool | None = None, options: Options | None = None) -> ToolResult:
    """Normalize one tool (any common shape) into the target's native tool object."""
    from . import _registry, _target, normalize

    t = _target(target)
    p = parse_tool(tool, t.registry if t.registry is not None else _registry())
    want = strict if strict is not None else p.strict
    result = normalize(p.schema, t, strict=want, options=options)
    name = _names([p.name], t).wire(p.name)
    return ToolResult(build_tool(p, t, result.schema, result.strict, name, tool), result, name, p.name)


def normalize_mcp_tool(tool: Any, *, options: Options | None = None) -> ToolResult:
    """Ingest an MCP tool: its `inputSchema` must describe an object (else it falls back)."""
    return normalize_tool(tool, "mcp", options=options)


class RequestLimitError(WireschemaError, ValueError):
    """A request breaks a hard limit of the wire (too many tools), which no rewrite fixes."""


@attrs.frozen
class RequestResult:
    """A request body with every tool list and output schema normalized (a copy)."""

    body: Any
    tools: tuple[ToolsResult, ...]
    outputs: tuple[Result, ...]

    @property
    def names(self) -> NameMap:
        """Wire name -> original name, over every tool list of the request."""
        pairs: dict[str, str] = {}
        for group in self.tools:
            pairs.update(dict(group.names.items()))
        return NameMap.from_dict(pairs)


def normalize_request(body: Any, target: Any, *, options: Options | None = None) -> RequestResult:
    """Normalize every schema of a provider request body, found by the rule file's `locate`.

    `locate.tools` finds tool lists (normalized as `normalize_tools`, names made unique
    across the request), `locate.outputs` output schemas (normalized as
    `normalize_output`; a `strict` flag beside the schema asks for strict mode and is
    rewritten to what was reached). The caller's body is not mutated.
    """
    from . import _target
    from .outputs import normalize_output
    from .ruletable import jsonpath

    t = _target(target)
    out = json_copy(body)
    groups = []
    for path in t.locate.get("tools", ()):
        for datum in jsonpath(path).find(out):
            if isinstance(datum.value, list):
                group = normalize_tools(datum.value, t, options=options)
                datum.value[:] = list(group.tools)
                groups.append(group)
    _check_tool_count(t, sum(len(g.tools) for g in groups))
    outputs = []
    for path in t.locate.get("outputs", ()):
        for datum in jsonpath(path).find(out):
            parent = datum.context.value if datum.context is not None else None
            key = getattr(datum.path, "fields", (None,))[0]
            if not isinstance(parent, dict) or key not in parent:
                continue
            asked = parent.get("strict") if isinstance(parent.get("strict"), bool) else None
            result = normalize_output(datum.value, t, strict=asked, options=options)
            parent[key] = result.schema
            if "strict" in parent:
                parent["strict"] = result.strict
            outputs.append(result)
    return RequestResult(out, tuple(groups), tuple(outputs))


def _check_tool_count(target: Any, count: int) -> None:
    limit = target.request_limits.get("max_tools")
    if limit is not None and count > limit:
        raise RequestLimitError(f"{count} tools in one request; {target.name} takes at most {limit}")
