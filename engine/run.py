"""The state of one normalization: report, origins, budgets, and the shared tree walk."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from types import MappingProxyType

from .costs import literal_of
from .facts import Facts
from .jsontext import dumps, dumps_within
from .model import Change, Options
from .positions import SLOT_KIND as _SLOT_KIND
from .positions import SLOT_MAP, SLOT_SINGLE, pointer_of, schema_nodes
from .silence import says_nothing


class Unrepresentable(Exception):
    """The target's wire cannot carry this schema: fall back (or fail open) for this tool."""

    def __init__(self, rule: str, pointer: str, reason: str):
        super().__init__(f"{rule} at {pointer or '/'}: {reason}")
        self.rule = rule
        self.pointer = pointer
        self.reason = reason


class BudgetExceeded(Unrepresentable):
    """A depth, node or literal budget ran out; the work stopped there."""


def render_value(value: Any, limit: int | None = None) -> str | None:
    """How a spilled value reads inside a description: strings raw, the rest compact JSON.

    With `limit`, None where the text would have more than `limit` characters (writing
    stops there: a huge value costs no more than the limit).
    """
    cls = value.__class__
    if cls is str:
        return value if limit is None or len(value) <= limit else None
    # the common scalars spelled directly: a JSON encoder costs more than the spill
    if cls is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    if cls is int and -(10**15) < value < 10**15:
        return str(value)
    if isinstance(value, str):
        return value
    try:
        return dumps(value) if limit is None else dumps_within(value, limit)
    except ValueError:
        # an integer too long for Python to print (over 4,300 digits): say what it is
        return "<a number too long to print>"


def first_few(names: Any, most: int) -> str:
    """The first `most` of `names`, comma-separated, "..." after them where there are more."""
    names = [str(n) for n in names]
    return ", ".join(names[:most]) + (", ..." if len(names) > most else "")


def shown_value(value: Any, width: int = 120) -> str:
    """A value as a report quotes it: whole where short, else its start and its size."""
    text = render_value(value, width)
    if text is not None:
        return text
    text = render_value(value, 10 * width) or ""
    size = f"{len(value):,} items" if isinstance(value, (list, dict)) else f"{len(text):,}+ characters"
    return f"{text[: width - 20]}... ({size})"
# before the copy, and in runs that only judge (pipeline._Collecting): nothing may be written
_NO_FACTS = Facts(
    nullable_removed=frozenset(),  # type: ignore[arg-type]
    nulled_optionals=(),  # type: ignore[arg-type]
    paired_maps=(),  # type: ignore[arg-type]
    spilled=MappingProxyType({}),  # type: ignore[arg-type]
    unprepared=(),  # type: ignore[arg-type]
)


def rewrite(node: dict, items: Any) -> None:
    """`node`'s keys become `items`, in that order, in place: `$ref`s and origins that name
    this node stay valid (key order is part of the output)."""
    node.clear()
    node.update(items)


