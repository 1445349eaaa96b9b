"""`resolve-refs`: dereference `$ref`s locally, by the rule file's policy.

Resolution understands JSON Pointer fragments (with `~0`, `~1` and percent-encoding),
embedded `$id` resources with relative references, `$anchor`s, and `$dynamicRef`s (as a
`$ref` to what they may land on). Nothing external is ever fetched. Keywords beside a
`$ref` win over the referenced schema's, except `properties`, `required` and `allOf`,
which add to them. A loop of `$ref`s that passes no subschema constrains nothing.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any
from urllib.parse import urldefrag, urljoin

from ..graphs import first_cycle
from ..positions import REFERENCE_KEYS, DEFINITIONS, SLOT_SINGLE, array_index, child_slots, decode_fragment, follow, is_schema_path, ref_token, schema_nodes, unescape
from ..prepare import copy_subtree
from ..risks import nesting
from ..run import BudgetExceeded, Unrepresentable
from . import Opt, kind
from .beside import differ, kept_apart

_BASE = "https://wireschema.invalid/root.json"
_DEFS = DEFINITIONS


class _Unresolved:
    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason


class _Dynamic:
    """`$dynamicRef` / `$recursiveRef` sites and the anchors they may land on."""

    __slots__ = ("sites", "anchors", "recursive")

    def __init__(self):
        self.sites: list[tuple[dict, str, str]] = []  # (node, keyword, base)
        self.anchors: dict[str, list[tuple[dict, str]]] = {}  # name -> [(node, uri#name)]
        self.recursive: list[tuple[dict, str]] = []  # resources with $recursiveAnchor: true


def _index(root: Any, dynamic: _Dynamic | None = None) -> tuple[dict[str, Any], list[tuple[dict, str]]]:
    """Resources by URI and anchors by URI#name, and every `$ref` site with its base
    (and, into `dynamic`, the dynamic references and anchors)."""
    resources: dict[str, Any] = {}
    sites: list[tuple[dict, str]] = []
    dynamic = dynamic if dynamic is not None else _Dynamic()
    root_base = _root_base(root)
    resources[_defrag(root_base)] = root
    resources.setdefault(_BASE, root)
    stack: list[tuple[Any, str]] = [(root, root_base)]
    while stack:
        node, base = stack.pop()
        if not isinstance(node, dict):
            continue
        nid = node.get("$id")
        joined = _split(_join(base, nid)) if isinstance(nid, str) and node is not root else None
        if joined is not None:  # an $id that is no URI reference identifies nothing
            uri, frag = joined
            if frag and not uri.rstrip("#"):
                uri = base
            if frag and not frag.startswith("/"):
                resources.setdefault(f"{_defrag(base)}#{frag}", node)  # draft-07 "$id": "#name"
            else:
                resources.setdefault(uri, node)
                base = uri
        anchor = node.get("$anchor")
        if isinstance(anchor, str):
            resources.setdefault(f"{_defrag(base)}#{anchor}", node)
        anchor = node.get("$dynamicAnchor")
        if isinstance(anchor, str):  # a plain anchor too, for $ref
            key = f"{_defrag(base)}#{anchor}"
            resources.setdefault(key, node)
            dynamic.anchors.setdefault(anchor, []).append((node, key))
        if node.get("$recursiveAnchor") is True:
            dynamic.recursive.append((node, _defrag(base)))
        if isinstance(node.get("$ref"), str):
            sites.append((node, base))
        for kw in ("$dynamicRef", "$recursiveRef"):
            if isinstance(node.get(kw), str):
                dynamic.sites.append((node, kw, base))
        for _kw, _slot, cont, key in child_slots(node):
            stack.append((cont[key], base))
    return resources, sites


def _join(base: str, ref: str) -> str | None:
    """`ref` read against `base`, or None where `ref` is no URI reference urllib can read
    (`http://[::1`): a reference that names nothing."""
    # urljoin does not know non-hierarchical schemes such as urn:, where "#..." still
    # means "in this document"
    if ref.startswith("#"):
        return _defrag(base) + ref
    try:
        return urljoin(base, ref)
    except ValueError:
        return None


def _split(uri: str | None) -> tuple[str, str] | None:
    """(the URI without its fragment, the fragment), or None for no readable URI."""
    if uri is None:
        return None
    try:
        return urldefrag(uri)[:2]
    except ValueError:
        return None


def _defrag(base: str) -> str:
    # bases are made by `_join` and `_root_base`, so urllib reads them (or they are the default)
    split = _split(base)
    return base if split is None else split[0]


def _root_base(root: Any) -> str:
    """The base URI of the document: the root's `$id` where urllib can read it."""
    if isinstance(root, dict) and isinstance(root.get("$id"), str):
        joined = _join(_BASE, root["$id"])
        if joined is not None and _split(joined) is not None:
            return joined
    return _BASE


