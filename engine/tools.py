"""Tools and whole requests: find each schema, normalize it, rebuild the target's tool.

A tool's shape (where its name, description, schema and strict flag sit, the other
spellings an SDK uses, which entries of a tool list are no tools of the caller's) is
declared by each rule file's `tool:` field; an incoming tool is read with whichever
shipped shape it matches (OpenAI Chat and Responses, Anthropic, Gemini, MCP, ...), so
nothing here names a provider.

Besides dicts, a tool may be an SDK or pydantic object (anything with `model_dump`,
dumped by alias without None fields, as the SDK sends it), a typed Python function or
a pydantic model, dataclass or TypedDict class (see `native.python_tool`); a tool list
may also be an MCP `tools/list` result, as a model or as a dict.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence, Union

import attrs

from .blobs import freeze_entry
from .budgets import strict_budget
from .cache import collector_paused
from .errors import RequestLimitError, SchemaInputError, ToolShapeError, UnknownToolNameError
from .model import Change, Options, Result, options_key, options_of
from .names import NameMap, NameRule, assign_wire_names, says_name, wire_name
from .native import dump as _dump
from .native import has_dump as _has_dump
from .native import field_of, is_python_tool, python_tool, replaced
from .positions import pointer
from .prepare import json_copy, mended_text, mended_tree, nested_past
from .toolshapes import (
    MISSING, Parsed, Reading, dotted, layout, lookup, parse_tool, registry_of, shape_paths, tool_reading, type_name,
)
from .toolrepeat import without_repeat

if TYPE_CHECKING:
    from .ruletable import Target

__all__ = [
    "ToolResult",
    "ToolsResult",
    "RequestResult",
    "normalize_tool",
    "normalize_tools",
    "normalize_mcp_tool",
    "normalize_request",
    "parse_tool",
    "is_function_tool",
    "ToolShapeError",
    "RequestLimitError",
]

TargetLike = Union[str, "Target"]

# a wire without a name rule (MCP ingestion) keeps names as given, made unique only
_FREE_NAMES = NameRule(max_bytes=2**31)


@attrs.frozen
class ToolResult:
    """One tool for one target: the native tool object and how its schema was made."""

    tool: dict[str, Any]
    result: Result
    name: str
    """The name on the wire."""
    original_name: str


@attrs.frozen
class _Unmade:
    """The results of a cache hit, not made yet: each stored bare result with the schema
    its thawed tool holds when they are made."""

    bare: tuple[Result | None, ...]
    tools: tuple[dict[str, Any], ...]
    paths: tuple[Any, ...]
    losing: tuple[int, ...]  # the tools that lost something (see `ToolsResult._losing`)

    def make(self) -> tuple[Result | None, ...]:
        return tuple(r if r is None else r.with_schema(lookup(t, p)) for r, t, p in zip(self.bare, self.tools, self.paths))


def _made(results: Any) -> tuple[Result | None, ...]:
    return results.make() if isinstance(results, _Unmade) else results


# made or not, two tool lists' results compare by the Results they are
_SAME_RESULTS = attrs.cmp_using(eq=lambda a, b: _made(a) == _made(b), require_same_type=False)


@attrs.frozen(repr=False)
class ToolsResult:
    """A list of tools for one target; `names` maps wire names back to original ones.

    `results[i]` says how `tools[i]` was made; it is None for entries that are not
    function tools (server tools, cache points), which pass through as given.
    `wire_names[i]` is the name `tools[i]` carries on the wire (None for those).
    """

    tools: tuple[dict[str, Any], ...]
    # a repeated request's results are made when first asked for: most requests only
    # send `tools`, and a hundred Results are a fifth of a hit (see `_thaw_tools`)
    _results: tuple[Result | None, ...] | _Unmade = attrs.field(alias="results", eq=_SAME_RESULTS)
    names: NameMap
    wire_names: tuple[str | None, ...] = ()
    # where each tool holds its schema (the caller's spelling, where the shape was kept)
    _schema_paths: tuple[Any, ...] = attrs.field(default=(), repr=False, eq=False)
    changes: tuple[Change, ...] = ()
    """What was done to the list beside its tools: another wire's own tool the target's
    lists do not take, dropped where the caller asked (`request/untranslatable`)."""

    @property
    def results(self) -> tuple[Result | None, ...]:
        made = self._results
        if isinstance(made, _Unmade):
            # two threads may both make them; either tuple holds equal results
            made = made.make()
            object.__setattr__(self, "_results", made)
        return made

    def _outcomes(self) -> tuple[Result | None, ...]:
        """What each tool lost, without making a hit's results: their bare forms say it."""
        made = self._results
        return made.bare if isinstance(made, _Unmade) else made

    def _losing(self) -> tuple[int, ...]:
        """The indexes of the tools that lost their schema or strictness: a hit's were
        found when its entry was stored, and every hit logs them."""
        made = self._results
        if isinstance(made, _Unmade):
            return made.losing
        from . import _lost

        return tuple(i for i, result in enumerate(made) if result is not None and _lost(result))

    def __repr__(self) -> str:
        return (f"ToolsResult(tools={self.tools!r}, results={self.results!r}, names={self.names!r}, "
                f"wire_names={self.wire_names!r}, changes={self.changes!r})")

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.tools)

    def result_for(self, wire_name: str) -> Result:
        """The Result of the tool the model called by this wire name.

        Every wire name is one tool's (repeated names were made unique), so this is
        exact; a name no tool of the list carries raises `UnknownToolNameError`.
        """
        for wire, result in zip(self.wire_names, self.results):
            if result is not None and wire == wire_name:
                return result
        raise UnknownToolNameError(wire_name, "wire", (w for w in self.wire_names if w is not None))


def _set(obj: dict[str, Any], path: Sequence[str], value: Any) -> None:
    for key in path[:-1]:
        child = obj.get(key)
        if not isinstance(child, dict):
            child = obj[key] = {}  # a null (or any non-object) holder is replaced
        obj = child
    obj[path[-1]] = value


def group_key(entry: Any, registry: Any = None) -> str | None:
    """The key under which `entry` holds a group of tools (a Gemini `Tool` holding its
    declarations: what the rule files' `tool.groups` say), or None."""
    from . import _registry

    return tool_reading(registry if registry is not None else _registry()).group_of(entry)


def grouped_tools(entry: Any, registry: Any = None) -> tuple[str, list[Any]] | None:
    """Where `entry` is a group of tools, the key it holds them under and the tools; None
    for any other entry. A group holding anything beside them is a ToolShapeError, as
    `normalize_tools` says of one."""
    key = group_key(entry, registry)
    return None if key is None else (key, _group_tools(entry, key))


def is_function_tool(tool: Any, registry: Any = None) -> bool:
    """False for entries of a tool list that carry no schema of the caller's (server
    tools, cache points: what the rule files' `tool.kinds` and `tool.passthrough` say)."""
    from . import _registry

    return tool_reading(registry if registry is not None else _registry()).is_function_tool(tool)


