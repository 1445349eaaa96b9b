"""Hostile input: the issue's guarantees 1, 2 and 3 case by case, for every target.

Each case states its outcome (a result, which budget it hit, or SchemaInputError) and
a generous time bound: only orders of magnitude are asserted (a case that should take
milliseconds must finish within seconds), so the suite never flakes on a busy machine.
A runaway case is cut off by an interval timer, so a defect costs seconds, not minutes.

The engine defects these cases found (D-numbers of the report) are fixed; each case
that found one says so and stays as a plain test.
"""

from __future__ import annotations

import copy
import decimal
import fnmatch
import functools
import json
import math
import re

import pytest

import wireschema
from conftest import WORK_LIMIT, bounded
from wireschema.errors import SchemaInputError, WireschemaError

TARGETS = [t.name for t in wireschema.targets()]
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# ---------------------------------------------------------------------------
# helpers


def fingerprint(value):
    """An exact rendering of a Python tree (types, key order, float bits, cycles), for
    "bit-for-bit unchanged" at any depth: json.dumps where it can (fast, and it keeps
    True, 1, 1.0 and -0.0 apart), an iterative walk where it cannot."""
    try:
        return json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        return _walk_fingerprint(value)


def _walk_fingerprint(value):
    out = []
    stack = [value]
    on_path = set()
    while stack:
        v = stack.pop()
        if v.__class__ is _Exit:
            on_path.discard(v.ident)
            out.append(")")
        elif isinstance(v, (dict, list)):
            if id(v) in on_path:
                out.append("<cycle>")
                continue
            on_path.add(id(v))
            stack.append(_Exit(id(v)))
            if isinstance(v, dict):
                out.append(f"{{{type(v).__name__}:{len(v)}")
                for k, x in reversed(list(v.items())):
                    stack.append(x)
                    stack.append(_Key(k))
            else:
                out.append(f"[{type(v).__name__}:{len(v)}")
                stack.extend(reversed(v))
        elif v.__class__ is _Key:
            out.append(f"k:{type(v.key).__name__}:{v.key!r}")
        elif isinstance(v, float):
            out.append(f"f:{v.hex() if math.isfinite(v) else repr(v)}")
        elif isinstance(v, int) and not isinstance(v, bool):
            out.append(f"i:{type(v).__name__}:{v:x}")  # hex: no int-to-str digit limit
        else:
            out.append(f"{type(v).__name__}:{v!r}")
    return out


class _Exit:
    __slots__ = ("ident",)

    def __init__(self, ident):
        self.ident = ident


class _Key:
    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key


def effective(target: str, result: wireschema.Result) -> str:
    compiled = wireschema._target(target)
    if compiled.strict and not result.strict:
        return compiled.fail_open
    return target


def budget_hit(result: wireschema.Result) -> str | None:
    """Which budget a result reports (the rule id of its fallback change), if any."""
    for change in result.changes:
        if change.action == "fallback" and change.rule.startswith("budget/"):
            return change.rule
    return None


def assert_budget(result: wireschema.Result, budget: str, output: bool = False) -> None:
    assert result.used_fallback, f"expected a {budget} fallback, got a result: {result.changes[:3]}"
    assert result.fallback_reason and result.fallback_reason.startswith(budget + ":"), result.fallback_reason
    assert budget_hit(result) == budget
    assert result.strict is False
    target = wireschema._target(result.target)
    # an output runs by its target's output variant (anthropic's, anthropic-output), whose fallback it gets
    ran = target.registry.output_variant(target) if output else target
    assert result.schema == ran.fallback


def assert_sound_result(schema, target: str, result: wireschema.Result) -> None:
    """A result that is not a budget fallback still passes its own wire's checks."""
    assert isinstance(result, wireschema.Result)
    wire = effective(target, result)
    assert wireschema.check(result.schema, wire) == ()


def _resolve_refs_options(target: str):
    for rule in wireschema._target(target).rules:
        if rule.id == "prepare/resolve-refs":
            return rule.options
    raise AssertionError(f"{target} has no prepare/resolve-refs rule")


def expands_refs(target: str, sibling: str | None = None) -> bool:
    """Whether `target` copies a `$ref`'s target in place (a bomb then costs nodes):
    always in inline mode, and in keep-defs mode when the ref has a sibling it refuses."""
    opts = _resolve_refs_options(target)
    if opts["mode"] == "inline":
        return True
    if sibling is None:
        return False
    return not any(fnmatch.fnmatchcase(sibling, p) for p in (opts["siblings_allowed"] or ()))


@pytest.fixture
def uncached(monkeypatch):
    """Time the work itself, not a memo hit left by another test."""
    monkeypatch.setenv("WIRESCHEMA_NO_CACHE", "1")


# ---------------------------------------------------------------------------
# input builders (all iterative: the inputs are deeper than Python's recursion limit)

DEEP = 10_000


def deep_properties(n=DEEP):
    node = {"type": "string"}
    for _ in range(n):
        node = {"type": "object", "properties": {"a": node}}
    return node


def deep_items(n=DEEP):
    node = {"type": "string"}
    for _ in range(n):
        node = {"type": "array", "items": node}
    return node


def deep_any_of(n=DEEP):
    node = {"type": "string"}
    for _ in range(n):
        node = {"anyOf": [node, {"type": "null"}]}
    return {"type": "object", "properties": {"x": node}}


def deep_keyword(keyword, n=DEEP):
    node = {"type": "string"}
    for _ in range(n):
        node = {keyword: node}
    return {"type": "object", "properties": {"x": node}}


def deep_all_of(n=DEEP):
    node = {"type": "string"}
    for _ in range(n):
        node = {"allOf": [node]}
    return {"type": "object", "properties": {"x": node}}


def nested_lists(n=DEEP):
    v: list = []
    for _ in range(n):
        v = [v]
    return v


def nested_dicts(n=DEEP):
    v: dict = {}
    for _ in range(n):
        v = {"anyOf": v}  # keyword-shaped, in a literal position
    return v


def in_literal(keyword, payload):
    return {"type": "object", "properties": {"p": {"type": "array", keyword: payload}}}


def ref_bomb(levels=40, sibling=None):
    """Each definition refers to the previous one twice: 2**levels copies once inlined."""
    extra = {sibling: "x"} if sibling else {}
    defs = {"D0": {"type": "string"}}
    for i in range(1, levels):
        defs[f"D{i}"] = {
            "type": "object",
            "properties": {"l": {"$ref": f"#/$defs/D{i - 1}", **extra}, "r": {"$ref": f"#/$defs/D{i - 1}", **extra}},
        }
    return {"type": "object", "properties": {"x": {"$ref": f"#/$defs/D{levels - 1}"}}, "$defs": defs}


def ref_bomb_any_of(levels=40):
    defs = {"D0": {"type": "integer"}}
    for i in range(1, levels):
        defs[f"D{i}"] = {"anyOf": [{"$ref": f"#/$defs/D{i - 1}"}, {"$ref": f"#/$defs/D{i - 1}"}]}
    return {"type": "object", "properties": {"x": {"$ref": f"#/$defs/D{levels - 1}"}}, "$defs": defs}


def literal_bomb(levels=8, chars=300_000):
    """Few nodes, but 2**levels copies of a 300,000-character description once inlined."""
    defs = {"D0": {"type": "string", "description": "d" * chars}}
    for i in range(1, levels):
        defs[f"D{i}"] = {"type": "object", "properties": {"l": {"$ref": f"#/definitions/D{i - 1}"}, "r": {"$ref": f"#/definitions/D{i - 1}"}}}
    return {"type": "object", "properties": {"x": {"$ref": f"#/definitions/D{levels - 1}"}}, "definitions": defs}


