"""How a target runs on one input: the stages it needs, and the walks that fuse into one.

A target's stages (see `ruletable.Stage`) say what runs and in which order, one whole
walk of the tree per stage: that staged run is the reference. Most inputs need much
less. The keywords the input holds (its census, taken while it is copied) and the
keywords each rule may add say which rules can have work at all; a stage without any
is skipped. Consecutive walks fuse into one where the kinds' contracts (`Kind.reads`,
`creates`) make the order of their visits irrelevant:

- the earlier walks have only pre visitors, so at every node they have all run when
  a later walk's visitors come;
- or the earlier walks' post visitors read nothing but their own node, and the later
  walk has only post visitors that read nothing but their own node and make no
  subschema: at each node they run after the earlier ones, and neither reads what the
  other changes below or above it (the subschemas the earlier post visitors make are
  walked by every visitor from their stage on, as the staged walks would);
- a later walk's pre visitors read nothing but their own node and make no subschema
  (what they read is then already final, and every node the earlier walks would visit
  is one they do visit);
- no rule reads the whole tree, which fusing would show half done;
- a `where:` selector only on the first walk (selections are taken on the tree as it
  stands when the walk starts).

The residual checks fuse into the last walk too when only root-scoped tree stages
(`root-object`), or those of kinds that tell each node they change (`Kind.edits_told`),
follow it: every node is checked right after its own last rule, the root after those
stages. A node a kind changes after it was checked (`Run.edited`) is checked again.

A fused run is optimistic: whatever does not go as planned (a check or rule that
finds the schema unrepresentable, a budget, a caller deep in its own stack) makes the
pipeline run the staged reference instead, from the start. A fused run that completes
gives the staged run's result, changes in the same order (they are put in stage
order), which `tests/test_plans.py` holds over the whole corpus.
"""

from __future__ import annotations

from typing import Any, Callable

import attrs

from .compiler import Variant, Visitor, compile_variants, root_test
from .positions import NULL_AT, REFERENCE_KEYS
from .run import wire_definitions

_ANY = None  # a rule whose added keywords are unknown: every later rule may have work
_NOTHING: frozenset = frozenset()

# A walk compiles for the visitors its input can need (`Planner._reachable`): about 5%
# fewer instructions on the corpus than one holding every visitor of its stages, for a
# compile (a few ms) per new set. Past this many sets for one run of stages, inputs of
# new shapes take the walk holding every visitor, so a process meeting very many shapes
# compiles a bounded number of walks.
_VARIETY = 24


def _rule_triggers(rule: Any) -> frozenset | None:
    """What in an input's census gives the rule work (None: any input)."""
    return rule.spec.census_keys(rule.options)


@attrs.frozen
class _StageInfo:
    stage: Any
    tree: bool
    rules: tuple  # (rule, triggers or None, added keys or None)


@attrs.frozen
class Plan:
    """The steps of one run: fused walks, tree stages, and where the checks go."""

    steps: tuple[Callable[[Any], None], ...]
    fused: bool  # some walk fuses stages, or the checks fuse into a walk
    checks_fused: bool  # nodes are checked inside the last walk (edited ones again after it)
    exact: tuple[bool, ...] = ()
    """Per step: a failure there is the staged run's own (the step does what a staged
    stage does, on the tree the staged run has there), so no staged run is needed."""