def build_tool(
    parsed: Parsed, target: Any, schema: Any, strict: bool, name: str, source: Any, options: Options | None = None,
    *, say_name: bool = False,
) -> tuple[dict[str, Any], tuple[Change, ...]]:
    """The tool as the target's wire takes it, and the changes made beside its schema:
    the caller's other fields dropped where they are not JSON, a description mended
    where no UTF-8 text holds it (see `prepare.mended_text`) or saying the caller's
    name where `say_name` (the wire name no longer spells it), its own output schemas
    normalized (`tool.outputs`), the fields another wire's shape leaves behind."""
    shape = target.tool
    # the same shape in and out: start from the caller's tool so fields wireschema does
    # not know (cache_control, annotations, ...) travel along, at the caller's spelling
    same = parsed.shape is not None and layout(parsed.shape, source) == layout(shape)
    at: Mapping[str, tuple[str, ...]] = parsed.at if same else {}
    out = None
    changes: list[Change] = []
    unread = False  # the caller's fields beside the schema could not be read at all
    if same:
        try:
            out = _copy_except(source, at.get("schema", shape["schema"]))
            if "takes" in shape:
                # a strict flag that says otherwise than the strictness reached, or null, is said below
                said = "strict" not in shape and (parsed.strict is None or parsed.strict != strict)
                gone = _untaken(out, shape["takes"], at.get("strict") if said else None)
                if gone:
                    changes.append(_not_sent("the tool's", gone, target))
            # the fields that travel along (an MCP tool's annotations, say) are JSON a
            # wire must be able to send too, within the budgets a schema is held to;
            # name, description, schema and the output schemas are mended, or judged, below
            apart = {tuple(p) for p in at.values()} | {tuple(shape["schema"])} | {tuple(p) for p in shape.get("outputs", ())}
            mended = mended_tree(out, apart, options_of(options))
        except SchemaInputError as exc:
            # fields beside the schema are not JSON, or past a budget: the tool is rebuilt from its parts
            same, at, unread, out = False, {}, True, None
            changes.append(Change("tool/fields", "", "dropped", f"the tool's fields beside its schema cannot be sent ({exc}): it is sent with its name, description and schema alone"))
        else:
            changes += [Change("tool/text", "", "rewritten", f"the tool's {said}") for said in mended]
    if out is None:
        out = json_copy(dict(shape.get("fixed", {})))
    _set(out, at.get("name", shape["name"]), name)
    say_name = say_name and "description" in shape
    if "description" in shape and (parsed.description is not None or say_name):
        said = _with_name(parsed.description, parsed.name) if say_name else parsed.description
        text, mended = mended_text(said, "the tool's description")
        if mended is not None:
            changes.append(Change("tool/text", "", "rewritten", mended))
        if mended is not None or say_name or not same:
            _set(out, at.get("description", shape["description"]), text)
    if shape.get("no_empty_description") and lookup(out, at.get("description", shape["description"])) == "":
        _unset(out, at.get("description", shape["description"]))
        changes.append(Change("tool/shape", "", "dropped", f"the tool's description is empty: not sent, as {target.name} takes none shorter than one character"))
    _set(out, at.get("schema", shape["schema"]), schema)
    if "strict" in shape and not strict and shape.get("strict_only_true"):
        if lookup(out, at.get("strict", shape["strict"])) is not MISSING:
            _unset(out, at.get("strict", shape["strict"]))
            said = "" if parsed.strict is None else f" (saying {str(parsed.strict).lower()})"
            changes.append(Change("tool/shape", "", "dropped", f"the tool's strict flag{said}: not sent, as {target.name} takes it only where strict mode is reached"))
    elif "strict" in shape:
        _set(out, at.get("strict", shape["strict"]), strict)
    elif same and parsed.strict is not None and (parsed.strict != strict or shape.get("refuses_strict")) and "strict" in at:
        # the caller's flag, on a wire whose tool has no place for one, says otherwise than the
        # strictness reached (strict asked where there is none), or is refused by its presence:
        # sent, it would say what the Result denies (and Gemini's proto refuses the field)
        _unset(out, at["strict"])
        changes.append(_not_sent("the tool's", [dotted(at["strict"])], target, f" (saying {str(parsed.strict).lower()})"))
    if same:
        changes.extend(_nulls_dropped(out, {tuple(at.get("schema", shape["schema"])), *map(tuple, shape.get("outputs", ()))}))
        for path in shape.get("outputs", ()):
            held = lookup(out, path)
            if held is not MISSING and held is not None:
                changes.extend(_output_normalized(out, path, held, target, options))
    carried: tuple[str, ...] | None = None
    if not same and not unread and source is not None and parsed.shape is not None:
        carried, moved = _output_carried(source, parsed, out, target, options)
        changes.extend(moved)
        left = _left_behind(source, parsed, out, carried)
        if left:
            changes.append(_not_sent("the tool's", left, target))
    return out, tuple(changes)


def _untaken(out: dict[str, Any], takes: Sequence[tuple[str, ...]], spare: Sequence[str] | None) -> list[str]:
    """Remove from a tool kept in its shape each field its wire's tool takes no place for
    (`tool.takes`, and `spare`); their dotted paths, sorted."""
    taken = {*takes, tuple(spare)} if spare else set(takes)
    gone = list(_fields_beside(out, taken))
    for _path, node, key in gone:
        del node[key]
    return sorted(dotted(path) for path, _node, _key in gone)


def _fields_beside(tool: dict[str, Any], taken: set[tuple[str, ...]]) -> Iterator[tuple[tuple[str, ...], dict[str, Any], str]]:
    """Each field of `tool` at none of the paths `taken`, nor a mapping on the way to one
    (which is entered): its path, the mapping holding it and its key."""
    within = {path[:i] for path in taken for i in range(1, len(path))}
    return _fields(tool, lambda path, value: path not in taken, lambda path, value: path in within and isinstance(value, dict))


def _fields(tool: dict[str, Any], keep: Callable[[tuple[str, ...], Any], bool], enter: Callable[[tuple[str, ...], Any], bool],
            ) -> Iterator[tuple[tuple[str, ...], dict[str, Any], str]]:
    """Each field of `tool` that `keep` takes and that is not entered (a mapping `enter`
    takes, whose fields come after its level's): its path, the mapping holding it and
    its key. A caller may delete the field it is given."""
    stack: list[tuple[tuple[str, ...], dict[str, Any]]] = [((), tool)]
    while stack:
        prefix, node = stack.pop()
        for key in list(node):
            path, value = (*prefix, key), node[key]
            if not keep(path, value):
                continue
            if enter(path, value):
                stack.append((path, value))
            else:
                yield path, node, key


def _nulls_dropped(out: dict[str, Any], schemas: set[tuple[str, ...]]) -> list[Change]:
    """A null field of a tool kept in its shape is one left unset, as the wire's reader
    takes it (proto JSON; the MCP and pydantic SDKs send none, and boto3 refuses one): a
    dumped SDK model (`FunctionDeclaration.model_dump()`) writes every unset field so.
    Each dropped, said, at any depth through mappings, but not within the `schemas`
    (normalized as schemas) or a list (an example call's null argument is a value)."""
    changes = []
    nulls = _fields(out, lambda path, value: value is None or (value.__class__ is dict and path not in schemas),
                    lambda path, value: value.__class__ is dict)
    for path, node, key in nulls:
        del node[key]
        changes.append(Change("tool/shape", "", "dropped", f"the tool's {dotted(path)} is null, which says none: not sent"))
    return changes


