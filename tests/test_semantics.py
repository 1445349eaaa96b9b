"""What a tool accepts, kept (issue 58, items 1-7): each semantic class by its example
and by generated cases.

- a `const` beside an `enum` or a `type` says what both say, and a rewrite of it settles
  in one pass;
"""

from __future__ import annotations

import itertools
import json

import pytest

import wireschema

TARGETS = [t.name for t in wireschema.targets()]


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def wire_of(target: str, result: wireschema.Result) -> str:
    """The target a result is sent as: a strict target that failed open, as its sibling."""
    t = wireschema._target(target)
    if t.strict and not result.strict:
        return t.fail_open or t.non_strict or target
    return target


def prop(schema) -> dict:
    return {"type": "object", "properties": {"p": schema}}


# ---------------------------------------------------------------------------
# item 5: const beside an enum is their intersection

CONST_TO_ENUM = ["gemini", "vertex", "cca-claude", "gemini-jsonschema", "openai-strict-compat"]


def _p(result):
    p = result.schema["properties"]["p"]
    return p["anyOf"][0] if "anyOf" in p else p  # openai-strict-compat: optional, so or null


@pytest.mark.parametrize("target", CONST_TO_ENUM)
@pytest.mark.parametrize("order", ["const-first", "enum-first"])
def test_a_const_beside_an_enum_listing_it_is_a_one_value_enum(target, order):
    node = {"const": "x", "enum": ["y", "x"]} if order == "const-first" else {"enum": ["y", "x"], "const": "x"}
    result = wireschema.normalize(prop(node), target)
    assert _p(result)["enum"] == ["x"]
    assert not [c for c in result.changes if c.action == "loosened"]


@pytest.mark.parametrize("target", CONST_TO_ENUM)
def test_a_const_beside_an_enum_not_listing_it_admitted_nothing_and_says_so(target):
    result = wireschema.normalize(prop({"const": "x", "enum": ["y", "z"]}), target)
    assert _p(result)["enum"] == ["x"]
    [loosened] = [c for c in result.changes if c.action == "loosened"]
    assert loosened.pointer == "/properties/p/const" and "none of its enum's values" in loosened.detail


# ---------------------------------------------------------------------------
# item 6: one pass settles (the example, and every const/enum/type combination)


def test_a_const_its_type_does_not_take_settles_in_one_pass():
    result = wireschema.normalize(prop({"const": 3, "type": "string"}), "gemini-jsonschema")
    assert _p(result) == {"enum": [3], "type": "integer"}
    assert [c.action for c in result.changes] == ["loosened", "rewritten"]
    assert wireschema.normalize(result.schema, "gemini-jsonschema").schema == result.schema


_VALUES = [3, "x", True, None, 1.5, "3", "true", [1], {"a": 1}]
_TYPES = [None, "string", "integer", "boolean", "null", "array", ["string", "null"], "number", "object"]
_ENUMS = [None, ["x", "y"], [3], ["3", "4"], [None], ["y", "x"], [True, "True"]]
_ABSENT = object()


def _literal_nodes():
    for const, t, enum in itertools.product([*_VALUES, _ABSENT], _TYPES, _ENUMS):
        node = {k: v for k, v in (("const", const), ("type", t), ("enum", enum)) if v is not None and v is not _ABSENT}
        if const is None:
            node["const"] = None
        if node:
            yield node


@pytest.mark.parametrize("target", TARGETS)
def test_every_const_enum_and_type_combination_settles_in_one_pass(target):
    unsettled = []
    for node in _literal_nodes():
        first = wireschema.normalize(prop(node), target)
        if first.used_fallback:
            continue
        again = wireschema.normalize(first.schema, wire_of(target, first))
        if dumps(again.schema) != dumps(first.schema):
            unsettled.append(f"{dumps(node)} -> {dumps(first.schema)} -> {dumps(again.schema)}")
    assert not unsettled, f"{len(unsettled)} unsettled, such as:\n" + "\n".join(unsettled[:5])
