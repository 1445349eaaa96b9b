"""Regular-expression features some wires refuse: lookarounds, `\\b`, backreferences,
Unicode property escapes, and spellings some regex parsers misread.

Patterns are read as ECMA-262 (the dialect JSON Schema names), escape- and
character-class-aware: `\\(?!x` is an escaped parenthesis and `[(?=)]` a class, neither
a lookaround, and `[\\b]` is a backspace, not a word boundary. Removing a zero-width
assertion (with any quantifier on it) only ever lets more strings match, so it is the
one loosening rewrite offered (a `^` or `$` with something before or after it, an
`inner-anchor`, is such an assertion too); a backreference cannot be removed that way
and is spilled.
Some spellings can be respelled without changing what matches: a raw control character
(a line break typed into a character class) as its escape, a `{` that starts no
quantifier (a literal brace, ECMA-262 Annex B) as `\\{`, the empty classes `[^]` and
`[]` as `[\\s\\S]` and `[^\\s\\S]`, the control escapes `\\cA`, `\\0` (and the legacy
octal `\\012` and `[\\1]`, which every dialect that reads them reads alike) and `[\\b]` as
`\\xHH`, a UTF-16 surrogate pair `\\ud83d\\ude00` as the character it spells, and an escaped `<`,
`>` or non-ASCII character (itself in ECMA-262's Annex B and in PCRE, Python, Java and
.NET; `\\<` is a word boundary to Rust's and GNU's parsers) as that character
(`escaped-symbol`). A lone surrogate escape spells no character, so it has no other
spelling (`lone-surrogate`).
`lookbehind` names the lookarounds that look behind (`(?<=`, `(?<!`), for a parser that
takes lookaheads alone (xgrammar).
`identity-escape` is an escape ECMA-262 gives no meaning: a letter that names no escape
(`\\e`, `\\Z`, `\\h`, `\\Q`, a `\\k` that opens no `\\k<name>`, `[\\B]`), a `\\c` without a
control letter, a `\\x` or `\\u` without their hex digits, a `\\p` without braces. The `u`
flag refuses it and Annex B reads it as the letter (`\\c1` as a backslash and `c1`), but
other dialects give most of them a meaning of their own (`\\e` escape, `\\Z` end of input),
so no respelling is known to say what the author meant; a wire whose parser refuses
them spills the pattern. So does a `\\p{...}` naming a property the wire's parser lacks
(`refused_properties`: llguidance has no surrogate category and no properties of strings).
`not-ecma` is what ECMA-262 refuses in both its modes, as far as a scan can tell: other
dialects' groups and possessive quantifiers, a class range whose start is above its end,
quantifier bounds the wrong way round, and a quantifier with nothing to repeat.
`unanchored` is a pattern that does not both start with `^` and end with an unescaped
`$` around one alternative: llama.cpp's converter reads the text between them as the
whole string ("Pattern must start with '^' and end with '$'").
"""

from __future__ import annotations

import re
from typing import Any

from ..run import rewrite
from . import Opt, check, kind

FEATURES = ("lookaround", "lookbehind", "word-boundary", "inner-anchor", "backreference", "unicode-property", "raw-control", "lone-brace",
            "empty-class", "control-escape", "surrogate-pair", "escaped-symbol", "lone-surrogate", "identity-escape",
            "not-ecma", "unanchored")