class Run:
    """Everything one call to `normalize` accumulates."""

    __slots__ = (
        "target",
        "options",
        "_records",
        "_on",
        "reported",
        "copied",
        "absorbed",
        "origins",
        "keyed",
        "at",
        "nodes",
        "literal",
        "holder",
        "draft",
        "facts",
        "_memo",
        "spill_template",
        "spill_skip",
        "slot",
        "iterative",
        "census",
        "edits",
        "order",
        "repairs",
    )

    def __init__(self, target: Any, options: Options):
        self.target = target
        self.options = options
        self._records: list[tuple] = []  # (rule id, origin chain, action, detail), see `report`
        # (the node each record was made on, its number), at the record's index; the
        # records made so far (those `left_out` forgot included); id(node) -> (node,
        # [(a copy of it, records made when it was made), ...]) (`prepare.copy_subtree`):
        # what `left_out` reads
        self._on: list[tuple[Any, int]] = []
        self.reported = 0
        self.copied: dict[int, tuple[Any, list[tuple[Any, int]]]] = {}
        # id(node) -> (node, the node its keywords went into, changes made by then): see
        # `absorbed_into`
        self.absorbed: dict[int, tuple[Any, Any, int]] = {}
        self.repairs: list[tuple] = []  # the copy's own, as `_records` (see `prepare._text`)
        # id(node) -> (node, origin chain); the node is kept so its id cannot be reused
        self.origins: dict[int, tuple[Any, Any]] = {}
        # id(node) -> (node, {keyword: origin chain}): a node's keywords that were written
        # elsewhere than the node (beside the `$ref` whose copied target the node is), see `moved`
        self.keyed: dict[int, tuple[Any, dict]] = {}
        self.at: Any = None
        self.slot: str | None = None  # the keyword whose value the visited node is
        # walk with the generic iterative walker rather than the compiled, recursive ones
        self.iterative = False
        self.census: set[str] = set()  # see prepare.copy_input
        # nodes a kind changed that its walk had already finished (see `edited`)
        self.edits: list[Any] | None = None
        # rule id -> stage, where a fused walk made the changes interleaved (see `changes`)
        self.order: dict | None = None
        self.nodes = 0
        self.literal = 0
        self.holder: list[Any] = [None]
        self.draft: str | None = None
        self.facts = _NO_FACTS  # made once the copy knows what the input holds (pipeline)
        self._memo: dict[Any, Any] = {}
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

    def chain_at(self, node: Any, key: Any) -> Any:
        """The origin chain of `node[key]`: where the node's keyword was written."""
        if self.keyed:
            entry = self.keyed.get(id(node))
            if entry is not None and entry[0] is node and key in entry[1]:
                return entry[1][key]
        return (self.chain_of(node), key)

    def pointer(self, node: Any, key: Any = None) -> str:
        return pointer_of(self.chain_of(node) if key is None else self.chain_at(node, key))

    # -- changing the tree: how kinds make and move nodes (never through origins or ids)
    def replace(self, new: Any, old: Any) -> Any:
        """`new` stands where `old` stood: changes inside it point at `old`'s origin.
        Returns `new`, for the kind to put in `old`'s place (or return)."""
        if isinstance(new, (dict, list)):
            self.origins[id(new)] = (new, self.chain_of(old))
            # what was changed on old went along (`absorbed_into`, written out: most
            # replacements are strict targets' optional wrappers, one per property)
            if self.reported and new.__class__ is dict and old.__class__ is dict and old is not new:
                self.absorbed[id(old)] = (old, new, self.reported)
        return new

    def made(self, value: Any, chain: Any = None) -> Any:
        """A copy of `value`, JSON of the rule's own (an option), to put in the tree: each
        place gets its own containers, so an edit there, by a later rule or by the caller
        holding the output, never reaches the option or another place. Placed at `chain`
        where given (see `placed`)."""
        from .prepare import json_copy

        new = json_copy(value)
        return new if chain is None else self.placed(new, chain)

    def placed(self, new: Any, chain: Any) -> Any:
        """`new` is a node made at the position `chain` (a kind that knows no node it stands for)."""
        self.origins[id(new)] = (new, chain)
        return new

    def moved(self, new: dict, key: str, old: dict) -> None:
        """`new[key]` is the value `old[key]` held (a keyword beside a `$ref`, put into the
        copy of its target): changes to that keyword point where it was written, not into
        the target, whose origin `new` keeps for its own keywords."""
        self._keyword_at(new, key, self.chain_at(old, key))

    def respelled(self, node: dict, key: str, written: str) -> None:
        """`node[key]` is what the input wrote as `node[written]`, in another spelling:
        changes to it point where it was written."""
        self._keyword_at(node, key, self.chain_at(node, written))

    def made_keyword(self, new: dict, key: str) -> None:
        """`new[key]` is a keyword no place in the input wrote (the `anyOf` or `allOf` a
        merge makes of what two branches say of one property): changes to it point where
        `new` stands, so the unions one merge makes are each reported apart."""
        self._keyword_at(new, key, self.chain_of(new))

    def _keyword_at(self, new: dict, key: str, chain: Any) -> None:
        entry = self.keyed.get(id(new))
        if entry is None or entry[0] is not new:
            entry = self.keyed[id(new)] = (new, {})
        entry[1][key] = chain

    def absorbed_into(self, into: Any, *olds: Any, whole: bool = False) -> None:
        """The keywords of `olds` now live in `into` (allOf branches folded into their
        parent, two schemas merged into one), the olds leave the tree: a change made on
        one of them, and the text it spilled, went with `into`, where `left_out` looks.
        With `whole`, every schema inside them too (a value spilled into `into`'s text)."""
        if not self.reported:  # no change made yet, none to follow
            return
        absorbed = self.absorbed
        for old in (n for o in olds for n in schema_nodes(o)) if whole else olds:
            if old.__class__ is dict and old is not into:
                absorbed[id(old)] = (old, into, self.reported)

    def has_origin(self, node: Any) -> bool:
        """Whether changes inside `node` already point somewhere into the input."""
        entry = self.origins.get(id(node))
        return entry is not None and entry[0] is node

    def same_origin(self, new: Any, old: Any) -> None:
        """`new`, a copy of `old`, points where `old` points (if `old` points anywhere)."""
        entry = self.origins.get(id(old))
        if entry is not None and entry[0] is old:
            self.origins[id(new)] = (new, entry[1])

    rewrite = staticmethod(lambda node, items: rewrite(node, items))

    def set_root(self, new: Any) -> Any:
        """`new` becomes the root (standing where the old root stood)."""
        self.holder[0] = self.replace(new, self.holder[0])
        return self.holder[0]

    def copy(self, subtree: Any, links: dict[int, Any] | None = None) -> Any:
        """A copy of a subtree of the tree, keeping origins, counting the budgets."""
        from .prepare import copy_subtree

        return copy_subtree(subtree, self, links)

    def grow(self, node: Any, nodes: int = 0, chars: int = 0) -> None:
        """A kind made `nodes` new objects, arrays or boolean subschemas, or `chars` new
        characters, at `node`: they count against the budgets as the input's did, so a
        rewrite that grows past one stops there (BudgetExceeded) instead of running on."""
        self.nodes += nodes
        self.literal += chars
        opts = self.options
        if self.nodes > opts.max_nodes:
            raise BudgetExceeded("budget/nodes", self.pointer(node), f"more than {opts.max_nodes} nodes once rewritten")
        if self.literal > opts.max_literal_bytes:
            raise BudgetExceeded("budget/literal", self.pointer(node), f"more than {opts.max_literal_bytes} characters once rewritten")

    def memo(self, key: Any, make: Callable[[], Any]) -> Any:
        """A value computed once per run (say, a rule's graph of the references)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def edited(self, node: Any) -> None:
        """A kind changed `node`'s own keywords although it is not the node it visits (say,
        a property schema of its object), or put `node` where no walk will visit it: a
        compiled target that checks nodes as it walks checks it (alone) again."""
        if self.edits is not None:
            self.edits.append(node)

    # -- what happened ----------------------------------------------------------
    def report(self, rule: Any, node: Any, action: str, detail: str, key: Any = None) -> None:
        chain = self.chain_of(node) if key is None else self.chain_at(node, key)
        # recorded now, spelled out (pointer, Change) once at the end: see `changes`
        self._records.append((rule.id, chain, action, detail))
        self._on.append((node, self.reported))
        self.reported += 1

    def left_out(self, *subtrees: Any) -> None:
        """`subtrees` have left the tree whole (definitions no `$ref` reaches): a change
        made on one of its nodes is in no output, and is forgotten, unless it went along
        somewhere still in the tree: into a copy made after it (inlined where a `$ref`
        used it), or into the node a merge or a spill absorbed its node into
        (`absorbed_into`), or a copy of that. So the report names only what is sent."""
        if self._records:
            self._forget({id(n) for subtree in subtrees for n in schema_nodes(subtree)}, None)

    def text_left(self, node: dict) -> None:
        """`node`'s description left the tree (the node stays): a spill whose text it held,
        and no copy holds elsewhere, is in no output, and is forgotten as `left_out` does."""
        if self._records:
            self._forget({id(node)}, "spilled")

    def _forget(self, inside: set[int], action: str | None) -> None:
        """Forget the changes (of `action`, or any) that went into nodes `inside` only."""
        tree: set[int] | None = None
        drop = set()
        for i, (node, number) in enumerate(self._on):
            if action is not None and self._records[i][2] != action:
                continue
            if tree is None:
                if not any(id(n) in inside for n in self._places(node, number)):
                    continue
                tree = {id(n) for n in schema_nodes(self.root)} - inside
            found = False
            # stops at the first place still in the tree: most changes sit on one
            for n in self._places(node, number):
                if id(n) in tree:
                    break
                found = found or id(n) in inside
            else:
                if found:
                    drop.add(i)
        if drop:
            self._records = [r for i, r in enumerate(self._records) if i not in drop]
            self._on = [n for i, n in enumerate(self._on) if i not in drop]

    def _places(self, node: Any, number: int) -> Iterator[Any]:
        """The nodes that hold what the change numbered `number`, made on `node`, did:
        the node, the nodes it was absorbed into, and the copies of each made after."""
        yield node
        copies, absorbed = self.copied, self.absorbed
        if id(node) not in copies and id(node) not in absorbed:
            return
        # (a node, the first change count a copy of it must be made at to carry it)
        todo = [(node, number + 1)]
        seen: dict[int, int] = {}
        while todo:
            n, since = todo.pop()
            if seen.get(id(n), since + 1) <= since:
                continue  # again only with an earlier count: bounded by the copies made
            if id(n) not in seen and n is not node:
                yield n
            seen[id(n)] = since
            entry = absorbed.get(id(n))
            if entry is not None and entry[0] is n:
                todo.append((entry[1], entry[2]))
            made = copies.get(id(n))
            if made is not None and made[0] is n:
                todo.extend((copy, when) for copy, when in made[1] if when >= since)

    @property
    def changes(self) -> list[Change]:
        """The changes so far, each once, in the staged run's order: as they were made,
        or, where a fused walk made them interleaved (`order`), by the stage of their rule."""
        records = self._records
        order = self.order
        if order is not None:
            records = sorted(records, key=lambda r: order.get(r[0], 0))
        if self.repairs:
            records = self.repairs + records  # made by the copy, before any rule
        seen: set[tuple] = set()
        out = []
        for rid, chain, action, detail in records:
            change = Change(rid, pointer_of(chain), action, detail)
            marker = (rid, change.pointer, action, detail)
            if marker not in seen:
                seen.add(marker)
                out.append(change)
        return out

    def fail(self, rule: Any, node: Any, reason: str, key: Any = None) -> None:
        raise Unrepresentable(rule.id, self.pointer(node, key), reason)

    def spill(self, rule: Any, node: dict, key: str, value: Any) -> None:
        """Remove `node[key]` and keep its meaning as text in the node's description."""
        node.pop(key, None)
        silent = says_nothing(node, key, value, self.spilled_text(node.get("description")))
        if silent:
            self.report(rule, node, "dropped", f"{key} {shown_value(value)} removed: {silent}", key)
            return
        if not self.options.spill:
            self.report(rule, node, "dropped", f"{key} removed (spill disabled)", key)
            return
        # the text counts against the literal budget as the input's did (the keyword and
        # the strings it held are gone): a spill that grows past it stops there
        self.literal -= len(key) + literal_of(value)
        room = self.options.max_literal_bytes - self.literal - len(self.spill_template)
        rendered = render_value(value, max(room, 0))
        if rendered is None:
            raise BudgetExceeded(
                "budget/literal", self.pointer(node, key), f"more than {self.options.max_literal_bytes} characters once {key} is spilled"
            )
        text = self.spill_template.format(key=key, value=rendered)
        self.grow(node, chars=len(text))
        desc = node.get("description")
        marker = self.spill_skip.format(key=key)
        if isinstance(desc, str) and desc:
            if marker and marker in desc:
                self.report(rule, node, "dropped", f"{key} already stated in description", key)
                return
            node["description"] = desc + text
        else:
            node["description"] = text.strip()
        # what each description carries of spilled text, so that a description replacing
        # this one (a keyword beside a $ref) can keep it: read by `spilled_text`
        carried = self.facts.spilled
        carried[node["description"]] = self.spilled_text(desc) + text
        if self.reported and isinstance(value, (dict, list)):
            # the schemas the value held (read as the keyword's: a union's list, a map);
            # with no change made yet there is none to follow, and no walk to make
            stand_in = {key: value}
            self.absorbed_into(node, *(n for n in schema_nodes(stand_in) if n is not stand_in))
        self.report(rule, node, "spilled", f"{key} moved into description", key)

    def spilled_text(self, description: Any) -> str:
        """The spilled text `description` carries (empty if a spill wrote none of it)."""
        carried = self.facts.spilled
        return carried.get(description, "") if carried and isinstance(description, str) else ""

    def append_spilled(self, node: dict, text: str, spilled: str | None = None) -> None:
        """Append more spilled text to a description a spill just wrote: all of `text`, or
        of it the `spilled` part (text that joins merged descriptions holds their words)."""
        self.grow(node, chars=len(text))
        desc = node.get("description")
        node["description"] = (desc + text) if isinstance(desc, str) and desc else text.strip()
        carried = self.facts.spilled
        carried[node["description"]] = self.spilled_text(desc) + (text if spilled is None else spilled)

    def carry_spilled(self, node: dict, lost: Any) -> None:
        """`node`'s description won over `lost`, one that gave way (a branch folded into
        its parent, a target's beside a `$ref`): the constraints spilled into `lost`
        still apply, so their text is appended to the winner."""
        spilled = self.spilled_text(lost)
        desc = node.get("description")
        if not spilled or desc == lost:
            return
        if isinstance(desc, str) and spilled.strip() in desc:
            return
        self.append_spilled(node, spilled)


