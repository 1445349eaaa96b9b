"""The kinds of engine/passes/patterns.py, values.py, defs.py and counts.py on their own:
a one-rule (or one-check) target extending nothing, applied to one input.

These pin down what a kind does, independent of any provider's rule file; the provider
files are covered by their own snapshots. A case with checks also records what
`wireschema.check` finds in its input.
"""

from __future__ import annotations

import textwrap

import pytest

import wireschema
from wireschema.passes import patterns
from conftest import describe

# kind case id -> (rule-file body as YAML, input schema)
CASES = {
    "pattern-features-lookarounds": ("""
      rules:
        - id: t/patterns
          kind: pattern-features
          remove: [lookaround]
          why: test
    """, {"type": "object", "properties": {
        "ahead": {"type": "string", "pattern": "^(?=.*\\d)(?!.*\\s)\\w{8,}$", "description": "password"},
        "behind": {"type": "string", "pattern": "(?<=\\$)\\d+(?<!0)"},
        "named": {"type": "string", "pattern": "(?<year>\\d{4})-(?<m>\\d\\d)"},
        "escaped": {"type": "string", "pattern": "\\(?=x\\)[(?!]"},
        "only": {"type": "string", "pattern": "(?=a)+"},
        "said": {"type": "string", "pattern": "^(?!x)", "description": "already says (pattern: ^(?!x))"}}}),
    "pattern-features-lookbehinds": ("""
      rules:
        - id: t/patterns
          kind: pattern-features
          remove: [lookbehind]
          why: test
    """, {"type": "object", "properties": {
        "ahead": {"type": "string", "pattern": "^(?=.*\\d)(?!.*\\s)\\w{8,}$"},
        "behind": {"type": "string", "pattern": "(?<=\\$)\\d+(?<!0)"},
        "both": {"type": "string", "pattern": "(?<!x)a(?!b)"},
        "ahead-in-behind": {"type": "string", "pattern": "(?<=(?=a)a)b"},
        "named": {"type": "string", "pattern": "(?<year>\\d{4})-(?<m>\\d\\d)"}}}),
    "pattern-features-word-boundary-and-backreference": ("""
      rules:
        - id: t/patterns
          kind: pattern-features
          remove: [lookaround, word-boundary]
          spill: [backreference]
          why: test
    """, {"type": "object", "properties": {
        "word": {"type": "string", "pattern": "\\Bin\\b{1,2}"},
        "class": {"type": "string", "pattern": "[\\b\\B]\\\\b"},
        "numbered": {"type": "string", "pattern": "(a)(b)\\2"},
        "named": {"type": "string", "pattern": "(?<q>['\"]).*\\k<q>"},
        "python": {"type": "string", "pattern": "(?P<q>a)(?P=q)"}}}),
    "pattern-features-property-patterns": ("""
      rules:
        - id: t/patterns
          kind: pattern-features
          remove: [lookaround]
          spill: [backreference]
          why: test
    """, {"type": "object", "additionalProperties": False, "patternProperties": {
        "^(?!_)x": {"type": "string"}, "^x": {"type": "integer"}, "^(a)\\1$": {"type": "boolean"}, "^y$": {"type": "null"}}}),
    "pattern-features-property-patterns-off": ("""
      rules:
        - id: t/patterns
          kind: pattern-features
          remove: [lookaround]
          property_patterns: false
          why: test
    """, {"type": "object", "pattern": "(?=x)", "patternProperties": {"^(?!_)": {"type": "string"}}}),
    "pattern-features-unreadable": ("""
      rules:
        - id: t/patterns
          kind: pattern-features
          remove: [lookaround]
          why: test
    """, {"type": "object", "properties": {
        "open": {"type": "string", "pattern": "(?=a"}, "close": {"type": "string", "pattern": "a)"},
        "klass": {"type": "string", "pattern": "[a-"}, "tail": {"type": "string", "pattern": "a\\"},
        "number": {"type": "string", "pattern": 5}}}),
    "pattern-features-not-ecma": ("""
      rules:
        - id: t/patterns
          kind: pattern-features
          spill: [not-ecma]
          why: test
    """, {"type": "object", "properties": {
        "range": {"type": "string", "pattern": "^[z-a]+$"}, "bounds": {"type": "string", "pattern": "^a{2,1}$"},
        "nothing": {"type": "string", "pattern": "*.txt"}, "twice": {"type": "string", "pattern": "a+*"},
        "fine": {"type": "string", "pattern": "^[a-z-]{1,2}?[\\]-a]*(?:x|y)+$"}}}),
    "pattern-features-respell": ("""
      rules:
        - id: t/patterns
          kind: pattern-features
          spill: [lone-surrogate]
          respell: [lone-brace, empty-class, control-escape, surrogate-pair]
          why: test
    """, {"type": "object", "properties": {
        "braces": {"type": "string", "pattern": "^{{.*}}$"}, "any": {"type": "string", "pattern": "^[^]*$"},
        "none": {"type": "string", "pattern": "[]|a"}, "controls": {"type": "string", "pattern": "\\cA[\\b\\0-\\cZ]\\0"},
        "pair": {"type": "string", "pattern": "^\\ud83d\\ude00+[\\ud83d\\ude00-\\ud83d\\ude4f]$"},
        "lone": {"type": "string", "pattern": "\\ud83d"}, "kept": {"type": "string", "pattern": "\\\\cA\\\\0\\b[\\x08]"}}}),
    "pattern-features-escapes": ("""
      rules:
        - id: t/patterns
          kind: pattern-features
          spill: [identity-escape]
          respell: [control-escape, escaped-symbol]
          refused_properties: [Cs]
          why: test
    """, {"type": "object", "properties": {
        "letters": {"type": "string", "pattern": "^\\d+\\Z"}, "control": {"type": "string", "pattern": "\\c1"},
        "octal": {"type": "string", "pattern": "\\08[\\1-\\37]"}, "symbols": {"type": "string", "pattern": "\\<\\w+\\>\\\u00e9"},
        "kept": {"type": "string", "pattern": "\\\\e\\x41\\u0041\\p{L}\\-"},
        "category": {"type": "string", "pattern": "\\p{L}|\\P{gc=Cs}"}},
        "patternProperties": {"^\\e": {"type": "string"}}}),
    "pattern-features-inner-anchor": ("""
      rules:
        - id: t/patterns
          kind: pattern-features
          remove: [inner-anchor]
          why: test
    """, {"type": "object", "properties": {
        "middle": {"type": "string", "pattern": "^a$b"}, "optional": {"type": "string", "pattern": "(a$)?b"},
        "edges": {"type": "string", "pattern": "^(?:^a|b$)$|^c$"}}}),
    "keyword-values": ("""
      rules:
        - id: t/values
          kind: keyword-values
          keys: [minItems, uniqueItems]
          allowed: [0, 1, false]
          why: test
    """, {"type": "object", "properties": {
        "a": {"type": "array", "minItems": 1, "uniqueItems": False},
        "b": {"type": "array", "minItems": 2, "uniqueItems": True, "description": "pairs"},
        "c": {"type": "array", "minItems": True},
        "d": {"type": "array", "minItems": 1.0}}}),
    "keyword-values-floor": ("""
      rules:
        - id: t/values
          kind: keyword-values
          keys: [minItems, minLength]
          allowed: [0, 1]
          floor: true
          why: test
    """, {"type": "object", "properties": {
        "a": {"type": "array", "minItems": 5, "maxItems": 9},
        "s": {"type": "string", "minLength": 0.5},
        "n": {"type": "string", "minLength": "3"}}}),
    "double-numbers": ("""
      rules:
        - id: t/doubles
          kind: double-numbers
          keys: [default, examples]
          why: test
    """, {"type": "object", "properties": {
        "deep": {"type": "object", "default": {"a": [1, {"b": 10**400}]}},
        "fine": {"type": "object", "default": {"a": [1.7976931348623157e308, {"b": 2**1024 - 2**970 - 1}], "s": "1e400"}},
        "top": {"type": "integer", "default": -(2**1024 - 2**970)},
        "listed": {"type": "integer", "examples": [1, 2, 10**400]},
        "elsewhere": {"type": "integer", "maximum": 10**400}}}),
    "keyword-values-ranges": ("""
      rules:
        - id: t/lower
          kind: keyword-values
          keys: [minimum, exclusiveMinimum]
          types: [number]
          ranges: [[null, 0], [1.0e-64, 100]]
          floor: true
          why: test
        - id: t/upper
          kind: keyword-values
          keys: [maximum]
          ranges: [[-100, null]]
          ceil: true
          why: test
    """, {"type": "object", "properties": {
        "past": {"type": "number", "minimum": 1000, "maximum": -1000, "description": "n"},
        "tiny": {"type": "number", "exclusiveMinimum": 1e-70},
        "kept": {"type": "number", "minimum": -1e300, "maximum": 5},
        "integer": {"type": "integer", "minimum": 1000},
        "nullable": {"type": ["number", "null"], "minimum": 1000},
        "untyped": {"minimum": 1000, "maximum": -1000},
        "not-a-number": {"type": "number", "minimum": "1000"}}}),
    "inline-refs": ("""
      rules:
        - id: t/inline
          kind: inline-refs
          within: [allOf, not]
          why: test
    """, {"type": "object", "properties": {
        "x": {"allOf": [{"$ref": "#/$defs/A", "description": "mine"}, {"$ref": "#/$defs/Tree"}, {"$ref": "#/$defs/a~1b"}]},
        "n": {"not": {"$ref": "#/$defs/A"}},
        "kept": {"anyOf": [{"$ref": "#/$defs/A"}]},
        "far": {"allOf": [{"$ref": "#/$defs/A/properties/k"}, {"$ref": "other.json#/$defs/A"}]}},
        "$defs": {"A": {"type": "object", "properties": {"k": {"type": "string"}}, "description": "theirs"},
                  "Tree": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/Tree"}}}},
                  "a/b": {"type": "string"}}}),
    "check-pattern-features": ("""
      checks:
        - id: t/check-patterns
          kind: pattern-features
          forbid: [word-boundary, backreference]
          why: test
    """, {"type": "object", "properties": {
        "ok": {"type": "string", "pattern": "(?=x)[\\b]"}, "b": {"type": "string", "pattern": "\\b"},
        "r": {"type": "string", "pattern": "(a)\\1"}, "u": {"type": "string", "pattern": "[a"}},
        "patternProperties": {"\\Bx": {}}}),
    "check-keyword-values": ("""
      checks:
        - id: t/check-values
          kind: keyword-values
          keys: [minItems]
          allowed: [0, 1]
          why: test
    """, {"type": "object", "properties": {"a": {"type": "array", "minItems": 1}, "b": {"type": "array", "minItems": True},
                                           "c": {"type": "array", "minItems": 2}}}),
    "check-boolean-schemas": ("""
      checks:
        - id: t/check-booleans
          kind: boolean-schemas
          why: test
    """, {"type": "object", "additionalProperties": False, "properties": {"a": True, "b": {"items": False}}}),
    "check-branches": ("""
      checks:
        - id: t/check-branches
          kind: branches
          within: [allOf, anyOf]
          forbid: [ref, object]
          why: test
    """, {"type": "object", "properties": {
        "a": {"allOf": [{"$ref": "#/$defs/A"}, {"minLength": 1}]},
        "b": {"anyOf": [{"type": "object", "properties": {}}, {"type": "string"}]},
        "c": {"allOf": [{"type": "string"}, {"maxLength": 3}]}},
        "$defs": {"A": {"type": "string"}}}),
    "check-refs-acyclic": ("""
      checks:
        - id: t/check-acyclic
          kind: refs-acyclic
          why: test
    """, {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "d": {"$ref": "#/$defs/D"}},
          "$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                    "B": {"type": "array", "items": {"$ref": "#/$defs/A"}},
                    "D": {"type": "string"}}}),
    "check-property-counts": ("""
      checks:
        - id: t/check-counts
          kind: property-counts
          max_optional: 2
          max_unions: 1
          why: test
    """, {"type": "object", "required": ["a"], "properties": {
        "a": {"type": ["string", "null"]}, "b": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "o": {"type": "object", "properties": {"x": {"type": "string"}}}}}),
}


