"""Kinds about kept definitions: refs the wire refuses in some places, cycles, and
what may stand as the branches of a combiner.

The ref kinds read the canonical references `resolve-refs` leaves when it keeps `$defs`: `#`
(the root) and `#/$defs/<name>`.
"""

from __future__ import annotations

import functools
from typing import Any

from ..positions import DEFINITIONS, SLOT_SINGLE, child_slots, decode_fragment, follow, unescape
from ..prepare import copy_subtree
from ..graphs import Components, first_cycle
from . import Opt, check, kind
from .objects import is_object
from .refs import put_beside

_PREFIX = "#/$defs/"


def def_name(ref: Any) -> str | None:
    """The root definition a `$ref` names (`#/$defs/a~1b` -> `a/b`), or None."""
    if not isinstance(ref, str) or not ref.startswith(_PREFIX):
        return None
    name, _, rest = ref[len(_PREFIX):].partition("/")
    return None if rest else unescape(decode_fragment(name))


_DEFS = DEFINITIONS


def _refs_in(body: Any) -> list[str]:
    """The `$ref`s that apply where `body` stands: definitions apply only when named."""
    found = []
    todo = [body]
    while todo:
        node = todo.pop()
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("$ref"), str):
            found.append(node["$ref"])
        todo.extend(c[k] for kw, _s, c, k in child_slots(node) if kw not in _DEFS)
    return found


def local_target(root: Any, ref: str) -> Any:
    """What a local `$ref` (`#`, `#/json/pointer`) points at in `root`, or None."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    return follow(root, [unescape(decode_fragment(t)) for t in ref[2:].split("/")])


def _out(root: dict, edges: dict[str, list[str]], ref: str) -> list[str]:
    """The references `ref`'s target holds (drawn once, into `edges`)."""
    if ref not in edges:
        target = local_target(root, ref)
        edges[ref] = _refs_in(target) if isinstance(target, dict) else []
    return edges[ref]


class _Graph:
    """Which references each reference's target holds, drawn lazily: a schema is
    recursive when expanding its references would never end, that is when one is
    reached again from itself."""

    __slots__ = ("root", "edges", "_comp")

    def __init__(self, root: dict):
        self.root = root
        self.edges: dict[str, list[str]] = {}
        self._comp: Components | None = None

    def out(self, ref: str) -> list[str]:
        return _out(self.root, self.edges, ref)

    def reaches_itself(self, ref: str) -> bool:
        # one walk over the graph answers every reference (components found as asked);
        # it is handed the edges without the graph, which would then hold itself in a
        # cycle only the garbage collector frees
        if self._comp is None:
            self._comp = Components(functools.partial(_out, self.root, self.edges))
        number = self._comp.of(ref)
        return any(self._comp.of(n) == number for n in self.out(ref))

    def cycle_from(self, starts: list[str]) -> str | None:
        """A reference on a cycle reachable from `starts`, or None."""
        return first_cycle(starts, self.out)


@kind("inline-refs", reads="tree", creates=True, adds=None, order="pre", triggers="within", requires={"$ref"}, within=Opt("keys", required=True, doc="keywords whose subschemas may not be a $ref"))
def inline_refs(rule, node, run):
    """A `$ref` where the wire refuses one (say, an `allOf` branch) becomes a copy of the
    definition it names, its sibling keywords winning.

    A definition that reaches itself is left as a reference: copying it would never
    end, and the wire's own recursion rule decides about it.
    """
    root = run.root
    defs = root.get("$defs") if isinstance(root, dict) else None
    if not isinstance(defs, dict):
        return None
    for kw, slot, cont, key in list(child_slots(node)):
        if kw not in rule.options["within"]:
            continue
        branch = cont[key]
        name = def_name(branch.get("$ref")) if isinstance(branch, dict) else None
        target = defs.get(name) if name is not None else None
        if not isinstance(target, dict) or recursive(rule, run, branch["$ref"]):
            continue
        copy = copy_subtree(target, run)
        put_beside(copy, branch, run, rule)
        if not run.has_origin(copy):
            run.replace(copy, branch)
        cont[key] = copy
        where = kw if slot == SLOT_SINGLE else f"{kw}[{key}]"
        run.report(rule, node, "rewritten", f"$ref {branch['$ref']} in {where} inlined", kw)
    return None


def recursive(rule, run, ref: str) -> bool:
    """Whether the local `$ref` reaches itself: expanding it would never end."""
    # one graph per rule and run: copies only repeat references the graph has seen
    root = run.root
    return run.memo(("graph", rule.id), lambda: _Graph(root)).reaches_itself(ref)


@check(
    "branches", reads="children",
    triggers="within",
    within=Opt("keys", required=True, doc="the keywords whose subschemas are judged"),
    forbid=Opt("strlist", ["ref"], choices=("ref", "object"), doc="what may not stand there: a `$ref`, an object schema"),
)
def branches(rule, node, run):
    """What may stand directly under these keywords (say, the branches of `allOf`).

    `object`: on a wire that closes every object, an object branch of `allOf` is closed
    on its own and refuses the other branches' properties, so it must have been merged.
    """
    forbid = rule.options["forbid"]
    found: dict[tuple[str, str], str] = {}  # one finding per keyword and kind
    for kw, _slot, cont, key in child_slots(node):
        sub = cont[key]
        if kw not in rule.options["within"] or not isinstance(sub, dict):
            continue
        if "ref" in forbid and "$ref" in sub:
            found.setdefault((kw, "ref"), f"{kw} holds a $ref ({sub['$ref']})")
        if "object" in forbid and is_object(sub):
            found.setdefault((kw, "object"), f"{kw} holds an object schema that did not merge")
    for (kw, _what), reason in found.items():
        run.fail(rule, node, reason, kw)


@check("refs-acyclic", reads="tree", order="tree", triggers={"$ref"})
def refs_acyclic(rule, run):
    """No `$ref` is reached again from itself: expanding the references ends, the schema
    is not recursive (an unused recursive definition counts too: the wire reads it)."""
    from ..positions import escape
    from ..run import Unrepresentable

    root = run.root
    if not isinstance(root, dict):
        return
    defs = root.get("$defs") if isinstance(root.get("$defs"), dict) else {}
    ref = _Graph(root).cycle_from([*_refs_in(root), *(_PREFIX + escape(n) for n in defs)])
    if ref is not None:
        raise Unrepresentable(rule.id, ref[1:] if ref.startswith("#/") else "", f"recursive $ref {ref}")