Visit = Callable[[Any, Any, Run], Any]
# (rule, visit function, sees booleans, trigger keywords or None,
#  ids of the nodes its `where:` selected or None)
Visitor = tuple[Any, Visit, bool, Any, "set[int] | None"]


def wire_definitions(run: Run) -> tuple[tuple[Any, Any, Any], ...]:
    """The root's definitions where the target leaves them in the wire's own spelling
    (`Target.wire_defs`), as `(container, key, chain)`: schemas `positions` knows no
    keyword of, which the checks judge all the same (`walk`'s `beside`)."""
    spelled, root = run.target.wire_defs, run.holder[0]
    if spelled is None or root.__class__ is not dict or root.get(spelled).__class__ is not dict:
        return ()
    defs = root[spelled]
    return tuple((defs, name, ((None, spelled), name)) for name in defs)


def walk(run: Run, pre: Iterable[Visitor], post: Iterable[Visitor], keys: tuple, beside: Iterable[tuple] = ()) -> None:
    """Visit every schema node once, iteratively (no recursion limit applies).

    `pre` visitors run top-down before a node's children are found, `post` visitors
    bottom-up after them; each may return a replacement node. A visitor sees booleans
    only if its rule kind accepts boolean schemas. Subschemas that a post visitor
    creates (anyOf branches, null wrappers) are then walked too, so every rule of the
    stage applies to them as well; nodes already finished are not visited twice.
    Read-only visitors (residual checks) go in `pre`: one top-down pass, the outermost
    finding first. Each `(container, key, chain)` of `beside` is walked after the root as
    a child of it under `$defs` (see `Target.wire_defs`).
    """
    pre = tuple(pre)
    post = tuple(post)
    bools = any(v[2] for v in pre + post)
    pre_keys, post_keys = keys[:2]  # trigger_union of each, made once per stage
    done: dict[int, Any] = {}  # id -> node (kept alive so ids stay unique)
    # (container, key, origin chain, depth, entered, keyword the node is the value of)
    stack: list[tuple[Any, Any, Any, int, bool, Any]] = [(c, k, chain, 2, False, "$defs") for c, k, chain in reversed(tuple(beside))]
    stack.append((run.holder, 0, None, 0, False, None))
    push = stack.append
    while stack:
        container, key, chain, depth, entered, kw = stack.pop()
        node = container[key]
        is_dict = node.__class__ is dict
        if is_dict and not entered and done.get(id(node)) is node:
            continue  # reached twice (a subtree shared by two slots): walked once
        if entered:
            visitors, wake = post, post_keys
        else:
            visitors, wake = pre, pre_keys
        called = False
        # a node none of the stage's trigger keywords touch needs no visitor call at all
        if visitors and (wake is None or not wake.isdisjoint(node) if is_dict else bools):
            run.at = chain
            run.slot = kw
            for rule, visit, sees_bools, trig, selected in visitors:
                if node.__class__ is not dict:
                    if not (sees_bools and node.__class__ is bool) and not isinstance(node, dict):
                        continue
                elif trig is not None and trig.isdisjoint(node):
                    continue  # none of the keywords this rule reacts to
                if selected is not None and id(node) not in selected:
                    continue
                called = True
                new = visit(rule, node, run)
                if new is not None:
                    container[key] = node = new
            is_dict = node.__class__ is dict
        if entered:
            done[id(node)] = node
            # only a visitor that ran can have made new subschemas
            if is_dict and called and not _CHILD_KEYWORDS.isdisjoint(node):
                _push_children(push, node, chain, depth, done, bools, True)
            continue
        if post:
            push((container, key, chain, depth, True, kw))
        elif is_dict:
            done[id(node)] = node
        if is_dict and not _CHILD_KEYWORDS.isdisjoint(node):
            _push_children(push, node, chain, depth, done, bools, False)


