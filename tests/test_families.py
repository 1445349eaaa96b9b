"""Hostile input by class (issue 15): each class is a generator, not one example.

A family grows its input 10x per step (or draws it with hypothesis) and states what
must hold at every size: no exception but the documented ones, a result within a time
and memory bound that stays flat once the input is past a budget, a fallback that names
the budget, an output that serializes and settles (normalized again for its own wire it
changes nothing and never falls back).

Sizes are small by default (the issue's own sizes on the targets where it found each
defect, the smaller steps on every target), so the file runs in about a minute on two
cores; `WIRESCHEMA_FAMILIES=long` adds the next 10x step on every target (and more
hypothesis examples). Each case runs in-process under an interval timer; memory is
measured with tracemalloc around a second call alone, where a case is past a budget
(on one target or API by default, as tracing slows every allocation).
"""

from __future__ import annotations

import json
import os
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wireschema
from conftest import bounded, calls_of
from wireschema.errors import OptionsError, SchemaInputError

TARGETS = [t.name for t in wireschema.targets()]
LONG = os.environ.get("WIRESCHEMA_FAMILIES") == "long"
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PROFILE = settings(
    max_examples=300 if LONG else 40,
    deadline=None,
    derandomize=not LONG,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def sizes(*steps: int) -> list[int]:
    """The sizes of a family: the given steps, and one more 10x step when run long."""
    return [*steps, steps[-1] * 10] if LONG else list(steps)


@pytest.fixture
def uncached(monkeypatch):
    monkeypatch.setenv("WIRESCHEMA_NO_CACHE", "1")


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# ---------------------------------------------------------------------------
# A: Options fields of the wrong type or out of range are one clear error

_FIELDS = ("max_depth", "max_nodes", "max_literal_bytes", "strict", "spill", "bypass", "allow_nan")
_ANY = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.integers(10**6, 10**30), st.floats(allow_nan=True),
    st.text(max_size=3), st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)


def _valid(field: str, value) -> bool:
    if field.startswith("max_"):
        return value.__class__ is int and value >= 1
    if field == "strict":
        return value is None or value.__class__ is bool
    return value.__class__ is bool


@PROFILE
@given(st.sampled_from(_FIELDS), _ANY)
def test_options_fields_are_checked_when_made(field, value):
    """Any value for any field: a valid Options, or OptionsError naming the field (never a
    TypeError from deep inside a run)."""
    if _valid(field, value):
        opts = wireschema.Options(**{field: value})
        assert getattr(opts, field) is value
        assert isinstance(wireschema.normalize({"type": "object"}, "gemini", options=opts), wireschema.Result)
        return
    with pytest.raises(OptionsError) as info:
        wireschema.Options(**{field: value})
    assert f"Options.{field}" in str(info.value)
    assert isinstance(info.value, (TypeError, ValueError)) and isinstance(info.value, wireschema.WireschemaError)


@pytest.mark.parametrize("options", [{"max_depth": 5}, 5, "Options()", object()], ids=["dict", "int", "str", "object"])
def test_options_that_are_no_options_object_are_refused(options):
    for call in (
        lambda: wireschema.normalize({"type": "object"}, "gemini", options=options),
        lambda: wireschema.check({"type": "object"}, "gemini", options=options),
        lambda: wireschema.normalize_output({"type": "object"}, "gemini", options=options),
        lambda: wireschema.normalize_tools([{"name": "t", "input_schema": {"type": "object"}}], "anthropic", options=options),
    ):
        with pytest.raises(OptionsError):
            call()


# ---------------------------------------------------------------------------
# A: malformed references are reported unresolved references, never an exception

