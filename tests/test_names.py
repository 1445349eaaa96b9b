"""Tool names per wire: each name rewritten to what the wire accepts, all distinct,
and a map that turns the name in a tool call back into the tool to dispatch."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

import wireschema
from wireschema.errors import WireschemaError
from wireschema.names import NameMap, NameRule, ToolNameError, UnknownToolNameError, says_name, wire_name, wire_names

OPENAI = NameRule(max_bytes=64, allowed="[A-Za-z0-9_-]", replacement="_")
GEMINI = NameRule(max_bytes=64, allowed="[A-Za-z0-9_.:-]", first="[A-Za-z_]", replacement="_")
# Python's \w is Unicode: CJK letters are allowed characters of 3 UTF-8 bytes each
UNICODE = NameRule(max_bytes=64, allowed=r"[\w-]", replacement="_")
CJK = "天气预报查询工具"  # 8 characters, 24 bytes


def suffix(original: str, n: int = 6) -> str:
    return "_" + hashlib.sha256(original.encode("utf-8")).hexdigest()[:n]


# --- one name ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["get_weather", "search-web", "A1", "x" * 64])
def test_a_name_the_wire_takes_is_unchanged(name):
    assert wire_name(name, OPENAI) == name
    assert OPENAI.valid(name)


def test_each_refused_character_becomes_the_replacement():
    assert wire_name("get weather!", OPENAI) == "get_weather_"
    # no collapsing: one refused character, one replacement
    assert wire_name("a  b", OPENAI) == "a__b"
    assert wire_name("ns.tool:v1", OPENAI) == "ns_tool_v1"
    assert wire_name("ns.tool:v1", GEMINI) == "ns.tool:v1"


def test_a_replacement_the_wire_refuses_drops_the_character_instead():
    rule = NameRule(allowed="[a-z0-9]", replacement="-")
    assert wire_name("get weather!", rule) == "getweather"


def test_a_name_left_empty_becomes_tool():
    rule = NameRule(allowed="[a-z0-9]", replacement="")
    assert wire_name("!!!", rule) == "tool"
    assert wire_name("", OPENAI) == "tool"


def test_a_refused_first_character_gets_the_replacement_before_it():
    assert wire_name("3d_render", GEMINI) == "_3d_render"
    assert wire_name("-x", GEMINI) == "_-x"
    assert wire_name(".hidden", GEMINI) == "_.hidden"
    # without a first-character rule, a digit may lead
    assert wire_name("3d_render", OPENAI) == "3d_render"


def test_x_leads_when_first_refuses_the_replacement():
    rule = NameRule(allowed="[A-Za-z0-9_-]", first="[A-Za-z]", replacement="_")
    assert wire_name("3d", rule) == "x3d"
    assert wire_name("_private", rule) == "x_private"


def test_the_first_character_rule_applies_after_replacing():
    # " x" -> "_x": "_" is a valid first character on gemini, so nothing is prepended
    assert wire_name(" x", GEMINI) == "_x"


def test_a_long_name_is_cut_to_max_bytes():
    assert wire_name("a" * 100, OPENAI) == "a" * 64
    assert wire_name("1" + "a" * 100, GEMINI) == "_1" + "a" * 62


def test_a_multi_byte_name_is_cut_between_characters():
    name = "天" * 40  # 120 bytes
    out = wire_name(name, UNICODE)
    data = out.encode("utf-8")
    assert len(data) <= 64
    assert data.decode("utf-8") == out == "天" * 21  # 63 bytes: a 22nd character would need 66
    assert UNICODE.valid(out)


def test_a_cut_never_splits_a_character_at_any_offset():
    for lead in range(4):
        name = "a" * lead + "é€😀" * 30  # 2-, 3- and 4-byte characters
        out = wire_name(name, NameRule(allowed=None))
        assert len(out.encode("utf-8")) <= 64
        assert name.startswith(out)
        assert len(out.encode("utf-8")) > 64 - 4  # nothing more is lost than one character


def test_non_ascii_is_replaced_where_the_wire_refuses_it():
    assert wire_name("気象", OPENAI) == "__"
    assert wire_name("Straße", OPENAI) == "Stra_e"  # ß has no base letter
    assert wire_name("météo", UNICODE) == "météo"


@pytest.mark.parametrize("name, wire", [
    ("météo", "meteo"),  # a letter and its accent: the letter stays
    ("ｆｕｌｌ_ｗｉｄｔｈ", "full_width"),
    ("ﬁle", "file"),  # a ligature: both letters
    ("x²", "x2"),
    ("Ⅻ", "XII"),
])
def test_a_refused_character_the_wire_can_spell_by_its_base_letter_keeps_it(name, wire):
    assert wire_name(name, OPENAI) == wire
    assert says_name(name, OPENAI)


def test_a_base_the_wire_refuses_too_is_the_replacement():
    assert wire_name("a…b", OPENAI) == "a_b"  # "…" is "...", and "." is refused
    assert wire_name("a…b", GEMINI) == "a...b"


@pytest.mark.parametrize("name, says", [
    ("get weather!", True),  # punctuation replaced: the name still reads the same
    ("café", True),
    ("天气", False),
    ("search_天气", False),
    ("Straße", False),
])
def test_says_name_is_false_when_a_letter_or_digit_is_lost(name, says):
    assert says_name(name, OPENAI) is says
    assert says_name(name, UNICODE)  # a wire taking any letter loses none


def test_says_name_is_false_for_a_name_cut_for_length_not_for_a_collision_suffix():
    long = "mcp__github__create_pull_request_review_comment_reply_thread_nowx"  # 65 bytes
    assert not says_name(long, OPENAI)
    assert says_name("search", OPENAI, "search" + suffix("search"))
    assert not says_name("search", OPENAI, "sea" + suffix("search"))  # its base cut to fit the suffix


def test_a_lone_surrogate_is_refused_even_where_any_character_is_allowed():
    out = wire_name("a\ud800b", NameRule(allowed=None))
    assert out == "a_b"
    out.encode("utf-8")


def test_wire_name_takes_strings_only():
    with pytest.raises(ToolNameError):
        wire_name(3, OPENAI)


# --- a tool list --------------------------------------------------------------


def test_valid_distinct_names_map_to_themselves():
    m = wire_names(["search", "get_weather", "send-mail"], OPENAI)
    assert m.to_dict() == {"search": "search", "get_weather": "get_weather", "send-mail": "send-mail"}
    assert m.renamed() == {}


def test_two_names_rewritten_alike_the_first_keeps_the_plain_form():
    m = wire_names(["get weather", "get-weather", "get.weather"], OPENAI)
    assert m.wire("get weather") == "get_weather"
    assert m.wire("get-weather") == "get-weather"  # valid as it is, and free
    assert m.wire("get.weather") == "get_weather" + suffix("get.weather")
    assert m.original("get_weather" + suffix("get.weather")) == "get.weather"


def test_a_name_another_was_rewritten_to_gets_a_suffix():
    # "get weather" claims "get_weather" first; the real "get_weather" comes later
    m = wire_names(["get weather", "get_weather"], OPENAI)
    assert m.wire("get weather") == "get_weather"
    assert m.wire("get_weather") == "get_weather" + suffix("get_weather")
    # the other way round, the valid name keeps its spelling
    m = wire_names(["get_weather", "get weather"], OPENAI)
    assert m.wire("get_weather") == "get_weather"
    assert m.wire("get weather") == "get_weather" + suffix("get weather")


def test_a_suffixed_name_stays_within_max_bytes():
    a, b = "x" * 70 + "A", "x" * 70 + "B"
    m = wire_names([a, b], OPENAI)
    assert m.wire(a) == "x" * 64
    assert m.wire(b) == "x" * 57 + suffix(b)
    assert len(m.wire(b)) == 64


def test_long_multi_byte_names_sharing_their_first_64_bytes_stay_distinct():
    a = "天" * 40 + "甲"
    b = "天" * 40 + "乙"
    m = wire_names([a, b], UNICODE)
    wa, wb = m.wire(a), m.wire(b)
    assert wa != wb
    assert wa == "天" * 21
    # 64 - 7 suffix bytes = 57 for the base: 19 characters (57 bytes) exactly
    assert wb == "天" * 19 + suffix(b)
    for w in (wa, wb):
        assert len(w.encode("utf-8")) <= 64
        assert w.encode("utf-8").decode("utf-8") == w
        assert UNICODE.valid(w)
    assert m.original(wa) == a
    assert m.original(wb) == b


def test_a_base_is_cut_between_characters_before_the_suffix():
    # 2 + 18*3 = 56 bytes of base fit in 57; a 19th character would cross the cut
    a = "ab" + "天" * 40
    b = "ab" + "天" * 40 + "x"
    m = wire_names([a, b], UNICODE)
    assert m.wire(b) == "ab" + "天" * 18 + suffix(b)
    assert len(m.wire(b).encode("utf-8")) == 63


def test_suffixes_are_the_same_in_another_process():
    names = ["天" * 40 + "甲", "天" * 40 + "乙", "get weather", "get_weather"]
    here = wire_names(names, UNICODE).to_dict()
    code = (
        "import json, sys\n"
        "from wireschema.names import NameRule, wire_names\n"
        "names = json.loads(sys.argv[1])\n"
        r"print(json.dumps(wire_names(names, NameRule(allowed='[\\w-]')).to_dict()))"
    )
    import json

    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(names)],
        capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": "123", "PATH": ""},
    )
    assert json.loads(out.stdout) == here


def test_same_input_same_output():
    names = ["a b", "a_b", "a.b", "a-b", "a b"]
    assert wire_names(names, OPENAI) == wire_names(list(names), OPENAI)


def test_a_suffixed_name_that_is_taken_gets_a_longer_suffix():
    # the third name is spelled exactly as the second one's 6-digit suffixed form
    taken = "get_weather" + suffix("get.weather")
    m = wire_names(["get weather", taken, "get.weather"], OPENAI)
    assert m.wire(taken) == taken
    assert m.wire("get.weather") == "get_weather" + suffix("get.weather", 8)
    # and once both 6 and 8 are taken, 10
    taken8 = "get_weather" + suffix("get.weather", 8)
    m = wire_names(["get weather", taken, taken8, "get.weather"], OPENAI)
    assert m.wire("get.weather") == "get_weather" + suffix("get.weather", 10)
    assert len(set(m)) == 4


def test_every_wire_name_is_distinct_and_valid_under_heavy_collision():
    names = [c * 3 for c in "!@#$%^&*()+=[]{};'\",<>/?`~|\\"] + ["___"]
    m = wire_names(names, OPENAI)
    assert len(m) == len(names)
    assert len(set(m)) == len(names)
    assert all(OPENAI.valid(w) for w in m)
    assert m.wire("!!!") == "___"  # the first one keeps the plain form
    assert [m.original(w) for w in m] == names


def test_a_name_given_twice_is_two_tools_with_two_wire_names():
    m = wire_names(["search", "get weather", "search", "get weather"], OPENAI)
    suffix = "_" + hashlib.sha256(b"search").hexdigest()[:6]
    assert list(m) == ["search", "get_weather", "search" + suffix, "get_weather_" + hashlib.sha256(b"get weather").hexdigest()[:6]]
    assert [m.original(w) for w in m] == ["search", "get weather", "search", "get weather"]
    assert m.wire("search") == "search" and m.wires("search") == ("search", "search" + suffix)


def test_a_third_and_fourth_repeat_take_longer_suffixes_within_the_byte_limit():
    names = ["s" * 64] * 5
    wires = list(wire_names(names, OPENAI))
    digest = hashlib.sha256(names[0].encode()).hexdigest()
    assert len(set(wires)) == 5 and all(len(w) <= 64 and OPENAI.valid(w) for w in wires)
    assert [w.rsplit("_", 1)[-1] for w in wires[1:4]] == [digest[:6], digest[:8], digest[:10]]
    assert wires == list(wire_names(names, OPENAI))  # deterministic


def test_many_repeats_of_a_name_hash_it_a_bounded_number_of_times_each(monkeypatch):
    import wireschema.names as names_module

    calls = []

    def counted(data):
        calls.append(len(data))
        return hashlib.sha256(data)

    monkeypatch.setattr(names_module, "sha256", counted)
    for name in ("search", "s" * 200):
        calls.clear()
        wires = list(wire_names([name] * 2000, OPENAI))
        assert len(set(wires)) == 2000 and all(OPENAI.valid(w) for w in wires)
        # once for the name's digest, then once per salted suffix: one hash per repeat,
        # where trying every suffix again for each repeat took some two million
        assert len(calls) <= 2000


def test_reserved_wire_names_are_taken_already():
    m = wire_names(["search", "lookup"], OPENAI, reserved={"search"})
    assert m.wire("search") == "search_" + hashlib.sha256(b"search").hexdigest()[:6]
    assert m.wire("lookup") == "lookup"


def test_the_separator_is_the_replacement_when_the_wire_refuses_underscore():
    rule = NameRule(allowed="[A-Za-z0-9-]", replacement="-")
    m = wire_names(["a b", "a.b"], rule)
    assert m.wire("a b") == "a-b"
    assert m.wire("a.b") == "a-b-" + hashlib.sha256(b"a.b").hexdigest()[:6]


def test_wire_names_refuses_one_bare_string():
    with pytest.raises(ToolNameError):
        wire_names("search", OPENAI)


# --- the map ----------------------------------------------------------------------


def test_the_map_goes_there_and_back():
    names = ["get weather!", "3d render", "search", "get_weather_"]
    m = wire_names(names, GEMINI)
    for original in names:
        w = m.wire(original)
        assert w in m
        assert GEMINI.valid(w)
        assert m.original(w) == original
    assert list(m) == [m.wire(n) for n in names]
    assert [o for _, o in m.items()] == names
    assert len(m) == 4


def test_to_dict_is_wire_to_original_and_rebuilds_the_map():
    m = wire_names(["get weather!", "search"], OPENAI)
    d = m.to_dict()
    assert d == {"get_weather_": "get weather!", "search": "search"}
    assert NameMap(d) == m
    assert NameMap.from_dict(d) == m
    assert m.renamed() == {"get weather!": "get_weather_"}


def test_an_unknown_wire_name_raises_a_clear_error():
    m = wire_names(["get weather!"], OPENAI)
    with pytest.raises(UnknownToolNameError) as exc:
        m.original("get_weather")
    assert isinstance(exc.value, WireschemaError)
    assert isinstance(exc.value, LookupError)
    assert not isinstance(exc.value, KeyError)
    assert "get_weather" in str(exc.value) and "get_weather_" in str(exc.value)
    assert exc.value.name == "get_weather"
    assert "get_weather" not in m
    with pytest.raises(UnknownToolNameError):
        m.wire("nope")


def test_a_wire_name_is_one_tools_while_tools_may_share_an_original_name():
    with pytest.raises(ToolNameError):
        NameMap([("a", "x"), ("a", "y")])
    shared = NameMap([("a", "x"), ("b", "x")])
    assert shared.original("a") == shared.original("b") == "x"
    assert shared.wires("x") == ("a", "b") and shared.wire("x") == "a"
    assert NameMap(shared.to_dict()) == shared


def test_a_map_is_an_immutable_value():
    m = wire_names(["a b"], OPENAI)
    assert hash(m) == hash(wire_names(["a b"], OPENAI))
    with pytest.raises(AttributeError):
        m.pairs = ()
    m.to_dict()["x"] = "y"
    assert "x" not in m


# --- rules --------------------------------------------------------------------


def test_rule_from_the_shipped_gemini_target():
    rule = NameRule.from_target(wireschema._target("gemini"))
    assert rule == GEMINI
    assert NameRule.from_target("gemini") == rule
    assert wire_name("3d weather!", rule) == "_3d_weather_"


def test_rule_from_the_shipped_openai_strict_target():
    rule = NameRule.from_target(wireschema._target("openai-strict"))
    assert rule == OPENAI
    assert rule.first is None
    assert wire_name("ns.get weather", rule) == "ns_get_weather"


@pytest.mark.parametrize("target,longest", [("anthropic", 128), ("anthropic-strict", 128), ("bedrock", 64),
                                             ("bedrock-strict", 64), ("cca-claude", 64)])
def test_anthropic_takes_tool_names_of_128_characters_and_bedrock_64(target, longest):
    """Anthropic takes ^[a-zA-Z0-9_-]{1,128}$ (anthropics/claude-code #96152); before, a
    name was cut at 64. botocore's ToolSpecification.name and Code Assist keep 64."""
    rule = NameRule.from_target(target)
    assert wire_name("n" * 100, rule) == "n" * min(100, longest)
    assert wire_name("n" * 200, rule) == "n" * longest


def test_a_target_without_names_gets_the_defaults(tmp_path):
    (tmp_path / "bare.yaml").write_text("extends: _base\n")
    target = wireschema.load_rules(tmp_path)["bare"]
    assert dict(target.names) == {}
    assert NameRule.from_target(target) == NameRule()
    assert NameRule() == NameRule(max_bytes=64, allowed=None, first=None, replacement="_")


def test_names_merge_key_by_key_and_null_takes_the_defaults(tmp_path):
    (tmp_path / "mine.yaml").write_text("extends: gemini\nnames: {allowed: '[a-z0-9_]'}\n")
    (tmp_path / "plain.yaml").write_text("extends: gemini\nnames: {first: null}\n")
    (tmp_path / "bare.yaml").write_text("extends: gemini\nnames: null\n")
    rules = wireschema.load_rules(tmp_path)
    # a file states only what it changes: gemini's first-character rule and length stay
    assert NameRule.from_target(rules["mine"]) == NameRule(max_bytes=64, allowed="[a-z0-9_]", first="[A-Za-z_]")
    # one key unset, or the whole mapping: the defaults stand where it was
    assert NameRule.from_target(rules["plain"]) == NameRule(allowed="[A-Za-z0-9_.:-]")
    assert NameRule.from_target(rules["bare"]) == NameRule()


def test_rule_regexes_are_compiled_once():
    rule = NameRule(allowed="[a-z0-9_]", first="[a-z]")
    assert rule._allowed_re is rule._allowed_re
    assert rule._allowed_re.pattern == "[a-z0-9_]"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_bytes": 8},  # no room for a collision suffix
        {"max_bytes": True},
        {"max_bytes": "64"},
        {"allowed": "[a-z"},  # not a regex
        {"allowed": "[A-Z_]"},  # refuses the hex digits of suffixes
        {"allowed": "[a-f0-9_]"},  # refuses "tool"
        {"allowed": "[a-z0-9_]", "first": "[0-9]"},  # neither "_" nor "x" can lead
        {"replacement": 1},
    ],
)
def test_a_rule_that_cannot_work_is_refused_when_made(kwargs):
    with pytest.raises(ToolNameError):
        NameRule(**kwargs)


def test_every_shipped_target_has_a_name_rule_that_works():
    for info in wireschema.targets():
        rule = NameRule.from_target(info.name)
        assert rule.valid(wire_name("3d weather! 天气", rule)), info.name


@pytest.mark.parametrize("bad", [["abc"], [("a", 1)], 5])
def test_a_map_takes_pairs_of_strings(bad):
    with pytest.raises(ToolNameError):
        NameMap(bad)
