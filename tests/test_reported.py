"""A change the report names is really in the output: text a rule spilled into a
description survives whatever later rewrites that description (a keyword beside a
`$ref`, a union folded or collapsed into its parent)."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import pytest

import wireschema
from wireschema.run import Run

from conftest import CORPUS, ROOT


def descriptions(value) -> str:
    """Every description string of a schema, one per line."""
    found, stack = [], [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "description" and isinstance(v, str):
                    found.append(v)
                else:
                    stack.append(v)
        elif isinstance(node, list):
            stack.extend(node)
    return "\n".join(found)


@pytest.fixture
def spills(monkeypatch):
    """(pointer, text) of every spill the runs below make, as Run.spill writes it."""
    made: list[tuple[str, str]] = []
    real = Run.spill

    def spy(self, rule, node, key, value):
        before = node.get("description")
        real(self, rule, node, key, value)
        after = node.get("description")
        if isinstance(after, str) and after != before:
            added = after[len(before):] if isinstance(before, str) and after.startswith(before) else after
            made.append((self.pointer(node, key), added.strip()))

    monkeypatch.setattr(Run, "spill", spy)
    monkeypatch.setenv("WIRESCHEMA_NO_CACHE", "1")  # every run really runs
    return made


def lost_spills(result, made) -> list[tuple[str, str]]:
    """Spills the report calls spilled whose text is not in the output. A spill inside a
    subtree a later change drops is excused (the report says it is gone), but for a
    definition's: one dropped as unused, or with the `$defs` removed after inlining,
    takes its changes out of the report with it (`Run.left_out`)."""
    if result.used_fallback:
        return []
    text = descriptions(result.schema)
    spilled = [c.pointer for c in result.changes if c.action == "spilled"]
    gone = [c.pointer for c in result.changes if c.action == "dropped" and "after inlining" not in c.detail and "unused definition" not in c.detail]
    return [
        (pointer, added) for pointer, added in made
        if pointer in spilled and added not in text and not any(pointer.startswith(g + "/") for g in gone)
    ]


def test_a_spill_into_a_definition_survives_the_description_beside_its_ref(spills):
    schema = json.loads((ROOT / "examples" / "weather_tool.json").read_text())
    # the definition's own spill (false beside its properties would say nothing: not spilled)
    schema["$defs"]["Coordinates"]["additionalProperties"] = {"type": "number"}
    result = wireschema.normalize(schema, "gemini")
    location = result.schema["properties"]["location"]
    assert location["description"] == 'Exact position; overrides city when both are given. (additionalProperties: {"type":"number"})'
    assert lost_spills(result, spills) == []


def test_bounds_of_a_pydantic_alias_survive_on_anthropic_strict(spills):
    pydantic = pytest.importorskip("pydantic")
    from typing_extensions import TypeAliasType

    rating = TypeAliasType("Rating", Annotated[int, pydantic.Field(ge=1, le=5)])

    class Review(pydantic.BaseModel):
        stars: rating = pydantic.Field(description="How good")  # type: ignore[valid-type]
        again: Optional[rating] = None  # type: ignore[valid-type]

    result = wireschema.normalize(Review, "anthropic-strict")
    assert result.schema["properties"]["stars"]["description"] == "How good (maximum: 5) (minimum: 1)"
    assert lost_spills(result, spills) == []


def test_a_spill_into_a_union_branch_survives_the_fold_into_its_parent(spills):
    schema = {"type": "object", "properties": {"f": {
        "description": "Filters.", "anyOf": [{"type": "object", "additionalProperties": {"type": "string"}}, {"type": "null"}]}}}
    result = wireschema.normalize(schema, "gemini")
    assert result.schema["properties"]["f"]["description"] == 'Filters. (additionalProperties: {"type":"string"})'
    assert lost_spills(result, spills) == []


def test_a_same_type_collapse_keeps_the_branches_spills_and_names_what_it_loosened(spills):
    schema = {"type": "object", "properties": {"t": {
        "description": "When.", "anyOf": [{"type": "string"}, {"type": "string", "format": "date-time"}],
    }, "r": {"anyOf": [{"type": "array", "items": {"type": "object", "additionalProperties": True}},
                       {"type": "array", "items": {"type": "string"}}]}}}
    result = wireschema.normalize(schema, "cca-claude")
    assert result.schema["properties"]["t"]["description"] == "When. (format: date-time)"
    assert "cca/any-of /properties/r/anyOf/0/items dropped: items loosened away: the union's branches differ in it" in map(str, result.changes)
    assert lost_spills(result, spills) == []


def test_a_mixed_type_collapse_keeps_a_nested_spill_as_text(spills):
    schema = {"type": "object", "properties": {"v": {"anyOf": [
        {"type": "string"}, {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}]}}}
    result = wireschema.normalize(schema, "cca-claude")
    assert '(anyOf[1]/items: (anyOf: [{"type":"string"},{"type":"integer"}]))' in result.schema["properties"]["v"]["description"]
    assert lost_spills(result, spills) == []


def _tool_schemas() -> list[tuple[str, object]]:
    out = []
    for name in ("mcp.jsonl", "bfcl.jsonl", "pydantic.jsonl"):
        path = CORPUS / name
        if path.is_file():
            out.extend((r["id"], r["schema"]) for r in map(json.loads, path.read_text(encoding="utf-8").splitlines()))
    return out


@pytest.mark.parametrize("target", [t.name for t in wireschema.targets()])
def test_every_spilled_text_of_the_corpus_is_in_the_output(target, spills):
    schemas = _tool_schemas()
    if not schemas:
        pytest.skip("the shared corpus is not next to the repository")
    lost = []
    for rid, schema in schemas:
        spills.clear()
        lost.extend((rid, *miss) for miss in lost_spills(wireschema.normalize(schema, target), spills))
    assert lost == []


_BASE_AND_STEP = {"type": "object", "properties": {"step": {"$ref": "#/$defs/Step"}}, "$defs": {
    "Base": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 50}}},
    "Step": {"allOf": [{"$ref": "#/$defs/Base"}, {"type": "object", "properties": {"when": {"type": "string"}}}]}}}


@pytest.mark.parametrize("target", ["gemini-jsonschema", "vertex"])
def test_an_all_of_that_extends_a_definition_merges_where_defs_are_kept(target, spills):
    result = wireschema.normalize(_BASE_AND_STEP, target)
    step = result.schema.get("$defs", result.schema.get("defs"))["Step"]
    assert step["type"] == "object" and list(step["properties"]) == ["name", "when"]
    assert "allOf" not in json.dumps(result.schema)
    assert lost_spills(result, spills) == []


_CONFLICT = {"type": "object", "properties": {"step": {"$ref": "#/$defs/Step"}}, "$defs": {
    "Other": {"type": "object", "properties": {"z": {"type": "string"}}},
    "Base": {"type": "object", "properties": {"o": {"$ref": "#/$defs/Other"}}},
    "Step": {"allOf": [{"$ref": "#/$defs/Base"}, {"type": "string"}]}}}

_RECURSIVE_BASE = {"type": "object", "properties": {"t": {"$ref": "#/$defs/Tagged"}}, "$defs": {
    "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}},
    "Tagged": {"allOf": [{"$ref": "#/$defs/Node"}, {"type": "object", "properties": {"tag": {"type": "string"}}}]}}}


@pytest.mark.parametrize("target", ["gemini-jsonschema", "vertex"])
@pytest.mark.parametrize(("schema", "named"), [(_CONFLICT, "Other"), (_RECURSIVE_BASE, "Node")])
def test_a_definition_that_spilled_text_names_is_kept(target, schema, named, spills):
    result = wireschema.normalize(schema, target)
    defs = result.schema.get("$defs", result.schema.get("defs"))
    assert f'"$ref":"#/$defs/{named}"' in descriptions(result.schema)
    assert named in defs
    assert f"unused definition {named}" not in " ".join(c.detail for c in result.changes)
    assert lost_spills(result, spills) == []


@pytest.mark.parametrize("target", [t.name for t in wireschema.targets()])
@pytest.mark.parametrize("schema", [_BASE_AND_STEP, _CONFLICT, _RECURSIVE_BASE], ids=["extends", "conflict", "recursive"])
def test_every_spilled_text_of_a_definition_pattern_is_in_the_output(target, schema, spills):
    assert lost_spills(wireschema.normalize(schema, target), spills) == []


def test_a_spill_beside_a_one_branch_all_of_survives_the_branch_winning(spills):
    schema = {"allOf": [{"multipleOf": 2}], "anyOf": [{"multipleOf": 3}], "oneOf": [{"multipleOf": 5}]}
    result = wireschema.normalize(schema, "gemini")
    # the allOf folds first (top-down), so the spill its branch's keyword makes comes last
    assert result.schema["description"] == '(anyOf: [{"multipleOf":3}]) (oneOf: [{"multipleOf":5}]) (multipleOf: 2)'
    assert lost_spills(result, spills) == []


def test_a_spill_beside_an_any_of_survives_the_move_into_branches_with_their_own_text(spills):
    schema = {"type": "object", "properties": {"x": {"type": "object", "not": {"required": ["a"]}, "anyOf": [
        {"description": "One.", "type": "object", "properties": {"a": {"type": "string"}}},
        {"description": "Two.", "type": "object", "properties": {"b": {"type": "string"}}}]}}}
    result = wireschema.normalize(schema, "vertex")
    assert [b["description"] for b in result.schema["properties"]["x"]["anyOf"]] == [
        'One. (not: {"required":["a"]})', 'Two. (not: {"required":["a"]})']
    assert lost_spills(result, spills) == []


_UNUSED_AND_USED = {"type": "object", "properties": {"b": {"$ref": "#/$defs/Used"}}, "$defs": {
    "Unused": {"type": "object", "properties": {"x": {"type": "string", "maxLength": 5, "not": {"const": "no"}}}},
    "Used": {"type": "string", "maxLength": 3, "not": {"const": "never"}}}}


@pytest.mark.parametrize("target", [t.name for t in wireschema.targets()])
def test_a_change_inside_a_definition_that_leaves_the_tree_leaves_the_report(target, spills):
    """Spilled or rewritten inside a definition then dropped as unused (or with the `$defs`
    removed once inlined), a change was reported though no output held it. One made
    before the definition was copied where a `$ref` used it goes along with the copy."""
    result = wireschema.normalize(_UNUSED_AND_USED, target)
    assert not any(c.pointer.startswith("/$defs/Unused/") for c in result.changes), result.changes
    assert lost_spills(result, spills) == []


def test_a_spill_made_before_inlining_is_reported_with_the_copy_that_carries_it(spills):
    result = wireschema.normalize(_UNUSED_AND_USED, "gemini")  # `not` is spilled before refs are inlined
    assert result.schema["properties"]["b"]["description"] == '(not: {"const":"never"})'
    assert "gemini/unsupported-subschemas /$defs/Used/not spilled: not moved into description" in map(str, result.changes)
    assert lost_spills(result, spills) == []


_TWO_DESCRIBED_BRANCHES = {"type": "object", "properties": {"p": {"type": "object", "allOf": [
    {"description": "Not a.", "not": {"required": ["a"]}}, {"description": "Not b.", "not": {"required": ["b"]}}]}}}


@pytest.mark.parametrize("target", ["gemini-jsonschema", "vertex", "cca-claude", "gemini"])
def test_two_described_all_of_branches_keep_both_texts_and_both_spills_in_branch_order(target, spills):
    result = wireschema.normalize(_TWO_DESCRIBED_BRANCHES, target)
    assert result.schema["properties"]["p"]["description"] == 'Not a. (not: {"required":["a"]}) Not b. (not: {"required":["b"]})'
    assert lost_spills(result, spills) == []


def test_all_of_branches_that_say_what_the_description_says_add_only_what_is_new(spills):
    schema = {"type": "object", "properties": {"p": {"type": "object", "description": "Shared.", "allOf": [
        {"description": "Shared."}, {"description": "Shared.", "not": {"required": ["b"]}}, {"description": "Own."}, {"description": "Own."}]}}}
    result = wireschema.normalize(schema, "gemini")
    assert result.schema["properties"]["p"]["description"] == 'Shared. (not: {"required":["b"]}) Own.'
    assert lost_spills(result, spills) == []


@pytest.mark.parametrize("target", ["gemini-jsonschema", "vertex", "cca-claude", "gemini"])
def test_a_property_two_all_of_branches_describe_keeps_both_descriptions(target, spills):
    schema = {"type": "object", "properties": {"p": {"allOf": [
        {"type": "object", "properties": {"n": {"type": "string", "description": "Name."}}},
        {"properties": {"n": {"type": "string", "description": "Of the step.", "not": {"const": "x"}}}}]}}}
    result = wireschema.normalize(schema, target)
    assert result.schema["properties"]["p"]["properties"]["n"]["description"] == 'Name. Of the step. (not: {"const":"x"})'
    assert lost_spills(result, spills) == []


_UNUSED_ALL_OF = {"type": "object", "properties": {"a": {"type": "string"}}, "$defs": {
    "Play": {"type": "object", "allOf": [{"not": {"required": ["x"]}}, {"not": {"required": ["y"]}}]}}}


@pytest.mark.parametrize("target", [t.name for t in wireschema.targets()])
def test_spills_into_all_of_branches_leave_the_report_with_their_unused_definition(target, spills):
    """The branches fold into their parent (their spilled text with them), then the
    definition is dropped as unused: the spills went where the branches went."""
    result = wireschema.normalize(_UNUSED_ALL_OF, target)
    assert not any(c.action == "spilled" and c.pointer.startswith("/$defs/Play/") for c in result.changes), result.changes
    assert lost_spills(result, spills) == []


_BESIDE_A_RECURSIVE_REF = {"type": "object", "properties": {"n": {"$ref": "#/$defs/Node"}}, "$defs": {
    "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}},
    "Loop": {"$ref": "#/$defs/Loop", "description": "Loops.", "allOf": [{"not": {"required": ["q"]}}]}}}


@pytest.mark.parametrize("target", ["gemini-jsonschema", "vertex"])
def test_a_spill_among_the_keywords_dropped_beside_a_recursive_ref_leaves_the_report(target, spills):
    result = wireschema.normalize(_BESIDE_A_RECURSIVE_REF, target)
    assert not any(c.action == "spilled" and c.pointer.startswith("/$defs/Loop/") for c in result.changes), result.changes
    assert lost_spills(result, spills) == []


def test_a_spill_inside_a_value_a_collapse_loosens_away_leaves_the_report(spills):
    severity = {"type": "object", "properties": {"severity": {"type": "integer", "description": "How bad.", "minimum": 1, "maximum": 200}}}
    schema = {"type": "object", "properties": {"v": {"oneOf": [
        {"type": "array", "items": {"$ref": "#/$defs/Log"}}, {"type": "array", "items": {"$ref": "#/$defs/Alarm"}}]}},
        "$defs": {"Log": severity, "Alarm": {"type": "object", "properties": {"severity": {"type": "integer", "minimum": 201}}}}}
    result = wireschema.normalize(schema, "cca-claude")
    assert "cca/any-of /properties/v/oneOf/0/items dropped: items loosened away: the union's branches differ in it" in map(str, result.changes)
    assert not any(c.action == "spilled" and "severity" in c.pointer for c in result.changes), result.changes
    assert lost_spills(result, spills) == []


@pytest.mark.corpus
@pytest.mark.parametrize("target", ["gemini-jsonschema", "vertex", "gemini", "anthropic", "openai-chat"])
def test_every_spilled_text_of_the_schemastore_documents_is_in_the_output(target, spills):
    """Definitions whose allOf branches, or copies of them, spilled and then folded or
    were spilled themselves, before the definition was dropped: none of it reported."""
    path = CORPUS / "general.jsonl"
    if not path.is_file():
        pytest.skip("the shared corpus is not next to the repository")
    lost = []
    for record in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
        spills.clear()
        try:
            result = wireschema.normalize(record["schema"], target)
        except wireschema.WireschemaError:
            continue  # refused as a whole: nothing reported, nothing to lose
        lost.extend((record["id"], *miss) for miss in lost_spills(result, spills))
    assert lost == []