def _not_sent(whose: str, fields: Sequence[str], target: Any, aside: str = "") -> Change:
    """The one `tool/shape` change naming the fields of a tool that `target`'s tool has no place for."""
    verb = "has" if len(fields) == 1 else "have"
    return Change("tool/shape", "", "dropped", f"{whose} {', '.join(fields)}{aside} {verb} no place in {target.name}'s tool: not sent")


def _output_normalized(
    out: dict[str, Any], path: tuple[str, ...], held: Any, target: Any, options: Options | None, read_at: tuple[str, ...] | None = None,
) -> list[Change] | None:
    """A schema of the tool's own output (`tool.outputs`) normalized at `path`, as the
    target's structured output is but never wrapped (no one unwraps what a tool
    returns); its changes as the tool's, saying where. `read_at`: where the caller's
    tool held it, when carried from another field (see `_output_carried`); None when
    such a one would be sent as the target's fallback."""
    from .outputs import _normalize_output_quiet

    where = dotted(path)
    try:
        result = _normalize_output_quiet(held, target, options=options, wrap_allowed=False)
    except SchemaInputError as exc:
        # the tool's other fields were copied, not judged: one that is no JSON Schema's
        # JSON is not sent, and the tool list goes on
        if read_at is None:
            _unset(out, path)
        return [Change("tool/output", "", "dropped", f"{dotted(read_at or path)} is not JSON ({exc}): not sent")]
    if read_at is not None and result.used_fallback:
        # a stand-in (MCP's open object for a string result) would declare an output
        # the tool does not make: left behind, as a wire with no such field leaves it
        return None
    _set(out, path, result.schema)
    return [Change("tool/output", "", c.action, f"{where} at {c.pointer or '/'}: {c.detail} ({c.rule})") for c in result.changes]


def _unset(obj: dict[str, Any], path: Sequence[str]) -> None:
    for key in path[:-1]:
        obj = obj[key]
    del obj[path[-1]]


def _output_carried(
    source: dict[str, Any], parsed: Parsed, out: dict[str, Any], target: Any, options: Options | None,
) -> tuple[tuple[str, ...] | None, list[Change]]:
    """A tool rebuilt in another wire's shape carries its own output schema (a Gemini
    declaration's `responseJsonSchema`, read in gemini-jsonschema's shape) to this wire's
    output field (`response`), normalized there as its parameters are: the first output
    field (`tool.outputs`) the caller's tool holds of any shape that reads its name and
    schema where they were read (`{name, parameters, response}` reads as a Responses
    tool and as a Gemini declaration alike), and where it was read (None: none carried;
    a second spelling beside it stays behind, said by `_left_behind`)."""
    into = target.tool.get("outputs", ())
    if not into:
        return None, []
    name, schema = parsed.at.get("name"), parsed.at.get("schema")
    registry = registry_of(target)
    shapes = [s for s in tool_reading(registry).shapes if name in shape_paths(s, "name") and schema in shape_paths(s, "schema")]
    for path in dict.fromkeys(p for s in shapes for p in s.get("outputs", ())):
        held = lookup(source, path)
        if held is MISSING or held is None:
            continue
        changes = _output_normalized(out, into[0], held, target, options, path)
        if changes is None:
            return None, []
        if lookup(out, into[0]) is not MISSING:
            changes.insert(0, Change("tool/output", "", "rewritten", f"{dotted(path)} is sent as {dotted(into[0])}, {target.name}'s field for it"))
        return path, changes
    return None, []


def _left_behind(source: dict[str, Any], parsed: Parsed, out: dict[str, Any], carried: tuple[str, ...] | None = None) -> list[str]:
    """The fields of the caller's tool (dotted paths) that a tool of another shape does
    not carry: neither read as its name, description, schema or strict flag, nor a
    kind marker of its shape, nor an output schema carried over (`carried`), nor the same
    in the tool made; a null field holds nothing."""
    shape = parsed.shape
    read = {*map(tuple, parsed.at.values()), *((k,) for k in shape.get("fixed", {})), *((k,) for k in shape.get("kinds", {}))}
    if carried is not None:
        read.add(carried)
    left = []
    for path, node, key in _fields_beside(source, read):
        value = node[key]
        # only a scalar is compared (`type: function`): a container beside the schema
        # may hold a subtree very many times over, which == would walk each time
        if value is None or (value.__class__ is not dict and value.__class__ is not list and lookup(out, path) == value):
            continue
        left.append(dotted(path))
    return sorted(left)


def _shaped_by(target: Any, result: Result) -> Any:
    """The target whose tool shape sends `result`: the one that ran (a strict variant)
    where the target asked for has no strict flag to write, so that a tool run strict
    says so on the wire (openai-chat asked for a strict tool runs openai-strict)."""
    if "strict" in target.tool or result.target == target.name:
        return target
    ran = target.related(result.target)
    return ran if ran is not None and "strict" in ran.tool and layout(ran.tool) == layout(target.tool) else target


def _copy_except(tool: dict[str, Any], path: Sequence[str]) -> dict[str, Any]:
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
    copied: dict[str, Any] = json_copy(out)
    return copied


# ---------------------------------------------------------------------------
# what callers hold: SDK objects, Python functions and classes, tools/list results


def _tool_dict(item: Any, where: str, target: Any) -> tuple[Any, tuple[Change, ...]]:
    """One item a caller holds as a tool dict, and what reading it left out (a
    framework object's own attributes); ToolShapeError, naming `where`, for anything
    that is no tool."""
    if isinstance(item, dict):
        return item, ()
    from .toolobjects import read_object

    # a class rules/_objects.yaml names first: its dump may hold no schema (a LangChain
    # tool's holds the pydantic class its schema is made from, and its callbacks)
    read = read_object(item, where)
    if isinstance(read, dict):
        return read, ()
    if read is not None:
        left = (_not_sent(f"the {read.of}'s", read.left, target, ", its framework's own,"),) if read.left else ()
        try:
            schema, once, unsent = read.schema_sent()
        except SchemaInputError:
            # a schema pydantic cannot describe: its tool falls back alone, as normalizing it says
            schema, once, unsent = read.schema, (), ()
        if once:
            said = " and ".join("name (its title)" if k == "title" else k for k in once)
            told = f"the {read.of}'s schema says the tool's {said} again at its root: sent once, in the tool"
            left += (Change("tool/shape", "", "dropped", told),)
        if unsent:
            told = f"the {read.of}'s schema's {', '.join(unsent)} at its root: not sent, as its framework sends only {', '.join(read.root or ())}"
            left += (Change("tool/shape", "", "dropped", told),)
        return _in_shape(target, read.name, read.description, schema, read.strict), left
    if _has_dump(item):
        try:
            dumped = _dump(item)
        except Exception as exc:  # the SDK's own serializer failed: say which object
            raise ToolShapeError(f"{where} ({type_name(item)}) cannot be dumped to JSON: {exc}") from None
        if not isinstance(dumped, dict):
            raise ToolShapeError(f"{where} ({type_name(item)}) dumps to {type(dumped).__name__}, not a tool object")
        _refuse_a_schema_elsewhere(dumped, item, where, target)
        return dumped, ()
    if is_python_tool(item):
        try:
            made = python_tool(item)
        except SchemaInputError as exc:
            raise SchemaInputError(f"{where}: {exc}") from None
        told = () if made.unnamed is None else (Change(
            "tool/shape", "", "dropped",
            f"the function's {made.unnamed} is no parameter of the tool: a call passes its arguments by name, "
            "and no name reaches it"),)
        told += tuple(Change(
            "tool/shape", "", "dropped",
            f"the function's {said} is no parameter of the tool: its framework passes it, never the model "
            "(rules/_objects.yaml, injected)") for said in made.injected)
        told += tuple(Change(
            "tool/shape", pointer(("properties", name)), "kept",
            f"the function's parameter {name} has no type annotation: it takes any value") for name in made.untyped)
        returns = made.returns if target.tool.get("returns") and target.tool.get("outputs") else None
        if isinstance(returns, str):
            told += (Change("tool/shape", "", "dropped", f"the function's return annotation has no JSON Schema ({returns}): no output schema sent"),)
            returns = None
        return _in_shape(target, made.name, made.description, made.schema, output=returns), told
    raise ToolShapeError(
        f"{where} is {type_name(item)}: a tool is a dict, an SDK or pydantic object (model_dump), "
        "a framework's tool object that rules/_objects.yaml names, "
        "a typed function or a pydantic model, dataclass or TypedDict class"
    )