@functools.lru_cache(maxsize=None)
def _built_cached(table_id: int, case: str):
    return _TABLES[table_id][case]()


def _built(table: dict, case: str):
    """One input per case, shared by the targets' tests (each test checks that its
    target left it unchanged, so sharing hides nothing)."""
    _TABLES[id(table)] = table
    return _built_cached(id(table), case)


_TABLES: dict[int, dict] = {}


# ---------------------------------------------------------------------------
# guarantee 2: nesting far beyond the depth budget is a reported budget/depth fallback

DEPTH_CASES = {
    "objects-via-properties": lambda: deep_properties(),
    "arrays-via-items": lambda: deep_items(),
    "anyOf-branches": lambda: deep_any_of(),
    "allOf-branches": lambda: deep_all_of(),
    "not-chain": lambda: deep_keyword("not"),
    "additionalProperties-chain": lambda: deep_keyword("additionalProperties"),
    "snake-any_of-branches": lambda: {"type": "object", "properties": {"x": _snake_chain()}},
    "lists-in-enum": lambda: in_literal("enum", [nested_lists()]),
    "lists-in-default": lambda: in_literal("default", nested_lists()),
    "keyword-dicts-in-const": lambda: in_literal("const", nested_dicts()),
    "lists-in-examples": lambda: in_literal("examples", [nested_lists()]),
    "dicts-in-description-position": lambda: {"type": "object", "description": nested_dicts()},
    "deep-definition-unused": lambda: {"type": "object", "$defs": {"D": deep_properties()}},
    "deep-definition-referenced": lambda: {
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/D"}},
        "definitions": {"D": deep_items()},
    },
}


def _snake_chain(n=DEEP):
    node = {"type": "string"}
    for _ in range(n):
        node = {"any_of": [node]}
    return node


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(DEPTH_CASES))
def test_nesting_beyond_the_depth_budget(case, target, uncached):
    schema = _built(DEPTH_CASES, case)
    before = fingerprint(schema)
    with bounded():
        result = wireschema.normalize(schema, target)
    assert_budget(result, "budget/depth")
    assert fingerprint(schema) == before


@pytest.mark.parametrize("target", TARGETS)
def test_depth_budget_is_counted_after_ref_expansion(target, uncached):
    # 200 definitions in a chain, each one property below the next: 6 levels as
    # written, 400 once the references are copied in place
    defs = {"D0": {"type": "string"}}
    for i in range(1, 200):
        defs[f"D{i}"] = {"type": "object", "properties": {"n": {"$ref": f"#/$defs/D{i - 1}"}}}
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/D199"}}, "$defs": defs}
    with bounded():
        result = wireschema.normalize(schema, target)
    if expands_refs(target):
        assert_budget(result, "budget/depth")
    else:
        assert budget_hit(result) in (None, "budget/depth")
        if not result.used_fallback:
            assert_sound_result(schema, target, result)


@pytest.mark.parametrize("target", TARGETS)
def test_just_inside_the_depth_budget_is_not_a_fallback(target, uncached):
    schema = deep_properties(40)  # 81 levels of JSON, budget 96
    with bounded():
        result = wireschema.normalize(schema, target)
    assert budget_hit(result) is None
    assert_sound_result(schema, target, result)


# ---------------------------------------------------------------------------
# guarantee 2: $ref expansion bombs and cyclic references


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "case,build,sibling",
    [
        ("doubling-properties", lambda: ref_bomb(40), None),
        ("doubling-anyOf", lambda: ref_bomb_any_of(40), None),
        ("doubling-with-description-beside-ref", lambda: ref_bomb(40, sibling="description"), "description"),
        ("doubling-with-title-beside-ref", lambda: ref_bomb(40, sibling="title"), "title"),
    ],
)
def test_ref_expansion_bomb(case, build, sibling, target, uncached):
    """A target that copies definitions in place runs out of nodes; one that keeps
    `$defs` never expands the bomb, and its output stays small."""
    schema = build()
    before = fingerprint(schema)
    with bounded():
        result = wireschema.normalize(schema, target)
    assert fingerprint(schema) == before
    if expands_refs(target, sibling):
        assert_budget(result, "budget/nodes")
    elif result.used_fallback:
        assert budget_hit(result) in (None, "budget/nodes"), result.fallback_reason
    else:
        assert len(repr(result.schema)) < 200_000
        assert_sound_result(schema, target, result)


@pytest.mark.parametrize("target", TARGETS)
def test_literal_bomb_hits_the_literal_budget(target, uncached):
    schema = literal_bomb()
    with bounded():
        result = wireschema.normalize(schema, target)
    if expands_refs(target):
        assert_budget(result, "budget/literal")
    else:
        assert budget_hit(result) in (None, "budget/literal"), result.fallback_reason


CYCLES = {
    "two-definitions-referring-to-each-other": {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
    },
    "definition-referring-to-itself": {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"$ref": "#/$defs/A"}},
    },
    "linked-list-through-optional-property": {
        "type": "object",
        "properties": {"head": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/Node"}}}},
    },
    "cycle-through-required-properties": {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "required": ["a"],
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}, "required": ["b"]},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "required": ["a"]},
        },
    },
    "property-referring-to-the-root": {
        "type": "object",
        "properties": {"self": {"$ref": "#"}, "list": {"type": "array", "items": {"$ref": "#"}}},
    },
    # a union beside keywords whose $ref names the root that holds it: vertex's any-of-alone
    # copied the root into the branch, which held the union again, without end
    "union-beside-a-keyword-referring-to-the-root": {
        "type": "object",
        "$defs": {"D": {"properties": {"a/b": {"allOf": [{"$ref": "#"}], "additionalProperties": {}}}}},
    },
    "any-of-beside-a-bound-referring-to-the-root": {
        "type": "object",
        "properties": {"x": {"anyOf": [{"$ref": "#"}, {"type": "string"}], "minProperties": 1}},
    },
    "draft-07-definitions-cycle-via-items": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"t": {"$ref": "#/definitions/T"}},
        "definitions": {"T": {"type": "array", "items": [{"$ref": "#/definitions/T"}, {"type": "string"}]}},
    },
    "ten-definitions-in-a-ring": {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/R0"}},
        "$defs": {
            f"R{i}": {"type": "object", "properties": {"n": {"$ref": f"#/$defs/R{(i + 1) % 10}"}, "m": {"$ref": f"#/$defs/R{(i + 3) % 10}"}}}
            for i in range(10)
        },
    },
}


def _recursive_beside_unevaluated(inner: dict) -> dict:
    """E's property v, closed by unevaluatedProperties, holds a keyword whose subschema is
    E again: a closed wire lifts v out of that keyword into v's own properties, and the
    lifted copy holds the keyword again (P-b1: each lift nested another copy, without end,
    to a RecursionError on anthropic-strict and xai; now the second lift of a schema into
    a copy of itself is cut, as resolve-refs cuts recursion)."""
    return {
        "type": "object",
        "properties": {"v": {"$ref": "#/$defs/E"}},
        "$defs": {"E": {"type": "object", "properties": {"v": {"type": "object", "unevaluatedProperties": False, **inner}}}},
    }


