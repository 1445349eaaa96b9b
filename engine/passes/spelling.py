"""Kinds for how a wire spells what JSON Schema says: references, enum values, null.

Some wires carry a JSON Schema meaning under other names (a reference keyword without
`$`, integers as enum strings, null as a branch rather than an enum value). These
kinds translate one spelling into the other and back, so a wire's own output can be
read again.
"""

from __future__ import annotations

import fnmatch
import json
from typing import Any

from ..positions import IN_PLACE_LISTS, child_slots, decode_fragment, ref_token, unescape
from ..prepare import copy_subtree
from ..run import rewrite
from . import Opt, check, kind
from .defs import def_name, local_target, recursive
from .beside import kept_apart
from .refs import put_beside
from .types import json_type, types_of

_DEFS_PREFIX = "#/$defs/"
# keywords that describe a value rather than constrain it: they stay on a union wrapper
_ANNOTATIONS = ("description", "title", "default", "examples", "$comment", "deprecated")


def _rename(node: dict, old: str, new: str, value: Any) -> None:
    """Replace key `old` by `new` (holding `value`) where it stands: key order is output."""
    items = [(new, value) if k == old else (k, v) for k, v in node.items()]
    rewrite(node, items)


def _schema_nodes(*starts: Any) -> list[dict]:
    """Every schema object under `starts`, in document order (collected before any change)."""
    out: list[dict] = []
    seen: set[int] = set()
    stack = list(reversed(starts))
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        stack.extend(reversed([c[k] for _kw, _s, c, k in child_slots(node)]))
    return out


@kind(
    "spell-refs", phase=lambda o: "prepare" if o["direction"] == "read" else "finish", reads="tree", creates=True, adds=lambda o: {o["ref"], o["defs"], "$ref", "$defs"},
    makes=lambda o: ("references",) if o["direction"] == "read" else (),
    respells_defs=lambda o: o["defs"] if o["direction"] == "write" else None,
    order="tree",
    triggers=lambda o: {"$ref", "$defs"} if o["direction"] == "write" else {o["ref"], o["defs"]},
    direction=Opt("choice", required=True, choices=("write", "read"), doc="write: to the wire's spelling; read: back to $ref/$defs"),
    ref=Opt("str", required=True, doc="the wire's keyword for $ref"),
    defs=Opt("str", required=True, doc="the wire's keyword for the root $defs"),
    root_name=Opt("str", "Root", doc="write: the definition a reference to the root (#) becomes"),
)
def spell_refs(rule, run):
    """Spell `$ref`/`$defs` the wire's way (`ref: "#/defs/Name"`, `defs` at the root), or read it back.

    `write` runs after reference resolution kept root definitions: every reference then
    names the root or a root definition. A wire whose references may only name a
    definition gets a copy of the root as one. `read` turns the wire's spelling into
    `$ref`/`$defs` before resolution, so the wire's own output normalizes to itself.
    """
    root = run.root
    if not isinstance(root, dict):
        return
    if rule.options["direction"] == "read":
        _read(rule, run, root)
    else:
        _write(rule, run, root)


def _read(rule, run, root: dict) -> None:
    ref_kw, defs_kw = rule.options["ref"], rule.options["defs"]
    if isinstance(root.get(defs_kw), dict) and "$defs" not in root:
        _rename(root, defs_kw, "$defs", root[defs_kw])
        run.report(rule, root, "renamed", f"{defs_kw} -> $defs", defs_kw)
        run.facts.references = True  # resolve-refs reads this fact, which the copy took before
    prefix = f"#/{defs_kw}/"
    for node in _schema_nodes(root):
        value = node.get(ref_kw)
        # only a reference the wire itself could have written: `ref` is no keyword elsewhere
        if isinstance(value, str) and value.startswith(prefix) and "$ref" not in node:
            _rename(node, ref_kw, "$ref", _DEFS_PREFIX + value[len(prefix):])
            run.report(rule, node, "renamed", f"{ref_kw} -> $ref", ref_kw)
            run.facts.references = True