def _refuse_a_schema_elsewhere(dumped: dict[str, Any], item: Any, where: str, target: Any) -> None:
    """An object whose dump has no parameters schema where its shape keeps one, but holds
    a schema in a field no shape reads (pydantic dumps a framework's `type[BaseModel]`
    field as its JSON Schema): refused, where it would have gone out as a tool with an
    empty schema. A framework's class is read right by an entry in rules/_objects.yaml."""
    registry = registry_of(target)
    try:
        parsed = parse_tool(dumped, registry)
    except ToolShapeError:
        return  # no tool of any shape: the caller's parse says so
    if "schema" in parsed.at:
        return
    # what the tool's parts are read from, and any shape's output schemas (a Gemini
    # declaration that takes no parameters may still say what it returns)
    read = {path[0] for path in parsed.at.values()}
    read.update(path[0] for shape in tool_reading(registry).shapes for path in shape.get("outputs", ()) if path)
    held = [k for k, v in dumped.items() if k not in read and isinstance(v, dict) and _looks_like_a_schema(v)]
    if held:
        raise ToolShapeError(
            f"{where} ({type_name(item)}) dumps to a tool with no parameters schema, but its {held[0]} holds one: "
            "name its class in rules/_objects.yaml (the attributes holding its name, description and schema), "
            "or give the tool as a dict"
        )


def _looks_like_a_schema(value: dict[str, Any]) -> bool:
    return value.get("type") == "object" or isinstance(value.get("properties"), dict)


def _tool_list(tools: Any, registry: Any) -> list[Any]:
    """What `normalize_tools` was given, as a list of items."""
    if not isinstance(tools, (list, tuple, dict)):
        from .toolobjects import collected_tools, dumped_object

        held = collected_tools(tools, "the tools")
        if held is not None:
            return held  # a LangChain toolkit, a pydantic-ai toolset
        dumped = dumped_object(tools, "the tools")
        if dumped is not None:
            tools = dumped  # a Vertex AI SDK Tool, say
        elif _has_dump(tools):
            try:
                tools = _dump(tools)  # an MCP ListToolsResult, or a Gemini Tool, say
            except Exception as exc:  # the SDK's own serializer failed, as `_tool_dict` says of one tool
                raise ToolShapeError(f"the tools ({type_name(tools)}) cannot be dumped to JSON: {exc}") from None
    if isinstance(tools, dict):
        wrapped = tools.get("result")
        inner: dict[str, Any] = wrapped if isinstance(wrapped, dict) else tools
        if isinstance(inner.get("tools"), list):
            return list(inner["tools"])  # a tools/list result (or its JSON-RPC response)
        key = tool_reading(registry).group_of(tools)
        if key is not None:
            return _split_group(tools, key)
        raise ToolShapeError(
            "normalize_tools takes a list of tools or a tools/list result ({'tools': [...]}), "
            f"got a dict with keys {sorted(map(str, tools))[:8]}; use normalize_tool for one tool"
        )
    if isinstance(tools, (str, bytes, bytearray)) or not isinstance(tools, Iterable):
        raise ToolShapeError(f"normalize_tools takes a list of tools, got {type_name(tools)}")
    return list(tools)


def _group_tools(entry: dict[str, Any], key: str) -> list[Any]:
    """The tools one entry holds under `key`, where it holds nothing else (another tool
    beside them would have no place in the list that comes back)."""
    held = entry[key]
    if not isinstance(held, list):
        raise ToolShapeError(f"{key} must be a list of tools, got {type_name(held)}")
    others = sorted(str(k) for k, v in entry.items() if k != key and v is not None)
    if others:
        raise ToolShapeError(
            f"this entry holds tools under {key!r} and {others[:8]} beside them: pass the list under "
            f"{key!r} to normalize_tools, or the whole request to normalize_request"
        )
    return list(held)


def _split_group(entry: dict[str, Any], key: str) -> list[Any]:
    """A group's other parts (a Gemini Tool's `googleSearch`), as one entry where the group
    stands, then the tools it holds: what python-genai sends the group as, read apart."""
    held = entry[key]
    if not isinstance(held, list):
        raise ToolShapeError(f"{key} must be a list of tools, got {type_name(held)}")
    rest = {k: v for k, v in entry.items() if k != key and v is not None}
    return [rest, *held] if rest else list(held)


def _uncollected(items: list[Any]) -> tuple[list[Any], list[str]]:
    """A list holding collections of tools (a LangChain toolkit, a pydantic-ai toolset)
    as the tools they hold, where each stands; and where each item is in the caller's
    list, for what is said of it (`tool 1`, `tool 0's tool 2`)."""
    from .toolobjects import collected_tools

    out: list[Any] = []
    places: list[str] = []
    for i, item in enumerate(items):
        held = None if item.__class__ is dict else collected_tools(item, f"tool {i}")
        if held is None:
            out.append(item)
            places.append(f"tool {i}")
        else:
            out.extend(held)
            places.extend(f"tool {i}'s tool {j}" for j in range(len(held)))
    return out, places


def _ungrouped(
    given: list[Any], told: Mapping[int, tuple[Change, ...]], reading: Reading
) -> tuple[list[Any], Mapping[int, tuple[Change, ...]]]:
    """A list holding groups of tools (python-genai's `config.tools`, Gemini `Tool`s
    each holding declarations) as the tools they hold, in order, beside the list's other
    entries: what the groups send, one list of declarations, which no wire tells apart
    from the same declarations grouped otherwise. Taken here, past the cache's key: a
    warm list pays nothing for it."""
    keys = [reading.group_of(tool) for tool in given]
    if not any(keys):
        return given, told
    flat: list[Any] = []
    moved: dict[int, tuple[Change, ...]] = {}
    for i, (tool, key) in enumerate(zip(given, keys)):
        if key is None:
            if i in told:
                moved[len(flat)] = told[i]
            flat.append(tool)
            continue
        try:
            flat.extend(_split_group(tool, key))
        except ToolShapeError as exc:
            raise ToolShapeError(f"tool {i}: {exc}") from None
    return flat, moved


