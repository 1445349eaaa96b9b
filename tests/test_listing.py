"""The shipped targets' listing is kept beside the rules like bytecode (`listing`): what
comes back from it is what reading the rule files gives, an edited, added or removed
rule file is read again, and no problem with the cache changes the listing or raises."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

import wireschema
from conftest import ROOT, damaged
from wireschema import listing
from wireschema.ruletable import Registry, Vocabulary


@pytest.fixture(autouse=True)
def _cache_written(monkeypatch):
    # the test environment may set PYTHONDONTWRITEBYTECODE: the cache follows it
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", None)


@pytest.fixture
def folder(tmp_path):
    copy = tmp_path / "rules"
    shutil.copytree(listing.shipped_dir(), copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _reader(folder, calls):
    def make():
        calls.append(1)
        registry = Registry([folder], Vocabulary(folder / "_vocabulary.yaml"))
        return wireschema._rows(registry)

    return make


def _cache(folder):
    return folder / "__pycache__" / f"_listing.{sys.implementation.cache_tag}.listing"


def test_a_kept_listing_is_what_the_rule_files_say(folder):
    calls: list[int] = []
    first = listing.shipped(_reader(folder, calls), folder)
    again = listing.shipped(_reader(folder, calls), folder)
    assert calls == [1]  # the second listing read no rule file
    assert again == first
    assert [row[0] for row in first] == [t.name for t in wireschema.targets()]
    assert all(row[2] == str(folder / f"{row[0]}.yaml") for row in first)


def test_a_moved_folder_lists_its_own_paths(folder, tmp_path):
    calls: list[int] = []
    listing.shipped(_reader(folder, calls), folder)
    moved = tmp_path / "elsewhere"
    folder.rename(moved)
    rows = listing.shipped(_reader(moved, calls), moved)
    assert calls == [1]
    assert all(row[2] == str(moved / f"{row[0]}.yaml") for row in rows)


@pytest.mark.parametrize("change", ["edited", "added", "removed"])
def test_a_changed_rule_file_is_read_again(folder, change):
    calls: list[int] = []
    listing.shipped(_reader(folder, calls), folder)
    gemini = folder / "gemini.yaml"
    if change == "edited":
        text = gemini.read_text(encoding="utf-8")
        gemini.write_text(text.replace("description: ", "description: Edited. ", 1), encoding="utf-8")
    elif change == "added":
        (folder / "extra.yaml").write_text('description: "An extra target."\nextends: gemini\n', encoding="utf-8")
    else:
        (folder / "vertex.yaml").unlink()
    rows = listing.shipped(_reader(folder, calls), folder)
    assert calls == [1, 1]
    names = [row[0] for row in rows]
    if change == "edited":
        assert dict((r[0], r[1]) for r in rows)["gemini"].startswith("Edited. ")
    elif change == "added":
        assert "extra" in names
    else:
        assert "vertex" not in names


def test_a_listing_that_left_a_file_out_is_not_kept(folder):
    (folder / "vertex.yaml").write_text("descripton: misspelt\nextends: gemini\n", encoding="utf-8")
    calls: list[int] = []
    rows = listing.shipped(_reader(folder, calls), folder)
    assert "vertex" not in [row[0] for row in rows]
    listing.shipped(_reader(folder, calls), folder)
    assert calls == [1, 1]  # read (and logged) again
    assert not _cache(folder).exists()


@pytest.mark.parametrize("damage", ["empty", "truncated", "flipped", "header"])
def test_a_damaged_listing_is_ignored_and_rewritten(folder, damage):
    calls: list[int] = []
    first = listing.shipped(_reader(folder, calls), folder)
    good = _cache(folder).read_bytes()
    _cache(folder).write_bytes(damaged(good, damage))
    assert listing.shipped(_reader(folder, calls), folder) == first
    assert calls == [1, 1]
    assert _cache(folder).read_bytes() == good


def test_dont_write_bytecode_keeps_no_listing(folder, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    calls: list[int] = []
    listing.shipped(_reader(folder, calls), folder)
    assert not (folder / "__pycache__").exists()


def test_targets_in_a_fresh_process_imports_no_rule_machinery(tmp_path):
    # with the listing kept (the first run keeps it), the command reads neither the rule
    # files nor attrs: most of what it spent (nor OpenSSL's hashlib, on CPython: see digests)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path)  # leaves the checkout's own caches alone
    probe = (
        "import sys, io, contextlib\n"
        "from wireschema import cli\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    code = cli.main(['targets'])\n"
        "heavy = ('attrs', 'wireschema.ruletable', 'yaml') + (('hashlib',) if sys.implementation.name == 'cpython' else ())\n"
        "print(code, len(out.getvalue().splitlines()), sorted(m for m in heavy if m in sys.modules))\n"
    )
    runs = [subprocess.run([sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
            for _ in range(2)]
    listed = str(len(wireschema.targets()))
    assert runs[0][:2] == ["0", listed]
    assert runs[1] == ["0", listed, "[]"]
