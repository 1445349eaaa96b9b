"""Run a compiled target over one schema: prepare, passes, residual checks, fallback."""

from __future__ import annotations

import copy
import json
import marshal
from typing import Any

from .model import Change, Options, Result
from .facts import Facts
from .positions import REFERENCE_KEYS, schema_nodes
from .prepare import OUTPUT_ROOT, copy_input, measure
from .ruletable import Stage, Target
from .compiler import RECURSION_SAFE
from .run import BudgetExceeded, Run, Unrepresentable, walk, wire_definitions

_DRAFTS = (("draft-04", "draft-04"), ("draft-06", "draft-06"), ("draft-07", "draft-07"), ("2019-09", "2019-09"))


def _detect_draft(root: Any) -> str | None:
    if isinstance(root, dict) and isinstance(root.get("$schema"), str):
        uri = root["$schema"]
        for needle, name in _DRAFTS:
            if needle in uri:
                return name
    return None


def _run_stage(stage: Stage, run: Run) -> None:
    if stage.tree is not None:
        rule, fn = stage.tree
        run.at = None
        fn(rule, run)
        return
    beside = wire_definitions(run) if stage.reads_only else ()
    if run.iterative:
        pre, post = stage.visitors(run.holder[0])
        if stage.reads_only:
            walk(run, pre + post, (), (stage.keys[2], None), beside)
        else:
            walk(run, pre, post, stage.keys)
        return
    stage.compiled()(run, stage.selections(run.holder[0]), beside)


# how targets run: "planned" (fused walks where the plan allows), or the staged
# reference with compiled walks ("staged") or with the generic iterative walk
# ("iterative"); the tests compare the three
ENGINE = "planned"


def run_target(
    value: Any, target: Target, options: Options, *, output: bool = False, _hop: int = 0, _given: Run | None = None
) -> Result:
    """Normalize an already-parsed JSON value for one target (`output`: the value is a
    structured output's schema, see `Facts.output_root`; `_given`: see `_copy`)."""
    if ENGINE == "planned" and options.max_depth <= RECURSION_SAFE:  # deep trees take the iterative walks
        result = _planned(value, target, options, output, _given)
        if result is not None:
            return _settled(result, target, options)
        _given = None  # the planned run may have changed it: the staged run copies anew
    run = Run(target, options)
    run.iterative = ENGINE == "iterative" or options.max_depth > RECURSION_SAFE
    return _settled(_staged(value, target, options, run, output, _hop, _given), target, options)


def _copy(value: Any, run: Run, given: Run | None) -> Any:
    """The copy of the input `run` works on: a new one, or the one `given` made, a strict
    run refused before any rule could change it (`Planner.refuses_untouched`), taken
    over with what copying it counted: its census holds the sibling's keywords too."""
    if given is None:
        return copy_input(value, run)
    run.origins, run.census, run.nodes, run.literal = given.origins, given.census, given.nodes, given.literal
    run.keyed = given.keyed
    run.repairs = given.repairs
    return given.root


# the changes that may add nodes, depth or characters (a drop never does)
_GROWS = frozenset({"rewritten", "loosened", "spilled", "renamed"})


def _settled(result: Result, target: Target, options: Options) -> Result:
    """A rewrite may grow a schema past a budget its input was within: such an output
    would fall back when normalized again, so it falls back now, naming the budget."""
    if result.used_fallback or not any(c.action in _GROWS for c in result.changes):
        return result  # the copy of the input, or less: within the budgets it was counted by
    if _surely_within(result.schema, options):
        return result
    exc = measure(result.schema, options)
    if exc is None:
        return result
    return fallback_result(target, f"{exc.rule}: {exc.reason}", (*result.changes, Change(exc.rule, exc.pointer, "fallback", exc.reason)))


def _surely_within(schema: Any, options: Any) -> bool:
    """Whether the output is within every budget by bounds read off its marshal bytes
    (format 2: no back-references), which C writes three times faster than JSON text and
    far faster than `measure` walks: each container is one `{` or `[` type code, each
    boolean one `T` or `F`, each character of a key or string at least one byte and
    each array item at least one; an item of a long list priced by its text prints as
    at most six times its bytes (`false,` is one byte; a float's 9 bytes print as up to
    25 characters). So the bytes bound the characters and the nodes, and where they
    are many the four type codes (some may be data) bound the nodes; nesting is no
    deeper than the containers are many, and where they are more than the depth budget
    (a wide output), the levels are counted. Most outputs skip the walk."""
    try:
        blob = marshal.dumps(schema, 2)
    except (ValueError, TypeError):
        return False
    size = len(blob)
    if 6 * size > options.max_literal_bytes:
        return False
    containers = blob.count(b"{") + blob.count(b"[")
    # each count reads every byte: the type codes of nodes are counted only where the
    # bytes are more than the nodes the budget takes
    if size > options.max_nodes and containers + blob.count(b"T") + blob.count(b"F") > options.max_nodes:
        return False
    return containers <= options.max_depth or _levels_within(schema, options.max_depth)


