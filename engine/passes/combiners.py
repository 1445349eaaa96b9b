"""Kinds for `oneOf`, `allOf` and `anyOf` on wires that refuse or restrict them."""

from __future__ import annotations

from typing import Any

from ..positions import IN_PLACE_LISTS, IN_PLACE_SINGLE, SLOT_SINGLE, SUBSCHEMA_ARRAY, SUBSCHEMA_MAP, bool_markers, child_slots, schema_nodes, subschemas
from . import Opt, kind
from .beside import differ, disjoint, fold_apart, read_apart
from .literals import dedupe, json_equal, union
from .objects import is_object

_TEXT = ("description", "title")


@kind("one-of-to-any-of", fails=False, reads="children", creates=True, adds={"anyOf", "allOf"}, triggers={"oneOf"})
def one_of_to_any_of(rule, node, run):
    """`oneOf` becomes `anyOf`: the branches stay, "exactly one" relaxes to "at least one",
    reported `loosened` unless no value can match two branches (see `beside.disjoint`)."""
    branches = node.get("oneOf")
    if not isinstance(branches, list):
        return None
    action, why = ("rewritten", "") if disjoint(branches) else ("loosened", " (a value two branches take is taken too)")
    if isinstance(node.get("anyOf"), list):
        # both on one node: all of the two unions must hold
        both = [{"anyOf": node.pop("anyOf")}, {"anyOf": node.pop("oneOf")}]
        node["allOf"] = [*node.get("allOf", []), *both] if isinstance(node.get("allOf"), list) else both
        run.report(rule, node, action, "oneOf and anyOf on one node -> allOf of two anyOf" + why, "oneOf")
        return None
    out = {("anyOf" if k == "oneOf" else k): v for k, v in node.items()}
    run.rewrite(node, out)
    run.report(rule, node, action, "oneOf -> anyOf" + why, "oneOf")
    return None


@kind(
    "drop-empty-branches", fails=False, phase="prepare", reads="children", creates=False, adds=(), writes_bools=False,
    order="pre", triggers={"anyOf", "oneOf"},
    # work only where the input holds a `not`, or a boolean in a union's list
    census={"not", *bool_markers("anyOf"), *bool_markers("oneOf")},
)
def drop_empty_branches(rule, node, run):
    """A branch of `anyOf` or `oneOf` that admits no value (`false`, or `{not: {}}`:
    what zod writes for `never` and `undefined`) is removed: the union takes what it
    took, and no wire has to read the `not` (spilled, it would have become a branch
    taking any value). Where every branch admits none, the union is left as it is."""
    for kw in ("anyOf", "oneOf"):
        branches = node.get(kw)
        if branches.__class__ is not list:
            continue
        empty = [i for i, b in enumerate(branches) if admits_nothing(b)]
        if not empty or len(empty) == len(branches):
            continue
        node[kw] = [b for i, b in enumerate(branches) if i not in empty]
        said = f"branch {empty[0]} admits no value" if len(empty) == 1 else f"branches {', '.join(map(str, empty))} admit no value"
        run.report(rule, node, "dropped", f"{kw} {said}: the union takes what it took without {'it' if len(empty) == 1 else 'them'}", kw)
    return None


def admits_nothing(branch: Any) -> bool:
    """`false`, or a schema whose `not` takes every value (`{}`, `true`): what admits no
    value by itself, whatever stands beside the `not`."""
    if branch is False:
        return True
    return branch.__class__ is dict and (branch.get("not") is True or branch.get("not") == {})


def admits_no_value(schema: Any) -> bool:
    """`schema` plainly admits no value: `admits_nothing`, or a union all of whose
    branches do (one level: what drop-empty-branches leaves)."""
    if admits_nothing(schema):
        return True
    if schema.__class__ is not dict:
        return False
    for kw in ("anyOf", "oneOf"):
        branches = schema.get(kw)
        if branches.__class__ is list and branches and all(map(admits_nothing, branches)):
            return True
    return False


# what may stand beside `properties` in an object whose properties admitting no value are removed:
# nothing that could admit a name `properties` no longer lists (patternProperties, a
# combiner or conditional that a later rule merges in, a $ref)
_BESIDE_CLOSED = frozenset({
    "type", "properties", "required", "additionalProperties", "unevaluatedProperties", "description", "title",
    "default", "examples", "$comment", "$schema", "$id", "$anchor", "$defs", "definitions", "minProperties",
    "maxProperties", "deprecated", "readOnly", "writeOnly",
})


