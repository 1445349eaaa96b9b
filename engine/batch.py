"""The commands over FILE's schemas and tools: normalize, check and diff.

FILE is read into documents and items (a schema, a tool, a list of tools, an MCP
`tools/list` result, corpus records; for normalize, a request body), each normalized
for each target named; the results are printed back in the input's layout, judged
(check) or set side by side (diff).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import attrs

import wireschema
from wireschema.console import (
    FINDINGS,
    UsageError,
    add_command,
    add_model,
    chosen_target,
    error,
    named_target,
    say,
    warning,
    write,
)
from wireschema.errors import ToolShapeError, WireschemaError
from wireschema.jsonsource import Document, JSONSourceError, Lines, positions, read
from wireschema.positions import escape, pointer, unescape
from wireschema.reading import read_at_most
from wireschema.run import first_few
from wireschema.silence import silenced


# -- reading FILE and printing its results -------------------------------------------


# the most FILE may hold: far beyond any real batch, and a bound on `/dev/zero` or a
# stream that never ends
MAX_INPUT_BYTES = 256 << 20


def _read_text(path: str) -> str:
    try:
        if path != "-":
            with open(path, "rb") as f:
                data = read_at_most(f, MAX_INPUT_BYTES)
        elif sys.stdin is None:
            raise UsageError("cannot read <stdin>: standard input is closed")
        elif hasattr(sys.stdin, "buffer"):
            data = read_at_most(sys.stdin.buffer, MAX_INPUT_BYTES)
        else:  # a text stream put in place of stdin (an embedding program, a test)
            data = read_at_most(sys.stdin, MAX_INPUT_BYTES).encode("utf-8", "surrogatepass")
    except OSError as exc:
        raise UsageError(f"cannot read {_display_name(path)}: {exc.strerror or exc}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise UsageError(f"{_display_name(path)}: larger than {MAX_INPUT_BYTES:,} bytes, the most FILE may hold")
    try:
        # utf-8-sig: editors on Windows still save JSON with a byte-order mark
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{_display_name(path)}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def _dump(value: Any, compact: bool = False) -> str:
    if compact:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(value, indent=2, ensure_ascii=False)


# -- what FILE holds ------------------------------------------------------------------

_SCHEMA_KEYS = ("type", "properties", "$schema", "anyOf", "oneOf", "allOf", "$ref", "items", "enum")
_JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")


@attrs.frozen
class _Item:
    label: str  # where the item is, for messages ("" for a file that is one schema)
    value: Any  # the tool as given, or the schema
    is_tool: bool
    schema: Any  # the tool's schema, or the schema
    pointer: str  # where `schema` sits in its document
    name: str | None = None  # the tool's name
    strict: bool | None = None  # the tool's own strict flag (an output's: its body's)
    output: bool = False  # a request body's structured-output schema


@attrs.frozen
class _Doc:
    """One JSON value of FILE and the items it holds."""

    source: Document
    items: tuple[_Item, ...]
    many: bool  # printed back as a list
    tools: bool  # a list of tools: normalized together (unique names, request limits)
    error: str | None = None  # a document of a batch that holds no schema or tool
    request: bool = False  # a provider request body: normalized whole (`normalize_request`)


@attrs.frozen
class _Input:
    name: str  # the path as given, `<stdin>` for -
    text: str
    docs: tuple[_Doc, ...]

    @property
    def lines(self) -> bool:
        """Several documents: one output line each."""
        return len(self.docs) > 1

    def items(self) -> list[_Item]:
        return [it for d in self.docs for it in d.items]


def _load(path: str, requests: bool | None = False) -> _Input:
    """FILE's documents. `requests`: True, each is a request body; None, a document that
    is one (`_is_request`) is read so; False, its tools and output schemas are read as
    items (check, diff)."""
    name = _display_name(path)
    text = _read_text(path)
    try:
        sources = read(text, name)
    except JSONSourceError as exc:  # name:line:column: what is wrong, as it stands
        raise UsageError(str(exc)) from None
    docs = []
    for source in sources:
        where = f"line {source.line}" if len(sources) > 1 else ""
        if source.error is not None:
            # a line of JSON Lines that is no JSON: named when the batch runs, a null in its place
            docs.append(_Doc(source, (_Item(where, None, False, None, ""),), False, False, str(source.error)))
            continue
        try:
            request = requests or (requests is None and _is_request(source.value))
            docs.append(_request(source, where) if request else _document(source, where))
        except UsageError as exc:
            if len(sources) == 1:
                raise
            # one bad document of a batch: named when the batch runs, a null in its place
            docs.append(_Doc(source, (_Item(where, None, False, None, ""),), False, False, str(exc)))
    return _Input(name, text, tuple(docs))


def _document(source: Document, where: str) -> _Doc:
    """One schema, one tool, a list of tools, an MCP tools/list result, corpus records, or
    a request body's tools and output schemas."""
    value, base = source.value, ""
    if isinstance(value, dict) and isinstance(value.get("result"), dict) and "tools" in value["result"]:
        value, base = value["result"], "/result"  # a JSON-RPC response to tools/list
    if _is_request(value):
        tools, outputs = _located(value, where, base)
        return _Doc(source, tools + outputs, True, bool(tools))
    if _holds_tools(value):
        value, base = value["tools"], base + "/tools"
    group = _group(value, where or "the input")
    if group is not None:
        # one Tool of declarations, as normalize_tools reads it: its tools, a list
        key, value = group
        base = f"{base}/{escape(key)}"
    if not isinstance(value, list):
        item = _item(value, where, base, None)
        return _Doc(source, (item,), False, False)
    items = tuple(_listed(value, where, base))
    tools = bool(items) and all(it.is_tool for it in items)
    return _Doc(source, items, True, tools)


