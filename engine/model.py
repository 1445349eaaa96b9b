"""Frozen value objects of the public API: options, changes, results."""

from __future__ import annotations

import json
import operator
from typing import Any, Union

import attrs

ACTIONS = ("kept", "renamed", "rewritten", "loosened", "spilled", "dropped", "fallback")
"""What a `Change` did. `rewritten` and `renamed` say the same in the wire's terms;
`loosened` is a rewrite after which the wire takes values the original refuses."""

JSONValue = Union[dict[str, Any], list[Any], str, int, float, bool, None]
"""A JSON value as Python holds it (a schema is a dict or a bool)."""


def _budget(_instance: Any, attribute: Any, value: Any) -> None:
    # a budget that is no whole number would fail deep inside a run, or never stop one
    if value.__class__ is not int or value < 1:
        from .errors import OptionsError

        raise OptionsError(f"Options.{attribute.name} must be an int of at least 1, got {value!r}")


def _switch(_instance: Any, attribute: Any, value: Any) -> None:
    if value.__class__ is not bool and not (attribute.name == "strict" and value is None):
        from .errors import OptionsError

        allowed = "True, False or None" if attribute.name == "strict" else "True or False"
        raise OptionsError(f"Options.{attribute.name} must be {allowed}, got {value!r}")


@attrs.frozen
class Options:
    """How one normalization runs. Budgets bound time and memory on hostile input.

    Every field is checked when the Options is made: a budget is an `int` of at least 1,
    a switch a `bool`; anything else raises `OptionsError`.
    """

    max_depth: int = attrs.field(default=96, validator=_budget)
    """Deepest nesting of JSON objects and arrays, counted after `$ref` expansion."""
    max_nodes: int = attrs.field(default=32_768, validator=_budget)
    """Most JSON objects and arrays (and boolean subschemas), counted after `$ref` expansion."""
    max_literal_bytes: int = attrs.field(default=8 * 1024 * 1024, validator=_budget)
    """Most characters of keys and strings, counted after `$ref` expansion."""
    strict: bool | None = attrs.field(default=None, validator=_switch)
    """None: the target's own default. False on a strict target: its non-strict sibling."""
    spill: bool = attrs.field(default=True, validator=_switch)
    """Move constraints the wire rejects into `description` (False: drop them)."""
    bypass: bool = attrs.field(default=False, validator=_switch)
    """Return the input untouched (a copy), strict disabled."""
    allow_nan: bool = attrs.field(default=False, validator=_switch)
    """Accept NaN and Infinity floats (they are not JSON)."""


_DEFAULT_OPTIONS = Options()
# every field's value, in order, as attrs.astuple gives them (for cache keys), at C speed
options_key = operator.attrgetter(*(f.name for f in attrs.fields(Options)))


def options_of(options: Any) -> Options:
    """The Options a call runs with: the default for None, else an `Options` itself."""
    if options is None:
        return _DEFAULT_OPTIONS
    if not isinstance(options, Options):
        from .errors import OptionsError

        raise OptionsError(f"options must be a wireschema.Options, got {type(options).__name__}")
    return options


@attrs.frozen
class Change:
    """One thing wireschema did, and where: `pointer` is an RFC 6901 pointer into the input."""

    rule: str
    pointer: str
    action: str
    detail: str

    def __str__(self) -> str:
        return f"{self.rule} {self.pointer or '/'} {self.action}: {self.detail}"


_SAME = object()
RAISE: Any = object()  # `Result.restore`'s default: text that is not JSON raises


@attrs.frozen
class Result:
    """The wire schema for one target and the report of how it was made."""

    schema: JSONValue
    """The wire schema (a dict, or a boolean schema; a bypassed result holds the input as given)."""
    target: str
    """The target's name."""
    strict: bool
    """True only if strict enforcement succeeded: send `strict: true` only then."""
    used_fallback: bool = False
    fallback_reason: str | None = None
    changes: tuple[Change, ...] = ()
    strict_reason: str | None = None
    """Why strict output was not delivered: a strict target failed open, or the caller
    asked for strict mode (its argument, a tool's or an output's flag) of a target with
    no strict form."""
    notes: dict[str, Any] = attrs.field(factory=dict, eq=False)
    """Facts later steps need: `nulled_optionals`, pointers of optional properties that
    strict mode turned into "required, or null"; `paired_maps`, pointers of maps sent as
    lists of `{key, value}` pairs (`restore` reads both)."""
    wrapped: bool = False
    """An output schema whose non-object root was wrapped as `{"response": ...}`."""
    origin: bytes | None = attrs.field(default=None, eq=False, repr=False)
    """The input, frozen (see `blobs`): what `restore` and `validate` read the original from
    (None for a bypassed result, and for one that fell back on a budget)."""

    def with_schema(self, schema: JSONValue, origin: Any = _SAME) -> "Result":
        """This result with `schema` (and a notes dict of its own, and `origin` if given):
        what a cache hit hands out, made without `attrs.evolve`'s per-call introspection
        (a warm request makes one per tool)."""
        return Result(
            schema,
            self.target,
            self.strict,
            self.used_fallback,
            self.fallback_reason,
            self.changes,
            self.strict_reason,
            dict(self.notes),
            self.wrapped,
            self.origin if origin is _SAME else origin,
        )

    @property
    def source(self) -> str | None:
        """The input as JSON text (None for a bypassed result, and for one that fell back
        on a budget: an input past a budget is not kept)."""
        if self.origin is None:
            return None
        from .blobs import thaw

        return json.dumps(thaw(self.origin), ensure_ascii=False, separators=(",", ":"))

    def unwrap(self, value: Any) -> Any:
        """Undo the output wrapper: the `response` member of an object holding one; any
        other value as it is (a model that answered in the original's shape where the
        wire did not hold it to the wrapper: `validate` judges it against the original)."""
        if not self.wrapped or not isinstance(value, dict) or "response" not in value:
            return value
        return value["response"]

    def restore(self, value: Any, default: Any = RAISE) -> Any:
        """A model's arguments or output, back in the original schema's shape.

        `value` is a JSON value, or JSON text (`str`/`bytes`, as the OpenAI SDK's
        `tool_call.function.arguments`), which is parsed first. Text that is not JSON
        raises `SchemaInputError` ("the arguments' text is not JSON: ..."), or, where
        `default` is given, returns `default` (`validate` says why, as an Issue).
        Unwraps `response`, drops the nulls a strict wire forced onto optional
        properties whose original schema does not accept null, and turns the `{key,
        value}` pairs of a map sent as a list back into the map. `value` is not mutated.
        """
        from .restore import restore

        return restore(self, value, default)

    def validate(self, value: Any) -> tuple["Issue", ...]:
        """Problems of the restored `value` against the ORIGINAL schema (empty: valid).

        `value` may be JSON text, as for `restore`; text that is not JSON is one Issue.
        The original is read as every target's preparation reads it (Python and Java
        type names such as `dict` and `float` mapped, older drafts upgraded), with
        its references as written; `schema_pointer`s point into that reading. A
        keyword the local validator cannot judge (a regex only ECMA-262 knows, such as
        `\\p{L}`; a malformed value such as `minLength: "3"`) is skipped (logged at INFO
        on the `wireschema` logger), never raised. Local only, nothing is fetched: a
        reference it cannot follow (external, or naming nothing) is an Issue.
        Needs the `jsonschema` package (`pip install 'wireschema[validate]'`).
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