# the census markers of a property's schema that may admit no value: a `not`, or a
# boolean in a map of schemas
EMPTY_MARKERS = frozenset({"not", *bool_markers("properties")})


@kind(
    "drop-empty-properties", fails=False, reads="subtree", creates=False, adds=(), writes_bools=False,
    order="pre", triggers={"properties"},
    census=EMPTY_MARKERS,  # work only where the input holds one
    absent_is_closed=Opt("bool", False, doc="an object without additionalProperties takes no other names (the target closes it)"),
)
def drop_empty_properties(rule, node, run):
    """An optional property whose schema admits no value (`false`, `{not: {}}`, a union
    of such: zod's `never` and `undefined`) can only be left out. In an object that
    takes no name it does not list (`additionalProperties: false`, or absent where the
    target closes every object) the property is removed from `properties`: the object
    takes what it took, and no wire has to read the `not` or the `false` (spilled,
    either would have become a property taking any value). A required one, which
    makes the object admit nothing, is left as it is, and so is every property of an
    object with `patternProperties`, a combiner, a conditional or a `$ref` beside its
    `properties` (a name they take, or a later rule merges in, would be taken again)."""
    props = node.get("properties")
    if props.__class__ is not dict or not node.keys() <= _BESIDE_CLOSED:
        return None
    extra = node.get("additionalProperties", None)
    if not (extra is False or (extra is None and rule.options["absent_is_closed"])):
        return None
    req = node.get("required")
    required = {n for n in req if n.__class__ is str} if req.__class__ is list else set()
    empty = [n for n, sub in props.items() if n not in required and admits_no_value(sub)]
    if not empty:
        return None
    closed = "says additionalProperties: false" if extra is False else "is closed on this wire"
    for name in empty:
        run.report(rule, props, "dropped", f"optional property admits no value, and its object {closed}: it could only be left out", name)
        del props[name]
    return None


def _merge_into(target: dict, branch: dict, run, joined: dict | None = None, nest: bool = True, carried: list | None = None) -> str | None:
    """Merge one allOf branch into `target`; the reason it cannot, or None.

    A property both define holds both ways: the two merge where they are compatible,
    else they become an allOf of their own (with `nest`; without, that is a conflict).
    Values compare as JSON values (`true` is not `1`). `joined` holds the allOf nodes
    made so far for one merge, which the next branch's schema for that property joins.
    Every branch holds, so every description stays: the first one's, then each other
    one's words and the constraints spilled into them, once; they go to `carried`, for
    `_join_texts` (or are joined at once without it).
    """
    for k, v in branch.items():
        if k not in target:
            target[k] = v
        elif k == "properties" and isinstance(v, dict) and isinstance(target[k], dict):
            props = dict(target[k])
            for name, sub in v.items():
                if name in props and not json_equal(props[name], sub):
                    if not nest:
                        return f"property {name!r} is defined twice, differently"
                    props[name] = _both(props[name], sub, run, joined)
                else:
                    props[name] = sub
            target[k] = props
        elif k == "required" and isinstance(v, list) and isinstance(target[k], list):
            target[k] = union(target[k], v)
        elif k in _TEXT:
            if k == "description":
                if carried is not None:
                    carried.append(v)
                else:
                    _join_texts(run, target, [v])
        elif not json_equal(target[k], v):
            return f"{k} differs between branches"
    return None


def _both(a: Any, b: Any, run, joined: dict | None = None) -> Any:
    """One schema that says what `a` and `b` say together (a property both define, where
    an allOf is merged): it stands where `a` was written.

    Where they do not merge, an allOf of the two (its keyword reported where it stands); a
    third schema for the same property joins that allOf (`joined`) rather than nesting
    it one level deeper: n branches that disagree give one allOf of n, not a chain n deep.
    """
    if json_equal(a, b) or b is True or b == {}:
        return a
    if a is True or a == {}:
        return b
    if isinstance(a, dict) and isinstance(b, dict):
        merged = dict(a)
        if not read_apart(a, b) and _merge_into(merged, b, run, nest=False) is None and not any(k in merged for k in ("$ref", "allOf")):
            run.absorbed_into(merged, a, b)
            return run.replace(merged, a)
    if joined is not None and joined.get(id(a)) is a:
        a["allOf"].append(b)
        return a
    both = run.replace({"allOf": [a, b]}, a)
    run.made_keyword(both, "allOf")
    run.grow(a, nodes=2)
    if joined is not None:
        joined[id(both)] = both
    return both


