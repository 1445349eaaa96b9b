"""`resolve-refs`: dereference `$ref`s locally, by the rule file's policy.

Resolution understands JSON Pointer fragments (with `~0`, `~1` and percent-encoding),
embedded `$id` resources with relative references, and `$anchor`s. Nothing external
is ever fetched. Keywords beside a `$ref` win over the referenced schema's.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any
from urllib.parse import quote, unquote, urldefrag, urljoin

from ..graphs import first_cycle
from ..positions import SLOT_SINGLE, child_slots, escape, is_schema_path, unescape
from ..prepare import copy_subtree
from ..run import BudgetExceeded, Unrepresentable
from . import Opt, kind

_BASE = "https://wireschema.invalid/root.json"
_SNAKE = re.compile(r"_([a-z])")
_DEFS = ("$defs", "definitions")


class _Unresolved:
    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason


def _index(root: Any) -> tuple[dict[str, Any], list[tuple[dict, str]]]:
    """Resources by URI and anchors by URI#name, and every `$ref` site with its base."""
    resources: dict[str, Any] = {}
    sites: list[tuple[dict, str]] = []
    root_base = _BASE
    if isinstance(root, dict) and isinstance(root.get("$id"), str):
        root_base = urljoin(_BASE, root["$id"])
    resources[urldefrag(root_base)[0]] = root
    resources.setdefault(_BASE, root)
    stack: list[tuple[Any, str]] = [(root, root_base)]
    while stack:
        node, base = stack.pop()
        if not isinstance(node, dict):
            continue
        nid = node.get("$id")
        if isinstance(nid, str) and node is not root:
            uri, frag = urldefrag(_join(base, nid))
            if frag and not uri.rstrip("#"):
                uri = base
            if frag and not frag.startswith("/"):
                resources.setdefault(f"{urldefrag(base)[0]}#{frag}", node)  # draft-07 "$id": "#name"
            else:
                resources.setdefault(uri, node)
                base = uri
        anchor = node.get("$anchor")
        if isinstance(anchor, str):
            resources.setdefault(f"{urldefrag(base)[0]}#{anchor}", node)
        if isinstance(node.get("$ref"), str):
            sites.append((node, base))
        for _kw, _slot, cont, key in child_slots(node):
            stack.append((cont[key], base))
    return resources, sites


def _follow(resource: Any, fragment: str) -> Any:
    cur = resource
    tokens = [unescape(unquote(t)) for t in fragment.split("/")[1:]]
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if isinstance(cur, dict):
            if tok in cur:
                cur = cur[tok]
            elif tok == "definitions" and "$defs" in cur:
                cur = cur["$defs"]
            elif tok == "items" and "prefixItems" in cur and i + 1 < len(tokens) and tokens[i + 1].isdigit():
                cur = cur["prefixItems"]
            elif tok == "additionalItems" and "prefixItems" in cur and "items" in cur:
                cur = cur["items"]
            elif tok == "dependencies" and isinstance(cur.get("dependentSchemas"), dict):
                cur = cur["dependentSchemas"]
            elif _SNAKE.sub(lambda m: m.group(1).upper(), tok) in cur:
                cur = cur[_SNAKE.sub(lambda m: m.group(1).upper(), tok)]
            else:
                return None
        elif isinstance(cur, list) and tok.isdigit() and int(tok) < len(cur):
            cur = cur[int(tok)]
        else:
            return None
        i += 1
    return cur


def _join(base: str, ref: str) -> str:
    # urljoin does not know non-hierarchical schemes such as urn:, where "#..." still
    # means "in this document"
    if ref.startswith("#"):
        return urldefrag(base)[0] + ref
    return urljoin(base, ref)


