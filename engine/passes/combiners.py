"""Kinds for `oneOf`, `allOf` and `anyOf` on wires that refuse or restrict them."""

from __future__ import annotations

from typing import Any

from . import Opt, kind

_TEXT = ("description", "title")


@kind("one-of-to-any-of")
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
    mode=Opt("choice", "compatible", choices=("single", "compatible")),
    single_wins=Opt("choice", "branch", choices=("branch", "outer")),
)
def merge_all_of(rule, node, run):
    """Fold `allOf` into its parent where that says the same thing.

    A one-branch `allOf` always folds (the branch's keywords win, or the outer ones,
    as the rule says); with `compatible`, several branches fold when no keyword
    conflicts (properties and required are unioned). Otherwise `allOf` stays for the
    residual checks to judge.
    """
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