_E = {"$ref": "#/$defs/E"}
CYCLES.update(
    {
        f"recursive-ref-in-{kw}-lifted-beside-unevaluated-properties": _recursive_beside_unevaluated(inner)
        for kw, inner in {
            "dependentSchemas": {"dependentSchemas": {"a": _E}},
            "dependencies": {"dependencies": {"a": _E}},
            "if": {"if": _E},
            "then": {"if": {"required": ["a"]}, "then": _E},
            "else": {"if": {"required": ["a"]}, "else": _E},
            "not": {"not": _E},
            "allOf": {"allOf": [_E]},
            "anyOf": {"anyOf": [_E, {"type": "object"}]},
        }.items()
    }
)
CYCLES["lifts-through-two-definitions-in-turn"] = {
    "type": "object",
    "properties": {"v": {"$ref": "#/$defs/A"}},
    "$defs": {
        "A": {"type": "object", "properties": {"x": {"type": "object", "unevaluatedProperties": False, "dependentSchemas": {"a": {"$ref": "#/$defs/B"}}}}},
        "B": {"type": "object", "properties": {"y": {"type": "object", "unevaluatedProperties": False, "if": {"$ref": "#/$defs/A"}, "then": {"$ref": "#/$defs/A"}}}},
    },
}
CYCLES["root-lifted-into-its-own-property"] = {
    "type": "object",
    "properties": {"n": {"type": "object", "unevaluatedProperties": False, "if": {"$ref": "#"}, "then": {"$ref": "#"}}},
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(CYCLES))
def test_cyclic_refs_terminate(case, target, uncached):
    schema = copy.deepcopy(CYCLES[case])
    before = fingerprint(schema)
    with bounded():
        result = wireschema.normalize(schema, target)
    assert fingerprint(schema) == before
    assert_sound_result(schema, target, result)
    if result.used_fallback:
        assert result.fallback_reason


@pytest.mark.parametrize("target", TARGETS)
def test_root_that_is_a_ref_to_itself(target, uncached):
    """D4 (fixed during this work): kept as `$ref: #/$defs/%23` with no such definition."""
    schema = {"$ref": "#"}
    with bounded():
        result = wireschema.normalize(schema, target)
    assert_sound_result(schema, target, result)
    if not result.used_fallback:
        text = repr(result.schema)
        assert "$defs/%23" not in text and "/defs/%23" not in text, result.schema
        wire = effective(target, result)
        assert wireschema.normalize(result.schema, wire).schema == result.schema


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("defs", [None, "", [], 0])
def test_root_ref_beside_a_defs_that_is_not_an_object(defs, target):
    """D15 (fixed during this work): a TypeError escaped resolve-refs."""
    schema = {"$ref": "#", "$defs": defs}
    result = wireschema.normalize(schema, target)
    assert isinstance(result, wireschema.Result)


# ---------------------------------------------------------------------------
# guarantee 2: big literals, wide objects (inside the budgets: a result, fast)


def _enum(values):
    return {"type": "object", "properties": {"e": {"enum": values}}}


BIG_CASES = {
    "enum-100000-strings": lambda: _enum([f"value-{i}" for i in range(100_000)]),
    "enum-100000-integers": lambda: _enum(list(range(100_000))),
    "enum-100000-mixed-with-duplicates": lambda: _enum([i if i % 3 else str(i % 1000) for i in range(100_000)] + [None, True, 1.0]),
    "description-1MB-everywhere": lambda: {
        "type": "object",
        "description": "r" * (1 << 20),
        "properties": {"a": {"type": "string", "description": "a" * (1 << 20)}, "b": {"type": "integer", "default": "b" * (1 << 20)}},
    },
    "properties-10000": lambda: {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(10_000)}},
    "properties-10000-all-required": lambda: {
        "type": "object",
        "properties": {f"p{i}": {"type": ["string", "null"]} for i in range(10_000)},
        "required": [f"p{i}" for i in range(10_000)],
    },
    "anyOf-10000-branches": lambda: {"type": "object", "properties": {"u": {"anyOf": [{"const": i} for i in range(10_000)]}}},
    "definitions-5000-used-once": lambda: {
        "type": "object",
        "properties": {f"p{i}": {"$ref": f"#/$defs/D{i}"} for i in range(5_000)},
        "$defs": {f"D{i}": {"type": "integer", "minimum": i} for i in range(5_000)},
    },
    "pattern-properties-2000": lambda: {"type": "object", "patternProperties": {f"^x{i}_(a|b)+$": {"type": "string"} for i in range(2_000)}},
}


# an input within the budgets whose rewrite grows past one: it falls back, naming the budget
GROWS_PAST = {
    # MFJS has no type lists: 10,000 ["string", "null"] become 10,000 anyOfs of two branches
    ("properties-10000-all-required", "moonshot"): "budget/nodes",
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(BIG_CASES))
def test_big_but_within_budgets(case, target, uncached):
    schema = _built(BIG_CASES, case)
    before = fingerprint(schema)
    with bounded():
        result = wireschema.normalize(schema, target)
    assert fingerprint(schema) == before
    assert budget_hit(result) == GROWS_PAST.get((case, target)), result.fallback_reason
    assert_sound_result(schema, target, result)


BEYOND_CASES = {
    "properties-40000": ("budget/nodes", lambda: {"type": "object", "properties": {f"p{i}": {} for i in range(40_000)}}),
    "array-of-40000-subschemas": ("budget/nodes", lambda: {"type": "object", "properties": {"u": {"anyOf": [{} for _ in range(40_000)]}}}),
    "enum-of-40000-objects": ("budget/nodes", lambda: _enum([{"k": i} for i in range(40_000)])),
    "description-9MiB": ("budget/literal", lambda: {"type": "object", "description": "x" * (9 << 20)}),
    "enum-100000-strings-of-100-chars": ("budget/literal", lambda: _enum([f"{i:0100d}" for i in range(100_000)])),
    "keys-9MiB": ("budget/literal", lambda: {"type": "object", "properties": {("k" * (1 << 20)) + str(i): {} for i in range(9)}}),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(BEYOND_CASES))
def test_beyond_the_node_and_literal_budgets(case, target, uncached):
    budget, build = BEYOND_CASES[case]
    schema = build()
    with bounded():
        result = wireschema.normalize(schema, target)
    assert_budget(result, budget)


@pytest.mark.parametrize("target", TARGETS)
def test_custom_budgets_are_honoured(target, uncached):
    deep = deep_properties(6)  # 13 levels
    wide = {"type": "object", "properties": {f"p{i}": {} for i in range(60)}}
    long = {"type": "object", "description": "x" * 200}
    small = {"type": "object", "properties": {"a": {"type": "string"}}}
    for schema, opts, budget in (
        (deep, wireschema.Options(max_depth=10), "budget/depth"),
        (wide, wireschema.Options(max_nodes=50), "budget/nodes"),
        (long, wireschema.Options(max_literal_bytes=100), "budget/literal"),
    ):
        assert_budget(wireschema.normalize(schema, target, options=opts), budget)
        assert budget_hit(wireschema.normalize(small, target, options=opts)) is None


# -- work that grows faster than the input (within the default budgets) -------------

def chain_over_wide_object(depth=44, width=15_000):
    node = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(width)}}
    for _ in range(depth):
        node = {"type": "object", "properties": {"a": node}}
    return node


