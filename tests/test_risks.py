"""What a wire may refuse though no document says so: `check` reports it as a `risk`,
by the thresholds a rule file's `risks:` states, and gemini's unrolled recursion keeps
within the depth its rule states."""

from __future__ import annotations

import json

from test_cli import run  # noqa: F401 - a fixture

import wireschema
from wireschema.risks import grammar_units, nesting

NODE = {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}


def _wrapped(levels, inner):
    for _ in range(levels):
        inner = {"type": "object", "properties": {"w": inner}}
    return inner


def _check(run, tmp_path, value, target, *more):
    path = tmp_path / "in.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    return run("check", path, "--targets", target, *more)


def test_gemini_never_unrolls_recursion_past_the_depth_its_rule_states():
    """gemini-cli #5923: "exceeds the maximum allowed nesting depth". Before, a recursive
    schema met 7 levels down was unrolled three levels whatever the depth (26 levels)."""
    (rule,) = [r for r in wireschema._target("gemini").rules if r.id == "prepare/resolve-refs"]
    deep = {"$defs": {"Node": NODE}, **_wrapped(7, {"$ref": "#/$defs/Node"})}
    result = wireschema.normalize(deep, "gemini")
    assert nesting(result.schema) <= rule.options["max_depth"] == wireschema._target("gemini").risks["max_depth"]
    assert any(c.detail == "recursion through #/$defs/Node cut after 1 levels" for c in result.changes)
    # at the root, three levels still fit
    shallow = wireschema.normalize({"$defs": {"Node": NODE}, "$ref": "#/$defs/Node"}, "gemini")
    assert any(c.detail == "recursion through #/$defs/Node cut after 3 levels" for c in shallow.changes)


def test_check_reports_a_schema_nested_past_geminis_depth(run, tmp_path):
    ran = _check(run, tmp_path, _wrapped(12, {"type": "string"}), "gemini")
    assert ran.returncode == 1
    assert "gemini: / risk: objects and arrays nest more than 20 levels deep; the wire may refuse it [risk/depth]" in ran.stdout
    assert _check(run, tmp_path, _wrapped(3, {"type": "string"}), "gemini").returncode == 0


def test_check_reports_a_large_max_items_on_gemini(run, tmp_path):
    schema = {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "string"}, "maxItems": 1000}}}
    ran = _check(run, tmp_path, schema, "gemini")
    assert "/properties/xs/maxItems risk: maxItems 1000 is over 100" in ran.stdout and ran.returncode == 1
    # not a finding where it is not asked for
    assert _check(run, tmp_path, schema, "gemini", "--fail-on", "dropped").returncode == 0


def test_grammar_units_count_subschemas_properties_optional_pairs_branches_enums_and_regexes():
    schema = {"type": "object", "properties": {"a": {"type": "string", "format": "date"}, "b": {"enum": ["x", "y"]},
                                               "c": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, "required": ["a"]}
    # 6 subschemas; 3 properties, 2 optional (3 pairs); 2 branches (8); 2 enum values; one format (10)
    assert grammar_units(schema) == 6 + 3 + 3 + 8 + 2 + 10


def test_check_reports_the_strict_grammar_of_a_request_past_anthropics_guess(run, tmp_path):
    """anthropic-sdk-python #1185: "The compiled grammar is too large" on seven strict tools."""
    props = {f"p{i}": {"type": "string", "enum": [f"v{j}" for j in range(10)]} for i in range(6)}
    tool = {"type": "object", "properties": props, "required": sorted(props), "additionalProperties": False}
    tools = [{"name": f"t{i}", "input_schema": tool, "strict": True} for i in range(7)]
    units = 7 * grammar_units(wireschema.normalize(tool, "anthropic-strict").schema)
    ran = _check(run, tmp_path, tools, "anthropic")
    assert ran.returncode == 1
    assert f"the strict grammar is estimated at {units} units, over 300 over 7 strict schema(s)" in ran.stdout
    assert _check(run, tmp_path, tools[:1], "anthropic").returncode == 0