@pytest.fixture(scope="module")
def kind_targets(tmp_path_factory):
    d = tmp_path_factory.mktemp("kinds-patterns")
    for case, (body, _schema) in CASES.items():
        text = f"description: {case}\n" + textwrap.dedent(body).strip("\n") + "\n"
        (d / f"{case}.yaml").write_text(text)
    return wireschema.load_rules(d)


@pytest.mark.parametrize("case", list(CASES))
def test_kind(case, kind_targets, snap):
    schema = CASES[case][1]
    target = kind_targets[case]
    doc = describe(schema, wireschema.normalize(schema, target))
    if target.checks:
        doc["violations"] = [str(v) for v in wireschema.check(schema, target)]
    assert doc == snap


# regress (ECMA-262) refuses each of these in both modes; not-ecma flags them
NOT_ECMA = ["[z-a]", "[b-a-c]", "[\\x41-\\x40]", "[\\n-\\t]", "a{2,1}", "*a", "a**", "^*", "$+", "{2}", "a{1,2}{3}",
            "(?:a|*)", "a|+", "(?<=a)*", "a++", "(?i)a"]
# and takes each of these in one mode or the other; not-ecma leaves them
ECMA = ["[a-z-0]", "[--a]", "[\\]-a]", "[^]", "[]", "a{,2}", "}", "]", "[a-\\d]", "\\cA", "[\\b]", "\\0", "a??",
        "(?=a)*", "(?<y>a)+", "^(?:a|b)+?$", "[\\ud83d\\ude00-\\ud83d\\ude4f]", "[\U0001F600-\U0001F64F]", "\\d{2,}?"]