def _grouped(where: str, entry: dict[str, Any], key: str, remedy: str) -> ToolShapeError:
    held = entry[key]
    count = f" ({len(held)} of them)" if isinstance(held, list) else ""
    return ToolShapeError(f"{where} holds a list of tools under {key!r}{count}, not one tool: {remedy}")


def _need_shape(t: Any) -> None:
    if not t.tool:
        raise ToolShapeError(f"target {t.name} declares no tool shape (a rule file's tool: field)")


# ---------------------------------------------------------------------------
# names


def _name_rule(target: Any) -> NameRule:
    return NameRule.from_target(target) if target.names and target.names.get("rename", True) else _FREE_NAMES


def _advised(target: Any, name: str) -> Change | None:
    """A name sent as it is though the rule a wire only advises (`names.rename: false`)
    refuses it: said, never renamed."""
    if not target.names or target.names.get("rename", True):
        return None
    rule = NameRule.from_target(target)
    if rule.valid(name):
        return None
    chars = f" of {rule.allowed}" if rule.allowed else ""
    return Change("tool/name", "", "kept", f"tool name {name!r} sent as it is, though {target.name} advises 1 to {rule.max_bytes} bytes{chars}")


def _rename_change(original: str, wire: str, plain: str, said: bool) -> Change:
    why = "the wire refuses it as it is" if wire == plain else f"{plain!r} is another tool's already"
    where = "; the description says the name" if said else ""
    return Change("tool/name", "", "renamed", f"tool name {original!r} sent as {wire!r}: {why}{where}")


def _wire_names(originals: Mapping[int, str], order: Sequence[int], target: Any,
                reserved: Iterable[str]) -> tuple[dict[int, str], dict[int, Change], set[int]]:
    """Wire names by position, claimed in `order`; a change for each rename; the positions
    whose wire name no longer spells the name, so their description is to say it."""
    rule = _name_rule(target)
    wires = assign_wire_names([originals[i] for i in order], rule, reserved=reserved)
    out = dict(zip(order, wires))
    changes = {}
    unsaid = set()
    for i in order:
        if out[i] != originals[i]:
            said = "description" in target.tool and not says_name(originals[i], rule, out[i])
            if said:
                unsaid.add(i)
            changes[i] = _rename_change(originals[i], out[i], wire_name(originals[i], rule), said)
        else:
            advised = _advised(target, originals[i])
            if advised is not None:
                changes[i] = advised
    return out, changes, unsaid


def _with_name(description: str | None, name: str) -> str:
    said = f"(tool name: {name})"
    if not description:
        return said
    return f"{description}{'' if description[-1].isspace() else ' '}{said}"


# ---------------------------------------------------------------------------
# the calls


def _in_shape(
    target: Any, name: str, description: str | None, schema: Any, strict: bool | None = None, output: Any = None,
) -> dict[str, Any]:
    """A tool made of its parts in the target's own shape (a strict flag where the shape
    has one; an output schema at its first output field, where given)."""
    shape = target.tool
    out = json_copy(dict(shape.get("fixed", {})))
    _set(out, shape["name"], name)
    if description is not None and "description" in shape:
        _set(out, shape["description"], description)
    _set(out, shape["schema"], schema)
    if strict is not None and "strict" in shape:
        _set(out, shape["strict"], strict)
    if output is not None:
        _set(out, shape["outputs"][0], output)
    return out


def _results_with(result: Result, *extra: Change) -> Result:
    return attrs.evolve(result, changes=(*extra, *result.changes)) if extra else result


def _fallback_result(target: Any, rule: str, reason: str) -> Result:
    from .pipeline import fallback_result

    return fallback_result(target, reason, (Change(rule, "", "fallback", reason),))


def normalize_tools(
    tools: Any,
    target: TargetLike | None = None,
    *,
    strict: bool | None = None,
    options: Options | None = None,
    on_untranslatable: str = "error",
    model: str | None = None,
) -> ToolsResult:
    """Normalize a list of tools for one target; one bad tool falls back alone.

    `tools` is a list (or any iterable) of tools in any shape `normalize_tool` takes,
    or an MCP `tools/list` result (the SDK's model, or `{"tools": [...]}`); a group of
    tools in it (a Gemini `Tool`) is the tools it holds, where it stands. An item
    that is no tool at all (a number, a string, an object without `model_dump`)
    raises `ToolShapeError` naming its index and type; a dict that no shape reads, or
    whose description is no text or strict flag no boolean, falls back alone, reported
    (`tool/unreadable`), under a placeholder name (`tool_<index>`) no real tool of the
    list has. Entries that are not function tools (server tools, cache points) pass
    through untouched where the target's lists take them (`tool.passthrough`,
    `tool.provided`); another wire's own tool (Google's `googleSearch` on OpenAI, an
    Anthropic server tool on Gemini) is a `ToolShapeError` naming it, or with
    `on_untranslatable="drop"` dropped, reported in `changes`.

    Each tool's own `strict` flag, where its shape has one, asks for strict mode unless
    `strict` overrides it; the rebuilt tool says the strictness actually reached.
    Names are rewritten to the wire's name rule and made unique (two tools called
    `search` get `search` and `search_<hex>`), each rename reported in its tool's
    `Result.changes`; `names` maps back and `result_for` finds a tool by wire name.
    `model=` names a model in place of the target (see `target_for`).
    """
    from . import _log_tools, _target

    t = _target(target, model)

    def logged() -> ToolsResult:
        out = _normalize_tools_quiet(tools, t, strict=strict, options=options, on_untranslatable=on_untranslatable)
        _log_tools(out)
        return out

    # the record logged after a hit would set off a collection walking every container
    # the hit just made, none of which is garbage (see `collector_paused`)
    return collector_paused(logged)


def _normalize_tools_quiet(
    tools: Any, target: TargetLike, *, strict: bool | None = None, options: Options | None = None,
    reserved: frozenset[str] = frozenset(), on_untranslatable: str = "error",
) -> ToolsResult:
    from . import _target, _the_memo, _uncached
    from .requests import dropping

    drop = dropping(on_untranslatable)
    t = _target(target)
    _need_shape(t)
    registry = registry_of(t)
    items = _tool_list(tools, registry)
    # a list of dicts, the common case, is taken as it is, without a call per tool
    told: dict[int, tuple[Change, ...]] = {}
    if all(item.__class__ is dict for item in items):
        given = items
    else:
        items, places = _uncollected(items)
        read = [_tool_dict(item, where, t) for item, where in zip(items, places)]
        given = [tool for tool, _left in read]
        told = {i: left for i, (_tool, left) in enumerate(read) if left}
    if _uncached():
        return _normalize_tools(given, t, registry, strict, options, reserved, told, drop)
    opts = options_of(options)
    # a repeated request is one entry: its tools, results and names come back at once
    # (what reading its objects left out, which the tools read do not show, too)
    key = (
        "tools", t.digest, t.name, t.path, registry.shapes_key(), strict, options_key(opts), tuple(sorted(reserved)), drop,
        tuple((i, c.detail) for i, left in told.items() for c in left),
    )
    out: ToolsResult = _the_memo().memoize(
        key,
        given,
        lambda: _normalize_tools(given, t, registry, strict, options, reserved, told, drop),
        _freeze_tools,
        _thaw_tools,
    )
    return out