# what a reference may hold that resolution must read without raising: digits that
# str.isdigit() takes but int() refuses or RFC 6901 does not count, URIs urllib cannot
# parse, lone surrogates (raw and percent-encoded), bytes that are no UTF-8, escapes
# RFC 6901 does not define, and digit runs past Python's int-to-str limit
_TOKENS = st.sampled_from(
    ["²", "١", "01", "-1", "1e3", "０", "\ud800", "\udfff", "%ED%A0%80", "%FF", "%", "%2", "%24defs", "~2", "~", "a b",
     "$defs", "definitions", "anyOf", "0", "1", "A", "é", "\x00"]
) | st.integers(1, 4).map(lambda k: "7" * 10**k)
_URIS = st.sampled_from(
    ["http://[::1", "http://[::1]:x/", "https://a/b#", "urn:x", "urn:", "#", "", "//", "http://a:-1/", "file:///", "\ud800:x",
     "http://[v1.x]/", "https://h/%ED%A0%80", "mailto:", "http://a/../../x"]
)


@st.composite
def malformed_references(draw):
    tokens = draw(st.lists(_TOKENS, min_size=1, max_size=3))
    pointer = "#/" + "/".join(tokens)
    uri = draw(_URIS)
    ref = draw(st.sampled_from([pointer, uri, uri + pointer[1:], "#" + tokens[0], pointer + "/", "#/$defs/" + tokens[0]]))
    keyword = draw(st.sampled_from(["$ref", "$dynamicRef", "$recursiveRef", "$id", "$anchor", "$dynamicAnchor"]))
    holder = {keyword: ref}
    if draw(st.booleans()):
        holder["description"] = "d"
    defs = {t: {"type": "string"} for t in tokens if len(t) < 100}
    schema = {"type": "object", "properties": {"a": holder, "b": {"$ref": draw(st.sampled_from([pointer, "#/$defs/" + tokens[-1]]))}},
              "anyOf": [{"type": "object"}], "$defs": defs}
    if draw(st.booleans()):
        schema["$id"] = draw(_URIS)
    return schema


@PROFILE
@given(malformed_references(), st.sampled_from(TARGETS))
def test_malformed_references_are_reported_never_raised(schema, target):
    """Every API that reads references, on references urllib, RFC 6901 or UTF-8 cannot
    read: a Result (an unresolved reference is a reported fallback or a dropped $ref,
    as the target says), serializable, passing its wire's checks; restore and validate
    return, never raise."""
    result = wireschema.normalize(schema, target)
    json.dumps(result.schema, allow_nan=False)
    wire = _effective(target, result)
    assert wireschema.check(result.schema, wire) == ()
    if result.used_fallback:
        assert result.fallback_reason and len(result.fallback_reason) < 1_000  # a 10,000-digit token is cut
    for value in ({"a": "x"}, {"a": 1, "b": None}):
        result.restore(value)
        assert isinstance(result.validate(value), tuple)
    assert isinstance(result.validate('{"a": "x"'), tuple)  # not JSON: one Issue
    assert isinstance(wireschema.normalize_output(schema, target), wireschema.Result)
    assert isinstance(wireschema.check(schema, target), tuple)


@pytest.mark.parametrize("digits", sizes(10, 100, 1_000, 10_000))
@pytest.mark.parametrize("target", TARGETS)
def test_pointer_tokens_of_growing_digit_runs(digits, target):
    """An array index of 10 to 10,000 digits (past int()'s 4,300) names no item: the
    reference is unresolved, reported, in the same time at every size."""
    schema = {"type": "object", "anyOf": [{"type": "object"}], "properties": {"a": {"$ref": "#/anyOf/" + "9" * digits}}}
    with bounded():
        result = wireschema.normalize(schema, target)
    assert result.used_fallback or any(c.rule.endswith("resolve-refs") for c in result.changes)


def _effective(target: str, result: wireschema.Result) -> str:
    compiled = wireschema._target(target)
    return compiled.fail_open if compiled.strict and not result.strict else target


# ---------------------------------------------------------------------------
# helpers for the families below


def peak_of(call) -> tuple[object, int]:
    """(result, peak bytes allocated during `call()`), traced by tracemalloc."""
    tracemalloc.start()
    try:
        result = call()
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def measured(call, memory: bool = True):
    """(result, Python calls, peak bytes): the calls counted after a warming run (see
    `calls_of`), then (with `memory`) the peak of one more run."""
    result, calls = calls_of(call)
    return result, calls, peak_of(call)[1] if memory else 0


