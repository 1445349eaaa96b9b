"""The promises every target keeps, checked over the whole shared corpus of real schemas
(MCP servers, BFCL, SchemaStore, the JSON-Schema-Test-Suite, pydantic models)."""

from __future__ import annotations

import functools
import json

import pytest

import wireschema
from wireschema.report import read_schemas, render
from conftest import CORPUS, ROOT, refused_by, rule_ids_of_kind, targets_with_kind, targets_without_kind

# corpus-wide: CI runs it (pytest -m corpus); the default run leaves it out
pytestmark = pytest.mark.corpus


def _corpus():
    records = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            records.extend(json.loads(line) for line in f)
    return records


RECORDS = _corpus() if CORPUS.is_dir() else []
TARGETS = [t.name for t in wireschema.targets()]


def _effective(target: str, result: wireschema.Result) -> str:
    """The target whose wire the output is for: a strict target that failed open
    produced its non-strict sibling's output."""
    compiled = wireschema._target(target)
    if compiled.strict and not result.strict:
        return compiled.fail_open
    return target


# the strict targets that fail a schema open on its input's properties before rewriting it
PROPERTY_LIMITED = targets_with_kind("property-limit")


@pytest.mark.skipif(not RECORDS, reason="the shared corpus is not beside the repository")
@pytest.mark.parametrize("target", PROPERTY_LIMITED)
def test_no_rule_removes_a_property_the_property_limit_counts(target):
    """Over the corpus, a strict output holds at least the properties `property-limit`
    counts on its input (see test_properties for generated schemas)."""
    from wireschema.passes.counts import count_properties, trunk_properties

    short = []
    for record in RECORDS:
        result = wireschema.normalize(record["schema"], target)
        if result.strict and trunk_properties(record["schema"]) > count_properties(result.schema)[2]:
            short.append(record["id"])
    assert not short, short[:10]


_DROPPED_WITH_THEIR_NODE = {
    # `type: [string, null]` splits into branches that hold only their own keywords:
    # the `items` beside it, and the property inside, are gone from the output
    "items-beside-a-type-list": {"type": ["string", "null"], "items": {"type": "object", "properties": {"a": {"type": "string"}}}},
    # an enum that admits no object leaves only the types it admits (here null)
    "properties-beside-an-enum": {"type": ["object", "null"], "properties": {"a": {"type": "string"}}, "enum": ["a", None]},
}


@pytest.mark.parametrize("target", PROPERTY_LIMITED)
@pytest.mark.parametrize("case", sorted(_DROPPED_WITH_THEIR_NODE))
def test_the_property_limit_counts_no_property_a_rule_drops(target, case):
    from wireschema.passes.counts import count_properties, trunk_properties

    schema = {"type": "object", "properties": {"x": _DROPPED_WITH_THEIR_NODE[case]}}
    result = wireschema.normalize(schema, target)
    assert result.strict
    assert trunk_properties(schema) == 1 <= count_properties(result.schema)[2]


# the strict targets that fail a schema open on its input's optional properties
OPTIONAL_LIMITED = targets_with_kind("optional-limit")


@pytest.mark.skipif(not RECORDS, reason="the shared corpus is not beside the repository")
@pytest.mark.parametrize("target", OPTIONAL_LIMITED)
def test_no_rule_requires_or_removes_an_optional_property_the_optional_limit_counts(target):
    """Over the corpus, a strict output holds at least the optional properties
    `optional-limit` counts on its input (see test_properties for generated schemas)."""
    from wireschema.passes.counts import count_properties, trunk_counts

    short = []
    for record in RECORDS:
        result = wireschema.normalize(record["schema"], target)
        if result.strict and trunk_counts(record["schema"])[1] > count_properties(result.schema)[0]:
            short.append(record["id"])
    assert not short, short[:10]


_REQUIRED_FROM_ELSEWHERE = {
    # an allOf branch that requires the name folds into the object
    "all-of": {"allOf": [{"required": ["a"]}]},
    # a $ref with siblings is inlined, and the definition's required joins the object's
    "ref": {"$ref": "#/$defs/has-a", "$defs": {"has-a": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}},
    # every branch of a lifted union requires the name
    "any-of": {"anyOf": [{"required": ["a"]}, {"required": ["a"], "properties": {"b": {"type": "string"}}}]},
}


