"""Property tests of the issue's guarantees 1, 3, 4, 5 and 7 over generated input.

Two generators: arbitrary JSON values (`st.recursive`), and schema-shaped documents
drawn from a grammar of JSON Schema keywords (type names and lists, Python type names,
properties and `required` naming missing ones, tuple and boolean `items`,
`prefixItems`, `additionalProperties`, unions with null branches, `not`, mixed and
duplicate and empty enums, `const`, `$ref`s into `$defs`/`definitions` that are
missing or cyclic, snake_case spellings, formats, valid and invalid patterns, bounds,
`nullable`, and `description`/`default`/`examples` carrying keyword-shaped payloads).
Every example runs through every shipped target.

Profiles: the default one is derandomized and small (the whole file runs in well under
a minute on two cores); `WIRESCHEMA_HYPOTHESIS=long` runs many more random examples.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wireschema
from conftest import containers, refused_by, rule_ids_of_kind, targets_with_kind, targets_without_kind
from wireschema import pipeline
from wireschema.errors import SchemaInputError
from wireschema.model import Options
from wireschema.prepare import measure

settings.register_profile(
    "wireschema-default",
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,  # reproducible by construction: nothing to remember between runs
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "wireschema-long",
    max_examples=2_000,
    deadline=None,
    derandomize=False,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_PROFILE = "wireschema-long" if os.environ.get("WIRESCHEMA_HYPOTHESIS") == "long" else "wireschema-default"
# applied per test (not via settings.load_profile) so other test modules keep theirs
PROFILE = settings.get_profile(_PROFILE)

TARGETS = [t.name for t in wireschema.targets()]


# ---------------------------------------------------------------------------
# helpers


def fingerprint(value):
    """An exact, iterative rendering of a Python JSON tree: types, key order, float bits.

    Equal fingerprints mean bit-for-bit equal trees (True is not 1, 1 is not 1.0,
    -0.0 is not 0.0, key order counts). Works at any depth and on cycles.
    """
    out = []
    stack = [value]
    seen_on_path = set()
    while stack:
        v = stack.pop()
        if isinstance(v, tuple) and len(v) == 2 and v[0] is _EXIT:
            seen_on_path.discard(v[1])
            out.append(")")
            continue
        if isinstance(v, dict):
            if id(v) in seen_on_path:
                out.append(f"<cycle {id(v)}>")
                continue
            seen_on_path.add(id(v))
            out.append(f"{{{type(v).__name__}")
            stack.append((_EXIT, id(v)))
            for k, x in reversed(list(v.items())):
                stack.append(x)
                stack.append(_Key(k))
        elif isinstance(v, list):
            if id(v) in seen_on_path:
                out.append(f"<cycle {id(v)}>")
                continue
            seen_on_path.add(id(v))
            out.append(f"[{len(v)}")
            stack.append((_EXIT, id(v)))
            stack.extend(reversed(v))
        elif isinstance(v, _Key):
            out.append(f"k:{type(v.key).__name__}:{v.key!r}")
        elif isinstance(v, float):
            out.append(f"f:{v.hex() if math.isfinite(v) else repr(v)}")
        else:
            out.append(f"{type(v).__name__}:{v!r}")
    return out


_EXIT = object()


class _Key:
    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key


def dumps(value) -> str:
    """The wire bytes: strict JSON (no NaN), key order kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def effective(target: str, result: wireschema.Result) -> str:
    """The target whose wire the output is for (a strict target that failed open
    produced its non-strict sibling's output)."""
    compiled = wireschema._target(target)
    if compiled.strict and not result.strict:
        return compiled.fail_open
    return target


def outcome(result: wireschema.Result) -> tuple:
    return (
        dumps(result.schema),
        result.target,
        result.strict,
        result.used_fallback,
        result.fallback_reason,
        result.strict_reason,
        result.changes,
        tuple(sorted((k, repr(v)) for k, v in result.notes.items())),
    )


@contextlib.contextmanager
def no_cache():
    old = os.environ.get("WIRESCHEMA_NO_CACHE")
    os.environ["WIRESCHEMA_NO_CACHE"] = "1"
    try:
        yield
    finally:
        if old is None:
            del os.environ["WIRESCHEMA_NO_CACHE"]
        else:
            os.environ["WIRESCHEMA_NO_CACHE"] = old