def _resolve(ref: str, base: str, resources: dict[str, Any]) -> Any:
    split = _split(_join(base, ref))
    if split is None:
        return _Unresolved(f"$ref {_shown(ref)} is not a URI reference")
    uri, fragment = split
    resource = resources.get(uri)
    if resource is None:
        return _Unresolved(f"external $ref {_shown(ref)} is never fetched")
    if not fragment:
        return resource
    if fragment.startswith("/"):
        tokens = [unescape(decode_fragment(t)) for t in fragment.split("/")[1:]]
        target = follow(resource, tokens, upgraded=True)
        path = [i if (i := array_index(t)) is not None else t for t in tokens]
        if isinstance(target, dict) and not is_schema_path(path):
            # found outside schema positions: no walk has prepared it yet
            return _Raw(target)
    else:
        target = resources.get(f"{uri}#{decode_fragment(fragment)}")
    if not isinstance(target, (dict, bool)):
        return _Unresolved(f"$ref {_shown(ref)} does not resolve to a schema")
    return target


def _shown(ref: str) -> str:
    """A reference as a report quotes it: a long one is cut (a 5,000-digit token says
    nothing more at its end)."""
    return repr(ref) if len(ref) <= 200 else repr(ref[:120]) + f"... ({len(ref)} characters)"


# markers on the walk's stack: leave a target's expansion, restore the path of a walk
_LEAVE = object()
_RESTORE = object()


class _Raw:
    """A target reached through keywords that hold no schema (`#/$things/x`)."""

    __slots__ = ("node",)

    def __init__(self, node: Any):
        self.node = node


def dynamic_landings(ref: Any, kw: str, base: str, resources: dict[str, Any], dynamic: _Dynamic) -> list[tuple[Any, str]] | None:
    """What a `$dynamicRef` / `$recursiveRef` may land on: [(target, uri)].

    One entry: its static target (or an _Unresolved), where it lands whatever the path.
    Several: the static target is a dynamic anchor (`$dynamicAnchor` of the fragment's
    name, `$recursiveAnchor: true`), and the schema it lands on is the outermost one
    with that anchor on the validation path: one of these, every schema of the
    document with that anchor. None: not a reference.
    """
    if not isinstance(ref, str):
        return None
    if kw == "$recursiveRef":
        here = _defrag(base)
        static = resources.get(here)
        if static is None:
            return None
        if isinstance(static, dict) and static.get("$recursiveAnchor") is True:
            found = _unique(dynamic.recursive)
            if len(found) > 1:
                return found
        return [(static, here)]
    static = _resolve(ref, base, resources)
    static = static.node if isinstance(static, _Raw) else static
    uri = _join(base, ref)
    split = _split(uri)
    if uri is None or split is None:
        return [(static, ref)]  # the static target is an _Unresolved: it lands on nothing
    fragment = decode_fragment(split[1])
    if isinstance(static, dict) and fragment and not fragment.startswith("/") and static.get("$dynamicAnchor") == fragment:
        found = _unique(dynamic.anchors.get(fragment, []))
        if len(found) > 1:
            return found
    return [(static, uri)]


def _unique(found: list[tuple[dict, str]]) -> list[tuple[dict, str]]:
    seen: set[int] = set()
    out = []
    for node, uri in found:
        if id(node) not in seen:
            seen.add(id(node))
            out.append((node, uri))
    return out


def _as_schema(target: Any) -> Any:
    if target is True:
        return {}
    if target is False:
        return {"not": {}}
    return target