def _fold_one(outer: dict, branch: dict, branch_wins: bool, run) -> dict:
    """A parent and its one allOf branch as one schema: `properties` and `required`
    are unioned (a property both define holds both ways), the other keywords of the
    winning side replace the other's."""
    merged = {**outer, **branch} if branch_wins else {**branch, **outer}
    own, other = outer.get("properties"), branch.get("properties")
    if isinstance(own, dict) and isinstance(other, dict):
        props = dict(own)
        for name, sub in other.items():
            props[name] = _both(props[name], sub, run) if name in props else sub
        merged["properties"] = props
    own_req, other_req = outer.get("required"), branch.get("required")
    if isinstance(own_req, list) and isinstance(other_req, list):
        merged["required"] = union(own_req, other_req)
    if "description" in outer and "description" in branch:
        # one description wins; the constraints spilled into the other still apply
        run.carry_spilled(merged, outer["description"] if branch_wins else branch["description"])
    return merged


@kind(
    "merge-all-of", fails=False, reads="children", creates=True, adds={"anyOf", "allOf"}, order="pre",
    triggers={"allOf"},
    mode=Opt("choice", "compatible", choices=("single", "compatible")),
    single_wins=Opt("choice", "branch", choices=("branch", "outer")),
    otherwise=Opt("choice", "keep", choices=("keep", "spill"), doc="an allOf that does not fold"),
)
def merge_all_of(rule, node, run):
    """Fold `allOf` into its parent where that says the same thing.

    A one-branch `allOf` always folds (the branch's keywords win, or the outer ones,
    as the rule says); with `compatible`, several branches fold when no keyword
    conflicts, and their descriptions join, in branch order, each once (all of them
    hold). Either way `properties` and `required` are unioned, and a property
    both sides define holds both ways (merged where compatible, else an allOf of the
    two); an allOf the branch brings along folds the same way. Otherwise `allOf`
    stays for the residual checks to judge, or with `otherwise: spill` is spilled at
    once, so the rules after this one read the node without it.
    """
    seen = None
    # a folded branch may bring its own allOf along: that one folds the same way
    while isinstance(node.get("allOf"), list) and node["allOf"] is not seen:
        seen = node["allOf"]
        _fold_all_of(rule, node, run)
    if rule.options["otherwise"] == "spill" and "allOf" in node:
        if isinstance(node["allOf"], list):
            # as a union is: the structure, then the branches' texts (no text escaped twice)
            _spill_union(rule, node, run, node["allOf"], "allOf")
        else:
            run.spill(rule, node, "allOf", node["allOf"])
    return None


def _fold_all_of(rule, node, run) -> None:
    branches = node.get("allOf")
    if branches == []:
        # all of no schema holds for every value: the node says what its other keywords say
        del node["allOf"]
        run.report(rule, node, "dropped", "empty allOf removed (it constrains nothing)", "allOf")
        return None
    if not isinstance(branches, list):
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
        if fold_apart(outer, branches) or differ(outer, b):
            return None  # folded, it would say something else: the allOf stays
        merged = _fold_one(outer, b, rule.options["single_wins"] == "branch", run)
        run.rewrite(node, merged)
        run.absorbed_into(node, b)
        run.report(rule, node, "rewritten", "one-branch allOf merged into its parent", "allOf")
        return None
    if rule.options["mode"] != "compatible":
        return None
    merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
    if fold_apart(merged, branches):
        return None  # a keyword would read another branch's: the allOf stays
    joined: dict[int, dict] = {}  # the allOf nodes this merge made, by id (kept alive here)
    carried: list = []  # the branch descriptions after the first
    for b in branches:
        if "$ref" in b or "allOf" in b:
            return None
        if _merge_into(merged, b, run, joined, carried=carried) is not None:
            return None  # a conflict: the allOf stays for the rules and checks after this
    _join_texts(run, merged, carried)
    run.rewrite(node, merged)
    run.absorbed_into(node, *branches)
    run.report(rule, node, "rewritten", f"allOf of {len(branches)} compatible branches merged", "allOf")
    return None


_OBJECT_KEYS = frozenset({"properties", "required", "additionalProperties"})


def _is_object_branch(b: Any) -> bool:
    if not isinstance(b, dict):
        return False
    t = b.get("type")
    return t == "object" or (t is None and any(k in b for k in _OBJECT_KEYS))