@pytest.mark.parametrize("target", OPTIONAL_LIMITED)
@pytest.mark.parametrize("case", sorted(_REQUIRED_FROM_ELSEWHERE))
def test_the_optional_limit_counts_no_property_a_rule_may_require(target, case):
    from wireschema.passes.counts import trunk_counts

    schema = {"type": "object", "properties": {"a": {"type": "string"}}, **_REQUIRED_FROM_ELSEWHERE[case]}
    assert trunk_counts(schema) == (1, 0)
    result = wireschema.normalize(schema, target)
    assert result.strict and "a" in result.schema["required"]


@pytest.mark.parametrize("target", OPTIONAL_LIMITED)
def test_the_optional_limit_counts_nothing_below_an_object_a_rule_may_merge_into(target):
    # the allOf folds into the root, and its `a` into the root's `a`: x becomes required
    # there, two levels below the keyword that brought it
    from wireschema.passes.counts import trunk_counts

    schema = {
        "type": "object",
        "properties": {"a": {"type": "object", "properties": {"x": {"type": "string"}}}},
        "required": ["a"],
        "allOf": [{"properties": {"a": {"required": ["x"]}}}],
    }
    assert trunk_counts(schema) == (2, 0)
    result = wireschema.normalize(schema, target)
    assert result.strict and result.schema["properties"]["a"]["required"] == ["x"]


# the strict targets that fail an input open on an object open on purpose before rewriting it
OPEN_REFUSED = targets_with_kind("refuse-open")


@pytest.fixture(scope="module")
def unrefused(tmp_path_factory):
    """Those targets without their `refuse-open` rule: what their other rules make of an input."""
    return targets_without_kind("refuse-open", tmp_path_factory.mktemp("unrefused"))


_REFUSE_OPEN_IDS = rule_ids_of_kind("refuse-open")


def _refused(result: wireschema.Result) -> bool:
    return refused_by(result, _REFUSE_OPEN_IDS)


@pytest.mark.skipif(not RECORDS, reason="the shared corpus is not beside the repository")
@pytest.mark.parametrize("target", OPEN_REFUSED)
def test_an_input_refused_as_open_has_no_strict_form_by_the_other_rules_either(target, unrefused):
    """Over the corpus, every input `refuse-open` refuses fails open on the target
    without that rule too (see test_properties for generated schemas)."""
    refused = strict_after_all = 0
    for record in RECORDS:
        if _refused(wireschema.normalize(record["schema"], target)):
            refused += 1
            strict_after_all += wireschema.normalize(record["schema"], unrefused[target]).strict
    assert refused and not strict_after_all


_CLOSED_BY_A_RULE = {
    # an object naming no properties, beside what brings them: no longer free-form
    "ref-with-siblings": {"$ref": "#/$defs/c", "type": "object"},
    "all-of": {"type": "object", "allOf": [{"properties": {"x": {"type": "string"}}, "additionalProperties": False}]},
    # annotations and a literal: typed by infer-type
    "enum": {"description": "d", "enum": ["x"]},
    "any-type-and-const": {"type": "any", "const": 3},
}


@pytest.mark.parametrize("target", OPEN_REFUSED)
@pytest.mark.parametrize("case", sorted(_CLOSED_BY_A_RULE))
def test_the_open_refusal_reads_no_object_a_rule_may_close(target, case):
    schema = {
        "type": "object",
        "properties": {"a": _CLOSED_BY_A_RULE[case]},
        "$defs": {"c": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": False}},
    }
    assert wireschema.normalize(schema, target).strict


def test_a_free_form_object_beside_a_conditional_is_read_as_the_lifted_properties_leave_it():
    # anthropic-strict lifts `b` out of the conditional: the object names it and is closed
    schema = {"type": "object", "properties": {"a": {"type": "object", "if": {"required": ["b"]}, "then": {"properties": {"b": {"type": "string"}}}}}}
    result = wireschema.normalize(schema, "anthropic-strict")
    assert result.strict and result.schema["properties"]["a"]["additionalProperties"] is False


@pytest.mark.parametrize("target", OPEN_REFUSED)
@pytest.mark.parametrize(
    "inner, pointer",
    [
        ({"type": "object", "additionalProperties": True}, "/properties/a/additionalProperties"),
        ({"type": "dict", "additionalProperties": {"type": "string"}}, "/properties/a/additionalProperties"),
        ({"type": "array", "items": {"type": "object", "description": "any mapping"}}, "/properties/a/items/additionalProperties"),
        ({"anyOf": [{"type": "object", "additionalProperties": True}, {"type": "null"}]}, "/properties/a/anyOf/0/additionalProperties"),
    ],
)
def test_an_object_open_on_purpose_fails_open_before_it_is_rewritten(target, inner, pointer):
    schema = {"type": "object", "properties": {"a": inner, "b": {"type": "string", "default": "x"}}}
    result = wireschema.normalize(schema, target)
    assert not result.strict and _refused(result)
    assert result.changes[0].pointer == pointer
    # nothing of the strict rewrite (which spills the default) is left
    assert result.schema["properties"]["b"]["default"] == "x"


def test_a_schema_that_accepts_any_value_fails_open_before_it_is_rewritten_where_infer_type_is_strict():
    schema = {"type": "object", "properties": {"a": {"description": "anything"}, "b": {"type": "any"}}}
    result = wireschema.normalize(schema, "openai-strict")
    assert not result.strict and result.changes[0].rule == "openai-strict/open-objects"
    assert result.changes[0].pointer == "/properties/a"
    # anthropic-strict takes such a schema: it is not refused there
    assert wireschema.normalize(schema, "anthropic-strict").strict


def test_an_input_past_the_optional_limit_fails_open_before_it_is_rewritten():
    schema = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "maxLength": 5} for i in range(30)},
        "required": ["p0", "p1", "p2", "p3", "p4"],
    }
    result = wireschema.normalize(schema, "anthropic-strict")
    assert not result.strict
    assert result.changes[0].rule == "anthropic-strict/optional-limit"
    assert result.changes[0].detail == "at least 25 optional properties (limit 24)"
    # anthropic keeps maxLength: nothing of the strict rewrite (which spills it) is left
    assert result.schema["properties"]["p0"]["maxLength"] == 5
    within = {**schema, "required": [f"p{i}" for i in range(6)]}
    assert wireschema.normalize(within, "anthropic-strict").strict