def _listed(value: list[Any], where: str, base: str) -> Iterator[_Item]:
    """The items of a list, a group of tools in it (a Gemini `Tool`, in python-genai's
    `config.tools`) its tools where it stands, as normalize_tools reads it."""
    for i, v in enumerate(value):
        group = _group(v, " ".join(p for p in (where, f"#{i}") if p))
        if group is None:
            yield _item(v, where, f"{base}/{i}", i)
            continue
        key, tools = group
        for j, tool in enumerate(tools):
            yield _item(tool, where, f"{base}/{i}/{escape(key)}/{j}", i)


# the fields of an MCP `tools/list` result: a tool list beside any other is a request's
_LISTING = frozenset({"tools", "nextCursor", "_meta"})


def _holds_tools(value: Any) -> bool:
    """An object holding a tool list under `tools` (no schema's own keyword)."""
    return isinstance(value, dict) and isinstance(value.get("tools"), list) and not _looks_like_schema(value)


def _is_request(value: Any) -> bool:
    """A provider request body: a tool list beside fields no `tools/list` result has
    (`model`, `messages`, `contents`), which reading its tools alone would drop; or an
    object, no schema and no tool, in which a shipped target's `locate` finds a tool
    list or an output schema (Bedrock's `toolConfig`, Anthropic's `output_config`)."""
    if not isinstance(value, dict) or _looks_like_schema(value):
        return False
    if _holds_tools(value):
        return not value.keys() <= _LISTING
    if "schema" in value or _is_group(value) or _parsed_tool(value) is not None:
        return False  # a corpus record, a group of tools or a tool
    return any(True for _ in _found(value))


def _found(body: dict[str, Any]) -> Any:
    """(field, tokens, value, parent) of each place a shipped target's `locate` finds in `body`."""
    from wireschema.ruletable import jsonpath, path_tokens

    for field, path, _targets in wireschema._registry().body_paths():
        for datum in jsonpath(path).find(body):
            parent = datum.context.value if datum.context is not None else None
            yield field, tuple(path_tokens(datum)), datum.value, parent


def _located(body: dict[str, Any], where: str, base: str) -> tuple[tuple[_Item, ...], tuple[_Item, ...]]:
    """A request body's function tools and output schemas, wherever a shipped target's
    `locate` finds them (a body written for one wire is judged on every target), in the
    body's order. An output asks for strict mode where its body says so or its wire
    always enforces it; server tools and Gemini's groups of declarations (whose
    declarations are found themselves) are no items."""
    tools: dict[tuple[Any, ...], Any] = {}
    outputs: dict[tuple[Any, ...], _Item] = {}
    for field, tokens, value, parent in _found(body):
        if field == "tools":
            if isinstance(value, list):
                tools.update(((*tokens, i), entry) for i, entry in enumerate(value))
            continue
        at = base + pointer(tokens)
        flag = parent.get("strict") if isinstance(parent, dict) else None
        asked = flag if isinstance(flag, bool) else (True if field == "strict_outputs" else None)
        outputs.setdefault(tokens, _Item(_join(where, f"output {at}"), value, False, value, at, None, asked, True))
    items = [_item(tools[t], where, base + pointer(t), None) for t in sorted(tools, key=_in_order) if not _is_group(tools[t])]
    listed = tuple(
        attrs.evolve(it, label=_join(where, f"#{n}", it.name or ""))
        for n, it in enumerate(it for it in items if it.is_tool)
    )
    return listed, tuple(outputs[t] for t in sorted(outputs, key=_in_order))


def _in_order(tokens: tuple[Any, ...]) -> list[tuple[int, Any]]:
    # indices as numbers (tools/10 after tools/9)
    return [(0, t) if isinstance(t, int) else (1, t) for t in tokens]