@pytest.mark.parametrize("target", TARGETS)
def test_deep_chain_over_a_wide_object_is_linear(target, uncached):
    """15,000 properties under 44 levels of optional objects: inside every budget.

    D1 (fixed during this work): the fused walk re-walked whole subtrees after
    require-all wrapped an optional property (22 s on openai-strict)."""
    schema = chain_over_wide_object()
    with bounded():
        result = wireschema.normalize(schema, target)
    assert budget_hit(result) is None


@pytest.mark.parametrize("target", TARGETS)
def test_long_required_list_is_linear(target, uncached):
    """8,000 properties and a `required` of 200,000 names (1 node, 1.5 MB of text).

    D2 (fixed during this work): gemini-jsonschema tested `name in required` on the
    list for every property (properties x len(required))."""
    schema = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string"} for i in range(8_000)},
        "required": [f"missing{i}" for i in range(200_000)] + [f"p{i}" for i in range(8_000)],
    }
    with bounded():
        result = wireschema.normalize(schema, target)
    # closing with `open: close` lists each missing name as a property: 200,000 more nodes
    lists_them = any(r.kind == "close-objects" and r.options["open"] == "close" for r in wireschema._target(target).rules)
    if lists_them:
        assert result.used_fallback and result.fallback_reason == "budget/nodes: the rewritten schema has more than 32768 nodes"
    else:
        assert budget_hit(result) is None


# D17 (fixed during this work): with budgets raised by the caller, recursive helpers hit
# Python's recursion limit (objects.accepts_null, the json.dumps of spilled values and of
# enum values compared for repeats); they keep their own stacks now
RAISED = {
    "arrays-via-items-3000": lambda: deep_items(3_000),
    "objects-via-properties-1500": lambda: deep_properties(1_500),
    "allOf-1500": lambda: deep_all_of(1_500),
    "anyOf-with-null-1500": lambda: deep_any_of(1_500),
    "not-1500": lambda: deep_keyword("not", 1_500),
    "lists-in-default-3000": lambda: in_literal("default", nested_lists(3_000)),
    "lists-in-enum-3000": lambda: in_literal("enum", [nested_lists(3_000)]),
}


@pytest.mark.parametrize("shape,target", [(shape, t) for shape in RAISED for t in TARGETS])
def test_raised_budgets_never_hit_the_recursion_limit(shape, target, uncached):
    """With the budgets raised by the caller (max_depth 50,000), thousands of levels still
    walk iteratively: a Result, no RecursionError (the work bound is generous here)."""
    opts = wireschema.Options(max_depth=50_000, max_nodes=1_000_000)
    schema = RAISED[shape]()
    with bounded(3 * WORK_LIMIT):
        result = wireschema.normalize(schema, target, options=opts)
    assert isinstance(result, wireschema.Result)
    assert budget_hit(result) is None


# -- output proportionate to the input ------------------------------------------


def one_of_chain(n, other=None):
    node = {"type": "string"}
    for _ in range(n):
        node = {"oneOf": [node, other or {"type": "integer"}]}
    return {"type": "object", "properties": {"x": node}}


def tuple_chain(n):
    node = {"type": "string"}
    for _ in range(n):
        node = {"type": "array", "prefixItems": [node, {"type": "integer"}]}
    return {"type": "object", "properties": {"x": node}}


PROPORTION = {
    "oneOf-chain-14": lambda: one_of_chain(14),
    "oneOf-of-objects-chain-12": lambda: one_of_chain(12, {"type": "object", "properties": {"q": {"type": "string"}}}),
    "tuple-chain-10": lambda: tuple_chain(10),
    "anyOf-with-null-chain-40": lambda: deep_any_of(40),
    "not-chain-40": lambda: deep_keyword("not", 40),
    "if-chain-40": lambda: deep_keyword("if", 40),
    "allOf-chain-40": lambda: deep_all_of(40),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(PROPORTION))
def test_output_size_is_proportionate(case, target, uncached):
    """(2) Budgets cap memory: a small input inside every budget never yields an output
    more than a constant factor larger (spilled text included).

    D18 (fixed during this work): cca-claude spilled each collapsed union as JSON text
    holding the spills of the unions below it, escaped again: ~4x per level (26 levels of
    a 943-byte oneOf chain gave 1.3 GB; 28 levels: MemoryError)."""
    import json

    schema = PROPORTION[case]()
    size_in = len(json.dumps(schema))
    with bounded():
        result = wireschema.normalize(schema, target)
    size_out = len(json.dumps(result.schema))
    assert size_out <= 50 * size_in + 64 * 1024, f"{size_in} bytes in, {size_out} bytes out"


# ---------------------------------------------------------------------------
# guarantee 1: what is not JSON raises SchemaInputError, for every target and API


def _cyclic_dict():
    d: dict = {"type": "object", "properties": {}}
    d["properties"]["self"] = d
    return d


def _cyclic_list():
    values: list = ["a"]
    values.append(values)
    return {"type": "object", "properties": {"e": {"enum": values}}}


def _cycle_through_both():
    inner: dict = {"anyOf": []}
    inner["anyOf"].append({"not": inner})
    return {"type": "object", "properties": {"x": inner}}


NOT_JSON = {
    "set-root": lambda: {"a", "b"},
    "set-in-enum": lambda: {"type": "object", "properties": {"e": {"enum": {1, 2}}}},
    "frozenset-in-type": lambda: {"type": frozenset(["object"])},
    "bytes-not-utf8-root": lambda: b"\xff\xfe\x00{",
    "bytes-utf16-root": lambda: '{"type": "object"}'.encode("utf-16"),
    "bytes-in-default": lambda: {"type": "object", "default": b"\xff"},
    "bytearray-in-description": lambda: {"type": "object", "description": bytearray(b"text")},
    "cyclic-dict": _cyclic_dict,
    "cyclic-list": _cyclic_list,
    "cycle-through-dict-and-list": _cycle_through_both,
    "int-key": lambda: {"type": "object", "properties": {1: {"type": "string"}}},
    "none-key": lambda: {None: "object"},
    "tuple-key": lambda: {"type": "object", "properties": {("a", "b"): {}}},
    "bool-key": lambda: {True: 1},
    # bytes have an isascii of their own: no string all the same
    "bytes-key": lambda: {"type": "object", "properties": {b"a": {"type": "string"}}},
    "nan": lambda: {"type": "object", "properties": {"n": {"type": "number", "minimum": float("nan")}}},
    "infinity": lambda: {"type": "object", "properties": {"n": {"type": "number", "maximum": float("inf")}}},
    "minus-infinity-in-enum": lambda: {"type": "object", "properties": {"n": {"enum": [1, float("-inf")]}}},
    "nan-in-default-list": lambda: {"type": "object", "default": [[float("nan")]]},
    "object-instance": lambda: {"type": "object", "default": object()},
    "object-root": lambda: object(),
    "tuple-root": lambda: ("type", "object"),
    "tuple-in-required": lambda: {"type": "object", "required": ("a",)},
    "decimal": lambda: {"type": "number", "multipleOf": decimal.Decimal("0.1")},
    "complex": lambda: {"type": "number", "minimum": 1j},
    "function": lambda: {"type": "object", "default": len},
}


def _deep_then_cycle():
    root = deep_properties(100)
    node = root
    while "properties" in node:
        node = node["properties"]["a"]
    node["properties"] = {"back": root}
    return root


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(NOT_JSON))
def test_not_json_raises_schema_input_error(case, target):
    schema = NOT_JSON[case]()
    with bounded():
        with pytest.raises(SchemaInputError):
            wireschema.normalize(schema, target)
        with pytest.raises(SchemaInputError):
            wireschema.check(schema, target)
        with pytest.raises(SchemaInputError):
            wireschema.normalize_output(schema, target)



