"""What a model sends back, read against the original schema: `Result.restore` and
`Result.validate` take JSON text as the SDKs hand it over, give back the caller's
shape, and judge it against the original as preparation reads it, never raising."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wireschema
from wireschema.errors import SchemaInputError

WEATHER = {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}}}


def test_restore_and_validate_take_json_text_as_the_sdks_give_it():
    result = wireschema.normalize(WEATHER, "openai-strict")
    text = '{"city": "Lyon", "days": null}'
    assert result.restore(text) == result.restore(text.encode()) == result.restore(bytearray(text.encode())) == {"city": "Lyon"}
    assert result.validate(text) == ()
    assert [i.pointer for i in result.validate('{"city": 3, "days": null}')] == ["/city"]


def test_a_result_that_fell_back_on_a_budget_keeps_no_copy_of_its_input():
    # a copy of an input past a budget would cost what the budget is there to bound
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(40_000)}}
    result = wireschema.normalize(wide, "gemini", options=wireschema.Options(max_nodes=1_000))
    assert result.used_fallback and result.fallback_reason.startswith("budget/nodes")
    assert result.origin is None and result.source is None
    with pytest.raises(wireschema.WireschemaError, match="fell back on a budget"):
        result.restore({})
    within = wireschema.normalize({"type": "object", "properties": {"a": {"type": "string"}}}, "gemini")
    assert json.loads(within.source) == {"type": "object", "properties": {"a": {"type": "string"}}}


def test_text_that_is_not_json_is_an_error_for_restore_and_an_issue_for_validate():
    result = wireschema.normalize(WEATHER, "openai-strict")
    with pytest.raises(SchemaInputError, match="^the arguments' text is not JSON: "):
        result.restore('{"city": ')
    with pytest.raises(SchemaInputError, match="^the arguments' bytes are not UTF-8"):
        result.restore(b"\xff")
    issues = result.validate("city=Lyon")
    assert len(issues) == 1 and issues[0].pointer == "" and issues[0].message.startswith("the arguments' text is not JSON: ")


def test_the_caller_chooses_what_restore_gives_for_text_that_is_not_json():
    result = wireschema.normalize(WEATHER, "openai-strict")
    assert result.restore("city=Lyon", default=None) is None
    assert result.restore(b"\xff", default="unread") == "unread"
    assert result.restore('{"city": "Lyon", "days": null}', default=None) == {"city": "Lyon"}


def test_a_structured_output_as_text_is_unwrapped():
    result = wireschema.normalize_output({"type": "array", "items": {"type": "string"}}, "openai-strict")
    assert result.restore('{"response": ["a", "b"]}') == ["a", "b"]
    assert result.validate('{"response": ["a", 1]}')[0].pointer == "/1"


def test_a_map_sent_as_pairs_is_a_map_again():
    # anthropic-output closes every object: a dict[str, T] goes as a list of {key, value}
    schema = {"type": "object", "required": ["by_city"], "properties": {"by_city": {
        "type": "object", "additionalProperties": {"type": "object", "properties": {"temp": {"type": "number"}, "note": {"type": "string"}}}}}}
    result = wireschema.normalize_output(schema, "anthropic-output")
    assert result.notes["paired_maps"] == ("/properties/by_city",)
    assert result.schema["properties"]["by_city"]["type"] == "array"
    sent = {"by_city": [{"key": "Lyon", "value": {"temp": 3}}, {"key": "Oslo", "value": {"temp": 1}}, {"key": "Lyon", "value": {"temp": 4}}]}
    # a key sent twice: the last pair wins, as the last member of a JSON object does
    assert result.restore(json.dumps(sent)) == {"by_city": {"Lyon": {"temp": 4}, "Oslo": {"temp": 1}}}
    assert result.validate(result.restore(sent)) == ()
    assert result.restore({"by_city": []}) == {"by_city": {}}
    # a map typed by another name for object (BFCL's `dict`) is the object preparation made of it
    bfcl = {"type": "dict", "properties": {"m": {"type": "dict", "additionalProperties": {"type": "integer"}}}, "required": ["m"]}
    result = wireschema.normalize_output(bfcl, "anthropic")
    assert result.restore({"m": [{"key": "a", "value": 1}]}) == {"m": {"a": 1}}


def test_the_items_of_a_list_in_a_union_are_restored_too():
    """pydantic's `Optional[list[Model]]` is an anyOf of the array and null: before, the
    nulls strict mode forced onto the items' optional properties were left in (the model
    then refused them), as were the pairs of a map in such a union."""
    leaf = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "note": {"type": "string"}}}
    schema = {"type": "object", "properties": {"leaves": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/Leaf"}}, {"type": "null"}]}},
              "$defs": {"Leaf": leaf}}
    result = wireschema.normalize_output(schema, "openai-strict")
    assert result.restore({"leaves": [{"name": "a", "note": None}]}) == {"leaves": [{"name": "a"}]}
    assert result.restore({"leaves": None}) == {"leaves": None}  # a null the original takes stays
    # a union of two lists: the one whose items' types the sent items have
    other = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}, "tag": {"type": "string"}}}
    lists = {"type": "object", "required": ["xs"], "properties": {"xs": {"anyOf": [
        {"type": "array", "items": {"$ref": "#/$defs/Leaf"}}, {"type": "array", "items": other}]}}, "$defs": {"Leaf": leaf}}
    result = wireschema.normalize_output(lists, "openai-strict")
    assert result.restore({"xs": [{"id": 1, "tag": None}]}) == {"xs": [{"id": 1}]}
    assert result.restore({"xs": [{"name": "a", "note": None}]}) == {"xs": [{"name": "a"}]}
    maps = {"type": "object", "required": ["either"], "properties": {
        "either": {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "object", "additionalProperties": {"type": "integer"}}]}}}
    result = wireschema.normalize_output(maps, "anthropic")
    assert result.restore({"either": [{"key": "b", "value": 2}]}) == {"either": {"b": 2}}
    assert result.restore({"either": [1, 2]}) == {"either": [1, 2]}
    assert result.validate(result.restore({"either": [{"key": "b", "value": 2}]})) == ()


# --- a model's value, sent as the wire takes it, restored: the model's own value ---------


def _as_sent(wire, node, value, defs):
    """`value` as a model held to `node` (a part of the wire schema `wire`) sends it: every
    required property there, null standing for one left out; a map sent as pairs."""
    while isinstance(node, dict) and "$ref" in node:
        node = defs[node["$ref"].rsplit("/", 1)[1]]
    if not isinstance(node, dict):
        return value
    if "anyOf" in node:
        # the branch the value matches as it is, else one it matches with stand-in nulls
        fits = [sent for branch in node["anyOf"] for sent in (_as_sent(wire, branch, value, defs),)
                if jsonschema.Draft202012Validator({**branch, "$defs": wire.get("$defs", {})}).is_valid(sent)]
        return next((sent for sent in fits if sent == value), fits[0] if fits else value)
    pair = node.get("items", {}).get("properties", {}) if node.get("type") == "array" else {}
    if isinstance(value, dict) and set(pair) == {"key", "value"}:  # a map, as pairs
        return [{"key": k, "value": _as_sent(wire, pair["value"], v, defs)} for k, v in value.items()]
    if isinstance(value, dict):
        props = node.get("properties", {})
        out = {k: _as_sent(wire, props.get(k), v, defs) for k, v in value.items()}
        return {**out, **{k: None for k in node.get("required", []) if k not in out}}
    if isinstance(value, list):
        prefix = node.get("prefixItems", [])
        return [_as_sent(wire, prefix[i] if i < len(prefix) else node.get("items"), v, defs) for i, v in enumerate(value)]
    return value


def _models():
    from typing import Literal, Optional, Union

    from pydantic import BaseModel, Field

    class Leaf(BaseModel):
        name: str
        note: Optional[str] = None
        size: int = 0

    class Cat(BaseModel):
        pet: Literal["cat"]
        lives: Optional[int] = None

    class Dog(BaseModel):
        pet: Literal["dog"]
        good: bool = True

    class Closed(BaseModel):  # no map: strict on every strict wire
        pet: Union[Cat, Dog] = Field(discriminator="pet")
        maybe: Optional[Union[Cat, Dog]] = None
        leaves: Optional[list[Leaf]] = None
        grid: list[list[Leaf]] = []
        pair: tuple[int, Optional[Leaf]] = (0, None)

    class Everything(Closed):
        by_name: dict[str, Leaf] = {}
        nested: dict[str, dict[str, int]] = {}
        free: dict = {}

    some = {"pet": Dog(pet="dog", good=False), "maybe": Cat(pet="cat", lives=3), "leaves": [Leaf(name="a"), Leaf(name="b", note="n")],
            "grid": [[Leaf(name="g", size=2)]], "pair": (1, Leaf(name="p"))}
    maps = {"by_name": {"x": Leaf(name="x")}, "nested": {"o": {"i": 1}}, "free": {"k": [1, {"z": None}]}}
    return {
        "closed": (Closed, [Closed(pet=Cat(pet="cat")), Closed(**some)]),
        "maps": (Everything, [Everything(pet=Cat(pet="cat")), Everything(**some, **maps)]),
    }


@pytest.mark.parametrize("models", ["closed", "maps"])
@pytest.mark.parametrize("target", ["openai-strict", "anthropic", "bedrock", "gemini-jsonschema"])
def test_a_model_value_sent_as_the_wire_takes_it_is_restored_to_the_same_value(target, models):
    """What a model held to the wire schema sends (nulls for left-out properties where
    strict mode requires every one, maps as pairs where the wire closes every object),
    restored, is the model's own value again: before, an `Optional[list[Model]]`
    kept its items' nulls."""
    model, values = _models()[models]
    result = wireschema.normalize_output(model, target)
    assert result.strict == (target != "gemini-jsonschema" and (models == "closed" or target != "openai-strict"))
    wire = result.schema
    for value in values:
        # what the model leaves out, strict mode has it send as null
        sent = _as_sent(wire, wire, value.model_dump(mode="json", exclude_unset=True), wire.get("$defs", {}))
        jsonschema.validate(sent, wire)
        restored = result.restore(json.dumps(sent))
        assert result.validate(restored) == ()
        assert model.model_validate(restored) == value


