"""The `wireschema` command.

    wireschema normalize FILE|- --target T [--strict|--no-strict] [--output] [--explain]
    wireschema diff FILE|- --targets a,b,c
    wireschema check FILE|- [--targets a,b,c]
    wireschema targets
    wireschema rules lint [PATH]

Every command takes `--rules PATH` (a user's rule file or directory, whose targets then
sit beside the shipped ones). FILE may hold one JSON Schema, one tool, a list of tools,
an MCP `tools/list` result, or JSON Lines of any of those.

Exit status: 0 ok; 1 findings (check found losses, lint found a broken rule file, or
some items of a batch failed); 2 usage or input error, reported in one
`wireschema: error: ...` line on stderr, never a traceback.

Each subcommand is a `_setup_*` function that adds its parser and sets `run` to its
handler; `_COMMANDS` lists them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

import attrs

import wireschema
from wireschema.errors import RuleFileError, SchemaInputError, WireschemaError
from wireschema.outputs import normalize_output
from wireschema.positions import unescape
from wireschema.tools import ToolShapeError, normalize_tool, parse_tool

_PROG = "wireschema"
_USAGE_ERROR = 2


class _UsageError(Exception):
    """A bad command line or unreadable input: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    # argparse's own error() prints the whole usage block and calls sys.exit; route it
    # through main() so every failure looks the same and main() returns instead of exiting.
    def error(self, message: str) -> Any:
        raise _UsageError(message)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help and --version have printed already
            return exc.code if isinstance(exc.code, int) else 0
        args.rules_set = wireschema.load_rules(args.rules) if getattr(args, "rules", None) else None
        return args.run(args)
    except BrokenPipeError:
        # the reader (head, less) went away: nothing left to say, and nobody to say it to
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stops the interpreter's flush error
        return 0
    except (_UsageError, WireschemaError) as exc:
        # messages are written for humans already; a traceback would only hide them
        _error(str(exc))
        return _USAGE_ERROR


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=_PROG, description=wireschema.__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"{_PROG} {wireschema.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for setup in _COMMANDS:
        setup(sub)
    return parser


# -- what FILE holds ------------------------------------------------------------------

_SCHEMA_KEYS = ("type", "properties", "$schema", "anyOf", "oneOf", "allOf", "$ref", "items", "enum")


@attrs.frozen
class _Item:
    label: str  # index and name, for per-item messages
    tool: Any  # the tool as given, or None for a bare schema
    schema: Any


def _items(value: Any) -> list[_Item]:
    """One schema, one tool, a list of tools, an MCP tools/list result, or corpus records."""
    if isinstance(value, dict) and isinstance(value.get("result"), dict) and "tools" in value["result"]:
        value = value["result"]  # a JSON-RPC response to tools/list
    if isinstance(value, dict) and isinstance(value.get("tools"), list) and not _looks_like_schema(value):
        value = value["tools"]
    if isinstance(value, list):
        return [_item(v, i) for i, v in enumerate(value)]
    return [_item(value, None)]


def _item(value: Any, index: int | None) -> _Item:
    prefix = "" if index is None else f"#{index}"
    if not isinstance(value, (dict, bool)):
        where = f"item {prefix}" if prefix else "the input"
        raise _UsageError(f"{where} is {_json_kind(value)}, not a JSON Schema or a tool")
    if isinstance(value, dict) and "schema" in value and not _looks_like_schema(value):
        name = value.get("name") or value.get("id") or ""
        return _Item(f"{prefix} {name}".strip(), None, value["schema"])
    if isinstance(value, dict) and not _looks_like_schema(value):
        try:
            parsed = parse_tool(value, wireschema._registry())
        except ToolShapeError:
            parsed = None
        if parsed is not None:
            return _Item(f"{prefix} {parsed.name}".strip(), value, parsed.schema)
    return _Item(prefix or "schema", None, value)


_JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    return {str: "a string", list: "an array", int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _looks_like_schema(value: dict) -> bool:
    # a tool may say "type": "function"; a schema's type is a JSON type (or a list)
    t = value.get("type")
    if isinstance(t, str) and t not in _JSON_TYPES:
        return any(k in value for k in _SCHEMA_KEYS if k != "type")
    return any(k in value for k in _SCHEMA_KEYS)


def _load(path: str) -> tuple[list[_Item], bool]:
    """The items of FILE, and whether it held a collection (printed back as a list)."""
    text = _read_text(path)
    try:
        value = json.loads(text)
    except ValueError:
        pass
    else:
        items = _items(value)
        return items, len(items) != 1 or not isinstance(value, dict) or "tools" in value or "result" in value
    # JSON Lines: one value a line
    items: list[_Item] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise _UsageError(f"{_display_name(path)}:{n}: not JSON ({exc.msg})") from None
        items.extend(_items(value))
    if not items:
        raise _UsageError(f"{_display_name(path)}: no JSON value")
    if len(items) > 1:
        items = [attrs.evolve(it, label=f"#{i} {it.label.lstrip('#0123456789 ')}".strip()) for i, it in enumerate(items)]
    return items, True


def _targets(args: argparse.Namespace, names: str | None) -> list[Any]:
    if names is None:
        return [wireschema._target(t.name) for t in wireschema.targets()] + (
            [args.rules_set[n] for n in args.rules_set.names()] if args.rules_set is not None else []
        )
    return [_target(args, n.strip()) for n in names.split(",") if n.strip()]


def _target(args: argparse.Namespace, name: str) -> Any:
    if args.rules_set is not None and name in args.rules_set:
        return args.rules_set[name]
    return wireschema._target(name)


class _Progress:
    """A one-line progress bar on stderr, only for long batches on a terminal."""

    def __init__(self, total: int):
        self.total = total
        self.on = total > 200 and sys.stderr.isatty()
        self.done = 0

    def step(self) -> None:
        self.done += 1
        if self.on and (self.done % 25 == 0 or self.done == self.total):
            filled = 30 * self.done // self.total
            sys.stderr.write(f"\r[{'#' * filled}{' ' * (30 - filled)}] {self.done}/{self.total}")
            if self.done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()


def _each(items: list[_Item], fn: Callable[[_Item], Any]) -> tuple[list[Any], int]:
    """Run fn on every item; a failing item is reported on stderr and the rest go on."""
    progress = _Progress(len(items))
    out, failed = [], 0
    for item in items:
        try:
            out.append(fn(item))
        except WireschemaError as exc:
            failed += 1
            _error(f"{item.label}: {exc}")
        progress.step()
    return out, failed


# -- normalize ---------------------------------------------------------------------


def _setup_normalize(sub: Any) -> None:
    p = _command(sub, "normalize", "rewrite schemas or tools for one target and print them as JSON")
    p.add_argument("file", metavar="FILE", help="a schema, tool, tool list or JSON Lines; - for standard input")
    p.add_argument("--target", "-t", required=True, help="target name (see `wireschema targets`)")
    p.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="force the target's strict variant on or off (default: the target's own)",
    )
    p.add_argument("--output", action="store_true", help="the schemas are structured-output schemas")
    p.add_argument("--explain", action="store_true", help="after the JSON, print the change report")
    p.set_defaults(run=_run_normalize)


def _run_normalize(args: argparse.Namespace) -> int:
    items, many = _load(args.file)
    target = _target(args, args.target)

    def one(item: _Item) -> tuple[Any, Any]:
        if item.tool is not None:
            done = normalize_tool(item.tool, target, strict=args.strict)
            return done.tool, done.result
        if args.output:
            result = normalize_output(item.schema, target, strict=args.strict)
        else:
            result = wireschema.normalize(item.schema, target, strict=args.strict)
        return result.schema, result

    done, failed = _each(items, one)
    single = not many and not failed
    _out(_dump(done[0][0] if single else [value for value, _ in done]))
    if args.explain:
        for (_, result), item in zip(done, items):
            _out("")
            _out(result.explain() if single else f"{item.label}: {result.explain()}")
    return 1 if failed else 0


# -- diff --------------------------------------------------------------------------


def _setup_diff(sub: Any) -> None:
    p = _command(sub, "diff", "what each target receives and what each loses")
    p.add_argument("file", metavar="FILE", help="one schema or tool; - for standard input")
    p.add_argument("--targets", required=True, help="comma-separated target names")
    p.set_defaults(run=_run_diff)


def _run_diff(args: argparse.Namespace) -> int:
    items, many = _load(args.file)
    if many:
        raise _UsageError("diff compares one schema or tool across targets; FILE holds several")
    schema = items[0].schema
    targets = _targets(args, args.targets)
    results = [(t.name, wireschema.normalize(schema, t)) for t in targets]
    width = max(len(n) for n, _ in results)
    _out(f"{'target':<{width}}  strict  fallback  spilled / dropped")
    for name, r in results:
        lost = _losses(r)
        spilled = ", ".join(sorted({k for a, k in lost if a == "spilled"})) or "-"
        dropped = ", ".join(sorted({k for a, k in lost if a == "dropped"})) or "-"
        _out(f"{name:<{width}}  {str(r.strict):<6}  {str(r.used_fallback):<8}  {spilled} / {dropped}")
    for name, r in results:
        _out("")
        _out(f"== {name}" + (f" (fallback: {r.fallback_reason})" if r.used_fallback else ""))
        _out(_dump(r.schema))
    return 0