@pytest.mark.parametrize(
    "case,target",
    [
        pytest.param(c, t, id=f"{c}-{t}")
        for c in sorted(NOT_JSON)
        for t in TARGETS
    ],
)
def test_not_json_in_a_tool_list_falls_back_alone(case, target):
    """(7) normalize_tools turns a non-JSON schema into that tool's fallback."""
    schema = NOT_JSON[case]()
    if isinstance(schema, (bytes, bytearray)):
        pytest.skip("bytes are JSON text here, not a schema object")
    tools = [
        {"type": "function", "function": {"name": "good", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}},
        {"type": "function", "function": {"name": "bad", "parameters": schema}},
    ]
    result = wireschema.normalize_tools(tools, target)
    assert result.results[1].used_fallback and not result.results[1].strict
    alone = wireschema.normalize_tools(tools[:1], target)
    assert result.results[0] == alone.results[0]
    assert result.tools[0] == alone.tools[0]


NAN_ALLOWED = {
    "nan": lambda: {"type": "object", "properties": {"n": {"type": "number", "minimum": float("nan")}}},
    "infinity-in-enum": lambda: {"type": "object", "properties": {"n": {"enum": [1, float("inf")]}}},
    "text-NaN": lambda: '{"type": "object", "properties": {"n": {"type": "number", "maximum": NaN}}}',
    "text-minus-Infinity": lambda: '{"type": "object", "properties": {"n": {"default": -Infinity}}}',
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "case,build",
    [
        ("cycle-below-the-depth-budget", lambda: _deep_then_cycle()),
        ("set-below-the-depth-budget", lambda: _deep_then({"enum": {1}})),
        ("nan-below-the-depth-budget", lambda: _deep_then({"minimum": float("nan")})),
    ],
)
def test_not_json_beyond_the_depth_budget(case, build, target):
    """Non-JSON content deeper than the walk goes: it is never reached, so either answer
    is right (SchemaInputError, or the budget/depth fallback), but nothing else."""
    schema = build()
    try:
        result = wireschema.normalize(schema, target)
    except SchemaInputError:
        return
    assert_budget(result, "budget/depth")


def _deep_then(leaf):
    root = deep_properties(200)
    node = root
    while "properties" in node:
        node = node["properties"]["a"]
    node.update(leaf)
    return root


JSON_TEXT_BEYOND_PYTHON = {
    "number-beyond-float-range": '{"type": "object", "properties": {"n": {"maximum": 1e400}}}',
    "integer-of-10000-digits": '{"type": "object", "properties": {"n": {"maximum": ' + "9" * 10_000 + "}}}",
    "10000-nested-arrays": '{"type": "object", "default": ' + "[" * 10_000 + "]" * 10_000 + "}",
    "100000-nested-objects": '{"a":' * 100_000 + "1" + "}" * 100_000,
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(JSON_TEXT_BEYOND_PYTHON))
def test_json_text_beyond_what_python_reads(case, target):
    """Valid JSON text that Python's reader refuses (float overflow to inf, the int digit
    limit, its recursion limit): SchemaInputError or a Result, never anything else."""
    with bounded():
        try:
            result = wireschema.normalize(JSON_TEXT_BEYOND_PYTHON[case], target)
        except SchemaInputError:
            return
    assert isinstance(result, wireschema.Result)


def test_json_text_past_pythons_reader_says_where_and_why():
    """It said "schema text is not JSON: maximum recursion depth exceeded ...", of JSON
    text; the command line's reader said where and why."""
    # nesting past every CPython's reader (3.13's reads deeper than 3.11's)
    said = {
        "100000-nested-objects": "schema text at line 1, column 499996: nested 100,000 levels deep, more than the JSON reader can follow",
        "integer-of-10000-digits": "schema text at line 1, column 52: an integer of 10,000 digits (more than Python reads: 4,300)",
    }
    for case, message in said.items():
        with pytest.raises(SchemaInputError, match=f"^{re.escape(message)}$"):
            wireschema.normalize(JSON_TEXT_BEYOND_PYTHON[case], "gemini")
    with pytest.raises(SchemaInputError, match="^the request body text at line 1, column 100010: nested 100,001 levels deep"):
        wireschema.normalize_request('{"tools": ' + "[" * 100_000 + "]" * 100_000 + "}", "gemini")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(NAN_ALLOWED))
def test_allow_nan_accepts_nan_and_infinity(case, target):
    schema = NAN_ALLOWED[case]()
    with pytest.raises(SchemaInputError):
        wireschema.normalize(schema, target)
    result = wireschema.normalize(schema, target, options=wireschema.Options(allow_nan=True))
    assert isinstance(result, wireschema.Result)


NOT_JSON_TEXT = {
    "empty": "",
    "whitespace": "  \n ",
    "truncated": '{"type": "object", "properties": {',
    "single-quotes": "{'type': 'object'}",
    "trailing-comma": '{"type": "object",}',
    "trailing-garbage": '{"type": "object"} x',
    "two-documents": '{"type": "object"}{"type": "object"}',
    "bare-word": "object",
    "comment": '{"type": "object" /* c */}',
    "NaN": '{"minimum": NaN}',
    "Infinity": '{"maximum": Infinity}',
    "minus-Infinity": "-Infinity",
    "unterminated-string": '{"description": "abc',
    "control-char-in-string": '{"description": "a\x01b"}',
    "bad-escape": '{"description": "\\x41"}',
    "bytes-latin1": '{"description": "caf\xe9"}'.encode("latin-1"),
    "bytes-lone-continuation": b'{"description": "\x80"}',
    "bytes-truncated-utf8": b'{"description": "\xe2\x82"}',
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(NOT_JSON_TEXT))
def test_text_that_is_not_json_raises_schema_input_error(case, target):
    with bounded():
        with pytest.raises(SchemaInputError):
            wireschema.normalize(NOT_JSON_TEXT[case], target)
        with pytest.raises(SchemaInputError):
            wireschema.check(NOT_JSON_TEXT[case], target)


def test_a_byte_order_mark_before_json_text_is_ignored_as_the_command_line_ignores_it():
    """RFC 8259 lets a reader ignore it, Python's own reader of bytes does, and files saved
    on Windows carry it; anywhere else it is no JSON."""
    for text in ('\ufeff{"type": "object"}', b'\xef\xbb\xbf{"type": "object"}'):
        assert wireschema.normalize(text, "gemini").schema == {"type": "object"}
        assert wireschema.check(text, "gemini") == ()
    with pytest.raises(SchemaInputError):
        wireschema.normalize('{"description": "a"}\ufeff', "gemini")


JSON_VALUES_NOT_SCHEMAS = [None, 0, -1.5, "\"text\"", "[]", [], [1, {"type": "object"}], "null", 2**200]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("value", JSON_VALUES_NOT_SCHEMAS, ids=repr)
def test_json_that_is_not_a_schema_is_a_reported_fallback(value, target):
    """(1) Any JSON value gives a Result: a value that is no schema falls back."""
    result = wireschema.normalize(value, target)
    assert result.used_fallback
    assert result.fallback_reason.startswith("input/")
    assert_sound_result(value, target, result)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("type_list", [[[], "string"], [{}], [["string"], "null"], [None, "string"]], ids=repr)
