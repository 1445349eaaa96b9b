"""Recursion a wire takes only in part: `$ref` cycles that must pass an optional property.

A wire may keep recursive `$ref`s yet expand them itself a few levels deep, cutting
where it stops; that only works where the cut can leave something out, that is inside
a property its object does not require. These kinds find the cycles that never pass
such a property, and unroll them or report them.
"""

from __future__ import annotations

from typing import Any

from ..positions import SLOT_SINGLE, child_slots, decode_fragment, unescape
from ..prepare import copy_subtree
from ..graphs import Components
from ..run import BudgetExceeded
from . import Opt, check, kind
from .refs import put_beside

_DEFS_PREFIX = "#/$defs/"
_ROOT = ("#",)  # the root as a target: no definition name can equal a tuple


class _Graph:
    """Who references whom among the root and its `$defs`, and from where.

    A site is guarded when the path from its definition to it passes a property that
    its object does not require (with `union_exits`, or an `anyOf` branch beside one of
    a scalar type). Read after reference resolution, when every `$ref` is `#` or
    `#/$defs/<name>`.
    """

    def __init__(self, root: dict, union_exits: bool = False):
        self.root = root
        self.union_exits = union_exits
        defs = root.get("$defs")
        self.defs: dict = defs if isinstance(defs, dict) else {}
        self.sites: list[tuple[Any, dict, bool, Any]] = []  # (source, node, guarded, target)
        # only unguarded edges: a cycle with one guarded edge can stop there
        self.edges: dict[Any, set] = {}
        for source in (_ROOT, *self.defs):
            for node, guarded in self._refs_in(source):
                target = self.target(node["$ref"])
                if target is not None:
                    self.sites.append((source, node, guarded, target))
                    if not guarded:
                        self.edges.setdefault(source, set()).add(target)
        edges = self.edges  # not self: the graph would hold itself in a cycle
        self._comp = Components(lambda n: edges.get(n, ()))
        self._members: dict[int, set] | None = None

    def body(self, source: Any) -> Any:
        return self.root if source is _ROOT else self.defs[source]

    def target(self, ref: str) -> Any:
        if ref == "#":
            return _ROOT
        if ref.startswith(_DEFS_PREFIX):
            name = unescape(decode_fragment(ref[len(_DEFS_PREFIX):]))
            if name in self.defs:
                return name
        return None

    def _refs_in(self, source: Any):
        stack: list[tuple[Any, bool]] = [(self.body(source), False)]
        while stack:
            node, guarded = stack.pop()
            if not isinstance(node, dict):
                continue
            if isinstance(node.get("$ref"), str):
                yield node, guarded
            for kw, _slot, cont, key in child_slots(node):
                if kw == "$defs" and node is self.root:
                    continue
                stack.append((cont[key], guarded or _optional(node, kw, key, self.union_exits)))

    def cyclic(self, source: Any, target: Any) -> bool:
        """An unguarded edge source -> target closes a cycle of unguarded edges only:
        target leads back to source without passing an optional property (one walk
        over the graph for every question: a chain of 8,000 definitions is linear)."""
        return self._comp.on_cycle(source, target)

    def cycle_members(self, target: Any) -> set:
        """The definitions on the unguarded cycles through `target`: what unrolling it copies."""
        if self._members is None:
            for n in self.edges:
                self._comp.of(n)
            self._members = {}
            for n, c in self._comp.number.items():
                self._members.setdefault(c, set()).add(n)
        return self._members.get(self._comp.of(target), set()) | {target}

    def unguarded(self):
        return [(s, n, t) for s, n, g, t in self.sites if not g and self.cyclic(s, t)]


def _optional(node: dict, kw: str, key: Any, union_exits: bool = False) -> bool:
    if kw == "anyOf" and union_exits:
        return any(_scalar(b) for i, b in enumerate(node["anyOf"]) if i != key)
    if kw != "properties":
        return False
    return key not in _required_names(node)


def _scalar(branch: Any) -> bool:
    """A branch of a type that holds no subschema (a null, a string): recursion ends there."""
    t = branch.get("type") if isinstance(branch, dict) else None
    types = [t] if isinstance(t, str) else t if isinstance(t, list) else []
    return any(isinstance(x, str) and x not in ("object", "array") for x in types)


def _required_names(node: dict) -> frozenset:
    # one set per required list (a property test asks for every property of the node)
    req = node.get("required")
    if not isinstance(req, list):
        return frozenset()
    cached = _REQUIRED.get(id(req))
    if cached is None or cached[0] is not req:
        cached = _REQUIRED[id(req)] = (req, frozenset(n for n in req if isinstance(n, str)))
        if len(_REQUIRED) > 4096:
            _REQUIRED.clear()
    return cached[1]


_REQUIRED: dict[int, tuple[list, frozenset]] = {}


def _snapshot(node: Any, run) -> Any:
    """A copy that keeps origins but counts no budget (it is never put in the tree)."""
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(node, holder, 0)]
    while stack:
        src, dst, key = stack.pop()
        if isinstance(src, dict):
            out: Any = {}
            run.same_origin(out, src)
            for k, v in src.items():
                out[k] = None
                stack.append((v, out, k))
        elif isinstance(src, list):
            out = [None] * len(src)
            for i, v in enumerate(src):
                stack.append((v, out, i))
        else:
            out = src
        dst[key] = out
    return holder[0]


