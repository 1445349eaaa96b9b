"""A request's strict budget: which strict tools stay strict within the wire's limits.

A wire that counts its strict tools, their optional and union parameters or their
properties over a whole request (Anthropic's 20, 24 and 16) refuses the request past
one. The tools that must go are sent non-strict, the fattest first: the one spending
most of a budget that is over, then the one holding most optional parameters, then the
last in request order. A tool sent non-strict that fits again afterwards stays strict.
"""

from __future__ import annotations

from typing import Any

import attrs

from .model import Change, Result

BUDGETS = (
    ("max_strict_tools", "strict tools"),
    ("max_optional_params", "optional parameters"),
    ("max_union_params", "parameters with a union type"),
    ("max_total_properties", "properties"),
)
_OPTIONAL = "max_optional_params"


def strict_budget(target: Any, schemas: list[Any], results: list[Result], options: Any) -> list[Result]:
    """`results` with the strict ones the request cannot hold normalized again from their
    `schemas` with strict=False, each saying why (`request/strict-budget`)."""
    from . import _normalize

    # a tool that asked for strict mode on a non-strict target ran as its strict variant,
    # whose wire's limits it spends
    ruled = target.strict_form() or target
    limits = {k: ruled.request_limits[k] for k, _ in BUDGETS if k in ruled.request_limits}
    if not limits:
        return results
    kept = {i: strict_cost(r.schema) for i, r in enumerate(results) if r.strict}
    spent = {k: sum(c[k] for c in kept.values()) for k in limits}
    dropped: dict[int, list[str]] = {}
    while over := [k for k in limits if spent[k] > limits[k]]:
        i = max(kept, key=lambda j: (kept[j][over[0]], kept[j][_OPTIONAL], j))
        dropped[i] = over
        for k in limits:
            spent[k] -= kept[i][k]
        del kept[i]
    for i in sorted(dropped):
        cost = strict_cost(results[i].schema)
        if all(spent[k] + cost[k] <= limits[k] for k in limits):
            for k in limits:
                spent[k] += cost[k]
            del dropped[i]
    out = list(results)
    for i, over in dropped.items():
        relaxed = _normalize(schemas[i], target, strict=False, options=options)
        what = ", ".join(f"{dict(BUDGETS)[k]} over {limits[k]}" for k in over)
        change = Change("request/strict-budget", "", "rewritten", f"sent non-strict: the request's strict budget ({what}) is spent")
        # named, as a strict tool that failed open is, by the strict target it asked for:
        # its tool is built in that target's shape, whose strict flag says false
        out[i] = attrs.evolve(relaxed, target=results[i].target, changes=(change, *relaxed.changes))
    return out


def strict_cost(schema: Any) -> dict[str, int]:
    """What one strict schema spends of each budget: itself, its optional and union
    parameters, its properties (counted over every object, nested ones included)."""
    from .passes.counts import count_properties

    optional, unions, props = count_properties(schema)
    return {"max_strict_tools": 1, _OPTIONAL: optional, "max_union_params": unions, "max_total_properties": props}
