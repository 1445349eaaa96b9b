"""Special files in a rules folder: only regular files are read, each within a size limit,
and whatever is skipped is named (load_rules, `normalize --rules`, `rules lint`).

A FIFO or a device would block or never end if opened, so those cases run the command in
a child process: its timeout only guards the suite against a hang, and it asserts no time.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

import wireschema
from wireschema import rulepaths
from wireschema.errors import RuleFileError

MINE = "extends: gemini\n"


def _folder(tmp_path: Path, specials: dict[str, str]) -> Path:
    """A folder with one good rule file and, per name, a special file of that kind."""
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "mine.yaml").write_text(MINE)
    for name, kind in specials.items():
        path = folder / f"{name}.yaml"
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "loop":
            os.symlink(path.name, path)
        elif kind == "directory":
            path.mkdir()
        elif kind == "nothing":
            os.symlink("no-such-file", path)
        else:
            os.symlink(kind, path)  # a device
    return folder


def _child(*args: str) -> subprocess.CompletedProcess:
    """The command in a child process, its memory capped (a broken read fails, not the machine)."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    env = {k: v for k, v in os.environ.items() if not k.startswith("WIRESCHEMA_")}
    return subprocess.run([sys.executable, "-m", "wireschema", *args], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, preexec_fn=cap, timeout=120)


def test_load_rules_skips_and_names_what_is_no_regular_file(tmp_path):
    folder = _folder(tmp_path, {"loop": "loop", "dir": "directory", "gone": "nothing"})
    rules = wireschema.load_rules(folder)
    assert rules.names() == ["mine"]
    assert [(p.name, why) for p, why in rules.skipped] == [
        ("dir.yaml", "a directory"), ("gone.yaml", "a symbolic link to nothing"), ("loop.yaml", "a symbolic link that loops")]


@pytest.mark.parametrize("kind, said", [("fifo", "a FIFO"), ("loop", "a symbolic link that loops"), ("/dev/zero", "a character device")])
def test_one_special_file_given_as_the_rules_is_a_rule_file_error_saying_what_it_is(tmp_path, kind, said):
    path = _folder(tmp_path, {"odd": kind}) / "odd.yaml"  # looked at, never opened
    with pytest.raises(RuleFileError, match=f"not a rule file or directory: {said}$"):
        wireschema.load_rules(path)


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/dev/urandom"])
def test_reading_a_special_file_refuses_it_without_blocking(tmp_path, kind):
    if kind.startswith("/dev/") and not os.path.exists(kind):
        pytest.skip(f"no {kind} here")
    path = _folder(tmp_path, {"odd": kind}) / "odd.yaml"
    # the guard: a read that blocked or never ended would stop the child, not the suite
    code = f"from wireschema import rulepaths\ntry: rulepaths.read_bytes({str(path)!r})\nexcept Exception as e: print(e)"
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert ran.stdout.strip().endswith(", not a regular file"), ran.stderr


def test_a_rule_file_past_the_size_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(rulepaths, "MAX_BYTES", 64)
    path = tmp_path / "big.yaml"
    path.write_text("description: " + "x" * 64 + "\n")
    with pytest.raises(RuleFileError, match="larger than 64 bytes, the most a rule file may hold"):
        wireschema.load_rules(path)
    path.write_text("description: small\n")  # extending nothing: the shipped files are larger
    assert wireschema.load_rules(path).names() == ["big"]


def test_normalize_with_a_folder_of_special_files_warns_once_each_and_goes_on(tmp_path):
    folder = _folder(tmp_path, {"fifo": "fifo", "zero": "/dev/zero", "loop": "loop"})
    (tmp_path / "s.json").write_text('{"type": "object"}')
    ran = _child("normalize", str(tmp_path / "s.json"), "--target", "mine", "--rules", str(folder))
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.splitlines() == [
        f"wireschema: warning: {folder / name}: skipped: {why}, not a regular file"
        for name, why in [("fifo.yaml", "a FIFO"), ("loop.yaml", "a symbolic link that loops"), ("zero.yaml", "a character device")]
    ]


def test_rules_lint_names_each_special_file_as_a_finding(tmp_path):
    folder = _folder(tmp_path, {"fifo": "fifo", "dir": "directory"})
    ran = _child("rules", "lint", str(folder))
    assert ran.returncode == 1, ran.stderr
    assert ran.stdout.splitlines() == [
        f"{folder / 'dir.yaml'}: skipped: a directory, not a regular file",
        f"{folder / 'fifo.yaml'}: skipped: a FIFO, not a regular file",
    ]
    ran = _child("rules", "lint", str(folder / "fifo.yaml"))
    assert (ran.returncode, ran.stdout) == (1, f"{folder / 'fifo.yaml'}: not a rule file or directory: a FIFO\n")