def _request(source: Document, where: str) -> _Doc:
    if not isinstance(source.value, dict):
        raise UsageError(f"{where or 'the input'} is {_json_kind(source.value)}, not a request body (a JSON object)")
    return _Doc(source, (_Item(where, source.value, False, None, ""),), False, False, request=True)


def _group(value: Any, what: str) -> tuple[str, list[Any]] | None:
    """The key and the tools of a group of tools (a Gemini `Tool`), None for any other
    value; a group holding more beside its tools is a usage error, naming `what`."""
    from wireschema.tools import grouped_tools

    try:
        return grouped_tools(value) if isinstance(value, dict) else None
    except ToolShapeError as exc:
        raise UsageError(f"{what}: {exc}") from None


def _is_group(value: Any) -> bool:
    from wireschema.tools import group_key

    return isinstance(value, dict) and group_key(value) is not None


def _item(value: Any, where: str, pointer: str, index: int | None) -> _Item:
    label = " ".join(p for p in (where, "" if index is None else f"#{index}") if p)
    if not isinstance(value, (dict, bool)):
        raise UsageError(f"{label or 'the input'} is {_json_kind(value)}, not a JSON Schema or a tool")
    if isinstance(value, dict) and not _looks_like_schema(value):
        if _is_group(value):
            # read as a schema, a group would be one taking any value, its tools never read
            raise UsageError(
                f"{label or 'the input'} is a group of tools (one Tool of declarations) in a list: give one group, "
                "its tools as a list, or the request body that holds them"
            )
        if "schema" in value:
            # a corpus record: {"id": ..., "name": ..., "schema": {...}}
            name = value.get("name") or value.get("id") or ""
            return _Item(_join(label, str(name)), value["schema"], False, value["schema"], f"{pointer}/schema")
        parsed = _parsed_tool(value)
        if parsed is not None:
            inner = _path_to(value, parsed.schema)
            return _Item(_join(label, parsed.name), value, True, parsed.schema, pointer + inner, parsed.name, parsed.strict)
        if value and wireschema._registry().vocabulary.keywords.isdisjoint(value):
            # an OpenAPI document, say: every key would be dropped, as --explain would tell
            warning(f"{label or 'the input'} holds no JSON Schema keyword (its keys: {first_few(value, 5)}): read as a schema taking any value")
    return _Item(label, value, False, value, pointer)


def _parsed_tool(value: dict[str, Any]) -> Any:
    """`value` read as a tool of any shipped shape, or None."""
    from wireschema.tools import parse_tool

    try:
        # a tool of a field no wire takes is still one: normalizing it names the field
        return parse_tool(value, wireschema._registry(), judged=False)
    except ToolShapeError:
        return None


def _join(*parts: str) -> str:
    return " ".join(p for p in parts if p)