@pytest.mark.parametrize("pattern", NOT_ECMA + ECMA)
def test_not_ecma_is_what_ecma_262_refuses(pattern):
    assert bool(patterns.scan(pattern).spans["not-ecma"]) == (pattern in NOT_ECMA)
    regress = pytest.importorskip("regress")
    refused = 0
    for flags in ("u", ""):
        try:
            regress.Regex(pattern, flags)
        except regress.RegressError:
            refused += 1
    assert (refused == 2) == (pattern in NOT_ECMA)


RESPELLED = [("^{{.*}}$", "^\\{\\{.*\\}\\}$"), ("[^]+", "[\\s\\S]+"), ("[]|a", "[^\\s\\S]|a"),
             ("\\cA[\\b\\0-\\cZ]\\0", "\\x01[\\x08\\x00-\\x1a]\\x00"), ("^\\ud83d\\ude00+$", "^\U0001F600+$"),
             # legacy octal escapes (Annex B) and `\\<`, `\\>`, an escaped non-ASCII character: themselves
             ("\\08[\\012-\\17]\\0123", "\\x008[\\x0a-\\x0f]\\x0a3"), ("\\<[\\>\\\u00e9]\\\U0001F600", "\\x3c[\\x3e\u00e9]\U0001F600")]


@pytest.mark.parametrize("before,after", RESPELLED)
def test_respelled_patterns_match_the_same_strings(before, after):
    found = patterns.scan(before)
    assert patterns.respell(before, found, patterns.RESPELLABLE) == after
    assert not patterns.scan(after).uses(patterns.RESPELLABLE)  # a fixed point
    regress = pytest.importorskip("regress")
    try:
        flags = regress.Regex(before, "u") and "u"
    except regress.RegressError:
        flags = ""  # a lone brace is Annex B, outside the u mode
    for text in ["{{x}}", "{x}", "", "a", "\x01\x08\x00", "\x01\x1a\x00", "\x01b\x00", "\U0001F600\U0001F600", "\U0001F601",
                 "\x008\n\n3", "\x008\x10\n3", "\x008\x0f\n3", "<>\U0001F600", "<\u00e9\U0001F600", "<e\U0001F600"]:
        assert (regress.Regex(before, flags).find(text) is None) == (regress.Regex(after, flags).find(text) is None), text