class Planner:
    """Makes (and keeps) a target's plans, one per set of rules that can have work."""

    def __init__(self, target: Any):
        self.target = target
        self.infos = tuple(self._info(s) for s in target.stages)
        self.check_infos = tuple(self._info(s) for s in target.check_stages)
        self._plans: dict[tuple, Plan] = {}
        self._walks: dict[tuple, Callable[[Any], None]] = {}
        self._check_walks: dict[tuple, Callable[[Any, Any], None]] = {}
        self._variety: dict[tuple, int] = {}  # walks compiled per run of stages
        self._by_census: dict[tuple, Plan] = {}
        relevant: set[str] = set()
        # rule id -> the markers the input must hold, each of them, for the rule to have work
        self._requires: dict[str, frozenset] = {}
        for info in self.infos + self.check_infos:
            for rule, trig, _adds in info.rules:
                relevant |= trig or frozenset()
                relevant |= rule.spec.reads_through(rule.options) or frozenset()
                requires = rule.spec.required_keys(rule.options)
                if requires:
                    self._requires[rule.id] = requires
                    relevant |= requires
        self._relevant = frozenset(relevant)
        # rules whose boolean markers depend on the keys before them (see `_reachable`)
        self._moving = frozenset(r.id for info in self.infos for r, _t, _a in info.rules if r.spec.bools_moved(r.options))
        # all a census must hold for the plans and the facts: of a wide object, only
        # these keys are taken (see `prepare.copy_input`); a strict target's census holds
        # its sibling's too, so that a copy it refuses untouched serves the sibling's run
        sibling = target.related(target.fail_open) if target.strict else None
        watched = self._relevant | REFERENCE_KEYS
        self.watched = watched | sibling.planner().watched if sibling is not None and not sibling.strict else watched
        self.watched_bools = frozenset(m[len("<bool>:"):] for m in self.watched if m.startswith("<bool>:"))
        self.watched_nulls = frozenset(m[len(NULL_AT):] for m in self.watched if m.startswith(NULL_AT))
        order = {}
        for i, stage in enumerate(target.stages):
            for r in stage.rules:
                order[r.id] = i
        self.stage_of = order  # rule id -> stage index: changes are put in stage order
        self._untouched: dict[frozenset, frozenset] = {}
        self._every = frozenset(order) | frozenset(r.id for info in self.check_infos for r, _t, _a in info.rules)

    def refuses_untouched(self, census: set) -> frozenset:
        """The rules that can refuse an input of this census while its copy is still
        untouched: those of the stages before the first that holds a rule which may
        change the tree and may have work here. The census stands for the root's keys
        too, which can only make more rules active: an early rule with no work here
        (`prepare/google-refs` on an input with no `ref`) leaves the copy as it was."""
        seen = frozenset(census & self._relevant)
        found = self._untouched.get(seen)
        if found is None:
            active, _reads = self._active(seen, seen)
            untouched: set[str] = set()
            for info in self.infos:
                if any(r.id in active and r.spec.mutates for r, _t, _a in info.rules):
                    break
                untouched.update(r.id for r, _t, _a in info.rules)
            if len(self._untouched) > 4096:
                self._untouched.clear()  # inputs of very many shapes: start over
            found = self._untouched[seen] = frozenset(untouched)
        return found

    @staticmethod
    def _info(stage: Any) -> _StageInfo:
        rules = tuple((r, _rule_triggers(r), r.spec.added_keys(r.options)) for r in stage.rules)
        return _StageInfo(stage, stage.tree is not None, rules)

    def plan(self, census: set, root_keys: Any) -> tuple[Plan, frozenset]:
        """The plan for an input whose keywords are `census` (`root_keys` at its root),
        and the stages whose failure the staged run would meet the same way (see
        `_trusted`)."""
        # only the keywords some rule reacts to tell plans apart (the census also holds
        # property names): those are the key of the memo
        seen = (frozenset(census & self._relevant), frozenset(self._relevant.intersection(root_keys)))
        plan = self._by_census.get(seen)
        if plan is None:
            active, reads = self._active(*seen)
            groups, checks_fused = self._groups(active, reads)
            shape = (groups, checks_fused, self._reachable(seen[0], active))
            plan = self._plans.get(shape)
            if plan is None:
                plan = self._plans[shape] = self._make(*shape)
            if len(self._by_census) > 4096:
                # inputs of very many shapes: start over (the walks are bounded by _VARIETY)
                self._by_census.clear()
                self._plans.clear()
            plan = self._by_census[seen] = (plan, self._trusted(groups, active))
        return plan

    def _active(self, census: set, root_keys: Any) -> tuple[frozenset, dict]:
        """The rules that may have work, and how far each of them reads on this input.

        A rule may have work where its triggers meet the input's keywords or those an
        earlier active rule may add (at the root, for a rule that selects only the
        root), and those keywords hold all it `requires` (anywhere). What it reads
        narrows to its `reads_within` (its node, say) where none of its `reads_via`
        keywords can be there yet (at the root, for a root-scoped tree kind).
        """
        keys = set(census)
        root = set(root_keys)
        anything = False
        out = []
        reads: dict[str, str] = {}
        requires = self._requires
        for info in self.infos + self.check_infos:
            for rule, trig, adds in info.rules:
                spec = rule.spec
                here = root if rule.where == "$" or spec.scope == "root" else keys
                # what it requires may be anywhere in the input, for a root-scoped rule too
                if (trig is None or anything or not trig.isdisjoint(here)) and (anything or requires.get(rule.id, _NOTHING) <= keys):
                    out.append(rule.id)
                    via = spec.reads_through(rule.options)
                    level = spec.reads_of(rule.options)
                    if via is not None and not anything and via.isdisjoint(here):
                        level = spec.reads_within
                    reads[rule.id] = level
                    if adds is _ANY:
                        anything = True
                    else:
                        keys |= adds
                        root |= adds
        return frozenset(out), reads

    def _reachable(self, census: frozenset, active: frozenset | None = None) -> frozenset:
        """The rules whose visitors a compiled walk holds for an input of this census: any
        rule whose triggers the census, or what a rule so kept in its own stage or an
        earlier one may add, can meet, and that holds all the rule `requires`.

        Within a stage the rules' visits interleave, node by node, in any order; across
        stages a rule never meets what a later stage writes: a later stage walks after
        it, or, fused into its walk, comes to each node after it and writes only there
        (the subschemas a post visitor makes are walked by its stage's visitors and
        those of the stages after it alone). So a visitor left out is one whose cheap
        test could not pass on any node; the staged run holds every visitor of its
        stages.

        A rule that moves booleans (`Kind.writes_bools`) adds their markers where the
        keys so far hold them where they come from: it is asked again as keys grow.

        A stage none of whose rules is `active` is in no plan (see `_groups`): it never
        runs, so nothing it could add is reached (a rule that selects the root, whose
        triggers are deeper than the root, say).
        """
        keys = set(census)
        kept: set[str] = set()
        idle = set() if active is None else {id(info) for info in self.infos if not self._on(info, active)}
        for info in self.infos + self.check_infos:
            if id(info) in idle:
                continue
            grew = True
            while grew:
                grew = False
                for rule, trig, adds in info.rules:
                    moving = rule.id in self._moving
                    if rule.id in kept:
                        if not moving:
                            continue
                    elif not (trig is None or not trig.isdisjoint(keys)) or not self._requires.get(rule.id, _NOTHING) <= keys:
                        continue
                    if adds is _ANY:
                        return self._every
                    if moving:
                        adds = rule.spec.added_keys(rule.options, keys)
                    if rule.id not in kept or not adds <= keys:
                        kept.add(rule.id)
                        keys |= adds
                        grew = True
        return frozenset(kept)

    def _groups(self, active: frozenset, reads: dict) -> tuple[tuple, bool]:
        """The steps, as stage indexes: a tuple for one (fused) walk, in which a negative
        index `-1 - i` is the root-scoped tree stage `i` run at the root; an int for a
        tree stage."""
        groups: list[Any] = []
        pending: list[int] = []  # root-scoped tree stages waiting for the next walk to fuse into
        for i, info in enumerate(self.infos):
            if not self._on(info, active):
                continue  # no rule of it can have work
            if info.tree:
                rule = info.stage.tree[0]
                if rule.spec.scope == "root" and reads[rule.id] == "node" and groups and isinstance(groups[-1], list):
                    pending.append(i)
                    continue
                groups.extend(pending)
                pending = []
                groups.append(i)
            elif groups and isinstance(groups[-1], list) and self._fuses(groups[-1], info, active, reads):
                groups[-1].extend(-1 - p for p in pending)
                groups[-1].append(i)
                pending = []
            else:
                groups.extend(pending)
                pending = []
                groups.append([i])
        groups.extend(pending)
        walks = [i for i, g in enumerate(groups) if isinstance(g, list)]
        return tuple(tuple(g) if isinstance(g, list) else g for g in groups), self._checks_fuse(groups, walks)

    # -- building a plan --------------------------------------------------------

    def _make(self, groups: tuple, checks_fused: bool, kept: frozenset) -> Plan:
        walks = [i for i, g in enumerate(groups) if isinstance(g, tuple)]
        node_checks = self._node_checks(kept) if checks_fused else ()
        steps: list[Callable[[Any], None]] = []
        exact: list[bool] = []  # a walk that fuses nothing, a tree stage, a check of the finished tree
        for i, group in enumerate(groups):
            if isinstance(group, tuple):
                fused_checks = node_checks if i == walks[-1] else ()
                steps.append(self._walk([self.infos[j if j >= 0 else -1 - j] for j in group], fused_checks, kept))
                exact.append(len(group) == 1 and not fused_checks)
            else:
                steps.append(_tree_step(self.infos[group].stage))
                exact.append(True)
        for info in self.check_infos:
            if info.tree:
                if info.rules[0][0].id not in kept:
                    continue  # none of its trigger keywords can be in the output (refs-acyclic without a $ref)
                steps.append(_tree_step(info.stage))
                exact.append(True)
            elif checks_fused:
                # the root is the first node the staged check walk judges; nodes changed
                # after their check are anywhere in its order
                checking = self._checks_walk(node_checks)
                steps.append(_root_step(checking))
                exact.append(True)
                steps.append(_edits_step(checking))
                exact.append(False)
            else:
                steps.append(_stage_step(info.stage))
                exact.append(True)
        fused = checks_fused or any(isinstance(g, tuple) and len(g) > 1 for g in groups)
        return Plan(tuple(steps), fused, checks_fused, tuple(exact))

    def _trusted(self, groups: tuple, active: frozenset) -> frozenset:
        """Stages where a rule finding the schema unrepresentable in a fused walk is the
        staged run's finding too: no stage fused before it has a rule that can have work
        and can fail (the staged run would have met that failure first).

        A root-scoped stage fused at the root (a negative index) is no such stage: the
        walk's first node is the root, where its visitor runs before those of every
        stage after it, so it has finished, without failing, before any of them fails.
        """
        out = set()
        for group in groups:
            if not isinstance(group, tuple):
                continue
            clean = True
            for j in group:
                i = j if j >= 0 else -1 - j
                if clean:
                    out.add(i)
                if j >= 0 and any(r.id in active and r.spec.fails for r, _t, _a in self.infos[i].rules):
                    clean = False
        return frozenset(out)

    @staticmethod
    def _on(info: _StageInfo, active: frozenset) -> bool:
        return any(r.id in active for r, _t, _a in info.rules)

    def _fuses(self, group: list, info: _StageInfo, active: frozenset, reads: dict) -> bool:
        """May `info`'s walk join the walks of `group` (stage indexes; see the module docstring)?"""
        earlier = [self.infos[j] for j in group if j >= 0]
        rules = [r for r, _t, _a in info.rules if r.id in active]
        before = [r for g in earlier for r, _t, _a in g.rules if r.id in active]
        if any(r._where_expr is not None for r in rules):
            return False
        if any(reads[r.id] == "tree" for r in rules + before):
            return False
        pre = {v[0].id for v in info.stage.pre}
        if any(r.id in pre and (reads[r.id] != "node" or r.spec.creates_of(r.options)) for r in rules):
            return False
        earlier_post = [v[0] for g in earlier for v in self._active_visitors(g.stage.post, active)]
        if not earlier_post:
            return True
        made = {f for r in before for f in r.spec.facts_made(r.options)}
        return (
            all(reads[r.id] == "node" for r in earlier_post)
            and all(r.id not in pre and reads[r.id] == "node" and not r.spec.creates_of(r.options) for r in rules)
            and not any(made.intersection(r.spec.facts_needed(r.options)) for r in rules)
        )

    @staticmethod
    def _active_visitors(visitors: tuple, active: frozenset) -> tuple:
        return tuple(v for v in visitors if v[0].id in active)

    def _checks_fuse(self, groups: list, walks: list) -> bool:
        """Checks go into the last walk if only tree stages whose changes are checked
        again follow it: root-scoped ones, at the root (the root step), and those of
        kinds that tell each node they change (`Kind.edits_told`, the edits step)."""
        if not walks:
            return False
        after = (self.infos[g].stage.tree[0].spec for g in groups[walks[-1] + 1 :])
        if any(spec.scope != "root" and not spec.edits_told for spec in after):
            return False
        return not any(r._where_expr is not None for info in self.check_infos for r, _t, _a in info.rules)

    def _node_checks(self, kept: frozenset) -> tuple:
        return tuple(
            _visitor(entry, not_root=True)
            for info in self.check_infos
            if not info.tree
            for entry in info.stage.pre + info.stage.post
            if entry[0].id in kept
        )

    def _checks_walk(self, checks: tuple) -> Callable[[Any, Any], None]:
        """The node checks as a walk of one node (compiled once per set of checks)."""
        key = tuple(v.rule.id for v in checks)
        walk = self._check_walks.get(key)
        if walk is None:
            variant = Variant("r", tuple(attrs.evolve(v, not_root=False) for v in checks), (), None, None)
            walk = self._check_walks[key] = compile_variants((variant,), "node checks")
        return walk

    def _walk(self, group: list, checks: tuple, kept: frozenset) -> Callable[[Any], None]:
        # plans of many inputs hold the same walk: it compiles once for the visitors it holds
        stages = tuple(self.infos.index(g) for g in group)
        holds = frozenset(r.id for g in group for r, _t, _a in g.rules if r.id in kept)
        if self._variety.get(stages, 0) >= _VARIETY:
            # inputs of very many shapes: the walk holding every visitor serves the rest
            kept = self._every
            holds = frozenset(r.id for g in group for r, _t, _a in g.rules)
        key = (stages, holds, tuple(v.rule.id for v in checks))
        walk = self._walks.get(key)
        if walk is None:
            self._variety[stages] = self._variety.get(stages, 0) + 1
            walk = self._walks[key] = self._compile_walk(group, checks, kept)
        return walk

    def _compile_walk(self, group: list, checks: tuple, kept: frozenset) -> Callable[[Any], None]:
        # selections are taken as the walk starts: only the first stage's may have work
        # (see `_fuses`); a later stage's selector rule is there, but never wakes up
        selectors = [r for g in group if not g.tree for r in g.stage.rules if r._where_expr is not None and r.id in kept]
        pre_all = tuple(
            _root_visitor(g.stage) if g.tree else _visitor(v, selectors=selectors)
            for g in group
            for v in ((None,) if g.tree else g.stage.pre)
            if g.tree or v[0].id in kept
        )
        walks = [g for g in group if not g.tree]
        # the first stage with post visitors (only its visitors may make subschemas
        # after the node's children are walked, see `_fuses`), or the last stage
        first = next((i for i, g in enumerate(walks) if any(v[0].id in kept for v in g.stage.post)), len(walks) - 1)
        post = tuple(_visitor(v, selectors=selectors) for g in walks[first:] for v in g.stage.post if v[0].id in kept) + checks
        if len(group) == 1:
            variants = (Variant("a", pre_all, post, "a", "a"),)
        else:
            # the subschemas the post visitors make are walked by their own stage and
            # the stages after it alone
            from_first = tuple(_visitor(v, selectors=selectors) for g in walks[first:] for v in g.stage.pre if v[0].id in kept)
            variants = (Variant("a", pre_all, post, "a", "b"), Variant("b", from_first, post, "b", "b"))
        fn = compile_variants(variants, "+".join(str(self.infos.index(g)) for g in group))

        if not selectors:
            return lambda run: fn(run, ())

        def step(run: Any) -> None:
            fn(run, tuple(r.select(run.holder[0]) for r in selectors))

        return step


