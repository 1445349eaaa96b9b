"""Kinds about `type`: inference, type arrays, and how null is spelled."""

from __future__ import annotations

import math
from typing import Any

from ..run import rewrite
from . import Opt, kind

_COMBINERS = ("anyOf", "oneOf", "allOf", "not", "$ref")
_OBJECT_HINTS = ("properties", "required", "additionalProperties", "patternProperties")
_ARRAY_HINTS = ("items", "prefixItems")
# every JSON value is of one of these (an integer is a number)
_EVERY_TYPE = ("string", "number", "boolean", "object", "array", "null")
_KEEP_ON_WRAPPER = frozenset({"description", "title", "default", "examples", "$comment", "deprecated"})


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if value.__class__ is bool:
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def matches_type(value: Any, t: str) -> bool:
    vt = json_type(value)
    return vt == t or (t == "number" and vt == "integer")


def is_number(value: Any) -> bool:
    """A JSON number (a bool is none, though Python counts it an int)."""
    return isinstance(value, (int, float)) and value.__class__ is not bool


def types_of(node: dict) -> list[str]:
    t = node.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)]
    return []


def _types_for_values(values: list[Any]) -> list[str]:
    seen: list[str] = []
    classes: set[type] = set()  # classes whose type is known: the same class says no more
    number = False  # a float that is no integer seen: later floats say no more either
    for v in values:
        cls = v.__class__
        if cls is float:
            if number:
                continue
            number = not v.is_integer()
        elif cls in classes:
            continue
        else:
            classes.add(cls)
        t = json_type(v)
        if t not in seen:
            seen.append(t)
    if "integer" in seen and "number" in seen:
        seen.remove("integer")
    return seen


@kind(
    "infer-type", reads="node", creates=False, adds={"type"},
    writes_bools=False,  # a type name
    # a union (or a negation) says the type in its branches: no type is inferred beside it
    acts_if="('type' not in node or node['type'] == []) and 'anyOf' not in node and 'oneOf' not in node and 'allOf' not in node and 'not' not in node",
    strict=Opt("bool", False, doc="a node whose type cannot be inferred is unrepresentable"),
    hints=Opt(
        "bool",
        True,
        doc="also read object and array keywords (properties, items, ...) as a type: a restriction, "
        "since without a type they bind only objects and arrays",
    ),
    every_type=Opt(
        "bool",
        False,
        doc="a node that accepts any value names every JSON type, which accepts the same, for a wire that wants every schema typed",
    ),
)
def infer_type(rule, node, run):
    """Give a typeless node the type its enum, const, properties or items imply.

    An empty type list names no type: it is replaced by the inferred type if there is
    one, and otherwise left for `type-array` to remove. With `every_type`, a node that
    implies no type (it accepts any value) names every JSON type, which says the same.
    """
    if node.get("type", []) != [] or any(k in node for k in _COMBINERS if k != "$ref"):
        return None
    if isinstance(node.get("$ref"), str):
        return None  # a $ref that is no string names nothing and stands in for no type
    if node is run.root and run.facts.references and _recurs_to_root(node):
        # root-object types the root and keeps a copy as it was for its `$ref: #`s; typed
        # here, the copy would demand an object wherever the root recurs
        return None
    inferred: list[str] = []
    # an enum beside a const says the type as enum-fits-type reads it on a second pass
    if isinstance(node.get("enum"), list) and node["enum"]:
        inferred = _types_for_values(node["enum"])
    elif "const" in node:
        inferred = [json_type(node["const"])]
    elif not rule.options["hints"]:
        pass
    elif any(k in node for k in _OBJECT_HINTS):
        inferred = ["object"]
    elif any(k in node for k in _ARRAY_HINTS):
        inferred = ["array"]
    if not inferred and rule.options["every_type"] and "type" not in node:
        inferred = list(_EVERY_TYPE)
    if not inferred:
        if rule.options["strict"]:
            run.fail(rule, node, "a schema that accepts any value has no strict form")
        return None
    node["type"] = inferred[0] if len(inferred) == 1 else list(inferred)
    run.report(rule, node, "rewritten", f"type {node['type']!r} inferred", "type")
    return None


def _recurs_to_root(root: dict) -> bool:
    from .refs import root_sites

    return bool(root_sites(root))


def _is_null_branch(b: Any, marker: bool = False) -> bool:
    if not isinstance(b, dict):
        return False
    if b.get("type") == "null":
        return all(k in ("type", "description", "title") for k in b)
    # a lone `{type: null}` already spelled the marker way (a branch's one-branch allOf
    # folded after its null was): on a wire without a null type it is the null branch
    return marker and b.get("nullable") is True and all(k in ("nullable", "description", "title") for k in b)


