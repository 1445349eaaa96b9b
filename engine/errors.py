"""The exceptions wireschema raises. Everything else is reported, never raised."""

from __future__ import annotations


class WireschemaError(Exception):
    """Base class of every error wireschema raises on purpose."""


class SchemaInputError(WireschemaError, ValueError):
    """The input is not JSON: a set, bytes that do not parse, a cyclic container, NaN, ..."""


class UnknownTargetError(WireschemaError, LookupError):
    """No rule file is loaded under that target name."""


class RuleFileError(WireschemaError):
    """A rule file is malformed. The message names the file, line and column."""

    def __init__(self, path: str, line: int | None, column: int | None, message: str):
        self.path = path
        self.line = line
        self.column = column
        self.message = message
        where = path if line is None else f"{path}:{line}:{column}"
        super().__init__(f"{where}: {message}")