def assert_guarantees(schema, target: str) -> wireschema.Result:
    """Guarantees 1, 3, 4, 5 for one JSON value and one target."""
    before = fingerprint(schema)
    with no_cache():
        first = wireschema.normalize(schema, target)  # (1) never raises for JSON
    assert fingerprint(schema) == before, f"{target}: the input was mutated"  # (3)
    cached = wireschema.normalize(schema, target)  # miss, then stored
    hit = wireschema.normalize(schema, target)  # a hit
    assert fingerprint(schema) == before, f"{target}: the input was mutated (cache path)"
    text = dumps(first.schema)  # (5) serializable as strict JSON
    # (3) the output is the caller's own: no container of it stands in two places, nor
    # is one of the input's (an edit to one place changes nothing else)
    held = containers(first.schema)
    assert len(held) == len(set(held)), f"{target}: a container stands twice in the output"
    assert set(held).isdisjoint(containers(schema)), f"{target}: the output holds a container of the input"
    # (4) same input, same bytes: uncached, first cached, cache hit
    assert outcome(cached) == outcome(first), f"{target}: cached result differs"
    assert outcome(hit) == outcome(first), f"{target}: cache hit differs"
    wire = effective(target, first)
    violations = wireschema.check(first.schema, wire)
    assert violations == (), f"{target} (sent as {wire}): output breaks {violations}\n{text}"  # (5)
    dangling = dangling_refs(first.schema)
    if dangling:
        raise AssertionError(f"{target} (sent as {wire}): output $ref to nothing: {dangling}\n{text}")
    # (4) a fixed point: the output normalized again for its own wire is unchanged
    again = wireschema.normalize(first.schema, wire)
    if dumps(again.schema) != text:
        raise AssertionError(
            f"{target} (sent as {wire}): not a fixed point\n first: {text}\n again: {dumps(again.schema)}"
        )
    return first


_ONE = ("items", "additionalItems", "contains", "not", "if", "then", "else", "additionalProperties",
        "unevaluatedProperties", "unevaluatedItems", "propertyNames", "contentSchema")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "defs")
_LIST = ("anyOf", "oneOf", "allOf", "prefixItems", "items")