_S = {"type": "string"}
# keywords beside a `$ref` (the copy of its target then holds keywords of two places) and
# recursion, which the corpus has few of
REFS_AND_RECURSION = {
    "root-ref-beside-defs-recursing-to-root": {"$ref": "#/$defs/A", "$defs": {"A": {"type": "object", "properties": {"a": {"$ref": "#"}}}}},
    "ref-sibling-bound": {"type": "object", "properties": {"a": {"$ref": "#/$defs/X", "maxLength": 3}}, "$defs": {"X": _S}},
    "ref-siblings-of-every-sort": {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/X", "maxLength": 3, "format": "uri", "default": "x", "pattern": "^(?=a)", "examples": ["a"], "description": "d", "const": "abc"}},
        "$defs": {"X": _S},
    },
    "ref-siblings-that-are-boolean-subschemas": {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/O", "additionalProperties": False, "unevaluatedProperties": False, "propertyNames": True, "items": False}},
        "$defs": {"O": {"type": "object", "properties": {"x": _S}}},
    },
    "ref-siblings-over-the-targets-keywords": {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/N", "minimum": 1, "exclusiveMinimum": 0, "multipleOf": 2}},
        "$defs": {"N": {"type": "integer", "minimum": 0, "maximum": 9}},
    },
    "ref-siblings-adding-properties": {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/O", "properties": {"y": {"type": "integer", "minimum": 1}}, "required": ["y"], "minProperties": 1, "dependentRequired": {"x": ["y"]}}},
        "$defs": {"O": {"type": "object", "properties": {"x": _S}}},
    },
    "ref-chain-with-siblings-at-each-hop": {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A", "maxLength": 5}},
        "$defs": {"A": {"$ref": "#/$defs/B", "minLength": 1}, "B": {"type": "string", "format": "email"}},
    },
    "ref-siblings-in-items-and-a-union": {
        "type": "object",
        "properties": {"l": {"type": "array", "items": {"$ref": "#/$defs/X", "maxLength": 2}}, "u": {"anyOf": [{"$ref": "#/$defs/X", "minLength": 1}, {"type": "null"}]}},
        "$defs": {"X": _S},
    },
    "recursive-ref-with-siblings": {
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/N", "description": "node", "maxProperties": 3}},
        "$defs": {"N": {"type": "object", "properties": {"v": {"type": "integer", "maximum": 5}, "next": {"$ref": "#/$defs/N", "description": "next", "minProperties": 1}}}},
    },
    "recursion-through-the-root-with-siblings": {
        "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$ref": "#", "maxProperties": 4}}, "name": {"type": "string", "pattern": "\\bx"}},
    },
    "allOf-of-refs-with-siblings": {
        "type": "object",
        "properties": {"a": {"allOf": [{"$ref": "#/$defs/A", "maxProperties": 2}, {"$ref": "#/$defs/B"}]}},
        "$defs": {"A": {"type": "object", "properties": {"x": _S}}, "B": {"type": "object", "properties": {"y": {"type": "integer", "minimum": 0}}}},
    },
    "draft-07-definitions-with-ref-siblings": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/X", "maxLength": 3}},
        "definitions": {"X": {"type": "string", "format": "hostname"}},
    },
    "recursion-lifted-out-of-dependentSchemas": {
        "type": "object",
        "properties": {"v": {"$ref": "#/$defs/E"}},
        "$defs": {"E": {"type": "object", "properties": {"v": {"type": "object", "unevaluatedProperties": False, "dependentSchemas": {"a": {"$ref": "#/$defs/E", "maxProperties": 3}}}}}},
    },
    "root-ref-with-siblings": {
        "$ref": "#/$defs/R",
        "description": "r",
        "additionalProperties": False,
        "$defs": {"R": {"type": "object", "properties": {"a": {"type": "string", "maxLength": 4}}, "required": ["a"]}},
    },
}