def test_a_union_of_objects_naming_the_same_members_is_read_by_the_branch_whose_types_they_have():
    """Both branches list `b`: before, the first was taken, and a `b` sent by the second
    (an object, or a map as pairs) kept its stand-in nulls, or its pairs."""
    union = {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "array", "items": {"type": "string"}}}},
                       {"type": "object", "required": ["b"], "properties": {"a": {"type": "string"},
                                                                           "b": {"type": "object", "properties": {"x": {"type": "string"}}}}}]}
    result = wireschema.normalize_output({"type": "object", "properties": {"u": union}, "required": ["u"]}, "openai-strict")
    assert result.strict
    assert result.restore({"u": {"a": None, "b": {"x": None}}}) == {"u": {"b": {}}}
    boxes = {"anyOf": [{"type": "object", "required": ["v"], "properties": {"v": {"type": "array", "items": {"type": "string"}}}},
                       {"type": "object", "required": ["v"], "properties": {"v": {"type": "object", "additionalProperties": {"type": "integer"}}}}]}
    result = wireschema.normalize_output({"type": "object", "properties": {"box": boxes}, "required": ["box"]}, "anthropic")
    assert result.restore({"box": {"v": [{"key": "k", "value": 1}]}}) == {"box": {"v": {"k": 1}}}
    assert result.restore({"box": {"v": ["s"]}}) == {"box": {"v": ["s"]}}
    # a null the second branch takes (its `e` required, null allowed) is that branch's: kept,
    # not read as the first branch's stand-in for an `e` left out
    nulls = {"anyOf": [{"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}, "e": {"type": "integer"}}},
                       {"type": "object", "required": ["e"], "properties": {"e": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}]}
    for target in ("openai-strict", "mistral"):
        result = wireschema.normalize_output({"type": "object", "properties": {"u": nulls}, "required": ["u"]}, target)
        assert result.restore({"u": {"e": None}}) == {"u": {"e": None}}


_LEAVES = [({"type": "string"}, st.text(max_size=3)), ({"type": "integer"}, st.integers(-5, 5)), ({"type": "boolean"}, st.booleans()),
           ({"type": "string", "enum": ["a", "b"]}, st.sampled_from(["a", "b"]))]


@st.composite
def _object(draw, members, root=False):
    """An object schema of 1-3 of `members` (schema, value strategy) pairs, some required,
    and a value of it: an optional member that takes null (which strict mode cannot tell
    from one left out) is always there."""
    names = draw(st.lists(st.sampled_from("abcde"), min_size=1, max_size=3, unique=True))
    parts = {n: draw(members) for n in names}
    required = [n for n in names if root or draw(st.booleans())]
    schema = {"type": "object", "properties": {n: p[0] for n, p in parts.items()}, "required": required}

    @st.composite
    def value(d):
        return {n: d(v) for n, (s, v) in parts.items() if n in required or "anyOf" in s or d(st.booleans())}

    return schema, value()


def _schemas(depth):
    leaf = st.sampled_from(_LEAVES)
    if depth == 0:
        return leaf
    sub = _schemas(depth - 1)
    array = sub.map(lambda p: ({"type": "array", "items": p[0]}, st.lists(p[1], max_size=2)))
    nullable = sub.map(lambda p: ({"anyOf": [p[0], {"type": "null"}]}, st.one_of(st.none(), p[1])))
    maps = sub.map(lambda p: ({"type": "object", "additionalProperties": p[0]}, st.dictionaries(st.sampled_from("kl"), p[1], max_size=2)))
    union = st.tuples(_object(sub), _object(sub)).map(lambda ab: ({"anyOf": [ab[0][0], ab[1][0]]}, st.one_of(ab[0][1], ab[1][1])))
    return st.one_of(leaf, _object(sub), array, nullable, maps, union)


@st.composite
def _outputs(draw):
    schema, value = draw(_object(_schemas(2), root=True))
    return schema, draw(value)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(_outputs())
def test_what_a_model_held_to_a_strict_wire_sends_is_restored_to_a_value_the_original_takes(case):
    """Objects, arrays, nullable members, maps and unions of objects, nested: the value,
    sent as each strict wire takes it, validates there and, restored, against the
    original (an empty list a union's array and its map both take is read as the first)."""
    schema, value = case
    for target in ("openai-strict", "anthropic", "deepseek-strict"):
        result = wireschema.normalize_output(schema, target)
        wire = result.schema
        sent = _as_sent(wire, wire, value, wire.get("$defs", {}))
        jsonschema.validate(sent, wire)
        assert result.validate(result.restore(sent)) == (), (target, sent)


def test_a_list_of_pairs_stays_a_list_where_no_map_was_sent_as_one():
    schema = {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}
    result = wireschema.normalize(schema, "anthropic")  # the map stays a map on this wire
    assert "paired_maps" not in result.notes
    value = {"m": [{"key": "a", "value": "b"}]}
    assert result.restore(value) == value
    assert [i.pointer for i in result.validate(value)] == ["/m"]


# --- closed unions: the branch the value matched (issue 15 F) -----------------------


@st.composite
def closed_unions(draw):
    """An anyOf of 2-5 objects sharing a required `id`, each with optional properties of
    its own; a value of one branch, with some of that branch's optional properties."""
    count = draw(st.integers(2, 5))
    names = draw(st.lists(st.sampled_from("abcdefgh"), min_size=count, max_size=count, unique=True))
    branches = [{"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}, names[i]: {"type": "string"},
                                                                      f"{names[i]}2": {"type": "integer"}}}
                for i in range(count)]
    k = draw(st.integers(0, count - 1))
    present = draw(st.lists(st.sampled_from([names[k], f"{names[k]}2"]), unique=True))
    value = {"id": 7, **{p: ("s" if not p.endswith("2") else 2) for p in present}}
    return {"type": "object", "required": ["u"], "properties": {"u": {"anyOf": branches}}}, k, value


@settings(max_examples=80, deadline=None, derandomize=True)
@given(closed_unions(), st.sampled_from(["openai-strict", "openai-strict-compat"]))
def test_restore_takes_back_the_null_stand_ins_of_the_branch_that_matched(case, target):
    schema, k, value = case
    result = wireschema.normalize(schema, target)
    assert result.strict
    branch = result.schema["properties"]["u"]["anyOf"][k]
    # what a strict model sends: every property of its branch, null for the ones left out
    sent = {"u": {p: value.get(p) for p in branch["properties"]}}
    assert result.restore(sent) == {"u": value}
    assert result.validate(json.dumps(sent)) == ()


# --- validate judges the original as prepared, and never raises (issue 15 B) --------


@pytest.mark.parametrize("alias,value", [("dict", {"a": 1.5}), ("float", 1.5), ("int", 3), ("String", "x"),
                                         ("list", [1]), ("tuple", [1]), ("any", None), ("Boolean", True)])
def test_python_and_java_type_names_are_read_as_preparation_maps_them(alias, value):
    schema = {"type": "dict", "properties": {"v": {"type": alias}}, "required": ["v"]}
    result = wireschema.normalize(schema, "openai-strict")
    assert result.validate({"v": value}) == ()
    if alias != "any":  # any value is valid for `any`
        wrong = 5 if isinstance(value, str) else "text"
        assert [i.pointer for i in result.validate({"v": wrong})] == ["/v"]


def test_a_draft_04_original_is_validated_as_upgraded():
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
              "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": True}}}
    result = wireschema.normalize(schema, "openai-chat")
    assert result.validate({"n": 1}) == ()
    assert [i.pointer for i in result.validate({"n": 0})] == ["/n"]


