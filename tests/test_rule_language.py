"""The rule language composes and catches a maintainer's mistakes (issue 14): inherited
fields can be unset, mapping fields merge key by key, named lists serve a rule and its
check and are edited by what changes, typos are refused with the nearest name, and one
broken file never breaks another target."""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

import pytest

import wireschema
from wireschema.errors import RuleFileError
from wireschema.rulefields import SUB_FIELDS, TOP_FIELDS
from wireschema.listing import shipped_dir
from wireschema.ruletable import Registry, Vocabulary
from wireschema.outputs import normalize_output
from wireschema.tools import normalize_tool, normalize_tools

from conftest import ROOT, rule_error, write_rules

WEATHER = {"type": "object", "properties": {"city": {"type": "string", "title": "City"}}, "required": ["city"]}


_write = write_rules
_error = rule_error


def _at(message: str, path: Path, line: int, col: int) -> None:
    assert message.startswith(f"{path}:{line}:{col}: "), message


# ---------------------------------------------------------------------------
# inherited fields can be unset; mapping fields merge key by key


def test_an_inherited_strict_variant_is_unset_with_null(tmp_path):
    _write(tmp_path, "inherits.yaml", "extends: openai-chat\n")
    _write(tmp_path, "own.yaml", "extends: openai-chat\nstrict_variant: null\n")
    rules = wireschema.load_rules(tmp_path)
    # without the null, strict=True silently hands the schema to openai-strict
    assert wireschema.normalize(WEATHER, rules["inherits"], strict=True).target == "openai-strict"
    unset = rules["own"]
    assert unset.strict_variant is None
    result = wireschema.normalize(WEATHER, unset, strict=True)
    assert (result.target, result.strict) == ("own", False)


# where a file extending openai-strict sends what it cannot represent: stated, as a file
# that changes what it extends must (see test_an_inherited_relation_...)
_OPENS = "fail_open: openai-chat\nnon_strict: openai-chat\n"


_NO_FORMAT = """
rules:
  - id: mine/no-format
    kind: drop
    keys: [format]
    why: the gateway in front of this wire refuses format.
"""
DATED = {"type": "object", "properties": {"day": {"type": "string", "format": "date"}}, "required": ["day"]}


# the maintainer's path (issue 55), as the issue writes it
_NESTED = """\
description: Tools nest their name under "tool".
extends: anthropic
tool: {name: "$.tool.name", description: "$.tool.description", schema: "$.tool.input"}
"""


def test_a_file_that_only_moves_the_tools_fields_normalizes_a_tool_as_written(tmp_path):
    """Before, this file was refused until it stated strict_variant and output.variant.
    Its variants are now its parent's with its own changes laid over them."""
    path = tmp_path / "nested.yaml"
    path.write_text(_NESTED, encoding="utf-8")
    rules = wireschema.load_rules(path)
    nested = rules["nested"]
    tool = {"tool": {"name": "get_weather", "description": "Forecast", "input": WEATHER}}
    sent = {"tool": {"name": "get_weather", "description": "Forecast", "input": wireschema.normalize(WEATHER, "anthropic").schema}}
    assert normalize_tool(tool, nested).tool == sent
    strict = normalize_tool(tool, nested, strict=True)
    assert (strict.result.target, strict.result.strict) == ("anthropic-strict+nested", True)
    assert strict.tool == {"tool": {"name": "get_weather", "description": "Forecast",
                                    "input": wireschema.normalize(WEATHER, "anthropic-strict").schema}, "strict": True}
    # what strict mode cannot take fails open to the file itself, in its own shape
    derived = rules[nested.strict_variant]
    assert (derived.fail_open, derived.non_strict, derived.output["variant"]) == ("nested", "nested", "anthropic-output+nested")
    recursive = {"type": "object", "properties": {"next": {"$ref": "#"}}}
    opened = normalize_tool({"tool": {"name": "r", "input": recursive}}, nested, strict=True)
    assert not opened.result.strict and opened.result.strict_reason.endswith("sent non-strict as nested")
    assert normalize_output(WEATHER, nested).schema == normalize_output(WEATHER, "anthropic").schema