def budget_of(result: wireschema.Result) -> str | None:
    for change in result.changes:
        if change.action == "fallback" and change.rule.startswith("budget/"):
            return change.rule
    return None


def assert_settles(schema, target: str, result: wireschema.Result | None = None) -> wireschema.Result:
    """The output serializes, passes its wire's checks, and normalized again for that
    wire is the same bytes, never a fallback."""
    result = result or wireschema.normalize(schema, target)
    text = dumps(result.schema)
    wire = _effective(target, result)
    assert wireschema.check(result.schema, wire) == ()
    again = wireschema.normalize(result.schema, wire)
    assert not again.used_fallback, f"{target}: the output falls back on {wire}: {again.fallback_reason}"
    assert dumps(again.schema) == text, f"{target}: not a fixed point on {wire}"
    return result


PAST = 100 * 2**20  # bytes a case may allocate past its budget
# Python calls a case past the node budget may make, however large: the copy stops there
FLAT = 4 * wireschema.Options().max_nodes


# ---------------------------------------------------------------------------
# D: boolean subschemas are nodes, wherever they stand


def _booleans(position: str, n: int):
    values = [True, False] * (n // 2)
    if position in ("anyOf", "oneOf", "allOf"):
        return {"type": "object", "properties": {"p": {position: values}}}
    if position == "prefixItems":
        return {"type": "object", "properties": {"p": {"type": "array", "prefixItems": values}}}
    if position == "items-draft-07":
        return {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                "properties": {"p": {"type": "array", "items": values}}}
    if position == "patternProperties":
        return {"type": "object", "patternProperties": {f"^p{i}$": v for i, v in enumerate(values)}}
    return {"type": "object", position: {f"p{i}": v for i, v in enumerate(values)}}


BOOLEAN_POSITIONS = ["anyOf", "oneOf", "allOf", "prefixItems", "items-draft-07", "$defs", "properties", "dependentSchemas", "patternProperties"]


@pytest.mark.parametrize("n", sizes(1_000, 40_000, 400_000))
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("position", BOOLEAN_POSITIONS)
def test_boolean_subschemas_count_as_nodes(position, target, n, uncached):
    """`true`/`false` subschemas cost the node budget as `{}` does: within it a result
    that settles; past it the budget/nodes fallback, in the same time at every size
    (the copy stops at the budget). Memory is measured on one target."""
    schema = _booleans(position, n)
    past = n > wireschema.Options().max_nodes
    with bounded():
        result, calls, peak = measured(lambda: wireschema.normalize(schema, target), memory=past and target == "gemini")
    if past:
        assert budget_of(result) == "budget/nodes", result.fallback_reason
        assert calls < FLAT and peak < PAST, (calls, peak)
    else:
        assert budget_of(result) is None, result.fallback_reason
        assert_settles(schema, target, result)


# ---------------------------------------------------------------------------
# D: a wide object stops at the node budget, not after its last key


@pytest.mark.parametrize("n", sizes(40_000, 400_000))
@pytest.mark.parametrize("target", ["gemini", "openai-strict", "anthropic"])
def test_wide_objects_stop_at_the_budget(target, n, uncached):
    """Each property schema waiting to be copied counts at once, so the copy stops at
    the budget's worth of properties, where the fallback points, however many follow
    (before, it went through every key first and stopped near the last one)."""
    schema = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(n)}}
    with bounded():
        result = wireschema.normalize(schema, target)
    assert budget_of(result) == "budget/nodes", result.fallback_reason
    (where,) = [c.pointer for c in result.changes if c.rule == "budget/nodes"]
    assert where.startswith("/properties/p")
    assert int(where.rsplit("/p", 1)[1]) < wireschema.Options().max_nodes


# ---------------------------------------------------------------------------
# D: a type list names each type once