@kind(
    "resolve-refs", phase="resolve", reads="tree", creates=True, adds=None, makes=("refs-resolved",), needs=("references",),
    order="tree",
    triggers=REFERENCE_KEYS,
    mode=Opt("choice", "inline", choices=("inline", "keep-defs")),
    recursion=Opt("choice", "fallback", choices=("fallback", "unroll", "keep")),
    max_unroll=Opt("int", 2, doc="with recursion: unroll, how many times a schema may nest in itself"),
    max_depth=Opt("int", None, doc="with recursion: unroll, the JSON nesting (root at 1) no unrolled level may pass (unset: any)"),
    cut=Opt("json", {}, doc="what stands where unrolling stops"),
    cut_note=Opt("str", " (recursive {name}: cut after {depth} levels)"),
    external=Opt("choice", "fallback", choices=("fallback", "any")),
    siblings_allowed=Opt("strlist", [], doc="keywords (glob) a kept $ref may have beside it"),
)
def resolve_refs(rule, run):
    """Inline `$ref`s, or keep root `$defs` and inline only the refs the wire refuses.

    An OpenAPI `discriminator`'s `mapping` (pydantic writes one for a tagged union, a
    reference to each branch's definition) follows the definitions: an entry naming one
    removed after inlining is dropped, reported (it would point at nothing; its
    `propertyName` stays), and one naming a kept definition is spelled as the `$ref`s
    to it are (`#/definitions/Cat` as `#/$defs/Cat`).
    """
    root = run.root
    if not isinstance(root, dict) or not run.facts.references:
        return  # copying the input saw no $ref, $defs or $id anywhere
    dynamic = _Dynamic()
    resources, sites = _index(root, dynamic)
    if not sites and not dynamic.sites and not any(k in root for k in _DEFS) and not _has_nested_defs(root):
        return
    expander = _Expander(rule, run, root, resources, sites, dynamic)
    expander.walk()
    if expander.keep and rule.options["recursion"] == "fallback":
        _refuse_recursion(rule, run, expander.root, expander.kept)


