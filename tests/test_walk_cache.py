"""A compiled walk's code is cached like bytecode (`compiler._code`, `bytecache`): what
comes back from the cache is exactly what compiling gives, and no problem with the cache
ever changes a result or raises."""

from __future__ import annotations

import sys

import pytest

import wireschema
from conftest import damaged
from wireschema import bytecache, compiler

SOURCE = "def make():\n    def walk(run, sel):\n        return sel * 2\n    return walk\n"
NAME = "<wireschema walk test>"


@pytest.fixture(autouse=True)
def _cache_in(tmp_path, monkeypatch):
    # the test environment may set PYTHONDONTWRITEBYTECODE: the cache follows it
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setattr(compiler, "_WALKS_DIR", tmp_path)


def _files(tmp_path):
    folder = tmp_path / "__pycache__"
    return sorted(folder.iterdir()) if folder.exists() else []


def test_a_cached_walk_is_the_compiled_walk(tmp_path, monkeypatch):
    made = compiler._code(SOURCE, NAME)
    [cache] = _files(tmp_path)
    assert cache.name.endswith(f".{sys.implementation.cache_tag}.walk")

    def no_compiling(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(compiler, "compile", no_compiling, raising=False)
    again = compiler._code(SOURCE, NAME)
    assert again == made == compile(SOURCE, NAME, "exec")
    assert again.co_filename == NAME


def test_another_source_or_file_name_is_another_cache(tmp_path):
    compiler._code(SOURCE, NAME)
    compiler._code(SOURCE.replace("* 2", "* 3"), NAME)
    compiler._code(SOURCE, "<wireschema walk other>")
    assert len(_files(tmp_path)) == 3


@pytest.mark.parametrize("damage", ["empty", "truncated", "flipped", "header", "not-code"])
def test_a_damaged_cache_is_ignored_and_rewritten(tmp_path, damage):
    import hashlib
    import marshal

    made = compiler._code(SOURCE, NAME)
    [cache] = _files(tmp_path)
    good = cache.read_bytes()
    start = len(compiler._WALK_HEADER) + bytecache.DIGEST
    if damage != "not-code":
        bad = damaged(good, damage)
    else:  # intact, of the right digest, but not a code object
        payload = marshal.dumps((1, 2))
        bad = good[:start] + hashlib.sha256(payload).digest() + payload
    cache.write_bytes(bad)
    assert compiler._code(SOURCE, NAME) == made
    assert cache.read_bytes() == good


def test_dont_write_bytecode_writes_no_walk(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert compiler._code(SOURCE, NAME) == compile(SOURCE, NAME, "exec")
    assert _files(tmp_path) == []


def test_targets_normalize_alike_with_their_walks_cached(tmp_path, monkeypatch):
    from wireschema.listing import shipped_dir
    from wireschema.ruletable import Registry, Vocabulary

    monkeypatch.setenv("WIRESCHEMA_NO_CACHE", "1")
    schema = {"type": "object", "properties": {"a": {"type": ["string", "null"], "format": "email"}, "b": {"anyOf": [{"type": "integer"}, False]}}}

    def results():
        # targets compiled afresh: their walks are made again, from source or the cache
        d = shipped_dir()
        registry = Registry([d], Vocabulary(d / "_vocabulary.yaml"))
        return [wireschema.normalize(schema, registry.get(t)) for t in ("openai-strict", "gemini", "anthropic-strict")]

    compiled = results()
    assert _files(tmp_path)

    def no_compiling(*args, **kwargs):
        raise AssertionError("a walk compiled again")

    monkeypatch.setattr(compiler, "compile", no_compiling, raising=False)
    cached = results()
    for a, b in zip(compiled, cached):
        assert (a.schema, a.changes, a.strict_reason) == (b.schema, b.changes, b.strict_reason)