def schema_nodes(schema):
    """Every subschema object, following schema keywords only (never literal payloads)."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield node
        for kw, value in node.items():
            if kw in _ONE and isinstance(value, dict):
                stack.append(value)
            elif kw in _MAP and isinstance(value, dict):
                stack.extend(value.values())
            elif kw in _LIST and isinstance(value, list):
                stack.extend(value)


def dangling_refs(schema) -> list[str]:
    """Local JSON-Pointer `$ref`s (and Vertex `ref`s) in an output that point at nothing."""
    from urllib.parse import unquote

    nodes = list(schema_nodes(schema))
    if not isinstance(schema, dict) or any(isinstance(n.get("$id"), str) for n in nodes):
        return []  # relative to an embedded resource: not judged here
    out = []
    for node in nodes:
        for key in ("$ref", "ref"):
            ref = node.get(key)
            if not isinstance(ref, str) or not ref.startswith("#/"):
                continue
            cur = schema
            for token in ref[2:].split("/"):
                token = unquote(token).replace("~1", "/").replace("~0", "~")
                if isinstance(cur, dict) and token in cur:
                    cur = cur[token]
                elif isinstance(cur, list) and token.isdigit() and int(token) < len(cur):
                    cur = cur[int(token)]
                else:
                    out.append(ref)
                    break
    return out


# ---------------------------------------------------------------------------
# engine defects these tests found, all fixed: each reproducer stays as a plain test


# fixed: one minimal input per defect, normalized again for its own wire gives the same
# bytes (the first ones were the xfail reproducers; the later ones were found on the way)
FIXED_POINT_EXAMPLES = [
    ("D5-google-key-order", "gemini", {"type": "object", "properties": {"a": {"nullable": True, "format": "date-time", "examples": []}}}),
    ("D6-empty-type-list", "gemini", {"type": "object", "properties": {"a": {"type": [], "required": []}}}),
    ("D7-false-branch-beside-null", "vertex", {"type": "object", "properties": {"a": {"anyOf": [False, {"type": "null"}]}}}),
    ("D7-false-branch-beside-null", "gemini", {"type": "object", "properties": {"a": {"anyOf": [False, {"type": "null"}]}}}),
    ("D7-empty-branch-and-null-const", "gemini", {"type": "object", "properties": {"a": {"anyOf": [{}], "const": None}}}),
    ("D7-null-tuple-position", "vertex", {"type": "object", "properties": {"a": {"prefixItems": [{"$anchor": "x"}, {"allOf": [{"type": "null"}]}]}}}),
    ("D7-null-type-and-null-enum", "vertex", {"type": "object", "properties": {"a": {"additionalProperties": {"allOf": [{"type": "null"}], "enum": [1, None]}}}}),
    ("D8-empty-allOf", "gemini", {"type": "object", "properties": {"a": {"items": {}, "allOf": []}}}),
    ("D9-id-beside-$id", "openai-chat", {"$id": "https://example.test/s.json", "id": "https://example.test/d4.json"}),
    ("D11-inlined-$schema", "bedrock", {"$ref": "#/$defs/A", "definitions": {"A": {"$schema": "http://json-schema.org/draft-04/schema#"}}}),
    ("D11-merged-$schema", "anthropic-strict", {"all_of": [{"$schema": "http://json-schema.org/draft-04/schema#"}]}),
    # a branch's description folded beside the node's other keywords
    ("D5-folded-branch-description", "vertex", {"type": "object", "properties": {"a": {"maxItems": 0, "oneOf": [False, {"type": "null"}], "maxLength": 0}}}),
    # a null marker an allOf brings beside a one-branch union
    ("D7-marker-beside-one-branch-union", "gemini", {"properties": {"a": {"all_of": [{"one_of": [{"type": "null"}]}], "oneOf": [False]}}}),
    # anyOf and oneOf on one node become an allOf, after allOf was folded
    ("D7-any-of-and-one-of", "gemini", {"type": "object", "properties": {"a": {"anyOf": [], "oneOf": [], "prefixItems": []}}}),
    # the root, $schema and all, copied in by `$ref: #`
    ("D11-root-copied-in", "bedrock", {"$schema": "http://json-schema.org/draft-04/schema#", "allOf": [{}], "additionalProperties": {"$ref": "#"}}),
    # a oneOf converted after allOf was folded left an allOf for the second run
    ("D7-one-of-after-all-of", "anthropic-strict", {"properties": {"x y": {"oneOf": [False], "all_of": [{"one_of": [False]}]}}}),
    # D32 (the long profile, 2026-12-01): the false branches became `{description}`
    # branches, the union's null marker moved into them, and the second run read each
    # as the null branch; a false branch now leaves a union that has another
    ("D32-null-beside-two-false-branches", "vertex", {"type": "object", "properties": {"a": {"anyOf": [{"type": "null"}, False, False]}}}),
    # the same misreading with branches that accept any value: they take no marker
    ("D32-null-beside-any-value-branches", "vertex", {"type": "object", "properties": {"a": {"anyOf": [{"type": "null"}, {"description": "x"}, {}]}}}),
]


# fixed: each stays as a plain test
GUARANTEE_REPRODUCERS = [
    # D31: KeyError '$ref' escaped normalize (resolve-refs _keep_ref)
    ("D31-keyerror", "openai-chat", {"$defs": {"A": {"$ref": "#/$defs/A"}, "B": {"$ref": "#/$defs/A", "title": "x"}}}),
    ("D31-keyerror", "gemini-jsonschema", {"$defs": {"A": {"$ref": "#/$defs/A"}, "B": {"$ref": "#/$defs/A", "title": "x"}}}),
    ("D31-keyerror", "vertex", {"definitions": {"A": {"$ref": "#/$defs/A"}, "B": {"$ref": "#/$defs/A", "$anchor": "x"}}}),
    # D4: the output was `{"type": "object", "$ref": "#/$defs/A"}` with no $defs at all
    ("D4-dangling-ref", "mcp", {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}}),
    ("D4-dangling-ref", "anthropic", {"$ref": "#/definitions/B", "definitions": {"B": {"$ref": "#"}}}),
    ("D4-dangling-ref", "openai-strict", {"$ref": "#/$defs/A", "definitions": {"A": {"$ref": "#/$defs/A"}}}),
    ("D4-dangling-ref", "openai-chat", {"$ref": "#/properties/a", "type": "object", "properties": {"a": {"$ref": "#"}}}),
    # D33: each `false` became `{not: {}}` around one `{}`, the rule's own option's
    ("D33-one-option-in-two-places", "generic", {"type": "object", "properties": {"a": False, "b": False}}),
    ("D33-one-option-in-two-places", "deepseek-strict", {"type": "object", "properties": {"a": False, "b": False}}),
]


def test_an_edit_to_one_result_reaches_no_later_result():
    # D33: the caller's edit went into the rule's option, and so into every later output
    with no_cache():
        first = wireschema.normalize({"type": "object", "properties": {"a": False}}, "generic")
        first.schema["properties"]["a"]["not"]["type"] = "string"
        later = wireschema.normalize({"type": "object", "properties": {"b": False}}, "generic")
    assert later.schema["properties"]["b"] == {"not": {}}


@pytest.mark.parametrize("defect,target,schema", GUARANTEE_REPRODUCERS, ids=[f"{d}-{t}" for d, t, _ in GUARANTEE_REPRODUCERS])
def test_fixed_guarantee_defects_stay_fixed(defect, target, schema):
    """D31 (a KeyError escaped) and D4 (a dangling $ref in the output): a $ref loop that
    passes no subschema constrains nothing, and every $ref left resolves."""
    first = assert_guarantees(schema, target)
    assert dangling_refs(first.schema) == []


# found by these tests and fixed during this work: they stay as explicit examples
FIXED_EXAMPLES = [
    {"$ref": "#"},  # D4: `$ref: #/$defs/%23` with no such definition
    {"$ref": "#", "$defs": None},  # D15: TypeError out of resolve-refs
    {"$ref": "", "$defs": ""},  # D15
    {"$defs": None},  # D10: vertex sent `defs: null`
    {"type": "object", "properties": {"a": {"additionalProperties": False, "allOf": []}}},  # D8 on gemini-jsonschema
]


@pytest.mark.parametrize("schema", FIXED_EXAMPLES, ids=repr)
def test_fixed_defects_stay_fixed(schema):
    for target in TARGETS:
        assert_guarantees(schema, target)


@pytest.mark.parametrize("defect,target,schema", FIXED_POINT_EXAMPLES, ids=[f"{d}-{t}" for d, t, _ in FIXED_POINT_EXAMPLES])
def test_fixed_point_defects_stay_fixed(defect, target, schema):
    """D5-D11: the output normalized again for its own wire is the same bytes; every
    target keeps the other guarantees on these inputs too."""
    for other in TARGETS:
        assert_guarantees(schema, other)
    first = wireschema.normalize(schema, target)
    wire = effective(target, first)
    again = wireschema.normalize(first.schema, wire)
    assert dumps(again.schema) == dumps(first.schema)


# ---------------------------------------------------------------------------
# generators

NAMES = ["a", "b", "c", "anyOf", "$ref", "type", "properties", "x y", "a/b", "t~1", "", "ключ"]
DEF_NAMES = ["A", "B", "C", "a b", "t~x"]
TYPE_NAMES = [
    "object", "array", "string", "number", "integer", "boolean", "null",
    "dict", "float", "int", "str", "list", "tuple", "any", "Any", "String", "Integer", "", "bogus",
]
REFS = [
    "#/$defs/A", "#/$defs/B", "#/definitions/A", "#/definitions/C", "#/$defs/Missing", "#",
    "#/properties/a", "#/$defs/A/properties/a", "https://example.test/x.json", "#anchor",
    "#/$defs/a%20b", "#/$defs/t~0x", "#/definitions/B/items",
]
FORMATS = ["date-time", "date", "email", "uri", "uuid", "int32", "int64", "float", "double", "enum", "hostname", "bogus"]
PATTERNS = ["^a+$", "^[a-z]{2,4}$", "(?=x)y", "(?<!a)b", "\\bword\\b", "(a)\\1", "[", "(", "a{2,", "\\p{L}+", "^\\d+$", ""]
SCHEMA_URIS = [
    "http://json-schema.org/draft-04/schema#",
    "http://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
]
KEY_WORDS = [
    "type", "properties", "items", "anyOf", "any_of", "$ref", "$defs", "definitions", "enum", "const",
    "default", "required", "additionalProperties", "nullable", "description",
]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["#/$defs/A", "(default: 1)", "{value}", "{key}", "%s", "null"])
)
json_keys = st.sampled_from(NAMES + KEY_WORDS) | st.text(max_size=5)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(json_keys, children, max_size=3),
    max_leaves=8,
)
numbers = st.integers(min_value=-5, max_value=50) | st.floats(min_value=-10, max_value=10, allow_nan=False) | st.sampled_from([0, -0.0, 1e308, 2**64])
small_ints = st.integers(min_value=0, max_value=5) | st.sampled_from([-1, 2**63])
type_value = st.sampled_from(TYPE_NAMES) | st.lists(st.sampled_from(TYPE_NAMES), max_size=3)


def _enum(values):
    # mixed types, duplicates (1, 1.0 and True are distinct JSON), sometimes empty
    return st.lists(values, max_size=4).flatmap(
        lambda xs: st.sampled_from([xs, xs + xs[:1], [], xs + [1, 1.0, True, None]])
    )


def _keywords(children):
    branches = st.lists(children | st.just({"type": "null"}), max_size=3)
    payload = json_values | children  # keyword-shaped payloads in literal positions
    names = st.sampled_from(NAMES + ["missing"])
    return {
        "type": type_value,
        "properties": st.dictionaries(st.sampled_from(NAMES), children, max_size=3),
        "required": st.lists(names, max_size=3) | st.sampled_from([[], "a", [1]]),
        "items": children | st.lists(children, max_size=2),
        "prefixItems": st.lists(children, max_size=2),
        "additionalProperties": children,
        "additionalItems": children,
        "anyOf": branches,
        "oneOf": branches,
        "allOf": branches,
        "not": children,
        "enum": _enum(json_values),
        "const": json_values,
        "$ref": st.sampled_from(REFS),
        "$defs": st.dictionaries(st.sampled_from(DEF_NAMES), children, max_size=2),
        "definitions": st.dictionaries(st.sampled_from(DEF_NAMES), children, max_size=2),
        "any_of": branches,
        "one_of": branches,
        "all_of": branches,
        "min_items": small_ints,
        "max_length": small_ints,
        "additional_properties": children,
        "prefix_items": st.lists(children, max_size=2),
        "format": st.sampled_from(FORMATS),
        "pattern": st.sampled_from(PATTERNS),
        "patternProperties": st.dictionaries(st.sampled_from(PATTERNS), children, max_size=2),
        "minimum": numbers,
        "maximum": numbers,
        "exclusiveMinimum": st.booleans() | numbers,
        "exclusiveMaximum": st.booleans() | numbers,
        "minLength": small_ints,
        "maxLength": small_ints,
        "minItems": small_ints,
        "maxItems": small_ints,
        "minProperties": small_ints,
        "uniqueItems": st.booleans(),
        "multipleOf": st.sampled_from([1, 2, 0.5, 0.01]),
        "nullable": st.booleans(),
        "description": st.text(max_size=10)
        | st.sampled_from(["(default: 1)", "(enum: [1])", "{value}", "{key}"])
        | json_values,
        "title": st.text(max_size=5),
        "default": payload,
        "examples": st.lists(payload, max_size=2),
        "example": payload,
        "if": children,
        "then": children,
        "else": children,
        "dependencies": st.dictionaries(st.sampled_from(NAMES), st.lists(names, max_size=2) | children, max_size=2),
        "dependentRequired": st.dictionaries(st.sampled_from(NAMES), st.lists(names, max_size=2), max_size=2),
        "contains": children,
        "propertyNames": children,
        "unevaluatedProperties": children,
        "$schema": st.sampled_from(SCHEMA_URIS),
        "$id": st.sampled_from(["https://example.test/s.json", "child.json", "#frag", "urn:x:y"]),
        "id": st.sampled_from(["https://example.test/d4.json", "not-an-id"]),
        "$anchor": st.sampled_from(["anchor", "A"]),
        "optional": st.booleans() | st.just("true"),
        "propertyOrdering": st.lists(names, max_size=3),
        "$comment": st.text(max_size=5),
    }


def _schema_node(children):
    table = _keywords(children)
    keys = sorted(table)
    return st.lists(st.sampled_from(keys), min_size=1, max_size=5, unique=True).flatmap(
        lambda ks: st.fixed_dictionaries({k: table[k] for k in ks})
    )


leaf_schemas = (
    st.booleans()
    | st.just({})
    | st.builds(lambda t: {"type": t}, type_value)
    | st.sampled_from([{"type": "null"}, {"$ref": "#/$defs/A"}, {"$ref": "#"}, {"$ref": "#/definitions/B"}])
)
subschemas = st.recursive(leaf_schemas, _schema_node, max_leaves=10)


def _root(parts):
    body, defs, definitions, props = parts
    if not isinstance(body, dict):
        return body
    root = dict(body)
    if props is not None:
        root.setdefault("type", "object")
        root["properties"] = props
    if defs:
        root["$defs"] = defs
    if definitions:
        root["definitions"] = definitions
    return root


schema_documents = st.tuples(
    subschemas,
    st.none() | st.dictionaries(st.sampled_from(DEF_NAMES), subschemas, max_size=3),
    st.none() | st.dictionaries(st.sampled_from(DEF_NAMES), subschemas, max_size=2),
    st.none() | st.dictionaries(st.sampled_from(NAMES), subschemas, max_size=4),
).map(_root)


# ---------------------------------------------------------------------------
# guarantees 1, 3, 4, 5


@PROFILE
@given(
    st.one_of(json_values, schema_documents),
    st.integers(min_value=1, max_value=6),
    st.integers(min_value=1, max_value=30),
    st.integers(min_value=1, max_value=400),
)
def test_the_quick_budget_bound_never_passes_what_measure_refuses(value, depth, nodes, chars):
    """An output is walked against the budgets only where a bound read off its bytes
    (`pipeline._surely_within`) cannot pass it: that bound passes no output `measure`
    finds past a budget."""
    options = Options(max_depth=depth, max_nodes=nodes, max_literal_bytes=chars)
    if pipeline._surely_within(value, options):
        assert measure(value, options) is None


def test_the_quick_budget_bound_counts_levels_and_boolean_schemas():
    # more containers than the depth budget: the bound counts the levels
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(200)}}
    assert pipeline._surely_within(wide, Options(max_depth=3))
    wide["properties"]["p7"] = {"type": "array", "items": {"type": "string"}}
    assert not pipeline._surely_within(wide, Options(max_depth=3))
    assert pipeline._surely_within(wide, Options(max_depth=4))
    assert not pipeline._surely_within(wide, Options(max_nodes=200))  # 203 objects
    # two containers, and 40 boolean subschemas, each a node
    booleans = {"anyOf": [True] * 40}
    assert measure(booleans, Options(max_nodes=30)) is not None
    assert not pipeline._surely_within(booleans, Options(max_nodes=30))


@given(json_values)
def test_any_json_value_gives_a_result(value):
    """(1) Any JSON value: a Result for every target (a str is JSON *text*, so a str that
    does not parse may raise SchemaInputError); never another exception."""
    for target in TARGETS:
        if isinstance(value, str):
            try:
                wireschema.normalize(value, target)
            except SchemaInputError:
                continue
        assert_guarantees(value, target)


@PROFILE
@given(schema_documents)
def test_schema_documents_keep_the_guarantees(schema):
    """(1, 3, 4, 5) Schema-shaped documents through every target."""
    for target in TARGETS:
        assert_guarantees(schema, target)


# the strict targets that fail a schema open on its input's properties before rewriting it
PROPERTY_LIMITED = targets_with_kind("property-limit")


@PROFILE
@given(schema_documents)
def test_no_rule_of_a_property_limited_target_removes_a_counted_property(schema):
    """`property-limit` counts properties no rule of its target removes: wherever the
    target's output is strict, it holds at least as many (so an input past the limit
    could never have had a strict form)."""
    from wireschema.passes.counts import count_properties, trunk_properties

    for target in PROPERTY_LIMITED:
        with no_cache():
            result = wireschema.normalize(schema, target)
        if result.strict:
            assert trunk_properties(schema) <= count_properties(result.schema)[2], target


# the strict targets that fail a schema open on its input's optional properties
OPTIONAL_LIMITED = targets_with_kind("optional-limit")


@PROFILE
@given(schema_documents)
def test_no_rule_of_an_optional_limited_target_requires_or_removes_a_counted_property(schema):
    """`optional-limit` counts optional properties no rule of its target makes required
    or removes: wherever the target's output is strict, it holds at least as many."""
    from wireschema.passes.counts import count_properties, trunk_counts

    for target in OPTIONAL_LIMITED:
        with no_cache():
            result = wireschema.normalize(schema, target)
        if result.strict:
            assert trunk_counts(schema)[1] <= count_properties(result.schema)[0], target