def _freeze_tools(out: ToolsResult) -> tuple[ToolsResult, Any, int]:
    frozen = freeze_entry(list(out.tools))
    if frozen is None:
        return out, None, 0
    bare = tuple(r if r is None else r.with_schema(None) for r in out.results)
    return out, (frozen, bare, out.names, out.wire_names, out._schema_paths, out._losing(), out.changes), len(frozen)


def _thaw_tools(stored: Any) -> ToolsResult:
    frozen, bare, names, wires, paths, losing, changes = stored
    tools = tuple(frozen.thaw())
    # each result will hold its tool's schema, as on the first call
    return ToolsResult(tools, _Unmade(bare, tools, paths, losing), names, wires, paths, changes)


def _normalize_tools(
    given: list[Any], t: Any, registry: Any, strict: bool | None, options: Options | None, reserved: frozenset[str],
    told: Mapping[int, tuple[Change, ...]] = MappingProxyType({}), drop: bool = False,
) -> ToolsResult:
    from . import _normalize
    from .requests import untaken_dropped

    reading = tool_reading(registry)
    given, told = _ungrouped(given, told, reading)
    given, told, dropped = untaken_dropped(given, told, t, registry, drop)
    # entries that are not function tools stay where they are, untouched
    parsed: dict[int, Parsed] = {}
    repeats: dict[int, tuple[Change, ...]] = {}
    unreadable: dict[int, str] = {}
    for i, tool in enumerate(given):
        if not reading.is_function_tool(tool):
            continue
        try:
            parsed[i], repeats[i] = without_repeat(parse_tool(tool, registry), t)
        except ToolShapeError as exc:
            unreadable[i] = str(exc)
    # refused before any naming or normalizing: a list far over the limit must not cost
    # the work of making every tool first
    _check_tool_count(t, len(parsed) + len(unreadable))
    originals = {i: p.name for i, p in parsed.items()}
    wires, renames, unsaid = _wire_names(originals, list(parsed), t, reserved)
    # an unreadable tool has no name: its placeholder takes one no real tool has, and
    # stands for itself in `names` (never for the real tool it might have collided with)
    taken = {*reserved, *wires.values()}
    for i, wire in zip(unreadable, assign_wire_names([f"tool_{i}" for i in unreadable], _name_rule(t), reserved=taken)):
        originals[i] = wires[i] = wire
    results: dict[int, Result] = {}
    for i in sorted(originals):
        if i in unreadable:
            results[i] = _fallback_result(t, "tool/unreadable", f"tool {i} cannot be read: {unreadable[i]}")
            continue
        p = parsed[i]
        want = strict if strict is not None else p.strict
        try:
            results[i] = _normalize(p.schema, t, strict=want, options=options)
        except SchemaInputError as exc:
            results[i] = _fallback_result(t, "input/not-json", str(exc))
    order = [i for i in sorted(results) if i in parsed]
    relaxed = strict_budget(t, [parsed[i].schema for i in order], [results[i] for i in order], options)
    results.update(zip(order, relaxed))
    built: list[dict[str, Any]] = []
    aligned: list[Result | None] = []
    wire_list: list[str | None] = []
    paths: list[Any] = []
    for i, tool in enumerate(given):
        if i not in results:
            built.append(json_copy(tool))
            aligned.append(None)
            wire_list.append(None)
            paths.append(None)
            continue
        p = parsed.get(i) or Parsed(originals[i], None, results[i].schema, None, None)
        made, beside = build_tool(p, _shaped_by(t, results[i]), results[i].schema, results[i].strict, wires[i],
                                  tool if i in parsed else None, options, say_name=i in unsaid)
        result = _results_with(results[i], *told.get(i, ()), *repeats.get(i, ()), *([renames[i]] if i in renames else []), *beside)
        built.append(made)
        aligned.append(result)
        wire_list.append(wires[i])
        mine = p.at.get("schema")
        paths.append(mine if mine is not None and lookup(built[-1], mine) is result.schema else t.tool["schema"])
    pairs = tuple((wires[i], originals[i]) for i in sorted(originals))
    return ToolsResult(tuple(built), tuple(aligned), NameMap(pairs), tuple(wire_list), tuple(paths), dropped)


def normalize_tool(tool: Any, target: TargetLike | None = None, *, strict: bool | None = None, options: Options | None = None,
                   model: str | None = None) -> ToolResult:
    """Normalize one tool into the target's native tool object.

    `tool` is a dict in any shipped shape (OpenAI Chat or Responses, Anthropic,
    Gemini, Bedrock, MCP, with an SDK's other spellings such as
    `parameters_json_schema`), an SDK or pydantic object (`model_dump`), an agent
    framework's tool object that `rules/_objects.yaml` names (openai-agents'
    `FunctionTool`, pydantic-ai's `ToolDefinition`), or a typed
    function or pydantic model, dataclass or TypedDict class (name from `__name__`
    or the model's title, description from the docstring's summary, parameter
    descriptions from its Args/Parameters/:param: sections). Anything else, or a
    dict no shape reads, raises `ToolShapeError`; so does a server tool or cache
    point, which has no schema to normalize, and a description that is no text or a
    strict flag that is no boolean (named with the tool). A null one is none: a tool
    kept in its shape leaves it out, reported (`tool/shape`). `model=`: see `target_for`.
    """
    from . import _log_result, _target

    out = _normalize_tool_quiet(tool, _target(target, model), strict=strict, options=options)
    _log_result(out.result, f"tool {out.original_name!r}")
    return out


def _normalize_tool_quiet(tool: Any, target: TargetLike, *, strict: bool | None, options: Options | None) -> ToolResult:
    from . import _normalize, _target

    t = _target(target)
    _need_shape(t)
    registry = registry_of(t)
    item, told = _tool_dict(tool, "the tool", t)
    reading = tool_reading(registry)
    key = reading.group_of(item)
    if key is not None:
        raise _grouped("this entry", item, key, "pass it to normalize_tools")
    if not reading.is_function_tool(item):
        raise ToolShapeError(f"this entry is no function tool (a server tool or cache point): keys {sorted(item)[:8]}")
    p, repeat = without_repeat(parse_tool(item, registry), t)
    want = strict if strict is not None else p.strict
    result = _normalize(p.schema, t, strict=want, options=options)
    wires, renames, unsaid = _wire_names({0: p.name}, [0], t, ())
    name = wires[0]
    made, beside = build_tool(p, _shaped_by(t, result), result.schema, result.strict, name, item, options, say_name=0 in unsaid)
    result = _results_with(result, *told, *repeat, *renames.values(), *beside)
    return ToolResult(made, result, name, p.name)


def normalize_mcp_tool(tool: Any, *, options: Options | None = None) -> ToolResult:
    """Ingest an MCP tool: its `inputSchema` must describe an object (else it falls back).
    The target is the shipped rule file that says `mcp_ingest: true`."""
    from . import _registry

    return normalize_tool(tool, _registry().mcp_ingest(), options=options)


