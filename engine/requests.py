"""A request body written for one wire, made a body of another: its tools, tool choice,
structured output and earlier turns read by the spelling its wire's rule files declare
(`request:`, see `requestspec`) and written in the target's.

The body's wire is found from its shape: each wire's places are read, and a wire that
reads a place the body holds otherwise is no candidate. What the target has no form for
is an `UntranslatableError` naming each part and where, or with `drop`, dropped and
reported; nothing is written before every part is read.
"""

from __future__ import annotations

import json
import re
import weakref
from typing import Any, Mapping, Sequence

import attrs

from .bodyfields import MISSING, Lost, beside, fill, fixed_paths, get, held, matches, pop, put
from .errors import ToolShapeError, UntranslatableError
from .model import Change
from .positions import pointer
from .prepare import json_copy
from .requestmessages import read_turns, turns_evidence, write_turns
from .toolshapes import layout, parse_tool, registry_of, tool_reading


# ---------------------------------------------------------------------------
# the wires and the body's


@attrs.frozen
class Wire:
    """One request spelling, and the targets that share it."""

    names: tuple[str, ...]
    request: Mapping[str, Any]
    tools: tuple[Mapping[str, Any], ...]  # the `tool:` shapes of its targets

    @property
    def name(self) -> str:
        return self.names[0]

    def owns(self, entry: Any) -> bool:
        """`entry` (no function tool) is one of this wire's own tools."""
        return any(owns(shape, entry) for shape in self.tools)


def owns(shape: Mapping[str, Any], entry: Any) -> bool:
    """`entry`, no function tool, is one a wire of this tool shape takes: it holds one of
    `passthrough`'s keys or a value `provided` names."""
    if not isinstance(entry, dict):
        return False
    if any(k in entry for k in shape.get("passthrough", ())):
        return True
    return any(isinstance(entry.get(k), str) and re.fullmatch(rx, entry[k]) for k, rx in shape.get("provided", {}).items())


_WIRES: "weakref.WeakKeyDictionary[Any, tuple[Wire, ...]]" = weakref.WeakKeyDictionary()


def wires(registry: Any) -> tuple[Wire, ...]:
    """The registry's distinct request spellings, in its order (no rules compiled)."""
    found = _WIRES.get(registry)
    if found is None:
        groups: list[tuple[list[str], Any, list[Any]]] = []
        for name, f in registry.listed():
            request = f.get("request")
            if f["abstract"] or not request:
                continue
            for names, seen, shapes in groups:
                if seen == request:
                    names.append(name)
                    shapes.append(f["tool"] or {})
                    break
            else:
                groups.append(([name], request, [f["tool"] or {}]))
        # named by its least derived target first (openai-chat, not a target extending it)
        chains = {name: len(f["files"]) for name, f in registry.listed()}
        found = tuple(Wire(tuple(sorted(n, key=lambda x: (chains[x], x))), r, tuple(s)) for n, r, s in groups)
        _WIRES[registry] = found
    return found


def wire_of(body: dict[str, Any], target: Any, registry: Any) -> Wire | None:
    """The wire `body` is written for, where it is not the target's: the one whose
    spelling reads most of the places the body holds and none otherwise. None where the
    target's own spelling reads it, or no wire reads anything of it. Two wires that read
    it alike are one; two that read it otherwise are an `UntranslatableError`."""
    scored = []
    for wire in wires(registry):
        score = _evidence(body, wire, registry)
        if score is not None and score > 0:
            if wire.request == target.request:
                return None
            scored.append((score, wire))
    if not scored:
        return None
    best = max(s for s, _ in scored)
    top = [w for s, w in scored if s == best]
    if len(top) > 1:
        readings = []
        for wire in top:
            lost = Lost(target.name)
            readings.append((_read_all(json_copy(body), wire, registry, lost), lost.parts))
        if any(r != readings[0] for r in readings[1:]):
            raise UntranslatableError(
                f"the request body reads as a body of {top[0].name}'s requests and of {top[1].name}'s alike, "
                "and says otherwise in each: nothing is translated from a body whose wire is unclear"
            )
    return top[0]


def _evidence(body: dict[str, Any], wire: Wire, registry: Any) -> int | None:
    """How many of the wire's places the body holds in the wire's spelling; None where it
    holds one otherwise."""
    spec = wire.request
    score = 0
    entries = held(body, spec.get("tools", (("tools",),)))[0]
    if isinstance(entries, list):
        # a list where the wire keeps one, if empty, says the wire too (Converse's toolConfig.tools)
        if not _tools_fit(entries, wire, registry):
            return None
        score += 1
    choice = spec.get("tool_choice")
    if choice is not None and held(body, choice["at"])[0] is not MISSING:
        if read_choice(body, choice, Lost(""), remove=False) is None:
            return None
        score += 1
    output = spec.get("output")
    if output is not None and read_output(body, output, Lost(""), remove=False) is not None:
        score += 1
    messages = spec.get("messages")
    if messages is not None:
        said = turns_evidence(body, messages)
        if said is None:
            return None
        score += said
    return score