def _resolve(ref: str, base: str, resources: dict[str, Any]) -> Any:
    uri, fragment = urldefrag(_join(base, ref))
    resource = resources.get(uri)
    if resource is None:
        return _Unresolved(f"external $ref {ref!r} is never fetched")
    if not fragment:
        return resource
    if fragment.startswith("/"):
        target = _follow(resource, fragment)
        tokens = [unescape(unquote(t)) for t in fragment.split("/")[1:]]
        if isinstance(target, dict) and not is_schema_path([int(t) if t.isdigit() else t for t in tokens]):
            # found outside schema positions: no walk has prepared it yet
            return _Raw(target)
    else:
        target = resources.get(f"{uri}#{unquote(fragment)}")
    if not isinstance(target, (dict, bool)):
        return _Unresolved(f"$ref {ref!r} does not resolve to a schema")
    return target


class _Raw:
    """A target reached through keywords that hold no schema (`#/$things/x`)."""

    __slots__ = ("node",)

    def __init__(self, node: Any):
        self.node = node


def _as_schema(target: Any) -> Any:
    if target is True:
        return {}
    if target is False:
        return {"not": {}}
    return target


@kind(
    "resolve-refs",
    order="tree",
    mode=Opt("choice", "inline", choices=("inline", "keep-defs")),
    recursion=Opt("choice", "fallback", choices=("fallback", "unroll", "keep")),
    max_unroll=Opt("int", 2, doc="with recursion: unroll, how many times a schema may nest in itself"),
    cut=Opt("json", {}, doc="what stands where unrolling stops"),
    cut_note=Opt("str", " (recursive {name}: cut after {depth} levels)"),
    external=Opt("choice", "fallback", choices=("fallback", "any")),
    siblings_allowed=Opt("strlist", [], doc="keywords (glob) a kept $ref may have beside it"),
)
def resolve_refs(rule, run):
    """Inline `$ref`s, or keep root `$defs` and inline only the refs the wire refuses."""
    root = run.root
    if not isinstance(root, dict) or not run.notes.get("references"):
        return  # copying the input saw no $ref, $defs or $id anywhere
    resources, sites = _index(root)
    if not sites and not any(k in root for k in _DEFS) and not _has_nested_defs(root):
        return
    expander = _Expander(rule, run, root, resources, sites)
    expander.walk()
    if expander.keep and rule.options["recursion"] == "fallback":
        _refuse_recursion(rule, run, expander.root, expander.kept)


_POINTER_SAFE = "~!$&'()*+,;=:@/"


