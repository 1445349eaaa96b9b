"""Reading JSON text for the command line: documents one after the other, and where each
value sits (what GitHub annotations point at)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wireschema.jsonsource import JSONSourceError, line_column, positions, read

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def _values(value, at=""):
    yield at, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _values(v, f"{at}/{k.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _values(v, f"{at}/{i}")


def _documents():
    docs = [{"a/b": {"~": [1, {"x": None}], "": "e"}, "s": "\"quoted\" , : [ ] { }"}, [[], {}, [[1]]], "x", 0]
    path = CORPUS / "mcp.jsonl"
    if path.exists():
        docs += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:40]]
    return docs


@pytest.mark.parametrize("indent", [None, 2])
def test_every_pointer_is_found_where_its_value_starts(indent):
    for doc in _documents():
        text = "  " + json.dumps(doc, indent=indent, ensure_ascii=False)
        [source] = read(text, "t")
        found = positions(text, source)
        expected = dict(_values(doc))
        assert set(found) == set(expected)
        decoder = json.JSONDecoder()
        for pointer, offset in found.items():
            assert decoder.raw_decode(text, offset)[0] == expected[pointer], pointer


def test_values_one_after_the_other_are_documents():
    text = '{"a": 1}\n[2]\n\n  "three" 4\n'
    docs = read(text, "t")
    assert [d.value for d in docs] == [{"a": 1}, [2], "three", 4]
    assert [line_column(text, d.start) for d in docs] == [(1, 1), (2, 1), (4, 3), (4, 11)]
    # a pointer map stops at the end of its own document
    assert positions(text, docs[1]) == {"": 9, "/0": 10}


def test_a_repeated_key_points_at_the_value_the_decoder_keeps():
    text = '{"k": 1, "k": 2}'
    [doc] = read(text, "t")
    assert doc.value == {"k": 2} and text[positions(text, doc)["/k"]] == "2"


@pytest.mark.parametrize(
    "text, where",
    [
        ("", (1, 1)),
        ('{"a" 1}', (1, 6)),
        ('{"a":\n  NaN}', (2, 3)),
        ("[1,\n 2e999]", (2, 2)),
        ('{"n": -' + "1" * 5000 + "}", (1, 7)),
        # deeper than any interpreter's reader follows (3.13 reads 3,000 levels, 3.11 not)
        ("[" * 100_000 + "]" * 100_000, (1, 100_000)),
    ],
    ids=["empty", "syntax", "nan", "overflow", "digits", "depth"],
)
def test_errors_say_line_and_column(text, where):
    with pytest.raises(JSONSourceError) as err:
        read(text, "f.json")
    assert (err.value.line, err.value.column) == where
    assert str(err.value).startswith(f"f.json:{where[0]}:{where[1]}: ")