@pytest.mark.parametrize("n", sizes(3_000, 30_000))
@pytest.mark.parametrize("target", TARGETS)
def test_type_lists_of_growing_duplicates(target, n, uncached):
    """300,000 repeats of three type names say what the three say: the output is as
    small at every size, and what the report quotes of the list is cut."""
    schema = {"type": "object", "properties": {"p": {"type": ["string", "integer", "null"] * (n // 3)}}}
    with bounded():
        result = wireschema.normalize(schema, target)
    assert budget_of(result) is None, result.fallback_reason
    assert len(dumps(result.schema)) < 2_000
    assert all(len(c.detail) < 500 for c in result.changes)
    assert_settles(schema, target, result)


# ---------------------------------------------------------------------------
# D: allOf branches that disagree grow the output linearly, not 4x per 4 branches


def _conflicting_all_of(n: int):
    types = ["string", "integer", "boolean", "number", "array", "object", "null"]
    return {"type": "object", "properties": {"p": {"allOf": [
        {"type": "object", "properties": {"x": {"type": types[i % 7], "minimum": i, "description": f"branch {i}"}}} for i in range(n)
    ]}}}


@pytest.mark.parametrize("n", sizes(4, 40, 400))
@pytest.mark.parametrize("target", TARGETS)
def test_conflicting_all_of_branches_stay_proportionate(target, n, uncached):
    schema = _conflicting_all_of(n)
    size_in = len(dumps(schema))
    with bounded():
        result = wireschema.normalize(schema, target)
    size_out = len(dumps(result.schema))  # nests no deeper than the input: json.dumps never recurses out
    assert size_out <= 20 * size_in + 8 * 1024, f"{size_in} bytes in, {size_out} out"
    assert_settles(schema, target, result)


# ---------------------------------------------------------------------------
# D: patternProperties keys that meet once their lookarounds are removed


# the issue's size (20,000 keys) on the targets that remove lookarounds; every target
# at the smaller sizes (and at 20,000 and 200,000 when run long)
_PATTERN_CASES = [(t, n) for t in TARGETS for n in sizes(200, 2_000)] + (
    [] if LONG else [("openai-responses", 20_000), ("anthropic-strict", 20_000)])


@pytest.mark.parametrize("target,n", _PATTERN_CASES)
def test_pattern_keys_meeting_after_lookaround_removal_is_linear(target, n, uncached):
    schema = {"type": "object", "patternProperties": {f"(?=a{i})x" if i % 2 else f"(?!b{i})x": {"type": "string", "minLength": i} for i in range(n)}}
    with bounded():
        result, calls, peak = measured(lambda: wireschema.normalize(schema, target), memory=LONG and n >= 20_000)
    assert calls < 50_000 + 200 * n, calls  # linear: each key costs a bounded number of calls
    assert peak < PAST
    assert_settles(schema, target, result)


# ---------------------------------------------------------------------------
# D: a $ref that names a $ref that names a $ref ...


def _ref_chain(n: int):
    defs = {f"D{i}": {"$ref": f"#/$defs/D{i + 1}"} for i in range(n)}
    defs[f"D{n}"] = {"type": "string", "minLength": 1}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": defs}


# the issue's size (8,000 definitions) on a target that keeps them and one that inlines
_CHAIN_CASES = [(t, n) for t in TARGETS for n in sizes(80, 800)] + (
    [] if LONG else [("gemini-jsonschema", 8_000), ("gemini", 8_000)])


@pytest.mark.parametrize("target,n", _CHAIN_CASES)
def test_chains_of_refs_are_linear(target, n, uncached):
    schema = _ref_chain(n)
    with bounded():
        result, calls, peak = measured(lambda: wireschema.normalize(schema, target), memory=LONG and n >= 8_000)
    assert calls < 50_000 + 150 * n, calls  # linear: each link costs a bounded number of calls
    assert peak < PAST
    if not result.used_fallback:
        assert_settles(schema, target, result)


# ---------------------------------------------------------------------------
# D: a Python input whose dicts share subtrees (each level holds the one below twice)


def _shared(depth: int):
    node = {"type": "string"}
    for _ in range(depth):
        node = {"type": "object", "properties": {"a": node, "b": node}}
    return node


def _request_with(schema, target: str) -> dict:
    """A request body whose tool list the target reads (a Gemini Tool's declarations on
    gemini): a tool in no shape it reads would be the body's own data, judged as such."""
    if target == "gemini":
        return {"tools": [{"functionDeclarations": [{"name": "x", "parameters": schema}]}]}
    return {"tools": [{"name": "x", "input_schema": schema}]}


SHARED_APIS = {
    "normalize": lambda s, t: [wireschema.normalize(s, t)],
    "normalize_output": lambda s, t: [wireschema.normalize_output(s, t)],
    "normalize_tools": lambda s, t: list(wireschema.normalize_tools([{"name": "x", "description": "d", "input_schema": s, "parameters": s}], t).results),
    "normalize_request": lambda s, t: [r for g in wireschema.normalize_request(_request_with(s, t), t).tools for r in g.results],
    "check": lambda s, t: [wireschema.check(s, t)],
}


@pytest.mark.parametrize("depth", sizes(10, 22, 60))
@pytest.mark.parametrize("api", sorted(SHARED_APIS))
@pytest.mark.parametrize("target", ["gemini", "openai-strict", "anthropic", "mcp"] if LONG else ["gemini", "openai-strict"])
def test_shared_subtrees_cost_what_they_expand_to(target, api, depth):
    """With the cache on (its key is made first): 2**depth nodes once expanded. Within
    the budget a result; past it the budget's fallback (or finding), flat in time and
    memory however deep the sharing goes."""
    schema = _shared(depth)
    expanded = 2 ** (depth + 1)
    with bounded():
        # memory under tracemalloc (slow) for one API, or all when run long
        traced = expanded > wireschema.Options().max_nodes and (LONG or api == "normalize")
        results, calls, peak = measured(lambda: SHARED_APIS[api](schema, target), memory=traced)
    for result in results:
        if api == "check":
            assert isinstance(result, tuple)
            continue
        if result is None:
            continue  # a tool shape this target does not read
        if expanded > wireschema.Options().max_nodes or 2 * depth + 1 > wireschema.Options().max_depth:
            assert budget_of(result) in ("budget/nodes", "budget/depth"), result.fallback_reason
        else:
            assert budget_of(result) is None
    if expanded > wireschema.Options().max_nodes:
        assert calls < FLAT and peak < PAST, (calls, peak)


# ---------------------------------------------------------------------------
# E: integers past Python's 4,300-digit printing limit are refused up front, naming where

BIG_INT_PLACES = {
    "enum": lambda n: {"type": "integer", "enum": [1, n]},
    "const": lambda n: {"type": "integer", "const": n},
    "default": lambda n: {"type": "integer", "default": n},
    "examples": lambda n: {"type": "integer", "examples": [n]},
    "multipleOf": lambda n: {"type": "integer", "multipleOf": n},
    "maxItems": lambda n: {"type": "array", "maxItems": n},
    "minItems": lambda n: {"type": "array", "minItems": n},
    "minLength": lambda n: {"type": "string", "minLength": n},
    "minimum": lambda n: {"type": "integer", "minimum": -n},
    "in-a-default-object": lambda n: {"type": "object", "default": {"k": [n]}},
}


@pytest.mark.parametrize("digits", sizes(4_300, 4_301))
@pytest.mark.parametrize("place", sorted(BIG_INT_PLACES))
@pytest.mark.parametrize("target", TARGETS)
def test_integers_of_growing_length(target, place, digits):
    """Up to 4,300 digits an integer is kept printable (json.dumps of the output works);
    from 4,301 on, SchemaInputError names the pointer, for a Python value as for JSON
    text (which Python's reader refuses alike); in a tool list that tool alone falls back."""
    n = 10 ** (digits - 1)
    schema = {"type": "object", "properties": {"n": BIG_INT_PLACES[place](n)}}
    if digits <= 4_300:
        result = wireschema.normalize(schema, target)
        json.dumps(result.schema)
        assert_settles(schema, target, result)
        return
    with pytest.raises(SchemaInputError) as info:
        wireschema.normalize(schema, target)
    assert "/properties/n/" in str(info.value) and "4,300 digits" in str(info.value)
    tools = [{"name": "good", "input_schema": {"type": "object"}}, {"name": "big", "input_schema": schema}]
    results = wireschema.normalize_tools(tools, "anthropic").results
    assert not results[0].used_fallback and results[1].used_fallback


# ---------------------------------------------------------------------------
# E: outputs settle: a rewrite that grows past a budget falls back now, naming it,
# rather than leave an output that would fall back when normalized again


GROWING = {
    # three types each: one anyOf branch per type (and a null marker) per property
    "properties-of-three-types": lambda n: {"type": "object", "properties": {f"p{i}": {"type": ["string", "integer", "null"]} for i in range(n)}},
    # a union of unions, collapsed or spilled
    "nested-anyOf": lambda n: {"type": "object", "properties": {"p": {"anyOf": [{"anyOf": [{"type": "string", "minLength": i} for i in range(n)]}, {"type": "null"}]}}},
    # mixed types, collapsed to the first with the union spilled as text
    "type-list-of-mixed-names": lambda n: {"type": "object", "properties": {"p": {"type": [["string", "integer", "boolean", "number"][i % 4] for i in range(n)], "description": "d"}}},
    # non-string enum values, spilled as text where the wire takes strings only
    "float-enum": lambda n: {"type": "object", "properties": {"p": {"enum": [i + 0.5 for i in range(n)]}}},
    # a spilled default per property
    "spilled-defaults": lambda n: {"type": "object", "properties": {f"p{i}": {"type": "string", "format": "x-custom", "default": "v" * 64} for i in range(n)}},
}


# every target at 15 and 1,500; the issue's sizes where it found an output that did not
# settle (and every target at 15,000 when run long)
_SETTLE_CASES = [(c, t, n) for c in sorted(GROWING) for t in TARGETS for n in (15, 1_500, *((15_000,) if LONG else ()))] + (
    [] if LONG else [
        ("properties-of-three-types", "gemini", 15_000),
        ("properties-of-three-types", "vertex", 15_000),
        ("nested-anyOf", "gemini-jsonschema", 5_000),
        ("nested-anyOf", "cca-claude", 15_000),
        ("type-list-of-mixed-names", "cca-claude", 1_000_000),
    ])


@pytest.mark.parametrize("case,target,n", _SETTLE_CASES)
def test_outputs_settle_at_every_size(case, target, n, uncached):
    schema = GROWING[case](n)
    with bounded():
        result = wireschema.normalize(schema, target)
    if result.used_fallback:
        assert result.fallback_reason.startswith(("budget/", "input/")) or "check" in result.fallback_reason, result.fallback_reason
    assert_settles(schema, target, result)


@pytest.mark.parametrize("target,n", [("gemini", 100_000), ("gemini", 1_000_000)] + (
    [("cca-claude", 1_000_000), ("vertex", 1_000_000), ("gemini", 10_000_000)] if LONG else []))
def test_a_million_enum_values_settle(target, n, uncached):
    """A float enum spilled as text: up to the literal budget a result, past it the
    budget/literal fallback, the text never written past the budget."""
    schema = GROWING["float-enum"](n)
    with bounded():
        result, peak = peak_of(lambda: wireschema.normalize(schema, target)) if LONG or n <= 100_000 else (wireschema.normalize(schema, target), 0)
    assert result.used_fallback is (budget_of(result) == "budget/literal")
    assert peak < 2 * PAST  # the list itself is copied once, deduplicated twice
    assert_settles(schema, target, result)


@pytest.mark.parametrize("n", sizes(100_000, 1_000_000, 3_000_000))
@pytest.mark.parametrize("kind", ["float", "int"])
@pytest.mark.parametrize("target", TARGETS if LONG else ["gemini", "cca-claude", "openai-strict", "mcp"])
def test_long_lists_of_numbers_cost_their_text(target, kind, n, uncached):
    """A list of numbers costs the literal budget what it prints as (not one character
    per item): within the budget a result that settles; past it the budget/literal
    fallback, found while the input is copied (at the list, before any rule has made a
    spill of it), so its cost stays the budget's as the list grows."""
    values = [i + 0.5 for i in range(n)] if kind == "float" else [10**12 + i for i in range(n)]
    schema = {"type": "object", "properties": {"p": {"enum": values}}}
    past = len(json.dumps(values, separators=(",", ":"))) > wireschema.Options().max_literal_bytes
    with bounded():
        result, peak = peak_of(lambda: wireschema.normalize(schema, target)) if past and target == "gemini" else (wireschema.normalize(schema, target), 0)
    if not past:
        assert budget_of(result) is None, result.fallback_reason
        assert_settles(schema, target, result)
        return
    (found,) = [c for c in result.changes if c.action == "fallback"]
    assert (found.rule, found.pointer) == ("budget/literal", "/properties/p/enum")
    assert found.detail == f"more than {wireschema.Options().max_literal_bytes} characters"  # the copy's finding
    assert peak < PAST, peak


STRICT = [t.name for t in wireschema.targets() if t.strict]


@pytest.mark.parametrize("target", STRICT)
def test_a_strict_targets_fallback_is_a_fixed_point(target):
    """A strict target's fallback is its wire's closed empty object: normalized again,
    for that target or for the one it fails open to, it is the same schema."""
    compiled = wireschema._target(target)
    fallback = compiled.fallback
    for wire in (target, compiled.fail_open):
        again = wireschema.normalize(fallback, wire)
        assert again.schema == fallback and not again.used_fallback
        assert wireschema.check(fallback, wire) == ()
    # a budget fallback, and a sibling's fallback after failing open, give that schema
    wide = {"type": "object", "properties": {f"p{i}": {} for i in range(40_000)}}
    assert wireschema.normalize(wide, target).schema == fallback
    unresolved = {"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}}
    failed_open = wireschema.normalize(unresolved, target)
    assert failed_open.used_fallback and failed_open.schema == fallback


# ---------------------------------------------------------------------------
# F: values compare as JSON values: true is not 1, 1 is 1.0

_SCALARS = [0, 1, True, False, 1.0, 0.0, -0.0, None, "1", "true", 2]
MERGING = [t.name for t in wireschema.targets()]


@PROFILE
@given(st.sampled_from(_SCALARS), st.sampled_from(_SCALARS), st.sampled_from(["const", "enum"]), st.sampled_from(MERGING))
def test_merged_branches_never_take_true_for_one(a, b, keyword, target):
    """allOf of two branches constraining one value, and an anyOf of two enums: a value
    one branch says and the other does not is never dropped silently (Python's
    `True == 1` is not JSON's); equal JSON values (1 and 1.0) may merge."""
    def branch(v):
        return {keyword: v} if keyword == "const" else {keyword: [v]}

    texts = {_spellings(a), _spellings(b)}
    for schema in (
        {"type": "object", "properties": {"p": {"allOf": [branch(a), branch(b)]}}},
        {"type": "object", "properties": {"p": {"anyOf": [{"enum": [a]}, {"enum": [b]}]}}},
    ):
        result = wireschema.normalize(schema, target)
        if result.used_fallback or any(c.action == "dropped" and c.pointer.startswith("/properties/p") for c in result.changes):
            continue  # nothing of it kept, or a drop the report names
        out = dumps(result.schema)
        for spellings in texts:
            # each value still stands in the output, as a value or inside spilled text
            assert any(t in out for t in spellings), f"{target}: {spellings[0]} lost: {out}"


def _spellings(v) -> tuple[str, ...]:
    """How a value may read in an output: as JSON, an integral number either way, or
    inside a string (a stringified enum)."""
    texts = [json.dumps(v)]
    if v.__class__ in (int, float) and float(v).is_integer():
        texts += [json.dumps(int(v)), json.dumps(float(v))]
    return tuple(texts + [json.dumps(t)[1:-1] for t in texts])