# -- check -------------------------------------------------------------------------

# dropping these loses no constraint: identifiers, bookkeeping and pure annotations
_HARMLESS = frozenset(
    {"$schema", "$id", "$anchor", "$comment", "$defs", "definitions", "$dynamicAnchor", "$vocabulary", "title",
     "deprecated", "readOnly", "writeOnly", "examples", "example", "markdownDescription", "optional", "default"}
)


def _losses(result: Any) -> list[tuple[str, str]]:
    """(action, keyword) of every change that loses something a validator would enforce."""
    out = []
    for c in result.changes:
        keyword = unescape(c.pointer.rsplit("/", 1)[-1]) if c.pointer else ""
        if c.action == "spilled" or (c.action == "dropped" and keyword not in _HARMLESS and not keyword.startswith("x-")):
            out.append((c.action, keyword))
    return out


def _setup_check(sub: Any) -> None:
    p = _command(sub, "check", "exit 1 if any target would fall back, fail strict, or lose a constraint")
    p.add_argument("file", metavar="FILE", help="a schema, tool, tool list or JSON Lines; - for standard input")
    p.add_argument("--targets", help="comma-separated target names (default: every target)")
    p.set_defaults(run=_run_check)


def _run_check(args: argparse.Namespace) -> int:
    items, _ = _load(args.file)
    findings = 0
    for t in _targets(args, args.targets):
        fallbacks = not_strict = lossy = 0
        lost: set[str] = set()
        for item in items:
            try:
                r = wireschema.normalize(item.schema, t)
            except SchemaInputError as exc:
                raise _UsageError(f"{item.label}: {exc}") from None
            losses = _losses(r)
            fallbacks += r.used_fallback
            not_strict += r.strict_reason is not None
            lossy += bool(losses)
            lost.update(k for _, k in losses)
        bad = fallbacks + not_strict + lossy
        findings += bad
        if not bad:
            _out(f"{t.name}: ok ({len(items)} checked)")
        else:
            parts = [f"{fallbacks} fall back"] if fallbacks else []
            parts += [f"{not_strict} not strict"] if not_strict else []
            parts += [f"{lossy} lose {', '.join(sorted(lost))}"] if lossy else []
            _out(f"{t.name}: {'; '.join(parts)} (of {len(items)})")
    return 1 if findings else 0


# -- targets -----------------------------------------------------------------------


def _setup_targets(sub: Any) -> None:
    p = _command(sub, "targets", "list the targets with their descriptions and rule files")
    p.set_defaults(run=_run_targets)


def _run_targets(args: argparse.Namespace) -> int:
    rows = [(t.name, t.description, t.path) for t in _targets(args, None)]
    width = max((len(n) for n, _, _ in rows), default=0)
    for name, description, path in rows:
        _out(f"{name:<{width}}  {description}  [{Path(path).name}]")
    return 0


# -- rules lint --------------------------------------------------------------------


def _setup_rules(sub: Any) -> None:
    p = _command(sub, "rules", "work with rule files")
    rsub = p.add_subparsers(dest="rules_command", metavar="ACTION", required=True)
    lint = rsub.add_parser("lint", help="compile rule files and report the first mistake with file:line:column")
    lint.add_argument("path", metavar="PATH", nargs="?", help="a rule file or directory (default: the shipped rules)")
    lint.set_defaults(run=_run_lint)


def _run_lint(args: argparse.Namespace) -> int:
    try:
        if args.path is None:
            names = [t.name for t in wireschema.targets()]
            where = "shipped rules"
        else:
            names = wireschema.load_rules(args.path).names()
            where = args.path
    except RuleFileError as exc:
        _out(f"wireschema: {exc}")
        return 1
    _out(f"ok: {len(names)} targets in {where}")
    return 0


_COMMANDS: tuple[Callable[[Any], None], ...] = (
    _setup_normalize,
    _setup_diff,
    _setup_check,
    _setup_targets,
    _setup_rules,
)


def _command(sub: Any, name: str, help_text: str) -> argparse.ArgumentParser:
    p = sub.add_parser(name, help=help_text, description=help_text)
    p.add_argument("--rules", metavar="PATH", help="a rule file or directory of your own")
    return p


# -- helpers -----------------------------------------------------------------------


def _read_text(path: str) -> str:
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise _UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        # utf-8-sig: editors on Windows still save JSON with a byte-order mark
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _UsageError(f"{_display_name(path)}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _out(text: str) -> None:
    print(text, file=sys.stdout)


def _error(message: str) -> None:
    # exactly one line, so scripts can show it as is; rule-file errors may span lines
    print(f"{_PROG}: error: {' '.join(message.split())}", file=sys.stderr)