def _tools_fit(entries: list[Any], wire: Wire, registry: Any) -> bool:
    """Every entry is a tool of the wire's: a function tool in one of its shapes (within a
    group, where its tools come in groups), or one of its own tools."""
    reading = tool_reading(registry)
    groups = [k for shape in wire.tools for k in shape.get("groups", ())]
    layouts = [layout(shape) for shape in wire.tools if shape]

    def fits(entry: Any) -> bool:
        try:
            parsed = parse_tool(entry, registry, judged=False)
        except ToolShapeError:
            return True  # no shape reads it: no word on the wire
        return layout(parsed.shape, entry) in layouts

    for entry in entries:
        key = reading.group_of(entry)
        if key is not None:
            rest = {k: v for k, v in entry.items() if k != key and v is not None}
            inner = entry[key] if isinstance(entry[key], list) else []
            if key not in groups or (rest and not wire.owns(rest)) or not all(map(fits, inner)):
                return False
        elif reading.is_function_tool(entry) and not groups:
            if not fits(entry):
                return False
        elif not wire.owns(entry):
            return False
    return True


# ---------------------------------------------------------------------------
# the parts


@attrs.frozen
class Choice:
    """A tool choice: `auto`, `none` or `required`, and the names of the tools it allows."""

    mode: str
    names: tuple[str, ...] = ()


_MODES = ("auto", "none", "required")


def read_choice(body: dict[str, Any], spec: Mapping[str, Any], lost: Lost, *, remove: bool = True) -> Choice | None:
    """The body's tool choice in `spec`'s spelling (removed), None where it holds none or
    one this spelling does not read; what a choice holds beside its mode is lost."""
    value, at = held(body, spec["at"])
    if at is None:
        return None
    where = pointer(at)
    tool = spec.get("tool")
    found: Choice | None = None
    read: set[tuple[str, ...]] = set()
    fixed: Mapping[str, Any] = {}
    if tool is not None and matches(value, tool.get("fixed", {})):
        if "name" in tool:
            name, path = held(value, tool["name"])
            if isinstance(name, str):
                found, read, fixed = Choice("required", (name,)), {path}, tool.get("fixed", {})
        else:
            names, path = held(value, tool["names"])
            if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
                found, read, fixed = Choice("required", tuple(names)), {path}, tool.get("fixed", {})
    for mode in _MODES if found is None else ():
        want = spec.get(mode, MISSING)
        if want is MISSING:
            continue
        if value == want or (isinstance(want, dict) and matches(value, want)):
            found, fixed = Choice(mode), want if isinstance(want, dict) else {}
            break
    if found is None:
        return None
    if isinstance(value, dict):
        for extra in beside(value, read, fixed):
            lost.add(f"{where}/{extra.replace('.', '/')}", f"the tool choice's {extra}")
    if remove:
        pop(body, at)
    return found


def write_choice(body: dict[str, Any], choice: Choice, spec: Mapping[str, Any] | None, lost: Lost, where: str) -> None:
    tool = None if spec is None else spec.get("tool")
    if spec is not None and choice.names and tool is not None and ("names" in tool or len(choice.names) == 1):
        out: dict[str, Any] = {}
        fill(out, tool.get("fixed", {}))
        if "names" in tool:
            put(out, tool["names"][0], list(choice.names))
        else:
            put(out, tool["name"][0], choice.names[0])
        put(body, spec["at"][0], out)
        return
    if spec is not None and not choice.names and choice.mode in spec:
        value = spec[choice.mode]
        put(body, spec["at"][0], json.loads(json.dumps(value)))
        return
    said = f"a forced choice of {', '.join(map(repr, choice.names))}" if choice.names else f"the tool choice {choice.mode!r}"
    lost.add(where, f"{said}, which {lost.target}'s requests cannot say")


@attrs.frozen
class Output:
    """A structured output: its schema, and the name, description and strict flag said of it."""

    schema: Any
    name: str | None = None
    description: str | None = None
    strict: bool | None = None