def _merge_objects(branches: list[dict], run) -> dict | None:
    """One object that any branch accepts: properties unioned, a property required
    only if every branch requires it; a property the branches define differently
    becomes an anyOf, standing where its first schema was written."""
    props: dict[str, Any] = {}
    owner: dict[str, dict] = {}  # the branch each schema in `props` came from
    made: dict[int, dict] = {}  # the anyOf nodes made here, by id (kept alive here)
    for b in branches:
        for name, sub in (b.get("properties") or {}).items():
            have = props.get(name)
            if name not in props or json_equal(have, sub):
                props[name], owner[name] = sub, b
            elif made.get(id(have)) is have:
                have["anyOf"].append(sub)  # made here: a third schema joins it, in place
            else:
                # a schema that is an anyOf alone takes the new branch beside its own
                alone = isinstance(have, dict) and set(have) == {"anyOf"} and isinstance(have["anyOf"], list)
                either = {"anyOf": [*have["anyOf"], sub]} if alone else {"anyOf": [have, sub]}
                props[name] = made[id(either)] = _stands_for(run, either, owner[name], name)
                if not alone:
                    run.made_keyword(either, "anyOf")
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
            elif k in out and not json_equal(out[k], v):
                return None
            else:
                out.setdefault(k, v)
    return out


def _merge_same_type(branches: list[dict], loosened: list[str] | None = None) -> dict | None:
    """Branches of one type become one schema of that type; keywords that differ are
    loosened away (the merged schema accepts every branch's values), named in `loosened`."""
    t = branches[0].get("type")
    if not isinstance(t, str) or any(b.get("type") != t for b in branches):
        return None
    out: dict[str, Any] = {"type": t}
    enums = [b.get("enum") for b in branches]
    if all(isinstance(e, list) for e in enums):
        out["enum"] = dedupe([v for e in enums for v in e])
    keys = {k for b in branches for k in b} - {"type", "enum"}
    for k in sorted(keys, key=lambda k: min(list(b).index(k) if k in b else 99 for b in branches)):
        values = [b.get(k, _MISSING) for b in branches]
        if k in _TEXT:
            out[k] = next(v for v in values if v is not _MISSING)
        elif all(json_equal(v, values[0]) for v in values):
            out[k] = values[0]
        elif loosened is not None:
            loosened.append(k)
    return out


_MISSING = object()


def _stands_for(run, new: dict, holder: dict, name: str) -> dict:
    """`new` stands for the schema `holder` gives property `name` (a union made of it and
    others): changes to `new`'s own keywords point where that schema was written."""
    old = holder["properties"][name]
    if isinstance(old, dict):
        return run.replace(new, old)
    # a boolean schema has no origin of its own: it was written in its holder's properties
    return run.placed(new, (run.chain_at(holder, "properties"), name))


def _keep_own(node: dict, merged: dict, run) -> None:
    """The node's own properties and required hold beside its union (both apply): a
    property both sides define becomes an allOf of the two, for merge-all-of to fold."""
    own = node.get("properties")
    if isinstance(own, dict):
        props = dict(own)
        for name, sub in merged["properties"].items():
            if name not in props or json_equal(props[name], sub):
                props[name] = sub
            else:
                both = props[name] = _stands_for(run, {"allOf": [props[name], sub]}, node, name)
                run.made_keyword(both, "allOf")
        merged["properties"] = props
    own_req = node.get("required")
    if isinstance(own_req, list):
        merged["required"] = union(own_req, merged.get("required", []))