def _path_to(tool: dict[str, Any], schema: Any, depth: int = 4) -> str:
    """Where in `tool` its schema sits (the tool shapes put it two or three keys deep)."""
    stack: list[tuple[Any, str, int]] = [(tool, "", 0)]
    while stack:
        node, at, d = stack.pop()
        if node is schema:
            return at
        if isinstance(node, dict) and d < depth:
            stack.extend((v, f"{at}/{escape(str(k))}", d + 1) for k, v in node.items())
    return ""


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    return {str: "a string", list: "an array", int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _looks_like_schema(value: dict[str, Any]) -> bool:
    # a tool may say "type": "function"; a schema's type is a JSON type (or a list)
    t = value.get("type")
    if isinstance(t, str) and t not in _JSON_TYPES:
        return any(k in value for k in _SCHEMA_KEYS if k != "type")
    return any(k in value for k in _SCHEMA_KEYS)


# -- the targets -------------------------------------------------------------------


def _named_targets(args: argparse.Namespace, names: str | None) -> list[Any]:
    if names is None:
        return [wireschema._target(t.name) for t in wireschema.targets()] + (
            [args.rules_set[n] for n in args.rules_set.names()] if args.rules_set is not None else []
        )
    chosen = [named_target(args, n.strip()) for n in names.split(",") if n.strip()]
    if not chosen:
        raise UsageError("--targets names no target")
    return chosen


def _has_strict(target: Any) -> bool:
    return target.strict_form() is not None


def _check_strict(target: Any, strict: bool | None) -> None:
    """--strict / --no-strict must name a mode the target has."""
    if strict is True and not _has_strict(target):
        having = ", ".join(t.name for t in wireschema.targets() if _has_strict(wireschema._target(t.name)))
        raise UsageError(f"--strict: target {target.name} has no strict variant (these have one: {having})")
    if strict is False and target.strict and target.related(target.non_strict or target.fail_open) is None:
        raise UsageError(f"--no-strict: target {target.name} has no non-strict sibling")


class _Progress:
    """A one-line progress bar on stderr, only for long batches on a terminal."""

    def __init__(self, total: int):
        self.total = total
        self.on = total > 200 and sys.stderr.isatty()
        self.done = 0

    def step(self, n: int = 1) -> None:
        before, self.done = self.done, self.done + n
        if self.on and (self.done // 25 > before // 25 or self.done == self.total):
            filled = 30 * self.done // self.total
            write(sys.stderr, f"\r[{'#' * filled}{' ' * (30 - filled)}] {self.done}/{self.total}")
            if self.done == self.total:
                write(sys.stderr, "\n")


# -- one run over the input -------------------------------------------------------------


@attrs.frozen
class _Outcome:
    item: _Item
    output: Any = None  # the native tool or the wire schema
    result: Any = None  # the Result; None for a tool passed through or a failure
    error: str | None = None
    request: Any = None  # a request body's RequestResult

    def results(self) -> list[tuple[str, Any]]:
        """(label, Result) of each schema normalized: the item's, or each tool's and
        output's of a request body."""
        if self.request is None:
            return [] if self.result is None else [(self.item.label, self.result)]
        at = f"{self.item.label} " if self.item.label else ""
        tools = [
            (f"{at}tool {name}", r)
            for group in self.request.tools for name, r in zip(group.wire_names, group.results) if r is not None
        ]
        return tools + [(f"{at}output #{i}", r) for i, r in enumerate(self.request.outputs)]


def _process(
    data: _Input, target: Any, strict: bool | None, output: bool, *, first: bool = True, named: bool = False
) -> list[list[_Outcome]]:
    """Normalize every item for one target; a document of a batch that fails is named
    (once, for the first target, if no target can read it; `named`: with the target's
    name where only this one failed) and gets a null in its place."""
    progress = _Progress(len(data.items()))
    out = []
    for doc in data.docs:
        if doc.error is not None:
            if first:
                error(doc.error)
            out.append([_Outcome(doc.items[0], error=doc.error)])
            progress.step()
            continue
        try:
            outcomes = _process_doc(doc, target, strict, output)
        except (WireschemaError, RecursionError, ValueError, TypeError) as exc:
            if not data.lines:
                raise
            message = str(exc) if isinstance(exc, WireschemaError) else f"internal error: {type(exc).__name__}: {exc}"
            label = doc.items[0].label.split(" #")[0] if doc.items else ""
            error(_join(f"{target.name}:" if named else "", label, message))
            outcomes = [_Outcome(it, error=message) for it in doc.items]
        out.append(outcomes)
        progress.step(len(doc.items))
    return out


def _process_doc(doc: _Doc, target: Any, strict: bool | None, output: bool) -> list[_Outcome]:
    if doc.request:
        (it,) = doc.items
        done = wireschema.normalize_request(it.value, target)
        if not done.tools and not done.outputs:
            said = f"a request body with no tool list or output schema where {target.name}'s requests hold them: printed as it is"
            warning(_join(f"{it.label}:" if it.label else "", said))
        return [_Outcome(it, done.body, request=done)]
    if output and any(it.is_tool for it in doc.items):
        raise UsageError("--output takes structured-output schemas; the input holds tools")
    outcomes = []
    if doc.tools:
        listed = [it for it in doc.items if not it.output]
        done = wireschema.normalize_tools([it.value for it in listed], target, strict=strict)
        outcomes = [_Outcome(it, tool, result) for it, tool, result in zip(listed, done.tools, done.results)]
    for it in doc.items[len(outcomes):]:
        if it.output:
            result = wireschema.normalize_output(it.schema, target, strict=it.strict if strict is None else strict)
            outcomes.append(_Outcome(it, result.schema, result))
        elif it.is_tool:
            one = wireschema.normalize_tool(it.value, target, strict=strict)
            outcomes.append(_Outcome(it, one.tool, one.result))
        else:
            fn = wireschema.normalize_output if output else wireschema.normalize
            result = fn(it.schema, target, strict=strict)
            outcomes.append(_Outcome(it, result.schema, result))
    return outcomes


def _warn_outcomes(outcomes: list[list[_Outcome]]) -> None:
    """A fallback or a strict target failing open is news even without --explain."""
    for label, r in (pair for doc in outcomes for o in doc for pair in o.results()):
        where = f"{label}: " if label else ""
        if r.used_fallback:
            sent = json.dumps(r.schema, ensure_ascii=False, separators=(",", ":"))
            warning(f"{where}{r.target} cannot take this schema and fell back to {sent}: {r.fallback_reason}")
        elif r.strict_reason:
            warning(f"{where}{r.target} sends this schema non-strict: {r.strict_reason}")


def _assemble(data: _Input, outcomes: list[list[_Outcome]], value: Callable[[_Outcome], Any]) -> None:
    """Print the documents back in the input's layout: one JSON document, or one a line."""
    for doc, done in zip(data.docs, outcomes):
        values = [value(o) for o in done]
        printed = values if doc.many else values[0]
        say(_dump(printed, compact=data.lines))


# -- normalize ---------------------------------------------------------------------


def setup_normalize(sub: Any) -> None:
    p = add_command(sub, "normalize", "rewrite schemas or tools for one target and print them as JSON")
    p.add_argument("file", metavar="FILE", help="a schema, tool, tool list, request body or JSON Lines; - for standard input")
    p.add_argument("--target", "-t", help="target name (see `wireschema targets`)")
    add_model(p)
    p.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the target's strict variant on or off (default: the target's own, or each tool's strict flag)",
    )
    p.add_argument("--output", action="store_true", help="the schemas are structured-output schemas")
    p.add_argument(
        "--request",
        action="store_true",
        help="each document is a provider request body: its tool lists and output schemas are normalized where they "
        "stand, the rest kept (a body with a tool list beside other fields, model or messages, is read so anyway)",
    )
    p.add_argument("--explain", action="store_true", help="print the change report on standard error")
    p.add_argument(
        "--report",
        choices=["json"],
        help="print, instead of the bare output, one JSON report per item: the output, strict, fallback and every change",
    )
    p.set_defaults(run=_run_normalize)


def _run_normalize(args: argparse.Namespace) -> int:
    target = chosen_target(args, args.target)
    _check_strict(target, args.strict)
    data = _load(args.file, requests=True if args.request else None)
    bodies = [doc for doc in data.docs if doc.request]
    if bodies and (args.output or args.strict is not None):
        said = "--output" if args.output else "--strict/--no-strict"
        first = bodies[0].items[0].label or "the input"
        raise UsageError(
            f"{first} is a request body, whose tools and output fields say what they are and ask for strict mode "
            f"themselves: {said} is not taken with it"
        )
    outcomes = _process(data, target, args.strict, args.output)
    if args.report == "json":
        _assemble(data, outcomes, _report)
    else:
        _assemble(data, outcomes, lambda o: o.output)
    _warn_outcomes(outcomes)
    if args.explain:
        for o in (o for doc in outcomes for o in doc):
            for label, result in o.results():
                write(sys.stderr, (f"{label}: " if label else "") + result.explain() + "\n")
            if o.request is not None and o.request.changes:
                # what was mended beside the schemas (a string no UTF-8 text holds)
                at = f"{o.item.label} " if o.item.label else ""
                write(sys.stderr, f"{at}body:\n" + "".join(f"  {c}\n" for c in o.request.changes))
    return FINDINGS if any(o.error for doc in outcomes for o in doc) else 0


def _report(o: _Outcome) -> dict[str, Any]:
    if o.request is not None:
        return _request_report(o.request)
    out: dict[str, Any] = {"name": o.item.name}
    r = o.result
    if o.error is not None:
        out["error"] = o.error
    elif r is None:
        out["passed_through"] = True  # not a function tool (a server tool, a cache point)
    else:
        out.update(_result_report(r))
    out["output"] = o.output
    return out


def _result_report(r: Any) -> dict[str, Any]:
    return {
        "target": r.target,
        "strict": r.strict,
        "used_fallback": r.used_fallback,
        "fallback_reason": r.fallback_reason,
        "strict_reason": r.strict_reason,
        "wrapped": r.wrapped,
        "changes": [_change(c) for c in r.changes],
    }


def _change(c: Any) -> dict[str, Any]:
    return {"rule": c.rule, "pointer": c.pointer, "action": c.action, "detail": c.detail}


def _request_report(done: Any) -> dict[str, Any]:
    """A request body's report: each tool's (by the name the model calls it) and each
    output schema's, in the body's order, what was mended beside them, and the body."""
    names = dict(done.names.items())
    tools = [
        {"name": names.get(wire, wire), "wire_name": wire, **_result_report(r)}
        for group in done.tools for wire, r in zip(group.wire_names, group.results) if r is not None
    ]
    return {
        "tools": tools,
        "outputs": [_result_report(r) for r in done.outputs],
        "changes": [_change(c) for c in done.changes],
        "output": done.body,
    }


# -- check -------------------------------------------------------------------------

_KINDS = ("fallback", "strict", "dropped", "loosened", "risk", "spilled", "misspelled")
_DEFAULT_FAIL_ON = ("fallback", "strict", "dropped", "loosened", "risk", "misspelled")

# dropping these loses no constraint: identifiers, bookkeeping and pure annotations
_HARMLESS = frozenset(
    {"$schema", "$id", "$anchor", "$comment", "$defs", "definitions", "$dynamicAnchor", "$vocabulary", "title",
     "deprecated", "readOnly", "writeOnly", "examples", "example", "markdownDescription", "optional", "default"}
)


# changes beside the parameter schema that `check` judges: a field of the tool another
# wire has no place for, and what its own output schema's normalization did (reported in
# the tool's result; an output schema describes what the caller's function returns)
_BESIDE = frozenset({"tool/shape", "tool/output"})


@attrs.frozen
class _Finding:
    target: str
    item: _Item
    kind: str
    pointer: str  # into the item's schema
    keyword: str
    rule: str
    detail: str
    label: str  # the item's, or a request body's tool or output


def _keyword(pointer: str) -> str:
    return unescape(pointer.rsplit("/", 1)[-1]) if pointer else ""


def _findings(target: Any, o: _Outcome, strict: bool | None) -> list[_Finding]:
    """The findings of every schema the outcome normalized: the item's, or each tool's and
    output's of a request body, judged as `normalize` made them."""
    if o.request is None:
        return [] if o.result is None else _result_findings(target, o, o.item.label, o.result, strict)
    return [f for label, r in o.results() for f in _result_findings(target, o, label, r, strict)]


def _result_findings(target: Any, o: _Outcome, label: str, r: Any, strict: bool | None) -> list[_Finding]:
    def finding(kind: str, pointer: str, rule: str, detail: str) -> _Finding:
        # a spill dropped as telling the model nothing is as unenforced as one spilled
        kind = "spilled" if kind == "dropped" and silenced(detail) else kind
        return _Finding(r.target, o.item, kind, pointer, _keyword(pointer), rule, detail, label)

    out = []
    gave_up = [c for c in r.changes if c.action == "fallback"]
    if r.used_fallback:
        out += [finding("fallback", c.pointer, c.rule, c.detail) for c in gave_up] or [
            finding("fallback", "", "", r.fallback_reason or "fell back")
        ]
    else:
        wanted = strict if strict is not None else (o.item.strict if o.item.strict is not None else target.strict)
        if wanted and not r.strict and _has_strict(target):
            out += [finding("strict", c.pointer, c.rule, c.detail) for c in gave_up] or [
                finding("strict", "", "", r.strict_reason or "sent non-strict (normalize --explain tells why)")
            ]
    for c in r.changes:
        keyword = _keyword(c.pointer)
        if c.rule in _BESIDE:
            continue
        # a keyword kept as written though no vocabulary knows it: the only change that
        # keeps a part of the schema and says so (a bypassed schema is kept whole, at "")
        if c.action == "kept" and c.pointer:
            out.append(finding("misspelled", c.pointer, c.rule, c.detail))
        elif c.action in ("spilled", "loosened") or (c.action == "dropped" and keyword not in _HARMLESS and not keyword.startswith("x-")):
            out.append(finding(c.action, c.pointer, c.rule, c.detail))
    return out


def _risks(target: Any, doc: list[_Outcome]) -> list[_Finding]:
    """What the wire may refuse in one document's wire schemas (`risks.py`); the grammar
    over its strict ones together, by the strict form's `risks`."""
    from wireschema.risks import findings

    strict_form = target.strict_form()
    risks = {**target.risks, **(strict_form.risks if strict_form is not None else {})}
    # each finding is labelled as the others are: the item's, or a request body's tool or output
    sent = [(o, label, r) for o in doc for label, r in o.results()]
    if not risks or not sent:
        return []
    found = findings(risks, [r.schema for _, _, r in sent], [r.strict for _, _, r in sent])
    return [_Finding(r.target, o.item, "risk", at, _keyword(at), rule, what, label)
            for i, at, rule, what in found for o, label, r in (sent[i],)]


def _said_once(found: list[_Finding]) -> list[_Finding]:
    """One finding where a misspelt keyword is dropped too: the misspelling, which says why."""
    misspelled = {(id(f.item), f.pointer) for f in found if f.kind == "misspelled"}
    return [f for f in found if f.kind == "misspelled" or (id(f.item), f.pointer) not in misspelled]


def _kinds(text: str) -> tuple[str, ...]:
    kinds = tuple(dict.fromkeys(k.strip() for k in text.split(",") if k.strip()))
    unknown = [k for k in kinds if k not in _KINDS]
    if unknown or not kinds:
        raise UsageError(f"--fail-on: unknown kind {', '.join(unknown) or '(none)'} (known: {', '.join(_KINDS)})")
    return kinds


def setup_check(sub: Any) -> None:
    p = add_command(sub, "check", "exit 1 if any target would fall back, fail strict, or lose a constraint")
    p.add_argument("file", metavar="FILE", help="a schema, tool, tool list, request body or JSON Lines; - for standard input")
    p.add_argument("--targets", help="comma-separated target names (default: every target)")
    add_model(p)
    p.add_argument(
        "--fail-on",
        default=",".join(_DEFAULT_FAIL_ON),
        metavar="KINDS",
        help=f"which changes are findings: a comma-separated subset of {', '.join(_KINDS)} "
        f"(default: {','.join(_DEFAULT_FAIL_ON)}; spilled text stays in the description, so it is not a loss by default)",
    )
    p.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="KEYWORD",
        help="no finding for changes of this keyword (repeatable, or comma-separated)",
    )
    p.add_argument("--format", choices=["text", "json", "github"], default="text", help="github: workflow annotations")
    p.set_defaults(run=_run_check)