REMOVABLE = ("lookaround", "lookbehind", "word-boundary", "inner-anchor")
RESPELLABLE = ("raw-control", "lone-brace", "empty-class", "control-escape", "surrogate-pair", "escaped-symbol")
_SURROGATE_PAIR = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
# `\u{1F600}`, `\p{L}`, `\p{Script=Greek}`: an escape whose braces are its own
_BRACED = re.compile(r"\\(?:u\{[0-9A-Fa-f]+\}|[pP]\{[A-Za-z0-9_]+(?:=[A-Za-z0-9_]+)?\})")
# Annex B's legacy octal escape, `\0`-`\377` (in a class: outside one `\1` is a backreference)
_OCTAL = re.compile(r"\\(?:[0-3][0-7]{0,2}|[4-7][0-7]?)")
# letters ECMA-262 gives an escape of their own (`\c`, `\x`, `\u`, `\p`, `\k` only when the
# rest of the escape follows them); in a class `\b` is a backspace and `\B` nothing
_ESCAPE_LETTERS = "bBdDsSwWfnrtv"
_CLASS_ESCAPE_LETTERS = "bdDsSwWfnrtv"
_QUANTIFIER = re.compile(r"(?:[*+?]|\{\d+(?:,\d*)?\})\??")
_BRACES = re.compile(r"\{\d+(?:,\d*)?\}")
# group openings ECMA-262 has: (?: (?= (?! (?<= (?<! and (?<name>
_ECMA_GROUP = re.compile(r"\(\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)")
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