@kind(
    "collapse-any-of", fails=False, reads="subtree", creates=True, adds={"type", "properties", "required", "additionalProperties", "enum", "allOf"},
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
    loosened: list[str] = []
    for mode in rule.options["modes"]:
        if mode == "object-merge" and all(_is_object_branch(b) for b in branches):
            merged = _merge_objects(branches, run)
        elif mode == "same-type":
            merged = _merge_same_type(branches, loosened)
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
        _keep_own(node, merged, run)
    for k, v in merged.items():
        if k in _TEXT and k in node:
            continue
        node[k] = v
    if used != "mixed-type":
        _carry_all(run, node, [b.get("description") for b in branches])  # what a branch spilled still applies
        run.absorbed_into(node, *branches)
    run.report(rule, node, "rewritten", f"anyOf of {len(branches)} collapsed ({used})", "anyOf")
    if loosened:
        # what was spilled inside a value loosened away leaves with it (all at once: one
        # look at the report however many branches)
        run.left_out(*({k: b[k]} for k in loosened for b in branches if k in b))
    for k in loosened:
        for b in branches:
            if k in b:
                run.report(rule, b, "dropped", f"{k} loosened away: the union's branches differ in it", k)
    return None


def _join_texts(run, node: dict, texts: list) -> None:
    """The descriptions of allOf branches merged into `node`, after its own, in branch
    order: all of them hold, so each one's words stay, once (a text the description holds
    already adds nothing; one that extends it adds the rest), with the constraints spilled
    into it. Appended at once (one at a time, a merge of 15,000 branches would copy the
    growing description 15,000 times)."""
    desc = node.get("description")
    have = desc if isinstance(desc, str) else ""
    parts: list[str] = []
    spilled: list[str] = []
    seen: set[str] = set()
    for text in texts:
        if not isinstance(text, str) or not text.strip() or text in seen or (have and text in have):
            continue
        seen.add(text)
        parts.append(text[len(have):] if have and text.startswith(have) else " " + text)
        held = run.spilled_text(text)
        spilled.append("" if held.strip() in have else held)
    if parts:
        run.append_spilled(node, "".join(parts), "".join(spilled))


def _carry_all(run, node: dict, lost: list) -> None:
    """`run.carry_spilled` for many descriptions that gave way, appended at once (one at a
    time, a union of 15,000 branches would copy the growing description 15,000 times)."""
    desc = node.get("description")
    texts: list[str] = []
    seen: set[str] = set()
    for text in lost:
        spilled = run.spilled_text(text)
        if not spilled or text == desc:
            continue
        held = spilled.strip()
        if held in seen or (isinstance(desc, str) and held in desc):
            continue
        seen.add(held)
        texts.append(spilled)
    if texts:
        run.append_spilled(node, "".join(texts))


def _spill_union(rule, node: dict, run, branches: list, key: str = "anyOf") -> None:
    """Spill a union as its structure, then each branch's description as plain text.

    A description may already hold an earlier spill: embedded in JSON once more it would
    be escaped once more, and nested unions would grow exponentially.
    """
    had = node.get("description")
    structure, deeper = _structure(branches)
    run.spill(rule, node, key, structure)
    run.absorbed_into(node, *branches, whole=True)  # what was spilled inside them is node's text now
    if node.get("description") == had:
        return  # spilling was switched off, or the description already says it
    texts = []
    for i, b in enumerate(branches):
        text = b.get("description") if isinstance(b, dict) else None
        if isinstance(text, str) and text:
            texts.append(run.spill_template.format(key=f"{key}[{i}]", value=text))
    # a deeper description that JSON would escape goes as plain text, with where it was
    texts.extend(run.spill_template.format(key=f"{key}{where}", value=text) for where, text in deeper)
    if texts:
        run.append_spilled(node, "".join(texts))  # once: appending one by one is quadratic


def _structure(branches: list) -> tuple[list, list[tuple[str, str]]]:
    """A copy of the branches (walked iteratively) without their own descriptions, nor
    any deeper one that JSON would escape: those are what grows when embedded again.
    The deeper ones left out come back with their place (`[1]/items`), in order."""
    holder = list(branches)
    # (container, key, where, the texts kept above it on its path)
    stack: list[tuple[Any, Any, str, tuple[str, ...]]] = [(holder, i, "", ()) for i in range(len(holder))]
    deeper: list[tuple[str, str]] = []
    while stack:
        cont, key, where, above = stack.pop()
        node = cont[key]
        if not isinstance(node, dict):
            continue
        top = cont is holder
        where = f"[{key}]" if top else where
        text = node.get("description")
        # kept once: a description that one above it on its path already holds is not
        # repeated (a collapsed union keeps its first branch, whose texts its spill holds)
        if not top and isinstance(text, str) and _escaped(text) and not any(text in held for held in above):
            deeper.append((where, text))
            above = (*above, text)
        node = {k: v for k, v in node.items() if k != "description" or not (top or _escaped(v))}
        for k, v in node.items():
            # copied before they are changed: the originals stay in the tree
            if k in SUBSCHEMA_MAP and isinstance(v, dict):
                node[k] = dict(v)
            elif (k in SUBSCHEMA_ARRAY or k == "items") and isinstance(v, list):
                node[k] = list(v)
        cont[key] = node
        children = [(c, k, f"{where}/{kw}" if slot == SLOT_SINGLE else f"{where}/{kw}/{k}", above)
                    for kw, slot, c, k in child_slots(node)]
        stack.extend(reversed(children))  # popped in document order
    return holder, deeper


def _escaped(text: Any) -> bool:
    return not isinstance(text, str) or '"' in text or "\\" in text


# ---------------------------------------------------------------------------
# lifting the properties a keyword declares before the keyword is spilled

_LIFT_DEPTH = 48
_LIFT_SCHEMAS = 64  # more schemas for one name than this: the name takes any value


class _Unlisted(Exception):
    """A subschema evaluates property names it does not list (patterns, an open
    additionalProperties, a reference that cannot be read here)."""


class _Entry:
    """What the subschemas say about one property name: the schemas they give it,
    and whether a present value is sure to be checked by one of them."""

    __slots__ = ("schemas", "sure")

    def __init__(self) -> None:
        self.schemas: list = []
        self.sure = False

    def add(self, schemas: list, sure: bool) -> None:
        for s in schemas:
            if len(self.schemas) >= _LIFT_SCHEMAS:
                self.schemas = [True]
                break
            if not any(json_equal(s, have) for have in self.schemas):
                self.schemas.append(s)
        self.sure = self.sure or sure


def _resolve_local(ref: str, run) -> Any:
    """The subschema a document-local `$ref` names, or None (also where a nested `$id`
    may give the reference another base)."""
    if ref != "#" and not ref.startswith("#/"):
        return None
    if run.memo("nested-ids", lambda: _has_nested_id(run.root)):
        return None
    from .defs import local_target

    node = local_target(run.root, ref)
    return node if isinstance(node, (dict, bool)) else None


def _can_be_object(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return schema is not False
    t = schema.get("type")
    return t is None or t == "object" or (isinstance(t, list) and "object" in t)


class _Reader:
    """Reads the property names a subschema evaluates (at the same instance location).

    `closed`: every subschema is read as a strict wire reads it, closed: of a union,
    a name only some branches list takes those branches' schemas (the others would
    refuse it). Otherwise a name is sure only where every way through lists it.
    """

    def __init__(self, run, closed: bool):
        self.run = run
        self.closed = closed
        self.memo: dict[int, dict[str, _Entry]] = {}
        self.open: set[int] = set()

    def names(self, schema: Any, depth: int = 0) -> dict[str, _Entry]:
        if not isinstance(schema, dict):
            return {}
        if depth > _LIFT_DEPTH:
            raise _Unlisted("the subschemas nest too deeply to read")
        key = id(schema)
        if key in self.memo:
            return self.memo[key]
        if key in self.open:
            return {}  # a cycle lists nothing the way round has not listed already
        self.open.add(key)
        try:
            out = self._names(schema, depth)
        finally:
            self.open.discard(key)
        self.memo[key] = out
        return out

    def _names(self, s: dict, depth: int) -> dict[str, _Entry]:
        out: dict[str, _Entry] = {}

        def take(found: dict[str, _Entry], sure: Any = None) -> None:
            for n, e in found.items():
                out.setdefault(n, _Entry()).add(e.schemas, e.sure if sure is None else sure(n, e))

        for kw in ("$dynamicRef", "$recursiveRef"):
            if kw in s:
                raise _Unlisted(f"{kw} cannot be read here")
        if isinstance(s.get("$ref"), str):
            target = _resolve_local(s["$ref"], self.run)
            if target is None:
                raise _Unlisted(f"$ref {s['$ref']} cannot be read here")
            take(self.names(target, depth + 1))
        pattern = s.get("patternProperties")
        if isinstance(pattern, dict) and pattern:
            raise _Unlisted("patternProperties")
        for kw in ("additionalProperties", "unevaluatedProperties"):
            if s.get(kw, False) is not False:
                raise _Unlisted(f"an open {kw}")
        props = s.get("properties")
        if isinstance(props, dict):
            for n, sub in props.items():
                out.setdefault(n, _Entry()).add([sub], True)
        for b in _branches(s, "allOf"):
            take(self.names(b, depth + 1))
        for comb in ("anyOf", "oneOf"):
            branches = [b for b in _branches(s, comb) if _can_be_object(b)]
            if branches:
                found = [self.names(b, depth + 1) for b in branches]
                every = {n for n in set().union(*found) if all(n in f and f[n].sure for f in found)}
                for f in found:
                    take(f, lambda n, e: e.sure and (self.closed or n in every))
        if "if" in s:
            take(self.names(s["if"], depth + 1), lambda n, e: False)
            then, other = self.names(s.get("then"), depth + 1), self.names(s.get("else"), depth + 1)
            both = "then" in s and "else" in s
            for f in (then, other):
                take(f, lambda n, e: e.sure and both and n in then and then[n].sure and n in other and other[n].sure)
        else:
            for kw in ("then", "else"):  # without `if` they are never applied
                for n in _listed(s.get(kw), depth + 1):
                    out.setdefault(n, _Entry())
        deps = s.get("dependentSchemas")
        if isinstance(deps, dict):
            for k, sub in deps.items():
                take(self.names(sub, depth + 1), lambda n, e, k=k: e.sure and n == k)
        absent = _forbidden(s.get("not"))
        for n in _listed(s.get("not"), depth + 1):
            if n != absent:
                out.setdefault(n, _Entry())  # listed, never evaluated
        return out


def _branches(s: dict, kw: str) -> list:
    v = s.get(kw)
    return v if isinstance(v, list) else []


def _forbidden(schema: Any) -> str | None:
    """The name `not: schema` forbids outright: `{properties: {x: {}}, required: [x]}`
    matches exactly the objects that have x."""
    if not isinstance(schema, dict) or not set(schema) <= {"properties", "required", "type", "description", "title", "$comment"}:
        return None
    req, props = schema.get("required"), schema.get("properties", {})
    if schema.get("type", "object") != "object" or not isinstance(props, dict):
        return None
    if not (isinstance(req, list) and len(req) == 1 and isinstance(req[0], str)):
        return None
    return req[0] if all(v is True or v == {} for v in props.values()) else None


def _listed(schema: Any, depth: int) -> list[str]:
    """Names a subschema lists in `properties` (its in-place subschemas included),
    without reading what it says of them."""
    names: list[str] = []
    stack = [(schema, depth)]
    while stack:
        s, d = stack.pop()
        if not isinstance(s, dict) or d > _LIFT_DEPTH:
            continue
        if isinstance(s.get("properties"), dict):
            names.extend(n for n in s["properties"] if n not in names)
        for kw in IN_PLACE_LISTS:
            stack.extend((b, d + 1) for b in _branches(s, kw))
        for kw in IN_PLACE_SINGLE:
            stack.append((s.get(kw), d + 1))
        if isinstance(s.get("dependentSchemas"), dict):
            stack.extend((b, d + 1) for b in s["dependentSchemas"].values())
    return names


def _one_schema(schemas: list, run) -> Any:
    """One schema that accepts what any of `schemas` accepts."""
    from ..prepare import copy_subtree

    kept = [s for s in schemas if s is not False]
    if not kept:
        return False
    if any(s is True or s == {} for s in kept):
        return {}
    if len(kept) == 1:
        return copy_subtree(kept[0], run)
    return run.replace({"anyOf": [copy_subtree(s, run) for s in kept]}, kept[0])


@kind(
    "lift-properties", reads="tree", creates=True, adds={"properties", "required", "anyOf"},
    order="pre",
    triggers="keys",
    keys=Opt("keys", ["anyOf", "oneOf"], doc="the keywords whose subschemas' properties are lifted"),
    reading=Opt("choice", "closed", choices=("closed", "unevaluated")),
    names=Opt("choice", "lift", choices=("lift", "fail"), doc="what a name only the keywords list makes of a strict target"),
    spill=Opt("bool", False, doc="spill the keywords once their properties are lifted (a union as its structure)"),
)
def lift_properties(rule, node, run):
    """Properties declared only inside a keyword that is about to be spilled are lifted
    into the object's own `properties`, as optional ones.

    Spilling the keyword would otherwise leave them refused: by the closed object of
    a strict wire (`reading: closed`), or by an `unevaluatedProperties` that counted
    them as evaluated (`reading: unevaluated`, which acts only there; a subschema
    whose names cannot be listed then has unevaluatedProperties spilled instead).
    A lifted name takes the schemas the subschemas give it (anyOf of them where they
    differ, each subschema read closed with `closed`), or `{}` where a value there
    need not meet any of them; the names every branch of a union requires stay
    required. With `names: fail` a strict target whose restore cannot see lifted
    names fails open instead. A subschema open on purpose (patternProperties, an
    open additionalProperties) fails a closed reading: it has no strict form.
    """
    opts = rule.options
    keys = [k for k in node if k in opts["keys"]]
    if not keys or not (node is run.root or is_object(node)):
        return None
    closed = opts["reading"] == "closed"
    uneval = node.get("unevaluatedProperties", None)
    guarded = (uneval is False or (isinstance(uneval, dict) and uneval != {})) and "additionalProperties" not in node
    if (closed or guarded) and "additionalProperties" not in node:
        _lift(rule, node, run, keys, closed, guarded, uneval)
    if opts["spill"]:
        for k in keys:
            if k in node:
                if k in ("anyOf", "oneOf") and isinstance(node[k], list):
                    _spill_union(rule, node, run, node[k], k)
                else:
                    run.spill(rule, node, k, node[k])
    return None


def _lift(rule, node: dict, run, keys: list[str], closed: bool, guarded: bool, uneval: Any) -> None:
    reader = _Reader(run, closed)
    # the keywords alone, as the node holds them (then and else with their if)
    view = {k: node[k] for k in keys}
    if ("then" in view or "else" in view) and "if" in node:
        view["if"] = node["if"]
    try:
        found = reader.names(view)
    except _Unlisted as exc:
        if not closed:
            run.spill(rule, node, "unevaluatedProperties", uneval)
            return
        run.fail(rule, node, f"{', '.join(keys)} evaluates properties it does not list ({exc}): no strict form", keys[0])
    own = node.get("properties") if isinstance(node.get("properties"), dict) else {}
    if "properties" in node and not isinstance(node["properties"], dict):
        return
    lineage = run.memo("lift-lineage", dict)
    above = _lineage_of(node, lineage)
    lifted: dict[str, Any] = {}
    for n, e in found.items():
        if n in own or (guarded and not e.schemas):
            continue  # the node's own schema holds; or never evaluated: refused as before
        if rule.options["names"] == "fail":
            run.fail(rule, node, f"property {n!r} is declared only inside {', '.join(keys)}, which this wire refuses", keys[0])
        schemas = list(e.schemas)
        if guarded:
            if uneval is not False:
                schemas.append(uneval)  # unevaluated, it met this
            sure = "patternProperties" not in node  # a pattern of the node may have evaluated it
        else:
            sure = e.sure
        if not sure:
            lifted[n] = {}
            continue
        sources = [s for s in schemas if isinstance(s, dict)]
        came = frozenset(run.pointer(s) for s in sources)
        again = sorted(came & above)
        if again:
            # the node is itself (inside) a lifted copy of this schema: lifting it again
            # would nest copies without end, so the recursion is cut as resolve-refs cuts it
            lifted[n] = run.placed({"description": f"(recursive {again[0]}: cut where it is lifted again)"}, run.chain_at(node, "properties"))
            run.report(rule, node, "dropped", f"{n}: recursion through {again[0]} cut where it is lifted again", "properties")
            continue
        lifted[n] = _one_schema(schemas, run)
        _mark(lifted[n], above | came.union(*(_lineage_of(s, lineage) for s in sources)), lineage)
    if not lifted:
        return
    node["properties"] = {**own, **lifted}
    required = [n for n in _required_by_all(node, keys, run) if n in node["properties"]]
    req = node.get("required", [])
    if isinstance(req, list) and any(n not in req for n in required):
        node["required"] = [*req, *(n for n in required if n not in req)]
    names = ", ".join(lifted)
    run.report(rule, node, "rewritten", f"{names} lifted out of {', '.join(keys)} into the object's own properties", "properties")


def _lineage_of(node: Any, lineage: dict) -> frozenset:
    """The input pointers of the schemas that lifts copied to make `node` (none for a
    node of the input)."""
    entry = lineage.get(id(node))
    return entry[1] if entry is not None and entry[0] is node else frozenset()


def _mark(copy: Any, sources: frozenset, lineage: dict) -> None:
    """Each schema of a lifted copy remembers the schemas it was copied from (see `_lift`)."""
    for x in schema_nodes(copy):
        lineage[id(x)] = (x, sources)  # the node kept, so its id cannot be reused


def _required_by_all(node: dict, keys: list[str], run) -> list[str]:
    """Names every valid instance has: required by each branch of a union (or by an allOf branch)."""
    out: list[str] = []
    for k in keys:
        if k == "allOf":
            for b in _branches(node, k):
                out.extend(n for n in _required(b, run) if n not in out)
        elif k in ("anyOf", "oneOf"):
            sets = [_required(b, run) for b in _branches(node, k) if _can_be_object(b)]
            if sets:
                common = set.intersection(*map(set, sets))
                out.extend(n for n in sets[0] if n in common and n not in out)
    return out


def _required(schema: Any, run) -> list[str]:
    """The names a schema requires itself (or through the `$ref`s it stands on)."""
    out: list[str] = []
    for _hop in range(8):
        if not isinstance(schema, dict):
            break
        req = schema.get("required")
        if isinstance(req, list):
            out.extend(n for n in req if isinstance(n, str) and n not in out)
        ref = schema.get("$ref")
        schema = _resolve_local(ref, run) if isinstance(ref, str) else None
    return out


def _has_nested_id(root: Any) -> bool:
    """A subschema below the root has its own `$id` (literal payloads are data, not schemas)."""
    stack = subschemas(root) if isinstance(root, dict) else []
    while stack:
        node = stack.pop()
        if node.__class__ is dict:
            if isinstance(node.get("$id"), str):
                return True
            stack.extend(subschemas(node))
    return False
