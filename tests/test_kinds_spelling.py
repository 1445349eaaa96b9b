"""The kinds for wire spellings and partial recursion on their own (engine/passes/spelling.py,
engine/passes/cycles.py), and the options the Google targets added to older kinds: a
one-rule target (extending nothing) applied to one input, or a one-check target judging
one schema."""

from __future__ import annotations

import textwrap

import pytest

import wireschema
from conftest import describe

# kind case id -> (rule entries as YAML, input schema)
CASES = {
    "spell-refs-write": ("""
      - id: t/refs
        kind: resolve-refs
        mode: keep-defs
        recursion: keep
        why: test
      - id: t/spell
        kind: spell-refs
        direction: write
        ref: ref
        defs: defs
        why: test
    """, {"type": "object", "$defs": {"Pet Name": {"type": "string"}},
          "properties": {"n": {"$ref": "#/$defs/Pet%20Name"}, "again": {"type": "array", "items": {"$ref": "#"}}}}),
    # the root copy takes the next free name when `Root` is taken
    "spell-refs-write-root-name-taken": ("""
      - id: t/spell
        kind: spell-refs
        direction: write
        ref: ref
        defs: defs
        root_name: Root
        why: test
    """, {"type": "object", "$defs": {"Root": {"type": "integer"}},
          "properties": {"r": {"$ref": "#/$defs/Root"}, "self": {"$ref": "#"}}}),
    "spell-refs-write-unresolved-ref-refused": ("""
      - id: t/spell
        kind: spell-refs
        direction: write
        ref: ref
        defs: defs
        why: test
    """, {"type": "object", "properties": {"a": {"type": "string"}, "b": {"$ref": "#/properties/a"}}}),
    # a `ref` that is no reference of the wire's own form stays what it was
    "spell-refs-read": ("""
      - id: t/spell
        kind: spell-refs
        direction: read
        ref: ref
        defs: defs
        why: test
    """, {"type": "object", "defs": {"Pet": {"type": "object", "properties": {"next": {"ref": "#/defs/Pet"}}}},
          "properties": {"pet": {"ref": "#/defs/Pet"}, "branch": {"type": "string", "ref": "main"}}}),
    "enum-as-strings": ("""
      - id: t/enum
        kind: enum-as-strings
        types: [integer]
        format: enum
        why: test
    """, {"type": "object", "properties": {
        "room": {"type": "integer", "enum": [101, 201.0]}, "big": {"type": "integer", "format": "int64", "enum": [1, 2]},
        "done": {"type": "integer", "format": "enum", "enum": ["1", "2"]}, "ratio": {"type": "number", "enum": [0.5]},
        "odd": {"type": "integer", "enum": [1, "two"]}}}),
    "enum-as-strings-no-format": ("""
      - id: t/enum
        kind: enum-as-strings
        types: [boolean, number]
        why: test
    """, {"type": "object", "properties": {"flag": {"type": "boolean", "enum": [True]}, "n": {"type": "number", "enum": [1, 2.5]}}}),
    "null-enum-branch": ("""
      - id: t/null
        kind: null-enum-branch
        why: test
    """, {"type": "object", "properties": {
        "listed": {"type": ["string", "null"], "enum": ["a", None], "description": "d", "minLength": 1},
        "typeless": {"enum": [1, None], "title": "T"},
        "refused": {"type": "string", "enum": ["x", None]},
        "only": {"enum": [None]}}}),
    "any-of-alone": ("""
      - id: t/alone
        kind: any-of-alone
        ref_siblings: [description]
        why: test
    """, {"type": "object", "anyOf": [{"required": ["a"]}], "$defs": {"R": {"type": "string"}}, "properties": {
        "a": {"type": "string", "minLength": 1, "description": "text or count",
              "anyOf": [{"maxLength": 3}, {"type": "integer", "description": "own"}, {"type": "null"}]},
        "r": {"anyOf": [{"$ref": "#/$defs/R"}, {"type": "null"}], "description": "d", "default": "x"}}}),
    # a keyword the $ref branch would be held to (minLength, a string's, beside a reference to
    # a string) is spilled; beside a reference to an object it says nothing and goes without
    "any-of-alone-ref-branches-spill": ("""
      - id: t/alone
        kind: any-of-alone
        ref_siblings: []
        why: test
    """, {"type": "object", "$defs": {"S": {"type": "string"}, "O": {"type": "object"}}, "properties": {
        "s": {"anyOf": [{"$ref": "#/$defs/S"}, {"type": "string", "maxLength": 9}], "minLength": 2},
        "o": {"anyOf": [{"$ref": "#/$defs/O"}, {"type": "string"}], "minLength": 2}}}),
    # the branch becomes a copy of the definition, which takes the keyword; a reference that
    # reaches itself is not copied, and what it would take is spilled
    "any-of-alone-ref-branches-inline": ("""
      - id: t/refs
        kind: resolve-refs
        mode: keep-defs
        recursion: keep
        why: test
      - id: t/alone
        kind: any-of-alone
        ref_siblings: []
        ref_branches: inline
        why: test
    """, {"type": "object", "$defs": {"S": {"type": "string"}, "T": {"type": "array", "items": {"$ref": "#/$defs/T"}}},
          "properties": {
        "s": {"anyOf": [{"$ref": "#/$defs/S"}, {"type": "integer"}], "minLength": 2},
        "t": {"anyOf": [{"$ref": "#/$defs/T"}, {"type": "array", "items": {"type": "string"}}], "maxItems": 3}}}),
    "unroll-required-recursion": ("""
      - id: t/refs
        kind: resolve-refs
        mode: keep-defs
        recursion: keep
        why: test
      - id: t/unroll
        kind: unroll-required-recursion
        max_unroll: 1
        cut: {type: object}
        why: test
    """, {"type": "object", "required": ["a", "loop"], "properties": {
        "a": {"$ref": "#/$defs/A"}, "opt": {"$ref": "#/$defs/Opt"}, "loop": {"type": "array", "items": {"$ref": "#"}}},
        "$defs": {"A": {"type": "object", "required": ["b"], "properties": {"b": {"$ref": "#/$defs/B"}}},
                  "B": {"type": "object", "required": ["a"], "properties": {"a": {"$ref": "#/$defs/A", "description": "back"}}},
                  "Opt": {"type": "object", "properties": {"more": {"$ref": "#/$defs/Opt"}}}}}),
    "unroll-required-recursion-union-exits": ("""
      - id: t/refs
        kind: resolve-refs
        mode: keep-defs
        recursion: keep
        why: test
      - id: t/unroll
        kind: unroll-required-recursion
        max_unroll: 1
        union_exits: true
        why: test
    """, {"type": "object", "required": ["ends", "loops"], "properties": {"ends": {"$ref": "#/$defs/E"}, "loops": {"$ref": "#/$defs/L"}},
          "$defs": {"E": {"type": "object", "required": ["next"], "properties": {"next": {"anyOf": [{"$ref": "#/$defs/E"}, {"type": "null"}]}}},
                    "L": {"type": "object", "required": ["next"], "properties": {"next": {"anyOf": [{"$ref": "#/$defs/L"}, {"type": "object"}]}}}}}),
    "nullable-marker-with-null-type": ("""
      - id: t/nullable
        kind: nullable
        style: marker
        null_type: true
        why: test
    """, {"type": "object", "properties": {
        "t": {"type": ["string", "null"]}, "folds": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "ref": {"anyOf": [{"$ref": "#/$defs/R"}, {"type": "null"}]}, "two": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
        "only": {"type": "null"}}, "$defs": {"R": {"type": "string"}}}),
    # without null_type a $ref branch is not flattened either: the marker would stand beside $ref
    "nullable-marker-ref-branch": ("""
      - id: t/nullable
        kind: nullable
        style: marker
        why: test
    """, {"type": "object", "properties": {"ref": {"anyOf": [{"$ref": "#/$defs/R"}, {"type": "null"}]}}, "$defs": {"R": {"type": "string"}}}),
    "collapse-any-of-keeps-own-properties": ("""
      - id: t/collapse
        kind: collapse-any-of
        modes: [object-merge]
        why: test
    """, {"type": "object", "properties": {"id": {"type": "string"}, "kind": {"type": "string"}}, "required": ["id"],
          "anyOf": [{"properties": {"kind": {"enum": ["a"]}, "x": {"type": "string"}}, "required": ["kind", "x"]},
                    {"properties": {"kind": {"enum": ["b"]}, "y": {"type": "string"}}, "required": ["kind"]}]}),
    # a leftover allOf is spilled by the rule itself, so infer-type after it reads the node without it
    "merge-all-of-otherwise-spill": ("""
      - id: t/allof
        kind: merge-all-of
        otherwise: spill
        why: test
      - id: t/infer
        kind: infer-type
        why: test
    """, {"type": "object", "properties": {
        "clash": {"allOf": [{"type": "string"}, {"type": "integer"}], "properties": {"a": {"type": "string"}}},
        "folds": {"allOf": [{"type": "string"}, {"maxLength": 3}]}}}),
    # an anyOf that is no list of schemas is no union: with otherwise: spill only its text stays
    "collapse-any-of-not-a-union": ("""
      - id: t/collapse
        kind: collapse-any-of
        otherwise: spill
        why: test
    """, {"type": "object", "properties": {"n": {"anyOf": None, "type": "string"}, "e": {"anyOf": [], "type": "string"}}}),
    # a branch that folds in may bring its own "or null": folded in the same visit
    "nullable-nested-null-unions": ("""
      - id: t/nullable
        kind: nullable
        style: marker
        why: test
    """, {"type": "object", "properties": {"x": {"anyOf": [{"anyOf": [{"anyOf": [{"type": "string"}, {"type": "null"}]},
                                                                        {"type": "null"}]}, {"type": "null"}]}}}),
    # the spilled union shows structure; branch descriptions follow as text, so a nested
    # spill is never escaped again (it would grow exponentially)
    "collapse-any-of-spills-structure-then-texts": ("""
      - id: t/collapse
        kind: collapse-any-of
        modes: [mixed-type]
        why: test
    """, {"type": "object", "properties": {"v": {"description": "outer", "anyOf": [
        {"anyOf": [{"type": "string", "description": "a \"quoted\" name"}, {"type": "integer"}]},
        {"type": "array", "items": {"type": "string", "description": "plain"}, "description": "many"}]}}}),
    "enum-and-const-strings-and-numbers": ("""
      - id: t/const
        kind: const-to-enum
        values: strings-and-numbers
        why: test
      - id: t/enum
        kind: enum-values
        values: strings-and-numbers
        why: test
    """, {"type": "object", "properties": {"c": {"const": 2.5}, "b": {"const": True}, "e": {"enum": ["a", 1, 2.5]}, "f": {"enum": ["a", None]}}}),
}