class _Expander:
    """One iterative walk that resolves every `$ref` by the rule's policy."""

    def __init__(self, rule, run, root, resources, sites, dynamic=None):
        self.rule = rule
        self.run = run
        self.opts = rule.options
        self.root = root
        self.resources = resources
        self.base = _root_base(root)
        self.links: dict[int, Any] = {id(n): _resolve(n["$ref"], base, resources) for n, base in sites}
        self.keep = self.opts["mode"] == "keep-defs"
        defs = root.get("$defs") if self.keep and isinstance(root.get("$defs"), dict) else {}
        # only object definitions can be kept by name: every `true` is the same object
        self.def_names = {id(v): k for k, v in defs.items() if isinstance(v, dict)}
        # the root may be a $ref whose target is inlined in its place: `#` still names it
        self.roots: set[int] = {id(root)}
        self.kept: list[tuple[Any, Any]] = []  # (owning definition or None, target)
        self.spent: list[tuple[dict, str]] = []  # definition keywords to remove at the end
        if dynamic is not None and dynamic.sites:
            sites = [*sites, *self._dynamic_to_static(dynamic)]
        self._break_loops(sites)
        # the root is rewritten while it is walked: a `#` ref copies it as it was
        self.pristine = None
        if any(t is root for t in self.links.values()):
            self.pristine = copy_subtree(root, run, self.links)

    def _dynamic_to_static(self, dynamic: _Dynamic) -> list[tuple[dict, str]]:
        """Each `$dynamicRef` (`$recursiveRef`) becomes a `$ref` to what it may land on.

        Which schema a dynamic reference lands on depends on the path the validation
        took, which no wire follows. Its static target is where it lands unless that
        target is a dynamic anchor (`$dynamicAnchor` of the fragment's name,
        `$recursiveAnchor: true`); then it lands on one of the schemas of the document
        with that anchor, and an `anyOf` of them all accepts whatever it would (and
        evaluates the properties it would). The `$ref`s are resolved like any other.
        One whose static target is not in the document is dropped: any value.
        """
        run, rule = self.run, self.rule
        new_sites: list[tuple[dict, str]] = []
        for node, kw, base in dynamic.sites:
            ref = node.get(kw)
            landings = dynamic_landings(ref, kw, base, self.resources, dynamic)
            if landings is None:
                continue  # a $recursiveRef outside any resource: left to the checks
            run.at = None
            if len(landings) == 1 and isinstance(landings[0][0], _Unresolved):
                # as before dynamic references were read: one that lands nowhere is no constraint
                del node[kw]
                run.report(rule, node, "dropped", f"{kw} {ref} lands on nothing in this document: any value", kw)
                continue
            here = _defrag(base)
            refs: list[tuple[dict, Any]] = []
            if len(landings) > 1:
                run.nodes += len(landings) + 1
                if run.nodes > run.options.max_nodes:
                    raise BudgetExceeded("budget/nodes", run.pointer(node), f"more than {run.options.max_nodes} nodes after $dynamicRef resolution")
                for cand, uri in landings:
                    resource, frag = _split(uri) or (uri, "")
                    text = (f"#{frag}" if frag else "#") if resource == here else uri
                    refs.append((run.replace({"$ref": text}, node), cand))
                applied: dict = run.replace({"anyOf": [r for r, _ in refs]}, node)
                detail = f"{kw} {ref} -> anyOf of the {len(refs)} schemas it may land on"
            else:
                applied = run.replace({"$ref": ref if kw == "$dynamicRef" else "#"}, node)
                refs.append((applied, landings[0][0]))
                detail = f"{kw} {ref} -> $ref (its static target)"
            del node[kw]
            if "$ref" in applied and "$ref" not in node:
                node["$ref"] = applied["$ref"]
                refs = [(node, refs[0][1])]
            elif "anyOf" in applied and "anyOf" not in node:
                node["anyOf"] = applied["anyOf"]
            else:  # beside a $ref or an anyOf of its own: both apply
                node["allOf"] = [*node["allOf"], applied] if isinstance(node.get("allOf"), list) else [applied]
            run.report(rule, node, "rewritten", detail, kw)
            for refnode, target in refs:
                self.links[id(refnode)] = target
                new_sites.append((refnode, base))
        return new_sites

    def _break_loops(self, sites: list[tuple[dict, str]]) -> None:
        """A loop of `$ref`s that comes back to where it started without passing any
        subschema (`A: {$ref: A}`, `A -> B -> A`, a root `$ref` that leads back to the
        root) applies the same schemas to the same value forever: it constrains
        nothing. Each `$ref` on the loop is dropped (any value); the schemas on it keep
        their other keywords."""
        done: set[int] = set()
        for start, _base in sites:
            path: list[dict] = []
            on_path: dict[int, int] = {}
            node: Any = start
            while isinstance(node, dict) and isinstance(node.get("$ref"), str) and id(node) not in done:
                if id(node) in on_path:
                    for member in path[on_path[id(node)]:]:
                        self.run.at = None
                        self.run.report(self.rule, member, "dropped", f"$ref {member['$ref']} leads back to itself through $refs only and says nothing: any value", "$ref")
                        del member["$ref"]
                        self.links.pop(id(member), None)
                    break
                on_path[id(node)] = len(path)
                path.append(node)
                node = self._peek(node)
            done.update(on_path)

    def _peek(self, node: dict) -> Any:
        """What a `$ref` points at, without preparing a target outside schema positions."""
        target = self.links.get(id(node))
        if target is None:
            target = self.links[id(node)] = _resolve(node["$ref"], self.base, self.resources)
        return target.node if isinstance(target, _Raw) else target

    # -- the walk ----------------------------------------------------------------
    def walk(self) -> None:
        run = self.run
        # (container, key, a fresh path to start, depth, owning definition); the targets
        # being expanded on the current path are counted in `self.expanding`, entered and
        # left as the walk goes (a chain of 8,000 $refs costs linear time, not quadratic)
        stack: list[tuple[Any, Any, Any, int, Any]] = [(run.holder, 0, None, 0, None)]
        self.expanding: dict[int, int] = {}
        self._walk(stack)
        # read before the definitions they may name go
        mapped = self._mapping_targets() if "discriminator" in run.census else []
        removed: set[int] = set()
        for node, kw in self.spent:
            if kw in node:
                definitions = node.pop(kw)
                run.left_out(*(definitions.values() if isinstance(definitions, dict) else ()))
                run.report(self.rule, node, "dropped", f"{kw} removed after inlining", kw)
                removed.update(map(id, definitions.values() if isinstance(definitions, dict) else ()))
        if mapped:
            self._follow_mappings(mapped, removed)

    def _mapping_targets(self) -> list[tuple[dict, str, int]]:
        """Each reference of an OpenAPI `discriminator`'s `mapping` (pydantic writes one
        for a tagged union, naming each branch's definition), with the schema it names."""
        found = []
        for node in schema_nodes(self.run.holder[0]):
            said = node.get("discriminator")
            mapping = said.get("mapping") if said.__class__ is dict else None
            if mapping.__class__ is not dict:
                continue
            for tag, ref in mapping.items():
                if ref.__class__ is str and ref.startswith("#"):  # a bare name or a URL: as written
                    target = _resolve(ref, self.base, self.resources)
                    if target.__class__ is dict:
                        found.append((node, tag, id(target)))
        return found

    def _follow_mappings(self, mapped: list[tuple[dict, str, int]], removed: set[int]) -> None:
        """A mapping reference follows the definition it names: spelled as the `$ref`s to
        a kept definition are (`#/definitions/Cat` upgraded to `#/$defs/Cat`), and dropped,
        reported, where its definition went with the definitions removed after inlining
        (the branches are inlined where the union uses them; `propertyName` stays)."""
        run = self.run
        by_node: dict[int, tuple[dict, list]] = {}
        for node, tag, target in mapped:
            by_node.setdefault(id(node), (node, []))[1].append((tag, target))
        for node, entries in by_node.values():
            said = node["discriminator"]
            mapping = dict(said["mapping"])
            dropped, respelled = [], []
            for tag, target in entries:
                if target in removed:
                    del mapping[tag]
                    dropped.append(tag)
                elif target in self.def_names:
                    kept = f"#/$defs/{ref_token(self.def_names[target])}"
                    if mapping[tag] != kept:
                        respelled.append(f"{mapping[tag]} -> {kept}")
                        mapping[tag] = kept
            if not dropped and not respelled:
                continue
            node["discriminator"] = {k: mapping if k == "mapping" else v for k, v in said.items() if k != "mapping" or mapping}
            run.edited(node)
            if dropped:
                run.report(self.rule, node, "dropped",
                           f"discriminator mapping of {', '.join(map(repr, dropped))} named definitions removed after inlining", "discriminator")
            if respelled:
                run.report(self.rule, node, "rewritten", f"discriminator mapping follows its definitions: {', '.join(respelled)}", "discriminator")

    def _walk(self, stack: list) -> None:
        run = self.run
        max_depth = run.options.max_depth
        while stack:
            container, key, fresh, depth, owner = stack.pop()
            if container is _LEAVE:
                left = self.expanding[key] = self.expanding[key] - 1
                if not left:
                    del self.expanding[key]
                continue
            if container is _RESTORE:
                self.expanding = key
                continue
            if fresh is not None:
                # a walk of its own (a hoisted definition): only its target is on its path
                stack.append((_RESTORE, self.expanding, None, 0, None))
                self.expanding = {fresh: 1}
            node = container[key]
            if depth > max_depth:
                raise BudgetExceeded("budget/depth", run.pointer(node), f"nesting deeper than {max_depth} after $ref expansion")
            if not isinstance(node, dict):
                continue
            target = self._target_of(node)
            on_path = self.expanding.get(id(target), 0) if target is not None else 0
            if target is node or (node is self.root and on_path):
                # a schema that is only a reference to itself (at the root: through the
                # $refs inlined there) constrains nothing
                del node["$ref"]
                self.links.pop(id(node), None)
                run.report(self.rule, node, "dropped", "a $ref to itself says nothing: any value", "$ref")
                target = None
            if target is not None:
                run.at = None
                if isinstance(target, _Unresolved):
                    node = container[key] = self._unresolved(node, target)
                elif self._keepable(node, target):
                    self._keep_ref(node, target, owner)
                elif on_path and self.keep:
                    if not self._named(target):
                        self._hoist(target, node, stack, depth)
                    self._keep_recursive(node, target, owner)
                    continue
                elif on_path > self._unroll() or (on_path and self._past_depth(target, depth)):
                    container[key] = self._cut(node, on_path)
                    continue
                else:
                    container[key] = self._inline(node, target)
                    if container is run.holder:
                        self.root = container[key]  # the root was a $ref: its $defs sibling moved with it
                        self.roots.add(id(self.root))
                    # the same place again, with the target on the path until it is left
                    stack.append((_LEAVE, id(target), None, 0, None))
                    stack.append((container, key, None, depth, owner))
                    self.expanding[id(target)] = on_path + 1
                    continue
            self._children(node, stack, depth, owner)

    def _children(self, node: dict, stack: list, depth: int, owner: Any) -> None:
        is_root = node is self.root
        if self.keep and not is_root and isinstance(node.get("$id"), str):
            # kept refs are rewritten relative to the root; a nested $id would rebase them
            del node["$id"]
            self.run.report(self.rule, node, "dropped", "nested $id removed: every $ref now points into the root", "$id")
        for kw, slot, cont, ckey in reversed(list(child_slots(node))):
            if kw in _DEFS:
                if is_root and self.keep and kw == "$defs":
                    stack.append((cont, ckey, None, depth + 2, cont[ckey]))
                continue
            stack.append((cont, ckey, None, depth + (1 if slot == SLOT_SINGLE else 2), owner))
        for kw in _DEFS:
            if kw in node and not (self.keep and is_root and kw == "$defs"):
                # removed after the walk: a ref met later may still resolve into them
                self.spent.append((node, kw))

    # -- one $ref ----------------------------------------------------------------
    def _target_of(self, node: dict) -> Any:
        if not isinstance(node.get("$ref"), str):
            return None  # a copy made after its $ref was dropped still has the link
        target = self.links.get(id(node))
        if target is None:
            # a $ref the index did not reach: inside a copy of something that is not a
            # schema position (`#/$defs/group/member`); it resolves against the document
            target = self.links[id(node)] = _resolve(node["$ref"], self.base, self.resources)
        if isinstance(target, _Raw):
            self.run.facts.unprepared.append(target.node)
            target = self.links[id(node)] = target.node
        return target

    def _named(self, target: Any) -> bool:
        return id(target) in self.roots or id(target) in self.def_names

    def _canonical(self, target: Any) -> str:
        if id(target) in self.roots:
            return "#"
        return "#/$defs/" + ref_token(self.def_names[id(target)])

    def _keepable(self, node: dict, target: Any) -> bool:
        if not self.keep or node is self.root or not self._named(target):
            return False
        allowed = self.opts["siblings_allowed"] or ()
        return all(k == "$ref" or any(fnmatch.fnmatchcase(k, p) for p in allowed) for k in node)

    def _unresolved(self, node: dict, target: _Unresolved) -> dict:
        if self.opts["external"] == "fallback":
            raise Unrepresentable(self.rule.id, self.run.pointer(node, "$ref"), target.reason)
        new = self.run.replace({k: v for k, v in node.items() if k != "$ref"}, node)
        self.run.report(self.rule, node, "dropped", f"{target.reason}: any value accepted here", "$ref")
        return new

    def _keep_ref(self, node: dict, target: Any, owner: Any) -> None:
        canonical = self._canonical(target)
        if node["$ref"] != canonical:
            self.run.report(self.rule, node, "rewritten", f"$ref {node['$ref']} -> {canonical}", "$ref")
            node["$ref"] = canonical
        self.kept.append((owner, self.root if id(target) in self.roots else target))
        # siblings the wire allows beside $ref may hold subschemas: the walk goes on into them

    def _hoist(self, target: Any, node: dict, stack: list, depth: int) -> None:
        """Recursion into a schema outside `$defs`: give it a definition so a ref can stay."""
        defs = self.root.get("$defs")
        if not isinstance(defs, dict):
            if "$defs" in self.root:
                self.run.report(self.rule, self.root, "dropped", "$defs that is not a mapping of schemas", "$defs")
            defs = self.root["$defs"] = {}
        base = unescape(decode_fragment(node["$ref"].rstrip("/").rsplit("/", 1)[-1])).strip("#") or "Root"
        name, n = base, 2
        while name in defs:
            name, n = f"{base}{n}", n + 1
        copy = copy_subtree(_as_schema(target), self.run, self.links)
        defs[name] = copy
        self.def_names[id(target)] = name
        self.run.report(self.rule, node, "rewritten", f"recursive {node['$ref']} kept as $defs/{name}", "$ref")
        # owned by the target itself, so a cycle through it shows in the kept-ref graph
        stack.append((defs, name, id(target), depth, target))

    def _keep_recursive(self, node: dict, target: Any, owner: Any) -> None:
        # recursion through an inlined ref: keep the bare ref, its siblings cannot stay
        extra = [k for k in node if k != "$ref"]
        siblings = {k: node.pop(k) for k in extra}
        if extra:
            # the subschemas among them leave with them: what was spilled there is gone too
            self.run.left_out(siblings)
            if "description" in siblings:
                self.run.text_left(node)
            self.run.report(self.rule, node, "dropped", f"{', '.join(extra)} beside a recursive $ref dropped", "$ref")
        self._keep_ref(node, target, owner)

    def _unroll(self) -> int:
        """How often a schema may already be on the path and still be inlined again."""
        return self.opts["max_unroll"] if self.opts["recursion"] == "unroll" else 0

    def _past_depth(self, target: Any, depth: int) -> bool:
        """Whether one more level of `target` at `depth` would nest past `max_depth`."""
        limit = self.opts["max_depth"]
        return limit is not None and self.opts["recursion"] == "unroll" and depth + nesting(target, limit) > limit

    def _cut(self, node: dict, levels: int) -> dict:
        opts = self.opts
        if opts["recursion"] != "unroll":
            raise Unrepresentable(self.rule.id, self.run.pointer(node, "$ref"), f"recursive $ref {node['$ref']!r}")
        new = self.run.made(opts["cut"] or {})
        note = opts["cut_note"].format(name=node["$ref"], depth=levels)
        desc = node.get("description")
        new["description"] = (desc + note) if isinstance(desc, str) else note.strip()
        self.run.report(self.rule, node, "dropped", f"recursion through {node['$ref']} cut after {levels} levels", "$ref")
        return self.run.replace(new, node)

    def _inline(self, node: dict, target: Any) -> dict:
        source = self.pristine if id(target) in self.roots and self.pristine is not None else target
        new = copy_subtree(_as_schema(source), self.run, self.links)
        # an annotation replaces the target's; a constraint the target holds otherwise stays apart
        conflicts = differ(new, node)
        replaced = [k for k in node if k != "$ref" and k in new and k not in _JOINED and k not in conflicts]
        detail = f"$ref {node['$ref']} inlined"
        if replaced:
            detail += f"; {', '.join(replaced)} beside it {'replaces' if len(replaced) == 1 else 'replace'} the target's"
        self.run.report(self.rule, node, "rewritten", detail, "$ref")
        put_beside(new, node, self.run, self.rule)
        if not self.run.has_origin(new):
            self.run.replace(new, node)
        return new