# the strict targets that fail an input open on an object open on purpose before rewriting it
OPEN_REFUSED = targets_with_kind("refuse-open")
_REFUSE_OPEN_IDS = rule_ids_of_kind("refuse-open")


@pytest.fixture(scope="module")
def unrefused(tmp_path_factory):
    return targets_without_kind("refuse-open", tmp_path_factory.mktemp("unrefused"))


@PROFILE
@given(schema=schema_documents)
def test_an_input_refused_as_open_has_no_strict_form_by_the_other_rules_either(unrefused, schema):
    """`refuse-open` refuses only what the target's other rules fail open on too."""
    for target in OPEN_REFUSED:
        with no_cache():
            result = wireschema.normalize(schema, target)
            if refused_by(result, _REFUSE_OPEN_IDS):
                assert not wireschema.normalize(schema, unrefused[target]).strict, target


@PROFILE
@given(schema_documents)
def test_schema_documents_as_json_text(schema):
    """The same documents given as JSON text (str and bytes) give the same result."""
    text = json.dumps(schema)
    for target in TARGETS:
        with no_cache():
            from_value = wireschema.normalize(schema, target)
            from_text = wireschema.normalize(text, target)
            from_bytes = wireschema.normalize(text.encode("utf-8"), target)
        assert outcome(from_text) == outcome(from_value)
        assert outcome(from_bytes) == outcome(from_value)