def _write(rule, run, root: dict) -> None:
    ref_kw, defs_kw = rule.options["ref"], rule.options["defs"]
    nodes = _schema_nodes(root)
    if any(n.get("$ref") == "#" for n in nodes):
        defs = root.get("$defs")
        if not isinstance(defs, dict):
            defs = root["$defs"] = {}
        name = rule.options["root_name"]
        n = 2
        while name in defs:
            name, n = f"{rule.options['root_name']}{n}", n + 1
        body = {k: v for k, v in root.items() if k not in ("$defs", "$schema", "$id")}
        defs[name] = run.replace(copy_subtree(body, run), root)
        run.report(rule, root, "rewritten", f"the root, which a $ref names, copied to {defs_kw}/{name}", "$defs")
        nodes = _schema_nodes(root)
        root_target = f"#/{defs_kw}/" + ref_token(name)
    else:
        root_target = None
    for node in nodes:
        ref = node.get("$ref")
        if not isinstance(ref, str):
            continue
        if ref == "#":
            new = root_target
        elif ref.startswith(_DEFS_PREFIX):
            new = f"#/{defs_kw}/" + ref[len(_DEFS_PREFIX):]
        else:
            run.fail(rule, node, f"$ref {ref!r} names no root definition, the only kind of reference this wire has", "$ref")
            continue
        _rename(node, "$ref", ref_kw, new)
        run.report(rule, node, "renamed", f"$ref {ref} -> {ref_kw} {new}", "$ref")
    if isinstance(root.get("$defs"), dict):
        _rename(root, "$defs", defs_kw, root["$defs"])
        run.report(rule, root, "renamed", f"$defs -> {defs_kw}", "$defs")
    elif "$defs" in root:
        del root["$defs"]  # defines nothing, and the wire's defs is a map
        run.report(rule, root, "dropped", "$defs removed: not a map of definitions", "$defs")


@check(
    "ref-targets", reads="tree",
    order="tree",
    triggers=lambda o: {o["ref"], o["defs"]},
    ref=Opt("str", "$ref", doc="the keyword that holds a reference"),
    defs=Opt("str", "$defs", doc="the keyword of the root definitions"),
    siblings=Opt("strlist", [], doc="keywords (glob patterns) allowed beside a reference"),
)
def ref_targets(rule, run):
    """Every reference names a root definition (`#/<defs>/<name>`); definitions sit at
    the root only; beside a reference stand only the allowed siblings."""
    root = run.root
    if not isinstance(root, dict):
        return
    ref_kw, defs_kw = rule.options["ref"], rule.options["defs"]
    defs = root.get(defs_kw)
    names = defs if isinstance(defs, dict) else {}
    if defs_kw in root and not isinstance(defs, dict):
        run.fail(rule, root, f"{defs_kw} must map names to schemas", defs_kw)
    prefix = f"#/{defs_kw}/"
    # the walk knows `$defs`; a wire's own spelling of it is followed here
    starts = [root, *(names.values() if defs_kw != "$defs" else ())]
    for node in _schema_nodes(*starts):
        if defs_kw in node and node is not root:
            run.fail(rule, node, f"{defs_kw} is only accepted at the root", defs_kw)
        if ref_kw not in node:
            continue
        ref = node[ref_kw]
        if not isinstance(ref, str) or not ref.startswith(prefix) or unescape(decode_fragment(ref[len(prefix):])) not in names:
            run.fail(rule, node, f"{ref_kw} {ref!r} does not name an entry of the root {defs_kw}", ref_kw)
        for k in node:
            if k != ref_kw and not any(fnmatch.fnmatchcase(k, p) for p in rule.options["siblings"]):
                run.fail(rule, node, f"{ref_kw} cannot have sibling {k}", k)


def _of_type(value: Any, t: str) -> bool:
    vt = json_type(value)
    return vt == t or (t == "number" and vt == "integer")


def _as_text(value: Any, t: str) -> str:
    if isinstance(value, str):
        return value
    if t == "integer" and isinstance(value, float):
        return str(int(value))  # 3.0 is the integer 3
    return json.dumps(value)