# a wire whose recursion may end in a union's scalar branch (`anyOf [$ref, {type: null}]`)
_UNION_EXITS = Opt("bool", False, doc="an anyOf branch beside one of a scalar type (null, string, ...) is a way out too, as a property left out of required is")


@kind(
    "unroll-required-recursion", reads="tree", creates=True, adds=None, needs=("refs-resolved",),
    order="tree",
    triggers={"$ref"},
    max_unroll=Opt("int", 2, doc="how many times a schema may nest in itself before the cut"),
    cut=Opt("json", {}, doc="what stands where unrolling stops"),
    cut_note=Opt("str", " (recursive {name}: cut after {depth} levels)"),
    union_exits=_UNION_EXITS,
)
def unroll_required_recursion(rule, run):
    """Inline, a few levels deep, the `$ref`s of cycles that pass no optional property.

    For a wire that keeps root `$defs` and recursion only where recursion can stop: on
    a cycle of `$ref`s none of which sits (within its definition) under a property left
    out of `required` (array items and union branches do not count, but with
    `union_exits` a branch beside one of a scalar type), each `$ref` is inlined, up to
    `max_unroll` times per definition, then cut. Every other `$ref` stays. Run it
    after a `resolve-refs` that keeps root `$defs`; definitions no longer
    used are left for `prune-defs`.
    """
    root = run.root
    if not isinstance(root, dict):
        return
    graph = _Graph(root, rule.options["union_exits"])
    unsafe = graph.unguarded()
    if not unsafe:
        return
    opts = rule.options
    involved: set = set()
    for _s, _n, target in unsafe:
        if target not in involved:
            involved |= graph.cycle_members(target)
    originals = {}
    for name in involved:
        body = graph.body(name)
        if name is _ROOT:
            # a copy of the root is a subschema: the root's own identifiers stay behind
            body = {k: v for k, v in body.items() if k not in ("$defs", "$schema", "$id")}
        originals[name] = _snapshot(body, run)
    for source in dict.fromkeys(s for s, _n, _t in unsafe):
        _unroll(rule, run, graph, originals, source, opts)


def _unroll(rule, run, graph: _Graph, originals: dict, source: Any, opts) -> None:
    max_depth = run.options.max_depth
    root = graph.root
    if source is _ROOT:
        starts = [(cont, key, 1 if slot == SLOT_SINGLE else 2, _optional(root, kw, key, graph.union_exits))
                  for kw, slot, cont, key in child_slots(root) if kw != "$defs"]
    else:
        starts = [(graph.defs, source, 2, False)]
    # (container, key, definitions being expanded on this path, guarded, current definition, depth)
    stack = [(cont, key, (source,), guarded, source, depth) for cont, key, depth, guarded in reversed(starts)]
    while stack:
        container, key, chain, guarded, current, depth = stack.pop()
        node = container[key]
        if not isinstance(node, dict):
            continue
        if depth > max_depth:
            raise BudgetExceeded("budget/depth", run.pointer(node), f"nesting deeper than {max_depth} after unrolling recursion")
        ref = node.get("$ref")
        target = graph.target(ref) if isinstance(ref, str) else None
        if target is not None and not guarded and graph.cyclic(current, target):
            run.at = None
            if chain.count(target) > opts["max_unroll"]:
                container[key] = _cut(rule, run, node, opts)
                continue
            new = copy_subtree(originals[target], run)
            put_beside(new, node, run, rule)  # as in resolution
            run.report(rule, node, "rewritten", f"$ref {ref} inlined: its recursion passes required properties only", "$ref")
            container[key] = run.replace(new, node)
            stack.append((container, key, chain + (target,), False, target, depth))
            continue
        for kw, slot, cont, ckey in reversed(list(child_slots(node))):
            if kw == "$defs" and node is root:
                continue
            step = 1 if slot == SLOT_SINGLE else 2
            stack.append((cont, ckey, chain, guarded or _optional(node, kw, ckey, graph.union_exits), current, depth + step))


def _cut(rule, run, node: dict, opts) -> dict:
    levels = opts["max_unroll"] + 1
    new = run.made(opts["cut"] or {})
    note = opts["cut_note"].format(name=node["$ref"], depth=levels)
    desc = node.get("description")
    new["description"] = (desc + note) if isinstance(desc, str) else note.strip()
    run.report(rule, node, "dropped", f"recursion through {node['$ref']} cut after {levels} levels", "$ref")
    return run.replace(new, node)


@check("recursion-through-optional", reads="tree", order="tree", triggers={"$ref"}, union_exits=_UNION_EXITS)
def recursion_through_optional(rule, run):
    """Every `$ref` cycle passes, somewhere, a property its object does not require
    (with `union_exits`, or an `anyOf` branch beside one of a scalar type)."""
    root = run.root
    if not isinstance(root, dict):
        return
    graph = _Graph(root, rule.options["union_exits"])
    for _source, node, _target in graph.unguarded():
        run.fail(rule, node, f"recursion through {node['$ref']} passes required properties only", "$ref")
