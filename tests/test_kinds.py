"""Each rule kind on its own: a one-rule target (extending nothing) applied to one input.

These pin down what a kind does, independent of any provider's rule file; the
provider files are covered by their own snapshots.
"""

from __future__ import annotations

import textwrap

import pytest

import wireschema
from conftest import describe

# kind case id -> (rule entries as YAML, input schema)
CASES = {
    "rename-keys": ("""
      - id: t/rename
        kind: rename-keys
        map: {x-desc: description, min_items: minItems}
        collision: target-wins
        why: test
    """, {"type": "object", "x-desc": "d", "description": "kept",
          "properties": {"xs": {"type": "array", "min_items": 1}, "x-desc": {"type": "string"}}}),
    "type-alias": ("""
      - id: t/alias
        kind: type-alias
        map: map:type-aliases
        why: test
    """, {"type": "dict", "properties": {"f": {"type": "float"}, "a": {"type": "any"}, "l": {"type": ["str", "null"]}}}),
    "boolean-schemas": ("""
      - id: t/booleans
        kind: boolean-schemas
        true_as: {}
        false_as: {not: {}}
        why: test
    """, {"type": "object", "properties": {"yes": True, "no": False}, "additionalProperties": False}),
    "drop": ("""
      - id: t/drop
        kind: drop
        keys: [group:annotations]
        why: test
    """, {"type": "object", "title": "T", "description": "D", "properties": {"title": {"type": "string", "title": "x"}}}),
    "spill": ("""
      - id: t/spill
        kind: spill
        keys: [group:string-constraints, default]
        why: test
    """, {"type": "object", "properties": {
        "a": {"type": "string", "pattern": "^a+$", "minLength": 2, "description": "letters"},
        "b": {"type": "string", "default": "x", "description": "has (default: y) already"}}}),
    "keep-only": ("""
      - id: t/keep
        kind: keep-only
        keys: [type, properties, description]
        spill: [minimum]
        why: test
    """, {"type": "object", "$comment": "c", "properties": {"n": {"type": "integer", "minimum": 1, "x-extra": True}}}),
    "infer-type": ("""
      - id: t/infer
        kind: infer-type
        why: test
    """, {"properties": {"e": {"enum": ["a", "b"]}, "m": {"enum": [1, "x"]}, "c": {"const": 2.5},
                         "arr": {"items": {"type": "string"}}, "any": {"description": "anything"}}}),
    "infer-type-strict": ("""
      - id: t/infer
        kind: infer-type
        strict: true
        why: test
    """, {"type": "object", "properties": {"any": {"description": "anything"}}}),
    "infer-type-every-type": ("""
      - id: t/infer
        kind: infer-type
        every_type: true
        why: test
    """, {"type": "object", "properties": {"any": {"description": "anything"}, "e": {"enum": [1, "x"]}, "u": {"anyOf": [{}]},
                                           "none": {"type": []}}}),
    "nullable-marker": ("""
      - id: t/nullable
        kind: nullable
        style: marker
        why: test
    """, {"type": "object", "properties": {
        "t": {"type": ["string", "null"]}, "u": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}], "description": "n"},
        "e": {"type": "string", "enum": ["a", None]}, "c": {"const": None}, "only": {"type": "null"}}}),
    "nullable-remove-and-optional": ("""
      - id: t/nullable
        kind: nullable
        style: remove
        why: test
      - id: t/optional
        kind: optional-if-nullable
        why: test
    """, {"type": "object", "required": ["a", "b"], "properties": {
        "a": {"type": ["string", "null"]}, "b": {"type": "integer"}}}),
    "type-array-any-of": ("""
      - id: t/types
        kind: type-array
        mode: any-of
        why: test
    """, {"type": "object", "properties": {"v": {
        "type": ["string", "object", "null"], "description": "d", "minLength": 1,
        "properties": {"k": {"type": "string"}}, "enum": ["a", None, {"k": "v"}]}}}),
    "type-array-first": ("""
      - id: t/types
        kind: type-array
        mode: first
        why: test
    """, {"type": "object", "properties": {"v": {"type": ["integer", "string"], "minimum": 1, "maxLength": 3, "enum": [1, "two"]}}}),
    "one-of-to-any-of": ("""
      - id: t/oneof
        kind: one-of-to-any-of
        why: test
    """, {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                                           "both": {"oneOf": [{"type": "string"}], "anyOf": [{"minLength": 1}]}}}),
    "merge-all-of": ("""
      - id: t/allof
        kind: merge-all-of
        mode: compatible
        single_wins: branch
        why: test
    """, {"type": "object", "properties": {
        "one": {"allOf": [{"type": "string", "description": "inner"}], "description": "outer"},
        "objs": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                           {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]},
        "clash": {"allOf": [{"type": "string"}, {"type": "integer"}]},
        "ref": {"allOf": [{"$ref": "#/$defs/R"}], "description": "kept beside"},
        "both": {"type": "object", "properties": {"a": {"type": "string"}, "c": {"type": "string"}}, "required": ["a"],
                 "allOf": [{"properties": {"a": {"maxLength": 3}, "b": {"type": "integer"}, "c": {"type": "integer"}}, "required": ["b"]}]}},
        "$defs": {"R": {"type": "string"}}}),
    "lift-properties": ("""
      - id: t/lift
        kind: lift-properties
        keys: [anyOf, oneOf, if, then, else, not, dependentSchemas]
        reading: closed
        spill: true
        why: test
    """, {"type": "object", "properties": {"id": {"type": "string"}},
          "oneOf": [{"properties": {"kind": {"const": "a"}, "n": {"type": "integer"}}, "required": ["kind", "n"]},
                    {"$ref": "#/$defs/B"}],
          "not": {"properties": {"legacy": {}}, "required": ["legacy"]},
          "dependentSchemas": {"id": {"properties": {"trace": {"type": "string"}}}},
          "$defs": {"B": {"properties": {"kind": {"const": "b"}, "s": {"type": "string"}}, "required": ["kind"]}}}),
    "lift-properties-unevaluated": ("""
      - id: t/lift
        kind: lift-properties
        keys: [anyOf, allOf]
        reading: unevaluated
        why: test
    """, {"type": "object", "properties": {
        "listed": {"type": "object", "anyOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"a": {"type": "integer"}, "b": True}}],
                   "unevaluatedProperties": {"type": "boolean"}},
        "unlisted": {"type": "object", "allOf": [{"patternProperties": {"^x": True}}], "unevaluatedProperties": False},
        "open": {"type": "object", "anyOf": [{"properties": {"c": True}}]}}}),
    "collapse-any-of": ("""
      - id: t/collapse
        kind: collapse-any-of
        modes: [object-merge, same-type, mixed-type]
        why: test
    """, {"type": "object", "properties": {
        "objects": {"anyOf": [{"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}, "required": ["id", "name"]},
                              {"type": "object", "properties": {"id": {"type": "string"}, "age": {"type": "number"}}, "required": ["id", "age"]}]},
        "enums": {"anyOf": [{"type": "string", "enum": ["A", "B"]}, {"type": "string", "enum": ["C"]}], "description": "letters"},
        "loosened": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "string", "maxLength": 5, "pattern": "^x"}]},
        "mixed": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}], "description": "lines"}}}),
    "collapse-any-of-keep": ("""
      - id: t/collapse
        kind: collapse-any-of
        modes: [object-merge]
        otherwise: spill
        why: test
    """, {"type": "object", "properties": {"mixed": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}}),
    "const-to-enum": ("""
      - id: t/const
        kind: const-to-enum
        values: strings
        otherwise: spill
        why: test
    """, {"type": "object", "properties": {"s": {"const": "on"}, "n": {"type": "integer", "const": 3}}}),
    "enum-values": ("""
      - id: t/enum
        kind: enum-values
        values: strings
        types: [string]
        otherwise: spill
        why: test
    """, {"type": "object", "properties": {"dup": {"type": "string", "enum": ["a", "a", "b"]},
                                           "num": {"type": "integer", "enum": [1, 2]}, "empty": {"type": "string", "enum": []}}}),
    "enum-values-stringify": ("""
      - id: t/enum
        kind: enum-values
        values: strings
        otherwise: stringify
        why: test
    """, {"type": "object", "properties": {"num": {"type": "integer", "enum": [1, 2]}}}),
    "format-allow": ("""
      - id: t/format
        kind: format-allow
        allowed: {string: [date-time], integer: [int64]}
        why: test
    """, {"type": "object", "properties": {"d": {"type": "string", "format": "date-time"}, "u": {"type": "string", "format": "uri"},
                                           "i": {"type": "integer", "format": "int64"}, "f": {"type": "number", "format": "float"}}}),
    "ensure-properties-and-items": ("""
      - id: t/props
        kind: ensure-properties
        why: test
      - id: t/items
        kind: ensure-items
        schema: {type: string}
        why: test
    """, {"type": "object", "properties": {"o": {"type": "object"}, "a": {"type": "array"}, "t": {"type": "array", "prefixItems": [{"type": "integer"}]}}}),
    "ensure-properties-free-form": ("""
      - id: t/props
        kind: ensure-properties
        free_form: true
        why: test
    """, {"type": "object", "properties": {
        "dict": {"type": "object"}, "empty": {"type": "object", "properties": {}}, "maybe": {"type": ["object", "null"]},
        "closed": {"type": "object", "additionalProperties": False}, "listed": {"properties": {"x": {"type": "string"}}},
        "patterned": {"type": "object", "patternProperties": {"^x": {"type": "string"}}},
        "counted": {"type": "object", "unevaluatedProperties": False}}}),
    "ensure-items-tuples": ("""
      - id: t/items
        kind: ensure-items
        schema: {}
        tuples: true
        why: test
    """, {"type": "object", "properties": {
        "untyped": {"prefixItems": [{"type": "integer"}], "minItems": 2}, "typed": {"type": "array", "prefixItems": [{}]},
        "closed": {"prefixItems": [{"type": "integer"}], "items": False}, "list": {"type": "array", "items": {"type": "string"}}}}),
    "type-array-drop-empty": ("""
      - id: t/empty
        kind: type-array
        mode: drop-empty
        why: test
    """, {"type": "object", "properties": {
        "crossed": {"type": ["array", "number"], "minimum": 100, "maximum": 0, "minItems": 1},
        "no-integer-between": {"type": ["integer", "string"], "exclusiveMinimum": 3, "exclusiveMaximum": 4, "maxLength": 5},
        "a-number-between": {"type": ["number", "string"], "exclusiveMinimum": 3, "exclusiveMaximum": 3.5},
        "integer-beside-number": {"type": ["integer", "number"], "exclusiveMinimum": 3, "exclusiveMaximum": 4},
        "bounds-meet": {"type": ["number", "null"], "minimum": 2, "exclusiveMaximum": 2},
        "lengths": {"type": ["string", "array", "object"], "minLength": 3, "maxLength": 1, "minItems": 2, "maxItems": 1,
                    "minProperties": 1},
        "all-empty": {"type": ["string", "number"], "minLength": 3, "maxLength": 1, "minimum": 1, "maximum": 0},
        "one-type": {"type": ["number"], "minimum": 1, "maximum": 0},
        "single": {"type": "number", "minimum": 1, "maximum": 0}}}),
    "reachable-min-properties-nameless": ("""
      - id: t/names
        kind: reachable-min-properties
        nameless: true
        why: test
    """, {"type": "object", "properties": {
        "number": {"type": "object", "propertyNames": {"type": "number"}},
        "false": {"type": "object", "propertyNames": False, "maxProperties": 5},
        "not-any": {"type": "object", "propertyNames": {"not": {}}},
        "enum": {"type": "object", "propertyNames": {"enum": [1, None]}, "minProperties": 1},
        "const": {"type": "object", "propertyNames": {"const": 3}},
        "or-string": {"type": "object", "propertyNames": {"type": ["string", "null"]}},
        "pattern": {"type": "object", "propertyNames": {"pattern": "^a"}},
        "unknown-type": {"type": "object", "propertyNames": {"type": "text"}}}}),
    "close-objects": ("""
      - id: t/close
        kind: close-objects
        open: close
        why: test
    """, {"type": "object", "properties": {"o": {"type": "object", "properties": {"x": {"type": "string"}}},
                                           "dict": {"type": "object", "additionalProperties": {"type": "string"}}}}),
    "close-objects-free-form-and-unlisted-required": ("""
      - id: t/close
        kind: close-objects
        open: close
        why: test
    """, {"type": "object", "properties": {"free": {"type": "object"},
                                           "named": {"type": "object", "required": ["a"]},
                                           "typo": {"type": "object", "properties": {"upsteam": {"type": "string"}}, "required": ["upstream"]}}}),
    "close-objects-fail": ("""
      - id: t/close
        kind: close-objects
        open: fail
        why: test
    """, {"type": "object", "properties": {"dict": {"type": "object", "additionalProperties": {"type": "string"}}}}),
    "fit-property-counts": ("""
      - id: t/fit
        kind: fit-property-counts
        max_optional: 3
        max_unions: 2
        why: test
    """, {"type": "object", "required": ["d", "u"], "properties": {
        "a": {"type": "string"}, "b": {"type": ["string", "null"], "description": "required first: it takes null"}, "d": {"type": "string"},
        "u": {"type": ["string", "integer"]},
        "o": {"type": "object", "properties": {"x": {"type": "integer"}, "never": False, "y": {"type": "integer"}}},
        "n": {"anyOf": [{"type": "object", "properties": {"v": {"type": "string"}}}, {"type": "null"}], "default": None},
        "z": {"anyOf": [{"type": "boolean"}, {"type": "null"}], "description": "narrowed, the last such union"}}}),
    "fit-property-counts-no-narrowing-enough": ("""
      - id: t/fit
        kind: fit-property-counts
        max_unions: 1
        why: test
    """, {"type": "object", "properties": {
        "a": {"type": ["string", "integer"]}, "b": {"type": ["string", "boolean"]},
        "n": {"type": ["string", "null"], "description": "kept: narrowing it alone would not bring the schema within the count"}}}),
    "fit-property-counts-first-branches": ("""
      - id: t/fit
        kind: fit-property-counts
        max_unions: 1
        other_unions: first
        why: test
    """, {"type": "object", "required": ["r"], "properties": {
        "a": {"type": ["string", "integer"], "description": "optional: narrowed to its first type"},
        "r": {"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 0}, {"type": "string"}], "description": "required: kept, the optional ones narrowed first"},
        "n": {"type": ["string", "null"], "description": "T or null: the null dropped first"},
        "b": {"type": ["boolean", "number"], "description": "optional, the last: the first of the others narrowed"}}}),
    "say-open": ("""
      - id: t/open
        kind: say-open
        why: test
    """, {"type": "object", "properties": {
        "dict": {"type": "object"},
        "closed": {"type": "object", "properties": {"x": {"type": "string"}}, "additionalProperties": False},
        "counted": {"type": "object", "properties": {"x": {"type": "string"}}, "allOf": [{"properties": {"y": {}}}],
                    "unevaluatedProperties": False},
        "free": {"properties": {"x": {"type": "string"}}, "unevaluatedProperties": True},
        "text": {"type": "string"}}}),
    "require-all": ("""
      - id: t/required
        kind: require-all
        why: test
    """, {"type": "object", "required": ["a"], "properties": {
        "a": {"type": "string"}, "b": {"type": "integer", "description": "count"},
        "c": {"anyOf": [{"type": "string"}, {"type": "integer"}]}, "d": {"type": ["string", "null"]},
        "r": {"$ref": "#/$defs/R"}}, "$defs": {"R": {"type": "string"}}}),
    "list-required": ("""
      - id: t/list-required
        kind: list-required
        why: test
    """, {"type": "object", "required": [], "properties": {"o": {"type": "object", "required": ["a", "a", 7]},
          "u": {"anyOf": [{"required": ["id"], "properties": {}}, {"type": "string"}]}, "kept": {"properties": {"x": {}}, "required": ["y"]}}}),
    "required-exists": ("""
      - id: t/required
        kind: required-exists
        why: test
    """, {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "a", "ghost", 7]}),
    "root-object": ("""
      - id: t/root
        kind: root-object
        forbid: [anyOf]
        why: test
    """, {"properties": {"a": {"type": "string"}}, "anyOf": [{"required": ["a"]}]}),
    "root-object-refused": ("""
      - id: t/root
        kind: root-object
        why: test
    """, {"type": "string"}),
    "tuple-to-items": ("""
      - id: t/tuple
        kind: tuple-to-items
        open: keep
        why: test
    """, {"type": "object", "properties": {"closed": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "string"}], "items": False},
                                           "open": {"type": "array", "prefixItems": [{"type": "number"}]}}}),
    "map-to-pairs": ("""
      - id: t/maps
        kind: map-to-pairs
        why: test
    """, {"type": "object", "additionalProperties": {"type": "integer"},  # the root stays an object
          "properties": {
              "scores": {"type": "object", "title": "Scores", "propertyNames": {"type": "string", "pattern": "^[a-z]+$"},
                         "additionalProperties": {"type": "integer"}, "minProperties": 1, "maxProperties": 9, "default": {"ann": 1}},
              "free": {"type": "object", "description": "any object"},
              # left as written: a property named, a required name, a default that is no object, keys no string
              "named": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}},
              "required": {"type": "object", "required": ["a"], "additionalProperties": {"type": "string"}},
              "odd-default": {"type": "object", "additionalProperties": {"type": "string"}, "default": []},
              "closed": {"type": "object", "additionalProperties": False},
              "numbers": {"type": "object", "propertyNames": {"type": "integer"}}}}),
    "property-ordering": ("""
      - id: t/order
        kind: property-ordering
        schemas: all
        least: 3
        why: test
    """, {"type": "object", "properties": {  # schemas: all, so tool parameters too
        "c": {"type": "string"}, "a": {"type": "string"},
        "three": {"type": "object", "properties": {"z": {}, "y": {}, "x": {}}},
        "said": {"type": "object", "properties": {"z": {}, "y": {}, "x": {}}, "propertyOrdering": ["x", "y", "z"]}}}),
    "resolve-refs-fallback-on-recursion": ("""
      - id: t/refs
        kind: resolve-refs
        mode: keep-defs
        recursion: fallback
        why: test
    """, {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}},
          "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}}),
    "resolve-refs-external-any": ("""
      - id: t/refs
        kind: resolve-refs
        mode: inline
        external: any
        why: test
    """, {"type": "object", "properties": {"x": {"$ref": "https://example.test/x.json", "description": "remote"}}}),
    "where-selector": ("""
      - id: t/root-title
        kind: drop
        keys: [title]
        where: "$"
        why: only the root loses its title
      - id: t/items-only
        kind: drop
        keys: [description]
        where: "$..items"
        why: only schemas in an items keyword lose their description
    """, {"title": "root", "type": "object", "properties": {
        "items": {"type": "string", "title": "a property called items", "description": "kept: a property name"},
        "xs": {"type": "array", "title": "kept", "items": {"type": "string", "description": "dropped"}}}}),
}


@pytest.fixture(scope="module")
def kind_targets(tmp_path_factory):
    d = tmp_path_factory.mktemp("kinds")
    for case, (rules, _schema) in CASES.items():
        text = f"description: {case}\nrules:\n" + textwrap.indent(textwrap.dedent(rules).strip("\n"), "  ") + "\n"
        (d / f"{case}.yaml").write_text(text)
    return wireschema.load_rules(d)


@pytest.mark.parametrize("case", list(CASES))
def test_kind(case, kind_targets, snap):
    schema = CASES[case][1]
    result = wireschema.normalize(schema, kind_targets[case])
    assert describe(schema, result) == snap