def _run_check(args: argparse.Namespace) -> int:
    fail_on = _kinds(args.fail_on)
    ignore = sorted({k.strip() for arg in args.ignore for k in arg.split(",") if k.strip()})
    targets = [chosen_target(args, args.targets, "--targets")] if args.model else _named_targets(args, args.targets)
    # a request body is judged as `normalize` sends it: whole, for each target
    data = _load(args.file, requests=None)
    per_target = []
    for n, t in enumerate(targets):
        docs = _process(data, t, None, False, first=n == 0, named=True)
        outcomes = [o for doc in docs for o in doc]
        found = [f for o in outcomes for f in _findings(t, o, None)] + [f for doc in docs for f in _risks(t, doc)]
        found = _said_once([f for f in found if f.kind in fail_on and f.keyword not in ignore])
        per_target.append((t.name, outcomes, found))
    failed = any(found for _, _, found in per_target) or any(o.error for _, outs, _ in per_target for o in outs)
    if args.format == "json":
        say(_dump(_check_json(per_target, fail_on, ignore, failed)))
    else:
        where = _Locator(data) if args.format == "github" else None
        for name, outcomes, found in per_target:
            for f in found:
                say(_github_line(f, where) if where is not None else _text_line(f))
            say(_summary(name, outcomes, found))
    return FINDINGS if failed else 0