@PROFILE
@given(schema_documents)
def test_check_never_raises_on_json(schema):
    """`check` judges any JSON value as it stands, without raising."""
    before = fingerprint(schema)
    for target in TARGETS:
        found = wireschema.check(schema, target)
        assert isinstance(found, tuple)
        assert all(isinstance(c, wireschema.Change) for c in found)
    assert fingerprint(schema) == before


@PROFILE
@given(schema_documents, st.sampled_from(TARGETS), st.booleans())
def test_strict_switch_and_output_api(schema, target, want):
    """`strict=` either way and `normalize_output` keep guarantees 1, 3, 5."""
    before = fingerprint(schema)
    result = wireschema.normalize(schema, target, strict=want)
    assert fingerprint(schema) == before
    dumps(result.schema)
    out = wireschema.normalize_output(schema, target)
    assert fingerprint(schema) == before
    dumps(out.schema)
    # the output of normalize_output passes the checks of the wire it goes on (a Google
    # output takes any root: its target's output variant)
    wire = wireschema._registry().output_variant(wireschema._target(effective(target, out)))
    assert wireschema.check(out.schema, wire) == ()
    if out.wrapped:
        assert out.unwrap({"response": 1}) == 1


# ---------------------------------------------------------------------------
# guarantee 7: one bad tool never affects the others


