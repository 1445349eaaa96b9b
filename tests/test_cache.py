"""The process-local memo: exact-content keys, independent results, bounded, thread-safe."""

from __future__ import annotations

import json
import random
import re
import threading

import pytest

import wireschema
from conftest import containers

SCHEMA = {"type": "object", "properties": {"n": {"type": "number", "default": 1}, "s": {"type": ["string", "null"]}}}


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch):
    monkeypatch.delenv("WIRESCHEMA_NO_CACHE", raising=False)
    wireschema.configure_cache()
    yield
    wireschema.configure_cache()


def _twice(schema, target, **kw):
    """Met twice: stored (see `test_an_input_is_stored_the_second_time_it_is_met`)."""
    wireschema.normalize(schema, target, **kw)
    return wireschema.normalize(schema, target, **kw)


def test_an_input_is_stored_the_second_time_it_is_met():
    first = wireschema.normalize(SCHEMA, "openai-strict")
    assert wireschema.cache_info().entries == 0  # met once: nothing stored
    second = wireschema.normalize(SCHEMA, "openai-strict")
    assert wireschema.cache_info().entries == 1
    third = wireschema.normalize(SCHEMA, "openai-strict")
    info = wireschema.cache_info()
    assert (info.hits, info.misses, info.entries) == (1, 2, 1)
    assert first == second == third  # attrs equality: schema, flags and changes


def test_inputs_met_once_never_push_out_an_input_that_repeats():
    wireschema.configure_cache(max_entries=2)
    _twice(SCHEMA, "gemini")
    for i in range(10):
        wireschema.normalize({"type": "object", "properties": {f"p{i}": {"type": "string"}}}, "gemini")
    wireschema.normalize(SCHEMA, "gemini")
    assert wireschema.cache_info().hits == 1


def test_the_doorkeeper_remembers_a_bounded_number_of_inputs():
    # a stream of inputs that never repeat keeps at most two generations of key hashes
    wireschema.configure_cache(max_entries=4)
    for i in range(100):
        wireschema.normalize({"type": "object", "properties": {f"p{i}": {"type": "string"}}}, "gemini")
    memo = wireschema._the_memo()
    assert len(memo._seen) + len(memo._seen_before) <= 8
    assert wireschema.cache_info().entries == 0


def test_a_hit_hands_out_an_independent_copy():
    first = wireschema.normalize(SCHEMA, "openai-strict")
    stored = wireschema.normalize(SCHEMA, "openai-strict")
    for result in (first, stored):
        result.schema["properties"]["n"]["type"] = "string"
        result.schema["injected"] = True
    hit = wireschema.normalize(SCHEMA, "openai-strict")
    assert wireschema.cache_info().hits == 1
    assert hit.schema["properties"]["n"] == {"anyOf": [{"type": "number"}, {"type": "null"}], "description": "(default: 1)"}
    assert "injected" not in hit.schema


def test_large_inputs_that_hash_alike_are_still_two_entries():
    # a key of many bytes is hashed by a sample of them: two inputs differing only
    # between the sampled bytes share a hash, and each still gets its own result
    from wireschema.blobs import key_of

    text = "x" * 8000
    first = {"type": "object", "description": text}
    second = next(
        s for i in range(len(text))
        if hash(key_of(s := {"type": "object", "description": text[:i] + "y" + text[i + 1:]}, 1 << 20)) == hash(key_of(first, 1 << 20))
    )
    assert key_of(second, 1 << 20) != key_of(first, 1 << 20)
    for _ in range(3):
        for schema in (first, second):
            assert wireschema.normalize(schema, "gemini").schema["description"] == schema["description"]
    # the doorkeeper remembers hashes: the second input, met after its twin, is stored
    # at once (one call early), so three of the six calls hit
    assert wireschema.cache_info().entries == 2 and wireschema.cache_info().hits == 3