# top-down, so a union sees its `{"type": "null"}` branch before that branch is rewritten
# the nodes `nullable` may change: a null said somewhere, or a union that may hold one
# (a `nullable: true` marker counts only beside a union, which the test already takes)
_NULL_SAID = (
    "'anyOf' in node or 'oneOf' in node or (t := node.get('type')) == 'null' or (t.__class__ is list and 'null' in t)"
    " or (node.get('enum').__class__ is list and None in node['enum']) or ('const' in node and node['const'] is None)"
)


@kind(
    "nullable", fails=False, reads="children", reads_via=("anyOf", "oneOf"), creates=False, adds={"nullable", "type"}, makes=lambda o: ("nullable-removed",) if o["style"] == "remove" else (),
    triggers={"type", "anyOf", "oneOf", "enum", "const"},
    acts_if=_NULL_SAID,
    order="pre",
    style=Opt("choice", required=True, choices=("marker", "remove")),
    null_type=Opt("bool", False, doc="marker: the wire also has type null, so a lone type null and the null branch of a union that does not fold into one schema stay"),
)
def nullable(rule, node, run):
    """Spell "or null" the wire's way: a `nullable: true` marker, or not at all.

    With `remove`, a property that could be null becomes optional instead (it leaves
    its object's `required`), which is the nearest thing the wire can say.
    """
    marker = rule.options["style"] == "marker"
    keep_null = marker and rule.options["null_type"]
    enum = node.get("enum")
    # null said some other way than a branch: a one-branch union beside it folds too
    null_value = (
        (isinstance(enum, list) and None in enum)
        or ("const" in node and node["const"] is None)
        or (marker and node.get("nullable") is True)  # a marker a folded allOf brought
    )
    made: list[str] = []
    folded = True
    # a folded branch may bring its own null (a nested "T or null"): look again
    while folded:
        folded = False
        t = node.get("type")
        if isinstance(t, list) and "null" in t:
            rest = [x for x in t if x != "null"]
            if rest:
                node["type"] = rest[0] if len(rest) == 1 else rest
            else:
                del node["type"]
            made.append("type")
        elif t == "null" and not keep_null:
            del node["type"]
            made.append("type")
        for comb in ("anyOf", "oneOf"):
            branches = node.get(comb)
            if not isinstance(branches, list):
                continue
            as_marker = marker and not keep_null
            if any(_is_null_branch(b, as_marker) for b in branches):
                rest = [b for b in branches if not _is_null_branch(b, as_marker)]
                folds = len(rest) == 1 and isinstance(rest[0], dict) and _mergeable(node, rest[0], comb)
                if keep_null and rest and not folds:
                    continue
                made.append(comb)
                if folds:
                    _fold(node, comb, rest[0], run)
                    folded = True
                elif rest:
                    node[comb] = rest
                else:
                    del node[comb]
            elif (made or null_value) and len(branches) == 1 and isinstance(branches[0], dict) and _mergeable(
                node, branches[0], comb
            ):
                # "T or null" where T is the one branch left: the same fold as a null branch
                _fold(node, comb, branches[0], run)
                run.report(rule, node, "rewritten", f"one-branch {comb} beside null folded into its parent", comb)
                folded = True
    made = list(dict.fromkeys(made))
    enum = node.get("enum")
    if isinstance(enum, list) and None in enum:
        rest = [v for v in enum if v is not None]
        if rest:
            node["enum"] = rest
        else:
            del node["enum"]
        made.append("enum")
    if "const" in node and node["const"] is None:
        del node["const"]
        made.append("const")
    if keep_null and node.get("type") == "null":
        # type null says it already: a marker beside it would be read back as nothing
        if made:
            run.report(rule, node, "dropped", f"null in {', '.join(made)} removed: type null already says it", made[0])
        if node.get("nullable") is True:
            del node["nullable"]
            run.report(rule, node, "dropped", "nullable: true removed: type null already says it", "nullable")
        return None
    if not made:
        return None
    if marker:
        node["nullable"] = True
        run.report(rule, node, "rewritten", f"null in {', '.join(made)} -> nullable: true", made[0])
    else:
        run.facts.nullable_removed.add(node)
        run.report(rule, node, "dropped", f"null removed from {', '.join(made)}", made[0])
    return None


