"""Kinds about the values a wire takes for a keyword, and boolean subschemas."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..positions import bool_census, child_slots
from ..prepare import PAST_DOUBLE, past_double
from . import Opt, check, kind, test_helper
from .patterns import put_back
from .types import is_number, json_type, types_of

_SWITCHES = ["additionalProperties", "unevaluatedProperties", "unevaluatedItems"]


def _listed(option: Any) -> list:
    return option if isinstance(option, list) else [option]


def _member(value: Any, allowed: list) -> bool:
    # 1 and true are different values to a JSON reader, and 1 and 1.0 the same number
    kind = json_type(value)
    return any(json_type(a) == kind and a == value for a in allowed)


@kind(
    "keyword-values", fails=False, reads="node", creates=False, adds=(),
    triggers="keys",
    keys=Opt("keys", required=True),
    allowed=Opt("json", None, doc="the values the wire takes (a list, or one value); unset: any value"),
    ranges=Opt("ranges", None, doc="the numbers the wire takes, as inclusive [low, high] ranges (`null` for no end); a number in none of them is not taken (unset: any)"),
    types=Opt("strlist", [], doc="only on a schema whose `type` is one of these (a type list: each of its types but null); empty: every schema"),
    floor=Opt("bool", False, doc="a number above the allowed ones becomes the greatest allowed number below it"),
    ceil=Opt("bool", False, doc="a number below the allowed ones becomes the least allowed number above it"),
    max_decimals=Opt("int", None, doc="a number written with more decimal places than this is not taken (unset: any)"),
)
def keyword_values(rule, node, run):
    """Keep a keyword only where its value is one the wire takes; spill it otherwise.

    With `floor`, a lower bound the wire cannot take is loosened to the nearest one it
    can (`minItems: 3` becomes `minItems: 1` where only 0 and 1 are taken), and with
    `ceil` an upper bound is (`maximum: -1e19` becomes the least maximum the ranges
    take): the schema still accepts every value it accepted, and the description keeps
    the original. A bound with no taken number on its loose side is spilled alone.
    """
    options = rule.options
    if options["types"] and not _typed_as(node.get("type"), options["types"]):
        return
    allowed = _listed(options["allowed"]) if options["allowed"] is not None else None
    ranges = options["ranges"]
    decimals = options["max_decimals"]
    for k in [k for k in node if k in options["keys"]]:
        value = node[k]
        if (
            (allowed is None or _member(value, allowed))
            and (ranges is None or not is_number(value) or _in_ranges(value, ranges))
            and (decimals is None or _decimals(value) <= decimals)
        ):
            continue
        if allowed is None and ranges is None:
            run.spill(rule, node, k, value)
            continue
        keys = list(node)
        run.spill(rule, node, k, value)
        nearest = _nearest(value, allowed, ranges, options["floor"], options["ceil"])
        if nearest is not None:
            put_back(node, k, nearest, keys)
            run.report(rule, node, "loosened", f"{k} {value} -> {nearest}", k)


def _typed_as(declared: Any, types: tuple) -> bool:
    if isinstance(declared, str):
        return declared in types
    # null takes no bound: ["integer", "null"] bounds its integers alone
    named = [t for t in declared if t != "null"] if isinstance(declared, list) else []
    return bool(named) and all(t in types for t in named)


def _in_ranges(value: Any, ranges: Any) -> bool:
    # exact comparison: an integer past 2**53 is not rounded to a double first
    return any((lo is None or lo <= value) and (hi is None or value <= hi) for lo, hi in ranges)


def _nearest(value: Any, allowed: Any, ranges: Any, floor: bool, ceil: bool) -> Any:
    """The taken number nearest `value` on its loose side (below with `floor`, above with
    `ceil`), or None: then the keyword stays spilled."""
    if not is_number(value) or not (floor or ceil):
        return None
    taken = [a for a in allowed or () if is_number(a)]
    if ranges is not None:
        taken += [hi if floor else lo for lo, hi in ranges]
    if allowed is not None and ranges is not None:
        taken = [a for a in taken if a is not None and _member(a, allowed) and _in_ranges(a, ranges)]
    if floor:
        below = [a for a in taken if a is not None and a < value]
        return max(below) if below else None
    above = [a for a in taken if a is not None and a > value]
    return min(above) if above else None


@kind(
    "double-numbers", fails=False, reads="node", creates=False, adds=(),
    triggers="keys", requires={PAST_DOUBLE},
    keys=Opt("keys", required=True),
)
def double_numbers(rule, node, run):
    """Spill a keyword whose value holds a number no double holds (an integer from
    2**1024 - 2**970 on, such as `10**400`, which JSON allows), anywhere inside it, for
    a wire that reads these keywords' numbers as doubles (a protobuf `Value`), which
    refuses it. The input's copy marks where one is (`prepare.PAST_DOUBLE`): on any
    other input the rule is in no plan."""
    keys = rule.options["keys"]
    for k in [k for k in node if k in keys]:
        if _holds_past_double(node[k]):
            run.spill(rule, node, k, node[k])


def _holds_past_double(value: Any) -> bool:
    # a literal is data, not a schema: its own stack, not the schema walk
    stack = [value]
    while stack:
        v = stack.pop()
        if v.__class__ is dict:
            stack.extend(v.values())
        elif v.__class__ is list:
            stack.extend(v)
        elif past_double(v):
            return True
    return False


_WHOLE = {"minimum": "ceil", "maximum": "floor", "exclusiveMinimum": "floor", "exclusiveMaximum": "ceil"}
_WHOLE_KEYS = (*_WHOLE, "multipleOf")


@kind(
    "whole-bounds", fails=False, reads="node", creates=False, adds=(),
    triggers=set(_WHOLE_KEYS),
    # an integer schema (no `number` beside it) with a bound or step that may not be whole
    acts_if="((t := node.get('type')) == 'integer' or (t.__class__ is list and 'integer' in t and 'number' not in t)) and _not_whole(node)",
)
def whole_bounds(rule, node, run):
    """On an integer schema, a bound that is no whole number becomes the whole number
    that admits the same integers (`minimum: 3.5` is `minimum: 4`, `maximum: 2.5` is
    `maximum: 2`, `exclusiveMinimum: 1.5` is `exclusiveMinimum: 1`), and a `multipleOf`
    that is no whole number the least whole one whose multiples are the same integers
    (the numerator of the step as written: `1.5` is `3`; `0.5` or `0.1`, which every
    integer is a multiple of, is removed). Every change keeps what the schema accepts."""
    types = types_of(node)
    if "integer" not in types or "number" in types:
        return
    for k in [k for k in node if k in _WHOLE_KEYS]:
        value = node[k]
        if not is_number(value) or value.__class__ is int or value.is_integer():
            continue
        exact = Fraction(repr(value))  # the number as JSON wrote it, not its binary neighbour
        if k != "multipleOf":
            whole = math.ceil(exact) if _WHOLE[k] == "ceil" else math.floor(exact)
            node[k] = whole
            run.report(rule, node, "rewritten", f"{k} {value} -> {whole}: the same integers", k)
        elif exact <= 0:
            continue  # no step: the shape checks judge it
        elif exact.numerator == 1:
            del node[k]
            run.report(rule, node, "rewritten", f"{k} {value} removed: every integer is a multiple of it", k)
        else:
            node[k] = exact.numerator
            run.report(rule, node, "rewritten", f"{k} {value} -> {exact.numerator}: the same integers", k)


@test_helper("_not_whole")
def _not_whole(node: dict) -> bool:
    """Some bound or step of the node is a float with a fraction (the cheap test of whole-bounds)."""
    return any((v := node.get(k)).__class__ is float and not v.is_integer() for k in _WHOLE_KEYS)


def _decimals(value: Any) -> int:
    """Decimal places of a number as JSON writes it (0.125 has 3, 1e-08 has 8)."""
    if not is_number(value) or isinstance(value, int):
        return 0
    from decimal import Decimal

    exponent = Decimal(repr(value)).as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


@check(
    "keyword-values",
    triggers="keys",
    keys=Opt("keys", required=True),
    allowed=Opt("json", required=True, doc="the values the wire takes (a list, or one value)"),
)
def keyword_values_check(rule, node, run):
    """These keywords, where present, hold one of the allowed values."""
    allowed = _listed(rule.options["allowed"])
    for k in node:
        if k in rule.options["keys"] and not _member(node[k], allowed):
            run.fail(rule, node, f"{k} {node[k]!r} is not accepted (only {allowed})", k)


@check(
    "boolean-schemas", reads="children",
    census=lambda o: bool_census(o["keep_in"]),
    acts_if="_has_bool_child(node, {keep_in})",
    keep_in=Opt("keys", _SWITCHES, doc="keywords whose boolean value is a plain switch, allowed"),
)
def boolean_schemas_check(rule, node, run):
    """No subschema is a boolean, but for the switches the wire reads as flags."""
    for kw, _slot, cont, key in child_slots(node):
        if cont[key].__class__ is bool and kw not in rule.options["keep_in"]:
            run.fail(rule, node, f"boolean subschema in {kw}", kw)