_CHILD_KEYWORDS = frozenset(_SLOT_KIND)


def trigger_union(visitors: tuple) -> frozenset | None:
    """Every keyword some visitor reacts to; None when one reacts to any node."""
    keys: set[str] = set()
    for _rule, _visit, sees_bools, trig, *_selected in visitors:
        if trig is None or sees_bools:
            return None
        keys |= trig
    return frozenset(keys)


def _push_children(push: Callable, node: dict, chain: Any, depth: int, done: dict, bools: bool, fresh_only: bool) -> None:
    """Push `node`'s child schemas so that they pop in document order.

    A finished child is skipped: it is a wrapper's content (pre) or was walked already
    (post, where only the subschemas a visitor created are still to do).
    """
    entries = []
    add = entries.append
    for ckw, value in node.items():
        kind = _SLOT_KIND.get(ckw)
        if kind is None:
            continue
        if kind == SLOT_SINGLE:
            if value.__class__ is dict:
                if done.get(id(value)) is not value:
                    add((node, ckw, (chain, ckw), depth + 1, False, ckw))
            elif value.__class__ is bool and (bools or not fresh_only):
                add((node, ckw, (chain, ckw), depth + 1, False, ckw))
            elif ckw == "items" and value.__class__ is list:
                _add_items(add, value, (chain, ckw), depth, done, bools, fresh_only, ckw)
            continue
        if kind == SLOT_MAP:
            if value.__class__ is not dict:
                continue
            here = (chain, ckw)
            for name, sub in value.items():
                if sub.__class__ is dict:
                    if done.get(id(sub)) is not sub:
                        add((value, name, (here, name), depth + 2, False, ckw))
                elif sub.__class__ is bool and (bools or not fresh_only):
                    add((value, name, (here, name), depth + 2, False, ckw))
            continue
        if value.__class__ is list:
            _add_items(add, value, (chain, ckw), depth, done, bools, fresh_only, ckw)
    entries.reverse()
    for entry in entries:
        push(entry)


def _add_items(add: Callable, value: list, here: Any, depth: int, done: dict, bools: bool, fresh_only: bool, ckw: str) -> None:
    for i, sub in enumerate(value):
        if sub.__class__ is dict:
            if done.get(id(sub)) is not sub:
                add((value, i, (here, i), depth + 2, False, ckw))
        elif sub.__class__ is bool and (bools or not fresh_only):
            add((value, i, (here, i), depth + 2, False, ckw))