@kind(
    "nullable-settle", fails=False, reads="children", reads_via=("anyOf", "oneOf"), creates=False, adds={"nullable", "type"}, makes=lambda o: ("nullable-removed",) if o["style"] == "remove" else (),
    triggers={"type", "anyOf", "oneOf", "enum", "const", "nullable"},
    acts_if=_NULL_SAID,
    style=Opt("choice", required=True, choices=("marker", "remove")),
    null_type=Opt("bool", False, doc="as for nullable"),
)
def nullable_settle(rule, node, run):
    """`nullable` once more, bottom-up: the null a folded allOf or a finished branch
    only shows late (a branch that became `{type: null}`, a merged `type: null`) is
    spelled the same way, in this run rather than the next."""
    return nullable(rule, node, run)


def _fold(node: dict, comb: str, branch: dict, run) -> None:
    """The branch's keywords take the union's place (the node's own win): one key order
    however the union was reached."""
    items: list[tuple[str, Any]] = []
    for k, v in node.items():
        if k == comb:
            items.extend((bk, bv) for bk, bv in branch.items() if bk == comb or bk not in node)
        else:
            items.append((k, v))
    rewrite(node, items)
    run.carry_spilled(node, branch.get("description"))  # constraints spilled into the branch


def _mergeable(node: dict, branch: dict, comb: str) -> bool:
    if "$ref" in branch:
        # flattened, the marker would stand beside $ref, where wires refuse siblings
        return False
    shared = (set(node) - {comb}) & set(branch)
    return all(k in ("description", "title") or node[k] == branch[k] for k in shared)


@kind(
    "optional-if-nullable", fails=False, reads="children", creates=False, adds=(), needs=("nullable-removed",),
    acts_if="'required' in node and 'properties' in node",
)
def optional_if_nullable(rule, node, run):
    """A property whose null was removed leaves `required`: omission says what null said."""
    removed = run.facts.nullable_removed
    props = node.get("properties")
    req = node.get("required")
    if not removed or not isinstance(props, dict) or not isinstance(req, list):
        return None
    drop = [n for n in req if isinstance(n, str) and n in props and props[n] in removed]
    if drop:
        node["required"] = [n for n in req if n not in drop]
        run.report(rule, node, "rewritten", f"nullable {', '.join(drop)} made optional", "required")
    return None


# the keywords whose crossing leaves a type no value (see `_admits_none`)
_BOUNDS = frozenset({
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
    "minItems", "maxItems", "minProperties", "maxProperties",
})


@kind(
    # drop-empty only removes: no subschema, no keyword of its own
    "type-array", fails=False, reads="node", creates=lambda o: o["mode"] != "drop-empty",
    adds=lambda o: () if o["mode"] == "drop-empty" else {"anyOf", "type"},
    writes_bools=False,  # branches of its own making; the keywords it moves into them keep their names
    # drop-empty has work only beside a bound, which few schemas hold: most plans leave it out
    triggers=lambda o: _BOUNDS if o["mode"] == "drop-empty" else {"type"},
    acts_if=lambda o: "node.get('type').__class__ is list" if o["mode"] == "drop-empty" else "node['type'].__class__ is list",
    mode=Opt("choice", required=True, choices=("any-of", "first", "drop-empty")),
    by_type=Opt("map", "map:type-keywords", doc="which keywords belong to which type"),
)
def type_array(rule, node, run):
    """Rewrite `type: [A, B]` as one `anyOf` branch per type, or keep the first type.

    With `drop-empty` the list stays, less each type its own keywords leave no value
    (bounds that cross: `minimum` above `maximum`, `minLength` above `maxLength`, ...),
    and less the keywords that applied only to such a type: the schema admits the same
    values, and a grammar compiler that refuses an empty range ("Invalid range: empty
    range") takes it. Where every type is empty the list stays as written.
    """
    t = node.get("type")
    if not isinstance(t, list) or not all(isinstance(x, str) for x in t):
        return None  # not a JSON type list (draft-03 schemas in it): the checks judge it
    if rule.options["mode"] == "drop-empty":
        _drop_empty_types(rule, node, run, t)
        return None
    if len(t) == 0:
        del node["type"]
        run.report(rule, node, "dropped", "empty type list removed", "type")
        return None
    if len(t) == 1:
        node["type"] = t[0]
        run.report(rule, node, "rewritten", f"type {t!r} -> {t[0]!r}", "type")
        return None
    by_type = rule.options["by_type"]
    owned = {k for ks in by_type.values() for k in ks}
    if rule.options["mode"] == "first":
        first = next((x for x in t if x != "null"), t[0])
        run.spill(rule, node, "type", t)
        node["type"] = first
        mine = set(by_type.get(first, ()))
        for k in [k for k in node if k in owned and k not in mine]:
            run.spill(rule, node, k, node[k])
        enum = node.get("enum")
        if isinstance(enum, list):
            kept = [v for v in enum if matches_type(v, first)]
            if len(kept) != len(enum):
                run.spill(rule, node, "enum", enum)
                if kept:
                    node["enum"] = kept
        return None
    if any(k in node for k in ("anyOf", "oneOf")):
        return None  # a second union on the same node: left for the residual checks
    branches = []
    enum = node.get("enum") if isinstance(node.get("enum"), list) else None
    for x in t:
        b: dict[str, Any] = {"type": x}
        for k in by_type.get(x, ()):
            if k in node:
                b[k] = node[k]
        if x == "number":
            for k in by_type.get("integer", ()):
                if k in node and k not in b:
                    b[k] = node[k]
        if enum is not None:
            vals = [v for v in enum if matches_type(v, x)]
            if not vals:
                continue
            if x != "null":
                b["enum"] = vals
        if "const" in node:
            if not matches_type(node["const"], x):
                continue
            if x != "null":
                b["const"] = node["const"]
        run.replace(b, node)
        branches.append(b)
    wrapper = {k: v for k, v in node.items() if k in _KEEP_ON_WRAPPER}
    others = [k for k in node if k not in _KEEP_ON_WRAPPER and k not in owned and k not in ("type", "enum", "const")]
    for k in others:
        wrapper[k] = node[k]
    if len(branches) == 1:
        out = {**branches[0], **wrapper}
    else:
        out = {"anyOf": branches, **wrapper}
    run.replace(out, node)
    run.report(rule, node, "rewritten", f"type {t!r} -> one anyOf branch per type", "type")
    return out