@kind(
    "enum-as-strings", fails=False, reads="node", creates=False, adds={"format"},
    acts_if="(t := node.get('type')).__class__ is str and t in {types} and node.get('enum').__class__ is list",
    types=Opt("strlist", required=True, doc="the types whose enum values are written as strings"),
    format=Opt("str", "", doc="the format such a node then says (empty: format left alone)"),
)
def enum_as_strings(rule, node, run):
    """Write the enum values of a node of the listed types as strings, with the format
    that tells the wire how to read them back (`{type: integer, format: enum, enum:
    ["101", "201"]}`), where enum is a list of strings but not only on strings."""
    t = node.get("type")
    enum = node.get("enum")
    if not isinstance(t, str) or t not in rule.options["types"] or not isinstance(enum, list) or not enum:
        return None
    if not all(_of_type(v, t) for v in enum):
        return None  # strings already, or values of another type: the enum rule judges
    node["enum"] = [_as_text(v, t) for v in enum]
    fmt = rule.options["format"]
    if fmt and node.get("format") != fmt:
        if "format" in node:
            run.spill(rule, node, "format", node["format"])
        node["format"] = fmt
    run.report(rule, node, "rewritten", f"{t} enum values written as strings" + (f", format {fmt}" if fmt else ""), "enum")
    return None


@kind("null-enum-branch", fails=False, reads="node", creates=True, adds={"anyOf", "type"}, triggers={"enum"}, acts_if="node['enum'].__class__ is list and None in node['enum']")
def null_enum_branch(rule, node, run):
    """A `null` among the enum values becomes a `{type: null}` branch of its own.

    `{type: [string, null], enum: [a, null]}` reads `anyOf: [{type: string, enum: [a]},
    {type: null}]`, which says the same where enum values may not be null but types
    may. A null the node's type refuses was never valid and just leaves the enum.
    """
    enum = node.get("enum")
    if not isinstance(enum, list) or None not in enum:
        return None
    rest = [v for v in enum if v is not None]
    types = types_of(node)
    if types and "null" not in types:
        node["enum"] = rest
        run.report(rule, node, "dropped", "null removed from enum: the type refuses it", "enum")
        return None
    if not rest:
        del node["enum"]
        node["type"] = "null"
        run.report(rule, node, "rewritten", "enum [null] -> type null", "enum")
        return None
    inner = {k: v for k, v in node.items() if k not in _ANNOTATIONS}
    inner["enum"] = rest
    t = inner.get("type")
    if isinstance(t, list):
        kept = [x for x in t if x != "null"]
        if len(kept) == 1:
            inner["type"] = kept[0]
        elif kept:
            inner["type"] = kept
        else:
            del inner["type"]
    out = {"anyOf": [run.replace(inner, node), {"type": "null"}]}
    out.update((k, v) for k, v in node.items() if k in _ANNOTATIONS)
    run.report(rule, node, "rewritten", "null in enum -> its own {type: null} branch", "enum")
    return run.replace(out, node)


def _follows_refs(o: Any) -> bool:
    # whether a reference reaches itself is read off the canonical references resolve-refs leaves
    return o["recursive_only"] or o["ref_branches"] == "inline"