def _deep(levels):
    node = {"type": "string"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"a": node}}
    return node


# items that are no tool at all: the whole call is a ToolShapeError naming the item
NOT_TOOLS = [42, "not a tool", None, ["a", "list"]]
BAD_TOOLS = [
    {"description": "no name anywhere"},
    {"type": "function", "function": {"name": 7, "parameters": {}}},
    {"type": "function", "function": {"name": "bad_set", "parameters": {"type": "object", "enum": {1, 2}}}},
    {"type": "function", "function": {"name": "bad_nan", "parameters": {"type": "object", "properties": {"n": {"minimum": float("nan")}}}}},
    {"type": "function", "function": {"name": "bad_key", "parameters": {"type": "object", "properties": {1: {}}}}},
    {"type": "function", "function": {"name": "bad_list", "parameters": [1, 2, 3]}},
    # beyond the depth budget (96) but not beyond Python's recursion limit: a 10,000-deep
    # tool is in test_hostile.py (D12: build_tool deep-copies it recursively)
    {"type": "function", "function": {"name": "bad_deep", "parameters": _deep(200)}},
    {"type": "function", "function": {"name": "bad_ref", "parameters": {"type": "object", "properties": {"x": {"$ref": "#/$defs/Nope"}}}}},
    {"name": "bad_text", "input_schema": "{not json"},
]