# keywords beside a $ref that add to the target's instead of replacing them: both apply
_MERGED_MAPS = ("properties", "patternProperties", "dependentSchemas")
_JOINED = (*_MERGED_MAPS, "required", "allOf")


def put_beside(new: dict, node: dict, run, rule) -> None:
    """Put the keywords beside a `$ref` (in `node`) into `new`, a copy of its target.

    Both apply, as 2020-12 reads them. Annotations beside it replace the target's (a
    `description` replacing one that holds spilled constraints gets those appended);
    `properties`, `patternProperties` and `dependentSchemas` are merged (a name both
    define takes both schemas, as an `allOf`), `required` lists are joined and `allOf`
    branches are put together. A keyword the target holds otherwise, or one that would
    read or be read by the target's (`minContains` beside its `contains`, `properties`
    beside its `additionalProperties`: see `beside.kept_apart`), stays apart, in an
    `allOf` branch of its own, reported.
    """
    apart = kept_apart(new, {k: v for k, v in node.items() if k != "$ref"})
    if apart:
        branch = run.replace({k: node[k] for k in apart}, node)
        new["allOf"] = [*new["allOf"], branch] if isinstance(new.get("allOf"), list) else [branch]
        run.made_keyword(new, "allOf")
        run.report(rule, node, "rewritten", f"{', '.join(apart)} beside $ref {node['$ref']} kept apart from its target's keywords (allOf): both apply", apart[0])
    for k, v in node.items():
        if k == "$ref" or k in apart:
            continue
        mine = new.get(k)
        if k in _MERGED_MAPS and isinstance(mine, dict) and isinstance(v, dict):
            both = [n for n in v if n in mine and not _same(mine[n], v[n])]
            for n, sub in v.items():
                mine[n] = run.replace({"allOf": [mine[n], sub]}, sub) if n in both else sub
            if both:
                run.report(rule, node, "rewritten", f"{k} {both} beside $ref {node['$ref']} also defined by its target: both apply (allOf)", k)
        elif k == "required" and isinstance(mine, list) and isinstance(v, list):
            new[k] = run.replace([*mine, *(n for n in v if n not in mine)], v)
        elif k == "allOf" and isinstance(mine, list) and isinstance(v, list):
            new[k] = run.replace([*mine, *v], v)
        else:
            new[k] = v
            run.moved(new, k, node)
            if k == "description":
                run.carry_spilled(new, mine)


