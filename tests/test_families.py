"""Hostile input by class (issue 15): each class is a generator, not one example.

A family grows its input 10x per step (or draws it with hypothesis) and states what
must hold at every size: no exception but the documented ones, a result within a time
and memory bound that stays flat once the input is past a budget, a fallback that names
the budget, an output that serializes and settles (normalized again for its own wire it
changes nothing and never falls back).

Sizes are small by default so the file runs in well under a minute on two cores;
`WIRESCHEMA_FAMILIES=long` adds the next 10x step (and more hypothesis examples). Each
case runs in-process under an interval timer, and memory is measured with tracemalloc
around the call alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wireschema
from wireschema.errors import OptionsError, SchemaInputError

TARGETS = [t.name for t in wireschema.targets()]
LONG = os.environ.get("WIRESCHEMA_FAMILIES") == "long"
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PROFILE = settings(
    max_examples=300 if LONG else 40,
    deadline=None,
    derandomize=not LONG,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def sizes(*steps: int) -> list[int]:
    """The sizes of a family: the given steps, and one more 10x step when run long."""
    return [*steps, steps[-1] * 10] if LONG else list(steps)


class Runaway(BaseException):
    """Raised by the interval timer; a BaseException, so no `except Exception` hides it."""


@contextlib.contextmanager
def bounded(seconds: float):
    use_timer = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if use_timer:

        def _stop(_signum, _frame):
            raise Runaway(f"still running after {seconds} s")

        old = signal.signal(signal.SIGALRM, _stop)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    start = time.perf_counter()
    try:
        yield
    except Runaway as exc:
        pytest.fail(f"cut off: {exc}")
    finally:
        if use_timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    elapsed = time.perf_counter() - start
    assert elapsed < seconds, f"took {elapsed:.2f} s (bound {seconds} s)"


@pytest.fixture
def uncached(monkeypatch):
    monkeypatch.setenv("WIRESCHEMA_NO_CACHE", "1")


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# ---------------------------------------------------------------------------
# A: Options fields of the wrong type or out of range are one clear error

_FIELDS = ("max_depth", "max_nodes", "max_literal_bytes", "strict", "spill", "bypass", "allow_nan")
_ANY = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.integers(10**6, 10**30), st.floats(allow_nan=True),
    st.text(max_size=3), st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)


def _valid(field: str, value) -> bool:
    if field.startswith("max_"):
        return value.__class__ is int and value >= 1
    if field == "strict":
        return value is None or value.__class__ is bool
    return value.__class__ is bool


@PROFILE
@given(st.sampled_from(_FIELDS), _ANY)
def test_options_fields_are_checked_when_made(field, value):
    """Any value for any field: a valid Options, or OptionsError naming the field (never a
    TypeError from deep inside a run)."""
    if _valid(field, value):
        opts = wireschema.Options(**{field: value})
        assert getattr(opts, field) is value
        assert isinstance(wireschema.normalize({"type": "object"}, "gemini", options=opts), wireschema.Result)
        return
    with pytest.raises(OptionsError) as info:
        wireschema.Options(**{field: value})
    assert f"Options.{field}" in str(info.value)
    assert isinstance(info.value, (TypeError, ValueError)) and isinstance(info.value, wireschema.WireschemaError)


@pytest.mark.parametrize("options", [{"max_depth": 5}, 5, "Options()", object()], ids=repr)
def test_options_that_are_no_options_object_are_refused(options):
    for call in (
        lambda: wireschema.normalize({"type": "object"}, "gemini", options=options),
        lambda: wireschema.check({"type": "object"}, "gemini", options=options),
        lambda: wireschema.normalize_output({"type": "object"}, "gemini", options=options),
        lambda: wireschema.normalize_tools([{"name": "t", "input_schema": {"type": "object"}}], "anthropic", options=options),
    ):
        with pytest.raises(OptionsError):
            call()


# ---------------------------------------------------------------------------
# A: malformed references are reported unresolved references, never an exception

# what a reference may hold that resolution must read without raising: digits that
# str.isdigit() takes but int() refuses or RFC 6901 does not count, URIs urllib cannot
# parse, lone surrogates (raw and percent-encoded), bytes that are no UTF-8, escapes
# RFC 6901 does not define, and digit runs past Python's int-to-str limit
_TOKENS = st.sampled_from(
    ["²", "١", "01", "-1", "1e3", "０", "\ud800", "\udfff", "%ED%A0%80", "%FF", "%", "%2", "%24defs", "~2", "~", "a b",
     "$defs", "definitions", "anyOf", "0", "1", "A", "é", "\x00"]
) | st.integers(1, 4).map(lambda k: "7" * 10**k)
_URIS = st.sampled_from(
    ["http://[::1", "http://[::1]:x/", "https://a/b#", "urn:x", "urn:", "#", "", "//", "http://a:-1/", "file:///", "\ud800:x",
     "http://[v1.x]/", "https://h/%ED%A0%80", "mailto:", "http://a/../../x"]
)


@st.composite
def malformed_references(draw):
    tokens = draw(st.lists(_TOKENS, min_size=1, max_size=3))
    pointer = "#/" + "/".join(tokens)
    uri = draw(_URIS)
    ref = draw(st.sampled_from([pointer, uri, uri + pointer[1:], "#" + tokens[0], pointer + "/", "#/$defs/" + tokens[0]]))
    keyword = draw(st.sampled_from(["$ref", "$dynamicRef", "$recursiveRef", "$id", "$anchor", "$dynamicAnchor"]))
    holder = {keyword: ref}
    if draw(st.booleans()):
        holder["description"] = "d"
    defs = {t: {"type": "string"} for t in tokens if len(t) < 100}
    schema = {"type": "object", "properties": {"a": holder, "b": {"$ref": draw(st.sampled_from([pointer, "#/$defs/" + tokens[-1]]))}},
              "anyOf": [{"type": "object"}], "$defs": defs}
    if draw(st.booleans()):
        schema["$id"] = draw(_URIS)
    return schema


@PROFILE
@given(malformed_references(), st.sampled_from(TARGETS))
def test_malformed_references_are_reported_never_raised(schema, target):
    """Every API that reads references, on references urllib, RFC 6901 or UTF-8 cannot
    read: a Result (an unresolved reference is a reported fallback or a dropped $ref,
    as the target says), serializable, passing its wire's checks; restore and validate
    return, never raise."""
    result = wireschema.normalize(schema, target)
    json.dumps(result.schema, allow_nan=False)
    wire = _effective(target, result)
    assert wireschema.check(result.schema, wire) == ()
    if result.used_fallback:
        assert result.fallback_reason and len(result.fallback_reason) < 1_000  # a 10,000-digit token is cut
    for value in ({"a": "x"}, {"a": 1, "b": None}):
        result.restore(value)
        assert isinstance(result.validate(value), tuple)
    assert isinstance(result.validate('{"a": "x"'), tuple)  # not JSON: one Issue
    assert isinstance(wireschema.normalize_output(schema, target), wireschema.Result)
    assert isinstance(wireschema.check(schema, target), tuple)


@pytest.mark.parametrize("digits", sizes(10, 100, 1_000, 10_000))
@pytest.mark.parametrize("target", TARGETS)
def test_pointer_tokens_of_growing_digit_runs(digits, target):
    """An array index of 10 to 10,000 digits (past int()'s 4,300) names no item: the
    reference is unresolved, reported, in the same time at every size."""
    schema = {"type": "object", "anyOf": [{"type": "object"}], "properties": {"a": {"$ref": "#/anyOf/" + "9" * digits}}}
    with bounded(2.0):
        result = wireschema.normalize(schema, target)
    assert result.used_fallback or any(c.rule.endswith("resolve-refs") for c in result.changes)


def _effective(target: str, result: wireschema.Result) -> str:
    compiled = wireschema._target(target)
    return compiled.fail_open if compiled.strict and not result.strict else target