# check case id -> (check entries as YAML, schema judged as it stands)
CHECKS = {
    "ref-targets": ("""
      - id: t/refs
        kind: ref-targets
        ref: ref
        defs: defs
        siblings: [description]
        why: test
    """, {"type": "object", "defs": {"A": {"type": "string", "defs": {}}},
          "properties": {"ok": {"ref": "#/defs/A", "description": "fine"}, "missing": {"ref": "#/defs/B"},
                         "sibling": {"ref": "#/defs/A", "title": "T"}, "other": {"ref": "#/properties/ok"}}}),
    "stands-alone": ("""
      - id: t/alone
        kind: stands-alone
        keys: [anyOf]
        siblings: [title]
        why: test
    """, {"type": "object", "properties": {"ok": {"anyOf": [{"type": "string"}], "title": "T"},
                                           "bad": {"anyOf": [{"type": "string"}], "description": "d"}}}),
    "recursion-through-optional-union-exits": ("""
      - id: t/recursion
        kind: recursion-through-optional
        union_exits: true
        why: test
    """, {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "n": {"$ref": "#/$defs/N"}},
          "$defs": {"A": {"type": "object", "required": ["next"], "properties": {"next": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "array"}]}}},
                    "N": {"type": "object", "required": ["next"], "properties": {"next": {"anyOf": [{"$ref": "#/$defs/N"}, {"type": ["string", "null"]}]}}}}}),
    "recursion-through-optional": ("""
      - id: t/recursion
        kind: recursion-through-optional
        why: test
    """, {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "o": {"$ref": "#/$defs/O"}},
          "$defs": {"A": {"type": "object", "required": ["next"], "properties": {"next": {"$ref": "#/$defs/A"}}},
                    "O": {"type": "object", "properties": {"next": {"$ref": "#/$defs/O"}}}}}),
}