def test_a_type_list_holding_no_names_is_a_result_not_a_type_error(type_list, target):
    """A list or object among a type list's names: an enum rule's cheap test, the
    keyword-shapes check and the names an object's propertyNames admit looked each name
    up in a set, and a list is unhashable."""
    for schema in ({"type": "object", "properties": {"a": {"type": type_list, "enum": ["x"]}}},
                   {"type": "object", "properties": {}, "propertyNames": {"type": type_list}, "minProperties": 1}):
        for call in (wireschema.normalize, wireschema.normalize_output):
            assert_sound_result(schema, target, call(schema, target))
        assert wireschema.check(schema, target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("node", [{"required": 1}, {"required": [[], "a"]}, {"enum": 1}, {"type": "string", "enum": {}}], ids=repr)
def test_check_goes_on_past_a_finding_without_reading_the_value_it_refused(node, target):
    """`check` collects every finding where `normalize` stops at the first: a check
    that went on read the value it had refused (iterating the int, hashing the list)."""
    schema = {"type": "object", "properties": {"a": {"type": "object", "properties": {}, **node}}}
    assert wireschema.check(schema, target)


MALFORMED = [("contentMediaType", {"a": 1}), ("contentEncoding", 5), ("$schema", 5), ("$dynamicAnchor", []),
             ("dependentRequired", "b"), ("dependentRequired", {"a": "b"}), ("$anchor", "#/$defs/A")]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("keyword,value", MALFORMED, ids=repr)
def test_a_keyword_of_no_value_its_draft_takes_is_never_sent_as_written(keyword, value, target):
    """The 2020-12 meta-schema refuses each (a media type that is no string, a
    dependentRequired that is no map of name lists); they went to the wire as written."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string", keyword: value}}}
    result = wireschema.normalize(schema, target)
    assert f'"{keyword}": {json.dumps(value)}' not in json.dumps(result.schema)
    assert_sound_result(schema, target, result)


# ---------------------------------------------------------------------------
# guarantee 1: values Python can hold but cannot print


@pytest.mark.parametrize("target", TARGETS)
def test_integer_longer_than_python_prints(target):
    """A 5,001-digit integer is a JSON number: a Result (or SchemaInputError), never a
    bare ValueError. Targets that spill `maximum` render it into a description.

    D3 (fixed during this work): the spill's json.dumps raised the int-to-str ValueError."""
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 10**5000}}}
    try:
        result = wireschema.normalize(schema, target)
    except SchemaInputError:
        return
    assert isinstance(result, wireschema.Result)


# ---------------------------------------------------------------------------
# guarantee 3: the caller's input is never mutated, by any API, on hostile input

_OWN_SHAPE_DEEP_COPY = ("generic", "openai-chat", "openai-strict", "openai-strict-compat")

def _body_at(path: str, value):
    parts = path[2:].split(".")
    body = value
    for part in reversed(parts):
        body = {part[:-3]: [body]} if part.endswith("[*]") else {part: body}
    return body


API_DEPTH = 2_000  # beyond the depth budget and beyond Python's recursion limit
APIS = ("normalize", "normalize_tool", "normalize_tools", "normalize_request", "normalize_output-object", "normalize_output-array")


def _call(api: str, target: str, depth: int = API_DEPTH):
    """Run one API on a deep schema; return (input, results)."""
    if api == "normalize":
        schema = deep_properties(depth)
        return schema, [wireschema.normalize(schema, target) for _ in range(3)]  # met twice, then a hit
    if api.startswith("normalize_output"):
        schema = deep_properties(depth) if api.endswith("object") else deep_items(depth)
        return schema, [wireschema.normalize_output(schema, target) for _ in range(3)]
    tool = {"type": "function", "function": {"name": "deep", "parameters": deep_properties(depth)}}
    if api == "normalize_tool":
        return tool, [wireschema.normalize_tool(tool, target).result]
    if api == "normalize_tools":
        tools = [tool, {"type": "function", "function": {"name": "fine", "parameters": {"type": "object"}}}]
        return tools, list(wireschema.normalize_tools(tools, target).results[:1])
    compiled = wireschema._target(target)
    body: dict = {}
    for path in compiled.locate.get("tools", ()):
        body.update(_body_at(path, [tool]))
    for path in compiled.locate.get("outputs", ()):
        body.update(_body_at(path, deep_items(depth)))
    result = wireschema.normalize_request(body, target)
    return body, [r for group in result.tools for r in group.results] + list(result.outputs)


def _rebuild(api: str, depth: int = API_DEPTH):
    """The same input again, built afresh (the builders are deterministic)."""
    if api == "normalize" or api == "normalize_output-object":
        return deep_properties(depth)
    if api == "normalize_output-array":
        return deep_items(depth)
    return None


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("api", APIS)
def test_deep_input_through_every_api(api, target):
    """(1, 2, 3) Every API on input nested beyond the budget and beyond Python's
    recursion limit: a budget/depth fallback, nothing raised, the caller's object
    unchanged (the third call is a cache hit).

    D12, D13, D14 (fixed during this work): build_tool, normalize_request and
    normalize_output's wrap() copy.deepcopy()ed the caller's objects: RecursionError."""
    holder: list = []
    with bounded():
        holder.append(_call(api, target))
    value, results = holder[0]
    assert results
    for result in results:
        assert_budget(result, "budget/depth", output=api.startswith("normalize_output"))
    reference = _rebuild(api)
    if reference is not None:
        assert fingerprint(value) == fingerprint(reference)


@pytest.mark.parametrize(
    "api,target",
    [
        ("normalize_tool", "openai-chat"),
        ("normalize_request", "anthropic"),
        ("normalize_output-array", "openai-strict"),
        ("normalize", "openai-chat"),
    ],
)
def test_copies_of_deep_input_are_linear(api, target):
    """(2) 20,000 levels through the APIs that copy the caller's object first."""
    with bounded():
        _value, results = _call(api, target, depth=20_000)
    for result in results:
        assert_budget(result, "budget/depth")


@pytest.mark.parametrize("target", TARGETS)
def test_hostile_inputs_are_not_mutated_by_any_api(target):
    """(3) Bombs, cycles and wide inputs through every API and a cache hit: the caller's
    objects compare bit-for-bit equal to a copy taken before."""
    inputs = [
        ref_bomb(20),
        ref_bomb(20, sibling="description"),
        *copy.deepcopy(list(CYCLES.values())),
        _enum([i if i % 3 else str(i % 100) for i in range(10_000)] + [None, True, 1.0, {"a": [1]}]),
        {"$ref": "#/$defs/A", "$defs": {"A": {"type": "object", "properties": {"a": {"$ref": "#"}}}}},
        {"type": "object", "properties": {"a": {"type": "integer", "maximum": 10**300, "default": -0.0}}},
    ]
    for schema in inputs:
        before = fingerprint(schema)
        copy_before = copy.deepcopy(schema)
        wireschema.normalize(schema, target)
        wireschema.normalize(schema, target)  # stored (met twice)
        wireschema.normalize(schema, target)  # a cache hit
        wireschema.normalize(schema, target, strict=True)
        wireschema.normalize(schema, target, strict=False)
        wireschema.check(schema, target)
        wireschema.normalize_output(schema, target)
        tool = {"name": "t", "description": "d", "input_schema": schema}
        tool_before = fingerprint(tool)
        wireschema.normalize_tool(tool, target)
        wireschema.normalize_tools([tool, tool], target)
        assert fingerprint(tool) == tool_before
        body = {"tools": [tool]}
        body_before = fingerprint(body)
        try:
            wireschema.normalize_request(body, target)
        except WireschemaError:
            pass
        assert fingerprint(body) == body_before
        assert fingerprint(schema) == before
        assert schema == copy_before