def test_an_inherited_variant_carries_the_files_own_changes(tmp_path):
    """A file extending anthropic with a rule of its own sent its strict tools by
    anthropic-strict and its outputs by anthropic-output, neither of which has the rule:
    it was refused until it stated both. Each is now derived with the rule; a relation
    the file states wins."""
    _write(tmp_path, "mine.yaml", "extends: anthropic\n" + _NO_FORMAT)
    mine = wireschema.load_rules(tmp_path / "mine.yaml")["mine"]
    assert (mine.strict_variant, mine.output["variant"]) == ("anthropic-strict+mine", "anthropic-output+mine")
    assert "format" not in wireschema.normalize(DATED, mine).schema["properties"]["day"]
    strict = wireschema.normalize(DATED, mine, strict=True)
    assert strict.strict and "format" not in strict.schema["properties"]["day"]
    assert "mine/no-format" in [c.rule for c in strict.changes]
    out = normalize_output(DATED, mine)
    assert "format" not in out.schema["properties"]["day"] and out.schema["additionalProperties"] is False
    # stated, each runs as the file says: as shipped, or a variant of one's own
    _write(tmp_path, "mine.yaml", "extends: anthropic\nstrict_variant: null\noutput: {variant: mine-output}\n" + _NO_FORMAT)
    # an output of its own fails to its fallback: it has no non-strict form to go to
    _write(tmp_path, "mine-output.yaml", "extends: anthropic-output\nfail_open: null\nnon_strict: null\n" + _NO_FORMAT)
    rules = wireschema.load_rules(tmp_path)
    assert rules["mine"].strict_variant is None and rules["mine"].output["variant"] == "mine-output"
    assert "format" not in normalize_output(DATED, rules["mine"]).schema["properties"]["day"]


def test_a_variant_the_files_changes_do_not_compile_on_must_be_stated(tmp_path):
    """anthropic-output drops anthropic-strict/open-objects, which this file overrides:
    laid over it, the override finds no rule, so the relation is refused, saying why."""
    path = _write(tmp_path, "open.yaml", """
        extends: anthropic-strict
        fail_open: anthropic
        non_strict: anthropic
        rules:
          - id: anthropic-strict/open-objects
            why: a team's own reason.
        """)
    message = _error(path)
    _at(message, path, 1, 10)
    assert message.split(": ", 1)[1].startswith(
        "open inherits output.variant: anthropic-output from anthropic, but anthropic-output does not make the changes "
        "open makes (anthropic-output with those changes does not compile: ")
    assert "State each in this file: `output: {variant: anthropic-output}`" in message


def test_a_relation_is_inherited_where_its_target_makes_the_same_changes(tmp_path):
    """A file changing nothing (a new name for a wire) inherits every relation; so does a
    file whose relation's target extends it (anthropic-strict's outputs go to
    anthropic-output, which extends anthropic-strict). A change in a file between, an
    abstract one, is named."""
    _write(tmp_path, "alias.yaml", "description: Claude, by another name.\nextends: anthropic\n")
    alias = wireschema.load_rules(tmp_path / "alias.yaml")["alias"]
    assert (alias.strict_variant, alias.output["variant"]) == ("anthropic-strict", "anthropic-output")
    assert wireschema._target("anthropic-strict").output["variant"] == "anthropic-output"
    _write(tmp_path, "_team.yaml", "extends: openai-strict\n" + _NO_FORMAT)
    path = _write(tmp_path, "ours.yaml", "description: Ours.\nextends: _team\n")
    assert "ours inherits fail_open: openai-chat from openai-strict, but openai-chat does not make the changes _team makes" in _error(path)


def test_a_mapping_field_states_only_what_changes(tmp_path):
    _write(tmp_path, "flagged.yaml", 'extends: openai-chat\nstrict_variant: openai-strict\ntool: {strict: "$.function.strict"}\n')
    _write(tmp_path, "unflagged.yaml", "extends: openai-strict\n" + _OPENS + "tool: {strict: null}\nlocate: {outputs: null}\n")
    rules = wireschema.load_rules(tmp_path)
    chat, strict = wireschema._target("openai-chat"), wireschema._target("openai-strict")
    flagged, unflagged = rules["flagged"], rules["unflagged"]
    assert dict(flagged.tool) == {**dict(chat.tool), "strict": ("function", "strict")}
    assert "strict" not in unflagged.tool and unflagged.tool["name"] == strict.tool["name"]
    assert dict(unflagged.locate) == {"tools": ("$.tools",), "tool_names": strict.locate["tool_names"]}
    tool = {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}}
    assert normalize_tool(tool, flagged).tool["function"]["strict"] is False
    assert "strict" not in normalize_tool(tool, unflagged).tool["function"]


