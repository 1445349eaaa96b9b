"""Rule files: every mistake is a RuleFileError at file:line:column; user files extend shipped targets."""

from __future__ import annotations

from pathlib import Path

import pytest

import wireschema
from wireschema.errors import RuleFileError

from conftest import rule_error, write_rules


_write = write_rules
_error = rule_error


def _assert_at(message: str, path: Path, line: int, col: int, phrase: str) -> None:
    assert message.startswith(f"{path}:{line}:{col}: "), message
    assert phrase in message, message


# ---------------------------------------------------------------------------
# mistakes


def test_unknown_kind(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/rule
            kind: no-such-kind
            why: testing
        """)
    _assert_at(_error(path), path, 3, 11, "unknown rule kind 'no-such-kind'")


def test_unknown_check_kind(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        checks:
          - id: mine/check
            why: testing
            kind: drop
        """)
    # drop is a rewrite kind, not a check
    _assert_at(_error(path), path, 4, 11, "unknown check kind 'drop'")


def test_kind_that_is_not_a_string(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/rule
            why: testing
            kind: [drop]
        """)
    _assert_at(_error(path), path, 4, 11, "unknown rule kind ['drop']")


def test_missing_kind_on_a_new_rule(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends: gemini
        rules:
          - id: mine/typo-of-an-inherited-id
            keys: [title]
            why: testing
        """)
    _assert_at(_error(path), path, 3, 9, "kind is missing")


def test_unknown_option(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/rule
            kind: drop
            keys: [title]
            colour: red
            why: testing
        """)
    _assert_at(_error(path), path, 5, 5, "unknown option 'colour' for kind 'drop'")


def test_unknown_option_in_an_override(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends: gemini
        rules:
          - id: gemini/enum
            otherwize: stringify
        """)
    _assert_at(_error(path), path, 4, 5, "unknown option 'otherwize' for kind 'enum-values'")


@pytest.mark.parametrize(
    ("line", "col", "phrase"),
    [
        ("    max_unroll: two", 17, "max_unroll: must be a non-negative integer, got 'two'"),
        ("    max_unroll: -1", 17, "max_unroll: must be a non-negative integer, got -1"),
        ("    max_unroll: true", 17, "max_unroll: must be a non-negative integer, got True"),
        ("    recursion: sometimes", 16, "recursion: must be one of fallback, unroll, keep, got 'sometimes'"),
        ("    cut_note: 42", 15, "cut_note: must be a string, got int"),
        ("    siblings_allowed: [title, 3]", 31, "siblings_allowed: must be a list of strings, got 3"),
        ("    siblings_allowed: title", 23, "siblings_allowed: must be a list of strings"),
    ],
)
def test_wrong_option_type(tmp_path, line, col, phrase):
    path = _write(tmp_path, "mine.yaml", "rules:\n  - id: mine/refs\n    kind: resolve-refs\n" + line + "\n    why: testing\n")
    _assert_at(_error(path), path, 4, col, phrase)


def test_wrong_option_type_in_a_check(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        checks:
          - id: mine/types
            kind: type-values
            single: "yes"
            why: testing
        """)
    _assert_at(_error(path), path, 4, 13, "single: must be true or false, got 'yes'")


def test_required_option_missing(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/drop
            kind: drop
            why: testing
        """)
    _assert_at(_error(path), path, 3, 11, "option 'keys' is required for kind 'drop'")


def test_bad_jsonpath(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/rule
            kind: drop
            keys: [title]
            where: "$.properties[["
            why: testing
        """)
    _assert_at(_error(path), path, 5, 12, "bad JSONPath '$.properties[['")


def test_jsonpath_without_root(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/rule
            kind: drop
            keys: [title]
            where: properties.a
            why: testing
        """)
    _assert_at(_error(path), path, 5, 12, "where must be a JSONPath starting with '$'")