@pytest.mark.parametrize("target", TARGETS)
def test_results_are_independent_of_each_other_and_of_the_input(target):
    """Mutating a returned schema changes neither the caller's input, nor a later result
    (a cache hit hands out a fresh copy)."""
    schema = {"type": "object", "properties": {"a": {"type": ["string", "null"], "enum": ["x", None]}}, "required": []}
    before = fingerprint(schema)
    first = wireschema.normalize(schema, target)
    expected = fingerprint(first.schema)
    first.schema.clear() if isinstance(first.schema, dict) else None
    second = wireschema.normalize(schema, target)
    assert fingerprint(second.schema) == expected
    assert fingerprint(schema) == before


# ---------------------------------------------------------------------------
# check() on hostile input

@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "case,build,options",
    [
        ("depth", lambda: deep_properties(), None),
        ("nodes", lambda: BEYOND_CASES["properties-40000"][1](), None),
        ("literal", lambda: {"type": "object", "description": "x" * 200}, wireschema.Options(max_literal_bytes=100)),
        ("ref-bomb", lambda: ref_bomb(40), None),
        ("cycle", lambda: copy.deepcopy(CYCLES["ten-definitions-in-a-ring"]), None),
    ],
)
def test_check_on_hostile_input_returns_findings(case, build, options, target):
    """D16 (fixed during this work): check() let the internal BudgetExceeded escape."""
    schema = build()
    with bounded():
        try:
            found = wireschema.check(schema, target, options=options)
        except SchemaInputError:
            pytest.fail("a JSON value is not a SchemaInputError")
    assert isinstance(found, tuple)


# ---------------------------------------------------------------------------
# guarantee 8: rule files are data (what tests/test_rule_files.py does not cover yet)


def _load(tmp_path, name: str, text: str):
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return wireschema.load_rules(path)


@pytest.mark.parametrize(
    "tag",
    [
        "!!python/object/new:os.system [touch {marker}]",
        "!!python/object/apply:subprocess.call [[touch, {marker}]]",
        "!!python/module:os",
        "!!python/object:os.PathLike {{}}",
        "!!python/name:os.system",
        "!include {marker}",
        "!!set {{a: null}}",
        "!!binary aGk=",
        "!!omap [{{a: 1}}]",
        "!!pairs [{{a: 1}}]",
    ],
)
def test_rule_file_tags_are_never_constructed(tmp_path, tag):
    marker = tmp_path / "ran"
    with pytest.raises(wireschema.RuleFileError):
        _load(tmp_path, "tagged", "extends: gemini\ndescription: x\nfallback: " + tag.format(marker=marker) + "\n")
    assert not marker.exists()


@pytest.mark.parametrize(
    "name",
    ["gemini\x00", "./gemini", "gemini/", "%2e%2e/x", "~/x", "C:\\x", "\u2024\u2024/x", " gemini", "gemini ",
     "..", "...", "a/../gemini", "$HOME", "*", "gem*", "file:///etc/passwd", "\\\\server\\share\\x", "/work/main/rules/gemini"],
)
def test_extends_never_leaves_the_rule_directories(tmp_path, name):
    outside = tmp_path / "x.yaml"
    outside.write_text("description: outside\nextends: gemini\n", encoding="utf-8")
    users = tmp_path / "users"
    users.mkdir()
    (users / "mine.yaml").write_text(f"description: mine\nextends: {json.dumps(name)}\n", encoding="utf-8")
    with pytest.raises(wireschema.RuleFileError):
        wireschema.load_rules(users / "mine.yaml")


@pytest.mark.parametrize(
    "name",
    [
        "../rules/gemini", "rules/gemini", "gemini.yaml", "/work/main/rules/gemini.yaml", "_base", "", "_vocabulary",
    ],
)
def test_target_names_are_never_paths(name):
    with pytest.raises(wireschema.UnknownTargetError):
        wireschema.normalize({"type": "object"}, name)


def test_rule_file_alias_bomb_stays_small(tmp_path):
    import tracemalloc

    text = "description: x\nextends: gemini\nfallback:\n  type: object\n  default: &a0 [l, l, l, l, l, l, l, l, l]\n  examples:\n"
    for i in range(1, 6):
        text += f"    - &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n"
    wireschema.targets()  # the shipped registry is not part of the measurement
    tracemalloc.start()
    try:
        with bounded():
            try:
                _load(tmp_path, "bomb", text)
            except wireschema.RuleFileError:
                pass  # refusing aliases is a fine answer too
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, f"{peak / 2**20:.0f} MB for a {len(text)}-byte rule file"