def _text_line(f: _Finding) -> str:
    where = _join(f.label, f.pointer or "/")
    return f"{f.target}: {where} {f.kind}: {f.detail}" + (f" [{f.rule}]" if f.rule else "")


def _summary(name: str, outcomes: list[_Outcome], found: list[_Finding]) -> str:
    checked = sum(len(o.results()) for o in outcomes)
    errors = sum(o.error is not None for o in outcomes)
    tail = f"; {errors} could not be read" if errors else ""
    if not found:
        return f"{name}: ok ({checked} checked{tail})"
    items = len({(id(f.item), f.label) for f in found})
    counts = ", ".join(f"{n} {k}" for k in _KINDS if (n := sum(f.kind == k for f in found)))
    return f"{name}: {counts} in {items} of {checked} checked{tail}"


def _check_json(per_target: list[tuple[str, list[_Outcome], list[_Finding]]], fail_on: tuple[str, ...], ignore: list[str], failed: bool) -> dict[str, Any]:
    return {
        "ok": not failed,
        "fail_on": list(fail_on),
        "ignore": ignore,
        "targets": [
            {
                "target": name,
                "checked": sum(len(o.results()) for o in outcomes),
                "errors": [{"item": o.item.label, "error": o.error} for o in outcomes if o.error is not None],
                "findings": [
                    {"item": f.label, "name": f.item.name, "kind": f.kind, "pointer": f.pointer,
                     "keyword": f.keyword, "rule": f.rule, "detail": f.detail}
                    for f in found
                ],
            }
            for name, outcomes, found in per_target
        ],
    }


