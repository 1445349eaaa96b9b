"""`wireschema rules lint | new | explain`: what a maintainer runs while writing a rule file."""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import pytest

import wireschema
from wireschema import cli
from wireschema.listing import shipped_dir
from wireschema.ruletable import Registry, Vocabulary

WEATHER = {"type": "object", "properties": {"city": {"type": "string", "title": "City", "format": "uri"}}}


def run(monkeypatch, *argv):
    """(exit code, stdout, stderr) of main() in this process."""
    out, err = io.StringIO(), io.StringIO()
    with monkeypatch.context() as m:
        m.setattr(sys, "stdout", out)
        m.setattr(sys, "stderr", err)
        code = cli.main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _shipped_copy(tmp_path: Path, monkeypatch, broken: dict[str, str]) -> None:
    folder = tmp_path / "rules"
    shutil.copytree(shipped_dir(), folder)
    for name, text in broken.items():
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(wireschema, "_shipped", Registry([folder], Vocabulary(folder / "_vocabulary.yaml")))


def test_lint_names_every_broken_shipped_file_and_what_breaking_it_costs(tmp_path, monkeypatch):
    _shipped_copy(tmp_path, monkeypatch, {
        "vertex": "extends: gemini\ndescripton: typo\n",
        "cca-claude": "extends: gemini\nrules:\n  - id: x/y\n    kind: stirp\n    why: typo\n",
    })
    code, out, _ = run(monkeypatch, "rules", "lint")
    assert code == 1
    lines = sorted(out.splitlines())
    assert len(lines) == 2
    assert "cca-claude.yaml:4:11: rule 'x/y': unknown rule kind 'stirp'" in lines[0]
    assert lines[0].endswith("[this target fails when used; the others do not]")
    assert "vertex.yaml:2:1: unknown field 'descripton' — did you mean 'description'?" in lines[1]
    assert lines[1].endswith("[left out of the target list and of reading tools]")


def test_lint_of_a_folder_reports_each_broken_file(tmp_path, monkeypatch):
    (tmp_path / "a.yaml").write_text("extends: gemini\nrules:\n  - id: a/x\n    kind: dorp\n    why: t\n")
    (tmp_path / "b.yaml").write_text("extends: gemeni\n")
    (tmp_path / "c.yaml").write_text("extends: gemini\n")
    code, out, _ = run(monkeypatch, "rules", "lint", tmp_path)
    assert code == 1
    first, second = out.splitlines()
    assert first.startswith(f"{tmp_path / 'a.yaml'}:4:11: ") and "did you mean 'drop'?" in first
    assert second.startswith(f"{tmp_path / 'b.yaml'}:1:10: ") and "did you mean 'gemini'?" in second
    (tmp_path / "a.yaml").unlink()
    (tmp_path / "b.yaml").unlink()
    assert run(monkeypatch, "rules", "lint", tmp_path)[:2] == (0, f"ok: 1 targets in {tmp_path}\n")


def test_new_writes_a_file_that_compiles_and_changes_nothing_yet(tmp_path, monkeypatch):
    code, out, _ = run(monkeypatch, "rules", "new", "my-gemini", "--extends", "gemini", "--dir", tmp_path)
    path = tmp_path / "my-gemini.yaml"
    assert code == 0 and out.startswith(f"wrote {path}: my-gemini extends gemini")
    target = wireschema.load_rules(path)["my-gemini"]
    assert [r.id for r in target.rules] == [r.id for r in wireschema._target("gemini").rules]
    assert wireschema.normalize(WEATHER, target).schema == wireschema.normalize(WEATHER, "gemini").schema
    text = path.read_text(encoding="utf-8")
    # every way of saying a difference is shown, commented out: an edit of one of the
    # base's named lists, an unset field, a new rule placed among the inherited ones
    assert "# lists:\n#   fields: {remove: [anyOf]}" in text and "# strict_variant: null" in text
    assert "#   before: gemini/root-object" in text
    # the commented example becomes a working rule by uncommenting it
    uncommented = text.replace("  # - id: my-gemini/drop-title", "  - id: my-gemini/drop-title")
    for line in ("kind: drop", "keys: [title]", "before: gemini/root-object", "why: One line"):
        uncommented = uncommented.replace(f"  #   {line}", f"    {line}", 1)
    path.write_text(uncommented, encoding="utf-8")
    assert "title" not in wireschema.normalize(WEATHER, wireschema.load_rules(path)["my-gemini"]).schema["properties"]["city"]