@pytest.mark.parametrize(
    "text",
    [
        "extends: gemini\ndescription: x\nfallback: " + "[" * 5_000 + "]" * 5_000 + "\n",
        "extends: gemini\ndescription: x\nfallback:\n" + "".join("  " * i + "- \n" for i in range(1, 3_000)),
    ],
    ids=["flow", "block"],
)
def test_deeply_nested_rule_file_is_a_rule_file_error(tmp_path, text):
    with bounded():
        try:
            _load(tmp_path, "deep", text)
        except wireschema.RuleFileError:
            pass


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_rule_file_floats_must_be_json(tmp_path, value):
    try:
        rules = _load(tmp_path, "floaty", f"extends: gemini\ndescription: x\nfallback: {{type: object, default: {value}}}\n")
    except wireschema.RuleFileError:
        return
    result = wireschema.normalize({"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}}, rules["floaty"])
    assert result.used_fallback
    json.dumps(result.schema, allow_nan=False)


@pytest.mark.parametrize(
    "case,where",
    [
        ("cyclic-dict", "the object at /properties/self is the object at / again"),
        ("cyclic-list", "the array at /properties/e/enum/1 is the array at /properties/e/enum again"),
        ("cycle-through-dict-and-list", "the object at /properties/x/anyOf/0/not is the object at /properties/x again"),
    ],
)
def test_a_cycle_is_named_by_where_it_closes(case, where):
    """The error names the container met again and where it was first: the shortest way
    round the cycle, not the path the copy took until its depth budget ran out."""
    with pytest.raises(SchemaInputError) as caught:
        wireschema.normalize(NOT_JSON[case](), "gemini")
    assert str(caught.value) == f"cyclic container: {where}"


def test_a_cycle_behind_a_shared_subtree_is_found_in_time_linear_in_the_containers():
    """Each level holds the one below twice (2**40 paths); the ring is at the bottom."""
    bottom: dict = {"type": "object", "properties": {}}
    bottom["properties"]["back"] = bottom
    node = bottom
    for _ in range(40):
        node = {"anyOf": [node, node]}
    with bounded():
        with pytest.raises(SchemaInputError, match="^cyclic container: the object at /properties/x(/anyOf/0){40}/properties/back is the object at /properties/x(/anyOf/0){40} again$"):
            wireschema.normalize({"type": "object", "properties": {"x": node}}, "mcp")


def test_a_number_past_a_floats_range_says_why_it_is_refused():
    """`1e400` is a JSON number, but Python reads it as infinity, which no wire's JSON carries."""
    for text in ('{"type": "object", "properties": {"n": {"type": "number", "maximum": 1e400}}}',
                 '{"type": "object", "properties": {"n": {"enum": [1, -1e400]}}}'):
        with pytest.raises(SchemaInputError, match=r" at /properties/n/(maximum|enum/1) is not JSON \(a number past a float's range"):
            wireschema.normalize(text, "openai-strict")
    with pytest.raises(SchemaInputError, match=r"^nan at /properties/n/minimum is not JSON$"):
        wireschema.normalize(NOT_JSON["nan"](), "openai-strict")


# ---------------------------------------------------------------------------
# strings no UTF-8 text holds: JSON text's "\ud83d" (half of an emoji a JavaScript slice
# cut) reads as a lone surrogate, which the SDKs' HTTP clients cannot encode (httpx writes
# the body as UTF-8) and would refuse at send time, saying nowhere which tool or field

_CUT = json.loads(
    '{"type": "object", "description": "Reads a file \\ud83d",'
    ' "properties": {"p\\udc00": {"type": "string", "enum": ["a\\ud800", "a\\ud801"]},'
    ' "q": {"type": "string", "enum": ["x", 1, "y\\ud800"], "description": "ok \\ud83d\\ude00"},'
    ' "r": {"anyOf": [{"type": "string"}, {"const": "z\\udfff"}], "default": "d\\ud800"}},'
    ' "required": ["p\\udc00"]}'
)


@pytest.mark.parametrize("target", TARGETS)
def test_a_lone_surrogate_is_written_as_its_escape_and_reported_on_every_target(target):
    before = fingerprint(_CUT)
    result = wireschema.normalize(_CUT, target)
    assert fingerprint(_CUT) == before
    json.dumps(result.schema, ensure_ascii=False).encode("utf-8")  # what httpx sends
    mended = {c.pointer: c.detail for c in result.changes if c.rule == "input/text"}
    assert mended["/description"] == '"Reads a file \\ud83d": 1 lone surrogate (half of a character, which no UTF-8 text holds) written as its JSON escape'
    # a property name keeps its own name, told apart from any other: required still names it
    assert mended["/properties/p\\udc00"].startswith('object key "p\\udc00"')
    for pointer in ("/required/0", "/properties/p\\udc00/enum/0", "/properties/p\\udc00/enum/1",
                    "/properties/q/enum/2", "/properties/r/anyOf/1/const", "/properties/r/default"):
        assert pointer in mended
    assert all(c.pointer.encode("utf-8") and c.detail.encode("utf-8") for c in result.changes)
    if not result.used_fallback:
        text = json.dumps(result.schema, ensure_ascii=False)
        assert "\\\\ud83d" in text and "\\\\udc00" in text and "\ud83d" not in text


def test_what_a_mended_string_becomes():
    result = wireschema.normalize(_CUT, "mcp")
    props = result.schema["properties"]
    assert result.schema["description"] == "Reads a file \\ud83d"
    assert props["p\\udc00"]["enum"] == ["a\\ud800", "a\\ud801"]  # still two values
    assert result.schema["required"] == ["p\\udc00"]
    assert props["q"] == {"type": "string", "enum": ["x", 1, "y\\ud800"], "description": "ok \U0001f600"}
    assert props["r"]["default"] == "d\\ud800" and props["r"]["anyOf"][1] == {"const": "z\\udfff"}


def test_a_surrogate_pair_held_as_two_characters_is_the_character_it_encodes():
    schema = {"type": "object", "properties": {"a": {"type": "string", "description": "smile \ud83d\ude00"}}}
    result = wireschema.normalize(schema, "gemini")
    assert result.schema["properties"]["a"]["description"] == "smile \U0001f600"
    (change,) = [c for c in result.changes if c.rule == "input/text"]
    assert change.pointer == "/properties/a/description" and "1 surrogate pair held as two characters joined" in change.detail


def test_plain_text_is_left_alone():
    schema = {"type": "object", "description": "café ☕ \U0001f600 \ufffd", "properties": {"é": {"enum": ["ü", "\\ud800"]}}}
    result = wireschema.normalize(schema, "mcp")
    assert result.schema == schema and not [c for c in result.changes if c.rule == "input/text"]


def test_a_key_that_once_written_as_utf8_is_another_key_is_refused_by_name():
    schema = {"type": "object", "properties": {"a\ud800": {}, "a\\ud800": {}}}
    with pytest.raises(SchemaInputError, match=r'^object key "a\\ud800" at /properties holds a surrogate, and written as UTF-8'):
        wireschema.normalize(schema, "mcp")


def test_a_tools_description_is_mended_and_reported():
    tool = {"type": "function", "function": {"name": "read", "description": "Reads \ud83d", "parameters": {"type": "object"}}}
    for target in ("openai-chat", "anthropic", "gemini"):
        out = wireschema.normalize_tools([tool], target)
        sent = json.dumps(out.tools[0], ensure_ascii=False).encode("utf-8").decode("utf-8")
        assert "Reads \\\\ud83d" in sent
        assert out.results[0].changes[0] == wireschema.Change(
            "tool/text", "", "rewritten",
            'the tool\'s description "Reads \\ud83d": 1 lone surrogate (half of a character, which no UTF-8 text holds) written as its JSON escape')
    assert tool["function"]["description"] == "Reads \ud83d"


def test_a_kept_tools_other_fields_are_mended_and_reported():
    tool = {"name": "m", "description": "ok", "inputSchema": {"type": "object"},
            "annotations": {"title": "Cut \ud83d", "k\udc00": 1, "tags": ["a", "b\ud800"]}}
    out = wireschema.normalize_tool(tool, "mcp")
    assert out.tool["annotations"] == {"title": "Cut \\ud83d", "k\\udc00": 1, "tags": ["a", "b\\ud800"]}
    said = [c.detail.split(": ", 1)[0] for c in out.result.changes if c.rule == "tool/text"]
    assert sorted(said) == ["the tool's annotations.k\\udc00", "the tool's annotations.tags.1", "the tool's annotations.title"]
    assert tool["annotations"]["title"] == "Cut \ud83d"  # the caller's tool is not touched
    plain = {"name": "m", "description": "café", "inputSchema": {"type": "object"}, "annotations": {"title": "é ☕"}}
    assert wireschema.normalize_tool(plain, "mcp").result.changes == ()


def test_check_and_bypass_report_it_too():
    schema = {"type": "object", "description": "cut \ud83d"}
    assert [c.rule for c in wireschema.check(schema, "mcp")] == ["input/text"]
    bypassed = wireschema.normalize(schema, "mcp", options=wireschema.Options(bypass=True))
    assert bypassed.schema["description"] == "cut \\ud83d"
    assert [c.rule for c in bypassed.changes] == ["bypass", "input/text"]


def test_a_schema_lifted_into_a_copy_of_itself_is_cut_and_reported():
    schema = CYCLES["recursive-ref-in-dependentSchemas-lifted-beside-unevaluated-properties"]
    result = wireschema.normalize(schema, "anthropic-strict")
    assert result.strict
    v = result.schema["$defs"]["E"]["properties"]["v"]
    # lifted once, as a copy; lifted again inside that copy: cut to any value, with a note
    cut = v["properties"]["v"]["properties"]["v"]
    assert cut == {"description": "(recursive /$defs/E/properties/v: cut where it is lifted again)"}
    assert any(
        c.action == "dropped" and c.pointer == "/$defs/E/properties/v/properties" and "recursion through /$defs/E/properties/v" in c.detail
        for c in result.changes
    )
