"""Kinds for literal-valued keywords: `const`, `enum`, `format`."""

from __future__ import annotations

import json
from typing import Any

from ..jsontext import dumps
from . import Opt, kind, test_helper
from .types import json_type, matches_type, types_of

_PRIMITIVE = frozenset({"string", "integer", "number", "boolean", "null"})


def _identity(value) -> object:
    # JSON Schema compares numbers by value (1 equals 1.0) but never a number with true
    if isinstance(value, (dict, list)):
        try:
            return ("json", dumps(value, sort_keys=True))
        except ValueError:  # an integer too long to print: this value is kept, never merged
            return ("unprintable", id(value))
    if value.__class__ is bool:
        return ("boolean", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    return (type(value).__name__, value)


def json_equal(a, b) -> bool:
    """Equal as JSON values (iterative, any depth): numbers by value (1 equals 1.0), but
    a boolean only equals a boolean (Python has True == 1), objects whatever their key
    order."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is y:
            continue
        cx, cy = x.__class__, y.__class__
        if cx is dict:
            if cy is not dict or len(x) != len(y) or x.keys() != y.keys():
                return False
            stack.extend((v, y[k]) for k, v in x.items())
        elif cx is list:
            if cy is not list or len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif (cx is bool) is not (cy is bool) or cy is dict or cy is list or x != y:
            return False
    return True


def union(first: list, second: list) -> list:
    """`first`, then the values of `second` it does not hold (JSON equality, linear time
    for names)."""
    if set(map(type, first)) | set(map(type, second)) <= {str}:
        held = set(first)
        return [*first, *(v for v in dict.fromkeys(second) if v not in held)]
    out = list(first)
    for v in second:
        if not any(json_equal(v, w) for w in out):
            out.append(v)
    return out


_NUMBERS_AND_TEXT = frozenset({str, int, float, type(None)})


def dedupe(values: list) -> list:
    """The values without repeats, first occurrence kept (linear time)."""
    if set(map(type, values)) <= _NUMBERS_AND_TEXT:
        # no boolean (true == 1 in Python, not in JSON) and no container: Python's own
        # equality is JSON's here (1 equals 1.0), so a dict does the work
        return list(dict.fromkeys(values))
    seen: set = set()
    out = []
    for v in values:
        key = _identity(v)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


# one value of each class a copied schema holds: what `_allowed` says of it, it says of all
_SAMPLE = {str: "", int: 0, float: 0.5, bool: True, type(None): None, list: [], dict: {}}


def _allowed(value, values: str) -> bool:
    if values == "any":
        return True
    if values == "strings":
        return isinstance(value, str)
    if values == "strings-and-numbers":
        return isinstance(value, str) or json_type(value) in ("integer", "number")
    return json_type(value) in _PRIMITIVE


@kind(
    "const-to-enum", fails=False, reads="node", creates=False, adds={"enum", "type"},
    triggers={"const"},
    values=Opt("choice", "strings", choices=("strings", "strings-and-numbers", "primitives", "any")),
    otherwise=Opt("choice", "spill", choices=("spill", "keep")),
)
def const_to_enum(rule, node, run):
    """`const: X` becomes the one-value `enum: [X]` (typed), where the wire has no const.

    An enum beside it narrows to what both admit: X where it lists X. Where it does not
    list X, or the type beside it does not take X, nothing is valid, which no enum says:
    the enum goes, and the type becomes X's, reported as a loosening.
    """
    if "const" not in node:
        return None
    value = node["const"]
    if _allowed(value, rule.options["values"]):
        enum = node.get("enum")
        listed = not isinstance(enum, list) or any(json_equal(v, value) for v in enum)
        typed = "type" not in node or any(matches_type(value, t) for t in types_of(node))
        why = "is none of its enum's values" if not listed else f"is not of its type {_shown(node.get('type'))}"
        out = {}
        for k, v in node.items():
            if k == "const":
                out["enum"] = [value]
            elif k != "enum" or not isinstance(enum, list):
                out[k] = v
        if not typed or "type" not in out:
            out["type"] = json_type(value)
        run.rewrite(node, out)
        if not (listed and typed):
            run.report(rule, node, "loosened", f"const {_shown(value)} {why}, so nothing was valid: one-value enum of the const", "const")
        else:
            run.report(rule, node, "rewritten", "const -> one-value enum" + (" (the enum beside it narrowed to it)" if isinstance(enum, list) else ""), "const")
    elif rule.options["otherwise"] == "spill":
        run.spill(rule, node, "const", value)
    return None


def _shown(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


@test_helper("_text_enum")
def _text_enum(node: dict, on: Any) -> bool:
    """`enum` is a non-empty list of distinct strings, on a node whose type is among `on`
    (any type, where `on` is empty): what every enum rule and check leaves as it is (the
    cheap test that spares their calls on the common enum)."""
    enum = node["enum"]
    if enum.__class__ is not list or not enum or set(map(type, enum)) != {str} or len(set(enum)) != len(enum):
        return False
    if not on:
        return True
    t = node.get("type")
    if t.__class__ is str:
        return t in on
    return t.__class__ is list and any(x.__class__ is str and x in on for x in t)


@kind("dedupe-enum", fails=False, reads="node", creates=False, adds=(), order="pre", triggers={"enum"}, acts_if="not _text_enum(node, ())")
def dedupe_enum(rule, node, run):
    """An enum lists each value once; an empty enum (nothing is valid) is removed.

    An empty enum would make the tool impossible to call, and every draft but 2020-12
    forbids it; without it the schema says what its other keywords say.
    """
    enum = node.get("enum")
    if not isinstance(enum, list):
        return None
    if not enum:
        del node["enum"]
        run.report(rule, node, "dropped", "empty enum removed (it would accept nothing)", "enum")
        return None
    unique = dedupe(enum)
    if len(unique) != len(enum):
        node["enum"] = unique
        run.report(rule, node, "rewritten", "duplicate enum values removed", "enum")
    return None


@kind(
    "enum-values", fails=False, reads="node", creates=False, adds=(),
    triggers={"enum"},
    acts_if="not _text_enum(node, {types})",
    values=Opt("choice", "primitives", choices=("strings", "strings-and-numbers", "primitives", "any")),
    types=Opt("strlist", [], doc="the types an enum may sit on (empty: any type)"),
    otherwise=Opt("choice", "spill", choices=("spill", "stringify")),
)
def enum_values(rule, node, run):
    """Keep an enum only where the wire takes it: value kinds, host types, no duplicates."""
    enum = node.get("enum")
    if not isinstance(enum, list):
        if "enum" in node:
            run.spill(rule, node, "enum", enum)
        return None
    unique = dedupe(enum)
    if len(unique) != len(enum):
        node["enum"] = enum = unique
        run.report(rule, node, "rewritten", "duplicate enum values removed", "enum")
    if not enum:
        del node["enum"]
        run.report(rule, node, "dropped", "empty enum removed (it would accept nothing)", "enum")
        return None
    on = rule.options["types"]
    host_ok = not on or any(t in on for t in types_of(node))
    # which values a wire takes depends on their Python class alone: one look per class
    values_ok = all(_allowed(_SAMPLE[k], rule.options["values"]) if k in _SAMPLE else False for k in set(map(type, enum)))
    if host_ok and values_ok:
        return None
    if rule.options["otherwise"] == "stringify" and all(json_type(v) in _PRIMITIVE for v in enum):
        node["enum"] = [v if isinstance(v, str) else _text(v) for v in enum]
        run.report(rule, node, "rewritten", "enum values written as strings", "enum")
        return None
    run.spill(rule, node, "enum", enum)
    return None


def _text(v) -> str:
    import json

    return json.dumps(v)


@kind(
    "format-allow", fails=False, reads="node", creates=False, adds=(),
    triggers={"format"},
    allowed=Opt("typemap", required=True, doc="type -> the formats the wire accepts on it"),
)
def format_allow(rule, node, run):
    """Keep `format` only where the wire knows it; spill the rest."""
    fmt = node.get("format")
    if fmt is None:
        return None
    allowed = rule.options["allowed"]
    types = types_of(node) or ["string"]
    if isinstance(fmt, str) and any(fmt in allowed.get(t, ()) for t in types):
        return None
    run.spill(rule, node, "format", fmt)
    return None


# top-down: an enum moved into `items` is there when the items schema is visited
@kind(
    # it reads its `items` child's type and may move the enum there (a child not walked yet)
    "enum-fits-type", fails=False, reads="children", creates=True, adds={"enum", "items"},
    order="pre",
    triggers={"enum"},
    acts_if="not _text_enum(node, ('string',))",  # strings on a string fit
    string_formats=Opt("strlist", [], doc="formats under which a wire writes enum values as strings (integer 101 as \"101\"), read as the values they spell"),
)
def enum_fits_type(rule, node, run):
    """An enum none of whose values its node's type takes, written the way catalogs
    mean it, is said the way they meant.

    Such an enum admits no value at all. On an array whose items take every value it
    is the items' enum (`{type: array, items: {type: string}, enum: [a, b]}`, a list
    of choices) and moves there (into new items where the array has none); on an
    integer or number whose values are all strings that spell such numbers
    (`enum: ["1", "2"]`) the values become the numbers, and on a boolean whose values
    all spell booleans (`"True"`, `"false"`) the booleans. Where the values are
    otherwise all of one type, the node's one type becomes theirs (a null it names
    stays): BFCL's `{type: boolean, enum: ["True", "False", "dontcare"]}` is a choice
    of three strings, which the model must be able to send. Any other enum is left as
    it is (an enum some of whose values fit says what it says). Each reading is
    reported `loosened`: the original admitted no value there. Read so, an enum
    beside a `const` it lists says no more than the const, and is removed.
    """
    _fit(rule, node, run)
    enum = node.get("enum")
    if "const" in node and isinstance(enum, list) and any(json_equal(v, node["const"]) for v in enum):
        del node["enum"]
        run.report(rule, node, "rewritten", "enum beside a const it lists says no more: removed", "enum")


def _fit(rule, node: dict, run) -> None:
    enum = node.get("enum")
    types = types_of(node)
    if not isinstance(enum, list) or not enum or not types:
        return
    spelled = node.get("format") in rule.options["string_formats"]
    # a null among them fits a null type, and says nothing of what the rest meant
    rest = [v for v in enum if v is not None]
    if not rest or any(_fits(v, types, spelled) for v in rest):
        return
    items = node.get("items", {} if "prefixItems" not in node else None)
    if types == ["array"] and isinstance(items, dict) and not any(k in items for k in ("enum", "const")):
        item_types = types_of(items)
        if all(any(matches_type(v, t) for t in item_types) for v in enum) if item_types else not items:
            del node["enum"]
            if "items" not in node:  # no items schema: any item, as `{}` says
                node["items"] = items = run.made({}, (run.chain_of(node), "items"))
            items["enum"] = enum
            run.report(rule, node, "loosened", "enum of item values moved into items: no array equals one", "enum")
            return
    numbers = [v for v in types if v in ("integer", "number")]
    if numbers and all(isinstance(v, str) for v in rest) and all(_fits(v, numbers, True) for v in rest):
        node["enum"] = [v if v is None else json.loads(v) for v in enum]
        run.report(rule, node, "loosened", f"enum of numbers written as strings -> the numbers: no {numbers[0]} equals a string", "enum")
        return
    if "boolean" in types and all(isinstance(v, str) and v.lower() in ("true", "false") for v in rest):
        node["enum"] = [v if v is None else v.lower() == "true" for v in enum]
        run.report(rule, node, "loosened", "enum of booleans written as strings -> the booleans: no boolean equals a string", "enum")
        return
    _take_the_values_type(rule, node, run, rest, types)


def _take_the_values_type(rule, node: dict, run, enum: list, types: list[str]) -> None:
    """The node's one type (beside null) becomes the type all its enum values (but null) share."""
    named = [t for t in types if t != "null"]
    kinds = {json_type(v) for v in enum}
    if kinds == {"integer", "number"}:
        kinds = {"number"}
    if len(named) != 1 or len(kinds) != 1:
        return
    [to] = kinds
    was = node["type"]
    node["type"] = to if isinstance(was, str) else [to if t == named[0] else t for t in was]
    run.report(rule, node, "loosened", f"type {named[0]} takes none of its enum's values, all of type {to}: type {to}", "type")


def _fits(value, types: list[str], spelled: bool) -> bool:
    if any(matches_type(value, t) for t in types):
        return True
    if spelled and isinstance(value, str):
        try:
            number = json.loads(value)
        except ValueError:
            return False
        return json.dumps(number) == value and any(matches_type(number, t) for t in types if t != "string")
    return False
