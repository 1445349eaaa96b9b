"""What a wire may refuse though it documents no limit: the measures `check` reports.

A rule file's `risks:` says where each measure turns risky for its wire. Nothing here
changes a schema; `check` reports a `risk` finding past a threshold.

- nesting: how deep JSON objects and arrays nest in the sent schema, the root at 1
  (as `Options.max_depth` counts);
- large bounds: a `maxItems` or `minItems` above a number (a grammar unrolls each item);
- grammar units: a rough, deterministic size of the grammar a strict schema compiles to,
  summed over a request's strict schemas: one per subschema, one per property, k(k+1)/2
  for an object's k optional properties (which of them came, and where the commas go),
  four per union branch, one per enum value, ten per `pattern` or `format`. It ranks
  schemas; it is no byte count, and the wire's ceiling depends on the model.
"""

from __future__ import annotations

from typing import Any

from .positions import child_slots, escape

_BRANCH = 4  # grammar units per union branch
_REGEX = 10  # grammar units per pattern or format


def nesting(value: Any, cap: int = 1 << 16) -> int:
    """How deep JSON objects and arrays nest in `value` (the root at 1; 0 for a scalar),
    counted level by level and never past `cap + 1`."""
    level = [value] if isinstance(value, (dict, list)) else []
    depth = 0
    while level and depth <= cap:
        depth += 1
        level = [v for node in level for v in (node.values() if isinstance(node, dict) else node) if isinstance(v, (dict, list))]
    return depth


def _schemas(schema: Any) -> Any:
    """(pointer, subschema) for every schema object, the root first, without recursion."""
    stack = [("", schema)]
    while stack:
        at, node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield at, node
        for kw, _slot, container, key in reversed(list(child_slots(node))):
            where = f"{at}/{escape(kw)}" if container is node else f"{at}/{escape(kw)}/{escape(str(key))}"
            stack.append((where, container[key]))


def large_items(schema: Any, above: int) -> list[tuple[str, int]]:
    """(pointer, bound) of each `maxItems` or `minItems` above `above`."""
    return [(f"{at}/{kw}", node[kw]) for at, node in _schemas(schema) for kw in ("minItems", "maxItems")
            if isinstance(node.get(kw), int) and not isinstance(node.get(kw), bool) and node[kw] > above]


def grammar_units(schema: Any) -> int:
    """The grammar units of one schema (see the module's docstring)."""
    units = 0
    for _at, node in _schemas(schema):
        units += 1
        props = node.get("properties")
        if isinstance(props, dict):
            required = node.get("required") if isinstance(node.get("required"), list) else []
            optional = len(props.keys() - set(required))
            units += len(props) + optional * (optional + 1) // 2
        for kw in ("anyOf", "oneOf"):
            if isinstance(node.get(kw), list):
                units += _BRANCH * len(node[kw])
        if isinstance(node.get("type"), list):
            units += _BRANCH * len(node["type"])
        if isinstance(node.get("enum"), list):
            units += len(node["enum"])
        units += _REGEX * sum(isinstance(node.get(kw), str) for kw in ("pattern", "format"))
    return units


def findings(risks: Any, schemas: list[Any], strict: list[bool]) -> list[tuple[int, str, str, str]]:
    """(index of the schema, pointer, rule, what) for each measure past its threshold in
    `risks` (a rule file's `risks:`); grammar units over the `strict` schemas together,
    said at the first of them."""
    out = []
    for i, schema in enumerate(schemas):
        if "max_depth" in risks:
            deep = nesting(schema, risks["max_depth"])
            if deep > risks["max_depth"]:
                out.append((i, "", "risk/depth", f"objects and arrays nest more than {risks['max_depth']} levels deep; the wire may refuse it"))
        if "max_items" in risks:
            out += [(i, at, "risk/items", f"{at.rsplit('/', 1)[-1]} {n} is over {risks['max_items']}; the wire may find it too large to serve")
                    for at, n in large_items(schema, risks["max_items"])]
    sent = [i for i, s in enumerate(strict) if s]
    if "grammar" in risks and sent:
        units = sum(grammar_units(schemas[i]) for i in sent)
        if units > risks["grammar"]:
            what = f"the strict grammar is estimated at {units} units, over {risks['grammar']}"
            out.append((sent[0], "", "risk/grammar", f"{what} over {len(sent)} strict schema(s); the wire may find it too large (the ceiling depends on the model)"))
    return out
