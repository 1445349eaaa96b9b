"""The README cannot go stale: every code block runs, console blocks show the real output,
and its tables name what the package has.

- `sh`: the two commands at the top (the install steps themselves are left to CI);
- `python`: executed as a script from the repository root;
- `console`: `$ ` lines run in one shell, in a scratch copy of `examples/`; the other
  lines are the exact output (stdout and stderr as a terminal shows them);
- `yaml`: a rule file (its first line names it), compiled and used;
- the target table lists exactly the targets of `wireschema targets` (the docs' command
  table is held to the argument parser: tests/test_docs.py).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import wireschema
from wireschema import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)
_CHECKED = ("sh", "python", "console", "yaml")


def _blocks(kind: str) -> list[str]:
    return [body for lang, body in _FENCE.findall(README) if lang == kind]


def _env() -> dict[str, str]:
    # the switches would change every result; the command must be this interpreter's
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIRESCHEMA_")}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def _shell(script: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=_env(), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )


def test_every_block_is_of_a_kind_this_file_checks():
    langs = [lang for lang, _ in _FENCE.findall(README)]
    assert langs and all(lang in _CHECKED for lang in langs), langs
    assert langs[0] == "sh", "the README starts with its two commands"


def test_the_readme_starts_with_install_and_run_then_the_test_command(tmp_path):
    first, second = _blocks("sh")[0].strip().splitlines()
    install, run = (part.strip() for part in first.split("&&"))
    assert install == "python -m pip install -e ."
    assert run.startswith("wireschema normalize examples/")
    proc = subprocess.run(run.split(), cwd=ROOT, env=_env(), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.lstrip().startswith("{") and proc.stderr.startswith("target ")
    test_install, test_run = (part.strip() for part in second.split("&&"))
    assert test_install == "python -m pip install -e '.[test]'"
    # the README's test command is the one CI runs
    assert test_run in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("index", range(len(_blocks("python"))))
def test_python_block_runs(index):
    proc = subprocess.run([sys.executable, "-c", _blocks("python")[index]], cwd=ROOT, env=_env(),
                          capture_output=True, text=True)
    assert proc.returncode == 0, f"README python block {index}:\n{proc.stderr}"


def _session(block: str) -> tuple[str, str]:
    commands, expected = [], []
    for line in block.splitlines():
        (commands if line.startswith("$ ") else expected).append(line[2:] if line.startswith("$ ") else line)
    return "\n".join(commands), "".join(line + "\n" for line in expected)


def _real_output(block: str, scratch: Path) -> str:
    shutil.copytree(ROOT / "examples", scratch / "examples")
    script, _ = _session(block)
    return _shell(script, scratch).stdout.decode("utf-8")


@pytest.mark.parametrize("index", range(len(_blocks("console"))))
def test_console_block_shows_the_real_output(index, tmp_path):
    block = _blocks("console")[index]
    # on purpose changed? `python tests/test_readme.py --update`, then review the diff
    assert _real_output(block, tmp_path) == _session(block)[1]


@pytest.mark.parametrize("index", range(len(_blocks("yaml"))))
def test_yaml_block_is_a_rule_file_that_compiles(index, tmp_path):
    text = _blocks("yaml")[index]
    name = re.match(r"# (\S+\.ya?ml)\n", text)
    assert name, "a rule-file block starts with a comment naming its file"
    path = tmp_path / name.group(1)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    rules = wireschema.load_rules(path.parent)
    for target in rules.names():
        result = wireschema.normalize({"type": "object", "title": "T", "properties": {"xs": {"type": "array"}}}, rules[target])
        assert not result.used_fallback


def _table(heading: str) -> list[list[str]]:
    section = README.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[2:]]


def test_target_table_lists_exactly_the_shipped_targets(tmp_path):
    shown = [row[0].strip("`") for row in _table("Targets")]
    listed = [line.split()[0] for line in _shell("wireschema targets", tmp_path).stdout.decode().splitlines()]
    assert sorted(shown) == sorted(listed) and len(set(shown)) == len(shown)


def _subcommands() -> dict[str, set[str]]:
    parser = cli._build_parser()
    [sub] = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    out = {}
    for name, p in sub.choices.items():
        nested = [a for a in p._actions if a.__class__.__name__ == "_SubParsersAction"]
        for full, q in ([(f"{name} {n}", q) for n, q in nested[0].choices.items()] if nested else [(name, p)]):
            out[full] = {opt for a in q._actions for opt in a.option_strings}
    return out


def test_links_to_files_of_the_repository_exist():
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README):
        assert (ROOT / target).exists(), target


@pytest.mark.parametrize("doc", ["README.md", "CONTRIBUTING.md"])
def test_every_python_m_module_named_exists(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    modules = set(re.findall(r"python -m ([\w.]+)", text))
    assert "pytest" in modules
    for module in modules:
        assert importlib.util.find_spec(module) is not None, f"{doc} names python -m {module}"


def test_changelog_has_the_current_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{wireschema.__version__}] - " in text
    assert text.index("## [Unreleased]") < text.index(f"## [{wireschema.__version__}]")


def test_the_python_versions_named_are_the_ones_ci_runs():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    classified = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', pyproject)
    said = re.search(r"CI runs the suite on ([\d.]+), and on ([\d.]+) and ([\d.]+)", README)
    assert said and sorted(said.groups()) == sorted(classified)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for version in classified:
        # the machine's own Python, or a script of .ci/ that brings that version
        assert version == "3.11" or f"bash .ci/python{version}" in ci, version


_MARK = "@@wireschema-readme-next-command@@"


def _update() -> None:
    """Write each console block's real output into README.md (like a snapshot update)."""
    import tempfile

    text = README
    for block in _blocks("console"):
        commands = [line[2:] for line in block.splitlines() if line.startswith("$ ")]
        # one shell, as the test runs it; a mark after each command (its exit status kept
        # for the next one, which may print $?) says where its output ends
        script = "".join(f"{c}\n__status=$?; echo {_MARK}; (exit $__status)\n" for c in commands)
        with tempfile.TemporaryDirectory() as scratch:
            shutil.copytree(ROOT / "examples", Path(scratch) / "examples")
            outputs = _shell(script, Path(scratch)).stdout.decode("utf-8").split(_MARK + "\n")
        new = "".join(f"$ {c}\n{out}" for c, out in zip(commands, outputs))
        text = text.replace(block, new, 1)
    (ROOT / "README.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_readme.py --update")
    _update()