def test_a_hit_makes_each_distinct_string_once():
    # an entry writes equal strings once, so a hit makes one object of them (most of a
    # thaw's cost is the objects it makes); its containers are new on every hit
    schema = json.loads('{"type": "object", "properties": {"a": {"type": "string", "description": "same text"},'
                        ' "b": {"type": "string", "description": "same text"}}}')
    assert schema["properties"]["a"]["type"] is not schema["properties"]["b"]["type"]
    for _ in range(2):
        wireschema.normalize(schema, "gemini")  # met, then stored
    hit, again = (wireschema.normalize(schema, "gemini") for _ in range(2))
    assert wireschema.cache_info().hits == 2
    a, b = hit.schema["properties"]["a"], hit.schema["properties"]["b"]
    assert a["type"] is b["type"] and a["description"] is b["description"]
    assert a is not b and again.schema["properties"]["a"] is not a


@pytest.mark.parametrize(
    "a,b",
    [
        ({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
         {"type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "string"}}}),
        ({"type": "object", "properties": {"n": {"type": "number", "maximum": 1}}},
         {"type": "object", "properties": {"n": {"type": "number", "maximum": 1.0}}}),
        ({"type": "object", "properties": {"n": {"type": "number", "minimum": 0.0}}},
         {"type": "object", "properties": {"n": {"type": "number", "minimum": -0.0}}}),
        ({"type": "object", "properties": {"e": {"enum": [1]}}},
         {"type": "object", "properties": {"e": {"enum": [True]}}}),
    ],
    ids=["key-order", "1-vs-1.0", "0.0-vs--0.0", "1-vs-true"],
)
def test_equal_as_python_values_but_different_json_never_share_an_entry(a, b):
    assert a == b  # Python calls them equal; JSON (and a validator) may not
    _twice(a, "gemini")
    _twice(b, "gemini")
    info = wireschema.cache_info()
    assert (info.entries, info.hits) == (2, 0)


def test_a_repeat_hits_whatever_else_holds_the_inputs_strings():
    # a key read off reference counts (marshal's back-references) would change while
    # the caller, or the last result, holds one of the input's strings
    schema = json.loads('{"type": "object", "properties": {"city": {"type": "string", "description": "Where."}}}')
    _twice(schema, "gemini")
    held = [schema["properties"]["city"]["description"], schema["properties"]["city"]["type"]]
    assert wireschema.normalize(schema, "gemini").schema["properties"]["city"]["description"] == "Where."
    del held
    wireschema.normalize(schema, "gemini")
    assert wireschema.cache_info().hits == 2


def test_a_subtree_held_many_times_costs_its_key_once():
    # each level holds the one below twice: 2**40 nodes as a tree, 40 objects in memory
    node: dict = {"type": "string"}
    for _ in range(40):
        node = {"anyOf": [node, node]}
    first = _twice(node, "gemini")
    assert first.used_fallback and first.fallback_reason.startswith("budget/nodes")
    assert wireschema.normalize(node, "gemini") == first
    assert wireschema.cache_info().hits == 1


def test_the_same_content_shared_otherwise_is_a_hit():
    # a key follows the content, not which objects the caller's dicts share
    text = {"type": "string"}
    shared = {"type": "object", "properties": {"a": text, "b": text}}
    apart = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}
    _twice(shared, "gemini")
    wireschema.normalize(apart, "gemini")
    assert wireschema.cache_info().hits == 1


def test_a_cyclic_input_has_no_key_and_gets_the_uncached_runs_error():
    cyclic: dict = {"type": "object", "properties": {}}
    cyclic["properties"]["self"] = cyclic
    with pytest.raises(wireschema.SchemaInputError):
        wireschema.normalize(cyclic, "gemini")
    assert wireschema.cache_info().misses == 0


@pytest.mark.parametrize("odd", [type("Name", (str,), {})("x"), type("Count", (int,), {})(3), object()], ids=["str-subclass", "int-subclass", "object"])
def test_a_value_no_json_type_has_no_key_and_runs_uncached(odd):
    schema = {"type": "object", "properties": {"a": {"type": "string", "description": odd}}}
    try:
        _twice(schema, "gemini")
    except wireschema.SchemaInputError:
        pass  # refused by the run itself, as without the cache
    assert wireschema.cache_info().entries == 0


def test_options_and_targets_are_part_of_the_key():
    _twice(SCHEMA, "openai-strict")
    _twice(SCHEMA, "openai-strict", strict=False)
    _twice(SCHEMA, "gemini")
    _twice(SCHEMA, "gemini", options=wireschema.Options(spill=False))
    assert wireschema.cache_info().entries == 4


def test_fallback_results_are_cached_too():
    _twice({"type": "string"}, "gemini")
    again = wireschema.normalize({"type": "string"}, "gemini")
    assert again.used_fallback and wireschema.cache_info().hits == 1


def test_bounded_by_entries_with_least_recently_used_eviction():
    wireschema.configure_cache(max_entries=3)
    schemas = [{"type": "object", "properties": {f"p{i}": {"type": "string"}}} for i in range(5)]
    for s in schemas:
        _twice(s, "gemini")
    assert wireschema.cache_info().entries == 3
    wireschema.normalize(schemas[0], "gemini")  # evicted long ago: a miss
    assert wireschema.cache_info().hits == 0


def test_bounded_by_bytes():
    wireschema.configure_cache(max_bytes=4000)
    for i in range(20):
        _twice({"type": "object", "description": "x" * 200 + str(i), "properties": {}}, "gemini")
    assert wireschema.cache_info().bytes <= 4000


def test_inputs_beyond_the_key_budget_take_the_uncached_path():
    wireschema.configure_cache(max_bytes=1000)
    big = {"type": "object", "description": "x" * 5000, "properties": {}}
    assert not _twice(big, "gemini").used_fallback
    assert wireschema.cache_info().entries == 0


def test_clear_and_the_no_cache_switch(monkeypatch):
    _twice(SCHEMA, "gemini")
    wireschema.clear_cache()
    assert wireschema.cache_info().entries == 0
    wireschema.normalize(SCHEMA, "gemini")  # cleared with the entries: met once again
    assert wireschema.cache_info().entries == 0
    monkeypatch.setenv("WIRESCHEMA_NO_CACHE", "1")
    _twice(SCHEMA, "gemini")
    assert wireschema.cache_info().entries == 0


def test_env_switches_apply_before_the_lookup(monkeypatch):
    strict = wireschema.normalize(SCHEMA, "openai-strict")
    monkeypatch.setenv("WIRESCHEMA_NO_STRICT", "1")
    assert wireschema.normalize(SCHEMA, "openai-strict").strict is False
    monkeypatch.setenv("WIRESCHEMA_NO_NORMALIZATION", "1")
    bypassed = wireschema.normalize(SCHEMA, "openai-strict")
    assert bypassed.schema == SCHEMA and bypassed.strict is False
    monkeypatch.delenv("WIRESCHEMA_NO_STRICT")
    monkeypatch.delenv("WIRESCHEMA_NO_NORMALIZATION")
    assert wireschema.normalize(SCHEMA, "openai-strict") == strict


def test_threads_hammering_mixed_targets_get_what_an_uncached_run_gets(monkeypatch):
    schemas = [{"type": "object", "properties": {f"p{i}": {"type": ["string", "null"], "minLength": i}}} for i in range(25)]
    targets = [t.name for t in wireschema.targets()]
    monkeypatch.setenv("WIRESCHEMA_NO_CACHE", "1")
    expected = {(i, t): json.dumps(wireschema.normalize(s, t).schema) for i, s in enumerate(schemas) for t in targets}
    monkeypatch.delenv("WIRESCHEMA_NO_CACHE")
    wireschema.configure_cache(max_entries=40)  # small, so threads also race evictions
    errors: list[str] = []

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(300):
            i, t = rng.randrange(len(schemas)), rng.choice(targets)
            got = wireschema.normalize(schemas[i], t).schema
            if json.dumps(got) != expected[(i, t)]:
                errors.append(f"{i} {t}")
            got["mutated"] = seed  # must never leak into another caller's result

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert wireschema.cache_info().hits > 0


TOOLS = [
    {"type": "function", "function": {"name": "find", "description": "Find.", "parameters": SCHEMA}},
    {"type": "web_search_preview"},
    {"type": "function", "function": {"name": "get.item", "parameters": {"type": "object", "properties": {"id": {"type": "integer"}}}}},
]


def test_a_repeated_tool_list_is_one_hit_with_the_same_tools_results_and_names():
    wireschema.normalize_tools(TOOLS, "openai-strict")
    first = wireschema.normalize_tools(TOOLS, "openai-strict")
    hits = wireschema.cache_info().hits
    second = wireschema.normalize_tools(TOOLS, "openai-strict")
    assert wireschema.cache_info().hits == hits + 1
    assert second.tools == first.tools
    assert second.results == first.results
    assert second.names == first.names
    assert second.results[1] is None  # the server tool passes through in both


def test_a_tool_list_hit_is_independent_and_each_result_holds_its_tools_schema():
    wireschema.normalize_tools(TOOLS, "openai-strict")
    first = wireschema.normalize_tools(TOOLS, "openai-strict")  # stored
    first.tools[0]["function"]["parameters"]["injected"] = True
    second = wireschema.normalize_tools(TOOLS, "openai-strict")
    assert "injected" not in second.tools[0]["function"]["parameters"]
    assert second.results[0].schema is second.tools[0]["function"]["parameters"]
    assert second.results[2].source == json.dumps(TOOLS[2]["function"]["parameters"], separators=(",", ":"))


def test_a_tool_list_hits_results_are_made_once_on_first_read():
    wireschema.normalize_tools(TOOLS, "openai-strict")
    first = wireschema.normalize_tools(TOOLS, "openai-strict")
    second = wireschema.normalize_tools(TOOLS, "openai-strict")  # a hit
    assert second == first and repr(second) == repr(first)  # made or not, they compare and print alike
    assert second.results is second.results
    assert second.result_for("find") is second.results[0]


def test_a_tool_list_key_holds_the_strict_flag_and_the_env_switches(monkeypatch):
    strict = wireschema.normalize_tools(TOOLS, "openai-strict")
    assert wireschema.normalize_tools(TOOLS, "openai-strict", strict=False).tools[0]["function"]["strict"] is False
    monkeypatch.setenv("WIRESCHEMA_NO_STRICT", "1")
    assert wireschema.normalize_tools(TOOLS, "openai-strict").tools[0]["function"]["strict"] is False
    monkeypatch.delenv("WIRESCHEMA_NO_STRICT")
    assert wireschema.normalize_tools(TOOLS, "openai-strict") == strict


def test_a_hit_copy_keeps_every_field_but_the_schema():
    # Result.with_schema lists the fields by hand (it is the hot path of every cache hit)
    import attrs

    result = wireschema.normalize({"type": "object", "properties": {"a": {"type": "string"}}}, "openai-strict")
    copy = result.with_schema({"x": 1})
    for field in attrs.fields(type(result)):
        if field.name != "schema":
            assert getattr(copy, field.name) == getattr(result, field.name), field.name
    assert copy.schema == {"x": 1} and copy.notes is not result.notes


def _exact(value):
    # marshal's format 2 writes no back-references: equal bytes mean equal JSON, with
    # key order, 1, 1.0, true and -0.0 kept apart
    import marshal

    return marshal.dumps(value, 2)


def test_an_often_hit_tool_list_is_made_by_its_compiled_entry_exactly_and_afresh():
    from wireschema.blobs import Entry

    tools = [*TOOLS, {"type": "function", "function": {"name": "odd", "parameters": {
        "type": "object", "description": "keys\u00e9 \"quoted\" \\ and \n lines",
        "properties": {"z": {"type": "number", "minimum": -0.0, "maximum": 1.0, "default": 1},
                       "a": {"enum": [True, 1, 1.5, None, "x"]}}}}}]
    wireschema.normalize_tools(tools, "openai-strict")
    first = wireschema.normalize_tools(tools, "openai-strict")  # stored
    held = [wireschema.normalize_tools(tools, "openai-strict").tools for _ in range(Entry.COMPILE_AFTER + 3)]
    assert wireschema.cache_info().hits == Entry.COMPILE_AFTER + 3
    for made in held:  # the marshal thaws and the compiled ones alike
        assert _exact(list(made)) == _exact(list(first.tools))
    later = [set(containers(list(made))) for made in held[-4:]]  # alive together: ids are not reused
    assert all(not (a & b) for i, a in enumerate(later) for b in later[i + 1:])
    held[-1][3]["function"]["parameters"]["properties"]["z"]["injected"] = True
    assert "injected" not in wireschema.normalize_tools(tools, "openai-strict").tools[3]["function"]["parameters"]["properties"]["z"]


@pytest.mark.parametrize(
    "value",
    [
        {"n": float("inf"), "m": float("nan")},
        {"n": 10**5000},
        json.loads("[" * 150 + "]" * 150),
    ],
    ids=["non-finite", "too-many-digits", "deep"],
)
def test_a_value_with_no_literal_stays_on_marshal_and_thaws_exactly(value):
    import marshal

    from wireschema.blobs import Entry, _literal_function

    plain = {"plain": [1, 1.0, True, None, -0.0, "\u00e9"]}
    assert _exact(_literal_function(plain)()) == _exact(plain)
    assert _literal_function(value) is None
    entry = Entry(marshal.dumps(value, 4))
    for _ in range(Entry.COMPILE_AFTER + 2):
        made = entry.thaw()
        assert made is not value and _exact(made) == _exact(value)


def test_only_an_entry_small_enough_to_compile_cheaply_is_compiled(monkeypatch):
    # compiling takes memory in proportion to the value (its syntax tree): a large
    # entry is thawed by marshal however often it is hit
    import marshal

    from wireschema import blobs

    compiled = []
    real = blobs._literal_function
    monkeypatch.setattr(blobs, "_literal_function", lambda value: compiled.append(len(value)) or real(value))
    small = ["x" * 10] * 10
    large = ["x" * 10] * (blobs._LITERAL_BYTES // 4)
    for value in (small, large):
        entry = blobs.Entry(marshal.dumps(value, 2))
        for _ in range(blobs.Entry.COMPILE_AFTER + 2):
            assert entry.thaw() == value
    assert compiled == [len(small)]


@pytest.mark.parametrize("setting", [
    {"max_entries": None}, {"max_entries": "512"}, {"max_entries": [1]}, {"max_entries": -1}, {"max_entries": True},
    {"max_bytes": None}, {"max_bytes": -5}, {"max_bytes": 1.5},
])
def test_a_bad_cache_size_is_refused_where_it_is_given(setting):
    (name, value), = setting.items()
    with pytest.raises(wireschema.OptionsError, match=re.escape(f"configure_cache: {name} must be an int of at least 0, got {value!r}")):
        wireschema.configure_cache(**setting)
    # the memo is as it was: later calls never meet the bad value
    assert (wireschema.cache_info().max_entries, wireschema.cache_info().max_bytes) == (512, 16 * 1024 * 1024)
    assert _twice(SCHEMA, "gemini") == wireschema.normalize(SCHEMA, "gemini")


def test_a_cache_of_size_0_keeps_nothing():
    for setting in ({"max_entries": 0}, {"max_bytes": 0}):
        wireschema.configure_cache(**setting)
        _twice(SCHEMA, "gemini")
        wireschema.normalize(SCHEMA, "gemini")
        assert (wireschema.cache_info().entries, wireschema.cache_info().hits) == (0, 0)
