"""The docs site cannot go stale: its code blocks run, its tables name what the package has,
and `mkdocs build --strict` passes where MkDocs is installed (`pip install -e '.[docs]'`).

Blocks are checked as tests/test_readme.py checks the README's: `python` runs as a script
from the repository root, `console` shows the real output, `yaml` is a rule file that
compiles. `sh` blocks (install steps, commands on files of your own) are not run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import wireschema
from test_readme import _FENCE, _env, _session, _shell, _subcommands

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
_CHECKED = ("sh", "python", "console", "yaml")


def _blocks(kind: str) -> list[tuple[str, int, str]]:
    found = []
    for page in PAGES:
        bodies = [body for lang, body in _FENCE.findall(page.read_text(encoding="utf-8")) if lang == kind]
        found += [(str(page.relative_to(ROOT)), i, body) for i, body in enumerate(bodies)]
    return found


def _ids(blocks: list[tuple[str, int, str]]) -> list[str]:
    return [f"{page}#{i}" for page, i, _ in blocks]


def _table(page: str, first_header: str) -> list[list[str]]:
    """The rows of the first table on `page` whose header row starts with `first_header`."""
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_every_block_is_of_a_kind_this_file_checks():
    langs = {lang for page in PAGES for lang, _ in _FENCE.findall(page.read_text(encoding="utf-8"))}
    assert langs <= set(_CHECKED), langs


@pytest.mark.parametrize(("page", "index", "code"), _blocks("python"), ids=_ids(_blocks("python")))
def test_python_block_runs(page, index, code):
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{page} python block {index}:\n{proc.stderr}"
    # `# ` comment lines right under a print show what it prints
    shown, after_print = [], False
    for line in code.splitlines():
        if after_print and line.startswith("# "):
            shown.append(line[2:])
            continue
        after_print = line.startswith("print(")
    assert all(line in proc.stdout.splitlines() for line in shown), (shown, proc.stdout)


@pytest.mark.parametrize(("page", "index", "block"), _blocks("console"), ids=_ids(_blocks("console")))
def test_console_block_shows_the_real_output(page, index, block, tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    script, expected = _session(block)
    assert _shell(script, tmp_path).stdout.decode("utf-8") == expected


@pytest.mark.parametrize(("page", "index", "text"), _blocks("yaml"), ids=_ids(_blocks("yaml")))
def test_yaml_block_is_a_rule_file_that_compiles(page, index, text, tmp_path):
    name = re.match(r"# (\S+\.ya?ml)", text)
    if name and name.group(1).startswith("rules/"):
        return  # a shortened excerpt of a shipped file, for reading
    assert name, "a rule-file block starts with a comment naming its file"
    path = tmp_path / Path(name.group(1)).name
    path.write_text(text, encoding="utf-8")
    # compiles, and its target takes a schema without falling back
    target = wireschema.load_rules(path)[path.stem]
    assert not wireschema.normalize({"type": "object", "properties": {"xs": {"type": "array"}}}, target).used_fallback


def test_the_targets_table_lists_every_target_with_its_validators():
    rows = _table("reference/targets.md", "target")
    shown = {row[0].strip("`"): row[-1] for row in rows}
    assert sorted(shown) == sorted(info.name for info in wireschema.targets()) and len(shown) == len(rows)
    wire = yaml.safe_load((ROOT / "rules" / "_wire.yaml").read_text(encoding="utf-8"))["targets"]
    for target, cell in shown.items():
        always, _, strict = cell.partition("; strict: ")
        said = {"": set(always.split(", ")), "strict": set(strict.split(", ")) - {""}}
        named = {"": set(), "strict": set()}
        for entry in wire[target]:
            named[entry.get("when", "")].add(entry["validator"])
        assert said == named, target


def test_the_command_table_names_the_commands_and_options_the_parser_has():
    known = _subcommands()
    named = set()
    for row in _table("reference/cli.md", "command"):
        usage = re.fullmatch(r"`wireschema ((?:rules )?\w+)(.*)`", row[0])
        assert usage, row[0]
        command, rest = usage.groups()
        named.add(command)
        assert all(option in known[command] for option in re.findall(r"--[\w-]+", rest)), command
    assert named == set(known)


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_table_cells_are_short(page):
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("|"):
            assert all(len(cell) < 200 for cell in line.split("|")), line[:80]


def test_the_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocstrings_handlers.python")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
