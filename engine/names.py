"""Tool names as each wire accepts them, and the map back to the names the caller gave.

Providers refuse tool names beyond a length, a character set or a first character
(`names:` in a rule file). `wire_names` rewrites a whole tool list at once so the
rewritten names stay distinct, and returns a `NameMap` that turns the name in a
tool call coming back from the model into the tool to dispatch.

    >>> from wireschema.names import NameRule, wire_names
    >>> m = wire_names(["get weather!", "search"], NameRule(allowed="[A-Za-z0-9_-]"))
    >>> m.wire("get weather!"), m.original("get_weather_")
    ('get_weather_', 'get weather!')
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from typing import Any, Iterable, Iterator, Mapping, Sequence

import attrs

from .digests import sha256
from .errors import ToolNameError, UnknownToolNameError

__all__ = [
    "NameRule",
    "NameMap",
    "wire_names",
    "wire_name",
    "says_name",
    "assign_wire_names",
    "ToolNameError",
    "UnknownToolNameError",
]

# What wireschema writes itself (the name of an emptied tool, collision suffixes);
# a rule refusing these characters could not be honoured.
_EMPTY_NAME = "tool"
_HEX = "0123456789abcdef"
_SUFFIX_HEX = (6, 8, 10)
# The widest UTF-8 character: a suffixed name keeps at least its valid first character.
_CHAR_BYTES = 4


def _compile(pattern: str | None, field: str) -> re.Pattern[str] | None:
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        raise ToolNameError(f"names.{field} must be a regular expression string, got {pattern!r}")
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ToolNameError(f"names.{field}: bad regex {pattern!r}: {exc}") from None


def _encodable(ch: str) -> bool:
    # a lone surrogate (from JSON "\ud800") has no UTF-8 form, so no wire can carry it
    return not "\ud800" <= ch <= "\udfff"


def _folded(ch: str, rule: "NameRule") -> str:
    """A refused character as the wire may spell it: NFKD parts it into a base and its
    marks ("é" into "e" and an accent, "ｆ" into "f", "ﬁ" into "fi"); the base alone,
    where the wire takes all of it, else the rule's replacement."""
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    return base if base and base != ch and all(map(rule.allows, base)) else rule._fill


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def _truncate(text: str, max_bytes: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    # the cut may fall inside a multi-byte character: drop that partial tail only
    return data[:max_bytes].decode("utf-8", "ignore")


@attrs.frozen
class NameRule:
    """One wire's rule for tool names (a rule file's `names:` mapping).

    `allowed` and `first` are regexes matching ONE character (matched with
    `fullmatch`); None admits any character. `replacement` stands for each refused
    character; when the wire refuses the replacement itself, refused characters are
    dropped instead. Lengths are UTF-8 bytes.

    A rule that could not be honoured raises `ToolNameError` when it is made:
    `max_bytes` too small for a first character and a 10-digit collision suffix
    (15 with the "_" separator), `allowed` refusing a character of "tool" or a
    lowercase hex digit (wireschema writes those itself), or `first` admitting
    neither the replacement nor "x" (the prefix of a name whose first character
    it refuses).
    """

    max_bytes: int = 64
    allowed: str | None = None
    first: str | None = None
    replacement: str = "_"
    # derived once, here, so a rule is checked when it is made and never recompiled
    _allowed_re: re.Pattern[str] | None = attrs.field(init=False, repr=False, eq=False)
    _first_re: re.Pattern[str] | None = attrs.field(init=False, repr=False, eq=False)
    _fill: str = attrs.field(init=False, repr=False, eq=False)
    _lead: str | None = attrs.field(init=False, repr=False, eq=False)
    _sep: str = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        if isinstance(self.max_bytes, bool) or not isinstance(self.max_bytes, int):
            raise ToolNameError(f"names.max_bytes must be an int, got {self.max_bytes!r}")
        if not isinstance(self.replacement, str):
            raise ToolNameError(f"names.replacement must be a string, got {self.replacement!r}")
        set_ = object.__setattr__  # the documented way to fill a frozen attrs instance
        set_(self, "_allowed_re", _compile(self.allowed, "allowed"))
        set_(self, "_first_re", _compile(self.first, "first"))
        refused = [c for c in _EMPTY_NAME + _HEX if not self.allows(c)]
        if refused:
            raise ToolNameError(
                f"names.allowed {self.allowed!r} refuses {refused[0]!r}, which wireschema writes itself "
                f"(the name {_EMPTY_NAME!r} for an emptied name, hex digits in collision suffixes)"
            )
        # a replacement the wire refuses would only trade one refused character for another
        fill = self.replacement if all(map(self.allows, self.replacement)) else ""
        set_(self, "_fill", fill)
        set_(self, "_lead", self._first_prefix(fill))
        sep = "_" if self.allows("_") else fill
        set_(self, "_sep", sep)
        need = _CHAR_BYTES + _utf8_len(sep) + max(_SUFFIX_HEX)
        if self.max_bytes < need:
            raise ToolNameError(
                f"names.max_bytes must be at least {need} (room for a first character and a collision "
                f"suffix), got {self.max_bytes}"
            )

    def _first_prefix(self, fill: str) -> str | None:
        if self._first_re is None:
            return None
        for lead in (fill, "x"):
            if lead and self._first_re.fullmatch(lead[0]) and all(map(self.allows, lead)):
                return lead
        raise ToolNameError(
            f"names.first {self.first!r} admits neither the replacement {self.replacement!r} nor 'x', "
            "so a name with a refused first character cannot be fixed"
        )

    @classmethod
    def from_target(cls, target: Any) -> "NameRule":
        """The rule of a compiled Target (or a shipped target's name); unset fields take the defaults."""
        if isinstance(target, str):
            from . import _target

            target = _target(target)
        names = target.names or {}
        return cls(**{f: names[f] for f in ("max_bytes", "allowed", "first", "replacement") if f in names})

    def allows(self, ch: str) -> bool:
        """True when the wire takes the character `ch` in a name."""
        if not _encodable(ch):
            return False
        return self._allowed_re is None or self._allowed_re.fullmatch(ch) is not None

    def valid(self, name: str) -> bool:
        """True when the wire takes `name` as it is (`wire_name` returns it unchanged)."""
        if not name or not all(map(self.allows, name)) or _utf8_len(name) > self.max_bytes:
            return False
        return self._first_re is None or self._first_re.fullmatch(name[0]) is not None


def _check_name(name: Any) -> str:
    if not isinstance(name, str):
        raise ToolNameError(f"a tool name must be a string, got {type(name).__name__}")
    return name


def wire_name(name: str, rule: NameRule) -> str:
    """`name` as the wire accepts it, on its own (two names may come out the same: see `wire_names`).

    Each refused character becomes its base letter where Unicode's compatibility
    decomposition (NFKD) gives one the wire takes ("café" becomes "cafe", a full-width
    "ｆ" an "f"), else the replacement (or nothing, when the wire refuses the
    replacement too); a name left empty becomes "tool"; a refused first
    character gets the replacement put before it, or "x" when `first` refuses the
    replacement; the result is cut to `max_bytes` UTF-8 bytes between two characters.
    A name the wire takes already is returned unchanged.
    """
    _check_name(name)
    return _truncate(_spelled(name, rule), rule.max_bytes)


def _spelled(name: str, rule: NameRule) -> str:
    """`name` in the characters the wire takes, before any cut for length."""
    out = "".join(ch if rule.allows(ch) else _folded(ch, rule) for ch in name) or _EMPTY_NAME
    if rule._first_re is not None and not rule._first_re.fullmatch(out[0]):
        out = (rule._lead or "") + out  # a rule with `first` always has a lead (see NameRule)
    return out


def says_name(name: str, rule: NameRule, wire: str | None = None) -> bool:
    """True when the wire name `wire` (by default `wire_name(name, rule)`) spells every
    letter and digit of `name`, as it is or folded to its base letter (a collision
    suffix after them is no loss): False when one became the replacement, was dropped
    (a name in Chinese, say) or was cut for length, so the wire name no longer tells a
    reader, the model among them, which tool it is."""
    _check_name(name)
    if not all(rule.allows(ch) or _folded(ch, rule) != rule._fill or unicodedata.category(ch)[0] not in "LN" for ch in name):
        return False
    return (wire_name(name, rule) if wire is None else wire).startswith(_spelled(name, rule))


def _suffixes(original: str, rule: NameRule) -> Iterator[str]:
    """Collision suffixes for `original`, shortest first; stable across runs and machines."""
    digest = sha256(original.encode("utf-8", "surrogatepass")).hexdigest()
    budget = rule.max_bytes - _CHAR_BYTES - _utf8_len(rule._sep)
    for n in (*_SUFFIX_HEX, *range(max(_SUFFIX_HEX) + 2, len(digest) + 1, 2)):
        if n > budget:
            break
        yield rule._sep + digest[:n]
    # only a caller who crafted names to collide with every prefix of this hash gets here
    for i in itertools.count(1):
        salted = sha256(original.encode("utf-8", "surrogatepass") + b"\0" + str(i).encode())
        yield rule._sep + salted.hexdigest()[: max(_SUFFIX_HEX)]


def _suffixed(base: str, suffix: str, rule: NameRule) -> str:
    # the base is cut, never the suffix; the max_bytes floor leaves room for its valid first character
    return _truncate(base, rule.max_bytes - _utf8_len(suffix)) + suffix


def wire_names(names: Iterable[str], rule: NameRule, *, reserved: Iterable[str] = ()) -> NameMap:
    """Wire names for a whole tool list, all distinct, with the map back to `names`.

    Each name is rewritten as by `wire_name`. Names are taken in input order, so
    adding a tool at the end never renames the ones before it: the first name to
    claim a wire name keeps it; a later name that would get the same wire name
    (after rewriting or cutting, because an earlier name already took its own
    spelling, or because two tools share one name) gets "_" and the first 6 hex
    digits of the SHA-256 of its original name (UTF-8), its base cut so the whole
    stays within `max_bytes`. Should that still collide, 8, then 10 (then more) hex
    digits are used. The separator is the replacement when the wire refuses "_".
    A name given twice is two entries with two wire names (two servers' `search`).
    `reserved` wire names are taken already (by another tool list of the request).
    """
    if isinstance(names, (str, bytes)):
        raise ToolNameError("wire_names takes an iterable of tool names, not one name")
    originals = list(names)
    return NameMap(tuple(zip(assign_wire_names(originals, rule, reserved=reserved), originals)))


def assign_wire_names(names: Sequence[str], rule: NameRule, *, reserved: Iterable[str] = ()) -> list[str]:
    """The wire name of each of `names`, position by position, as `wire_names` gives them."""
    if isinstance(names, (str, bytes)):
        raise ToolNameError("assign_wire_names takes a sequence of tool names, not one name")
    taken = set(reserved)
    # A name's candidates are tried in one fixed order, and a candidate once taken stays
    # taken: the next tool of the same name resumes after the last one's, where starting
    # over would hash and try again every candidate its repeats took (quadratic in them).
    untried: dict[str, Iterator[str]] = {}
    out = []
    for original in names:
        _check_name(original)
        wire = wire_name(original, rule)
        if wire in taken:
            candidates = untried.get(original)
            if candidates is None:
                candidates = untried[original] = _candidates(wire, original, rule)
            wire = next(w for w in candidates if w not in taken)
        taken.add(wire)
        out.append(wire)
    return out


def _candidates(base: str, original: str, rule: NameRule) -> Iterator[str]:
    """The suffixed names `original` may take when its wire name `base` is taken, in order."""
    for suffix in _suffixes(original, rule):
        yield _suffixed(base, suffix, rule)


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    items = value.items() if isinstance(value, Mapping) else value
    try:
        out = tuple((w, o) for w, o in items)
    except (TypeError, ValueError):
        raise ToolNameError("a name map takes {wire name: original name} or (wire, original) pairs") from None
    for w, o in out:
        if not isinstance(w, str) or not isinstance(o, str):
            raise ToolNameError(f"a name map pairs strings, got {w!r}: {o!r}")
    return out


@attrs.frozen
class NameMap:
    """Wire names and the original names they stand for, in input order.

    Keyed by wire name, the name a tool call coming back from the model carries:
    `in`, `len`, iteration, `items()` and `to_dict()` see wire names first, and every
    wire name is one tool's. Two tools may share an original name (two MCP servers
    that both expose `search`); each has its own wire name, `original()` gives the
    shared name back for both, `wire()` the first one's, `wires()` all of them.
    `NameMap(m.to_dict())` is `m` again, so a map can be stored with a conversation.

    An unknown name raises `UnknownToolNameError` (a `WireschemaError` and a
    `LookupError`, not a `KeyError`): a tool call naming a tool the request never
    declared must not be dispatched to some tool by a guess. Test with `in` first to
    handle it otherwise.
    """

    pairs: tuple[tuple[str, str], ...] = attrs.field(converter=_pairs)
    """(wire name, original name) pairs, in input order."""
    _by_wire: dict[str, str] = attrs.field(init=False, repr=False, eq=False)
    _by_original: dict[str, tuple[str, ...]] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        by_wire = dict(self.pairs)
        if len(by_wire) != len(self.pairs):
            raise ToolNameError("a name map cannot give one wire name to two tools")
        by_original: dict[str, tuple[str, ...]] = {}
        for w, o in self.pairs:
            by_original[o] = (*by_original.get(o, ()), w)
        object.__setattr__(self, "_by_wire", by_wire)
        object.__setattr__(self, "_by_original", by_original)

    @classmethod
    def from_dict(cls, data: Mapping[str, str]) -> "NameMap":
        """The map `to_dict()` gave: {wire name: original name}."""
        return cls(data)

    def original(self, wire_name: str) -> str:
        """The caller's name for `wire_name`; `UnknownToolNameError` if no tool has it."""
        try:
            return self._by_wire[wire_name]
        except (KeyError, TypeError):
            raise UnknownToolNameError(wire_name, "wire", self._by_wire) from None

    def wire(self, original_name: str) -> str:
        """The wire's name for `original_name` (the first tool's, when several share it);
        `UnknownToolNameError` if it was not mapped."""
        return self.wires(original_name)[0]

    def wires(self, original_name: str) -> tuple[str, ...]:
        """Every wire name given to tools called `original_name`, in input order."""
        try:
            return self._by_original[original_name]
        except (KeyError, TypeError):
            raise UnknownToolNameError(original_name, "original", self._by_original) from None

    def items(self) -> tuple[tuple[str, str], ...]:
        """(wire name, original name) pairs, in input order."""
        return self.pairs

    def renamed(self) -> dict[str, str]:
        """{original name: wire name} for the tools whose name the wire changed (the
        first such tool's, when several share a name)."""
        out: dict[str, str] = {}
        for w, o in self.pairs:
            if w != o:
                out.setdefault(o, w)
        return out

    def to_dict(self) -> dict[str, str]:
        """{wire name: original name}, in input order (JSON-ready)."""
        return dict(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def __iter__(self) -> Iterator[str]:
        return (w for w, _ in self.pairs)

    def __contains__(self, wire_name: object) -> bool:
        try:
            return wire_name in self._by_wire
        except TypeError:
            return False
