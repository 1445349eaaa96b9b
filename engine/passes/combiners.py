"""Kinds for `oneOf`, `allOf` and `anyOf` on wires that refuse or restrict them."""

from __future__ import annotations

from typing import Any

from ..positions import SUBSCHEMA_ARRAY, SUBSCHEMA_MAP, child_slots
from . import Opt, kind

_TEXT = ("description", "title")


@kind("one-of-to-any-of", triggers={"oneOf"})
def one_of_to_any_of(rule, node, run):
    """`oneOf` becomes `anyOf`: the branches stay, "exactly one" relaxes to "at least one"."""
    branches = node.get("oneOf")
    if not isinstance(branches, list):
        return None
    if isinstance(node.get("anyOf"), list):
        # both on one node: all of the two unions must hold
        both = [{"anyOf": node.pop("anyOf")}, {"anyOf": node.pop("oneOf")}]
        node["allOf"] = [*node.get("allOf", []), *both] if isinstance(node.get("allOf"), list) else both
        run.report(rule, node, "rewritten", "oneOf and anyOf on one node -> allOf of two anyOf", "oneOf")
        return None
    out = {("anyOf" if k == "oneOf" else k): v for k, v in node.items()}
    node.clear()
    node.update(out)
    run.report(rule, node, "rewritten", "oneOf -> anyOf", "oneOf")
    return None


def _merge_into(target: dict, branch: dict) -> str | None:
    """Merge one allOf branch into `target`; the reason it cannot, or None."""
    for k, v in branch.items():
        if k not in target:
            target[k] = v
        elif k == "properties" and isinstance(v, dict) and isinstance(target[k], dict):
            props = dict(target[k])
            for name, sub in v.items():
                if name in props and props[name] != sub:
                    return f"property {name!r} is defined twice, differently"
                props[name] = sub
            target[k] = props
        elif k == "required" and isinstance(v, list) and isinstance(target[k], list):
            target[k] = [*target[k], *(n for n in v if n not in target[k])]
        elif k in _TEXT:
            continue  # the outer text wins
        elif target[k] != v:
            return f"{k} differs between branches"
    return None


@kind(
    "merge-all-of",
    triggers={"allOf"},
    mode=Opt("choice", "compatible", choices=("single", "compatible")),
    single_wins=Opt("choice", "branch", choices=("branch", "outer")),
    otherwise=Opt("choice", "keep", choices=("keep", "spill"), doc="an allOf that does not fold"),
)
def merge_all_of(rule, node, run):
    """Fold `allOf` into its parent where that says the same thing.

    A one-branch `allOf` always folds (the branch's keywords win, or the outer ones,
    as the rule says); with `compatible`, several branches fold when no keyword
    conflicts (properties and required are unioned). Otherwise `allOf` stays for the
    residual checks to judge, or with `otherwise: spill` is spilled at once, so the
    rules after this one read the node without it.
    """
    _fold_all_of(rule, node, run)
    if rule.options["otherwise"] == "spill" and "allOf" in node:
        run.spill(rule, node, "allOf", node["allOf"])
    return None


def _fold_all_of(rule, node, run) -> None:
    branches = node.get("allOf")
    if not isinstance(branches, list) or not branches:
        return None
    if not all(isinstance(b, dict) for b in branches):
        return None
    if len(branches) == 1:
        b = branches[0]
        outer = {k: v for k, v in node.items() if k != "allOf"}
        if "$ref" in b and outer:
            # folding would put keywords beside $ref; a one-branch anyOf says the same
            node["anyOf"] = node.pop("allOf") if "anyOf" not in node else node["anyOf"]
            if "allOf" in node:
                return None
            run.report(rule, node, "rewritten", "one-branch allOf around a $ref -> one-branch anyOf", "allOf")
            return None
        if rule.options["single_wins"] == "branch":
            merged = {**outer, **b}
        else:
            merged = {**b, **outer}
        node.clear()
        node.update(merged)
        run.report(rule, node, "rewritten", "one-branch allOf merged into its parent", "allOf")
        return None
    if rule.options["mode"] != "compatible":
        return None
    merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
    for b in branches:
        if "$ref" in b or "allOf" in b:
            return None
        reason = _merge_into(merged, b)
        if reason is not None:
            run.notes.setdefault("allOf-conflicts", {})[id(node)] = reason
            return None
    node.clear()
    node.update(merged)
    run.report(rule, node, "rewritten", f"allOf of {len(branches)} compatible branches merged", "allOf")
    return None


_OBJECT_KEYS = frozenset({"properties", "required", "additionalProperties"})


def _is_object_branch(b: Any) -> bool:
    if not isinstance(b, dict):
        return False
    t = b.get("type")
    return t == "object" or (t is None and any(k in b for k in _OBJECT_KEYS))


def _merge_objects(branches: list[dict]) -> dict | None:
    """One object that any branch's instance satisfies: properties unioned, a property
    required only if every branch requires it."""
    props: dict[str, Any] = {}
    for b in branches:
        for name, sub in (b.get("properties") or {}).items():
            if name in props and props[name] != sub:
                props[name] = {"anyOf": [props[name], sub]} if "anyOf" not in props[name] else {
                    "anyOf": [*props[name]["anyOf"], sub]}
            else:
                props[name] = sub
    required_sets = [set(b.get("required") or []) for b in branches]
    common = set.intersection(*required_sets) if required_sets else set()
    out: dict[str, Any] = {"type": "object", "properties": props}
    req = [n for n in props if n in common]
    if req:
        out["required"] = req
    if all(b.get("additionalProperties") is False for b in branches):
        out["additionalProperties"] = False
    for b in branches:
        for k, v in b.items():
            if k in ("type", "properties", "required", "additionalProperties"):
                continue
            if k in _TEXT:
                out.setdefault(k, v)
            elif k in out and out[k] != v:
                return None
            else:
                out.setdefault(k, v)
    return out