def _tool(i, schema):
    return {"type": "function", "function": {"name": f"good_{i}", "description": f"tool {i}", "parameters": schema}}


@pytest.mark.parametrize("item", NOT_TOOLS, ids=repr)
def test_an_item_that_is_no_tool_is_named_by_index_and_type(item):
    with pytest.raises(wireschema.ToolShapeError, match=f"tool 1 is {type(item).__name__}"):
        wireschema.normalize_tools([_tool(0, {"type": "object"}), item], "openai-chat")


@PROFILE
@given(
    st.lists(schema_documents, min_size=1, max_size=3),
    st.lists(st.sampled_from(range(len(BAD_TOOLS))), min_size=1, max_size=3),
    st.randoms(use_true_random=False),
    st.sampled_from(TARGETS),
)
def test_one_bad_tool_never_affects_the_others(goods, bad_indexes, rnd, target):
    """(7) normalize_tools over good and bad tools mixed: every good tool comes out exactly
    as it does in a list of good tools only; the bad ones fall back alone."""
    good_tools = [_tool(i, s) for i, s in enumerate(goods)]
    bad_tools = [BAD_TOOLS[i] for i in bad_indexes]
    # the good tools keep their relative order (a strict budget is spent in order)
    slots = [True] * len(good_tools) + [False] * len(bad_tools)
    rnd.shuffle(slots)
    goods_left, bads_left = iter(good_tools), iter(bad_tools)
    tools = [next(goods_left) if good else next(bads_left) for good in slots]
    before = fingerprint(tools)
    alone = wireschema.normalize_tools(good_tools, target)
    together = wireschema.normalize_tools(tools, target)
    assert fingerprint(tools) == before, "normalize_tools mutated the caller's tools"
    assert len(together.tools) == len(tools)
    good_at = [i for i, good in enumerate(slots) if good]
    for n, i in enumerate(good_at):
        assert outcome(together.results[i]) == outcome(alone.results[n])
        assert dumps(together.tools[i]) == dumps(alone.tools[n])
    for i, good in enumerate(slots):
        if not good:
            r = together.results[i]
            if r is None:  # not a function tool: passed through untouched
                assert fingerprint(together.tools[i]) == fingerprint(tools[i])
                continue
            assert r.strict is False
            dumps(together.tools[i])
            wire = effective(target, r)
            assert wireschema.check(r.schema, wire) == ()