ECMA_ONLY = ["^\\p{L}+$", "(?<y>\\d{4})-\\k<y>", "\\u{1F600}", "[\\p{Lu}]", "(?<=a)b\\cJ", "[\\w-_.]", "(?<name>x)(?<name>y)"]
MALFORMED = {
    "type": st.one_of(st.integers(), st.lists(st.integers(), max_size=2), st.just("float")),
    "minLength": st.one_of(st.text(max_size=3), st.floats(allow_nan=False), st.none()),
    "maximum": st.one_of(st.text(max_size=3), st.lists(st.integers(), max_size=1)),
    "enum": st.one_of(st.integers(), st.text(max_size=3), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)),
    "required": st.one_of(st.text(max_size=3), st.integers()),
    "properties": st.one_of(st.lists(st.integers(), max_size=2), st.text(max_size=3)),
    "items": st.one_of(st.integers(), st.text(max_size=3)),
    "multipleOf": st.one_of(st.just(0), st.text(max_size=2), st.just(-1)),
    "pattern": st.one_of(st.sampled_from(ECMA_ONLY), st.integers(), st.just("(")),
    "patternProperties": st.dictionaries(st.sampled_from(ECMA_ONLY), st.just({"type": "string"}), min_size=1, max_size=2),
    "dependentRequired": st.one_of(st.integers(), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)),
}
JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=4)),
                    lambda kids: st.one_of(st.lists(kids, max_size=3), st.dictionaries(st.text(max_size=3), kids, max_size=3)),
                    max_leaves=8)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.dictionaries(st.sampled_from(sorted(MALFORMED)), st.none(), min_size=1, max_size=3).flatmap(
    lambda keys: st.fixed_dictionaries({k: MALFORMED[k] for k in keys})), JSON,
    st.sampled_from(["openai-chat", "openai-strict", "mcp", "gemini", "anthropic"]))