@kind(
    # a $ref branch is judged by the definition it names, wherever that stands; with no
    # $ref, a compiled target may fuse its walk with the walks beside it
    "any-of-alone", fails=False, reads="tree", reads_via=("$ref",), reads_within="children", creates=True, adds={"type"},
    writes_bools=False,  # the keywords it moves into the branches keep their names
    needs=lambda o: ("refs-resolved",) if _follows_refs(o) else (),
    triggers={"anyOf"},
    # keywords named without a glob: some of them stand beside the union
    acts_if=lambda o: "not {keys}.isdisjoint(node)" if not any(c in "*?[" for k in o["keys"] for c in k) else "len(node) > 1",
    ref_siblings=Opt("strlist", ["*"], doc="keywords (glob patterns) a `$ref` branch may take"),
    by_type=Opt("map", "map:type-keywords", doc="which keywords belong to which type"),
    keys=Opt("strlist", ["*"], doc="keywords (glob patterns) beside anyOf that move; the others stay beside it"),
    widening=Opt(
        "keys", [], doc="keywords that only add values (a nullable marker): a branch that accepts any value already says them and does not take them"
    ),
    recursive_only=Opt(
        "bool", False, doc="only an anyOf with a branch that is (or holds, through unions) a `$ref` that reaches itself moves its keywords"
    ),
    ref_branches=Opt(
        "choice", "spill", choices=("spill", "inline"),
        doc="a keyword a `$ref` branch cannot take (it is no allowed sibling), where it would constrain that branch: spill: it is spilled into the description; inline: the branch becomes a copy of the definition, which takes it as any branch does (a `$ref` that reaches itself, or that names no local definition, is spilled)",
    ),
)
def any_of_alone(rule, node, run):
    """`anyOf` stands alone on its node: the keywords beside it move into every branch.

    `S and anyOf [A, B]` says `anyOf [S and A, S and B]`, for wires that refuse any
    other keyword beside anyOf. A branch keeps its own value of a keyword, but for
    `properties` and `required`, which add to its own (a property both define keeps
    the branch's schema); it takes no keyword of another type than its own, a
    `{type: null}` branch takes nothing, a branch that accepts any value none of the
    `widening` keywords, and a `$ref` branch only the allowed siblings. With `keys`,
    only those keywords move (a strict wire's closed branches need the parent's
    properties, while a description may stay). The branches are new schemas, so the
    rest of the walk visits them again.

    A `$ref` branch is judged by the definition it names: a keyword of another type
    than the definition's (a `pattern` beside a reference to an object), an annotation
    or a `widening` keyword constrains it in nothing, and it goes without. Any other
    keyword would hold that branch to more than the reference says, so it is never
    left behind unsaid: with `ref_branches: inline` the branch becomes a copy of the
    definition, which takes the keywords as any branch does; a reference that reaches
    itself (a copy would hold it again) or names no definition, and with `spill` every
    reference, has the keyword spilled: into a description beside that reference where
    `ref_siblings` let one stand there, else beside the anyOf. So is an `enum` or
    `const` that a `{type: null}` branch would get past.

    With `recursive_only`, only where a branch leads to a `$ref` that reaches itself:
    a grammar compiler that intersects the keywords with each branch would have to
    expand that reference inside its own expansion (llguidance: "circular references
    with sibling keys are not supported"), while a keyword beside any other union is
    kept where it stands.
    """
    branches = node.get("anyOf")
    if not isinstance(branches, list) or len(node) == 1 or not all(isinstance(b, dict) for b in branches):
        return None
    if node is run.root:
        return None  # the root's keywords ($defs, ...) belong to the root; root unions are judged there
    moving = rule.options["keys"]
    beside = [(k, v) for k, v in node.items() if k != "anyOf" and any(fnmatch.fnmatchcase(k, p) for p in moving)]
    if not beside:
        return None
    if rule.options["recursive_only"] and not _holds_recursive_ref(rule, run, branches):
        return None
    staying = [(k, v) for k, v in node.items() if k != "anyOf" and (k, v) not in beside]
    by_type = rule.options["by_type"]
    owned = {k for ks in by_type.values() for k in ks}
    widening = rule.options["widening"]
    ref_siblings = rule.options["ref_siblings"]
    inlining = rule.options["ref_branches"] == "inline"
    # a keyword a $ref branch cannot take is spilled beside that reference where a
    # description may stand there (it speaks of that branch alone), else beside the anyOf
    said_beside_ref = any(fnmatch.fnmatchcase("description", p) for p in ref_siblings)
    # the keywords a $ref branch cannot take beside its reference
    unref = {k for k, _ in beside if not any(fnmatch.fnmatchcase(k, p) for p in ref_siblings)}
    out = []
    taken: set[str] = set()
    said: set[str] = set()  # widening keywords a branch of any value says already
    # keyword -> the branches it would constrain that could not take it, and why
    lost: dict[str, list[str]] = {}
    unsaid: set[str] = set()  # of those, the keywords spilled beside the anyOf
    for i, b in enumerate(branches):
        if b.get("type") == "null":
            for k, v in beside:
                if not _null_passes(k, v):
                    lost.setdefault(k, []).append(f"anyOf[{i}] (null)")
                    unsaid.add(k)
            out.append(b)
            continue
        spill_here: list[tuple[str, Any]] = []
        while "$ref" in b:
            ref = b["$ref"]
            binding = [(k, v) for k, v in beside if k in unref and _constrains(run, ref, k, v, by_type, owned, widening)]
            if not binding:
                break
            copy = _inlined(rule, run, b) if inlining else None
            if copy is None:
                why = ", which reaches itself" if inlining and def_name(ref) is not None and _local(run, ref) is not None else ""
                for k, v in binding:
                    lost.setdefault(k, []).append(f"anyOf[{i}] ($ref {ref}{why})")
                if said_beside_ref:
                    spill_here = binding
                else:
                    unsaid.update(k for k, _ in binding)
                break
            run.report(rule, b, "rewritten", f"$ref {ref} in anyOf[{i}] inlined: {', '.join(k for k, _ in binding)} beside anyOf would constrain it", "$ref")
            b = copy
        new = dict(b)
        if "type" not in new and "type" in node and "$ref" not in new:
            new["type"] = node["type"]
        mine = {k for t in types_of(new) for k in by_type.get(t, ())}
        # only annotations: every value, null too (a lone marker would be read as null only)
        any_value = all(k in _ANNOTATIONS for k in new)
        for k, v in beside:
            if any_value and k in widening:
                said.add(k)
                continue
            if "$ref" in new and k in unref:
                continue  # constrains nothing the reference says, or is counted lost above
            if k in owned and types_of(new) and k not in mine:
                continue
            if k in new:
                merged = _added(k, new[k], v)
                if merged is not None:
                    new[k] = run.replace(merged, new[k])
                elif k == "description":
                    run.carry_spilled(new, v)  # the branch's text wins, what the parent's spilled stays
                taken.add(k)  # the branch says it already, its own way (or both, merged)
                continue
            new[k] = v
            taken.add(k)
        for k, v in spill_here:
            new[k] = v
            run.moved(new, k, node)  # the spill points where the keyword was written
            run.spill(rule, new, k, v)
        out.append(run.replace(new, b) if new != b else b)
    node.clear()
    node["anyOf"] = out
    node.update(staying)
    moved = [k for k, _ in beside if k in taken and k not in lost]
    if moved:
        run.report(rule, node, "rewritten", f"{', '.join(moved)} beside anyOf moved into its branches", "anyOf")
    for k, v in beside:
        if k in lost:
            if k in taken:
                # the branches that took it are held to it still: the spill speaks for the rest
                run.report(rule, node, "rewritten", f"{k} beside anyOf moved into its branches but {', '.join(lost[k])}", "anyOf")
            if k in unsaid:
                run.spill(rule, node, k, v)
    for k in (k for k, _ in beside if k not in taken and k not in lost):
        if k in said:
            run.report(rule, node, "rewritten", f"{k} beside anyOf removed: its branches accept any value already", "anyOf")
        elif k in _ANNOTATIONS or k in widening:
            run.report(rule, node, "dropped", f"{k} beside anyOf dropped: no branch can take it", k)
        else:
            # of another type than each branch's, or said already by the definitions referenced
            run.report(rule, node, "rewritten", f"{k} beside anyOf removed: it constrains none of its branches", "anyOf")
    return None