_COUNTS = {"string": ("minLength", "maxLength"), "array": ("minItems", "maxItems"), "object": ("minProperties", "maxProperties")}


def _drop_empty_types(rule, node: dict, run, types: list[str]) -> None:
    empty = [x for x in dict.fromkeys(types) if _admits_none(node, x)]
    kept = [x for x in types if x not in empty]
    if not empty or not kept:
        return
    by_type = rule.options["by_type"]
    # number and integer read the same keywords: either one kept keeps them
    still = {k for x in kept for y in ((x, "integer", "number") if x in ("integer", "number") else (x,)) for k in by_type.get(y, ())}
    gone = {k: x for x in empty for k in by_type.get(x, ()) if k not in still}
    node["type"] = kept[0] if len(kept) == 1 else kept
    run.report(rule, node, "rewritten", f"type {types!r} -> {node['type']!r}: {', '.join(empty)} admit{'s' if len(empty) == 1 else ''} no value under {'its' if len(empty) == 1 else 'their'} own keywords", "type")
    for k in [k for k in node if k in gone]:
        del node[k]
        run.report(rule, node, "dropped", f"{k} removed: it applied only to {gone[k]}, which admits no value", k)


def _admits_none(node: dict, t: str) -> bool:
    """Whether the keywords of type `t` (its bounds) cross, leaving it no value."""
    if t in ("number", "integer"):
        return _empty_range(node, t == "integer")
    low, high = (node.get(k) for k in _COUNTS.get(t, ("", "")))
    return _count(low) and _count(high) and low > high


def _count(v: Any) -> bool:
    return (v.__class__ is int or (v.__class__ is float and v.is_integer())) and v >= 0


def _bound(v: Any) -> bool:
    return is_number(v) and math.isfinite(v)


def _empty_range(node: dict, integer: bool) -> bool:
    lows = [(v, k == "exclusiveMinimum") for k in ("minimum", "exclusiveMinimum") if _bound(v := node.get(k))]
    highs = [(v, k == "exclusiveMaximum") for k in ("maximum", "exclusiveMaximum") if _bound(v := node.get(k))]
    if not lows or not highs:
        return False
    if integer:
        # the least and the greatest integer each bound admits
        lo = max(math.floor(v) + 1 if ex else math.ceil(v) for v, ex in lows)
        hi = min(math.ceil(v) - 1 if ex else math.floor(v) for v, ex in highs)
        return lo > hi
    # at one value an exclusive bound is the tighter
    lo, lo_ex = max(lows)
    hi, hi_ex = min(highs, key=lambda b: (b[0], not b[1]))
    return lo > hi or (lo == hi and (lo_ex or hi_ex))
