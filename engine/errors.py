"""The exceptions wireschema raises. Everything else is reported, never raised.

Every class here is importable from `wireschema` itself and derives from
`WireschemaError`, so `except wireschema.WireschemaError` catches whatever the library
raises on purpose.
"""

from __future__ import annotations

from typing import Iterable


class WireschemaError(Exception):
    """Base class of every error wireschema raises on purpose."""


class SchemaInputError(WireschemaError, ValueError):
    """The input is not JSON: a set, bytes that do not parse, a cyclic container, NaN, ..."""


class OptionsError(WireschemaError, TypeError, ValueError):
    """An `Options` field or a `configure_cache` size of the wrong type or out of range (a
    budget that is no int of at least 1, a switch that is no bool); the message names the
    field and the value."""


class UnknownTargetError(WireschemaError, LookupError):
    """No rule file is loaded under that target name."""


class UnknownModelError(UnknownTargetError):
    """No entry of the model catalog matches a model id, or none serves it where its
    prefix says (`bedrock/`, `vertex_ai/`); the message names the nearest known ids."""


class RuleFileError(WireschemaError):
    """A rule file is malformed. The message names the file, line and column."""

    def __init__(self, path: str, line: int | None, column: int | None, message: str):
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        where = path if line is None else f"{path}:{line}:{column}"
        super().__init__(f"{where}: {message}")


class ToolShapeError(WireschemaError, ValueError):
    """A tool that no known shape reads (no name where any wire puts one), or an item
    of a tool list that is not a tool at all; the message names its index and type."""


class RequestLimitError(WireschemaError, ValueError):
    """A request breaks a hard limit of the wire (too many tools), which no rewrite fixes."""


class UntranslatableError(WireschemaError, ValueError):
    """A part of a request body written for another wire (a message part, a tool choice,
    a provider's own tool) that the target's requests have no form for; the message names
    each and where. `on_untranslatable="drop"` drops them instead, reported."""


class ToolNameError(WireschemaError, ValueError):
    """A tool-name rule or name map that cannot work (e.g. `max_bytes` too small)."""


class ClientNotInstalledError(WireschemaError, ImportError):
    """A plug-in's client is not installed; the message names the extra that brings it."""


class UnknownToolNameError(WireschemaError, LookupError):
    """A name the `NameMap` does not know: a tool the request did not declare."""

    def __init__(self, name: str, side: str, known: Iterable[str]):
        import itertools

        self.name = name
        self.side = side
        shown = list(itertools.islice(known, 11))
        listed = ", ".join(repr(k) for k in shown[:10]) + (", ..." if len(shown) > 10 else "")
        super().__init__(f"no tool has the {side} name {name!r} (known: {listed or 'none'})")
