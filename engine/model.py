"""Frozen value objects of the public API: options, changes, results."""

from __future__ import annotations

import json
from typing import Any

import attrs

ACTIONS = ("kept", "renamed", "rewritten", "spilled", "dropped", "fallback")


@attrs.frozen
class Options:
    """How one normalization runs. Budgets bound time and memory on hostile input."""

    max_depth: int = 96
    """Deepest nesting of JSON objects and arrays, counted after `$ref` expansion."""
    max_nodes: int = 32_768
    """Most JSON objects and arrays, counted after `$ref` expansion."""
    max_literal_bytes: int = 8 * 1024 * 1024
    """Most characters of keys and strings, counted after `$ref` expansion."""
    strict: bool | None = None
    """None: the target's own default. False on a strict target: its non-strict sibling."""
    spill: bool = True
    """Move constraints the wire rejects into `description` (False: drop them)."""
    bypass: bool = False
    """Return the input untouched (a copy), strict disabled."""
    allow_nan: bool = False
    """Accept NaN and Infinity floats (they are not JSON)."""


@attrs.frozen
class Change:
    """One thing wireschema did, and where: `pointer` is an RFC 6901 pointer into the input."""

    rule: str
    pointer: str
    action: str
    detail: str

    def __str__(self) -> str:
        return f"{self.rule} {self.pointer or '/'} {self.action}: {self.detail}"


@attrs.frozen
class Result:
    """The wire schema for one target and the report of how it was made."""

    schema: Any
    target: str
    strict: bool
    used_fallback: bool = False
    fallback_reason: str | None = None
    changes: tuple[Change, ...] = ()
    strict_reason: str | None = None
    """Why a strict target could not deliver strict output (it failed open)."""
    notes: dict[str, Any] = attrs.field(factory=dict, eq=False)
    """Facts later steps need, e.g. `nulled_optionals`: pointers of optional properties
    that strict mode turned into "required, or null"."""
    wrapped: bool = False
    """An output schema whose non-object root was wrapped as `{"response": ...}`."""
    origin: bytes | None = attrs.field(default=None, eq=False, repr=False)
    """The input, frozen (see `blobs`): what `restore` and `validate` read the original from."""

    @property
    def source(self) -> str | None:
        """The input as JSON text (None for a bypassed result)."""
        if self.origin is None:
            return None
        from .blobs import thaw

        return json.dumps(thaw(self.origin), ensure_ascii=False, separators=(",", ":"))

    def unwrap(self, value: Any) -> Any:
        """Undo the output wrapper: the `response` member (None if absent), else `value`."""
        if not self.wrapped:
            return value
        return value.get("response") if isinstance(value, dict) else None

    def restore(self, value: Any) -> Any:
        """A model's arguments or output, back in the original schema's shape.

        Unwraps `response`, and drops the nulls a strict wire forced onto optional
        properties whose original schema does not accept null. `value` is not mutated.
        """
        from .restore import restore

        return restore(self, value)

    def validate(self, value: Any) -> tuple["Issue", ...]:
        """Problems of the restored `value` against the ORIGINAL schema (empty: valid).

        Local only, nothing is fetched. Needs the `jsonschema` package
        (`pip install 'wireschema[validate]'`).
        """
        from .restore import validate

        return validate(self, value)

    def explain(self) -> str:
        """The change report, one line per change."""
        head = f"target {self.target}: strict={self.strict} fallback={self.used_fallback}"
        if self.fallback_reason:
            head += f" ({self.fallback_reason})"
        if self.strict_reason:
            head += f" (not strict: {self.strict_reason})"
        return "\n".join([head, *(f"  {c}" for c in self.changes)])


@attrs.frozen
class Issue:
    """One reason a value does not match the original schema."""

    pointer: str
    """RFC 6901 pointer into the value."""
    message: str
    schema_pointer: str = ""
    """Where in the original schema the failing keyword sits."""

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.message}"


@attrs.frozen
class TargetInfo:
    name: str
    description: str
    path: str
    strict: bool