def _levels_within(schema: Any, max_depth: int) -> bool:
    """Whether no container nests deeper than `max_depth` (the root is at 1): a list of
    each level's containers, each made by one comprehension. An output within the node
    budget has no more containers than that, shared ones counted each time."""
    level = [schema]
    for _ in range(max_depth):
        level = [
            v
            for node in level
            for v in (node.values() if node.__class__ is dict else node)
            if v.__class__ is dict or v.__class__ is list
        ]
        if not level:
            return True
    return False


def _planned(value: Any, target: Target, options: Options, output: bool, given: Run | None = None) -> Result | None:
    """The run by the target's plan for this input (see `plans`), or None where it
    did not go as planned: then the staged run decides, from the start."""
    run = Run(target, options)
    plan = None
    at = 0
    try:
        root = _copy(value, run, given)
        if not isinstance(root, (dict, bool)):
            return None
        run.holder[0] = root
        run.facts = _facts(run, output)
        run.draft = _detect_draft(root)
        plan, trusted = target.planner().plan(run.census, root.keys() if root.__class__ is dict else ())
        if plan.fused:
            run.order = target.planner().stage_of  # a fallback's changes too (`_recover`)
        if plan.checks_fused:
            run.edits = []
        for at, step in enumerate(plan.steps):
            step(run)
            if run.facts.unprepared:
                return None  # the staged run walks the earlier stages again
    except Unrepresentable as exc:
        if plan is None or not plan.fused or plan.exact[at]:
            # the staged run's own steps (but for stages with nothing to do): its finding
            return _recover(value, target, options, run, exc, 0)
        # a strict target fails open on a rule's finding alone (not on the changes made
        # so far), and that finding is the staged run's where no fallible rule fused
        # before it could have failed first
        if (
            _opens_to_sibling(target, exc, 0)
            and not isinstance(exc, BudgetExceeded)
            and target.planner().stage_of.get(exc.rule, -1) in trusted
        ):
            return _recover(value, target, options, run, exc, 0)
        return None
    except Exception:  # noqa: BLE001 - anything unplanned is the staged run's to judge
        return None
    return _finished(run, target)


def _staged(value: Any, target: Target, options: Options, run: Run, output: bool, _hop: int, given: Run | None = None) -> Result:
    """The reference run: every stage in order, each its own walk."""
    try:
        root = _copy(value, run, given)
        run.holder[0] = root
        if not isinstance(root, (dict, bool)):
            raise Unrepresentable("input/not-a-schema", "", f"{_json_kind(root)} is not a JSON Schema")
        run.facts = _facts(run, output)
        run.draft = _detect_draft(root)
        for i, stage in enumerate(target.stages):
            _run_stage(stage, run)
            if run.facts.unprepared:
                run.facts.unprepared.clear()
                # a $ref brought in content from outside schema positions, which the
                # walks before this stage never saw; they are idempotent, so run them again
                for earlier in target.stages[:i]:
                    if earlier.tree is None:
                        _run_stage(earlier, run)
        for stage in target.check_stages:
            _run_stage(stage, run)
    except Unrepresentable as exc:
        return _recover(value, target, options, run, exc, _hop)
    return _finished(run, target)


def _finished(run: Run, target: Target) -> Result:
    """The Result of a run that went to its end."""
    facts = run.facts
    notes = {}
    if facts.nulled_optionals:
        notes["nulled_optionals"] = tuple(facts.nulled_optionals)
    if facts.paired_maps:
        notes["paired_maps"] = tuple(facts.paired_maps)
    return Result(schema=run.root, target=target.name, strict=target.strict, changes=tuple(run.changes), notes=notes)


def _facts(run: Run, output: bool) -> Facts:
    """The facts the engine makes before any rule runs (an output's marked in the census
    too, `prepare.OUTPUT_ROOT`)."""
    if output:
        run.census.add(OUTPUT_ROOT)
    return Facts(references=not REFERENCE_KEYS.isdisjoint(run.census), output_root=output)