def _inlined(rule, run, branch: dict) -> dict | None:
    """A copy of the definition the `$ref` branch names, the branch's other keywords put
    in (None where there is no such copy: a reference that reaches itself, that names
    no definition, or whose other keywords would change what the definition's say)."""
    ref = branch["$ref"]
    # a definition alone, as inline-refs copies: a reference to the root or into the
    # tree may name a schema that holds the branch itself, whose copy would hold it again
    target = _local(run, ref) if def_name(ref) is not None else None
    if target is None or recursive(rule, run, ref) or kept_apart(target, {k: v for k, v in branch.items() if k != "$ref"}):
        return None
    copy = copy_subtree(target, run)
    put_beside(copy, branch, run, rule)
    if not run.has_origin(copy):
        run.replace(copy, branch)
    return copy


def _local(run, ref: Any) -> dict | None:
    target = local_target(run.root, ref) if isinstance(ref, str) else None
    return target if isinstance(target, dict) else None


def _constrains(run, ref: Any, k: str, v: Any, by_type: dict, owned: set, widening: Any) -> bool:
    """Whether keyword `k` beside the anyOf holds a branch `{$ref: ref}` to more than the
    definition it names says (unknown: it does)."""
    if k in _ANNOTATIONS or k in widening:
        return False  # says nothing a value must be, or only lets more values in
    types = _def_types(run, ref)
    if not types:
        return True
    if k == "type":
        beside = [v] if isinstance(v, str) else v if isinstance(v, list) else []
        return not all(t in beside or (t == "integer" and "number" in beside) for t in types)
    return k not in owned or any(k in by_type.get(t, ()) for t in types)