def _targets(tmp_path_factory, cases, section):
    d = tmp_path_factory.mktemp(section)
    for case, (rules, _schema) in cases.items():
        body = textwrap.indent(textwrap.dedent(rules).strip("\n"), "  ")
        (d / f"{case}.yaml").write_text(f"description: {case}\n{section}:\n{body}\n")
    return wireschema.load_rules(d)


@pytest.fixture(scope="module")
def kind_targets(tmp_path_factory):
    return _targets(tmp_path_factory, CASES, "rules")


@pytest.fixture(scope="module")
def check_targets(tmp_path_factory):
    return _targets(tmp_path_factory, CHECKS, "checks")


@pytest.mark.parametrize("case", list(CASES))
def test_kind(case, kind_targets, snap):
    schema = CASES[case][1]
    result = wireschema.normalize(schema, kind_targets[case])
    assert describe(schema, result) == snap


@pytest.mark.parametrize("case", list(CHECKS))
def test_check_kind(case, check_targets, snap):
    schema = CHECKS[case][1]
    violations = wireschema.check(schema, check_targets[case])
    assert violations
    assert {"schema": schema, "violations": [str(v) for v in violations]} == snap


def test_a_misspelt_keyword_is_reported_with_the_keyword_meant_on_every_target():
    """Issue 54: `propertes` and `requried` were passed through (anthropic) or dropped as
    "not accepted by this wire" (gemini, openai-strict: a strict tool with no parameters),
    and nothing said they were typos."""
    typo = {"type": "object", "propertes": {"a": {"type": "string"}}, "requried": ["a"]}
    for target in wireschema.targets():
        result = wireschema.normalize(typo, target.name)
        said = [(c.pointer, c.action, c.detail) for c in result.changes if c.rule == "prepare/misspelled-keywords"]
        assert said == [
            ("/propertes", "kept", "propertes is no JSON Schema keyword — did you mean 'properties'?"),
            ("/requried", "kept", "requried is no JSON Schema keyword — did you mean 'required'?"),
        ], target.name
    assert wireschema.normalize(typo, "anthropic").schema == typo  # kept as written, where the wire keeps it


def test_extensions_and_other_vocabularies_keywords_are_no_misspelling():
    schema = {"type": "object", "x-propertes": 1, "typeof": "string", "options": {}, "markdownDescription": "m",
              "enumDescriptions": [], "propertyOrdering": []}
    assert not [c for c in wireschema.normalize(schema, "mcp").changes if c.rule == "prepare/misspelled-keywords"]


def test_a_schema_of_very_many_unknown_keywords_is_read_for_misspellings_up_to_a_bound():
    # each unknown keyword is compared with every keyword there is: past 256 distinct
    # ones (no hand-written schema), the rest are left alone, in document order
    def said(unknown: int) -> list[str]:
        schema = {"type": "object", **{f"u{i}": 1 for i in range(unknown)}, "propertes": {}}
        return [c.pointer for c in wireschema.normalize(schema, "mcp").changes if c.rule == "prepare/misspelled-keywords"]

    assert said(255) == ["/propertes"]
    assert said(256) == []