# merges that make a union of schemas two branches give one property (collapse-any-of's
# object-merge, merge-all-of's properties both define): the union made stands where the
# property's first schema was written, and its keyword where the merged union was
MERGED_UNIONS = {
    "anyOf-of-objects-that-define-a-property-differently": {
        "type": "object",
        "properties": {"r": {"anyOf": [
            {"type": "object", "properties": {"v": {"type": "array", "items": _S}, "e": {"type": "null", "default": None}}, "required": ["v"]},
            {"type": "object", "properties": {"v": {"type": "null", "default": None}, "e": {"type": "string", "maxLength": 9}}, "required": ["e"]},
        ]}},
    },
    "anyOf-of-refs-to-objects-that-define-a-property-differently": {
        "type": "object",
        "properties": {"r": {"anyOf": [{"$ref": "#/$defs/Ok"}, {"$ref": "#/$defs/Err"}]}},
        "$defs": {
            "Ok": {"type": "object", "properties": {"v": {"type": "array", "items": _S}, "e": {"type": "null"}}, "required": ["v"]},
            "Err": {"type": "object", "properties": {"v": {"type": "null"}, "e": {"type": "string"}}, "required": ["e"]},
        },
    },
    "anyOf-of-three-objects-and-a-boolean-property": {
        "type": "object",
        "properties": {"r": {"anyOf": [
            {"type": "object", "properties": {"v": True}},
            {"type": "object", "properties": {"v": {"type": "integer", "minimum": 1}}},
            {"type": "object", "properties": {"v": {"type": "string", "format": "date"}}},
        ]}},
    },
    "anyOf-beside-the-objects-own-property": {
        "type": "object",
        "properties": {"r": {
            "type": "object",
            "properties": {"a": {"type": "string", "maxLength": 2}},
            "anyOf": [{"type": "object", "properties": {"a": {"type": "integer"}}}, {"type": "object", "properties": {"b": _S}}],
        }},
    },
    "allOf-of-objects-that-define-a-property-differently": {
        "type": "object",
        "properties": {"x": {"allOf": [
            {"type": "object", "properties": {"t": {"type": "string", "enum": ["a", "b"]}}},
            {"type": "object", "properties": {"t": {"type": "integer", "maximum": 3}}},
        ]}},
    },
}
POINTER_CASES = {**REFS_AND_RECURSION, **MERGED_UNIONS}


def _in(schema, pointer: str) -> bool:
    node = schema
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False
    return True


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(POINTER_CASES))
def test_every_change_points_into_the_input(target, case):
    """A change's pointer names where it happened in the input: its parent is there, and a
    keyword dropped or spilled was written there (unless an earlier change made it, at
    that node: a keyword renamed or upgraded)."""
    schema = POINTER_CASES[case]
    result = wireschema.normalize(schema, target)
    changed: set[str] = set()
    for change in result.changes:
        if change.rule.startswith("budget/") or not change.pointer:
            continue
        parent = change.pointer.rsplit("/", 1)[0]
        assert _in(schema, parent), change
        if change.action in ("dropped", "spilled") and parent not in changed:
            assert _in(schema, change.pointer), change
        changed.update((parent, change.pointer))


def test_a_union_collapsed_on_cca_claude_is_reported_where_the_input_wrote_it():
    schema = MERGED_UNIONS["anyOf-of-objects-that-define-a-property-differently"]
    result = wireschema.normalize(schema, "cca-claude")
    assert [c for c in result.changes if not _in(schema, c.pointer)] == []
    # the unions the merge made for v and e, collapsed in turn, are each reported where
    # the first branch wrote that property (one line each, not one for both)
    made = [(c.pointer, c.action) for c in result.changes if "mixed-type" in c.detail or c.action == "spilled" and "anyOf" in c.detail]
    first = "/properties/r/anyOf/0/properties"
    assert made == [(f"{first}/v", "spilled"), (f"{first}/v", "rewritten"), (f"{first}/e", "spilled"), (f"{first}/e", "rewritten")]
    assert "(anyOf: " in result.schema["properties"]["r"]["properties"]["v"]["description"]