def test_of_two_parents_a_shared_ancestors_field_does_not_undo_an_override(tmp_path):
    _write(tmp_path, "_a.yaml", 'extends: gemini\nnames: {max_bytes: 40}\n')
    _write(tmp_path, "_b.yaml", 'extends: gemini\ndescription: from b\n')
    _write(tmp_path, "both.yaml", "extends: [_a, _b]\n")
    target = wireschema.load_rules(tmp_path)["both"]
    # _b has names only from gemini, which _a extends too: _a's own word stands
    assert target.names["max_bytes"] == 40 and target.names["first"] == "[A-Za-z_]"
    assert target.description == "from b"


# ---------------------------------------------------------------------------
# named lists


def test_a_child_that_changes_only_a_list_states_only_that_change(tmp_path):
    _write(tmp_path, "no-title.yaml", """
        extends: openai-strict
        fail_open: openai-chat
        non_strict: openai-chat
        lists:
          keys: {remove: [title]}
        """)
    target = wireschema.load_rules(tmp_path)["no-title"]
    keep = next(r for r in target.rules if r.id == "openai-strict/keep-only")
    check = next(r for r in target.checks if r.id == "openai-strict/check-keys")
    parent = next(r for r in wireschema._target("openai-strict").rules if r.id == "openai-strict/keep-only")
    # the rule and its check both take the edited list, restated nowhere
    assert keep.options["keys"] == check.options["keys"] == parent.options["keys"] - {"title"}
    assert ("keys", "keys") in keep.lists
    result = wireschema.normalize(WEATHER, target)
    assert "title" not in result.schema["properties"]["city"] and result.strict
    assert any(v.rule == "openai-strict/check-keys" for v in wireschema.check(WEATHER | {"additionalProperties": False}, target))


def test_a_type_map_list_is_edited_per_type(tmp_path):
    _write(tmp_path, "uri-too.yaml", """
        extends: openai-strict
        fail_open: openai-chat
        non_strict: openai-chat
        lists:
          formats: {add: {string: [uri]}, remove: {string: [duration]}}
        """)
    target = wireschema.load_rules(tmp_path)["uri-too"]
    for rule in (*target.rules, *target.checks):
        if rule.id in ("openai-strict/formats", "openai-strict/check-formats"):
            assert "uri" in rule.options["allowed"]["string"] and "duration" not in rule.options["allowed"]["string"]


@pytest.mark.parametrize("text,line,col,phrase", [
    ("extends: openai-strict\nlists:\n  keys: {remove: [titel]}\n", 3, 19, "cannot remove 'titel', it is not in the list — did you mean 'title'?"),
    ("extends: openai-strict\nlists:\n  keys: {add: [title]}\n", 3, 16, "'title' is in the list already"),
    ("extends: gemini\nlists:\n  feilds: {add: [title]}\n", 3, 11, "an edit (add/remove), but no file this one extends declares the list — did you mean 'fields'?"),
    ("lists:\n  a: [list:b]\n  b: [list:a]\n", 3, 7, "lists include each other"),
    ("lists:\n  Bad Name: [x]\n", 2, 3, "a list name is lower case"),
])
def test_list_mistakes(tmp_path, text, line, col, phrase):
    path = _write(tmp_path, "mine.yaml", text)
    message = _error(path)
    _at(message, path, line, col)
    assert phrase in message, message


