"""Regular-expression features some wires refuse: lookarounds, `\\b`, backreferences.

Patterns are read as ECMA-262 (the dialect JSON Schema names), escape- and
character-class-aware: `\\(?!x` is an escaped parenthesis and `[(?=)]` a class, neither
a lookaround, and `[\\b]` is a backspace, not a word boundary. Removing a zero-width
assertion (with any quantifier on it) only ever lets more strings match, so it is the
one rewrite offered; a backreference cannot be removed that way and is spilled.
"""

from __future__ import annotations

import re
from typing import Any

from ..run import rewrite
from . import Opt, check, kind

FEATURES = ("lookaround", "word-boundary", "backreference")
REMOVABLE = ("lookaround", "word-boundary")
_QUANTIFIER = re.compile(r"(?:[*+?]|\{\d+(?:,\d*)?\})\??")
# patterns that match every string: nothing is left to say
_NO_OP = ("", "^", "$")


class Unreadable(Exception):
    """The pattern is not a regular expression (unbalanced group or class, trailing `\\`)."""


class Scan:
    """What one pattern uses: the spans of each feature, and where capture groups start."""

    __slots__ = ("spans", "captures")

    def __init__(self) -> None:
        self.spans: dict[str, list[tuple[int, int]]] = {f: [] for f in FEATURES}
        self.captures: list[int] = []

    def uses(self, features: Any) -> list[str]:
        return [f for f in FEATURES if f in features and self.spans[f]]


def _quantified(p: str, end: int) -> int:
    m = _QUANTIFIER.match(p, end)
    return m.end() if m else end


def scan(p: str) -> Scan:
    """Find the features of pattern `p`; raises Unreadable if it cannot be read."""
    out = Scan()
    groups: list[tuple[int, bool]] = []  # (start, is a lookaround)
    in_class = False
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                raise Unreadable("the pattern ends in a lone backslash")
            d = p[i + 1]
            if not in_class:
                if d in "bB":
                    out.spans["word-boundary"].append((i, _quantified(p, i + 2)))
                elif d in "123456789":
                    j = i + 2
                    while j < n and p[j].isdigit():
                        j += 1
                    out.spans["backreference"].append((i, j))
                elif d == "k" and p.startswith("<", i + 2):
                    j = p.find(">", i + 3)
                    out.spans["backreference"].append((i, n if j < 0 else j + 1))
            i += 2
        elif in_class:
            in_class = c != "]"
            i += 1
        elif c == "[":
            in_class = True
            i += 1
        elif c == "(":
            if p.startswith("(?P=", i):
                # Python's named backreference, written by authors who test with `re`
                j = p.find(")", i)
                out.spans["backreference"].append((i, n if j < 0 else j + 1))
                i = n if j < 0 else j + 1
                continue
            look = p.startswith(("(?=", "(?!", "(?<=", "(?<!"), i)
            named = p.startswith(("(?<", "(?P<"), i) and not look
            if named or not p.startswith("(?", i):
                out.captures.append(i)
            groups.append((i, look))
            i += 1
        elif c == ")":
            if not groups:
                raise Unreadable("a ')' closes no group")
            start, look = groups.pop()
            i += 1
            if look:
                out.spans["lookaround"].append((start, _quantified(p, i)))
        else:
            i += 1
    if in_class:
        raise Unreadable("a character class is not closed")
    if groups:
        raise Unreadable("a group is not closed")
    return out


