"""A compiled target's plan gives the staged reference's result, byte for byte.

`pipeline.ENGINE` picks how targets run: "planned" (the default: stages skipped where no
rule can have work, walks fused where the kinds' contracts allow, checks inside the
last walk), "staged" (every stage its own compiled walk) or "iterative" (the generic
walk, which reads no kind's cheap test). All three must agree on every output, change,
flag and note.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wireschema
from wireschema import pipeline, plans
from wireschema.model import Options
from wireschema.prepare import copy_input
from wireschema.run import Run

from conftest import CORPUS

# corpus-wide: CI runs it (pytest -m corpus); the default run leaves it out
pytestmark = pytest.mark.corpus

TARGETS = [t.name for t in wireschema.targets()]


def _corpus(step: int) -> list:
    if not (CORPUS / "mcp.jsonl").is_file():
        pytest.skip("the shared corpus is not beside the repository")
    out = []
    for name in ("mcp", "bfcl", "pydantic", "general", "jsts"):
        with open(CORPUS / f"{name}.jsonl", encoding="utf-8") as f:
            out.extend(json.loads(line)["schema"] for line in f)
    return out[::step]


def _outcome(result) -> tuple:
    return (
        json.dumps(result.schema),
        tuple(str(c) for c in result.changes),
        result.strict,
        result.used_fallback,
        result.fallback_reason,
        result.strict_reason,
        json.dumps(result.notes, sort_keys=True, default=list),
    )


def _run(schema, target, engine, options=None):
    saved = pipeline.ENGINE
    pipeline.ENGINE = engine
    try:
        return pipeline.run_target(schema, wireschema._target(target), options or Options())
    finally:
        pipeline.ENGINE = saved


@pytest.fixture(scope="module")
def corpus():
    return _corpus(3)


@pytest.mark.parametrize("target", TARGETS)
def test_the_plan_gives_the_staged_result_over_the_corpus(target, corpus, monkeypatch):
    planned = []
    real = pipeline._planned

    def counting(*args):
        result = real(*args)
        planned.append(result is not None)
        return result

    monkeypatch.setattr(pipeline, "_planned", counting)
    for i, schema in enumerate(corpus):
        assert _outcome(_run(schema, target, "planned")) == _outcome(_run(schema, target, "staged")), i
    # the plan is what runs: the staged run decides only where a plan did not go as planned
    assert sum(planned) > 0.7 * len(planned)


@pytest.mark.parametrize("target", ["openai-strict", "gemini", "anthropic-strict"])
def test_past_its_variety_a_walk_holds_every_visitor_and_gives_the_same_result(target, corpus, monkeypatch):
    # a walk compiles for the visitors its input can need, up to _VARIETY sets per run of
    # stages; past that (0 here) every input takes the walk holding all of them
    monkeypatch.setattr(plans, "_VARIETY", 0)
    planner = wireschema._target(target).planner()
    for memo in ("_plans", "_by_census", "_walks", "_variety"):
        monkeypatch.setattr(planner, memo, {})
    for i, schema in enumerate(corpus[::2]):
        assert _outcome(_run(schema, target, "planned")) == _outcome(_run(schema, target, "staged")), i
    groups = {key[0]: key[1] for key in planner._walks if key[0] != "checks"}
    assert groups and all(held == {r.id for j in stages for r in planner.infos[j].stage.rules} for stages, held in groups.items())


def test_a_walk_holds_only_the_visitors_its_input_can_need(monkeypatch):
    planner = wireschema._target("gemini").planner()
    for memo in ("_plans", "_by_census", "_walks", "_variety"):
        monkeypatch.setattr(planner, memo, {})
    _run({"type": "object", "properties": {"a": {"type": "string"}}}, "gemini", "planned")
    held = [key[1] for key in planner._walks if key[0] != "checks"]
    assert held and all("draft/definitions" not in ids and "prepare/type-names" in ids for ids in held)



def _walked_stages(target, schema: dict, monkeypatch) -> list:
    planner = (wireschema._target(target) if isinstance(target, str) else target).planner()
    for memo in ("_plans", "_by_census", "_walks", "_variety"):
        monkeypatch.setattr(planner, memo, {})
    planned = _run(schema, target, "planned")
    assert _outcome(planned) == _outcome(_run(schema, target, "staged"))
    return [[planner.infos[i].stage.rules[0].id for i in key[0]] for key in planner._walks]


def test_post_visitors_reading_their_node_alone_fuse_after_such_post_visitors(monkeypatch):
    # xai: openai-chat's object-properties and array-items (post, each reads its node
    # alone; the second makes `items: {}` after the array's children were walked) and
    # then xai's close-objects (post, its node alone, makes nothing): one walk, where
    # the staged run takes two
    schema = {"type": "object", "properties": {"tags": {"type": "array"}, "n": {"type": "object", "properties": {"a": {"type": "string"}}}}}
    walks = _walked_stages("xai", schema, monkeypatch)
    assert len(walks) == 1
    assert {"openai-chat/drop-identifiers", "xai/all-of"} <= set(walks[0])  # xai/all-of: close-objects' stage


def test_a_subschema_an_earlier_post_visitor_makes_is_walked_from_its_stage_on(tmp_path, monkeypatch):
    # made/items (post) makes an items schema after the array's children were walked:
    # its own stage's pre visitor (made/drop-title) and the later stage's post visitor
    # (made/close, fused) visit it, as their staged walks do; the stages before them not
    from conftest import write_rules

    write_rules(tmp_path, "made.yaml", """
        extends: mcp
        rules:
          - {id: made/drop-title, kind: drop, keys: [title], why: a pre visitor}
          - {id: made/items, kind: ensure-items, schema: {type: object, title: made, properties: {a: {type: string}}}, why: a post visitor that makes a subschema}
          - {id: made/drop-never, kind: drop, keys: [x-never], why: a pre visitor after it starts a new stage}
          - {id: made/close, kind: close-objects, open: keep, why: a post visitor of the new stage that makes none}
        """)
    target = wireschema.load_rules(tmp_path)["made"]
    schema = {"type": "object", "properties": {"tags": {"type": "array", "title": "Tags"}}}
    walks = _walked_stages(target, schema, monkeypatch)
    assert ["made/drop-title", "made/drop-never"] in [[w for w in walk if w.startswith("made/")] for walk in walks]
    made = _run(schema, target, "planned").schema["properties"]["tags"]["items"]
    assert "title" not in made and made["additionalProperties"] is False


def test_a_later_post_visitor_reading_children_keeps_its_walk_apart(tmp_path, monkeypatch):
    # made/settle (post) reads the children of its node, among which made/items (post,
    # an earlier stage) puts a subschema its stage has not walked yet in a fused walk
    from conftest import write_rules

    write_rules(tmp_path, "made.yaml", """
        extends: mcp
        rules:
          - {id: made/items, kind: ensure-items, schema: {anyOf: [{type: string}, {type: "null"}]}, why: a post visitor that makes a subschema}
          - {id: made/drop-never, kind: drop, keys: [x-never], why: a pre visitor after it starts a new stage}
          - {id: made/settle, kind: nullable-settle, style: marker, why: a post visitor reading its children}
        """)
    target = wireschema.load_rules(tmp_path)["made"]
    schema = {"type": "object", "properties": {"tags": {"type": "array"}, "n": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}
    walks = _walked_stages(target, schema, monkeypatch)
    assert not any({"made/items", "made/drop-never"} <= set(walk) for walk in walks)


def test_a_subschema_a_rule_makes_is_its_own_and_its_changes_point_where_it_stands(tmp_path):
    # each array gets its own copy of the rule's items schema: what a later rule changes
    # in one (settle rewrites the null branch) reaches neither the option nor the other,
    # and is reported inside the `items` it stands in, by every engine
    from conftest import write_rules

    write_rules(tmp_path, "made.yaml", """
        extends: mcp
        rules:
          - {id: made/items, kind: ensure-items, schema: {anyOf: [{type: string}, {type: "null"}]}, why: a subschema of the rule's own}
          - {id: made/settle, kind: nullable-settle, style: marker, why: rewrites the made null branch}
        """)
    target = wireschema.load_rules(tmp_path)["made"]
    schema = {"type": "object", "properties": {"t": {"type": "array"}, "u": {"type": "array"}}}
    results = [_run(schema, target, engine) for engine in ("planned", "staged", "iterative", "planned")]
    assert len({_outcome(r) for r in results}) == 1
    made = results[0].schema["properties"]
    assert made["t"]["items"] is not made["u"]["items"]
    assert [c.pointer for c in results[0].changes if c.rule == "made/settle"][:2] == ["/properties/t/items/anyOf/1/type", "/properties/t/items/anyOf"]
    option = next(r for r in target.rules if r.id == "made/items").options["schema"]
    assert option == {"anyOf": [{"type": "string"}, {"type": "null"}]}


def test_a_rule_that_acts_only_inside_a_made_subschema_is_planned(tmp_path, monkeypatch):
    # the input holds no `format`: only the items schema made/items makes does, one level
    # down, and made/no-format (a later stage) must still be in the plan
    from conftest import write_rules

    write_rules(tmp_path, "made.yaml", """
        extends: mcp
        rules:
          - {id: made/items, kind: ensure-items, schema: {anyOf: [{type: string, format: date}]}, why: a subschema of the rule's own}
          - {id: made/no-format, kind: drop, keys: [format], why: a later stage acting only inside it}
        """)
    target = wireschema.load_rules(tmp_path)["made"]
    rule = next(r for r in target.rules if r.id == "made/items")
    assert {"items", "anyOf", "type", "format"} <= rule.spec.added_keys(rule.options)
    schema = {"type": "object", "properties": {"t": {"type": "array"}}}
    _walked_stages(target, schema, monkeypatch)
    assert _run(schema, target, "planned").schema["properties"]["t"]["items"] == {"anyOf": [{"type": "string"}]}


def test_post_visitors_reading_a_subtree_keep_a_later_walk_apart(monkeypatch):
    # openai-strict-compat: require-all (post) reads its subtree, which keep-only (post,
    # a later stage) would change below it first in a fused walk
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    walks = _walked_stages("openai-strict-compat", schema, monkeypatch)
    assert ["openai-strict-compat/constraints"] in walks  # a walk of its own


def test_a_rule_moving_booleans_wakes_the_boolean_check_only_where_there_are_some():
    # require-all moves an optional property, a boolean one too, into `anyOf`: the
    # boolean check can have work in `anyOf` only where `properties` held a boolean
    planner = wireschema._target("openai-strict").planner()
    census = frozenset({"type", "properties"})
    assert "openai-strict/check-booleans" not in planner._reachable(census)
    assert "openai-strict/check-booleans" in planner._reachable(census | {"<in>:properties"})
    plain = {"type": "object", "properties": {"a": {"type": "string"}}}
    boolean = {"type": "object", "properties": {"a": True, "b": {"type": "string"}}}
    for schema in (plain, boolean):
        assert _outcome(_run(schema, "openai-strict", "planned")) == _outcome(_run(schema, "openai-strict", "staged"))

def test_a_union_without_a_ref_wakes_no_inlining_and_a_stage_that_cannot_run_adds_nothing():
    # inline-refs (anthropic/root-refs, on anyOf) may add any keyword, but only where a
    # `$ref` is there to inline (`Kind.requires`); root-union-properties selects the
    # root, so an anyOf below it gives its stage no work, and the boolean markers it
    # could add wake no boolean rule or check
    planner = wireschema._target("anthropic-strict").planner()
    census = frozenset({"type", "properties", "anyOf", "a"})
    active, _reads = planner._active(census & planner._relevant, frozenset({"type", "properties"}))
    kept = planner._reachable(census, active)
    assert kept != planner._every and "anthropic-strict/check-recursion" not in kept
    assert not {"anthropic/root-union-properties", "anthropic-strict/booleans", "anthropic-strict/check-booleans"} & kept
    assert planner._reachable(census | {"$ref"}) == planner._every
    schema = {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}
    for target in ("anthropic-strict", "anthropic", "openai-chat"):
        assert _outcome(_run(schema, target, "planned")) == _outcome(_run(schema, target, "staged"))


@pytest.mark.parametrize("target", TARGETS)
def test_the_compiled_walks_give_the_generic_walks_result(target, corpus):
    # the generic walk calls every kind wherever its trigger keywords are: the compiled
    # walks' cheap tests (`acts_if`) never skip a call that would have changed something
    for i, schema in enumerate(corpus[::4]):
        assert _outcome(_run(schema, target, "staged")) == _outcome(_run(schema, target, "iterative")), i


_KEYWORDS = st.sampled_from(
    ["type", "properties", "items", "anyOf", "oneOf", "allOf", "enum", "const", "default", "required",
     "additionalProperties", "prefixItems", "not", "format", "pattern", "description", "nullable",
     "minimum", "$ref", "$defs", "any_of", "title", "examples", "minItems", "uniqueItems", "dependencies",
     "definitions", "pattern_properties", "additional_properties", "one_of", "patternProperties",
     "additionalItems", "if", "then", "else", "$id", "unevaluatedProperties"]
)
_LEAVES = st.one_of(
    st.sampled_from(["string", "integer", "number", "object", "array", "null", "boolean", "dict", "float", "any"]),
    st.integers(-3, 3),
    st.booleans(),
    st.none(),
    st.just("#/$defs/a"),
    st.just("#"),
)


def _schemas():
    return st.recursive(
        _LEAVES,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.one_of(_KEYWORDS, st.sampled_from(["a", "b"])), inner, max_size=4),
        ),
        max_leaves=25,
    ).filter(lambda s: isinstance(s, dict))


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(schema=_schemas(), target=st.sampled_from(TARGETS))
def test_plans_agree_on_generated_schemas(schema, target):
    assert _outcome(_run(schema, target, "planned")) == _outcome(_run(schema, target, "staged"))
    assert _outcome(_run(schema, target, "staged")) == _outcome(_run(schema, target, "iterative"))


def test_a_deep_tree_takes_the_iterative_walks():
    deep = {"type": "object", "properties": {}}
    node = deep
    for _ in range(400):
        child = {"type": "object", "properties": {}}
        node["properties"]["x"] = child
        node = child
    options = Options(max_depth=2000, max_nodes=100_000)
    result = wireschema.normalize(deep, "openai-chat", options=options)
    assert not result.used_fallback


def test_an_id_inside_a_default_is_data_not_a_schema():
    # lifting reads `$ref`s only where no nested `$id` could rebase them; an `$id` inside a
    # default is a literal value and must change nothing (it once made openai-chat spill
    # unevaluatedProperties and lose the lifted property b)
    base = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "oneOf": [{"$ref": "#/$defs/B"}, {"$ref": "#/$defs/B"}],
        "$defs": {"B": {"properties": {"b": {"type": "integer"}}, "required": ["b"]}},
        "unevaluatedProperties": False,
    }
    with_data = json.loads(json.dumps(base))
    with_data["properties"]["a"]["default"] = {"$id": "just data"}
    plain = wireschema.normalize(base, "openai-chat").schema
    data = wireschema.normalize(with_data, "openai-chat").schema
    assert data["properties"]["a"].pop("default") == {"$id": "just data"}
    assert data == plain


def test_a_failure_after_a_root_scoped_stage_is_the_plans_own_finding(monkeypatch):
    # anthropic-strict fuses its root check (which can fail) at the root of the walk that
    # closes objects: the root is the walk's first node, so an object open on purpose
    # found anywhere after it is the staged run's finding too, and fails open at once
    staged = []
    real = pipeline._staged
    monkeypatch.setattr(pipeline, "_staged", lambda *a: staged.append(1) or real(*a))
    # (beside propertyNames, which a rule spills first: refuse-open leaves it to close-objects)
    schema = {"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}, "propertyNames": {"minLength": 1}}}}
    planned = _run(schema, "anthropic-strict", "planned")
    assert planned.strict_reason.startswith("anthropic-strict/close-objects")
    assert staged == []
    assert _outcome(planned) == _outcome(_run(schema, "anthropic-strict", "staged"))


def test_a_fallback_after_a_fused_walk_lists_its_changes_in_stage_order(monkeypatch):
    # found by a soak of generated schemas: openai-chat (mistral's wire) fuses its root
    # stage at the root of the first walk, so it changes the root before the draft stage
    # reaches `if`; a check then fails on the root, and the fallback's changes came in
    # that order instead of the staged run's
    staged = []
    real = pipeline._staged
    monkeypatch.setattr(pipeline, "_staged", lambda *a: staged.append(1) or real(*a))
    schema = {"properties": "string", "if": {"additionalItems": {}}}
    planned = _run(schema, "mistral", "planned")
    assert planned.used_fallback and staged == []
    assert [c.rule for c in planned.changes] == ["draft/tuple-items", "openai-chat/root-object", "openai-chat/check-object-properties"]
    assert _outcome(planned) == _outcome(_run(schema, "mistral", "staged"))


# ---------------------------------------------------------------------------
# the memo of quiet leaves: a compiled walk finishes a leaf below the root without a
# test where one of its signature (keys, values' classes, the values a test may read)
# was found quiet before (`compiler._emit_variant`)


def _leaves_below_the_root(schemas: list) -> list[dict]:
    """Corpus leaves (no child schema, plain scalar values), one per signature."""
    from wireschema.passes import UNREAD_TEXT
    from wireschema.positions import SLOT_KIND

    seen: dict = {}
    todo = [child for s in schemas if isinstance(s, dict) for child in s.values()]
    while todo:
        value = todo.pop()
        if isinstance(value, list):
            todo.extend(value)
        elif isinstance(value, dict):
            todo.extend(value.values())
            plain = all(v is None or isinstance(v, (str, int, float)) for v in value.values())
            if value and plain and SLOT_KIND.keys().isdisjoint(value):
                sig = (tuple(value), tuple(map(type, value.values())), tuple(v for k, v in value.items() if k not in UNREAD_TEXT))
                seen.setdefault(sig, value)
    return list(seen.values())


def _answer(test, node):
    try:
        return test(node)
    except Exception as exc:  # noqa: BLE001 - a test that needs its trigger keyword: the same on both
        return type(exc)


def test_no_cheap_test_reads_the_text_of_an_unread_annotation(corpus):
    """Every shipped rule's and check's cheap test gives the same answer on a leaf
    whatever the text of its `UNREAD_TEXT` keywords (the memo's signature leaves it out)."""
    from wireschema.compiler import root_test
    from wireschema.passes import UNREAD_TEXT

    leaves = [leaf for leaf in _leaves_below_the_root(corpus) if not UNREAD_TEXT.isdisjoint(leaf)][:400]
    assert len(leaves) > 100
    for target in TARGETS:
        compiled = wireschema._target(target)
        for rule in (*compiled.rules, *compiled.checks):
            test = root_test(rule)
            if test is None:
                continue
            for leaf in leaves:
                other = {k: (f"other {v}" if k in UNREAD_TEXT and isinstance(v, str) else v) for k, v in leaf.items()}
                assert _answer(test, leaf) == _answer(test, other), (target, rule.id, leaf)


def test_a_leaf_like_one_found_quiet_is_not_tested_again(tmp_path, monkeypatch):
    from conftest import write_rules
    from wireschema.passes import TEST_HELPERS

    calls = []
    real = TEST_HELPERS["_shapes_differ"]
    monkeypatch.setitem(TEST_HELPERS, "_shapes_differ", lambda node: calls.append(1) or real(node))
    write_rules(tmp_path, "memo.yaml", "extends: gemini\n")  # a target of its own: its walks compiled here
    target = wireschema.load_rules(tmp_path)["memo"]
    schema = {"type": "object", "properties": {f"p{i}": {"type": "string", "description": f"field {i}"} for i in range(50)}}
    result = _run(schema, target, "planned")
    assert result.schema == schema and not result.changes
    assert 0 < len(calls) < 10  # the root, the first leaf (and its like in another walk): not 51


def test_a_leaf_alike_but_for_a_value_a_test_reads_is_judged_on_its_own():
    # `a` is quiet on gemini; `b` has the same keys and classes, but its type is a
    # Java name that prepare/type-aliases reads (and rewrites)
    schema = {"type": "object", "properties": {
        "a": {"type": "string", "description": "x"},
        "b": {"type": "String", "description": "y"},
        "c": {"type": "string", "description": "z"},
    }}
    for _ in range(2):  # the second time, every signature is met remembered or not
        result = _run(schema, "gemini", "planned")
        assert [c.pointer for c in result.changes] == ["/properties/b/type"]


def test_a_leaf_alike_but_for_an_annotations_class_is_judged_on_its_own():
    schema = {"type": "object", "properties": {"a": {"type": "string", "description": "x"}, "b": {"type": "string", "description": 5}}}
    for _ in range(2):
        result = _run(schema, "gemini", "planned")
        assert result.used_fallback and result.changes[0].pointer == "/properties/b/description"


def test_a_selector_picks_one_leaf_among_alike_ones(tmp_path):
    # the rule's test holds on `a` (it has a title) though its selector does not pick
    # it: `a` is not quiet, and `b`, alike, is still reached by the rule
    from conftest import write_rules

    write_rules(tmp_path, "pick.yaml", """
        extends: gemini
        rules:
          - id: pick/drop-title
            kind: drop
            keys: [title]
            where: $.properties.b
            why: only b's title goes
        """)
    target = wireschema.load_rules(tmp_path)["pick"]
    schema = {"type": "object", "properties": {n: {"type": "string", "title": f"Field {n}"} for n in "abc"}}
    for _ in range(2):
        result = _run(schema, target, "planned")
        assert [n for n, p in result.schema["properties"].items() if "title" in p] == ["a", "c"]


def _copies(monkeypatch) -> list:
    made = []
    real = pipeline.copy_input
    monkeypatch.setattr(pipeline, "copy_input", lambda value, run: made.append(run.target.name) or real(value, run))
    return made


def _many_properties(n: int) -> dict:
    return {f"p{i}": {"type": "string"} for i in range(n)}


@pytest.mark.parametrize("engine", ["planned", "staged"])
@pytest.mark.parametrize("target, sibling", [("openai-strict", "openai-chat"), ("anthropic-strict", "anthropic")])
def test_an_input_refused_as_open_hands_its_copy_to_the_sibling(engine, target, sibling, monkeypatch):
    # refuse-open changes nothing either: the object open on purpose is found before
    # the first rewrite, and the sibling rewrites the copy the strict run made
    made = _copies(monkeypatch)
    schema = {"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}}
    result = _run(schema, target, engine)
    assert result.strict_reason.startswith(f"{target}/open-objects")
    assert made == [target]
    assert result.schema == _run(schema, sibling, engine).schema


@pytest.mark.parametrize("engine", ["planned", "staged"])
def test_a_strict_target_refused_before_any_change_hands_its_copy_to_its_sibling(engine, monkeypatch):
    # openai-strict's property limit changes nothing: past it, openai-chat rewrites the
    # very copy the strict run refused, and the result is openai-chat's
    made = _copies(monkeypatch)
    schema = {"type": "object", "properties": _many_properties(5001)}
    result = _run(schema, "openai-strict", engine)
    assert result.strict_reason.startswith("openai-strict/property-limit")
    assert made == ["openai-strict"]
    assert result.schema == _run(schema, "openai-chat", engine).schema


def test_a_strict_target_refused_after_a_rule_that_may_change_the_tree_copies_anew(monkeypatch):
    made = _copies(monkeypatch)
    # (beside propertyNames, which a rule spills first: refuse-open leaves it to close-objects)
    schema = {"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}, "propertyNames": {"minLength": 1}}}}
    result = _run(schema, "anthropic-strict", "planned")
    assert result.strict_reason.startswith("anthropic-strict/close-objects")
    assert made == ["anthropic-strict", "anthropic"]


@pytest.mark.parametrize("engine", ["planned", "staged"])
def test_an_early_rule_with_work_on_the_input_makes_the_sibling_copy_anew(engine, monkeypatch):
    # prepare/google-refs comes before openai-strict's early refusals: an input with no
    # `ref` gives it no work and the copy is handed over (above); one it rewrites is not
    made = _copies(monkeypatch)
    schema = {"type": "object", "properties": {"pet": {"ref": "#/defs/Pet"}, "tags": {"type": "object", "additionalProperties": {"type": "string"}}},
              "defs": {"Pet": {"type": "string"}}}
    result = _run(schema, "openai-strict", engine)
    assert result.strict_reason.startswith("openai-strict/open-objects")
    assert made == ["openai-strict", "openai-chat"]
    assert result.schema == _run(schema, "openai-chat", engine).schema
    assert result.schema["properties"]["pet"] == {"$ref": "#/$defs/Pet"}  # read once, by the sibling's run


def test_a_handed_over_copy_holds_what_the_sibling_reads_of_a_wide_object():
    # of an object of more than 64 keys the census takes only the keywords some plan
    # reads; no openai-strict rule reads `$dynamicAnchor`, which openai-chat drops
    schema = {"type": "object", "$dynamicAnchor": "node", **{f"x-{i}": i for i in range(70)}, "properties": _many_properties(5001)}
    result = _run(schema, "openai-strict", "planned")
    assert result.strict_reason.startswith("openai-strict/property-limit")
    assert "$dynamicAnchor" not in result.schema
    assert _outcome(result)[:2] == _outcome(_run(schema, "openai-strict", "staged"))[:2]


def test_a_rule_for_numbers_no_double_holds_is_planned_only_where_the_input_holds_one():
    # the copy marks the census (`<past-double>`) where an integer rounds to infinity as a
    # double: gemini's literal-numbers rule costs nothing on every other input
    target = wireschema._target("gemini")

    def planned_rules(schema):
        run = Run(target, Options())
        copy_input(schema, run)
        return target.planner()._active(run.census, schema.keys())[0]

    plain = {"type": "object", "properties": {"a": {"type": "integer", "default": 2**1024 - 2**970 - 1}}}
    huge = {"type": "object", "properties": {"a": {"type": "array", "default": [1, {"b": 10**400}]}}}
    assert "gemini/literal-numbers" not in planned_rules(plain)
    assert "gemini/literal-numbers" in planned_rules(huge)
    assert "default" not in _run(huge, "gemini", "planned").schema["properties"]["a"]


def test_a_tree_rule_that_tells_its_edits_leaves_the_checks_in_the_last_walk():
    # anthropic-output's property-counts (fit-property-counts) runs after the last walk
    # and passes each object it changes to `run.edited`: the node checks stay fused, and
    # what it changed is checked again
    target = wireschema._target("anthropic-output")
    wide = {"type": "object", "properties": {**{f"f{i}": {"type": "string"} for i in range(26)},
                                             "o": {"type": "object", "properties": {"x": {"type": "integer", "minimum": 1}}}}}
    run = Run(target, Options())
    copy_input(wide, run)
    plan, _trusted = target.planner().plan(run.census, wide.keys())
    assert plan.checks_fused
    planned = _run(wide, "anthropic-output", "planned")
    assert planned.strict and planned.schema["properties"]["o"]["required"] == ["x"]
    assert _outcome(planned) == _outcome(_run(wide, "anthropic-output", "staged"))