def test_bad_jsonpath_in_locate(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        locate:
          tools: ["$.tools"]
          outputs: ["$.response", "$.x[?"]
        """)
    _assert_at(_error(path), path, 3, 27, "bad JSONPath '$.x[?' in locate.outputs")


def test_gathered_tool_lists_are_paths_of_plain_fields(tmp_path):
    """A nested path (generate_content's `config.tools`) is read through a dict or an SDK object."""
    path = _write(tmp_path, "mine.yaml", """
        locate:
          gathered: "$.tools[*]"
        """)
    _assert_at(_error(path), path, 2, 13, "locate.gathered must be paths of plain fields ($.tools, $.config.tools), got '$.tools[*]'")


def test_unknown_locate_place(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        locate:
          request: ["$.tools"]
        """)
    _assert_at(_error(path), path, 2, 3, "unknown locate field 'request'")


def test_bad_regex(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        names:
          max_bytes: 64
          allowed: "[A-Z"
        """)
    _assert_at(_error(path), path, 3, 12, "bad regex '[A-Z'")


def test_unknown_field_in_names(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        names:
          max_bytes: 64
          alowed: "[A-Z]"
        """)
    _assert_at(_error(path), path, 3, 3, "unknown names field 'alowed'")


def test_unknown_keyword_group(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/rule
            kind: drop
            keys: [title, group:no-such-group]
            why: testing
        """)
    _assert_at(_error(path), path, 4, 19, "unknown keyword group 'no-such-group'")


def test_unknown_keyword_group_in_a_block_list(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/rule
            kind: keep-only
            keys: [type]
            spill:
              - group:conditionals
              - group:nope
            why: testing
        """)
    _assert_at(_error(path), path, 7, 9, "unknown keyword group 'nope'")


def test_unknown_map(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/rename
            kind: rename-keys
            map: map:no-such-map
            why: testing
        """)
    _assert_at(_error(path), path, 4, 10, "unknown map 'no-such-map'")


def test_extends_cycle(tmp_path):
    a = _write(tmp_path, "a.yaml", """
        description: a
        extends: b
        """)
    b = _write(tmp_path, "b.yaml", """
        description: b
        extends: [a]
        """)
    # loading a: a -> b -> a; the mistake is the entry in b that closes the cycle
    _assert_at(_error(a), b, 2, 11, "extends cycle: a -> b -> a")
    _assert_at(_error(tmp_path), b, 2, 11, "extends cycle: a -> b -> a")


def test_extends_itself(tmp_path):
    path = _write(tmp_path, "loop.yaml", """
        # a file named like no shipped target
        extends: loop
        """)
    _assert_at(_error(path), path, 2, 10, "extends cycle: loop -> loop")


def test_missing_id(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - kind: drop
            keys: [title]
            why: testing
        """)
    _assert_at(_error(path), path, 2, 5, "id is missing")


def test_bad_id(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: Mine Rule
            kind: drop
            keys: [title]
            why: testing
        """)
    _assert_at(_error(path), path, 2, 9, "rule id must match")


def test_rule_that_is_not_a_mapping(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - mine/rule
        """)
    _assert_at(_error(path), path, 2, 5, "each rule must be a mapping")


def test_missing_why(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/rule
            kind: drop
            keys: [title]
        """)
    _assert_at(_error(path), path, 2, 9, "why is missing")


def test_empty_why(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/rule
            kind: drop
            keys: [title]
            why: "  "
        """)
    _assert_at(_error(path), path, 5, 10, "why is missing")


def test_duplicate_rule_id(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/rule
            kind: drop
            keys: [title]
            why: one
          - id: mine/rule
            kind: drop
            keys: [description]
            why: two
        """)
    _assert_at(_error(path), path, 6, 9, "duplicate rule id 'mine/rule': already used at line 2, column 9")


def test_duplicate_rule_id_across_rules_and_checks(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        rules:
          - id: mine/same
            kind: drop
            keys: [title]
            why: one
        checks:
          - id: mine/same
            kind: typed
            why: two
        """)
    _assert_at(_error(path), path, 7, 9, "duplicate rule id 'mine/same'")


def test_check_reusing_an_inherited_rule_id(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends: gemini
        checks:
          - id: gemini/enum
            kind: typed
            why: testing
        """)
    _assert_at(_error(path), path, 3, 9, "duplicate rule id 'gemini/enum': a rule already has it")


def test_unknown_top_level_field(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        description: mine
        rulez: []
        """)
    _assert_at(_error(path), path, 2, 1, "unknown field 'rulez'")


@pytest.mark.parametrize(
    ("text", "line", "col", "phrase"),
    [
        ("description: x\ntarget: a: b\n", 2, 10, "not valid YAML: mapping values are not allowed here"),
        ("description: x\ndescription: y\n", 2, 1, "not valid YAML: duplicate key 'description'"),
        ("rules:\n\t- x\n", 2, 1, "not valid YAML: found character '\\t' that cannot start any token"),
        ("description: x\nrules: [\n", 3, 1, "not valid YAML"),
        ("description: x\n3: y\n", 2, 1, "not valid YAML: mapping keys must be strings"),
        ("description: !!set {x}\n", 1, 14, "not valid YAML: tag 'tag:yaml.org,2002:set' is not allowed"),
    ],
)
def test_invalid_yaml(tmp_path, text, line, col, phrase):
    path = tmp_path / "mine.yaml"
    path.write_text(text, encoding="utf-8")
    _assert_at(_error(path), path, line, col, phrase)


def test_not_utf8(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_bytes(b"description: x\nwhy: caf\xe9\n")
    _assert_at(_error(path), path, 2, 9, "not UTF-8 text")


def test_not_a_mapping(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        - id: mine/rule
        """)
    _assert_at(_error(path), path, 1, 1, "a rule file must be a mapping")


def test_extends_missing_file(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends: no-such-target
        """)
    _assert_at(_error(path), path, 1, 10, "extends 'no-such-target': no such rule file")


def test_extends_missing_file_in_a_list(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends:
          - gemini
          - no-such-target
        """)
    _assert_at(_error(path), path, 3, 5, "extends 'no-such-target': no such rule file")


@pytest.mark.parametrize("name", ["../x", "sub/x", "/etc/passwd", "..\\x", "a..b", ".x", "_", "x.yaml/..", ""])
def test_extends_path_is_refused(tmp_path, name):
    # a real file where the path would lead: refusing must not depend on it missing
    (tmp_path / "x.yaml").write_text("description: outside\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.yaml").write_text("description: below\n", encoding="utf-8")
    users = tmp_path / "users"
    users.mkdir()
    path = users / "mine.yaml"
    # single-quoted YAML: the name is taken as written, backslashes included
    path.write_text(f"description: mine\nextends: '{name}'\n", encoding="utf-8")
    _assert_at(_error(path), path, 2, 10, "extends names a rule file by name")


def test_extends_not_a_name(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends: {name: gemini}
        """)
    _assert_at(_error(path), path, 1, 10, "extends must be a name or a list of names")


def test_disabled_must_be_a_boolean(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends: gemini
        rules:
          - id: gemini/one-of
            disabled: "yes"
        """)
    _assert_at(_error(path), path, 4, 15, "disabled must be true or false")


def test_disable_unknown_rule(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends: gemini
        rules:
          - id: gemini/no-such-rule
            disabled: true
        """)
    _assert_at(_error(path), path, 4, 15, "cannot disable 'gemini/no-such-rule'")


def test_disabled_rule_with_options(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends: gemini
        rules:
          - id: gemini/enum
            disabled: true
            otherwise: stringify
        """)
    _assert_at(_error(path), path, 5, 5, "'otherwise' has no effect")


def test_placement_against_unknown_rule(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends: gemini
        rules:
          - id: mine/drop
            kind: drop
            keys: [title]
            after: gemini/no-such-rule
            why: testing
        """)
    _assert_at(_error(path), path, 6, 12, "after: no rule with id 'gemini/no-such-rule'")


def test_before_and_after(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends: gemini
        rules:
          - id: mine/drop
            kind: drop
            keys: [title]
            before: gemini/enum
            after: gemini/enum
            why: testing
        """)
    _assert_at(_error(path), path, 7, 5, "give before or after, not both")


@pytest.mark.parametrize(
    ("text", "line", "col", "phrase"),
    [
        ("description: 3\n", 1, 14, "description must be a string"),
        ("abstract: yes please\n", 1, 11, "abstract must be true or false"),
        ("strict_variant: ../x\n", 1, 17, "strict_variant must name a target"),
        ("fail_open: no-such-target\n", 1, 12, "fail_open: no target named 'no-such-target'"),
        ("target: _hidden\n", 1, 9, "target must be a name"),
        ("spill:\n  template: ' ({key}={val})'\n", 2, 13, "spill.template is not a valid template"),
        ("spill: {templates: x}\n", 1, 9, "unknown spill field 'templates'"),
        ("fallback: [1]\n", 1, 11, "fallback must be a JSON Schema"),
        ("rules: {id: x}\n", 1, 8, "rules must be a list of rules"),
    ],
)
def test_bad_top_level_value(tmp_path, text, line, col, phrase):
    path = tmp_path / "mine.yaml"
    path.write_text(text, encoding="utf-8")
    _assert_at(_error(path), path, line, col, phrase)


def test_target_name_must_match_the_file_name(tmp_path):
    # targets are looked up by file name, so another name could never be found
    a = _write(tmp_path, "a.yaml", """
        target: mine
        extends: gemini
        """)
    _assert_at(_error(tmp_path), a, 1, 9, "target must match the file name 'a'")


def test_mistake_in_a_parent_names_the_parent(tmp_path):
    parent = _write(tmp_path, "_team.yaml", """
        abstract: true
        rules:
          - id: team/drop
            kind: drop
            keys: [title]
            why: testing
            colour: red
        """)
    child = _write(tmp_path, "mine.yaml", """
        extends: _team
        """)
    _assert_at(_error(child), parent, 7, 5, "unknown option 'colour'")


def test_no_such_path():
    with pytest.raises(RuleFileError, match="no such rule file or directory"):
        wireschema.load_rules("/nonexistent/rules-dir")


def test_python_tags_are_not_constructed(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.yaml"
    path.write_text(
        f'description: !!python/object/apply:os.system ["touch {marker}"]\n'
        "rules: []\n",
        encoding="utf-8",
    )
    _assert_at(_error(path), path, 1, 14, "could not determine a constructor for the tag")
    assert not marker.exists()


def test_python_name_tag_is_refused(tmp_path):
    path = _write(tmp_path, "evil.yaml", """
        rules:
          - id: evil/rule
            kind: !!python/name:os.system drop
            keys: [title]
            why: testing
        """)
    _assert_at(_error(path), path, 3, 11, "could not determine a constructor")


# ---------------------------------------------------------------------------
# a user's rule directory


_USER = """
    extends: gemini
    description: Gemini, our way.
    rules:
      # partial overrides: only the options given change
      - id: gemini/array-items
        schema: {type: string}
      - id: prepare/resolve-refs
        max_unroll: 0
      - id: gemini/one-of
        disabled: true
        why: We never send oneOf.
      - id: mine/drop-title
        kind: drop
        keys: [title]
        after: gemini/keep-only
        why: Titles waste tokens.
      - id: mine/x-description
        kind: rename-keys
        map: {x-description: description}
        before: gemini/keep-only
        why: Our catalog writes x-description, which keep-only would drop.
"""

_SCHEMA = {
    "type": "object",
    "title": "Lookup",
    "properties": {
        "tags": {"type": "array"},
        "id": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "q": {"type": "string", "x-description": "the query"},
        "tree": {"$ref": "#/$defs/node"},
    },
    "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
}


@pytest.fixture
def user_rules(tmp_path):
    _write(tmp_path, "mine.yaml", _USER)
    rules = wireschema.load_rules(tmp_path)
    assert rules.names() == ["mine"]
    assert "mine" in rules
    return rules


@pytest.fixture
def user_target(user_rules):
    return user_rules["mine"]


def _rule(target, rid):
    return next(r for r in target.rules if r.id == rid)


def test_user_target_is_compiled(user_rules, user_target):
    shipped = user_rules["gemini"]
    assert user_target.name == "mine"
    assert user_target.description == "Gemini, our way."
    assert not user_target.abstract
    assert not shipped.abstract
    # shipped fields are inherited
    assert dict(user_target.locate) == dict(shipped.locate)
    assert [r.id for r in user_target.checks] == [r.id for r in shipped.checks]


def test_partial_override_keeps_the_other_fields(user_rules, user_target):
    shipped = user_rules["gemini"]
    items = _rule(user_target, "gemini/array-items")
    assert items.kind == "ensure-items"
    assert items.why == _rule(shipped, "gemini/array-items").why
    assert items.options["schema"] == {"type": "string"}
    refs = _rule(user_target, "prepare/resolve-refs")
    # _base sets the kind, gemini recursion and cut, the user file max_unroll only
    assert refs.kind == "resolve-refs"
    assert refs.options["recursion"] == "unroll"
    assert refs.options["cut"] == {"type": "object"}
    assert refs.options["max_unroll"] == 0
    assert _rule(shipped, "prepare/resolve-refs").options["max_unroll"] == 2


def test_rule_order(user_rules, user_target):
    ids = [r.id for r in user_target.rules]
    assert "gemini/one-of" not in ids
    keep = ids.index("gemini/keep-only")
    assert ids[keep - 1] == "mine/x-description"
    assert ids[keep + 1] == "mine/drop-title"
    shipped = [r.id for r in user_rules["gemini"].rules]
    assert [i for i in ids if not i.startswith("mine/")] == [i for i in shipped if i != "gemini/one-of"]


def test_user_target_normalizes(user_target):
    shipped = wireschema.normalize(_SCHEMA, "gemini")
    mine = wireschema.normalize(_SCHEMA, user_target)
    assert not shipped.used_fallback and not mine.used_fallback
    assert mine.target == "mine"
    props, base = mine.schema["properties"], shipped.schema["properties"]
    # override: arrays get the user's items schema
    assert base["tags"]["items"] == {}
    assert props["tags"]["items"] == {"type": "string"}
    # override of an override: recursion cut after one level instead of three
    assert base["tree"]["properties"]["next"]["properties"]["next"]["type"] == "object"
    assert "properties" not in props["tree"]["properties"]["next"]
    assert "cut after 1 levels" in props["tree"]["properties"]["next"]["description"]
    # disabled: oneOf is no longer turned into anyOf (keep-only drops it)
    assert base["id"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert props["id"] == {}
    assert "gemini/one-of" not in {c.rule for c in mine.changes}
    # after keep-only: title is dropped
    assert shipped.schema["title"] == "Lookup"
    assert "title" not in mine.schema
    # before keep-only: x-description is renamed before keep-only can drop it
    assert base["q"] == {"type": "string"}
    assert props["q"] == {"type": "string", "description": "the query"}


def test_placement_matters(tmp_path):
    # the same rule appended at the end runs after keep-only: nothing left to rename
    _write(tmp_path, "late.yaml", """
        extends: gemini
        rules:
          - id: mine/x-description
            kind: rename-keys
            map: {x-description: description}
            why: testing
        """)
    target = wireschema.load_rules(tmp_path / "late.yaml")["late"]
    assert target.rules[-1].id == "mine/x-description"
    out = wireschema.normalize({"type": "object", "properties": {"q": {"type": "string", "x-description": "d"}}}, target)
    assert out.schema["properties"]["q"] == {"type": "string"}


def test_override_can_move_a_rule(tmp_path):
    _write(tmp_path, "moved.yaml", """
        extends: gemini
        rules:
          - id: gemini/root-object
            before: gemini/boolean-schemas
        """)
    target = wireschema.load_rules(tmp_path)["moved"]
    ids = [r.id for r in target.rules]
    assert ids.index("gemini/root-object") == ids.index("gemini/boolean-schemas") - 1
    assert _rule(target, "gemini/root-object").kind == "root-object"


def test_replacing_a_rule_with_a_new_kind(tmp_path):
    _write(tmp_path, "mine.yaml", """
        extends: gemini
        rules:
          - id: gemini/const
            kind: drop
            keys: [const]
            why: We drop const outright.
        """)
    target = wireschema.load_rules(tmp_path)["mine"]
    rule = _rule(target, "gemini/const")
    assert rule.kind == "drop"
    assert "values" not in rule.options
    out = wireschema.normalize({"type": "object", "properties": {"c": {"type": "string", "const": "x"}}}, target)
    assert out.schema["properties"]["c"] == {"type": "string"}


def test_user_file_named_like_a_shipped_target(tmp_path):
    # extends: gemini from a user's gemini.yaml means the shipped gemini, not itself
    _write(tmp_path, "gemini.yaml", """
        extends: gemini
        rules:
          - id: mine/drop-title
            kind: drop
            keys: [title]
            why: testing
        """)
    rules = wireschema.load_rules(tmp_path)
    target = rules["gemini"]
    assert target.rules[-1].id == "mine/drop-title"
    assert "title" not in wireschema.normalize({"type": "object", "title": "T"}, target).schema
    # the shipped target is untouched
    assert wireschema.normalize({"type": "object", "title": "T"}, "gemini").schema["title"] == "T"


def test_user_abstract_parent(tmp_path):
    _write(tmp_path, "_team.yaml", """
        abstract: true
        extends: gemini
        rules:
          - id: team/drop-title
            kind: drop
            keys: [title]
            why: testing
        """)
    _write(tmp_path, "mine.yaml", """
        extends: _team
        """)
    rules = wireschema.load_rules(tmp_path)
    # files starting with _ are parents, not targets; abstract is not inherited
    assert rules.names() == ["mine"]
    assert not rules["mine"].abstract
    assert rules["mine"].rules[-1].id == "team/drop-title"


def test_two_parents(tmp_path):
    _write(tmp_path, "_a.yaml", """
        extends: gemini
        rules:
          - id: gemini/enum
            otherwise: stringify
          - id: a/drop
            kind: drop
            keys: [title]
            why: testing
        """)
    _write(tmp_path, "_b.yaml", """
        extends: gemini
        rules:
          - id: gemini/one-of
            disabled: true
          - id: gemini/array-items
            schema: {type: string}
        """)
    _write(tmp_path, "mine.yaml", """
        extends: [_a, _b]
        """)
    target = wireschema.load_rules(tmp_path)["mine"]
    assert _rule(target, "gemini/enum").options["otherwise"] == "stringify"
    assert _rule(target, "gemini/array-items").options["schema"] == {"type": "string"}
    assert _rule(target, "a/drop").kind == "drop"
    # parents merge by id: a shared rule either parent overrides keeps the override,
    # and a rule the later one disabled stays, since the earlier one still has it
    assert "gemini/one-of" in [r.id for r in target.rules]
    assert _rule(target, "gemini/formats").kind == "format-allow"


def test_empty_user_file(tmp_path):
    _write(tmp_path, "bare.yaml", "")
    target = wireschema.load_rules(tmp_path)["bare"]
    assert target.rules == () and target.checks == ()
    assert wireschema.normalize({"type": "object"}, target).schema == {"type": "object"}


def test_target_lookup_is_by_name_only(tmp_path):
    (tmp_path / "outside.yaml").write_text("description: outside\n", encoding="utf-8")
    users = tmp_path / "users"
    users.mkdir()
    _write(users, "mine.yaml", "extends: gemini\n")
    rules = wireschema.load_rules(users)
    assert "../outside" not in rules
    with pytest.raises(wireschema.UnknownTargetError):
        rules["../outside"]
    with pytest.raises(wireschema.UnknownTargetError):
        wireschema.normalize({"type": "object"}, "../rules/gemini")


def test_a_reader_maps_names_to_a_keyword_and_to_json_schema_types(tmp_path):
    path = _write(tmp_path, "mine.yaml", """
        extends: gemini
        reader:
          types: {OBJECT: objekt}
        """)
    _assert_at(_error(path), path, 3, 10, "reader.types maps a name to a JSON Schema type, got 'OBJECT': 'objekt'")
    path = _write(tmp_path, "mine.yaml", """
        extends: gemini
        reader: {spellings: {}}
        """)
    assert "unknown reader field 'spellings'" in _error(path)


def test_a_file_extending_gemini_reads_as_it_does_unless_it_says_otherwise(tmp_path):
    _write(tmp_path, "mine.yaml", """
        extends: gemini
        """)
    _write(tmp_path, "plain.yaml", """
        extends: gemini
        reader: null
        """)
    targets = wireschema.load_rules(tmp_path)
    upper = {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}}
    assert wireschema.check(upper, targets["mine"]) == ()
    assert wireschema.check(upper, targets["plain"])