def _opens_to_sibling(target: Target, exc: Unrepresentable, hop: int) -> bool:
    """Whether this failure makes the target fail open to its non-strict sibling."""
    other = target.related(target.fail_open) if target.strict else None
    # input and budget failures would fail the non-strict sibling the same way
    same_everywhere = isinstance(exc, BudgetExceeded) or exc.rule.startswith("input/")
    return other is not None and hop == 0 and not other.strict and not same_everywhere


def _recover(value: Any, target: Target, options: Options, run: Run, exc: Unrepresentable, hop: int) -> Result:
    """Strict targets fail open to their non-strict sibling (an output's run to an
    output's, as `run.facts` says); the others fall back."""
    reason = f"{exc.rule}: {exc.reason}"
    change = Change(exc.rule, exc.pointer, "fallback", exc.reason)
    if _opens_to_sibling(target, exc, hop):
        other = target.related(target.fail_open)
        untouched = exc.rule in target.planner().refuses_untouched(run.census)
        res = run_target(value, other, options, output=run.facts.output_root, _hop=1, _given=run if untouched else None)
        return Result(
            # the strict target's own fallback, which the sibling's wire takes too: normalized
            # again for either target, it stays what it is
            schema=copy.deepcopy(target.fallback) if res.used_fallback else res.schema,
            target=target.name,
            strict=False,
            used_fallback=res.used_fallback,
            fallback_reason=res.fallback_reason,
            strict_reason=f"{reason}; sent non-strict as {other.name}",
            changes=(change, *res.changes),
            notes=res.notes,
        )
    return fallback_result(target, reason, (*run.changes, change))


def fallback_result(target: Target, reason: str, changes: tuple[Change, ...]) -> Result:
    """The rule file's fallback schema, reported: the tool stays callable, its schema empty."""
    return Result(
        schema=copy.deepcopy(target.fallback),
        target=target.name,
        strict=False,
        used_fallback=True,
        fallback_reason=reason,
        changes=changes,
    )


class _Collecting(Run):
    """A run whose failed checks are collected instead of ending the run."""

    __slots__ = ("violations",)

    def fail(self, rule: Any, node: Any, reason: str, key: Any = None) -> None:
        self.violations.append(Change(rule.id, self.pointer(node, key), "fallback", reason))


def residual_violations(value: Any, target: Target, options: Options) -> tuple[Change, ...]:
    """Every residual check of `target` that `value`, taken as wire output, breaks.

    Nothing is rewritten: this judges a schema as it stands (for example one a user
    wrote by hand for this wire, or wireschema's own output).
    """
    run = _Collecting(target, options)
    run.violations = []
    try:
        root = copy_input(value, run)
    except BudgetExceeded as exc:  # too big to judge: that is the finding
        return (Change(exc.rule, exc.pointer, "fallback", exc.reason),)
    run.holder[0] = root
    if target.reader:
        _read_as_the_wire(run, target.reader)
    # a string no UTF-8 text holds cannot be sent either (see `prepare._text`)
    run.violations.extend(run.changes)
    for stage in target.check_stages:
        try:
            _run_stage(stage, run)
        except Unrepresentable as exc:  # whole-tree checks stop at their first finding
            run.violations.append(Change(exc.rule, exc.pointer, "fallback", exc.reason))
    return tuple(run.violations)


def _read_as_the_wire(run: Run, reader: Any) -> None:
    """The copy `check` judges, respelled as the wire's own reader takes it (the target's
    `reader`: Google's proto JSON reader takes `max_items` for `maxItems` and `OBJECT`
    for `object`), so a schema the wire reads is not judged by a spelling alone. A
    finding on a respelled keyword points where it was written."""
    keys, types = reader.get("keys", {}), reader.get("types", {})
    defs = [container[key] for container, key, _chain in wire_definitions(run)]
    for node in (n for top in (run.holder[0], *defs) for n in schema_nodes(top)):
        if keys and not keys.keys().isdisjoint(node):
            spelled = {k: keys[k] for k in node if k in keys and keys[k] not in node}
            if spelled:
                run.rewrite(node, [(spelled.get(k, k), v) for k, v in node.items()])
                for written, key in spelled.items():
                    run.respelled(node, key, written)
                run.census.update(spelled.values())
        t = node.get("type")
        if t.__class__ is str:
            node["type"] = types.get(t, t)
        elif t.__class__ is list:
            node["type"] = [types.get(x, x) if x.__class__ is str else x for x in t]


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "a number"


def stable_dump(schema: Any) -> str:
    return json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