@attrs.frozen
class RequestResult:
    """A request body with every tool list and output schema normalized (a copy)."""

    body: Any
    tools: tuple[ToolsResult, ...]
    outputs: tuple[Result, ...]
    changes: tuple[Change, ...] = ()
    """What was done to the body beside its tools and output schemas: a string mended as
    UTF-8 can carry it (`request/text`, as `tool/text` in a tool); a renamed tool's name,
    where the body names it (a forced tool choice, an earlier turn's call), made its
    wire name (`request/tool-name`)."""

    @property
    def names(self) -> NameMap:
        """Wire name -> original name, over every tool list of the request (every wire
        name is unique across the lists)."""
        return NameMap(tuple(pair for group in self.tools for pair in group.names.items()))

    def result_for(self, wire_name: str) -> Result:
        """The Result of the tool the model called by this wire name, in any tool list."""
        for group in self.tools:
            if wire_name in group.wire_names:
                return group.result_for(wire_name)
        raise UnknownToolNameError(wire_name, "wire", self.names)


def normalize_request(
    body: Any, target: TargetLike | None = None, *, options: Options | None = None, model: str | None = None,
    on_untranslatable: str = "error",
) -> RequestResult:
    """Normalize every schema of a provider request body, found by the rule file's `locate`.

    A body written for another wire (found from its shape, see `requests`) is first made
    one of the target's: its tools, tool choice, structured output and earlier turns read
    by that wire's `request:` spelling and written in the target's (`request/translate`).
    What the target has no form for is an `UntranslatableError` naming each part, or
    with `on_untranslatable="drop"` dropped (`request/untranslatable`); never half.

    `locate.tools` finds tool lists (normalized as `normalize_tools`, names made unique
    across the request), `locate.outputs` output schemas (normalized as
    `normalize_output`; a `strict` flag beside the schema asks for strict mode and is
    rewritten to what was reached), `locate.strict_outputs` output schemas the wire
    always enforces (each asking for strict mode), and `locate.outputs_of` the targets
    whose output fields the body may hold in their own dialect (Gemini's
    `responseJsonSchema`), each normalized as that target's output. Where the body names
    a tool the wire renamed (`locate.tool_names`: a forced tool choice, the calls of
    earlier turns), the name becomes the tool's wire name, reported. Both SDK spellings
    a rule file lists are read and kept where they are. The caller's body is not
    mutated. The body is a JSON object, JSON text (`str` or `bytes`, as a gateway
    receives it; the body returned is the object), or an SDK's request object
    (python-genai's `GenerateContentConfig`), taken as its SDK sends it (`model_dump` by
    alias, None fields left out), as is an SDK object anywhere in a dict body. The rest
    of the body is judged as a tool's other fields are: a value that is no JSON (a set,
    NaN without `allow_nan`, a datetime) or nesting deeper than `Options.max_depth`
    beside the schemas is a `SchemaInputError` naming where; a string no UTF-8 text
    holds is mended, reported in `changes`. `model=`: see `target_for`.
    """
    from . import _log_result, _log_tools, _target
    from .native import plain
    from .outputs import _normalize_output_quiet
    from .pipeline import stable_dump
    from .prepare import is_json_text, read_json_text
    from .requests import dropping, strict_flag_beside, translated
    from .ruletable import jsonpath, path_tokens

    drop = dropping(on_untranslatable)
    t = _target(target, model)
    # the targets that read the body's outputs, compiled before any work: a broken one
    # fails the request at its start, never half-way through it
    readers = (t, *map(t.related, t.locate.get("outputs_of", ())))
    # JSON text, as a gateway receives the body, read as `normalize` reads a schema's; an
    # SDK's request object (python-genai's GenerateContentConfig) as the SDK sends it
    gathered: tuple[Change, ...] = ()
    kept: frozenset[int] = frozenset()
    if is_json_text(body):
        given = read_json_text(body, options_of(options), "the request body")
    else:
        given, gathered, kept = _as_sent(body, t)
    if not isinstance(given, dict):
        held = f"JSON text of {type_name(given)}" if is_json_text(body) else type_name(body)
        raise SchemaInputError(f"the request body is {held}, not a JSON object (or an SDK object with model_dump)")
    # SDK objects held anywhere in a dict body (python-genai takes `config={"tools":
    # [types.Tool(...)]}`), each dumped as its SDK sends it; the caller's own tools an SDK
    # gathered kept, for the tool list's normalizing to read as normalize_tools reads them
    out = json_copy(given, objects=lambda v: v if id(v) in kept else plain(v))
    gathered = (*gathered, *translated(out, t, drop))
    groups = []
    taken: set[str] = set()
    for path in t.locate.get("tools", ()):
        for datum in jsonpath(path).find(out):
            if isinstance(datum.value, list):
                _refuse_groups(datum, t)
                group = _normalize_tools_quiet(datum.value, t, options=options, reserved=frozenset(taken),
                                               on_untranslatable=on_untranslatable)
                datum.value[:] = list(group.tools)
                taken.update(w for w in group.wire_names if w is not None)
                groups.append(group)
    _check_tool_count(t, sum(sum(r is not None for r in g.results) for g in groups))
    outputs = []
    # where the wire always enforces an output schema, it asks for strict mode itself;
    # a field of another dialect the same request takes is normalized by its own target
    located = [
        (path, enforced, by) for enforced, field in ((None, "outputs"), (True, "strict_outputs"))
        for by in readers for path in by.locate.get(field, ())
    ]
    for path, enforced, by in located:
        for datum in jsonpath(path).find(out):
            parent = datum.context.value if datum.context is not None else None
            key = getattr(datum.path, "fields", (None,))[0]
            if not isinstance(parent, dict) or key not in parent:
                continue
            asked = parent.get("strict") if isinstance(parent.get("strict"), bool) else enforced
            result = _normalize_output_quiet(datum.value, by, strict=asked, options=options)
            # a wire that takes the schema as JSON text (Bedrock Converse's jsonSchema.schema) gets text back
            parent[key] = stable_dump(result.schema) if isinstance(datum.value, (str, bytes)) else result.schema
            if "strict" in parent:
                parent["strict"] = result.strict
            elif result.strict and strict_flag_beside(by, path) is not None:
                # a strict schema sent without its wire's flag would be read non-strict
                parent[strict_flag_beside(by, path)] = True
                gathered = (*gathered, Change("request/strict", pointer((*path_tokens(datum)[:-1], "strict")), "added",
                                              "the output is sent strict: its wire's strict flag says so"))
            outputs.append(result)
    if not groups and not outputs:
        _say_held_elsewhere(out, t)
    changes = (*gathered, *(c for g in groups for c in g.changes), *_tool_names_rewritten(out, t, groups),
               *_judged_body(out, t, groups, outputs, options))
    for group in groups:
        _log_tools(group)
    for result in outputs:
        _log_result(result, "the output schema")
    return RequestResult(out, tuple(groups), tuple(outputs), changes)