def _holds_recursive_ref(rule, run, branches: list) -> bool:
    """Whether a branch is, or holds through the unions it is made of, a `$ref` that reaches itself."""
    stack = list(branches)
    seen: set[int] = set()
    while stack:
        b = stack.pop()
        if not isinstance(b, dict) or id(b) in seen:
            continue
        seen.add(id(b))
        ref = b.get("$ref")
        if isinstance(ref, str) and recursive(rule, run, ref):
            return True
        for kw in IN_PLACE_LISTS:
            if isinstance(b.get(kw), list):
                stack.extend(b[kw])
    return False


def _def_types(run, ref: Any) -> list[str]:
    """The types a value of the definition `ref` names may have: its `type`, or the types
    of all its anyOf branches (references followed), as a definition whose keywords
    moved into its branches says them; empty where some branch says none."""
    types: list[str] = []
    stack = [ref]
    seen: set[str] = set()
    while stack:
        r = stack.pop()
        if r in seen:
            continue  # a reference met again adds no type
        seen.add(r)
        node = _local(run, r)
        if node is None:
            return []
        # a branch is a reference or a schema of its own
        for b in node["anyOf"] if not types_of(node) and isinstance(node.get("anyOf"), list) else [node]:
            if not isinstance(b, dict):
                return []
            if types_of(b):
                types.extend(t for t in types_of(b) if t not in types)
            elif isinstance(b.get("$ref"), str):
                stack.append(b["$ref"])
            else:
                return []
    return types


def _null_passes(k: str, v: Any) -> bool:
    """Whether null passes keyword `k` (a type's keyword does not apply to it)."""
    if k == "enum":
        return isinstance(v, list) and None in v
    if k == "const":
        return v is None
    return True


def _added(k: str, own: Any, outer: Any) -> Any:
    """A branch's `properties` or `required` with the parent's added (None: nothing to add)."""
    if k == "properties" and isinstance(own, dict) and isinstance(outer, dict):
        extra = {n: s for n, s in outer.items() if n not in own}
        return {**own, **extra} if extra else None
    if k == "required" and isinstance(own, list) and isinstance(outer, list):
        extra = [n for n in outer if n not in own]
        return [*own, *extra] if extra else None
    return None


@check(
    "stands-alone",
    triggers="keys",
    keys=Opt("keys", required=True, doc="keywords that must be the only one on their node"),
    siblings=Opt("strlist", [], doc="keywords (glob patterns) allowed beside them after all"),
)
def stands_alone(rule, node, run):
    """These keywords stand alone on their node (but for the allowed siblings)."""
    for key in rule.options["keys"]:
        if key in node:
            for k in node:
                if k != key and not any(fnmatch.fnmatchcase(k, p) for p in rule.options["siblings"]):
                    run.fail(rule, node, f"{k} is not accepted beside {key}", k)