# class escapes that stand for one character, by the letter after the backslash
_CLASS_CHAR = {"b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13}
_HEX = re.compile(r"[0-9A-Fa-f]+")


def _class_atom(p: str, i: int) -> tuple[int, int | None]:
    """Where the class atom at `i` ends, and the one character it stands for (None where it
    stands for a set, or where ECMA-262's two modes read it differently: a surrogate, an
    astral character, `\\u{...}`, an escape ECMA-262 gives no meaning)."""
    c = p[i]
    if c != "\\":
        return i + 1, (ord(c) if ord(c) < 0xD800 else None)
    d = p[i + 1]
    if d in _CLASS_CHAR:
        return i + 2, _CLASS_CHAR[d]
    if d in "01234567":
        end = _OCTAL.match(p, i).end()
        return end, int(p[i + 1:end], 8)
    if d == "c" and p[i + 2:i + 3].isascii() and p[i + 2:i + 3].isalpha():
        return i + 3, ord(p[i + 2]) % 32
    for letter, width in (("x", 2), ("u", 4)):
        if d == letter and len(p) >= i + 2 + width and _HEX.fullmatch(p, i + 2, i + 2 + width):
            v = int(p[i + 2:i + 2 + width], 16)
            return i + 2 + width, (v if v < 0xD800 or v > 0xDFFF else None)
    if d.isalnum():
        return i + 2, None  # \\d \\w \\s \\p{..} \\u{..} and the rest: a set, or read apart by mode
    return i + 2, ord(d) if ord(d) < 0xD800 else None  # an escaped syntax character: itself


def _braced(p: str, i: int) -> int:
    """Where the `\\u{...}` or `\\p{...}` escape at `i` ends, or 0 if there is none (`\\u{zz}`
    and a `\\p{` without its `}` are identity escapes)."""
    m = _BRACED.match(p, i)
    return m.end() if m else 0


def _escape(p: str, i: int, out: Scan, in_class: bool) -> int:
    """Note the escape at `i` if it is one some parsers do not read though ECMA-262 does
    (`\\cA`, `\\0`, `\\012`, `[\\b]`, `[\\1]`, a UTF-16 surrogate pair, `\\<`) or one ECMA-262 gives no
    meaning (`\\e`); return where it ends, or `i` if it is none of them."""
    d = p[i + 1]
    octal = d == "0" or (in_class and d in "1234567")
    if (d == "c" and p[i + 2:i + 3].isascii() and p[i + 2:i + 3].isalpha()) or octal or (d == "b" and in_class):
        end = _OCTAL.match(p, i).end() if octal else i + (3 if d == "c" else 2)
        out.spans["control-escape"].append((i, end))
        return end
    m = _SURROGATE_PAIR.match(p, i)
    if m:
        out.spans["surrogate-pair"].append((i, m.end()))
        return m.end()
    m = _SURROGATE.match(p, i)
    if m:
        out.spans["lone-surrogate"].append((i, m.end()))
        return m.end()
    if d in "<>" or (not d.isascii() and not "\ud800" <= d <= "\udfff"):
        out.spans["escaped-symbol"].append((i, i + 2))
        return i + 2
    if _identity(p, i, in_class):
        if d in "pP" and p.startswith("{", i + 2):
            # a `\p{` without its name and `}` is still a property escape to a parser that has them
            out.spans["unicode-property"].append((i, i + 2))
        out.spans["identity-escape"].append((i, i + 2))
        return i + 2
    return i


def _identity(p: str, i: int, in_class: bool) -> bool:
    """Whether the escape at `i` is one ECMA-262 gives no meaning of its own (a letter
    that names no escape, or one whose escape does not follow: `\\c1`, `\\x1`, `\\pL`)."""
    d, rest = p[i + 1], p[i + 2:i + 6]
    if "\ud800" <= d <= "\udfff" or (in_class and d in "89"):
        return True  # an escaped lone surrogate code unit (no character to respell it as), `[\8]`
    if not (d.isascii() and d.isalpha()) or d in (_CLASS_ESCAPE_LETTERS if in_class else _ESCAPE_LETTERS):
        return False
    if d == "x":
        return len(rest) < 2 or not _HEX.fullmatch(rest[:2])
    if d == "u":  # a well-formed `\u{1F600}` is read before
        return not (len(rest) == 4 and _HEX.fullmatch(rest))
    if d in "pP":  # and so is `\p{L}`
        return True
    if d == "k":
        return in_class or not rest.startswith("<")
    return True  # \c without a control letter (a control escape is taken above), \e, \Z, ...


def _class(p: str, i: int, out: Scan) -> int:
    """Scan the character class opening at `i`; return where it ends (after its `]`)."""
    n, opening = len(p), i
    i += 2 if p.startswith("[^", i) else 1
    if p.startswith("]", i):
        # `[]` matches nothing and `[^]` any character: ECMA-262 spellings other parsers lack
        out.spans["empty-class"].append((opening, i + 1))
        return i + 1
    low: tuple[int, int | None] | None = None  # (start, value) of a range's first atom
    while i < n and p[i] != "]":
        start, c = i, p[i]
        if c == "\\":
            if i + 1 >= n:
                raise Unreadable("the pattern ends in a lone backslash")
            end = _braced(p, i)
            if end:
                if p[i + 1] != "u":
                    out.spans["unicode-property"].append((i, end))
                i, value = end, None
            else:
                end = _escape(p, i, out, True)
                # an escape other than a surrogate stands for what _class_atom reads, a range's end
                i, value = (end, None) if end > i and p[i + 1] == "u" else _class_atom(p, i)
        else:
            if c < " ":
                out.spans["raw-control"].append((i, i + 1))
            i, value = _class_atom(p, i)
        if low is not None:
            # the second atom of a range: ECMA-262 refuses one whose start is above its end
            if low[1] is not None and value is not None and low[1] > value:
                out.spans["not-ecma"].append((low[0], i))
            low = None
        elif i + 1 < n and p[i] == "-" and p[i + 1] != "]":
            low = (start, value)
            i += 1
    if i >= n:
        raise Unreadable("a character class is not closed")
    return i + 1


def scan(p: str) -> Scan:
    """Find the features of pattern `p`; raises Unreadable if it cannot be read."""
    out = Scan()
    groups: list[tuple[int, bool]] = []  # (start, is a lookaround)
    shape = _Shape()
    looks = 0  # lookarounds open here: an anchor inside one goes with it
    # whether what was just read can take a quantifier: ECMA-262 refuses one with nothing
    # to repeat (at the start, after `(`, `|`, `^`, `$`, a lookbehind or another quantifier)
    atom = False
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                raise Unreadable("the pattern ends in a lone backslash")
            d = p[i + 1]
            atom = True
            end = _braced(p, i)
            if end:
                # `\p{L}` and `\u{1F600}`: the braces belong to the escape, not a quantifier
                if d != "u":
                    out.spans["unicode-property"].append((i, end))
                i = end
                continue
            end = _escape(p, i, out, False)
            if end > i:
                i = end
                continue
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
        elif c < " ":
            out.spans["raw-control"].append((i, i + 1))
            atom = True
            i += 1
        elif c == "[":
            i = _class(p, i, out)
            atom = True
        elif c == "(":
            if p.startswith("(?P=", i):
                # Python's named backreference, written by authors who test with `re`
                j = p.find(")", i)
                out.spans["backreference"].append((i, n if j < 0 else j + 1))
                i = n if j < 0 else j + 1
                atom = True
                continue
            if p.startswith("(?", i) and not _ECMA_GROUP.match(p, i):
                # (?i) flags, (?P<name>, (?#...), (?>...), (?1) recursion: other dialects
                out.spans["not-ecma"].append((i, i + 2))
            look = p.startswith(("(?=", "(?!", "(?<=", "(?<!"), i)
            named = p.startswith(("(?<", "(?P<"), i) and not look
            if named or not p.startswith("(?", i):
                out.captures.append(i)
            groups.append((i, look))
            looks += look
            atom = False
            m = _ECMA_GROUP.match(p, i)
            start = i
            # past the opening, so the `?` of `(?:` is not read as a quantifier
            i = m.end() if m else i + 2 if p.startswith("(?", i) else i + 1
            shape.content[i] = start
        elif c in "*+?" and i + 1 < n and p[i + 1] == "+":
            # a possessive quantifier (PCRE, Java): ECMA reads the `+` as a quantifier of nothing
            out.spans["not-ecma"].append((i, i + 2))
            atom = False
            i += 2
        elif c in "*+?":
            end = _quantified(p, i)
            if not atom:
                out.spans["not-ecma"].append((i, end))
            atom = False
            i = end
        elif c == "{":
            m = _BRACES.match(p, i)
            if m:
                low, _, high = m.group()[1:-1].partition(",")
                if m.end() < n and p[m.end()] == "+":
                    out.spans["not-ecma"].append((i, m.end() + 1))
                    i, atom = m.end() + 1, False
                    continue
                if not atom or (high and int(low) > int(high)):
                    # nothing to repeat, or bounds the wrong way round (`a{2,1}`)
                    out.spans["not-ecma"].append((i, m.end()))
                i = _quantified(p, i)  # a quantifier, its `}` (and a lazy `?`) included
                atom = False
            else:
                out.spans["lone-brace"].append((i, i + 1))
                atom = True
                i += 1
        elif c == "}":
            out.spans["lone-brace"].append((i, i + 1))
            atom = True
            i += 1
        elif c == ")":
            if not groups:
                raise Unreadable("a ')' closes no group")
            start, look = groups.pop()
            shape.close[start] = i
            looks -= look
            i += 1
            if look:
                end = _quantified(p, i)
                out.spans["lookaround"].append((start, end))
                if p.startswith("(?<", start):
                    # a lookbehind is a lookaround too: some parsers take lookaheads alone
                    out.spans["lookbehind"].append((start, end))
                    if end > i:
                        out.spans["not-ecma"].append((start, end))  # a quantified lookbehind
            atom = True
        elif c in "^$|":
            if c == "|":
                shape.bars[i] = groups[-1][0] if groups else -1
            elif not looks:
                shape.anchors.append(i)
            atom = False
            i += 1
        else:
            atom = True
            i += 1
    if groups:
        raise Unreadable("a group is not closed")
    shape.index()
    for a in shape.anchors:
        if not (shape.at_start(p, a) if p[a] == "^" else shape.at_end(p, a)):
            out.spans["inner-anchor"].append((a, a + 1))
    ends = shape.anchors and shape.anchors[0] == 0 and shape.anchors[-1] == n - 1 and n > 1
    if not ends or -1 in shape.bars.values():
        out.spans["unanchored"].append((0, n))
    return out


class _Shape:
    """Where a pattern's groups, alternatives and anchors are, to tell an anchor at the
    edge of the pattern from one inside it (`a$b`, `x(^a)`, `(a$)?`): some engines
    (llguidance) take `^` and `$` only where nothing can come before or after them."""

    def __init__(self) -> None:
        self.anchors: list[int] = []
        self.bars: dict[int, int] = {}  # `|` -> the group it is in (-1: none)
        self.content: dict[int, int] = {}  # where a group's content starts -> its `(`
        self.close: dict[int, int] = {}  # a group's `(` -> its `)`

    def index(self) -> None:
        """The reverse maps, made once: each anchor then walks in time linear in the pattern."""
        self.at = set(self.anchors)
        self.opens = {c: o for o, c in self.close.items()}
        self.starts = {o: c for c, o in self.content.items()}
        self.ends: dict[int, bool] = {}  # walks already made
        self.starts_seen: dict[int, bool] = {}

    def _quantified(self, p: str, start: int) -> bool:
        end = self.close[start] + 1
        return _quantified(p, end) > end

    def at_end(self, p: str, i: int) -> bool:
        j, seen = i + 1, []
        while j < len(p) and j not in self.ends:
            seen.append(j)
            if p[j] == "$" and j in self.at:
                j += 1
            elif j in self.opens and not self._quantified(p, self.opens[j]):
                j += 1
            elif j in self.bars:
                if self.bars[j] < 0:
                    j = len(p)
                else:
                    j = self.close[self.bars[j]]  # the rest of the group is other alternatives
            else:
                break
        edge = j >= len(p) or self.ends.get(j, False)
        # every step of this walk ends where it did: nested groups are walked once, not once per anchor
        self.ends.update((k, edge) for k in seen)
        return edge

    def at_start(self, p: str, i: int) -> bool:
        k, seen = i, []
        while k > 0 and k not in self.starts_seen:
            seen.append(k)
            if k in self.content:
                group = self.content[k]
                if self._quantified(p, group):
                    break
                k = group
            elif p[k - 1] == "^" and k - 1 in self.at:
                k -= 1
            elif k - 1 in self.bars:
                group = self.bars[k - 1]
                k = 0 if group < 0 else self.starts[group]
            else:
                break
        edge = k == 0 or self.starts_seen.get(k, False)
        self.starts_seen.update((j, edge) for j in seen)
        return edge


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


def _spelled(text: str) -> str:
    """The spelling of one respellable span that every parser reads alike."""
    if len(text) == 1:  # a raw control character or a lone brace
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(text) or (f"\\x{ord(text):02x}" if text < " " else "\\" + text)
    if text[0] == "[":
        return "[\\s\\S]" if text == "[^]" else "[^\\s\\S]"
    if text[1] == "u":  # a surrogate pair: the one character it spells
        high, low = int(text[2:6], 16), int(text[8:12], 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    if not text[1].isascii():  # an escaped non-ASCII character: itself
        return text[1]
    if text[1] in "<>":
        return f"\\x{ord(text[1]):02x}"
    code = ord(text[2]) % 32 if text[1] == "c" else 8 if text[1] == "b" else int(text[1:], 8)  # \cA, [\b], \0, \012
    return f"\\x{code:02x}"


def respell(p: str, found: Scan, features: Any) -> str:
    """`p` with the spans of the respellable `features` written as parsers that lack them
    read them (an escape, `[\\s\\S]` for `[^]`, the character a surrogate pair spells): the
    same strings match."""
    spans = sorted(s for f in features if f in RESPELLABLE for s in found.spans[f])
    out, at = [], 0
    for a, b in spans:
        out.append(p[at:a])
        out.append(_spelled(p[a:b]))
        at = b
    out.append(p[at:])
    return "".join(out)


def _rewrite(p: Any, removable: Any, spillable: Any, respellable: Any = (), refused: Any = ()) -> tuple[str, Any]:
    """What to do with one pattern: ("keep", p), ("rewrite", (new, features)),
    ("respell", (new, features)) or ("drop", why)."""
    if not isinstance(p, str):
        return "keep", p
    try:
        found = scan(p)
    except Unreadable as exc:
        return "drop", f"not a regular expression ({exc})"
    blocked = found.uses(spillable)
    if blocked:
        return "drop", f"uses {', '.join(blocked)}"
    unknown = sorted(set(property_names(p, found)) & set(refused))
    if unknown:
        return "drop", f"names Unicode properties the wire does not know ({', '.join(unknown)})"
    used = found.uses(removable)
    if not used:
        spelled = found.uses(respellable)
        return ("respell", (respell(p, found, spelled), spelled)) if spelled else ("keep", p)
    new = remove(p, found, used)
    if new is None:
        return "drop", f"uses {', '.join(used)} around groups a backreference counts"
    blocked = [] if new in _NO_OP else scan(new).uses(spillable)
    if blocked:
        return "drop", f"uses {', '.join(blocked)} once {', '.join(used)} is removed"
    if respellable:
        # what is left is read again, so the output is a fixed point
        again = scan(new)
        spelled = again.uses(respellable)
        if spelled:
            new = respell(new, again, spelled)
    return "rewrite", (new, used)


def property_names(p: str, found: Scan) -> list[str]:
    """The property names (or, after `=`, the values) the `\\p{...}` escapes of `p` name."""
    return [p[a + 3:b - 1].rpartition("=")[2] for a, b in found.spans["unicode-property"] if p[b - 1] == "}"]


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
    respell=Opt("strlist", [], choices=RESPELLABLE, doc="spellings written the way every parser reads them, which match the same strings"),
    refused_properties=Opt("strlist", [], doc="Unicode property names, or values after `=` (`Script=Unknown` names `Unknown`), "
                           "the wire's parser does not know: a pattern that names one is spilled"),
    property_patterns=Opt("bool", True, doc="patternProperties keys are patterns too"),
)
def pattern_features(rule, node, run):
    """Take regex features the wire refuses out of `pattern` (and `patternProperties` keys).

    A removable assertion is cut out and the original pattern is spilled beside the
    looser one; a pattern that uses a feature that cannot be removed, or cannot be read
    at all, is spilled whole. A `patternProperties` entry whose key changes moves to
    its new key (two entries that meet there become an `anyOf` of both); one whose key
    cannot be kept is spilled with its schema, and the names it matched fall to
    `additionalProperties` (looser only where that is absent or true). A respelled
    pattern means what it meant, so nothing is spilled for it.
    """
    removable = rule.options["remove"]
    spillable = rule.options["spill"]
    respellable = rule.options["respell"]
    refused = rule.options["refused_properties"]
    if "pattern" in node:
        action, value = _rewrite(node["pattern"], removable, spillable, respellable, refused)
        if action == "respell":
            node["pattern"] = value[0]
            run.report(rule, node, "rewritten", f"pattern respelled with escapes ({', '.join(value[1])}), matching the same strings", "pattern")
        elif action == "drop":
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
        _property_patterns(rule, node, pp, removable, spillable, respellable, refused, run)
    return None


def _property_patterns(rule, node, pp, removable, spillable, respellable, refused, run):
    plan = [(k, *_rewrite(k, removable, spillable, respellable, refused)) for k in pp]
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
        elif action == "respell":
            to = value[0]
            reports.append(("rewritten", f"key {k!r} -> {to!r}: respelled with escapes ({', '.join(value[1])})"))
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
    loosened = {k: pp[k] for k, action, _ in plan if action in ("rewrite", "drop")}
    if loosened:
        run.spill(rule, node, "patternProperties", loosened)
    if out:
        run.replace(out, pp)
        put_back(node, "patternProperties", out, keys)
    for action, detail in reports:
        run.report(rule, node, action, detail, "patternProperties")


@check(
    "pattern-features",
    triggers={"pattern", "patternProperties"},
    forbid=Opt("strlist", ["lookaround", "word-boundary", "backreference"], choices=FEATURES),
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
