"""Work that grows with the input, counted rather than timed: editing a named list, and
merging an `extends` chain, cost in proportion to their size."""

from __future__ import annotations

import pytest

import wireschema
from wireschema import ruletable
from wireschema.rulefields import Entry, resolve_lists


class _Word(str):
    """A list word that counts the comparisons made with it."""

    compared = 0

    def __eq__(self, other):
        _Word.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def _comparisons(n: int, typemap: bool) -> int:
    words = [_Word(f"w{i}") for i in range(n)]
    first = {"string": [_Word("x")]} if typemap else [_Word("x")]
    edit = {"add": {"string": words} if typemap else words, "remove": {"string": ["x"]} if typemap else ["x"]}
    lists = {"l": {"first": first, "edit": edit}}
    _Word.compared = 0
    resolved = resolve_lists({"l": [Entry("f.yaml", lists["l"], "first"), Entry("f.yaml", lists["l"], "edit")]})
    assert list(resolved["l"].items["string"] if typemap else resolved["l"].items) == words
    return _Word.compared


@pytest.mark.parametrize("typemap", [False, True], ids=["flat", "type map"])
def test_adding_n_words_to_a_list_compares_each_word_a_bounded_number_of_times(typemap):
    # a membership test against a list compares with every word before it: n * n / 2
    assert _comparisons(2000, typemap) <= 2 * 2000
    assert _comparisons(4000, typemap) <= 2 * 4000


def test_an_edit_still_refuses_a_word_twice_and_a_word_missing():
    lists = {"first": ["a"], "twice": {"add": ["b", "b"]}, "gone": {"remove": ["c"]}}
    for edit, said in (("twice", "'b' is in the list already"), ("gone", "cannot remove 'c', it is not in the list")):
        with pytest.raises(wireschema.RuleFileError, match=said):
            resolve_lists({"l": [Entry("f.yaml", lists, "first"), Entry("f.yaml", lists, edit)]})


def _chain(folder, n: int) -> None:
    """n rule files, each extending the one before it, each with one rule of its own."""
    for i in range(n):
        parent = "gemini" if i == 0 else f"link{i - 1}"
        (folder / f"link{i}.yaml").write_text(
            f"extends: {parent}\nrules:\n  - id: link{i}/drop\n    kind: drop\n    keys: [x-link{i}]\n    why: test\n")


def _merged(tmp_path, monkeypatch, n: int) -> list[str]:
    """The files merged (by name) while loading a folder of an n-file chain."""
    folder = tmp_path / f"chain{n}"
    folder.mkdir()
    _chain(folder, n)
    calls: list[str] = []
    real = ruletable._merge_file
    monkeypatch.setattr(ruletable, "_merge_file", lambda path, *a: calls.append(path.stem) or real(path, *a))
    last = wireschema.load_rules(folder)[f"link{n - 1}"]
    assert [r.id for r in last.rules][-n:] == [f"link{i}/drop" for i in range(n)]
    return calls


@pytest.mark.parametrize("n", [50, 100])
def test_a_folder_of_n_files_extending_each_other_merges_each_file_once(tmp_path, monkeypatch, n):
    # each file once, not once for every file below it in the chain (n * n / 2)
    merged = _merged(tmp_path, monkeypatch, n)
    assert sorted(m for m in merged if m.startswith("link")) == sorted(f"link{i}" for i in range(n))
    shipped = [m for m in merged if not m.startswith("link")]
    assert sorted(shipped) == sorted(set(shipped)) == ["_base", "_gemini-tool", "gemini"]


def test_a_merge_is_copied_out_so_a_variant_never_changes_the_file_it_comes_from(tmp_path):
    _chain(tmp_path, 2)
    target = wireschema.load_rules(tmp_path)["link1"]
    before = [r.id for r in target.rules]
    variant = target.registry.variant(target, ["link0/drop"], "test")
    assert "link0/drop" not in [r.id for r in variant.rules]
    assert [r.id for r in ruletable.compile_file(tmp_path / "link1.yaml", target.registry).rules] == before
