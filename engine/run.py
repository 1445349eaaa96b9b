"""The state of one normalization: report, origins, budgets, and the shared tree walk."""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable

from .model import Change, Options
from .positions import SLOT_SINGLE, child_slots, pointer_of


class Unrepresentable(Exception):
    """The target's wire cannot carry this schema: fall back (or fail open) for this tool."""

    def __init__(self, rule: str, pointer: str, reason: str):
        super().__init__(f"{rule} at {pointer or '/'}: {reason}")
        self.rule = rule
        self.pointer = pointer
        self.reason = reason


class BudgetExceeded(Unrepresentable):
    """A depth, node or literal budget ran out; the work stopped there."""


def render_value(value: Any) -> str:
    """How a spilled value reads inside a description: strings raw, the rest compact JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    except ValueError:
        # an integer too long for Python to print (over 4,300 digits): say what it is
        return "<a number too long to print>"


class Run:
    """Everything one call to `normalize` accumulates."""

    __slots__ = (
        "target",
        "options",
        "changes",
        "_seen",
        "origins",
        "at",
        "depth",
        "nodes",
        "literal",
        "holder",
        "draft",
        "notes",
        "spill_template",
        "spill_skip",
        "slot",
    )

    def __init__(self, target: Any, options: Options):
        self.target = target
        self.options = options
        self.changes: list[Change] = []
        self._seen: set[tuple[str, str, str, str]] = set()
        # id(node) -> (node, origin chain); the node is kept so its id cannot be reused
        self.origins: dict[int, tuple[Any, Any]] = {}
        self.at: Any = None
        self.slot: str | None = None  # the keyword whose value the visited node is
        self.depth = 0
        self.nodes = 0
        self.literal = 0
        self.holder: list[Any] = [None]
        self.draft: str | None = None
        self.notes: dict[str, Any] = {}
        spill = target.spill
        self.spill_template: str = spill["template"]
        self.spill_skip: str = spill["skip_if"]

    # -- where things are -------------------------------------------------------
    @property
    def root(self) -> Any:
        return self.holder[0]

    def chain_of(self, node: Any) -> Any:
        entry = self.origins.get(id(node))
        if entry is not None and entry[0] is node:
            return entry[1]
        return self.at

    def pointer(self, node: Any, key: Any = None) -> str:
        chain = self.chain_of(node)
        if key is not None:
            chain = (chain, key)
        return pointer_of(chain)

    def adopt(self, new: Any, old: Any) -> Any:
        """`new` stands where `old` stood: changes inside it point at `old`'s origin."""
        if isinstance(new, (dict, list)):
            self.origins[id(new)] = (new, self.chain_of(old))
        return new

    # -- what happened ----------------------------------------------------------
    def report(self, rule: Any, node: Any, action: str, detail: str, key: Any = None) -> None:
        change = Change(rule.id, self.pointer(node, key), action, detail)
        marker = (change.rule, change.pointer, change.action, change.detail)
        if marker not in self._seen:
            self._seen.add(marker)
            self.changes.append(change)

    def fail(self, rule: Any, node: Any, reason: str, key: Any = None) -> None:
        raise Unrepresentable(rule.id, self.pointer(node, key), reason)

    def spill(self, rule: Any, node: dict, key: str, value: Any) -> None:
        """Remove `node[key]` and keep its meaning as text in the node's description."""
        node.pop(key, None)
        if not self.options.spill:
            self.report(rule, node, "dropped", f"{key} removed (spill disabled)", key)
            return
        text = self.spill_template.format(key=key, value=render_value(value))
        desc = node.get("description")
        marker = self.spill_skip.format(key=key)
        if isinstance(desc, str) and desc:
            if marker and marker in desc:
                self.report(rule, node, "dropped", f"{key} already stated in description", key)
                return
            node["description"] = desc + text
        else:
            node["description"] = text.strip()
        self.report(rule, node, "spilled", f"{key} moved into description", key)


Visit = Callable[[Any, Any, Run], Any]
# (rule, visit function, sees booleans, trigger keywords or None,
#  ids of the nodes its `where:` selected or None)
Visitor = tuple[Any, Visit, bool, Any, "set[int] | None"]


def walk(run: Run, pre: Iterable[Visitor], post: Iterable[Visitor]) -> None:
    """Visit every schema node once, iteratively (no recursion limit applies).

    `pre` visitors run top-down before a node's children are found, `post` visitors
    bottom-up after them; each may return a replacement node. A visitor sees booleans
    only if its rule kind accepts boolean schemas. Subschemas that a post visitor
    creates (anyOf branches, null wrappers) are then walked too, so every rule of the
    stage applies to them as well; nodes already finished are not visited twice.
    """
    pre = tuple(pre)
    post = tuple(post)
    bools = any(v[2] for v in pre + post)
    done: dict[int, Any] = {}  # id -> node (kept alive so ids stay unique)
    stack: list[tuple[Any, Any, Any, int, bool, Any]] = [(run.holder, 0, None, 0, False, None)]
    while stack:
        container, key, chain, depth, entered, kw = stack.pop()
        node = container[key]
        visitors = post if entered else pre
        if visitors:
            run.at = chain
            run.depth = depth
            run.slot = kw
            for rule, visit, sees_bools, trig, selected in visitors:
                if node.__class__ is not dict:
                    if not (sees_bools and node.__class__ is bool) and not isinstance(node, dict):
                        continue
                elif trig is not None and trig.isdisjoint(node):
                    continue  # none of the keywords this rule reacts to
                if selected is not None and id(node) not in selected:
                    continue
                new = visit(rule, node, run)
                if new is not None:
                    container[key] = node = new
        if entered:
            done[id(node)] = node
            if isinstance(node, dict) and post:
                for kw, slot, cont, ckey in _fresh_children(node, done, bools):
                    _push(stack, cont, ckey, chain, depth, kw, slot)
            continue
        stack.append((container, key, chain, depth, True, kw))
        if isinstance(node, dict):
            for ckw, slot, cont, ckey in reversed(list(child_slots(node))):
                child = cont[ckey]
                if child.__class__ is dict and done.get(id(child)) is child:
                    continue  # a wrapper made around a finished node: that part is done
                _push(stack, cont, ckey, chain, depth, ckw, slot)


def _push(stack: list, cont: Any, ckey: Any, chain: Any, depth: int, kw: str, slot: int) -> None:
    if slot == SLOT_SINGLE:
        stack.append((cont, ckey, (chain, kw), depth + 1, False, kw))
    else:
        stack.append((cont, ckey, ((chain, kw), ckey), depth + 2, False, kw))


def _fresh_children(node: dict, done: dict[int, Any], bools: bool) -> list:
    fresh = []
    for slot in child_slots(node):
        child = slot[2][slot[3]]
        if isinstance(child, dict):
            if done.get(id(child)) is not child:
                fresh.append(slot)
        elif bools and child.__class__ is bool:
            fresh.append(slot)
    fresh.reverse()
    return fresh