def read_output(body: dict[str, Any], spec: Mapping[str, Any], lost: Lost, *, remove: bool = True) -> Output | None:
    """The body's structured output in `spec`'s spelling (the parts read removed, with the
    holder where it holds nothing else of its own), or None; a holder asking for another
    kind of output (JSON mode without a schema) is lost."""
    holder, at = held(body, spec["at"])
    if at is None or not isinstance(holder, dict) or holder in spec.get("none", ()):
        if remove and at is not None and holder in spec.get("none", ()):
            pop(body, at)
        return None
    schema, schema_at = held(holder, spec["schema"])
    fixed = next((f for f in spec.get("fixed", ({},)) if matches(holder, f)), None)
    if schema_at is None or fixed is None:
        if not spec.get("shared") and remove:
            lost.add(pointer(at), "the output format " + json.dumps(holder, sort_keys=True)[:80])
        elif schema_at is not None and remove:
            lost.add(pointer((*at, *schema_at)), "an output schema asked for in another form than JSON")
        return None
    if spec.get("text") and isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except ValueError:
            lost.add(pointer((*at, *schema_at)), "an output schema that is no JSON text")
            return None
    parts = {}
    read = {schema_at}
    for field in ("name", "description", "strict"):
        value, path = held(holder, spec.get(field, ()))
        if path is not None:
            parts[field] = value
            read.add(path)
    said = parts.get("strict")
    strict = True if spec.get("enforced") else said if isinstance(said, bool) else None
    out = Output(schema, parts.get("name") if isinstance(parts.get("name"), str) else None,
                 parts.get("description") if isinstance(parts.get("description"), str) else None, strict)
    if not remove:
        return out
    if spec.get("shared"):
        for path in (*read, *fixed_paths(fixed)):
            if get(holder, path) is not MISSING:
                pop(holder, path)
        if not holder:
            pop(body, at)
    else:
        for extra in beside(holder, read, fixed):
            lost.add(pointer((*at, *extra.split("."))), f"the output format's {extra}")
        pop(body, at)
    return out


def write_output(body: dict[str, Any], output: Output, spec: Mapping[str, Any] | None, lost: Lost, where: str) -> list[Change]:
    from .pipeline import stable_dump

    if spec is None:
        lost.add(where, f"the structured output, which {lost.target}'s requests have no place for")
        return []
    holder = get(body, spec["at"][0])
    if not isinstance(holder, dict):
        holder = {}
        put(body, spec["at"][0], holder)
    fill(holder, spec.get("fixed", ({},))[0])
    put(holder, spec["schema"][0], stable_dump(output.schema) if spec.get("text") else output.schema)
    changes = []
    for field, default in (("name", "response"), ("description", None)):
        said = getattr(output, field)
        if spec.get(field):
            if said is not None or default is not None:
                put(holder, spec[field][0], said if said is not None else default)
            if said is None and default is not None:
                changes.append(Change("request/translate", where, "added", f"the output is named {default!r}: {lost.target}'s requests name it"))
        elif said is not None:
            changes.append(Change("request/translate", where, "dropped", f"the output's {field} {said!r}: {lost.target}'s requests have no place for it"))
    if spec.get("strict") and output.strict is not None:
        put(holder, spec["strict"][0], output.strict)
    return changes


def _read_tools(body: dict[str, Any], wire: Wire, registry: Any) -> list[tuple[Any, str]] | None:
    """The body's tool list in the wire's spelling, each entry with where it stood (a
    group as its other parts, then the tools it holds), removed; None where it has none."""
    entries, path = held(body, wire.request.get("tools", ()))
    if path is None or not isinstance(entries, list):
        return None
    reading = tool_reading(registry)
    out: list[tuple[Any, str]] = []
    for i, entry in enumerate(entries):
        where = pointer((*path, i))
        key = reading.group_of(entry)
        if key is None:
            out.append((entry, where))
            continue
        rest = {k: v for k, v in entry.items() if k != key and v is not None}
        if rest:
            out.append((rest, where))
        out.extend((tool, f"{where}{pointer((key, j))}") for j, tool in enumerate(entry[key] if isinstance(entry[key], list) else []))
    pop(body, path)
    return out


def _read_all(body: dict[str, Any], wire: Wire, registry: Any, lost: Lost) -> tuple[Any, ...]:
    spec = wire.request
    tools = _read_tools(body, wire, registry)
    choice = None if "tool_choice" not in spec else read_choice(body, spec["tool_choice"], lost)
    output = None if "output" not in spec else read_output(body, spec["output"], lost)
    turns = None if "messages" not in spec else read_turns(body, spec["messages"], lost)
    return tools, choice, output, turns


