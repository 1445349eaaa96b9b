"""Judged by the providers' own code: every shipped target's output over the whole shared
corpus goes through the real validators that speak for its wire (`rules/_wire.yaml`):
the Gemini and Vertex protos, google-genai's types, llguidance, openai-python's strict
walker, xgrammar where installed, and the 2020-12 meta-schema with ECMA-262 patterns.
None may refuse one. Below that, one minimal case per defect those validators found,
each judged by the validator that found it and recorded as a snapshot.

The validators come with `pip install -e '.[wire]'` (xgrammar with `.[wire-xgrammar]`);
one that is not installed skips its cases, except in CI, where the `wire` extra must be.
"""

from __future__ import annotations

import functools
import importlib.util
import os

import pytest

import wireschema
from wireschema import report

from conftest import CORPUS, document

# corpus-wide: CI runs it (pytest -m corpus); the default run leaves it out
pytestmark = pytest.mark.corpus

ENTRIES = report.assignments()
# the validators `.[wire]` installs; xgrammar needs torch and has an extra of its own
IN_THE_WIRE_EXTRA = sorted({a.validator for a in ENTRIES} - {"xgrammar"})


@functools.lru_cache(maxsize=None)
def _judge(name):
    return report.loaded([name])[name]


def judge(name):
    fn = _judge(name)
    if isinstance(fn, ImportError):
        pytest.skip(f"{name} is not installed ({fn.name or fn}): pip install -e '.[wire]'")
    return fn


@functools.lru_cache(maxsize=1)
def _records():
    files = sorted(CORPUS.glob("*.jsonl"))
    return report.corpus(str(p) for p in files)


# the entries are grouped by target, so one target's outputs are made once and reused
# by each of its validators, then let go
@functools.lru_cache(maxsize=1)
def _outputs(target):
    return report.wire_outputs(_records(), target)


def test_the_wire_extra_is_installed_in_ci():
    if os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
        pytest.skip("outside CI a missing validator only skips its cases")
    missing = [name for name in IN_THE_WIRE_EXTRA if isinstance(_judge(name), ImportError)]
    assert not missing, f"the wire extra is not installed: {missing}"