def _same(a: Any, b: Any) -> bool:
    try:
        return a == b
    except RecursionError:  # deeper than Python compares: take them as different
        return False


def root_sites(root: Any) -> list[dict]:
    """The subschemas that recur to the root (`$ref: #`)."""
    sites = []
    todo: list[Any] = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if node.get("$ref") == "#":
                sites.append(node)
            todo.extend(c[k] for _kw, _s, c, k in child_slots(node))
    return sites


def define_root(rule, run) -> None:
    """The root is about to accept less (say, `type: object` added): the `$ref: #`s that
    recur to it get a definition of the root as it was, so they keep its meaning.

    Called by the rule that changes the root, after `resolve-refs` left canonical refs.
    """
    root = run.root
    if not isinstance(root, dict):
        return
    sites = root_sites(root)
    if not sites:
        return
    defs = root.get("$defs")
    if not isinstance(defs, dict):
        if "$defs" in root:
            run.report(rule, root, "dropped", "$defs that is not a mapping of schemas", "$defs")
        defs = root["$defs"] = {}
    name, n = "Root", 2
    while name in defs:
        name, n = f"Root{n}", n + 1
    ref = "#/$defs/" + ref_token(name)
    for node in sites:
        node["$ref"] = ref  # before the copy: the root's own recursion is copied rewritten
    body = {k: v for k, v in root.items() if k not in ("$defs", "$schema", "$id")}
    defs[name] = run.replace(copy_subtree(body, run), root)
    run.report(rule, root, "rewritten", f"$ref # now names $defs/{name}, a copy of the root as it was before this change", "$defs")


