"""Kinds about the values a wire takes for a keyword, and boolean subschemas."""

from __future__ import annotations

from typing import Any

from ..positions import bool_census, child_slots
from . import Opt, check, kind
from .patterns import put_back
from .types import json_type

_SWITCHES = ["additionalProperties", "unevaluatedProperties", "unevaluatedItems"]


def _listed(option: Any) -> list:
    return option if isinstance(option, list) else [option]


def _member(value: Any, allowed: list) -> bool:
    # 1 and true are different values to a JSON reader, and 1 and 1.0 the same number
    kind = json_type(value)
    return any(json_type(a) == kind and a == value for a in allowed)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and v.__class__ is not bool


@kind(
    "keyword-values", fails=False, reads="node", creates=False, adds=(),
    triggers="keys",
    keys=Opt("keys", required=True),
    allowed=Opt("json", None, doc="the values the wire takes (a list, or one value); unset: any value"),
    floor=Opt("bool", False, doc="a number above the allowed ones becomes the greatest allowed number below it"),
    max_decimals=Opt("int", None, doc="a number written with more decimal places than this is not taken (unset: any)"),
)
def keyword_values(rule, node, run):
    """Keep a keyword only where its value is one the wire takes; spill it otherwise.

    With `floor`, a lower bound the wire cannot take is loosened to the nearest one it
    can (`minItems: 3` becomes `minItems: 1` where only 0 and 1 are taken): the schema
    still accepts every value it accepted, and the description keeps the original.
    """
    allowed = _listed(rule.options["allowed"]) if rule.options["allowed"] is not None else None
    decimals = rule.options["max_decimals"]
    for k in [k for k in node if k in rule.options["keys"]]:
        value = node[k]
        if (allowed is None or _member(value, allowed)) and (decimals is None or _decimals(value) <= decimals):
            continue
        if allowed is None:
            run.spill(rule, node, k, value)
            continue
        keys = list(node)
        run.spill(rule, node, k, value)
        below = [a for a in allowed if _number(a) and _number(value) and a < value]
        if rule.options["floor"] and below:
            put_back(node, k, max(below), keys)
            run.report(rule, node, "rewritten", f"{k} {value} loosened to {max(below)}", k)


def _decimals(value: Any) -> int:
    """Decimal places of a number as JSON writes it (0.125 has 3, 1e-08 has 8)."""
    if not _number(value) or isinstance(value, int):
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