# escapes ECMA-262 gives no meaning: the u flag refuses them, Annex B reads them as written,
# other dialects as escapes of their own (`\\e` escape, `\\Z` end of input, `\\pL` a letter)
IDENTITY = ["\\e", "\\Z", "a\\y", "\\o", "\\q", "\\G", "\\h", "\\Q.\\E", "\\k", "[\\k]", "[\\B]", "\\c1", "\\c", "[\\c_]",
            "\\x1", "\\xZZ", "\\u12", "[\\uZZZZ]", "\\u{zz}", "\\pL", "\\P", "\\p{L", "[\\8]"]
# and escapes ECMA-262 reads (in one mode or both), `\\k<name>` a backreference
MEANT = ["\\d\\D\\s\\S\\w\\W", "\\f\\n\\r\\t\\v", "\\b\\B", "[\\b]", "\\cA\\cz", "\\0", "\\012", "[\\1]", "\\x41", "\\u0041",
         "\\u{41}", "\\p{L}", "[\\P{L}]", "(?<a>x)\\k<a>", "\\-\\/\\.", "\\<", "\\\u00e9"]


@pytest.mark.parametrize("pattern", IDENTITY + MEANT)
def test_an_identity_escape_is_an_escape_ecma_262_gives_no_meaning(pattern):
    assert bool(patterns.scan(pattern).spans["identity-escape"]) == (pattern in IDENTITY)
    regress = pytest.importorskip("regress")
    if pattern in IDENTITY:
        with pytest.raises(regress.RegressError):
            regress.Regex(pattern, "u")
        regress.Regex(pattern, "")


# `^` and `$` that nothing can precede or follow are at the edge; the others are inner
EDGE = ["^a$", "^a$|^b$", "(a|b$)", "(?:^a|^b)", "(^a)", "a|(^b)", "((a)$)", "a$$", "^^a", "^(a|b)$", "\\$a[$]"]
INNER = ["a$b", "(a$)?", "(a$|b)c", "x(^a)", "(a)$(b)", "(?:^a|b)+", "a$(?:b)?"]


@pytest.mark.parametrize("pattern", EDGE + INNER)
def test_an_anchor_is_inner_where_something_can_come_before_or_after_it(pattern):
    assert bool(patterns.scan(pattern).spans["inner-anchor"]) == (pattern in INNER)


def test_nested_anchors_are_read_in_linear_time():
    deep = "(?:^a|" * 3000 + "x" + ")" * 3000 + "$y"
    assert len(patterns.scan(deep).spans["inner-anchor"]) == 1