def translated(body: dict[str, Any], target: Any, drop: bool) -> list[Change]:
    """Make `body` (the caller's copy) a body of the target's wire, where it is written for
    another: every part read first, then written; what cannot be carried raised or
    (`drop`) dropped. The changes made; none where the body is the target's already."""
    if not target.request:
        return []
    registry = registry_of(target)
    wire = wire_of(body, target, registry)
    if wire is None:
        return []
    lost = Lost(target.name)
    tools, choice, output, turns = _read_all(body, wire, registry, lost)
    spec = target.request
    changes = [Change("request/translate", "", "rewritten", f"the body is written for {wire.name}'s requests: its tool-related parts are sent in {target.name}'s")]
    if tools is not None:
        reading = tool_reading(registry)
        kept = []
        for entry, where in tools:
            if reading.is_function_tool(entry) or owns(target.tool, entry):
                kept.append(entry)
            else:
                lost.add(where, f"{_kind_of(entry)}, {', '.join(_owners(entry, registry)) or 'no wire'}'s own tool")
        functions = [e for e in kept if reading.is_function_tool(e)]
        groups = target.tool.get("groups", ())
        if groups:
            kept = [*([{groups[0]: functions}] if functions else []), *(e for e in kept if not reading.is_function_tool(e))]
        put(body, spec["tools"][0], kept)
    if choice is not None:
        write_choice(body, choice, spec.get("tool_choice"), lost, pointer(wire.request["tool_choice"]["at"][0]))
    if output is not None:
        changes += write_output(body, output, spec.get("output"), lost, pointer(wire.request["output"]["at"][0]))
    if turns is not None:
        changes += write_turns(body, turns, spec.get("messages"), lost)
    return [*changes, *lost.settle(drop)]


def _kind_of(entry: Any) -> str:
    if isinstance(entry, dict) and isinstance(entry.get("type"), str):
        return f"a tool of type {entry['type']!r}"
    keys = sorted(entry)[:3] if isinstance(entry, dict) else []
    return f"a tool holding {', '.join(keys) or 'no key'}"


def _owners(entry: Any, registry: Any) -> list[str]:
    return [w.name for w in wires(registry) if w.owns(entry)] or [
        name for name, f in registry.listed() if not f["abstract"] and f["tool"] and owns(f["tool"], entry)
    ][:1]


def untaken(entries: Sequence[Any], target: Any, registry: Any) -> list[tuple[int, str]]:
    """The entries of a tool list that are no function tool and none of the target's own
    tools (another wire's server tool, Google's own tool): their indexes and what each is."""
    reading = tool_reading(registry)
    return [
        (i, f"{_kind_of(e)}, {', '.join(_owners(e, registry)) or 'no wire'}'s own tool, which {target.name}'s tool lists do not take")
        for i, e in enumerate(entries)
        if not reading.is_function_tool(e) and reading.group_of(e) is None and not owns(target.tool, e)
    ]


def dropping(on_untranslatable: str) -> bool:
    """`on_untranslatable` read: True for "drop", False for "error"; any other is a ValueError."""
    if on_untranslatable not in ("error", "drop"):
        raise ValueError(f'on_untranslatable must be "error" or "drop", got {on_untranslatable!r}')
    return on_untranslatable == "drop"


def untaken_dropped(
    given: list[Any], told: Mapping[int, tuple[Change, ...]], target: Any, registry: Any, drop: bool,
) -> tuple[list[Any], Mapping[int, tuple[Change, ...]], tuple[Change, ...]]:
    """The list without the entries that are another wire's own tools (see
    `requests.untaken`): a ToolShapeError naming each, or (`drop`) each dropped, reported."""
    found = untaken(given, target, registry)
    if not found:
        return given, told, ()
    if not drop:
        said = "; ".join(f"tool {i}: {what}" for i, what in found[:5])
        raise ToolShapeError(f"{said} (on_untranslatable=\"drop\" drops it, reported)")
    gone = {i for i, _ in found}
    kept = [i for i in range(len(given)) if i not in gone]
    moved = {n: told[i] for n, i in enumerate(kept) if i in told}
    changes = tuple(Change("request/untranslatable", f"/{i}", "dropped", f"tool {i}: {what}: not sent") for i, what in found)
    return [given[i] for i in kept], moved, changes


def strict_flag_beside(target: Any, path: str) -> str | None:
    """The key of the strict flag the target's structured output keeps beside the schema
    that `path` locates (`request.output`: OpenAI's `json_schema.strict`), or None."""
    spec = target.request.get("output")
    if spec is None or not spec.get("strict"):
        return None
    flag = spec["strict"][0]
    located = tuple(path.split(".")[1:])
    for at in spec["at"]:
        for schema in spec["schema"]:
            if (*at, *schema) == located and flag[:-1] == schema[:-1]:
                return flag[-1]
    return None