def test_new_shows_where_the_bases_other_modes_send_schemas(tmp_path, monkeypatch):
    """A file's strict and output variants are its base's with its changes laid over
    them (issue 55): its starting file names them in comments, and its first rule
    reaches a strict tool too. Before, it stated them, so the rule did not."""
    assert run(monkeypatch, "rules", "new", "my-claude", "--extends", "anthropic", "--dir", tmp_path)[0] == 0
    path = tmp_path / "my-claude.yaml"
    text = path.read_text(encoding="utf-8")
    assert "\n# strict_variant: anthropic-strict\n# output: {variant: anthropic-output}\n" in text
    uncommented = text.replace("  # - id: my-claude/drop-title", "  - id: my-claude/drop-title")
    for line in ("kind: drop", "keys: [title]", "why: One line"):
        uncommented = uncommented.replace(f"  #   {line}", f"    {line}", 1)
    path.write_text(uncommented, encoding="utf-8")
    mine = wireschema.load_rules(path)["my-claude"]
    assert "title" not in wireschema.normalize(WEATHER, mine).schema["properties"]["city"]
    assert "title" not in wireschema.normalize(WEATHER, mine, strict=True).schema["properties"]["city"]


@pytest.mark.parametrize("argv,phrase", [
    (["new", "gemini", "--extends", "gemini"], "exists already"),
    (["new", "_base2", "--extends", "gemini"], "not starting with _"),
    (["new", "../x", "--extends", "gemini"], "a target name is letters"),
    (["new", "mine", "--extends", "gemnii"], "unknown target 'gemnii' — did you mean 'gemini'?"),
])
def test_new_refuses_in_one_error_line(tmp_path, monkeypatch, argv, phrase):
    (tmp_path / "gemini.yaml").write_text("extends: gemini\n")
    code, out, err = run(monkeypatch, "rules", *argv, "--dir", tmp_path)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and phrase in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gemini.yaml"]


def test_explain_prints_the_merged_rules_and_where_each_came_from(monkeypatch):
    code, out, _ = run(monkeypatch, "rules", "explain", "openai-strict-compat")
    target = wireschema._target("openai-strict-compat")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("openai-strict-compat: OpenAI strict mode")
    assert lines[1] == "  files: _base.yaml -> _chat-request.yaml -> _openai-probe.yaml -> openai-strict.yaml -> openai-strict-compat.yaml (each over the ones before it)"
    assert "  list keys: declared in openai-strict.yaml:" in out and ", edited in openai-strict-compat.yaml:" in out
    numbered = [line for line in lines if line.lstrip()[:1].isdigit()]
    assert len(numbered) == len(target.rules) + len(target.checks)
    keep = next(line for line in numbered if "openai-strict/keep-only " in line)
    # declared in one file, its reason overridden in another, its keys from the edited list
    assert "openai-strict.yaml:" in keep and "openai-strict-compat.yaml:" in keep and "(why)" in keep
    assert keep.endswith("; keys from list:keys")
    base = next(line for line in numbered if "prepare/resolve-refs " in line)
    assert "_base.yaml:" in base and "openai-strict.yaml:" in base and "(mode, recursion, why)" in base


def test_explain_with_options_and_a_users_file(tmp_path, monkeypatch):
    (tmp_path / "mine.yaml").write_text("extends: gemini\nlists:\n  formats: {add: {string: [uuid]}}\n")
    code, out, _ = run(monkeypatch, "rules", "explain", "mine", "--options", "--rules", tmp_path)
    assert code == 0 and "list formats: declared in gemini.yaml:" in out and "edited in mine.yaml:3" in out
    allowed = out.split("gemini/formats ", 1)[1].split("allowed: ", 1)[1].splitlines()[0]
    assert "uuid" in allowed and "date-time" in allowed