class _Expander:
    """One iterative walk that resolves every `$ref` by the rule's policy."""

    def __init__(self, rule, run, root, resources, sites):
        self.rule = rule
        self.run = run
        self.opts = rule.options
        self.root = root
        self.resources = resources
        self.base = urljoin(_BASE, root["$id"]) if isinstance(root.get("$id"), str) else _BASE
        self.links: dict[int, Any] = {id(n): _resolve(n["$ref"], base, resources) for n, base in sites}
        self.keep = self.opts["mode"] == "keep-defs"
        defs = root.get("$defs") if self.keep and isinstance(root.get("$defs"), dict) else {}
        # only object definitions can be kept by name: every `true` is the same object
        self.def_names = {id(v): k for k, v in defs.items() if isinstance(v, dict)}
        self.kept: list[tuple[Any, Any]] = []  # (owning definition or None, target)
        self.spent: list[tuple[dict, str]] = []  # definition keywords to remove at the end
        # the root is rewritten while it is walked: a `#` ref copies it as it was
        self.pristine = None
        if any(t is root for t in self.links.values()):
            self.pristine = copy_subtree(root, run, self.links)

    # -- the walk ----------------------------------------------------------------
    def walk(self) -> None:
        run = self.run
        max_depth = run.options.max_depth
        # (container, key, targets being expanded on this path, depth, owning definition)
        stack: list[tuple[Any, Any, tuple, int, Any]] = [(run.holder, 0, (), 0, None)]
        self._walk(stack)
        for node, kw in self.spent:
            if kw in node:
                del node[kw]
                run.report(self.rule, node, "dropped", f"{kw} removed after inlining", kw)

    def _walk(self, stack: list) -> None:
        run = self.run
        max_depth = run.options.max_depth
        while stack:
            container, key, chain, depth, owner = stack.pop()
            node = container[key]
            if depth > max_depth:
                raise BudgetExceeded("budget/depth", run.pointer(node), f"nesting deeper than {max_depth} after $ref expansion")
            if not isinstance(node, dict):
                continue
            target = self._target_of(node)
            if target is node:
                # a schema that is only a reference to itself constrains nothing
                del node["$ref"]
                run.report(self.rule, node, "dropped", "a $ref to itself says nothing: any value", "$ref")
                target = None
            if target is not None:
                run.at = None
                if isinstance(target, _Unresolved):
                    node = container[key] = self._unresolved(node, target)
                elif self._keepable(node, target):
                    self._keep_ref(node, target, owner)
                elif chain.count(id(target)) and self.keep:
                    if not self._named(target):
                        self._hoist(target, node, stack, depth)
                    self._keep_recursive(node, target, owner)
                    continue
                elif chain.count(id(target)) > self._unroll():
                    container[key] = self._cut(node)
                    continue
                else:
                    container[key] = self._inline(node, target)
                    if container is run.holder:
                        self.root = container[key]  # the root was a $ref: its $defs sibling moved with it
                    stack.append((container, key, chain + (id(target),), depth, owner))
                    continue
            self._children(node, stack, chain, depth, owner)

    def _children(self, node: dict, stack: list, chain: tuple, depth: int, owner: Any) -> None:
        is_root = node is self.root
        if self.keep and not is_root and isinstance(node.get("$id"), str):
            # kept refs are rewritten relative to the root; a nested $id would rebase them
            del node["$id"]
            self.run.report(self.rule, node, "dropped", "nested $id removed: every $ref now points into the root", "$id")
        for kw, slot, cont, ckey in reversed(list(child_slots(node))):
            if kw in _DEFS:
                if is_root and self.keep and kw == "$defs":
                    stack.append((cont, ckey, chain, depth + 2, cont[ckey]))
                continue
            stack.append((cont, ckey, chain, depth + (1 if slot == SLOT_SINGLE else 2), owner))
        for kw in _DEFS:
            if kw in node and not (self.keep and is_root and kw == "$defs"):
                # removed after the walk: a ref met later may still resolve into them
                self.spent.append((node, kw))

    # -- one $ref ----------------------------------------------------------------
    def _target_of(self, node: dict) -> Any:
        target = self.links.get(id(node))
        if target is None and isinstance(node.get("$ref"), str):
            # a $ref the index did not reach: inside a copy of something that is not a
            # schema position (`#/$defs/group/member`); it resolves against the document
            target = self.links[id(node)] = _resolve(node["$ref"], self.base, self.resources)
        if isinstance(target, _Raw):
            self.run.notes["prepare-again"] = True
            target = self.links[id(node)] = target.node
        return target

    def _named(self, target: Any) -> bool:
        return target is self.root or id(target) in self.def_names

    def _canonical(self, target: Any) -> str:
        if target is self.root:
            return "#"
        return "#/$defs/" + quote(escape(self.def_names[id(target)]), safe=_POINTER_SAFE)

    def _keepable(self, node: dict, target: Any) -> bool:
        if not self.keep or node is self.root or not self._named(target):
            return False
        allowed = self.opts["siblings_allowed"] or ()
        return all(k == "$ref" or any(fnmatch.fnmatchcase(k, p) for p in allowed) for k in node)

    def _unresolved(self, node: dict, target: _Unresolved) -> dict:
        if self.opts["external"] == "fallback":
            raise Unrepresentable(self.rule.id, self.run.pointer(node, "$ref"), target.reason)
        new = self.run.adopt({k: v for k, v in node.items() if k != "$ref"}, node)
        self.run.report(self.rule, node, "dropped", f"{target.reason}: any value accepted here", "$ref")
        return new

    def _keep_ref(self, node: dict, target: Any, owner: Any) -> None:
        canonical = self._canonical(target)
        if node["$ref"] != canonical:
            self.run.report(self.rule, node, "rewritten", f"$ref {node['$ref']} -> {canonical}", "$ref")
            node["$ref"] = canonical
        self.kept.append((owner, target))
        # siblings the wire allows beside $ref may hold subschemas: the walk goes on into them

    def _hoist(self, target: Any, node: dict, stack: list, depth: int) -> None:
        """Recursion into a schema outside `$defs`: give it a definition so a ref can stay."""
        defs = self.root.get("$defs")
        if not isinstance(defs, dict):
            if "$defs" in self.root:
                self.run.report(self.rule, self.root, "dropped", "$defs that is not a mapping of schemas", "$defs")
            defs = self.root["$defs"] = {}
        base = unescape(unquote(node["$ref"].rstrip("/").rsplit("/", 1)[-1])).strip("#") or "Root"
        name, n = base, 2
        while name in defs:
            name, n = f"{base}{n}", n + 1
        copy = copy_subtree(_as_schema(target), self.run, self.links)
        defs[name] = copy
        self.def_names[id(target)] = name
        self.run.report(self.rule, node, "rewritten", f"recursive {node['$ref']} kept as $defs/{name}", "$ref")
        # owned by the target itself, so a cycle through it shows in the kept-ref graph
        stack.append((defs, name, (id(target),), depth, target))

    def _keep_recursive(self, node: dict, target: Any, owner: Any) -> None:
        # recursion through an inlined ref: keep the bare ref, its siblings cannot stay
        extra = [k for k in node if k != "$ref"]
        for k in extra:
            del node[k]
        if extra:
            self.run.report(self.rule, node, "dropped", f"{', '.join(extra)} beside a recursive $ref dropped", "$ref")
        self._keep_ref(node, target, owner)

    def _unroll(self) -> int:
        """How often a schema may already be on the path and still be inlined again."""
        return self.opts["max_unroll"] if self.opts["recursion"] == "unroll" else 0

    def _cut(self, node: dict) -> dict:
        opts = self.opts
        if opts["recursion"] != "unroll":
            raise Unrepresentable(self.rule.id, self.run.pointer(node, "$ref"), f"recursive $ref {node['$ref']!r}")
        levels = opts["max_unroll"] + 1
        new = dict(opts["cut"] or {})
        note = opts["cut_note"].format(name=node["$ref"], depth=levels)
        desc = node.get("description")
        new["description"] = (desc + note) if isinstance(desc, str) else note.strip()
        self.run.report(self.rule, node, "dropped", f"recursion through {node['$ref']} cut after {levels} levels", "$ref")
        return self.run.adopt(new, node)

    def _inline(self, node: dict, target: Any) -> dict:
        source = self.pristine if target is self.root and self.pristine is not None else target
        new = copy_subtree(_as_schema(source), self.run, self.links)
        siblings = [(k, v) for k, v in node.items() if k != "$ref"]
        detail = f"$ref {node['$ref']} inlined"
        if siblings:
            detail += f"; {', '.join(k for k, _ in siblings)} beside it override the target's"
        self.run.report(self.rule, node, "rewritten", detail, "$ref")
        for k, v in siblings:
            new[k] = v
        if id(new) not in self.run.origins:
            self.run.adopt(new, node)
        return new

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


@kind("prune-defs", order="tree")
def prune_defs(rule, run):
    """Remove root `$defs` entries that no `$ref` reaches any more (run it last).

    Rules after reference resolution may spill or drop the only schema that used a
    definition; pruning at the end sees the tree as it goes on the wire.
    """
    root = run.root
    defs = root.get("$defs") if isinstance(root, dict) else None
    if not isinstance(defs, dict):
        return
    prefix = "#/$defs/"
    used: set[str] = set()
    todo: list[Any] = [(c[k]) for kw, _s, c, k in child_slots(root) if kw != "$defs"]
    while todo:
        node = todo.pop()
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(prefix):
            name = unescape(unquote(ref[len(prefix):]))
            if name not in used and name in defs:
                used.add(name)
                todo.append(defs[name])
        todo.extend(c[k] for _kw, _s, c, k in child_slots(node))
    for name in [n for n in defs if n not in used]:
        del defs[name]
        run.report(rule, root, "dropped", f"unused definition {name}", "$defs")
    if not defs:
        del root["$defs"]