def _has_nested_defs(root: dict) -> bool:
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if any(k in node for k in _DEFS):
                return True
            stack.extend(c[k] for _, _, c, k in child_slots(node))
    return False


def _refuse_recursion(rule, run, root, kept_targets):
    """With `recursion: fallback`, a kept $ref cycle is unrepresentable."""
    edges: dict[Any, set[Any]] = {}
    for owner, target in kept_targets:
        src = None if owner is None else id(owner)
        edges.setdefault(src, set()).add(id(target))
    reachable: set[int] = set()
    todo = list(edges.get(None, ()))
    while todo:
        t = todo.pop()
        if t in reachable:
            continue
        reachable.add(t)
        todo.extend(edges.get(t, ()))
    if id(root) in reachable or _cyclic(edges, reachable):
        raise Unrepresentable(rule.id, "/$defs", "recursive $ref (the wire refuses recursion)")


def _cyclic(edges: dict[Any, set[Any]], nodes: set[int]) -> bool:
    return first_cycle(nodes, lambda n: edges.get(n, ())) is not None


# a definition a spilled `$ref` names: the token ends where the JSON string does (a
# token spells `"` and `\` percent-encoded, see `ref_token`), or before the `)` that
# closes a spilled bare string
_NAMED_IN_TEXT = re.compile(r'#/\$defs/([^"\\/\s]+)')


