"""The parsed-rule-file cache (`yamlsource.load_file`): what it gives back is exactly what
parsing gives, marks included, and no problem with it ever changes a result or raises."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import wireschema
from conftest import damaged
from wireschema import bytecache, yamlsource
from wireschema.yamlsource import MarkedDict, MarkedList, load_file, load_marked

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "rules").glob("*.yaml"))


@pytest.fixture(autouse=True)
def _writes_bytecode(monkeypatch):
    # the test environment may set PYTHONDONTWRITEBYTECODE: the cache follows it
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", None)


def assert_same(a, b, where="$"):
    """Equal values of the same types, with equal marks of the same types, all the way down."""
    assert type(a) is type(b), where
    if isinstance(a, MarkedDict):
        assert list(a) == list(b), where
        for attr in ("mark", "key_marks", "value_marks"):
            assert type(getattr(a, attr)) is type(getattr(b, attr)), f"{where} {attr}"
            assert getattr(a, attr) == getattr(b, attr), f"{where} {attr}"
        assert list(a.key_marks) == list(b.key_marks) and list(a.value_marks) == list(b.value_marks), where
        for k in a:
            assert_same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, MarkedList):
        assert len(a) == len(b), where
        for attr in ("mark", "item_marks"):
            assert type(getattr(a, attr)) is type(getattr(b, attr)), f"{where} {attr}"
            assert getattr(a, attr) == getattr(b, attr), f"{where} {attr}"
        assert all(type(m) is tuple for m in a.item_marks) and all(type(m) is tuple for m in b.item_marks)
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


def _cache(path: Path) -> Path:
    return path.parent / "__pycache__" / f"{path.name}.{sys.implementation.cache_tag}.rules"


def _load(path: Path):
    raw = path.read_bytes()
    return load_file(path, raw, raw.decode("utf-8"))


def _no_parsing(monkeypatch):
    def refuse(text):
        raise AssertionError("parsed, but the cache was good")

    monkeypatch.setattr(yamlsource, "load_marked", refuse)


@pytest.mark.parametrize("shipped", SHIPPED, ids=lambda p: p.name)
def test_cached_tree_is_the_parsed_tree(tmp_path, monkeypatch, shipped):
    path = tmp_path / shipped.name
    shutil.copyfile(shipped, path)
    parsed = load_marked(shipped.read_text(encoding="utf-8"))
    assert_same(_load(path), parsed)  # parsed, and written
    assert _cache(path).is_file()
    _no_parsing(monkeypatch)
    assert_same(_load(path), parsed)  # read back


def test_a_changed_file_is_parsed_again_and_its_cache_rewritten(tmp_path, monkeypatch):
    path = tmp_path / "a.yaml"
    path.write_text("description: one\nrules: []\n", encoding="utf-8")
    _load(path)
    before = _cache(path).read_bytes()
    path.write_text("description: two\nrules:\n  - {id: x, kind: y}\n", encoding="utf-8")
    tree = _load(path)
    assert_same(tree, load_marked(path.read_text(encoding="utf-8")))
    assert _cache(path).read_bytes() != before
    _no_parsing(monkeypatch)
    assert_same(_load(path), tree)


@pytest.mark.parametrize("damage", ["empty", "truncated", "flipped", "header", "garbage", "other-shape"])
def test_a_damaged_cache_is_ignored_and_rewritten(tmp_path, monkeypatch, damage):
    path = tmp_path / "a.yaml"
    shutil.copyfile(ROOT / "rules" / "gemini.yaml", path)
    parsed = load_marked(path.read_text(encoding="utf-8"))
    _load(path)
    cache = _cache(path)
    good = cache.read_bytes()
    if damage in ("empty", "truncated", "flipped", "header"):
        bad = damaged(good, damage)
    elif damage == "garbage":
        bad = os.urandom(len(good))
    else:
        # an intact cache of the right digest whose payload is not a tree
        import hashlib
        import marshal

        payload = marshal.dumps((1, 2))
        start = len(yamlsource._HEADER) + bytecache.DIGEST
        bad = good[:start] + hashlib.sha256(payload).digest() + payload
    cache.write_bytes(bad)
    assert_same(_load(path), parsed)
    assert cache.read_bytes() == good
    _no_parsing(monkeypatch)
    assert_same(_load(path), parsed)


def test_an_unwritable_cache_folder_only_skips_writing(tmp_path):
    path = tmp_path / "a.yaml"
    shutil.copyfile(ROOT / "rules" / "gemini.yaml", path)
    # a file where the folder would be: no permission bits to rely on (tests may run as root)
    (tmp_path / "__pycache__").write_bytes(b"")
    assert_same(_load(path), load_marked(path.read_text(encoding="utf-8")))
    assert (tmp_path / "__pycache__").read_bytes() == b""
    assert sorted(tmp_path.iterdir()) == sorted([tmp_path / "__pycache__", path])


def test_a_failed_write_leaves_no_file_behind(tmp_path, monkeypatch):
    path = tmp_path / "a.yaml"
    shutil.copyfile(ROOT / "rules" / "gemini.yaml", path)

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(bytecache.os, "replace", fail)
    assert_same(_load(path), load_marked(path.read_text(encoding="utf-8")))
    assert list((tmp_path / "__pycache__").iterdir()) == []


def test_dont_write_bytecode_writes_no_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = tmp_path / "a.yaml"
    shutil.copyfile(ROOT / "rules" / "gemini.yaml", path)
    assert_same(_load(path), load_marked(path.read_text(encoding="utf-8")))
    assert not (tmp_path / "__pycache__").exists()


def test_pycache_prefix_holds_the_cache(tmp_path, monkeypatch):
    prefix = tmp_path / "prefix"
    monkeypatch.setattr(sys, "pycache_prefix", str(prefix))
    path = tmp_path / "rules" / "a.yaml"
    path.parent.mkdir()
    shutil.copyfile(ROOT / "rules" / "gemini.yaml", path)
    _load(path)
    assert not (path.parent / "__pycache__").exists()
    [cache] = prefix.rglob("*.rules")
    assert cache.name == f"a.yaml.{sys.implementation.cache_tag}.rules"
    assert cache.parent == prefix / str(path.parent.resolve()).lstrip(os.sep)


def test_a_file_that_does_not_parse_is_not_cached_and_reports_as_before(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("description: [unclosed\n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(wireschema.RuleFileError, match="not valid YAML"):
            wireschema.load_rules(path)
    assert not (tmp_path / "__pycache__").exists() or not list((tmp_path / "__pycache__").iterdir())


def test_rule_files_are_compiled_alike_from_the_cache(tmp_path):
    rules = tmp_path / "mine.yaml"
    rules.write_text(
        "extends: gemini\ndescription: mine\nrules:\n  - {id: team/x, disabled: true}\n", encoding="utf-8"
    )
    with pytest.raises(wireschema.RuleFileError) as first:
        wireschema.load_rules(rules)
    assert _cache(rules).is_file()
    with pytest.raises(wireschema.RuleFileError) as second:
        wireschema.load_rules(rules)
    assert str(first.value) == str(second.value)


_NO_YAML = """
import sys, wireschema
names = [t.name for t in wireschema.targets()]
wireschema.normalize({"type": "object", "properties": {"a": {"type": "string"}}}, "openai-strict")
print("yaml" in sys.modules, len(names))
"""


def test_yaml_is_imported_only_to_parse():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = [subprocess.run([sys.executable, "-c", _NO_YAML], capture_output=True, text=True, env=env, check=True) for _ in range(2)]
    # the first run may have had to parse (and cache); the second reads every file cached
    assert runs[1].stdout.split()[0] == "False", runs[1].stdout + runs[1].stderr
    assert runs[0].stdout.split()[1] == runs[1].stdout.split()[1]