class _Locator:
    """Line and column in FILE of a pointer into an item's schema (GitHub annotations)."""

    def __init__(self, data: _Input):
        self.data = data
        self.docs = {id(it): doc for doc in data.docs for it in doc.items}
        self.maps: dict[int, dict[str, int]] = {}
        self.lines = Lines(data.text)

    def __call__(self, item: _Item, pointer: str) -> tuple[int, int]:
        doc = self.docs[id(item)]
        table = self.maps.get(id(doc))
        if table is None:
            table = self.maps[id(doc)] = positions(self.data.text, doc.source)
        at = item.pointer + pointer
        # a pointer into $defs resolved away, or into a spelling renamed on the way: the
        # nearest enclosing value that the file has
        while at not in table and at:
            at = at.rsplit("/", 1)[0]
        return self.lines.at(table.get(at, doc.source.start))


def _github_line(f: _Finding, where: _Locator) -> str:
    # https://docs.github.com/actions/reference/workflow-commands-for-github-actions
    line, column = where(f.item, f.pointer)
    props = [f"line={line}", f"col={column}", f"title={_gh_prop(f'wireschema {f.target}: {f.kind}')}"]
    if where.data.name != "<stdin>":
        props.insert(0, f"file={_gh_prop(where.data.name)}")
    message = f"{_join(f.label, f.pointer or '/')}: {f.detail}" + (f" [{f.rule}]" if f.rule else "")
    return f"::error {','.join(props)}::{_gh_data(message)}"


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