def test_validate_returns_issues_for_any_malformed_or_ecma_only_keyword(keywords, value, target):
    schema = {"type": "object", "properties": {"a": keywords}}
    try:
        result = wireschema.normalize(schema, target)
    except SchemaInputError:
        return  # not JSON at all (never the case here, but not what is judged)
    issues = result.validate({"a": value})
    assert isinstance(issues, tuple) and all(isinstance(i, wireschema.Issue) for i in issues)
    assert result.validate(json.dumps({"a": value})) == issues


def test_an_ecma_only_pattern_is_skipped_and_the_other_keywords_still_judged(caplog):
    caplog.set_level("INFO", logger="wireschema")
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^\\p{L}+$", "maxLength": 3}}}
    result = wireschema.normalize(schema, "openai-chat")
    assert result.validate({"a": "abc"}) == ()
    assert [i.schema_pointer for i in result.validate({"a": "abcd"})] == ["/properties/a/maxLength"]
    assert "skips pattern" in caplog.text


# --- validate follows every reference it can, and names the ones it cannot (issue 58, 4)


@pytest.mark.parametrize("draft", [None, "http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-07/schema#",
                                   "https://json-schema.org/draft/2019-09/schema"])
@pytest.mark.parametrize("target", sorted(t.name for t in wireschema.targets()))
def test_validate_follows_a_reference_to_definitions_in_any_draft(draft, target):
    schema = {"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}}, "definitions": {"A": {"type": "integer"}}}
    if draft:
        schema["$schema"] = draft
    result = wireschema.normalize(schema, target)
    assert result.validate({"a": 1}) == ()
    assert [i.pointer for i in result.validate({"a": "x"})] == ["/a"]


def test_validate_follows_a_reference_into_an_upgraded_tuple():
    schema = {"type": "object", "properties": {"t": {"type": "array", "items": [{"type": "integer"}]},
                                               "u": {"$ref": "#/properties/t/items/0"}}}
    result = wireschema.normalize(schema, "openai-chat")
    assert [i.pointer for i in result.validate({"t": [1], "u": "x"})] == ["/u"]


@pytest.mark.parametrize("ref", ["https://example.com/x.json", "#/nothing"])
def test_a_reference_validate_cannot_follow_is_an_issue(ref):
    schema = {"type": "object", "properties": {"a": {"$ref": ref}, "b": {"type": "integer"}}}
    result = wireschema.normalize(schema, "openai-chat")
    issues = result.validate({"a": "x", "b": "y"})
    assert [(i.pointer, "cannot be followed" in i.message) for i in issues] == [("/a", True), ("/b", False)]


def _pet_model():
    from typing import Literal, Union

    from pydantic import BaseModel, Field

    class Cat(BaseModel):
        kind: Literal["cat"] = "cat"
        meows: int

    class Dog(BaseModel):
        kind: Literal["dog"] = "dog"
        barks: int

    class Pet(BaseModel):
        pet: Union[Cat, Dog] = Field(discriminator="kind")

    return Pet


def test_a_discriminated_unions_tag_stays_required_and_not_null_on_a_strict_wire():
    pet = _pet_model()
    result = wireschema.normalize(pet.model_json_schema(), "openai-strict")
    for name in ("Cat", "Dog"):
        tag = result.schema["$defs"][name]["properties"]["kind"]
        assert "anyOf" not in tag and tag["const"] == name.lower()
    assert any(c.rule == "openai-strict/fixed-required" for c in result.changes)


@pytest.mark.parametrize("target", ["openai-strict", "gemini", "anthropic"])
def test_restore_puts_back_a_tag_the_model_left_out_or_sent_null(target):
    pet = _pet_model()
    result = wireschema.normalize(pet.model_json_schema(), target)
    for sent, kind in [({"kind": None, "meows": 3}, "cat"), ({"meows": 3}, "cat"), ({"barks": 2}, "dog")]:
        restored = result.restore({"pet": sent})
        assert restored["pet"]["kind"] == kind
        assert pet.model_validate(restored).pet.kind == kind