def remove(p: str, found: Scan, features: Any) -> str | None:
    """`p` without the spans of the removable `features`, or None where removing them
    would renumber the capture groups a numeric backreference counts on."""
    spans = sorted(s for f in features if f in REMOVABLE for s in found.spans[f])
    if not spans:
        return p
    merged: list[list[int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    if found.spans["backreference"] and any(a <= c < b for a, b in merged for c in found.captures):
        return None
    out, at = [], 0
    for a, b in merged:
        out.append(p[at:a])
        at = b
    out.append(p[at:])
    return "".join(out)


def _rewrite(p: Any, removable: Any, spillable: Any) -> tuple[str, Any]:
    """What to do with one pattern: ("keep", p), ("rewrite", (new, features)) or ("drop", why)."""
    if not isinstance(p, str):
        return "keep", p
    try:
        found = scan(p)
    except Unreadable as exc:
        return "drop", f"not a regular expression ({exc})"
    blocked = found.uses(spillable)
    if blocked:
        return "drop", f"uses {', '.join(blocked)}"
    used = found.uses(removable)
    if not used:
        return "keep", p
    new = remove(p, found, used)
    if new is None:
        return "drop", f"uses {', '.join(used)} around groups a backreference counts"
    return "rewrite", (new, used)


def put_back(node: dict, key: str, value: Any, keys: list[str]) -> None:
    """Put `key` back where it stood among `keys`, after a spill took it out."""
    items = [(k, node[k]) for k in node if k != key]
    order = [k for k in keys if k in node or k == key]
    at = order.index(key)
    before = set(order[:at])
    pos = sum(1 for k, _ in items if k in before)
    items.insert(pos, (key, value))
    rewrite(node, items)


@kind(
    "pattern-features", fails=False, reads="node", creates=True, adds={"pattern", "patternProperties", "anyOf"},
    order="pre",
    triggers={"pattern", "patternProperties"},
    remove=Opt("strlist", [], choices=REMOVABLE, doc="zero-width assertions taken out of the pattern, which only loosens it"),
    spill=Opt("strlist", [], choices=FEATURES, doc="features that make the whole pattern spilled"),
    property_patterns=Opt("bool", True, doc="patternProperties keys are patterns too"),
)
def pattern_features(rule, node, run):
    """Take regex features the wire refuses out of `pattern` (and `patternProperties` keys).

    A removable assertion is cut out and the original pattern is spilled beside the
    looser one; a pattern that uses a feature that cannot be removed, or cannot be read
    at all, is spilled whole. A `patternProperties` entry whose key changes moves to
    its new key (two entries that meet there become an `anyOf` of both); one whose key
    cannot be kept is spilled with its schema, and the names it matched fall to
    `additionalProperties` (looser only where that is absent or true).
    """
    removable = rule.options["remove"]
    spillable = rule.options["spill"]
    if "pattern" in node:
        action, value = _rewrite(node["pattern"], removable, spillable)
        if action == "drop":
            run.spill(rule, node, "pattern", node["pattern"])
            run.report(rule, node, "dropped", f"pattern {value}", "pattern")
        elif action == "rewrite":
            new, used = value
            keys = list(node)
            run.spill(rule, node, "pattern", node["pattern"])
            if new in _NO_OP:
                run.report(rule, node, "dropped", f"pattern without its {', '.join(used)} matches every string", "pattern")
            else:
                put_back(node, "pattern", new, keys)
                run.report(rule, node, "rewritten", f"{', '.join(used)} removed from pattern", "pattern")
    pp = node.get("patternProperties")
    if rule.options["property_patterns"] and isinstance(pp, dict):
        _property_patterns(rule, node, pp, removable, spillable, run)
    return None


def _property_patterns(rule, node, pp, removable, spillable, run):
    plan = [(k, *_rewrite(k, removable, spillable)) for k in pp]
    if all(action == "keep" for _, action, _ in plan):
        return
    keys = list(node)
    out: dict[str, Any] = {}
    joined: set[str] = set()  # keys whose value is an anyOf made here
    reports = []
    for k, action, value in plan:
        if action == "drop":
            reports.append(("dropped", f"entry {k!r} removed: its key {value}"))
            continue
        to = k
        if action == "rewrite":
            to = value[0]
            reports.append(("rewritten", f"key {k!r} -> {to!r}: {', '.join(value[1])} removed"))
        if to not in out:
            out[to] = pp[k]
            continue
        # names matching either pattern meet here now: either schema may hold
        if to in joined:
            out[to]["anyOf"].append(pp[k])  # made here: joined in place (linear in the entries)
        else:
            out[to] = run.replace({"anyOf": [out[to], pp[k]]}, pp[k])
            run.grow(node, nodes=2)
            joined.add(to)
        reports.append(("rewritten", f"entries meeting at key {to!r} joined in anyOf"))
    run.spill(rule, node, "patternProperties", {k: pp[k] for k, action, _ in plan if action != "keep"})
    if out:
        run.replace(out, pp)
        put_back(node, "patternProperties", out, keys)
    for action, detail in reports:
        run.report(rule, node, action, detail, "patternProperties")


@check(
    "pattern-features",
    triggers={"pattern", "patternProperties"},
    forbid=Opt("strlist", list(FEATURES), choices=FEATURES),
    property_patterns=Opt("bool", True, doc="patternProperties keys are patterns too"),
)
def pattern_features_check(rule, node, run):
    """`pattern` (and every `patternProperties` key) can be read and uses none of these features."""
    forbid = rule.options["forbid"]
    found = [("pattern", node["pattern"])] if isinstance(node.get("pattern"), str) else []
    pp = node.get("patternProperties")
    if rule.options["property_patterns"] and isinstance(pp, dict):
        found += [("patternProperties", k) for k in pp]
    for where, p in found:
        try:
            used = scan(p).uses(forbid)
        except Unreadable as exc:
            run.fail(rule, node, f"{p!r} is not a regular expression ({exc})", where)
            continue
        if used:
            run.fail(rule, node, f"{p!r} uses {', '.join(used)}", where)