# -- diff --------------------------------------------------------------------------


def setup_diff(sub: Any) -> None:
    p = add_command(sub, "diff", "side by side, what each target receives where it differs (changed pointers only)")
    p.add_argument("file", metavar="FILE", help="a schema, tool, tool list, request body or JSON Lines; - for standard input")
    p.add_argument("--targets", required=True, help="comma-separated target names")
    p.add_argument("--width", type=int, default=28, help="widest cell before it is cut with … (default 28)")
    p.set_defaults(run=_run_diff)


_ABSENT = "-"


def _leaves(value: Any) -> dict[str, str]:
    """Pointer → compact JSON of every leaf; a list of scalars is one leaf."""
    out: dict[str, str] = {}
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        at, v = stack.pop()
        if isinstance(v, dict) and v:
            stack.extend((f"{at}/{escape(k)}", sub) for k, sub in reversed(list(v.items())))
        elif isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v):
            stack.extend((f"{at}/{i}", sub) for i, sub in reversed(list(enumerate(v))))
        else:
            out[at] = json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    return out


def _run_diff(args: argparse.Namespace) -> int:
    if args.width < 4:
        raise UsageError("--width must be 4 or more")
    targets = _named_targets(args, args.targets)
    data = _load(args.file)
    runs = [[o for doc in _process(data, t, None, False, first=n == 0, named=True) for o in doc] for n, t in enumerate(targets)]
    items = data.items()
    for n, item in enumerate(items):
        if len(items) > 1:
            say(("" if n == 0 else "\n") + f"== {item.label}")
        outcomes = [run[n] for run in runs]
        say(_side_by_side(item, [t.name for t in targets], outcomes, args.width))
    return FINDINGS if any(o.error for run in runs for o in run) else 0


def _side_by_side(item: _Item, names: list[str], outcomes: list[_Outcome], width: int) -> str:
    def shown(o: _Outcome, pick: Callable[[Any], Any]) -> str:
        if o.error is not None:
            return "error"
        return _ABSENT if o.result is None else str(pick(o.result))

    columns = [_leaves(item.schema)] + [_leaves(o.result.schema) if o.result is not None else {} for o in outcomes]
    rows = [["", "input", *names]]
    rows.append(["strict", "", *(shown(o, lambda r: str(r.strict).lower()) for o in outcomes)])
    rows.append(["fallback", "", *(shown(o, lambda r: str(r.used_fallback).lower()) for o in outcomes)])
    for action in ("spilled", "dropped"):
        rows.append([action, "", *(shown(o, lambda r: sum(c.action == action for c in r.changes)) for o in outcomes)])
    head = len(rows)
    for p in _merged_order(columns):
        cells = [col.get(p, _ABSENT) for col in columns]
        if len(set(cells)) > 1:
            rows.append([p or "(root)", *_cut_cells(cells, width)])
    if len(rows) == head:
        rows.append(["(every target receives the input as it is)"])
    widths = [max(len(r[i]) for r in rows if len(r) > i) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(head, "")
    return "\n".join(lines)


def _merged_order(columns: list[dict[str, str]]) -> list[str]:
    """Every pointer once, siblings together: a member a target added sits beside the
    members it came from, in the order each key first appears (input first)."""
    trie: dict[str, Any] = {}
    for col in columns:
        for p in col:
            node = trie
            for token in p.split("/")[1:] if p else []:
                node = node.setdefault(token, {})
            node.setdefault("", None)  # this prefix is a leaf of some column
    out: list[str] = []
    stack: list[tuple[str, Any]] = [("", trie)]
    while stack:
        at, node = stack.pop()
        if "" in node:
            out.append(at)
        stack.extend((f"{at}/{k}", sub) for k, sub in reversed(list(node.items())) if k != "")
    return out


def _cut_cells(cells: list[str], width: int) -> list[str]:
    """Cells no wider than `width`; where they share a long beginning, each shows where
    it starts to differ, so values that differ never look the same."""
    present = [c for c in cells if c != _ABSENT]
    same = len(os.path.commonprefix(present)) if len(set(present)) > 1 else 0
    skip = same - 8 if same >= width - 1 else 0

    def cut(text: str) -> str:
        if text == _ABSENT:
            return text
        if skip > 0:
            text = "…" + text[skip:]
        return text if len(text) <= width else text[: width - 1] + "…"

    return [cut(c) for c in cells]