def _merge_same_type(branches: list[dict]) -> dict | None:
    """Branches of one type become one schema of that type; keywords that differ are
    loosened away (the merged schema accepts every branch's values)."""
    t = branches[0].get("type")
    if not isinstance(t, str) or any(b.get("type") != t for b in branches):
        return None
    out: dict[str, Any] = {"type": t}
    enums = [b.get("enum") for b in branches]
    if all(isinstance(e, list) for e in enums):
        merged: list[Any] = []
        for e in enums:
            merged.extend(v for v in e if v not in merged)
        out["enum"] = merged
    keys = {k for b in branches for k in b} - {"type", "enum"}
    for k in sorted(keys, key=lambda k: min(list(b).index(k) if k in b else 99 for b in branches)):
        values = [b.get(k, _MISSING) for b in branches]
        if k in _TEXT:
            out[k] = next(v for v in values if v is not _MISSING)
        elif all(v == values[0] for v in values):
            out[k] = values[0]
    return out


_MISSING = object()


def _keep_own(node: dict, merged: dict) -> None:
    """The node's own properties and required hold beside its union (both apply): a
    property both sides define becomes an allOf of the two, for merge-all-of to fold."""
    own = node.get("properties")
    if isinstance(own, dict):
        props = dict(own)
        for name, sub in merged["properties"].items():
            if name not in props or props[name] == sub:
                props[name] = sub
            else:
                props[name] = {"allOf": [props[name], sub]}
        merged["properties"] = props
    own_req = node.get("required")
    if isinstance(own_req, list):
        merged["required"] = [*own_req, *(n for n in merged.get("required", ()) if n not in own_req)]


@kind(
    "collapse-any-of",
    triggers={"anyOf"},
    modes=Opt("strlist", ["object-merge", "same-type"], choices=("object-merge", "same-type", "mixed-type"), doc="tried in order"),
    otherwise=Opt("choice", "keep", choices=("keep", "spill")),
)
def collapse_any_of(rule, node, run):
    """Turn an `anyOf` into one schema, for wires without unions.

    `object-merge`: all branches are objects; properties are unioned and a property is
    required only if every branch requires it, beside the node's own properties and
    required, which still apply. `same-type`: all branches have one type;
    enums are unioned and keywords that differ are loosened away. `mixed-type` (lossy):
    the first branch's type wins and the whole union is spilled into the description.
    Branch descriptions give way to the node's own; a spilled union shows its structure,
    and each branch's description follows it as text.
    """
    if "anyOf" not in node:
        return None
    branches = node["anyOf"]
    if not isinstance(branches, list) or not branches or not all(isinstance(b, dict) for b in branches):
        if rule.options["otherwise"] == "spill":
            run.spill(rule, node, "anyOf", branches)  # not a union at all: only its text can stay
        return None
    merged = None
    used = None
    for mode in rule.options["modes"]:
        if mode == "object-merge" and all(_is_object_branch(b) for b in branches):
            merged = _merge_objects(branches)
        elif mode == "same-type":
            merged = _merge_same_type(branches)
        elif mode == "mixed-type":
            merged = dict(next((b for b in branches if b.get("type") != "null"), branches[0]))
        if merged is not None:
            used = mode
            break
    if merged is None:
        if rule.options["otherwise"] == "spill":
            _spill_union(rule, node, run, branches)
        return None
    if used == "mixed-type":
        _spill_union(rule, node, run, branches)
    else:
        del node["anyOf"]
    if used == "object-merge":
        _keep_own(node, merged)
    for k, v in merged.items():
        if k in _TEXT and k in node:
            continue
        node[k] = v
    run.report(rule, node, "rewritten", f"anyOf of {len(branches)} collapsed ({used})", "anyOf")
    return None


def _spill_union(rule, node: dict, run, branches: list) -> None:
    """Spill a union as its structure, then each branch's description as plain text.

    A description may already hold an earlier spill: embedded in JSON once more it would
    be escaped once more, and nested unions would grow exponentially.
    """
    had = node.get("description")
    run.spill(rule, node, "anyOf", _structure(branches))
    if node.get("description") == had:
        return  # spilling was switched off, or the description already says it
    for i, b in enumerate(branches):
        text = b.get("description")
        if isinstance(text, str) and text:
            node["description"] += run.spill_template.format(key=f"anyOf[{i}]", value=text)


def _structure(branches: list) -> list:
    """A copy of the branches (walked iteratively) without their own descriptions, nor
    any deeper one that JSON would escape: those are what grows when embedded again."""
    holder = list(branches)
    stack = [(holder, i) for i in range(len(holder))]
    while stack:
        cont, key = stack.pop()
        node = cont[key]
        if not isinstance(node, dict):
            continue
        top = cont is holder
        node = {k: v for k, v in node.items() if k != "description" or not (top or _escaped(v))}
        for k, v in node.items():
            # copied before they are changed: the originals stay in the tree
            if k in SUBSCHEMA_MAP and isinstance(v, dict):
                node[k] = dict(v)
            elif (k in SUBSCHEMA_ARRAY or k == "items") and isinstance(v, list):
                node[k] = list(v)
        cont[key] = node
        stack.extend((c, k) for _kw, _s, c, k in child_slots(node))
    return holder


def _escaped(text: Any) -> bool:
    return not isinstance(text, str) or '"' in text or "\\" in text