def test_an_unknown_list_suggests_the_nearest_and_a_flat_list_is_no_type_map(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends: openai-strict
        rules:
          - id: openai-strict/keep-only
            keys: list:kyes
        """)
    message = _error(path)
    _at(message, path, 4, 11)
    assert "unknown list 'kyes' — did you mean 'keys'?" in message
    _write(tmp_path, "mine.yaml", """
        extends: openai-strict
        rules:
          - id: openai-strict/formats
            allowed: list:keys
        """)
    assert "list 'keys' is a flat list; this option takes a mapping of a type to a list" in _error(path)


# ---------------------------------------------------------------------------
# typos are refused, with the nearest name


@pytest.mark.parametrize("text,line,col,phrase", [
    # a keyword list is checked against the JSON Schema vocabulary
    ("rules:\n  - id: mine/drop\n    kind: drop\n    keys: [title, $coment]\n    why: t\n", 4, 19,
     "unknown keyword '$coment' — did you mean '$comment'?"),
    ("rules:\n  - id: mine/drop\n    kind: drop\n    keys: propertes\n    why: t\n", 4, 11,
     "unknown keyword 'propertes' — did you mean 'properties'?"),
    # a JSONPath that can never select a schema
    ("extends: gemini\nrules:\n  - id: mine/drop\n    kind: drop\n    keys: [title]\n    where: $.propertes.a\n    why: t\n", 6, 12,
     "where '$.propertes.a' can never select a schema: 'propertes' holds no subschemas — did you mean 'properties'?"),
    ("rules:\n  - id: mine/drop\n    kind: drop\n    keys: [title]\n    where: $..propertes\n    why: t\n", 5, 12,
     "can never select a schema"),
    ("rules:\n  - id: mine/drop\n    kind: drop\n    keys: [title]\n    where: $.properties\n    why: t\n", 5, 12,
     "it ends inside a keyword's map or list"),
    # every unknown name suggests the nearest one
    ("rules:\n  - id: mine/x\n    kind: dorp\n    keys: [title]\n    why: t\n", 3, 11, "unknown rule kind 'dorp' — did you mean 'drop'?"),
    ("extends: gemini\nrules:\n  - id: gemini/const\n    valeus: any\n", 4, 5, "unknown option 'valeus' for kind 'const-to-enum' — did you mean 'values'?"),
    ("extends: gemini\nrules:\n  - id: gemini/onee-of\n    disabled: true\n", 4, 15,
     "cannot disable 'gemini/onee-of': no inherited rule has that id — did you mean 'gemini/one-of'?"),
    ("extends: gemini\nrules:\n  - id: mine/x\n    kind: drop\n    keys: [title]\n    before: gemini/keep-onyl\n    why: t\n", 6, 13,
     "did you mean 'gemini/keep-only'?"),
    ("descripton: x\n", 1, 1, "unknown field 'descripton' — did you mean 'description'?"),
    ("extends: gemini\ntool: {nmae: $.x}\n", 2, 8, "unknown tool field 'nmae' — did you mean 'name'?"),
    ("extends: gemini\noutput: {wrap_non_objects: true}\n", 2, 10, "unknown output field 'wrap_non_objects' — did you mean 'wrap_non_object'?"),
    ("strict: true\nfail_open: opneai-chat\n", 2, 12, "no target named 'opneai-chat' — did you mean 'openai-chat'?"),
    ("extends: gemini\nrules:\n  - id: gemini/const\n    values: strigns\n", 4, 13, "did you mean 'strings'?"),
    # a check kind under rules: says where it belongs (and the other way round)
    ("rules:\n  - id: mine/x\n    kind: allowed-keys\n    keys: [type]\n    why: t\n", 3, 11,
     "unknown rule kind 'allowed-keys': it is a check kind, move this entry under checks:"),
    ("checks:\n  - id: mine/x\n    kind: spill\n    keys: [type]\n    why: t\n", 3, 11,
     "unknown check kind 'spill': it is a rule kind, move this entry under rules:"),
])
def test_typos_are_refused_where_they_are_written(tmp_path, text, line, col, phrase):
    path = _write(tmp_path, "mine.yaml", text)
    message = _error(path)
    _at(message, path, line, col)
    assert phrase in message, message


def test_a_wires_own_keywords_are_declared_and_extensions_pass(tmp_path):
    _write(tmp_path, "mine.yaml", """
        extends: gemini
        keywords: [x_order, readonly_hint]
        rules:
          - id: mine/drop
            kind: drop
            keys: [x_order, readonly_hint, x-internal, propertyOrdering]
            why: our gateway refuses them
        """)
    rule = wireschema.load_rules(tmp_path)["mine"].rules[-1]
    # propertyOrdering is gemini's own keyword, inherited
    assert rule.options["keys"] == {"x_order", "readonly_hint", "x-internal", "propertyOrdering"}


def test_an_unknown_extends_names_each_folder_it_searched_once(tmp_path):
    path = _write(tmp_path, "mine.yaml", "extends: gemeni\n")
    message = _error(path)
    _at(message, path, 1, 10)
    assert "extends 'gemeni': no such rule file — did you mean 'gemini'?" in message
    looked = message.split("(looked in ", 1)[1].rstrip(")").split(", ")
    assert looked == [str(tmp_path), str(shipped_dir())]


def test_hostile_lists_and_selectors_cost_an_error_never_a_recursion_error(tmp_path):
    chain = "lists:\n" + "".join(f"  l{i}: [list:l{i + 1}]\n" for i in range(3000)) + "  l3000: [title]\n"
    assert "lists include lists more than 32 deep" in _error(_write(tmp_path, "deep.yaml", chain))
    where = "$" + ".properties.a" * 3000
    text = f"rules:\n  - id: a/b\n    kind: drop\n    keys: [title]\n    where: {where}\n    why: t\n"
    path = _write(tmp_path, "long.yaml", text)
    try:
        wireschema.load_rules(path)
    except RuleFileError:
        pass  # a selector too long to parse is a mistake at its line; either way no RecursionError


def test_where_selectors_that_can_match_are_taken():
    from wireschema.rulefields import jsonpath, never_selects

    for text in ("$", "$.properties.a", "$.properties.*", "$.anyOf[0]", "$.items", "$..items", "$.definitions.Node.properties.x",
                 "$..properties.*", "$.items[0]", "$.properties[*]"):
        assert never_selects(jsonpath(text), ".." in text) is None, text
    for text in ("$.type", "$.properties", "$.anyOf", "$.enum[0]", "$.propertes.a", "$.anyOf.x"):
        assert never_selects(jsonpath(text), ".." in text) is not None, text


# ---------------------------------------------------------------------------
# one broken file never breaks another target


_BROKEN_FIELDS = "extends: gemini\ndescripton: a typo in a top-level field\n"
_BROKEN_RULES = "extends: gemini\nrules:\n  - id: x/y\n    kind: stirp\n    why: typo\n"


def _copy_of_shipped(tmp_path: Path, broken: dict[str, str]) -> Registry:
    folder = tmp_path / "rules"
    shutil.copytree(shipped_dir(), folder)
    for name, text in broken.items():
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return Registry([folder], Vocabulary(folder / "_vocabulary.yaml"))


def test_a_broken_shipped_file_is_left_out_of_listing_and_tool_reading(tmp_path, monkeypatch, caplog):
    registry = _copy_of_shipped(tmp_path, {"vertex": _BROKEN_FIELDS, "cca-claude": _BROKEN_RULES})
    monkeypatch.setattr(wireschema, "_shipped", registry)
    tool = {"name": "get_weather", "description": "Forecast", "input_schema": WEATHER}
    with caplog.at_level(logging.WARNING, logger="wireschema"):
        names = [t.name for t in wireschema.targets()]
        out = normalize_tool(tool, "anthropic")
    # fields that cannot be read leave the file out (logged once); broken rules only
    # fail the target itself, when it is used, since listing compiles nothing
    assert "vertex" not in names and "cca-claude" in names and "gemini" in names
    assert out.tool["name"] == "get_weather"
    assert list(registry.skipped) == ["vertex"] and "unknown field 'descripton'" in str(registry.skipped["vertex"])
    assert [r.getMessage() for r in caplog.records if "left out" in r.getMessage()] == [
        f"rule file vertex is left out: {registry.skipped['vertex']}"]
    for name in ("vertex", "cca-claude"):
        with pytest.raises(RuleFileError):
            wireschema.normalize(WEATHER, name)
    assert set(registry.problems()) == {"vertex", "cca-claude"}


@pytest.mark.parametrize("rules", [
    "rules:\n  - kind: drop\n    why: no id\n",
    "rules:\n  - {id: x/y, kind: drop, why: a, keys: [title]}\n  - {id: x/y, kind: drop, why: b, keys: [title]}\n",
    "rules:\n  - {id: x/nothing-to-disable, disabled: true}\n",
    "rules:\n  - {id: x/y, kind: drop, why: a, keys: [title], before: x/nowhere}\n",
], ids=["no-id", "duplicate-id", "disable-unknown", "placed-nowhere"])
def test_listing_reads_no_rules_a_broken_rule_fails_its_target_when_used(tmp_path, monkeypatch, rules):
    registry = _copy_of_shipped(tmp_path, {"cca-claude": "extends: gemini\n" + rules})
    monkeypatch.setattr(wireschema, "_shipped", registry)
    assert "cca-claude" in [t.name for t in wireschema.targets()] and not registry.skipped
    with pytest.raises(RuleFileError, match="cca-claude.yaml:"):
        wireschema.normalize(WEATHER, "cca-claude")
    assert set(registry.problems()) == {"cca-claude"}


def test_a_users_target_never_compiles_its_unrelated_neighbours(tmp_path):
    _write(tmp_path, "broken.yaml", _BROKEN_FIELDS)
    _write(tmp_path, "broken-rules.yaml", _BROKEN_RULES)
    good = _write(tmp_path, "good.yaml", "extends: anthropic\n")
    target = wireschema.load_rules(good)["good"]
    out = normalize_tools([{"name": "get_weather", "input_schema": WEATHER}], target)
    assert out.tools[0]["input_schema"]["properties"]["city"]["type"] == "string"
    assert set(target.registry.skipped) == {"broken"}


def test_a_strict_targets_fail_open_sibling_compiles_with_it(tmp_path):
    _write(tmp_path, "loose.yaml", _BROKEN_RULES.replace("gemini", "openai-chat"))
    path = _write(tmp_path, "tight.yaml", "extends: openai-strict\nfail_open: loose\nnon_strict: loose\n")
    # at load time, not when the first schema fails open mid-request
    message = _error(path)
    assert "loose.yaml:4:11:" in message and "unknown rule kind 'stirp'" in message


def test_mcp_ingestion_reads_its_target_from_the_rule_files():
    assert wireschema._registry().mcp_ingest() == "mcp"
    out = wireschema.normalize_mcp_tool({"name": "t", "inputSchema": {"properties": {}}})
    assert out.result.target == "mcp"
    shipped = [name for name, f in wireschema._registry().listed() if f["mcp_ingest"]]
    assert shipped == ["mcp"]


# ---------------------------------------------------------------------------
# the docs are generated from the table the loader validates with


def _table_rows(text: str, heading: str) -> list[str]:
    section = text.split(f"\n{heading}\n", 1)[1]
    rows = []
    for line in section.splitlines()[1:]:
        if line.startswith("#"):
            break
        match = re.match(r"^\| `([^`]+)` \|", line)
        if match:
            rows.append(match.group(1))
    return rows


def test_constraints_md_documents_every_field_the_loader_reads():
    text = (ROOT / "CONSTRAINTS.md").read_text(encoding="utf-8")
    assert _table_rows(text, "### Top-level fields") == list(TOP_FIELDS)
    for field, table in SUB_FIELDS.items():
        assert _table_rows(text, f"#### `{field}` fields") == [f"{field}.{k}" for k in table]


def test_the_loader_reads_every_documented_field_and_no_other(tmp_path):
    # every documented sub-field is accepted ...
    _write(tmp_path, "every.yaml", """
        extends: openai-strict
        fail_open: openai-chat
        non_strict: openai-chat
        tool: {name: $.f.name, description: $.f.description, schema: $.f.parameters, strict: $.f.strict,
               fixed: {type: f}, kinds: {type: [f]}, passthrough: [custom]}
        locate: {tools: $.tools, outputs: [$.out]}
        names: {max_bytes: 40, allowed: "[a-z_]", first: "[a-z]", replacement: "_"}
        request_limits: {max_tools: 9, max_strict_tools: 8, max_optional_params: 7, max_union_params: 6, max_total_properties: 5}
        output: {wrap_non_object: false, disable: [openai-strict/check-root]}
        spill: {template: " [{key}={value}]", skip_if: "[{key}="}
        """)
    assert wireschema.load_rules(tmp_path / "every.yaml")["every"].request_limits["max_tools"] == 9
    # ... and every top-level field is one the table lists (the others are refused)
    documented = set(TOP_FIELDS)
    path = _write(tmp_path, "other.yaml", "limits: {}\n")
    assert "unknown field 'limits'" in _error(path)
    assert "limits" not in documented


def test_the_rule_language_page_lists_every_kind_under_the_phase_it_declares():
    from wireschema.passes import CHECKS, KINDS

    text = (ROOT / "docs" / "maintainers" / "rule-language.md").read_text(encoding="utf-8")
    table = text.split("\n| phase | kinds |\n| --- | --- |\n", 1)[1].split("\n\n", 1)[0]
    listed: dict[str, set[str]] = {}
    for row in table.splitlines():
        phase, kinds = row.strip("|").split("|")
        listed.setdefault(phase.split()[0], set()).update(re.findall(r"`([a-z-]+)`", kinds))
    assert listed.pop("check") == set(CHECKS)
    for name, kind in KINDS.items():
        phases = {kind.phase_of({**{o: opt.default for o, opt in kind.options.items()}, "direction": d})
                  for d in ("read", "write")} if callable(kind.phase) else {kind.phase}
        expected = {p or "any" for p in phases}
        assert {p for p, kinds in listed.items() if name in kinds} == expected, name
    assert set().union(*listed.values()) == set(KINDS)


@pytest.mark.parametrize(
    ("ranges", "message"),
    [
        ("[]", "must be a non-empty list of [low, high] ranges"),
        ("[[1, 2, 3]]", "a range is [low, high], each a number or null, got [1, 2, 3]"),
        ("[[0, x]]", "a range is [low, high], each a number or null, got [0, 'x']"),
        ("[[true, 1]]", "a range is [low, high], each a number or null"),
        ("[[5, 1]]", "the range [5, 1] holds no number (low above high)"),
    ],
    ids=["empty", "three-ends", "a-string", "a-boolean", "reversed"],
)
def test_a_ranges_option_that_says_no_ranges_is_refused_at_its_line(tmp_path, ranges, message):
    path = _write(tmp_path, "mine.yaml", f"""
        description: mine
        extends: _base
        rules:
          - id: t/bounds
            kind: keyword-values
            keys: [maximum]
            ranges: {ranges}
            why: x
        """)
    text = _error(path)
    assert message in text
    assert f"{path}:" in text and "ranges" in text, text


# --- the kinds' contracts order the rules: a wrong order is refused at its line -------


@pytest.mark.parametrize(
    ("rules", "message", "line"),
    [
        # optional-if-nullable reads the nulls a removing nullable rule left behind
        ("""
          - {id: t/optional, kind: optional-if-nullable, why: x}
          - {id: t/nullable, kind: nullable, style: remove, why: x}
        """, "rule 't/optional' (optional-if-nullable) needs a `nullable` rule with `style: remove` before it", 4),
        # tuple-to-items reads a closed tuple's `items: false`, which boolean-schemas respells
        ("""
          - {id: t/booleans, kind: boolean-schemas, why: x}
          - {id: t/tuple, kind: tuple-to-items, why: x}
        """, "rule 't/tuple' (tuple-to-items) must come before 't/booleans', a `boolean-schemas` rule", 5),
    ],
    ids=["needs-a-fact", "precedes-a-fact"],
)
def test_a_rule_its_contract_puts_elsewhere_is_refused_at_its_line(tmp_path, rules, message, line):
    path = _write(tmp_path, "mine.yaml", "description: mine\nextends: _base\nrules:\n" + rules.strip("\n") + "\n")
    text = _error(path)
    assert message in text
    assert text.startswith(f"{path}:{line}:"), text


# --- rules/_objects.yaml: framework tool objects read by attribute ------------------


def test_the_shipped_object_readers_load():
    from wireschema.toolobjects import load_readers

    readers = load_readers(shipped_dir() / "_objects.yaml")
    assert readers["agents.tool.FunctionTool"].schema == "params_json_schema"
    assert all(r.why for r in readers.values())


@pytest.mark.parametrize(
    ("entry", "message", "line"),
    [
        ("  agents.tool.Thing:\n    name: name\n    schema: 3\n    why: x\n", "schema names an attribute, got 3", 4),
        ("  agents.tool.Thing:\n    name: name\n    schema: params json\n    why: x\n", "got 'params json'", 4),
        ("  agents.tool.Thing:\n    name: name\n    schema: s\n", "why is required", 2),
        ("  agents.tool.Thing:\n    name: name\n    schema: s\n    strickt: s\n    why: x\n", "did you mean 'strict'", 5),
        ("  Thing:\n    name: name\n    schema: s\n    why: x\n", "write its module and name", 2),
        ("  agents.tool.Thing: [name]\n", "an entry is a mapping", 2),
        ("  agents.tool.Thing:\n    name: n\n    schema: s\n    made_from: args\n    why: x\n", "made_from is a list of attribute names", 5),
        ("  agents.tool.Thing:\n    name: n\n    schema: s\n    if_none: {a: {}, b: {}}\n    why: x\n", "if_none is one attribute name", 5),
        ("  agents.tool.Thing:\n    name: n\n    schema: s\n    if_none: {a: text}\n    why: x\n", "got 'a'", 5),
        ("  sdk.Thing:\n    dump: to_dict\n    schema: s\n    why: x\n", "dump says where the whole tool is: schema has nothing to read", 4),
        ("  sdk.Thing:\n    dump: to_dict\n", "why is required", 2),
        ("  sdk.Thing:\n    via: inner\n    dump: to_dict\n    why: x\n", "via says where the whole tool is: dump has nothing to read", 4),
        ("  agents.tool.Thing:\n    name: n\n    schema: s\n    once: [title, strict]\n    why: x\n", "once lists the schema's root keywords", 5),
        ("  sdk.Thing:\n    fields: {name: name, inputSchema: input schema}\n    why: x\n", "fields maps each key of the tool its SDK lists to an attribute name", 3),
        ("  sdk.Thing:\n    fields: {name: name}\n    schema: s\n    why: x\n", "fields says where the whole tool is: schema has nothing to read", 4),
        ("  agents.tool.Thing:\n    name: n\n    schema: s\n    root: type\n    why: x\n", "root lists the schema's root keywords its framework sends", 5),
        ("  smolagents.tools.Tool:\n    sent_by: get_tool_json_schema\n    why: x\n", "sent_by names a function by its module and name", 3),
        ("  smolagents.tools.Tool:\n    sent_by: os.system\n    why: x\n", "sent_by names a function of the class's own package, smolagents", 3),
        ("  sdk.Kit:\n    holds: get_tools\n    name: n\n    why: x\n", "holds says where the tools are: name has nothing to read", 4),
        # the parameters frameworks pass their tool functions themselves, beside the objects
        ("  {}\ninjected:\n  RunContext: the run's context\n", "'RunContext' is no class: write its module and name", 3),
        ("  {}\ninjected:\n  pydantic_ai._run_context.RunContext: \"\"\n", "pydantic_ai._run_context.RunContext: say in one line why", 3),
        ("  {}\ninjected: [pydantic_ai._run_context.RunContext]\n", "injected maps each class", 2),
        ("  {}\ninjectd: {}\n", "did you mean 'injected'", 2),
    ],
    ids=["not-a-name", "not-an-identifier", "no-why", "misspelt-field", "no-module", "not-a-mapping",
         "made-from-not-a-list", "if-none-two", "if-none-no-schema", "dump-and-parts", "dump-no-why", "via-and-dump",
         "once-not-a-root-keyword", "fields-not-attributes", "fields-and-parts", "root-not-a-list", "sent-by-no-module", "sent-by-another-package", "holds-and-parts",
         "injected-no-module", "injected-no-why", "injected-not-a-mapping", "injected-misspelt"],
)
def test_an_objects_file_entry_that_is_none_is_refused_at_its_line(tmp_path, entry, message, line):
    from wireschema.toolobjects import load_injected

    path = tmp_path / "_objects.yaml"
    # an objects map of no entries is written on the key's own line (`objects: {}`)
    text = "objects:" + (" " + entry[2:] if entry.startswith("  {}") else "\n" + entry)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RuleFileError, match=re.escape(message)) as caught:
        load_injected(path)  # the whole file, both its sections
    assert (caught.value.path, caught.value.line) == (str(path), line)


def test_the_shipped_injected_classes_load():
    from wireschema.toolobjects import load_injected

    assert "pydantic_ai._run_context.RunContext" in load_injected(shipped_dir() / "_objects.yaml")


# --- a tool shape split over an abstract parent and the files extending it ----------


def test_an_abstract_file_may_hold_part_of_a_tool_shape_which_a_target_finishes(tmp_path):
    write_rules(tmp_path, "_wrapper.yaml", """
        description: the list a tool sits in, no schema of its own
        tool:
          name: "$.name"
          groups: [tools]
    """)
    write_rules(tmp_path, "mine.yaml", """
        description: mine
        extends: [_base, _wrapper]
        tool:
          schema: "$.params"
    """)
    target = wireschema.load_rules(tmp_path / "mine.yaml")["mine"]
    assert dict(target.tool) == {"name": ("name",), "groups": ("tools",), "schema": ("params",)}
    out = normalize_tools({"tools": [{"name": "a", "params": {"type": "object"}}]}, target)
    assert [tool["name"] for tool in out.tools] == ["a"] and out.tools[0]["params"]["type"] == "object"
    # a target is never left without a schema path
    write_rules(tmp_path, "unfinished.yaml", """
        description: unfinished
        extends: [_base, _wrapper]
    """)
    assert "tool.schema is required" in rule_error(tmp_path / "unfinished.yaml")


def test_the_shipped_gemini_targets_share_the_tool_around_their_declarations():
    registry = wireschema._registry()
    for name in ("gemini", "gemini-jsonschema", "vertex", "cca-claude"):
        target = wireschema._target(name)
        assert any(f.endswith("_gemini-tool.yaml") for f in target.files)
        assert "googleSearch" in target.tool["passthrough"] and target.tool["groups"][0] == "functionDeclarations"
    # the parent is no shape a tool is read by: it says nowhere where a schema sits
    assert all("schema" in shape for shape in registry.tool_shapes())