@kind("prune-defs", fails=False, phase="finish", reads="tree", creates=False, adds=(), order="tree", triggers={"$defs"})
def prune_defs(rule, run):
    """Remove root `$defs` entries that no `$ref` reaches any more (run it last).

    Rules after reference resolution may spill or drop the only schema that used a
    definition; pruning at the end sees the tree as it goes on the wire. A definition
    that spilled text names (`"$ref":"#/$defs/Base"` in a description) is kept, so the
    text the model reads never points at nothing.
    """
    root = run.root
    defs = root.get("$defs") if isinstance(root, dict) else None
    if not isinstance(defs, dict):
        return
    prefix = "#/$defs/"
    used: set[str] = set()
    todo: list[Any] = [(c[k]) for kw, _s, c, k in child_slots(root) if kw != "$defs"]
    desc = root.get("description")
    if isinstance(desc, str) and prefix in desc:
        todo.append({"description": desc})  # the root's own text (its $defs are not a use)
    while todo:
        node = todo.pop()
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        names = []
        if isinstance(ref, str) and ref.startswith(prefix):
            names.append(unescape(decode_fragment(ref[len(prefix):])))
        desc = node.get("description")
        if isinstance(desc, str) and prefix in desc:
            for token in _NAMED_IN_TEXT.findall(desc):
                name = unescape(decode_fragment(token))
                names.append(name if name in defs or not name.endswith(")") else name[:-1])
        for name in names:
            if name not in used and name in defs:
                used.add(name)
                todo.append(defs[name])
        todo.extend(c[k] for _kw, _s, c, k in child_slots(node))
    unused = [n for n in defs if n not in used]
    # all at once: a copy inside another unused definition carries nothing to the output
    run.left_out(*(defs.pop(name) for name in unused))
    for name in unused:
        run.report(rule, root, "dropped", f"unused definition {name}", "$defs")
    if not defs:
        del root["$defs"]