def _as_sent(body: Any, target: Any) -> tuple[Any, tuple[Change, ...], frozenset[int]]:
    """`body` as its SDK sends it: an SDK object dumped (`native.plain`), and each tool
    list of `locate.gathered` that holds the caller's own tools (python-genai's
    `config.tools` holding a Python function) gathered as the SDK gathers it (see
    `_gathered`), each such list reported; and the ids of the objects gathered. The
    caller's body, a dict or an object, is not changed."""
    from .native import plain

    given = body
    changes = []
    kept: set[int] = set()
    for path in target.locate.get("gathered", ()):
        held = field_of(body, path)
        gathered = _gathered(held, target) if isinstance(held, list) else None
        if gathered is not None:
            made, callers = gathered
            # the rest of an SDK's object dumped as the SDK sends it, the list in its place
            given = replaced(given, path, made)
            kept.update(map(id, callers))
            changes.append(Change(
                "request/tools", pointer(path), "rewritten",
                f"{len(callers)} of the caller's own tools (a Python function, an SDK's tool object) sent as the SDK "
                "sends them: each as a declaration, with those of the list's groups, in one group at the list's end",
            ))
    if not changes:
        return plain(body), (), frozenset()
    return given, tuple(changes), frozenset(kept)


def _gathered(held: list[Any], target: Any) -> tuple[list[Any], list[Any]] | None:
    """A tool list of `locate.gathered` as its SDK sends it (python-genai's
    `_transformers.t_tools`), and the caller's own tools it held; None where
    it holds none: each Python function (or class, which normalize_tools takes and the
    SDK does not), and each object whose dump is no group and none of the wire's own
    tools (an MCP `Tool`), goes as one tool in one group at the list's end, together with
    the tools every group holds, in list order; a group's other parts (a Tool's
    `googleSearch`) stay where the group stood. The caller's own tools stay as they are
    given, to be read as normalize_tools reads them (a framework's object by
    rules/_objects.yaml)."""
    from .native import plain

    keys = target.tool.get("groups", ())
    own = frozenset(keys) | frozenset(target.tool.get("passthrough", ()))
    tools: list[Any] = []
    out: list[Any] = []
    callers: list[Any] = []
    for entry in held:
        caller = is_python_tool(entry)
        sent = entry if caller else plain(entry)
        # an SDK's tool object: its dump is no group and none of the wire's own tools
        if caller or (entry is not sent and isinstance(sent, dict) and own.isdisjoint(sent)):
            tools.append(entry)
            callers.append(entry)
            continue
        grouped = [k for k in keys if isinstance(sent, dict) and isinstance(sent.get(k), list)]
        if not grouped:
            out.append(sent)
            continue
        for k in grouped:
            tools.extend(sent[k])
        rest = {k: v for k, v in sent.items() if k not in grouped and v is not None}
        if rest:
            out.append(rest)
    if not callers or not keys:
        return None
    out.append({keys[0]: tools})
    return out, callers


def _refuse_groups(datum: Any, target: Any) -> None:
    """A tool list of the body holding a group of tools (a Gemini `Tool` in a list the
    target's requests hold tools in alone) is a body written for another wire: refused,
    naming where, as no tool of the target's (normalize_tools, not a body, reads one)."""
    from .ruletable import path_tokens

    reading = tool_reading(registry_of(target))
    for i, entry in enumerate(datum.value):
        key = reading.group_of(entry)
        if key is not None:
            raise ToolShapeError(
                f"the request body's tool at {pointer(path_tokens(datum))}/{i} holds a list of tools under {key!r}, "
                f"where {target.name}'s requests hold each tool alone: normalize a body for the wire it is written "
                "for, or pass its tools to normalize_tools"
            )


def _say_held_elsewhere(out: Any, target: Any) -> None:
    """A WARNING for a body in which the target's `locate` finds nothing, where another
    target's finds a tool list or an output schema: nothing was normalized, and the body
    is likely written for that other wire."""
    from . import logs
    from .ruletable import jsonpath
    from .run import first_few

    for field, path, names in registry_of(target).body_paths():
        # an empty tool list holds nothing to normalize, on any wire
        if target.name not in names and any(d.value not in ([], None) for d in jsonpath(path).find(out)):
            what = "a tool list" if field == "tools" else "an output schema"
            logs.warning(
                "the request body holds no tool list or output schema where %s's requests hold them, but %s at %s, "
                "where the requests of %s hold one: nothing in it was normalized (normalize a body for the wire it "
                "is written for)", target.name, what, path, first_few(names, 3),
            )
            return


def _tool_names_rewritten(out: Any, target: Any, groups: list[ToolsResult]) -> list[Change]:
    """Where the body names one of its tools (`locate.tool_names`: a forced tool choice,
    the calls of earlier turns), the name of a tool the wire renamed becomes its wire
    name (the first tool's, where several share it), each reported: the caller's name
    would name no tool of the request (a forced choice of it is refused), and the model
    would read its earlier calls under a name it cannot call."""
    from .ruletable import jsonpath, path_tokens

    first: dict[str, str] = {}
    for group in groups:
        for wire, original in group.names.pairs:
            first.setdefault(original, wire)
    renamed = {original: wire for original, wire in first.items() if wire != original}
    changes: list[Change] = []
    if not renamed:
        return changes
    for path in target.locate.get("tool_names", ()):
        for datum in jsonpath(path).find(out):
            name = datum.value
            wire = renamed.get(name) if name.__class__ is str else None
            if wire is None or datum.context is None:
                continue
            tokens = path_tokens(datum)
            datum.context.value[tokens[-1]] = wire
            changes.append(Change("request/tool-name", pointer(tokens), "renamed", f"tool name {name!r} sent as {wire!r}, the tool's name on the wire"))
    return changes


def _judged_body(out: Any, target: Any, groups: list[ToolsResult], outputs: list[Result], options: Options | None) -> tuple[Change, ...]:
    """The body's other values judged, as the fields a tool keeps are (`build_tool`): the
    SDK's encoder would fail on them at send time, naming nothing. The schemas the request
    holds, normalized and bounded by their own budgets, are not counted in its nesting."""
    opts = options_of(options)
    apart = {id(result.schema) for result in outputs}
    for group in groups:
        for tool, path in zip(group.tools, group._schema_paths):
            for at in (path, *target.tool.get("outputs", ())) if path is not None else ():
                apart.add(id(lookup(tool, at)))
    where = nested_past(out, opts.max_depth, apart)
    if where is not None:
        raise SchemaInputError(f"the request body nests deeper than {opts.max_depth} (Options.max_depth) at {where}")
    try:
        # the budgets bound one schema, not a conversation (its messages, images as
        # base64 text): the body is held to nesting alone, above
        mended = mended_tree(out if out.__class__ is dict or out.__class__ is list else [out], frozenset(), opts, budgeted=False, apart=apart)
    except SchemaInputError as exc:
        raise SchemaInputError(f"the request body: {exc}") from None
    return tuple(Change("request/text", "", "rewritten", f"the body's {said}") for said in mended)


def _check_tool_count(target: Any, count: int) -> None:
    limit = target.request_limits.get("max_tools")
    if limit is not None and count > limit:
        raise RequestLimitError(f"{count} tools in one request; {target.name} takes at most {limit} (request_limits.max_tools)")