def test_a_keyword_beside_a_ref_is_reported_where_it_was_written():
    result = wireschema.normalize(REFS_AND_RECURSION["ref-sibling-bound"], "gemini-jsonschema")
    assert [c.pointer for c in result.changes if c.action == "spilled"] == ["/properties/a/maxLength"]
    assert "(maxLength: 3)" in result.schema["properties"]["a"]["description"]


@pytest.mark.parametrize("target", TARGETS)
def test_definitions_beside_a_root_ref_are_reported_at_the_roots_defs(target):
    result = wireschema.normalize(REFS_AND_RECURSION["root-ref-beside-defs-recursing-to-root"], target)
    dropped = [c for c in result.changes if c.action == "dropped" and "$defs" in c.pointer]
    assert dropped and all(c.pointer == "/$defs" for c in dropped), dropped


@pytest.mark.skipif(not RECORDS, reason="the shared corpus is not beside the repository")
@pytest.mark.parametrize("target", TARGETS)
def test_corpus_guarantees(target):
    """No exception; caller's input unchanged; same bytes twice; JSON-serializable;
    passes the residual checks of its wire; normalizing the output again is a fixed point."""
    problems = []
    for record in RECORDS:
        schema = record["schema"]
        before = json.dumps(schema)
        first = wireschema.normalize(schema, target)
        second = wireschema.normalize(schema, target)  # run again, and stored
        hit = wireschema.normalize(schema, target)
        out = json.dumps(first.schema)
        if json.dumps(schema) != before:
            problems.append((record["id"], "input mutated"))
        if json.dumps(second.schema) != out or second.changes != first.changes:
            problems.append((record["id"], "not deterministic"))
        if json.dumps(hit.schema) != out or hit != second:
            problems.append((record["id"], "a cache hit differs from the run"))
        wire = _effective(target, first)
        violations = wireschema.check(first.schema, wire)
        if violations:
            problems.append((record["id"], f"breaks {violations[0]}"))
        if not first.used_fallback:
            again = wireschema.normalize(first.schema, wire)
            if json.dumps(again.schema) != out:
                problems.append((record["id"], "not a fixed point"))
    assert not problems, f"{len(problems)} of {len(RECORDS)}: {problems[:10]}"


@pytest.mark.skipif(not RECORDS, reason="the shared corpus is not beside the repository")
@pytest.mark.parametrize("engine", ["planned", "staged"])
@pytest.mark.parametrize("target", TARGETS)
def test_a_run_leaves_nothing_to_the_garbage_collector(target, engine, monkeypatch):
    """Every run's tree, origins and walks are freed by reference counting as it ends:
    no reference cycle is left for the collector, which is paused while a schema is
    normalized (see `_normalize`), so none can pile up."""
    import gc

    from wireschema import pipeline

    monkeypatch.setenv("WIRESCHEMA_NO_CACHE", "1")
    monkeypatch.setattr(pipeline, "ENGINE", engine)
    schemas = [r["schema"] for r in RECORDS[::40]]
    for schema in schemas[:5]:  # compiled and planned first: what is made once is kept
        wireschema.normalize(schema, target)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for schema in schemas:
            wireschema.normalize(schema, target)
        gc.collect()
        left = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == [], sorted({type(o).__name__ for o in left})


_REPORTED = ("mcp.jsonl", "bfcl.jsonl", "pydantic.jsonl")


@functools.lru_cache(maxsize=1)
def _reported_schemas():
    """The schemas CONTRIBUTING's corpus table is printed from, read once for every target."""
    return read_schemas([str(CORPUS / name) for name in _REPORTED])


@pytest.mark.skipif(
    not all((CORPUS / name).is_file() for name in _REPORTED), reason="the shared corpus is not beside the repository"
)
@pytest.mark.parametrize("target", TARGETS)
def test_the_corpus_figures_in_contributing_are_what_the_report_prints(target):
    """CONTRIBUTING's corpus table is the report's output, row by row: a rule change that
    moves a figure regenerates the table (the command is printed above it)."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    header, *_, printed = render(_reported_schemas(), [target]).splitlines()
    table = text[text.index(header) :].split("\n\n", 1)[0].splitlines()
    assert [row for row in table if row.startswith(f"| `{target}` |")] == [printed]
