"""The `wireschema` command.

    wireschema normalize FILE|- --target T [--strict|--no-strict] [--explain]
    wireschema targets

Exit status: 0 ok, 2 usage or input error (one `wireschema: error: ...` line on stderr).
A schema the target cannot take is not an error: its fallback is printed and exits 0.

Each subcommand is a `_setup_*` function that adds its parser and sets `run` to its
handler; add new ones to `_COMMANDS`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

import wireschema
from wireschema.errors import SchemaInputError, WireschemaError

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
        return args.run(args)
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


# -- normalize ---------------------------------------------------------------------


def _setup_normalize(sub: Any) -> None:
    p = sub.add_parser("normalize", help="rewrite one schema for one target and print it as JSON")
    p.add_argument("file", metavar="FILE", help="JSON Schema file, or - for standard input")
    p.add_argument("--target", "-t", required=True, help="target name (see `wireschema targets`)")
    p.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="force the target's strict variant on or off (default: the target's own)",
    )
    p.add_argument("--explain", action="store_true", help="after the schema, print the change report")
    p.set_defaults(run=_run_normalize)


def _run_normalize(args: argparse.Namespace) -> int:
    text = _read_text(args.file)
    try:
        result = wireschema.normalize(text, args.target, strict=args.strict)
    except SchemaInputError as exc:
        raise _UsageError(f"{_display_name(args.file)}: {exc}") from None
    _out(_dump(result.schema))
    if args.explain:
        _out("")
        _out(result.explain())
    return 0


# -- targets -----------------------------------------------------------------------


def _setup_targets(sub: Any) -> None:
    p = sub.add_parser("targets", help="list the shipped targets")
    p.set_defaults(run=_run_targets)


def _run_targets(args: argparse.Namespace) -> int:
    infos = wireschema.targets()
    width = max((len(t.name) for t in infos), default=0)
    for t in infos:
        _out(f"{t.name:<{width}}  {t.description}")
    return 0


_COMMANDS: tuple[Callable[[Any], None], ...] = (_setup_normalize, _setup_targets)


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