def test_every_target_has_its_validators():
    assert {a.target for a in ENTRIES} == {t.name for t in wireschema.targets()}
    assert all(a.why for a in ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{a.target}:{a.validator}" for a in ENTRIES])
def test_the_wire_takes_every_output_of_the_corpus(entry):
    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is not beside the repository")
    fn = judge(entry.validator)
    [verdict] = report.judge(_outputs(entry.target), entry.target, {entry.validator: fn}, [entry])
    assert verdict.judged > 100  # strict-only validators judge only what was sent strict
    listing = "\n".join(f"  {i} ({role}): {reason[:300]}" for i, role, reason in verdict.rejected[:10])
    assert not verdict.rejected, f"{len(verdict.rejected)} of {verdict.judged} refused by {entry.validator}:\n{listing}"


def test_proto_types_are_upper_cased_for_json_format_only_in_schema_positions():
    schema = {"type": "object", "properties": {"type": {"type": "string", "enum": ["object"]}},
              "anyOf": [{"type": "integer"}], "example": {"type": "object"}}
    assert report._proto_types(schema) == {
        "type": "OBJECT", "properties": {"type": {"type": "STRING", "enum": ["object"]}},
        "anyOf": [{"type": "INTEGER"}], "example": {"type": "object"},
    }


def test_patterns_are_judged_as_ecma_262_not_python():
    pytest.importorskip("regress")
    assert report._ecma_regex(r"^\p{L}+$") and report._ecma_regex(r"[\w-_.]")
    assert not report._ecma_regex("(?i)abc") and not report._ecma_regex("(?1)")


def test_the_report_prints_a_row_per_target_and_validator(tmp_path, capsys):
    judge("json-schema-2020-12")
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "a", "kind": "tool-params", "schema": {"type": "object", "examples": "x"}}\n')
    assert report.main(["--validators", str(path), "--targets", "mcp"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("| `mcp` | json-schema-2020-12 | ") and out[2].endswith("| 1 | 0 | - |")


# -- the defects the validators found, one minimal case each ---------------------------------

OBJ = {"type": "object"}


def _props(**props):
    return {"type": "object", "properties": props}


def _recursive(beside, other):
    """A definition T whose property `kids` is T or `other`, with `beside` next to the anyOf."""
    kids = {"anyOf": [{"$ref": "#/$defs/T"}, other], **beside}
    return {"type": "object", "properties": {"t": {"$ref": "#/$defs/T"}},
            "$defs": {"T": {"type": "object", "properties": {"v": {"type": "string"}, "kids": kids}}}}


FIXES = [
    # 1. Vertex has no NULL type: a null branch of a 3-branch union becomes the marker
    ("vertex", "null-in-three-branch-union", "vertex-proto",
     _props(a={"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}], "description": "d"})),
    ("vertex", "lone-null-type", "vertex-proto", _props(a={"type": "null"})),
    # 2. properties beside oneOf behind a $ref: closed branches take the parent's properties
    ("openai-strict", "properties-beside-one-of-behind-ref", "llguidance",
     {"properties": {"e": {"$ref": "#/definitions/d"}}, "definitions": {"d": {
         "properties": {"kind": {"enum": ["a"]}},
         "oneOf": [{"required": ["p"], "properties": {"p": {"type": "string"}}},
                   {"required": ["q"], "properties": {"q": {"type": "string"}}}]}}}),
    ("openai-strict", "boolean-subschemas", "openai-strict-walker", _props(a={"anyOf": [True, {"type": "string"}]})),
    ("anthropic-strict", "boolean-subschemas", "llguidance", _props(a={"type": "array", "prefixItems": [True, False]})),
    ("anthropic-strict", "root-const-is-no-object", "llguidance", {"const": 2}),
    ("openai-strict", "array-enum-of-strings", "llguidance",
     _props(a={"type": "array", "items": {"type": "string"}, "enum": ["x", "y"]})),
    # BFCL's three-way choice written on a boolean ("required property 'a' is
    # unsatisfiable"): a string enum; booleans spelled as strings become booleans
    *[(t, "boolean-enum-of-strings", "llguidance",
       {**_props(a={"type": "boolean", "enum": ["True", "False", "dontcare"]}, b={"type": ["boolean", "null"], "enum": ["true", "false", None]}),
        "required": ["a", "b"]}) for t in ("openai-strict", "anthropic-strict")],
    # a required name no property lists, in an object its author closed ("required
    # property 'scope' is unsatisfiable"): removed, said (openai-strict removed it unsaid)
    *[(t, "required-name-without-property-in-a-closed-object", "llguidance",
       {"type": "object", "required": ["scope"], "additionalProperties": False}) for t in ("openai-strict", "anthropic-strict")],
    # an enum or const of no value its type takes, which no catalog reading explains
    # ("incompatible types"): the schema admits nothing, and fails open
    *[(t, "const-of-another-type", "llguidance", {**_props(a={"type": "string"}), "const": 0})
      for t in ("openai-strict", "anthropic-strict")],
    # 3. strict patterns the decoder cannot compile
    ("openai-strict", "lookahead", "llguidance", _props(d={"type": "string", "pattern": "^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$"})),
    ("openai-strict", "hostname-pattern-with-lengths", "llguidance", _props(url={
        "type": "string", "minLength": 1, "maxLength": 253,
        "pattern": "^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$"})),
    ("openai-strict", "fine-multiple-of", "llguidance", _props(n={"type": "number", "multipleOf": 0.123456789})),
    ("openai-strict", "float-count", "llguidance", _props(xs={"type": "array", "items": {"type": "string"}, "minItems": 1.0})),
    # 4. generic: what the decoding engines behind OpenAI-compatible servers refuse
    ("generic", "word-boundary-and-lookbehind", "xgrammar", _props(v={"type": "string", "pattern": "(?<=^v?)\\d+\\b"})),
    ("generic", "unicode-property", "xgrammar", _props(w={"type": "string", "pattern": "^\\p{Letter}+$"})),
    ("generic", "line-break-in-class-and-lone-brace", "xgrammar",
     _props(e={"type": "string", "pattern": "^\\${{(.|[\r\n])*}}$"})),
    # (an object naming no properties is free-form there, and stays open: its minProperties is reachable)
    ("generic", "unreachable-min-properties", "xgrammar", _props(o={"type": "object", "properties": {"a": {"type": "string"}}, "minProperties": 2})),
    ("generic", "float-min-properties", "xgrammar", _props(o={"type": "object", "properties": {"a": OBJ}, "minProperties": 1.0})),
    # strict targets whose wire names no decoding engine: what xgrammar refuses
    ("xai", "false-property", "xgrammar", _props(additionalProperties=False, b={"type": "string"})),
    ("xai", "unreachable-min-properties", "xgrammar", _props(o={"type": "object", "properties": {"a": {"type": "string"}}, "minProperties": 2})),
    ("xai", "unicode-property", "xgrammar", _props(w={"type": "string", "pattern": "^\\p{L}+$"})),
    # xai kept what both grammar compilers refuse: a backreference, a lookbehind, \b
    ("xai", "backreference", "xgrammar", _props(w={"type": "string", "pattern": "^(\\d+)(,\\1)*$"})),
    ("xai", "lookbehind", "xgrammar", _props(w={"type": "string", "pattern": "(?<=a)b"})),
    ("xai", "word-boundary", "xgrammar", _props(w={"type": "string", "pattern": "\\bword\\b"})),
    ("deepseek-strict", "unicode-property", "xgrammar", _props(w={"type": "string", "pattern": "^\\p{L}+$"})),
    # a protobuf Value holds numbers as doubles: Gemini's default and example, and the
    # whole of parametersJsonSchema, refused a number past the largest one
    ("gemini", "default-past-double", "gemini-proto", _props(a={"type": "integer", "default": 10**400})),
    ("vertex", "example-past-double", "vertex-proto", _props(a={"type": "object", "example": {"x": [1, -10**400]}})),
    ("gemini-jsonschema", "numbers-past-double", "protobuf-value",
     _props(a={"type": "integer", "maximum": 10**400, "enum": [10**400, 1]}, b={"type": "array", "items": {}, "minItems": 10**400})),
    # 5. the 2020-12 meta-schema
    ("anthropic", "id-with-pointer-fragment", "json-schema-2020-12", _props(p={"$id": "#/properties/p", "type": "string"})),
    ("mcp", "id-with-name-fragment", "json-schema-2020-12",
     _props(p={"$id": "#env", "type": "string"}, q={"$ref": "#env"})),
    ("bedrock", "inlined-anchor", "json-schema-2020-12",
     {**_props(a={"$ref": "#/definitions/v"}, b={"$ref": "#/definitions/v"}),
      "definitions": {"v": {"$id": "#envVar", "type": "string"}}}),
    ("openai-chat", "recursive-anchor", "json-schema-2020-12",
     {"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveAnchor": True,
      **_props(child={"$recursiveRef": "#"})}),
    ("anthropic", "examples-not-an-array", "json-schema-2020-12", _props(a={"type": "string", "examples": "x"})),
    ("mcp", "python-flags-pattern", "json-schema-2020-12", _props(a={"type": "string", "pattern": "(?i)^abc$"})),
    ("anthropic", "python-named-group-pattern", "json-schema-2020-12", _props(a={"type": "string", "pattern": "(?P<y>\\d{4})"})),
    ("openai-chat", "possessive-pattern", "json-schema-2020-12", _props(a={"type": "string", "pattern": "^a++$"})),
    ("gemini-jsonschema", "recursion-pattern", "json-schema-2020-12", _props(a={"type": "string", "pattern": "\\((?:[^()]|(?R))*\\)"})),
    ("mcp", "reversed-class-range", "json-schema-2020-12", _props(a={"type": "string", "pattern": "[z-a]"})),
    ("openai-chat", "reversed-quantifier-bounds", "json-schema-2020-12", _props(a={"type": "string", "pattern": "a{2,1}"})),
    ("openai-strict", "reversed-quantifier-bounds", "llguidance", _props(a={"type": "string", "pattern": "a{2,1}"})),
    # ECMA-262 spellings llguidance's parser does not read, on the targets sent strict
    ("openai-strict", "lone-braces", "llguidance", _props(a={"type": "string", "pattern": "^{{.*}}$"})),
    ("anthropic-strict", "lone-braces", "llguidance", _props(a={"type": "string", "pattern": "^{{.*}}$"})),
    ("deepseek-strict", "lone-braces", "llguidance", _props(a={"type": "string", "pattern": "^{{.*}}$"})),
    ("openai-strict", "empty-class", "llguidance", _props(a={"type": "string", "pattern": "^[^]+$"})),
    ("anthropic-strict", "surrogate-pair", "llguidance", _props(a={"type": "string", "pattern": "^\\ud83d\\ude00$"})),
    ("openai-strict", "control-escapes", "llguidance", _props(a={"type": "string", "pattern": "\\cA[\\b]\\0"})),
    ("anthropic-strict", "lone-surrogate", "llguidance", _props(a={"type": "string", "pattern": "\\ud83d"})),
    # escapes ECMA-262 gives no meaning ("unrecognized escape sequence"), and Annex B spellings it reads
    ("openai-strict", "identity-escapes", "llguidance", _props(a={"type": "string", "pattern": "\\e\\Z"})),
    ("anthropic-strict", "identity-escapes", "llguidance", _props(a={"type": "string", "pattern": "[\\c1]\\k\\x1"})),
    ("deepseek-strict", "identity-escapes", "llguidance", _props(a={"type": "string", "pattern": "^\\h+\\Z"})),
    ("openai-strict", "octal-and-escaped-symbols", "llguidance", _props(a={"type": "string", "pattern": "\\08[\\1]\\<\\\u00e9\\>"})),
    ("openai-strict", "inner-anchor", "llguidance", _props(a={"type": "string", "pattern": "(a$)?b"})),
    ("anthropic-strict", "inner-anchor", "llguidance", _props(a={"type": "string", "pattern": "a$b"})),
    # 6. keywords beside an anyOf that leads to a recursive $ref ("circular references with
    # sibling keys are not supported"): they move into the branches of their type
    ("openai-strict", "pattern-beside-recursive-any-of", "llguidance", _recursive({"pattern": "^a"}, {"type": "string"})),
    ("openai-strict", "minimum-beside-recursive-any-of", "llguidance", _recursive({"minimum": 1}, {"type": "integer"})),
    ("openai-strict-compat", "enum-beside-recursive-any-of", "llguidance", _recursive({"enum": ["a", "b"]}, {"type": "string"})),
    # 7. an integer's bound or step that is no whole number ("Integer constraint must be a
    # whole number"; a multipleOf xgrammar ignores): the whole number with the same integers
    *[(t, "fractional-integer-bounds", "xgrammar",
       _props(a={"type": "integer", "minimum": 0.5, "exclusiveMaximum": 9.2, "multipleOf": 1.5},
              b={"type": ["integer", "null"], "maximum": 2.5, "multipleOf": 0.1}))
      for t in ("generic", "deepseek-strict", "xai")],
    # 8. prefixItems without items, read as a closed tuple in strict mode ("minItems is greater
    # than the number of prefixItems, but additional items are not allowed"), typed or not
    *[(t, "untyped-open-tuple", "xgrammar", _props(t={"minItems": 2, "prefixItems": [{"type": "integer"}]}))
      for t in ("generic", "xai")],
    # 9. a type list one of whose types its own keywords leave empty ("Invalid range: empty
    # range"): that type, and the keywords only it read, are removed
    *[(t, "empty-type-in-type-list", "xgrammar",
       _props(a={"type": ["array", "number"], "minimum": 100, "maximum": 0},
              b={"type": ["integer", "string"], "exclusiveMinimum": 3, "exclusiveMaximum": 4, "minLength": 1}))
      for t in ("generic", "xai")],
    # 10. a propertyNames that admits no string ("propertyNames must be an object that
    # validates string"): no member is valid, which maxProperties 0 says
    *[(t, "property-names-admitting-no-string", "xgrammar",
       _props(a={"type": "object", "propertyNames": {"type": "number"}},
              b={"type": "object", "propertyNames": {"enum": [1, 2]}, "minProperties": 1}))
      for t in ("generic", "xai")],
    # found on vertex (SchemaStore's pmbot): a bare type name where a property's schema belongs
    ("vertex", "type-name-as-property-schema", "vertex-proto", _props(config="object")),
]


@pytest.mark.parametrize("target,case,validator,schema", FIXES, ids=[f"{t}:{c}" for t, c, _, _ in FIXES])
def test_fix(target, case, validator, schema, snap):
    # the output is recorded whether or not this machine has the validator that judges it
    doc = document(schema, target)
    assert doc == snap
    fn = judge(validator)
    result = wireschema.normalize(schema, target)
    strict_only = any(a.target == target and a.validator == validator and a.strict_only for a in ENTRIES)
    if strict_only and not result.strict:
        # failing open is the fix: the strict validators judge only what is sent strict
        assert result.strict_reason
    else:
        assert fn(result.schema, "parameters") is None


def test_vertex_null_is_the_marker_in_each_branch_that_can_take_it():
    out = wireschema.normalize(FIXES[0][3], "vertex").schema["properties"]["a"]
    assert out == {"anyOf": [{"type": "string", "description": "d", "nullable": True},
                             {"type": "integer", "description": "d", "nullable": True}]}


def test_closed_branches_keep_every_required_name():
    schema = FIXES[2][3]
    result = wireschema.normalize(schema, "openai-strict")
    branches = result.schema["$defs"]["d"]["anyOf"]
    assert [b["required"] for b in branches] == [["p", "kind"], ["q", "kind"]]
    assert all(b["additionalProperties"] is False for b in branches)
    # the parent's property reached each branch: a value naming it is valid there
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate({"e": {"p": "x", "kind": "a"}}, result.schema)


@pytest.mark.parametrize("target,beside,other,moved", [
    ("openai-strict", {"pattern": "^a"}, {"type": "string"}, {"pattern": "^a"}),
    ("openai-strict", {"minimum": 1}, {"type": "integer"}, {"minimum": 1}),
    ("openai-strict-compat", {"enum": ["a", "b"]}, {"type": "string"}, {"enum": ["a", "b"]}),
])
def test_keywords_beside_a_recursive_any_of_move_into_the_branch_of_their_type(target, beside, other, moved):
    result = wireschema.normalize(_recursive(beside, other), target)
    assert result.strict
    kids = result.schema["$defs"]["T"]["properties"]["kids"]
    assert {"$ref": "#/$defs/T"} in kids["anyOf"] and {**other, **moved} in kids["anyOf"]
    assert not set(beside) & set(kids)
    reported = {(c.rule, c.pointer, c.action) for c in result.changes}
    assert ("openai-strict/any-of-recursive", "/$defs/T/properties/kids/anyOf", "rewritten") in reported


def test_an_enum_the_recursive_ref_branch_cannot_take_is_spilled():
    result = wireschema.normalize(_recursive({"enum": ["a", "b"]}, {"type": "string"}), "openai-strict")
    kids = result.schema["$defs"]["T"]["properties"]["kids"]
    assert kids["description"] == '(enum: ["a","b"])'
    spilled = [c for c in result.changes if c.action == "spilled"]
    assert [(c.rule, c.pointer) for c in spilled] == [("openai-strict/any-of-recursive", "/$defs/T/properties/kids/enum")]


def test_keywords_beside_an_any_of_without_recursion_stay():
    schema = _props(kids={"anyOf": [{"$ref": "#/$defs/N"}, {"type": "string"}], "pattern": "^a"})
    schema["$defs"] = {"N": {"type": "object", "properties": {"n": {"type": "string"}}}}
    result = wireschema.normalize(schema, "openai-strict")
    kids = result.schema["properties"]["kids"]["anyOf"][0]  # required now, or null
    assert kids == {"anyOf": [{"$ref": "#/$defs/N"}, {"type": "string"}], "pattern": "^a"}
    assert not [c for c in result.changes if c.rule == "openai-strict/any-of-recursive"]
    # llguidance expands a reference that is no cycle beside keywords
    assert judge("llguidance")(result.schema, "parameters") is None


def _beside_ref_branch(recursive):
    """`x` requires `common` beside anyOf [$ref A, object b]; A leads back to x where `recursive`."""
    a = {"type": "object", "properties": {"a": {"type": "string"}}}
    if recursive:
        a["properties"]["next"] = {"$ref": "#/$defs/X"}
    x = {"type": "object", "properties": {"common": {"type": "string"}}, "required": ["common"],
         "anyOf": [{"$ref": "#/$defs/A"}, {"type": "object", "properties": {"b": {"type": "integer"}}}]}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/X"} if recursive else x},
            "$defs": {"A": a, **({"X": x} if recursive else {})}}


def _descriptions(node):
    if isinstance(node, dict):
        yield from [node["description"]] if isinstance(node.get("description"), str) else []
        for v in node.values():
            yield from _descriptions(v)
    elif isinstance(node, list):
        for v in node:
            yield from _descriptions(v)


WIRE_VALIDATOR = {"openai-strict": "llguidance", "openai-strict-compat": "llguidance", "vertex": "vertex-proto"}
ANY_OF_RULE = {"openai-strict": "openai-strict/any-of-objects", "openai-strict-compat": "openai-strict/any-of-objects",
               "vertex": "vertex/any-of-alone"}


@pytest.mark.parametrize("target", sorted(WIRE_VALIDATOR))
def test_a_ref_branch_becomes_its_definition_and_takes_the_properties_beside_its_any_of(target):
    result = wireschema.normalize(_beside_ref_branch(recursive=False), target)
    assert not result.used_fallback
    x = result.schema["properties"]["x"]
    branches = [b for b in x["anyOf"] if b.get("type") == "object"]
    assert all("common" in b["properties"] and "common" in b["required"] for b in branches)
    assert {"a", "b"} <= {n for b in branches for n in b["properties"]}
    inlined = [c for c in result.changes if c.pointer == "/properties/x/anyOf/0/$ref" and c.rule == ANY_OF_RULE[target]]
    assert [c.action for c in inlined] == ["rewritten"]
    # what the input refused (an `a` without `common`) the output refuses too
    jsonschema = pytest.importorskip("jsonschema")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"x": {"a": "s", "b": None}}, result.schema)
    assert judge(WIRE_VALIDATOR[target])(result.schema, "parameters") is None


@pytest.mark.parametrize("target", sorted(WIRE_VALIDATOR))
def test_what_a_recursive_ref_branch_cannot_take_is_spilled_and_no_move_into_it_is_claimed(target):
    result = wireschema.normalize(_beside_ref_branch(recursive=True), target)
    assert not result.used_fallback
    ours = [c for c in result.changes if c.rule == ANY_OF_RULE[target]]
    assert sorted((c.pointer, c.action) for c in ours if c.action == "spilled") == [
        ("/$defs/X/properties", "spilled"), ("/$defs/X/required", "spilled")]
    claims = [c.detail for c in ours if "moved into its branches" in c.detail]
    assert "type beside anyOf moved into its branches" in claims
    assert all(c.endswith("but anyOf[0] ($ref #/$defs/A, which reaches itself)") for c in claims if c.startswith(("properties", "required")))
    assert '(required: ["common"])' in "".join(_descriptions(result.schema))
    assert judge(WIRE_VALIDATOR[target])(result.schema, "parameters") is None


def test_on_vertex_the_spill_stands_beside_the_ref_it_speaks_of():
    # Vertex takes nothing beside anyOf, while a ref may carry a description
    x = wireschema.normalize(_beside_ref_branch(recursive=True), "vertex").schema["defs"]["X"]
    assert list(x) == ["anyOf"]
    assert x["anyOf"][0] == {"ref": "#/defs/A", "description": '(properties: {"common":{"type":"string"}}) (required: ["common"])'}


def test_a_root_whose_const_is_no_object_falls_back_rather_than_becoming_unsatisfiable():
    result = wireschema.normalize({"const": 2}, "anthropic")
    assert result.used_fallback and "enum or const" in result.fallback_reason


def test_respelled_patterns_match_the_same_strings():
    regress = pytest.importorskip("regress")
    before = "^\\${{(.|[\r\n])*}}$"
    after = wireschema.normalize(_props(e={"type": "string", "pattern": before}), "generic").schema["properties"]["e"]["pattern"]
    assert after == "^\\$\\{\\{(.|[\\r\\n])*\\}\\}$"
    for text in ["${{ a\nb }}", "${{}}", "{{x}}", "${x}"]:
        assert (regress.Regex(before).find(text) is None) == (regress.Regex(after).find(text) is None)


@pytest.mark.skipif(importlib.util.find_spec("xgrammar") is None, reason="xgrammar is not installed")
def test_xgrammar_refuses_what_the_generic_fixes_take_out():
    xgr = judge("xgrammar")
    for _t, _c, validator, schema in FIXES:
        if validator == "xgrammar":
            assert xgr(schema, "parameters") is not None


def _xgrammar_accepts(schema, value):
    """Whether the grammar vLLM compiles from `schema` (strict mode, its default) takes `value`."""
    import json

    import xgrammar
    from xgrammar import testing

    grammar = xgrammar.Grammar.from_json_schema(json.dumps(schema), strict_mode=True)
    return testing._is_grammar_accept_string(grammar, json.dumps(value))


@pytest.mark.skipif(importlib.util.find_spec("xgrammar") is None, reason="xgrammar is not installed")
@pytest.mark.parametrize("free", [{"type": "object"}, {"type": "object", "properties": {}}, {"type": ["object", "null"]}])
def test_a_free_form_object_takes_any_object_under_xgrammar_on_generic(free):
    # strict mode reads an object without additionalProperties as closed: properties {}
    # alone would take only {}
    result = wireschema.normalize(_props(d=free), "generic")
    assert result.schema["properties"]["d"]["additionalProperties"] is True
    assert ("generic/object-properties", "/properties/d/additionalProperties") in {(c.rule, c.pointer) for c in result.changes}
    assert _xgrammar_accepts(result.schema, {"d": {"any": [1, "name"]}})


@pytest.mark.skipif(importlib.util.find_spec("xgrammar") is None, reason="xgrammar is not installed")
@pytest.mark.parametrize("free", [{"type": "object"}, {"type": "object", "properties": {}}])
def test_a_free_form_output_takes_any_object_under_xgrammar_on_generic(free):
    # a structured output asking for any JSON object: read closed, it took only {}
    result = wireschema.normalize_output(free, "generic")
    assert _xgrammar_accepts(result.schema, {"a": 1})
    assert _xgrammar_accepts(result.schema, {})


@pytest.mark.skipif(importlib.util.find_spec("xgrammar") is None, reason="xgrammar is not installed")
def test_a_free_form_object_strict_deepseek_cannot_close_is_sent_open_by_its_fallback():
    result = wireschema.normalize(_props(d={"type": "object"}), "deepseek-strict")
    assert not result.strict and result.strict_reason.startswith("openai-strict/open-objects")
    assert _xgrammar_accepts(result.schema, {"d": {"any": 1}})


@pytest.mark.skipif(importlib.util.find_spec("xgrammar") is None, reason="xgrammar is not installed")
@pytest.mark.parametrize("target", ["generic", "xai"])
def test_a_tuple_takes_items_past_its_prefix_under_xgrammar(target):
    # JSON Schema leaves the items after prefixItems open; strict mode closes a tuple without items
    result = wireschema.normalize(_props(t={"prefixItems": [{"type": "integer"}]}), target)
    assert result.schema["properties"]["t"]["items"] == {}
    assert [c.pointer for c in result.changes if c.rule.endswith("/array-items")] == ["/properties/t/items"]
    assert _xgrammar_accepts(result.schema, {"t": [1, "two", [3]]})


@pytest.mark.parametrize("target", ["generic", "xai"])
@pytest.mark.parametrize("node,values", [
    ({"type": ["array", "number"], "minimum": 100, "maximum": 0}, [[], [1, "x"], 50, 0, 100, "s", None]),
    ({"type": ["integer", "string"], "exclusiveMinimum": 3, "exclusiveMaximum": 4, "minLength": 2}, ["ab", "a", 3, 4, 3.5]),
    ({"type": "object", "propertyNames": {"type": "number"}}, [{}, {"1": 1}, {"a": None}, []]),
    ({"type": "object", "propertyNames": {"enum": [1, 2]}, "maxProperties": 3}, [{}, {"1": 1}]),
])
def test_an_empty_type_or_name_set_removed_admits_the_same_values(target, node, values):
    jsonschema = pytest.importorskip("jsonschema")
    out = wireschema.normalize(_props(a=node), target).schema["properties"]["a"]
    assert "propertyNames" not in out and "minimum" not in out and "exclusiveMinimum" not in out
    for value in values:
        valid = jsonschema.Draft202012Validator(node).is_valid(value)
        assert jsonschema.Draft202012Validator(out).is_valid(value) == valid, value


# -- the residual checks the new rules are held to -----------------------------------------

CHECKS = [
    ("openai-strict", "boolean-subschema", {"type": "object", "properties": {"a": True}, "required": ["a"], "additionalProperties": False}),
    ("openai-strict", "lookahead", {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(?=a)"}},
                                    "required": ["a"], "additionalProperties": False}),
    ("anthropic-strict", "boolean-subschema", {"type": "object", "properties": {"a": False}, "additionalProperties": False}),
    ("anthropic-strict", "identity-escape", {"type": "object", "properties": {"a": {"type": "string", "pattern": "\\e\\Z"}},
                                             "required": ["a"], "additionalProperties": False}),
    ("vertex", "null-type", _props(a={"type": "null"})),
]


@pytest.mark.parametrize("target,case,schema", CHECKS, ids=[f"{t}:{c}" for t, c, _ in CHECKS])
def test_check(target, case, schema, snap):
    violations = wireschema.check(schema, target)
    assert violations
    assert {"target": target, "schema": schema, "violations": [str(v) for v in violations]} == snap


# -- bounds past what the wire can hold ------------------------------------------------------
# llguidance compiles bounds into regexes and refuses some ("Failed to generate regex for
# integer range", "... float range", "regex parse error", "number out of range"); the
# Gemini and Vertex protos hold counts as int64 and minimum/maximum as doubles. Each bound
# past them is loosened to the nearest one taken (`to`) or, with none looser, spilled.

BIG = 10**400  # JSON allows it; no double holds it
STRICT_BOUNDS = [
    ("number-lower-past-1e18", {"type": "number", "minimum": 1e19}, "number-lower-bounds", 999999999999999744),
    ("number-lower-past-int64", {"type": "number", "exclusiveMinimum": -1e19}, "number-lower-bounds", None),
    ("number-lower-tiny", {"type": "number", "minimum": 1e-320}, "number-lower-bounds", 0),
    ("number-upper-past-int64", {"type": "number", "maximum": 1e19}, "number-upper-bounds", None),
    ("number-upper-past-minus-1e18", {"type": "number", "exclusiveMaximum": -1e19}, "number-upper-bounds", -999999999999999744),
    ("number-upper-tiny", {"type": "number", "maximum": -1e-75}, "number-upper-bounds", 0),
    ("integer-lower-int64-min", {"type": "integer", "minimum": -2**63}, "integer-lower-bounds", None),
    ("integer-lower-past-1e18", {"type": "integer", "minimum": 10**18}, "integer-lower-bounds", 999999999999999744),
    ("integer-upper-past-minus-1e18", {"type": "integer", "maximum": -10**18}, "integer-upper-bounds", -999999999999999744),
    ("integer-upper-past-double", {"type": "integer", "maximum": BIG}, "integer-upper-bounds", None),
]
STRICT_COUNTS = [
    ("min-length-past-2-32", {"type": "string", "minLength": 2**33}, "min-length", 2**32 - 1),
    ("max-length-past-2-32", {"type": "string", "maxLength": 2**32}, "max-length", None),
    ("min-items-past-2-64", {"type": "array", "items": {"type": "string"}, "minItems": 2**64}, "min-items", 2**64 - 1),
    ("max-items-past-2-64", {"type": "array", "items": {"type": "string"}, "maxItems": 2**64}, "max-items", None),
]
PROTO_BOUNDS = [
    ("min-items-past-int64", {"type": "array", "items": {"type": "string"}, "minItems": 2**64}, "min-counts", 2**63 - 1),
    ("min-length-past-int64", {"type": "string", "minLength": 2**63}, "min-counts", 2**63 - 1),
    ("min-properties-past-int64", {"type": "object", "properties": {"k": {"type": "string"}}, "minProperties": 2**63}, "min-counts", 2**63 - 1),
    ("max-items-past-int64", {"type": "array", "items": {"type": "string"}, "maxItems": 2**64 - 1}, "max-counts", None),
    ("max-length-past-int64", {"type": "string", "maxLength": 2**63}, "max-counts", None),
    ("max-properties-past-int64", {"type": "object", "properties": {"k": {"type": "string"}}, "maxProperties": 2**64}, "max-counts", None),
    ("minimum-past-double", {"type": "number", "minimum": BIG}, "minimum", 1.7976931348623157e308),
    ("minimum-below-double", {"type": "integer", "minimum": -BIG}, "minimum", None),
    ("maximum-past-double", {"type": "number", "maximum": BIG}, "maximum", None),
    ("maximum-below-double", {"type": "integer", "maximum": -BIG}, "maximum", -1.7976931348623157e308),
]
# xgrammar holds an integer bound as an int64 (a uint64's maximum, say, fails the request)
XGRAMMAR_BOUNDS = [
    ("minimum-past-int64", {"type": "integer", "minimum": 2**70}, "integer-lower-bounds", 2**63 - 1),
    ("minimum-below-int64", {"type": "integer", "minimum": -2**63 - 1}, "integer-lower-bounds", None),
    ("exclusive-minimum-at-int64-max", {"type": "integer", "exclusiveMinimum": 2**63 - 1}, "integer-exclusive-lower-bounds", 2**63 - 2),
    ("maximum-of-uint64", {"type": "integer", "maximum": 2**64 - 1}, "integer-upper-bounds", None),
    ("maximum-below-int64", {"type": "integer", "maximum": -2**70}, "integer-upper-bounds", -2**63),
    ("exclusive-maximum-at-int64-min", {"type": "integer", "exclusiveMaximum": -2**63}, "integer-exclusive-upper-bounds", -2**63 + 1),
]
BOUNDS = (
    [(t, "xgrammar", f"xgrammar/{rule}", case, node, to) for t in ("generic", "xai", "xai-open") for case, node, rule, to in XGRAMMAR_BOUNDS]
    + [(t, "llguidance", f"openai-strict/{rule}", case, node, to)
     for t in ("openai-strict", "deepseek-strict") for case, node, rule, to in STRICT_BOUNDS]
    + [("openai-strict", "llguidance", f"openai-strict/{rule}", case, node, to) for case, node, rule, to in STRICT_COUNTS]
    + [(t, v, f"gemini/{rule}", case, node, to)
       for t, v in (("gemini", "gemini-proto"), ("vertex", "vertex-proto")) for case, node, rule, to in PROTO_BOUNDS]
)


@pytest.mark.parametrize("target,validator,rule,case,node,to", BOUNDS, ids=[f"{b[0]}:{b[3]}" for b in BOUNDS])
def test_a_bound_past_the_wire_is_loosened_or_spilled_and_reported(target, validator, rule, case, node, to):
    from test_reported import descriptions

    judge(validator)
    [key] = [k for k in node if k.startswith(("min", "max", "exclusive"))]
    schema = {"type": "object", "properties": {"a": node}, "required": ["a"], "additionalProperties": False}
    result = wireschema.normalize(schema, target)
    strict = {t.name: t.strict for t in wireschema.targets()}[target]
    assert not result.used_fallback and result.strict == strict
    for entry in ENTRIES:
        if entry.target == target and not isinstance(_judge(entry.validator), ImportError):
            assert _judge(entry.validator)(result.schema, "parameters") is None, entry.validator
    made = {(c.rule, c.action) for c in result.changes if c.pointer == f"/properties/a/{key}"}
    assert (rule, "spilled") in made
    assert f"({key}: " in descriptions(result.schema)
    [out] = [n for n in _schemas(result.schema["properties"]["a"]) if n.get("type") == node["type"]]
    if to is None:
        assert key not in out
    else:
        assert out[key] == to and (rule, "loosened") in made


def _schemas(node):
    """The node and its anyOf branches (a strict target's optional wrapper)."""
    return [node, *node.get("anyOf", [])]


def test_int64s_maximum_compiles_and_stays_where_its_minimum_is_spilled():
    schema = {"type": "object", "properties": {"a": {"type": "integer", "minimum": -2**63, "maximum": 2**63 - 1}},
              "required": ["a"], "additionalProperties": False}
    out = wireschema.normalize(schema, "openai-strict").schema["properties"]["a"]
    assert out == {"type": "integer", "maximum": 2**63 - 1, "description": "(minimum: -9223372036854775808)"}


@pytest.mark.parametrize("target", ["openai-strict", "anthropic-strict"])
def test_the_property_names_a_strict_target_spills_are_the_ones_llguidance_does_not_know(target):
    llg = judge("llguidance")
    rule = next(r for r in wireschema._target(target).rules if r.id == f"{target}/patterns")
    refused = rule.options["refused_properties"]
    known = ("L", "Lu", "Letter", "gc=Nd", "General_Category=Cn", "Script=Greek", "sc=Latn", "scx=Grek", "Any", "ASCII",
             "Assigned", "Alphabetic", "Emoji", "Extended_Pictographic", "White_Space", "Changes_When_Casefolded")
    for name in refused + known:
        schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": f"^\\p{{{name}}}$"}},
                  "required": ["a"], "additionalProperties": False}
        assert (llg(schema, "parameters") is not None) == (name in refused), name
        out = wireschema.normalize(schema, target).schema
        assert llg(out, "parameters") is None, name
        assert ("pattern" in out["properties"]["a"]) == (name not in refused), name


@pytest.mark.parametrize("target", ["generic", "deepseek-strict", "xai"])
def test_an_integers_fractional_bounds_become_the_whole_numbers_that_admit_the_same_integers(target):
    schema = _props(a={"type": "integer", "minimum": 0.5, "exclusiveMinimum": -2.5, "maximum": 7.9, "exclusiveMaximum": 9.2, "multipleOf": 1.5},
                    b={"type": "integer", "multipleOf": 0.1}, n={"type": "number", "minimum": 0.5})
    result = wireschema.normalize(schema, target)
    a, b, n = (_branch(result.schema["properties"][k]) for k in "abn")
    assert {k: a[k] for k in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf")} == {
        "minimum": 1, "exclusiveMinimum": -3, "maximum": 7, "exclusiveMaximum": 10, "multipleOf": 3}
    assert "multipleOf" not in b and n["minimum"] == 0.5  # every integer is a multiple of 0.1; a number keeps its bound
    made = [(c.pointer, c.action) for c in result.changes if c.rule.endswith("/whole-bounds")]
    assert ("/properties/b/multipleOf", "rewritten") in made and len(made) == 6
    for x in range(-5, 12):  # the same integers, one by one
        original = 0.5 <= x and x > -2.5 and x <= 7.9 and x < 9.2 and x % 1.5 == 0
        assert original == (a["minimum"] <= x and x > a["exclusiveMinimum"] and x <= a["maximum"] and x < a["exclusiveMaximum"] and x % a["multipleOf"] == 0)


def _branch(node):
    """The node, or its non-null branch (a strict target's optional wrapper)."""
    return next((b for b in node.get("anyOf", ()) if b.get("type") != "null"), node)