def _body_at(path: str, value):
    """A request body where the JSONPath `path` ($.a.b, $.a[*].b) finds `value`."""
    parts = path[2:].split(".")
    body = value
    for part in reversed(parts):
        if part.endswith("[*]"):
            body = {part[:-3]: [body]}
        else:
            body = {part: body}
    return body


def _merge(a, b):
    for k, v in b.items():
        if k in a and isinstance(a[k], dict) and isinstance(v, dict):
            _merge(a[k], v)
        else:
            a[k] = v
    return a


@PROFILE
@given(st.lists(schema_documents, min_size=1, max_size=3), schema_documents, st.sampled_from(TARGETS))
def test_requests_are_not_mutated_and_match_normalize_tools(goods, output, target):
    """(3, 7) normalize_request: the caller's body is unchanged, a bad tool beside good
    ones changes nothing for them, and each tool list matches normalize_tools."""
    compiled = wireschema._target(target)
    tools = [_tool(i, s) for i, s in enumerate(goods)] + [BAD_TOOLS[2], BAD_TOOLS[0]]
    body: dict = {"model": "m"}
    # one tool list, where the wire's first spelling puts it (a body holding the same list
    # twice, as `tools` and as a generate_content `config.tools`, names each tool twice)
    for path in compiled.locate.get("tools", ())[:1]:
        _merge(body, _body_at(path, tools))
    for path in compiled.locate.get("outputs", ()):
        _merge(body, _body_at(path, output))
    before = fingerprint(body)
    result = wireschema.normalize_request(body, target)
    assert fingerprint(body) == before, "normalize_request mutated the caller's body"
    json.dumps(result.body, allow_nan=False)
    expected = wireschema.normalize_tools(tools, target)
    for group in result.tools:
        assert [r and outcome(r) for r in group.results] == [r and outcome(r) for r in expected.results]
    for r in result.outputs:
        wire = wireschema._registry().output_variant(wireschema._target(effective(target, r)))
        assert wireschema.check(r.schema, wire) == ()


# ---------------------------------------------------------------------------
# guarantee 4 across processes: string hashing must not leak into the output

_CHILD = """
import json, sys, hashlib
import wireschema
docs = json.loads(sys.stdin.read())
digest = hashlib.sha256()
for doc in docs:
    for t in wireschema.targets():
        r = wireschema.normalize(doc, t.name)
        digest.update(json.dumps([r.schema, [str(c) for c in r.changes], r.strict, r.fallback_reason,
                                  r.strict_reason], ensure_ascii=False).encode())
print(digest.hexdigest())
"""


@settings(PROFILE, max_examples=1)
@given(st.lists(schema_documents, min_size=25, max_size=25))
def test_same_bytes_under_different_hash_seeds(docs):
    """(4) Two processes with different PYTHONHASHSEED give the same bytes."""
    text = json.dumps(docs)
    digests = set()
    for seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "WIRESCHEMA_NO_CACHE": "1"}
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD], input=text, capture_output=True, text=True, env=env
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        digests.add(proc.stdout.strip())
    assert len(digests) == 1