def _root_visitor(stage: Any) -> Visitor:
    """A root-scoped tree stage as a visitor of the root (see `Kind.scope`)."""
    rule, fn = stage.tree

    def at_root(rule: Any, node: Any, run: Any) -> Any:
        fn(rule, run)
        new = run.holder[0]
        return new if new is not node else None

    # the kind's cheap test (on the root it would run on) spares the call where it holds not
    return Visitor(rule, at_root, True, None, rule.fast, rule.spec.creates_of(rule.options), None, False, True)


def _visitor(entry: tuple, *, selectors: list | None = None, not_root: bool = False) -> Visitor:
    rule, fn, bools, trig = entry
    selected = selectors.index(rule) if selectors is not None and rule._where_expr is not None else None
    return Visitor(rule, fn, bools, trig, rule.fast, rule.spec.creates_of(rule.options), selected, not_root)


def _tree_step(stage: Any) -> Callable[[Any], None]:
    rule, fn = stage.tree
    # a root-scoped kind's or a tree check's cheap test, on the root, spares the call
    # where it holds not
    test = root_test(rule) if rule.spec.scope == "root" or rule.spec.phase_of(rule.options) == "check" else None

    def step(run: Any) -> None:
        if test is not None and not test(run.holder[0]):
            return
        run.at = None
        fn(rule, run)

    return step


def _stage_step(stage: Any) -> Callable[[Any], None]:
    fn = stage.compiled()

    def step(run: Any) -> None:
        fn(run, stage.selections(run.holder[0]), wire_definitions(run) if stage.reads_only else ())

    return step


def _root_step(fn: Callable[[Any, Any], None]) -> Callable[[Any], None]:
    """The node checks (`fn`) on the root, which the fused walk left for after the tree stages."""
    return lambda run: fn(run, ())


def _edits_step(fn: Callable[[Any, Any], None]) -> Callable[[Any], None]:
    """The node checks (`fn`) on each node a kind changed after the walk had checked it."""

    def step(run: Any) -> None:
        if run.edits:
            holder = run.holder
            try:
                for node in run.edits:
                    run.holder = [node]
                    fn(run, ())
            finally:
                run.holder = holder

    return step
